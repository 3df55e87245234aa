#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/check-device-sync.sh must pass on a clean tree and fail on each kind of wait it names:
# every line below, alone in a copy of src/, has to be reported.
set -euo pipefail
root=$1
check=$root/tools/check-device-sync.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=(
  'cudaDeviceSynchronize();'
  'DFFT_CUDA(cudaStreamSynchronize(0));'
  'DFFT_CUDA(cudaStreamSynchronize(nullptr));'
  'cudaStreamWaitEvent(cudaStreamLegacy, e, 0);'
  'cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);'
  'cudaMemset(d, 0, n);'
  'cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, 0);'
  'kernel<<<blocks, threads>>>(p);'
  'kernel<<<blocks, threads, 0, 0>>>(p);'
)
for line in "${bad[@]}"; do
  mkdir -p "$tmp/tools" "$tmp/src"
  cp "$check" "$tmp/tools/"
  printf 'void f() {\n  %s\n}\n' "$line" >"$tmp/src/x.cpp"
  if bash "$tmp/tools/check-device-sync.sh" "$tmp" >/dev/null; then
    echo "not reported: $line"
    exit 1
  fi
  printf 'void f() {\n  %s  // stream-order: allowed (plan creation)\n}\n' "$line" >"$tmp/src/x.cpp"
  bash "$tmp/tools/check-device-sync.sh" "$tmp" >/dev/null || { echo "marked line reported: $line"; exit 1; }
done
printf 'cufftHandle h;\nvoid f() { cufftMakePlanMany64(h); }\n' >"$tmp/src/x.cpp"
if bash "$tmp/tools/check-device-sync.sh" "$tmp" >/dev/null; then
  echo "a cuFFT plan without cufftSetStream not reported"
  exit 1
fi
bash "$check" "$root"

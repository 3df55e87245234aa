#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Executing a plan is stream-ordered: it queues work on the plan's stream (Options::stream) and
# its side streams and waits for those only, so that plans on other streams, and the caller's
# own kernels, keep running. This lists every call in src/ that would wait for the whole device
# or use the legacy default stream (which waits for every blocking stream):
#   cudaDeviceSynchronize, cudaStreamSynchronize of stream 0 / the legacy or per-thread stream,
#   the synchronous copies and sets (cudaMemcpy*, cudaMemset* without Async), an ...Async call or
#   cudaStreamWaitEvent on stream 0, a kernel launch without a stream, cuFFT plans left on the
#   default stream (a cufftPlan* file without cufftSetStream).
# A line that must do so anyway (plan creation or destruction, never an execution) says why and
# carries the marker "stream-order: allowed". Exits 1 and prints the lines if there are any.
#
#   tools/check-device-sync.sh [ROOT]      (ROOT: the repository, default: this script's parent)
set -euo pipefail
root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
cd "$root"

files=$(find src -type f \( -name '*.cpp' -o -name '*.cu' -o -name '*.hpp' -o -name '*.cuh' \) | sort)
pattern='\bcudaDeviceSynchronize\b'
pattern+='|\bcudaStreamSynchronize\(\s*(0|nullptr|NULL|cudaStreamLegacy|cudaStreamPerThread)\s*\)'
pattern+='|\bcudaStream(Legacy|PerThread)\b'
pattern+='|\bcudaMem(cpy|set)(2D|3D|Peer|ToSymbol|FromSymbol)?\s*\('
pattern+='|\bcuda[A-Za-z0-9]*Async\(.*,\s*(0|nullptr|NULL)\s*\)\s*\)?;'
pattern+='|\bcudaStreamWaitEvent\(\s*(0|nullptr|NULL)\s*,'
pattern+='|<<<[^,>]*(,[^,>]*)?>>>'              # <<<grid>>> or <<<grid, block>>>: stream 0
pattern+='|<<<[^,>]*,[^,>]*,[^,>]*>>>'          # <<<grid, block, shared>>>: stream 0
pattern+='|<<<.*,\s*(0|nullptr|NULL)\s*>>>'     # an explicit stream 0

# Comment lines only name these calls.
hits=$(grep -nE "$pattern" $files | grep -v 'stream-order: allowed' | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
# A file whose every plan line carries the marker plans without executing (a capability probe).
for f in $(grep -lE '^[^/]*\bcufft(Make)?Plan' $files || true); do
  grep -E '^[^/]*\bcufft(Make)?Plan' "$f" | grep -qv 'stream-order: allowed' || continue
  grep -q 'cufftSetStream' "$f" || hits+=$'\n'"$f: plans cuFFT transforms but never calls cufftSetStream (they would run on stream 0)"
done
hits=$(sed '/^$/d' <<<"$hits")
if [[ -n $hits ]]; then
  echo "device-wide synchronisation or legacy default stream in src/ (see tools/check-device-sync.sh):"
  echo "$hits"
  exit 1
fi
echo "no device-wide synchronisation in src/"

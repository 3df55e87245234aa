#!/usr/bin/env bash
# Compressed exchanges on the GPU machine: validation of every codec with the device
# transports, then 512^3 / 1024^3 double R2C timings with and without fp32 on the wire.
#   tools/gpu-codec.sh OUTDIR
set -uo pipefail
OUT=${1:?usage: tools/gpu-codec.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-gpu}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mkdir -p "$OUT"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDFFT_CUDA=ON -DDFFT_NCCL=ON -DDFFT_TESTS=OFF \
  -DDFFT_PYTHON=OFF -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" > "$OUT/build.log" 2>&1 &&
  cmake --build "$BUILD" -j32 --target dfft_app >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
RUN="mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 $BUILD/bin/dfft bench --backend cuda"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > "$OUT/gpu.txt"
timeout 45 $RUN --size 17 12 10 --decomp slab-2d1d,pencil --variant default --method nccl,a2a-sync,p2p-streams,onesided \
  --codec none,fp32,fp16,bf16 --validate --no-reference --reps 1 --warmup 0 2>&1 | tee "$OUT/validate.log" | tail -3
timeout 60 $RUN --size 512 512 512 --decomp slab-2d1d --variant default --method nccl,a2a-sync --codec none,fp32 \
  --no-validate --no-reference --reps 5 --warmup 1 --json "$OUT/t512.jsonl" 2>&1 | tee "$OUT/t512.log" | tail -12
[ -n "${WITH_1024:-}" ] && timeout 90 $RUN --size 1024 1024 1024 --decomp slab-2d1d --variant default --method nccl --codec none,fp32 \
  --no-validate --no-reference --reps 3 --warmup 1 --json "$OUT/t1024.jsonl" 2>&1 | tee "$OUT/t1024.log" | tail -6

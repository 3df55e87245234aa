#!/usr/bin/env bash
# The CPU measurements of docs/results.md (run on a quiet machine):
#   1. dfft slabs vs FFTW-MPI, 128^3 and 256^3 double R2C, 2 ranks, FFTW_MEASURE on both sides;
#   2. compressed exchanges on 4 ranks, 512^3 double R2C (issue 6).
#   tools/cpu-results.sh OUTDIR [BUILD_DIR]
set -uo pipefail
OUT=${1:?usage: tools/cpu-results.sh OUTDIR [BUILD_DIR]}
B=${2:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"
for n in 128 256; do
  mpirun -np 2 "$B/bin/fftw-mpi-bench" --size $n $n $n --effort measure --reps 10 --warmup 2 2>&1 | tee "$OUT/fftw-$n.log"
  mpirun -np 2 "$B/bin/fftw-mpi-bench" --size $n $n $n --effort measure --reps 10 --warmup 2 --transposed 2>&1 | tee "$OUT/fftw-$n-transposed.log"
  mpirun -np 2 "$B/bin/dfft" bench --size $n $n $n --decomp slab-2d1d,slab-1d2d --effort measure --reps 10 \
    --warmup 2 --no-validate --no-reference --json "$OUT/dfft-$n.jsonl" 2>&1 | grep -v '^dfft bench: \[' | tee "$OUT/dfft-$n.log"
done
mpirun --oversubscribe -np 4 "$B/bin/dfft" bench --size 512 512 512 --decomp slab-2d1d --variant default \
  --method a2a-sync,p2p-sync,onesided --codec none,fp32 --reps 3 --warmup 1 --no-validate --no-reference \
  --json "$OUT/codec-512.jsonl" 2>&1 | grep -v '^dfft bench: \[' | tee "$OUT/codec-512.log"
mpirun --oversubscribe -np 4 "$B/bin/dfft" bench --size 512 512 512 --decomp slab-2d1d --variant default \
  --method onesided --onesided-sync flush --codec none,fp32 --reps 3 --warmup 1 --no-validate --no-reference \
  --json "$OUT/codec-512-flush.jsonl" 2>&1 | grep -v '^dfft bench: \[' | tee "$OUT/codec-512-flush.log"

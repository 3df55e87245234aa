#!/usr/bin/env bash
# Overlap, pipelining and cuda-ipc on the GPU machine (issue 7): build, the GPU tests of the
# new paths on 1 and 2 ranks, then the timing tables (plain vs overlapped, nccl vs cuda-ipc).
#   tools/gpu-overlap.sh OUTDIR [tests|bench|all]
# Environment: BUILD_DIR (build-gpu), SIZES ("512"), PRECISIONS (float,double), REPS (5),
# FILTER (gtest filter of the test step), BENCH_TIMEOUT (seconds per bench command, 240).
set -uo pipefail
OUT=${1:?usage: tools/gpu-overlap.sh OUTDIR [tests|bench|all]}
WHAT=${2:-all}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-gpu}
SIZES=${SIZES:-512}
PRECISIONS=${PRECISIONS:-float,double}
REPS=${REPS:-5}
FILTER=${FILTER:-'*GpuOverlap*:*GpuIpc*:*cuda_ipc*:*p2p_pipelined*:*Pipelined*'}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-240}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
mkdir -p "$OUT"
status=0
t0=$(date +%s)
{
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDFFT_CUDA=ON -DDFFT_NCCL=ON -DDFFT_PYTHON=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual"
  cmake --build "$BUILD" -j32 --target dfft_app dfft_gpu_tests dfft_cuda_host_tests
} > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "== build done in $(( $(date +%s) - t0 )) s"
if [ "$WHAT" != bench ]; then
  for np in 1 2; do
    GTEST_BRIEF=1 timeout 300 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft_gpu_tests" --gtest_filter="$FILTER" \
      > "$OUT/tests-np$np.log" 2>&1
    rc=$?
    echo "== tests np$np exit $rc ($(( $(date +%s) - t0 )) s)"
    grep -E "FAILED|Failure|PASSED|SKIPPED \]|error" "$OUT/tests-np$np.log" | head -40
    [ $rc -eq 0 ] || status=1
  done
fi
if [ "$WHAT" != tests ]; then
  for n in $SIZES; do
    timeout "$BENCH_TIMEOUT" "${MPIRUN[@]}" -np 2 "$BUILD/bin/dfft" bench --backend cuda --size $n $n $n \
      --decomp slab-2d1d,pencil --variant default --method nccl,cuda-ipc --precision "$PRECISIONS" \
      --overlap 1,2,4,8 --reps "$REPS" --warmup 2 --no-validate --reference \
      --json "$OUT/overlap-$n.jsonl" > "$OUT/overlap-$n.log" 2>&1
    echo "== bench $n exit $? ($(( $(date +%s) - t0 )) s)"
    grep -vE "^dfft bench: \[" "$OUT/overlap-$n.log" | tail -45
  done
fi
exit $status

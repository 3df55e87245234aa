#!/usr/bin/env bash
# Build dfft with CUDA on a GPU machine, run the GPU test suite on 1, 2 and 4 ranks, then the
# GPU benchmark sweep; logs and JSON lines go to OUTDIR.
#
#   tools/gpu-check.sh OUTDIR [all|build|tests|bench|quick]
#
#   build  configure + build (build-gpu/, -DDFFT_CUDA=ON -DDFFT_NCCL=ON), nothing else
#   tests  build, then the GPU suite: 1 and 2 ranks, and 4 ranks sharing the GPUs
#   bench  build, then the benchmark sweep (bench-*.jsonl, bench-*.log)
#   quick  build, 1- and 2-rank tests without 128^3, then smoke
#   smoke  build, a short benchmark (256^3 float every configuration; 1024^3 float nccl slab)
#   all    (default) tests then bench
#
# Environment: BUILD_DIR (build-gpu), JOBS (16), NP (ranks of the sweep: 2), TEST_NPS (rank
# counts of the test runs: "1 2 4"), TEST_TIMEOUT
# (seconds per rank count, 300), BENCH_TIMEOUT (seconds per bench command, 900),
# SIZES_FULL (every method: "256 512"), SIZES_BIG (nccl and p2p-streams only: "1024"),
# REPS_FULL (10), REPS_BIG (5), BIG_METHODS (nccl,p2p-streams), PRECISIONS (float,double).
# Each size's JSON lines go to bench-SIZE.jsonl.
set -o pipefail
OUT=${1:?usage: tools/gpu-check.sh OUTDIR [all|build|tests|bench|quick]}
WHAT=${2:-all}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-gpu}
JOBS=${JOBS:-16}
NP=${NP:-2}
TEST_TIMEOUT=${TEST_TIMEOUT:-300}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-900}
SIZES_FULL=${SIZES_FULL-"256 512"}  # set empty to skip
SIZES_BIG=${SIZES_BIG-"1024"}  # set empty to skip
BIG_METHODS=${BIG_METHODS:-nccl,p2p-streams}
PRECISIONS=${PRECISIONS:-float,double}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NVLink multicast stays off: it can take the host's shared GPUs out of service.
export NCCL_NVLS_ENABLE=0
# --bind-to none: p2p-streams runs a sender thread and CUDA callbacks beside the main thread.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
status=0

machine() {
  echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv 2>&1
  nvidia-smi topo -m 2>&1 | head -8
  nvcc --version 2>&1 | tail -2
  mpirun --version 2>&1 | head -1
  cmake --version 2>&1 | head -1
  g++ --version 2>&1 | head -1
  ls /usr/include/nccl.h /usr/lib/x86_64-linux-gnu/libnccl.so* 2>&1 | head -3
  ls -d /usr/include/CLI /usr/include/nlohmann /usr/lib/x86_64-linux-gnu/libgtest.a 2>&1
}

build() {
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDFFT_CUDA=ON -DDFFT_NCCL=ON \
        -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" 2>&1 | tail -25 || return 1
  cmake --build "$BUILD" -j"$JOBS" --target dfft_app dfft_gpu_tests 2>&1 | grep -Ev '^\[ *[0-9]+%\] (Building|Linking)' | tail -40
}

gpu_tests() {  # np filter
  local np=$1 filter=$2
  echo "== GPU tests, $np rank(s), filter $filter"
  GTEST_BRIEF=1 timeout "$TEST_TIMEOUT" "${MPIRUN[@]}" -np "$np" "$BUILD/bin/dfft_gpu_tests" \
      --gtest_filter="$filter" > "$OUT/tests-np$np.log" 2>&1
  local rc=$?
  tail -60 "$OUT/tests-np$np.log"
  echo "== GPU tests, $np rank(s): exit $rc"
  [ $rc -eq 0 ] || status=1
}

bench() {  # label, then dfft bench arguments
  local label=$1
  shift
  echo "== bench $label: dfft bench --backend cuda $*"
  timeout "$BENCH_TIMEOUT" "${MPIRUN[@]}" -np "$NP" "$BUILD/bin/dfft" bench --backend cuda \
      --json "$OUT/bench-$label.jsonl" "$@" 2>&1 | tee "$OUT/bench-$label.log" | tail -80
  local rc=$?
  echo "== bench $label: exit $rc"
  [ $rc -eq 0 ] || status=1
}

machine 2>&1 | tee "$OUT/machine.log"
build 2>&1 | tee "$OUT/build.log" || { echo "build failed"; exit 1; }
[ -x "$BUILD/bin/dfft_gpu_tests" ] || { echo "build failed: no test binary"; exit 1; }
[ "$WHAT" = build ] && exit 0

if [ "$WHAT" = all ] || [ "$WHAT" = tests ]; then
  for np in ${TEST_NPS:-1 2 4}; do
    # The leak check reads cudaMemGetInfo: it needs one rank per GPU.
    if [ "$np" -le "$(nvidia-smi -L 2>/dev/null | wc -l)" ]; then gpu_tests "$np" '*'
    else gpu_tests "$np" '-*NoLeak*'; fi
  done

fi
if [ "$WHAT" = quick ]; then
  gpu_tests 1 '-*128x128x128*'
  gpu_tests 2 '-*128x128x128*:*NoLeak*'
fi
if [ "$WHAT" = quick ] || [ "$WHAT" = smoke ]; then
  bench smoke256 --size 256x256x256 --precision float --reps 3 --warmup 1 --reference --no-validate
  bench smoke1024 --size 1024x1024x1024 --precision float --decomp slab-2d1d --method nccl \
        --reps 3 --warmup 1 --reference --no-validate
fi
if [ "$WHAT" = all ] || [ "$WHAT" = bench ]; then
  # The largest size first (the performance target is read there): nccl and p2p-streams only,
  # since the other host-staged methods cannot be faster than p2p-streams there.
  for n in $SIZES_BIG; do
    bench "${n}-big" --size "${n}x${n}x${n}" --precision "$PRECISIONS" --transform r2c \
          --method "$BIG_METHODS" --reps "${REPS_BIG:-5}" --warmup 1 --reference --no-validate
  done
  for n in $SIZES_FULL; do
    bench "${n}" --size "${n}x${n}x${n}" --precision "$PRECISIONS" --transform r2c \
          --reps "${REPS_FULL:-10}" --warmup 2 --reference --no-validate
  done
fi
echo "== gpu-check done: status $status"
exit $status

#!/usr/bin/env bash
# The GPU runs behind docs/results.md for issues 3, 5, 6, 7, 9 and 10, in stages that each fit
# one device call:
#   tools/gpu-final.sh OUTDIR tests     build; the whole GPU suite on 1 and 2 ranks
#   tools/gpu-final.sh OUTDIR overlap   #7: plain vs overlapped, cuda-ipc vs nccl, 512^3/1024^3
#   tools/gpu-final.sh OUTDIR rest      #6 1024^3 double codecs + >2 GiB messages, #5 model
#                                       rows, #9 cupy tests, 4 ranks on 2 GPUs, copy engines
#   tools/gpu-final.sh OUTDIR pipeline  (2 GPUs) chunked nccl + concurrent cuda-ipc self copy:
#                                       the exchange tests on 2 ranks, 1024^3 overlap and codecs
#   tools/gpu-final.sh OUTDIR nccl-chunks  (2 GPUs) nccl chunks 1, 4, 8 at 1024^3
#   tools/gpu-final.sh OUTDIR final     (1, 2, 4 GPUs) #6 accuracy on GPUs, #5 model rows
#   tools/gpu-final.sh OUTDIR s4a       (2 GPUs) #6 accuracy on 1-2 GPUs, nccl chunks 8/16 with
#                                       fp32, overlap K = 8, pencil 1x2; then the suite on 2 ranks
#   tools/gpu-final.sh OUTDIR s4b       (2 GPUs) the suite on 1 rank and on 4 ranks sharing 2 GPUs
#   tools/gpu-final.sh OUTDIR s4d       (2 GPUs) the rest of the suite on 2 ranks (FILTER2), pencil
#                                       batch choice at 1024^3, then the suite on 1 rank
#   tools/gpu-final.sh OUTDIR s4e       (2 GPUs) overlap tests on 2 and 4 ranks (slice alignment),
#                                       then NP4_FILTER on 4 ranks sharing the 2 GPUs
#   tools/gpu-final.sh OUTDIR s4c       (2 GPUs) NP4_FILTER on 4 ranks sharing the 2 GPUs, then the
#                                       CPU backend on the host's cores, 4 ranks: #6 codecs at 512^3 /
#                                       1024^3 double (the #7 CPU overlap table: docs/results.md)
#   tools/gpu-final.sh OUTDIR s5cpu     (any kind; CPU-only build) #7 CPU overlap table with two
#                                       cores per rank (FFT thread + communication thread)
#   tools/gpu-final.sh OUTDIR s5taper   (any kind; CPU-only build) balanced vs tapered slices on the
#                                       CPU, alternating runs, two cores per rank
#   tools/gpu-final.sh OUTDIR s5a       (1 or 2 GPUs) tapered slices / chunks: their GPU tests and
#                                       the overlap and nccl tests on 1 and 2 ranks
#   tools/gpu-final.sh OUTDIR s5k       (1 or 2 GPUs) codec kernels: GPU codec tests, codec sweep on 2
#                                       ranks, gpu-codec-bench of these kernels and of the previous
#                                       ones (out/codec_old.cu, carried) built beside them
#   tools/gpu-final.sh OUTDIR s5s       (1 or 2 GPUs) overlap and codec tests on 1-3 ranks, then tools/stress.py
#                                       with the CUDA backend (random validated configurations)
#   tools/gpu-final.sh OUTDIR s6        (1 or 2 GPUs) the host fp16 codec's integer conversion against
#                                       the GPU kernels: GPU codec tests and GPU codec sweep on 1-3 ranks
#   tools/gpu-final.sh OUTDIR s6c       (1 or 2 GPUs) the C interface's test with the CUDA backend
#                                       (device memory through dfft_plan_allocate/upload/download), 1-2 ranks
#   tools/gpu-final.sh OUTDIR s7        (1 GPU) the Python binding on a GPU: which MPI mpi4py loads,
#                                       the first Plan under faulthandler, test_gpu.py on 1 and 2
#                                       ranks; then the whole GPU suite on 1 rank and the overlap,
#                                       cuda-ipc and codec tests on 2 ranks sharing the GPU
#   tools/gpu-final.sh OUTDIR s7py      (1 GPU) the binding alone: Plan on the cpu and cuda backends in
#                                       the image's Python, native backtraces (cuda-gdb), loaded libraries
#   tools/gpu-final.sh OUTDIR s7py2     (1 GPU) the binding's crash in the image's Python, isolated:
#                                       hwloc plugins, numpy, mpirun, environment, the faulting code
#   tools/gpu-final.sh OUTDIR s7py3     (1 GPU) the binding with the shared C++ runtime linked explicitly:
#                                       the toolchain's libstdc++ files, the module's links, test_gpu.py
#   tools/gpu-final.sh OUTDIR s5b       (2 GPUs) tapered vs balanced nccl chunks with the fp32 codec
#                                       at 1024^3 double (#6); cuda-ipc overlap at 1024^3 with
#                                       tapered and/or device-queued slices (#7)
# Environment: BUILD_DIR (build-gpu).
set -uo pipefail
OUT=${1:?usage: tools/gpu-final.sh OUTDIR tests|overlap|rest}
WHAT=${2:?stage}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-gpu}
case $WHAT in s5cpu|s5taper) BUILD=${BUILD_DIR:-$ROOT/build-cpu} ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
BENCH=(--backend cuda --no-validate)
mkdir -p "$OUT"
# The device tool returns at most eight files from a call: everything goes back as one archive.
pack() { tar czf /tmp/gpu-final-logs.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete &&
         mv /tmp/gpu-final-logs.tgz "$OUT/logs-$WHAT.tgz"; }
trap pack EXIT
t0=$(date +%s)
stamp() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
left() { local l=$(( ${BUDGET:-560} - ($(date +%s) - t0) )); echo $(( l < 30 ? 30 : l )); }  # seconds left
{
  date -u; nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv
  GPUFLAGS=(-DDFFT_CUDA=ON -DDFFT_NCCL=ON)
  case $WHAT in s5cpu|s5taper) GPUFLAGS=(-DDFFT_CUDA=OFF -DDFFT_NCCL=OFF) ;; esac
  # s7 builds the binding with the pybind11 that the image's Python carries (no .deb needed).
  case $WHAT in s7|s7py|s7py2|s7py3) GPUFLAGS+=(-DDFFT_PYTHON=ON -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)") ;; esac
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "${GPUFLAGS[@]}" \
    -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" -DPython3_EXECUTABLE="$(command -v python3)" \
    -DDFFT_TESTS=$(case $WHAT in tests|pipeline|final|s4a|s4b|s4c|s4d|s4e|s5a|s5k|s5s|s6|s6c|s7) echo ON;; *) echo OFF;; esac)
  case $WHAT in
    tests|pipeline) targets="dfft_app dfft_gpu_tests dfft_cuda_host_tests" ;;
    final) targets="dfft_app dfft_gpu_tests gpu_pack_bench" ;;
    s4a|s4b|s4c|s4d|s4e) targets="dfft_app dfft_gpu_tests dfft_cuda_host_tests" ;;
    s5a) targets="dfft_app dfft_gpu_tests" ;;
    s5k) targets="dfft_app dfft_gpu_tests gpu_codec_bench" ;;
    s5s|s6) targets="dfft_app dfft_gpu_tests" ;;
    s6c) targets="dfft_capi_tests" ;;
    s7) targets="dfft_app dfft_gpu_tests dfft_python" ;;
    s7py|s7py2|s7py3) targets="dfft_app dfft_python" ;;
    *) targets=dfft_app ;;
  esac
  cmake --build "$BUILD" -j32 --target $targets
} > "$OUT/build-$WHAT.log" 2>&1 || { tail -40 "$OUT/build-$WHAT.log"; exit 1; }
stamp build
bench() {  # label np timeout args...
  local label=$1 np=$2 to=$3
  shift 3
  timeout "$to" "${MPIRUN[@]}" -np "$np" "$BUILD/bin/dfft" bench "${BENCH[@]}" --json "$OUT/$label.jsonl" "$@" \
    > "$OUT/$label.log" 2>&1
  stamp "bench $label exit $?"
  grep -vE "^dfft bench: \[" "$OUT/$label.log" | grep -E "fwd|inv|configurations" | tail -60
}
case "$WHAT" in
tests)
  for np in 1 2; do
    GTEST_BRIEF=1 timeout 280 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft_gpu_tests" > "$OUT/tests-np$np.log" 2>&1
    stamp "tests np$np exit $?"
    grep -E "FAILED|PASSED|tests ran" "$OUT/tests-np$np.log" | head -20
    grep -E "\[gpu-leak\]|\[gpu-alloc\]" "$OUT/tests-np$np.log" | head -6
  done
  "$BUILD/bin/dfft_cuda_host_tests" > "$OUT/cuda-host.log" 2>&1; stamp "cuda host tests exit $?"
  ;;
overlap)
  for p in float double; do
    bench ov1024-$p 2 150 --size 1024 1024 1024 --precision $p --decomp slab-2d1d --variant default \
      --method cuda-ipc,nccl --overlap 1,2,4 --reps 5 --warmup 2 --reference
    bench ov512-$p 2 100 --size 512 512 512 --precision $p --decomp slab-2d1d,pencil --variant default \
      --method cuda-ipc,nccl --overlap 1,2,4 --reps 10 --warmup 2 --reference
  done
  DFFT_IPC_COPY=kernel bench kernelcopy 2 100 --size 512 512 512 --size 1024 1024 1024 --precision float \
    --decomp slab-2d1d --variant default --method cuda-ipc --overlap 1,4 --reps 5 --warmup 2
  ;;
rest)
  # #6: 1024^3 double with and without fp32 on the wire; a2a-sync is host-staged here and its
  # per-peer messages (2.15 GB) exceed 2^31 bytes: the split path, for #10.
  bench codec1024 2 150 --size 1024 1024 1024 --precision double --decomp slab-2d1d --variant default \
    --method nccl,a2a-sync --codec none,fp32 --reps 3 --warmup 1
  # #7: the 512^3 double rows.
  bench ov512-double 2 80 --size 512 512 512 --precision double --decomp slab-2d1d,pencil --variant default \
    --method cuda-ipc,nccl --overlap 1,2,4 --reps 10 --warmup 2 --reference
  # #5: model rows on 1 and 2 GPUs.
  for np in 1 2; do
    timeout 60 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft" model calibrate --backend cuda --file "$OUT/gpu-wisdom.json" \
      > "$OUT/calibrate-np$np.log" 2>&1; stamp "calibrate np$np exit $?"
    bench model-np$np $np 60 --size 256 256 256 --size 512 512 512 --precision double \
      --decomp slab-2d1d,pencil --variant default --method nccl --reps 10 --no-reference
  done
  "$BUILD/bin/dfft" model check "$OUT"/model-np*.jsonl --calibration "$OUT/gpu-wisdom.json" > "$OUT/model-check.log" 2>&1
  stamp "model check exit $?"; tail -30 "$OUT/model-check.log"
  # #3: copy kernel instead of copy engines for cuda-ipc's peer blocks.
  DFFT_IPC_COPY=kernel bench kernelcopy 2 60 --size 512 512 512 --size 1024 1024 1024 --precision float \
    --decomp slab-2d1d --variant default --method cuda-ipc --overlap 1,4 --reps 5 --warmup 2
  ;;
python)
  # #9: cupy through the Python binding. The machine's python has cupy and mpi4py but no
  # pybind11: its headers come from the Debian package carried in .deps/ (tools/gpu-deps.sh).
  d="$ROOT/.deps/x"; mkdir -p "$d"; for f in "$ROOT"/.deps/*.deb; do dpkg -x "$f" "$d"; done
  cmake -S "$ROOT" -B "$BUILD" -Dpybind11_DIR="$d/usr/lib/cmake/pybind11" -DDFFT_PYTHON=ON > "$OUT/configure-python.log" 2>&1
  stamp "configure exit $?"; grep -i "python binding" "$OUT/configure-python.log"
  timeout 150 cmake --build "$BUILD" -j32 --target dfft_python > "$OUT/build-python.log" 2>&1
  stamp "python build exit $?"; grep -E "error" "$OUT/build-python.log" | head -5
  for np in 1 2; do
    PYTHONPATH="$BUILD/python" timeout 60 "${MPIRUN[@]}" -np $np python3 -m pytest -q -rs "$ROOT/python/tests/test_gpu.py" \
      > "$OUT/pytest-gpu-np$np.log" 2>&1; stamp "pytest gpu np$np exit $?"; tail -5 "$OUT/pytest-gpu-np$np.log"
  done
  ;;
final)
  # Cheapest first: copy kernel vs copy engines per partition shape (#3), the #6 accuracy table
  # on 1-2 GPUs, the #5 model rows on 1, 2 and 4 GPUs (calibration with method links, bench,
  # check; the power law needs three GPU counts), then the nccl / cuda-ipc tests on 4 GPUs.
  timeout 60 "${MPIRUN[@]}" -np 1 "$BUILD/bin/gpu-pack-bench" 512 20 > "$OUT/pack-bench.log" 2>&1
  stamp "pack bench exit $?"; cat "$OUT/pack-bench.log"
  timeout 30 "${MPIRUN[@]}" -np 1 python3 -c "from mpi4py import MPI; print(MPI.Get_library_version())" \
    > "$OUT/python-mpi.log" 2>&1; stamp "python mpi probe $?"; head -3 "$OUT/python-mpi.log"
  for np in 1 2; do
    timeout 40 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft" accuracy --backend cuda --size 64 64 64 --decomp slab-2d1d \
      --method nccl > "$OUT/accuracy-np$np.log" 2>&1; stamp "accuracy np$np exit $?"; cat "$OUT/accuracy-np$np.log" | head -20
  done
  for np in 1 2 4; do
    timeout 40 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft" model calibrate --backend cuda --file "$OUT/gpu-wisdom.json" \
      > "$OUT/calibrate-np$np.log" 2>&1; stamp "calibrate np$np exit $?"; cat "$OUT/calibrate-np$np.log"
    bench model-np$np $np 40 --size 256 256 256 --size 512 512 512 --precision double \
      --decomp slab-2d1d,pencil --variant default --method cuda-ipc --reps 10 --warmup 2 --no-reference
    "$BUILD/bin/dfft" model check "$OUT"/model-np*.jsonl --calibration "$OUT/gpu-wisdom.json" > "$OUT/model-check.log" 2>&1
    stamp "model check exit $?"; tail -30 "$OUT/model-check.log"
  done
  if [ "$(nvidia-smi -L | wc -l)" -ge 4 ]; then
    GTEST_BRIEF=1 timeout ${NP4_TIMEOUT:-150} "${MPIRUN[@]}" -np 4 "$BUILD/bin/dfft_gpu_tests" \
      --gtest_filter='GpuMisc.Nccl*:*nccl*:GpuIpc*:-*NoLeak*' > "$OUT/tests-np4.log" 2>&1
    stamp "tests np4 (4 GPUs) exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np4.log" | head -20
  fi
  ;;
s4a)
  for np in 1 2; do
    timeout 60 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft" accuracy --backend cuda --size 64 64 64 --decomp slab-2d1d \
      --method nccl > "$OUT/accuracy-np$np.log" 2>&1; stamp "accuracy np$np exit $?"; head -24 "$OUT/accuracy-np$np.log"
  done
  for c in 8 16; do
    bench codec1024-chunks$c 2 60 --size 1024 1024 1024 --precision double --decomp slab-2d1d --variant default \
      --method nccl --codec none,fp32 --chunks $c --reps 3 --warmup 1
  done
  for p in float double; do
    bench ov1024k8-$p 2 90 --size 1024 1024 1024 --precision $p --decomp slab-2d1d --variant default \
      --method cuda-ipc --overlap 1,4,8 --reps 5 --warmup 2 --reference
  done
  bench pencil1x2 2 90 --size 1024 1024 1024 --precision float --decomp pencil --grid 1x2,2x1 --variant default \
    --method cuda-ipc --overlap 1,4 --reps 3 --warmup 1
  timeout $(left) "${MPIRUN[@]}" -np 2 "$BUILD/bin/dfft_gpu_tests" > "$OUT/tests-np2.log" 2>&1
  stamp "tests np2 exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np2.log" | head -20; echo "OK lines: $(grep -ac "\[       OK \]" "$OUT/tests-np2.log")"
  grep -aE "\[gpu-leak\]|\[gpu-alloc\]" "$OUT/tests-np2.log" | head -6
  ;;
s4b)
  timeout ${NP1_TIMEOUT:-250} "${MPIRUN[@]}" -np 1 "$BUILD/bin/dfft_gpu_tests" > "$OUT/tests-np1.log" 2>&1
  stamp "tests np1 exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np1.log" | head -20; echo "OK lines: $(grep -ac "\[       OK \]" "$OUT/tests-np1.log")"
  grep -aE "\[gpu-leak\]|\[gpu-alloc\]" "$OUT/tests-np1.log" | head -6
  "$BUILD/bin/dfft_cuda_host_tests" > "$OUT/cuda-host.log" 2>&1; stamp "cuda host tests exit $?"; tail -2 "$OUT/cuda-host.log"
  timeout $(left) "${MPIRUN[@]}" -np 4 "$BUILD/bin/dfft_gpu_tests" \
    --gtest_filter="${NP4_FILTER:--*NoLeak*}" > "$OUT/tests-np4.log" 2>&1
  stamp "tests np4 (2 GPUs) exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np4.log" | head -20; echo "OK lines: $(grep -ac "\[       OK \]" "$OUT/tests-np4.log")"
  ;;
s4d)
  timeout 200 "${MPIRUN[@]}" -np 2 "$BUILD/bin/dfft_gpu_tests" --gtest_filter="${FILTER2:-*}" > "$OUT/tests-np2-rest.log" 2>&1
  stamp "tests np2 (rest) exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np2-rest.log" | head -20; echo "OK lines: $(grep -ac "\[       OK \]" "$OUT/tests-np2-rest.log")"
  bench pencil-batch 2 100 --size 1024 1024 1024 --precision float --decomp pencil --grid 1x2,2x1 --variant default \
    --method cuda-ipc --overlap 1,4 --reps 3 --warmup 1
  bench pencil512 2 60 --size 512 512 512 --precision double --decomp pencil,slab-2d1d --variant default,realigned \
    --method nccl --reps 5 --warmup 1
  timeout $(left) "${MPIRUN[@]}" -np 1 "$BUILD/bin/dfft_gpu_tests" > "$OUT/tests-np1.log" 2>&1
  stamp "tests np1 exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np1.log" | head -20; echo "OK lines: $(grep -ac "\[       OK \]" "$OUT/tests-np1.log")"
  grep -aE "\[gpu-leak\]|\[gpu-alloc\]" "$OUT/tests-np1.log" | head -6
  ;;
s4e)
  for np in 2 4; do
    timeout 120 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft_gpu_tests" --gtest_filter='GpuOverlap.*:*Overlap*' > "$OUT/tests-overlap-np$np.log" 2>&1
    stamp "overlap tests np$np exit $?"; grep -aE "FAILED|PASSED|tests ran|Failure|exception" "$OUT/tests-overlap-np$np.log" | head -10
  done
  timeout $(left) "${MPIRUN[@]}" -np 4 "$BUILD/bin/dfft_gpu_tests" \
    --gtest_filter="${NP4_FILTER:--*NoLeak*}" > "$OUT/tests-np4.log" 2>&1
  stamp "tests np4 (2 GPUs) exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np4.log" | head -20; echo "OK lines: $(grep -ac "\[       OK \]" "$OUT/tests-np4.log")"
  ;;
s4c)
  timeout ${NP4_TIMEOUT:-200} "${MPIRUN[@]}" -np 4 "$BUILD/bin/dfft_gpu_tests" \
    --gtest_filter="${NP4_FILTER:--*NoLeak*}" > "$OUT/tests-np4.log" 2>&1
  stamp "tests np4 (2 GPUs) exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np4.log" | head -20; echo "OK lines: $(grep -ac "\[       OK \]" "$OUT/tests-np4.log")"
  BENCH=(--backend cpu --no-validate --no-reference)
  nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|NUMA node\(s\)"
  bench cpu-codec512 4 90 --size 512 512 512 --precision double --decomp slab-2d1d --variant default \
    --method a2a-sync,p2p-sync --codec none,fp32 --reps 3 --warmup 1
  bench cpu-codec1024 4 $(left) --size 1024 1024 1024 --precision double --decomp slab-2d1d --variant default \
    --method a2a-sync --codec none,fp32 --reps 2 --warmup 0
  ;;
s5cpu)
  # Each rank gets two cores (--map-by slot:PE=2 --bind-to core): FFTW on one, the overlap's
  # communication thread on the other. Same sweep as the bind-to-core table of the fourth session.
  nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|NUMA node\(s\)"
  MPIRUN=(mpirun --allow-run-as-root --oversubscribe --map-by slot:PE=2 --bind-to core --report-bindings)
  BENCH=(--backend cpu --no-validate --no-reference)
  bench cpu-ovl-pe2 4 280 --size 256 256 256 --size 512 512 512 --precision float,double \
    --decomp slab-2d1d,pencil --variant default --method a2a-sync,p2p-sync,p2p-pipelined --overlap 1,4 \
    --reps 3 --warmup 1
  head -8 "$OUT/cpu-ovl-pe2.log"
  # The same overlapped plans with tapered slices (first and last half-sized).
  DFFT_SLICE_TAPER=1 bench cpu-ovl-pe2-taper 4 $(left) --size 256 256 256 --size 512 512 512 \
    --precision float,double --decomp slab-2d1d,pencil --variant default \
    --method a2a-sync,p2p-sync,p2p-pipelined --overlap 4 --reps 3 --warmup 1
  ;;
s5taper)
  MPIRUN=(mpirun --allow-run-as-root --oversubscribe --map-by slot:PE=2 --bind-to core)
  BENCH=(--backend cpu --no-validate --no-reference)
  for round in 1 2; do
    for t in 0 1; do
      DFFT_SLICE_TAPER=$t bench cpu-taper$t-round$round 4 140 --size 256 256 256 --size 512 512 512 \
        --precision float,double --decomp slab-2d1d,pencil --variant default \
        --method a2a-sync,p2p-pipelined --overlap 4 --reps 4 --warmup 1 > /dev/null
    done
  done
  ;;
s5a)
  for np in 1 2; do
    timeout 170 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft_gpu_tests" \
      --gtest_filter='GpuOverlap.*:GpuMisc.Nccl*:GpuIpc*' > "$OUT/tests-s5a-np$np.log" 2>&1
    stamp "tests np$np exit $?"; grep -aE "FAILED|PASSED|tests ran|Failure|  OK  " "$OUT/tests-s5a-np$np.log" | head -30
  done
  # Host-waiting vs device-queued overlap slices (2 ranks: 2 GPUs, or sharing one).
  for q in 0 1; do
    DFFT_OVERLAP_QUEUE=$q bench s5a-queue$q 2 60 --size 512 512 512 --precision float \
      --decomp slab-2d1d --variant default --method cuda-ipc --overlap 1,4,8 --reps 5 --warmup 2
  done
  ;;
s6)
  for np in 1 2 3; do
    timeout 120 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft_gpu_tests" --gtest_filter='GpuCodec*:GpuMisc.Codec*' \
      > "$OUT/tests-s6-np$np.log" 2>&1
    stamp "tests np$np exit $?"; grep -aE "FAILED|PASSED|tests ran|Failure|  OK  " "$OUT/tests-s6-np$np.log" | head -30
  done
  BENCH=(--backend cuda)
  bench s6-codec-sweep 2 120 --size 17 12 10 --size 12 10 9 --decomp slab-2d1d,slab-1d2d,pencil \
    --method a2a-sync,p2p-sync,nccl --codec fp16 --precision double,float --validate --reps 1 --warmup 0
  grep -a "configurations:" "$OUT/s6-codec-sweep.log"
  ;;
s7)
  {
    command -v python3; python3 -c "import sys; print(sys.version.split()[0], sys.prefix)"
    python3 -c "import mpi4py; print('mpi4py', mpi4py.__version__)"
    python3 -c "import cupy; print('cupy', cupy.__version__)"
    python3 -c "import mpi4py._mpiabi as a; print('mpi4py ABI choice alone:', a._get_mpiabi())"
    python3 -c "from mpi4py import MPI; print('mpi4py alone uses:', MPI.Get_library_version().splitlines()[0])"
    ldconfig -p | grep -E "libmpi(ch)?\.so" ; ls -la /usr/lib/x86_64-linux-gnu/libmpi.so* 2>&1
    cat "$BUILD/python/dfft/_mpi_library.py"
  } > "$OUT/py-probe.log" 2>&1; cat "$OUT/py-probe.log"
  export PYTHONPATH="$BUILD/python"
  plan1='import dfft; from mpi4py import MPI; p = dfft.Plan(MPI.COMM_WORLD, (8, 8, 8), backend="cuda"); print("plan ok", p.input_shape)'
  plan2='from mpi4py import MPI; import dfft; p = dfft.Plan(MPI.COMM_WORLD, (8, 8, 8), backend="cuda"); print("plan ok", p.input_shape)'
  for order in 1 2; do
    eval "code=\$plan$order"
    timeout 60 python3 -X faulthandler -c "$code" > "$OUT/py-plan$order.log" 2>&1
    stamp "python plan, import order $order: exit $?"; tail -12 "$OUT/py-plan$order.log"
    LD_DEBUG=files timeout 60 python3 -c "$code" 2>&1 | grep -aE "file=.*lib(mpi|mpich)[^/]*\.so" | grep -a "calling init" | head -4
  done
  for np in 1 2; do
    timeout 120 "${MPIRUN[@]}" -np $np python3 -m pytest -q -rs -p no:cacheprovider "$ROOT/python/tests/test_gpu.py" \
      > "$OUT/pytest-gpu-np$np.log" 2>&1; stamp "pytest gpu np$np exit $?"; tail -6 "$OUT/pytest-gpu-np$np.log"
  done
  unset PYTHONPATH
  GTEST_BRIEF=1 timeout 150 "${MPIRUN[@]}" -np 2 "$BUILD/bin/dfft_gpu_tests" \
    --gtest_filter='GpuOverlap.*:GpuIpc*:GpuCodec*:GpuMisc.Codecs*:GpuMisc.Pipelined*:*cuda_ipc*' > "$OUT/tests-np2.log" 2>&1
  stamp "tests np2 (one GPU shared) exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np2.log" | head -20
  GTEST_BRIEF=1 timeout $(left) "${MPIRUN[@]}" -np 1 "$BUILD/bin/dfft_gpu_tests" > "$OUT/tests-np1.log" 2>&1
  stamp "tests np1 exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np1.log" | head -20
  ;;
s7py)
  export PYTHONPATH="$BUILD/python"
  for be in cpu cuda; do
    code="import dfft; from mpi4py import MPI; p = dfft.Plan(MPI.COMM_WORLD, (8, 8, 8), backend='$be'); print('plan ok', p.input_shape)"
    timeout 60 python3 -X faulthandler -c "$code" > "$OUT/py-$be.log" 2>&1; stamp "python plan $be: exit $?"; tail -3 "$OUT/py-$be.log"
    timeout 120 cuda-gdb -q -batch -ex run -ex bt -ex "info threads" --args python3 -c "$code" > "$OUT/gdb-$be.log" 2>&1
    stamp "cuda-gdb $be: exit $?"; grep -aE "^#|signal|SIG" "$OUT/gdb-$be.log" | head -40
  done
  LD_DEBUG=libs timeout 60 python3 -c "$code" > "$OUT/ld-debug.log" 2>&1
  grep -aE "calling init: " "$OUT/ld-debug.log" | sed 's/.*calling init: //' | sort -u > "$OUT/libs.txt"
  grep -aE "libstdc|libgcc|libcud|libnccl|libcufft|libmpi|libfftw|libopen|libpmix|libhwloc|libevent|libucx|libgomp" "$OUT/libs.txt"
  ldd "$BUILD"/python/dfft/_dfft*.so | grep -vE "linux-vdso|ld-linux" > "$OUT/ldd.txt"; cat "$OUT/ldd.txt"
  timeout 60 "${MPIRUN[@]}" -np 1 "$BUILD/bin/dfft" bench --backend cuda --size 8 8 8 --reps 1 --warmup 0 > "$OUT/app.log" 2>&1
  stamp "app cuda 8^3: exit $?"
  ;;
s7py2)
  export PYTHONPATH="$BUILD/python"
  so=$(ls "$BUILD"/python/dfft/_dfft*.so)
  { env | grep -iE "flags|^ld_|python|omp|locale|^lc_|^lang|hwloc|ompi|opal|pmix" | sort
    c++ --version | head -1; ls -la /lib/x86_64-linux-gnu/libstdc++.so.6*
    readelf -d "$so" | grep -E "NEEDED|RPATH|RUNPATH"; ls -la "$so"
    nm -D --defined-only "$so" | c++filt | grep -cE " std::"; nm -D --defined-only "$so" | c++filt | grep -E "num_put|_M_insert|codecvt" | head
  } > "$OUT/module.txt" 2>&1; cat "$OUT/module.txt"
  try() {  # label env... -- python code
    local label=$1; shift
    timeout 60 env "$@" > "$OUT/try-$label.log" 2>&1; echo "== $label: exit $? :: $(tail -1 "$OUT/try-$label.log" | cut -c1-150)"
  }
  P="p = dfft.Plan(MPI.COMM_WORLD, (8, 8, 8)); print('plan ok')"
  try base python3 -c "import dfft; from mpi4py import MPI; $P"
  try nohwlocplug HWLOC_COMPONENTS=-opencl,-gl,-cuda,-nvml,-levelzero,-rsmi python3 -c "import dfft; from mpi4py import MPI; $P"
  try hwloc_noplugins HWLOC_PLUGINS_BLACKLIST=hwloc_opencl.so,hwloc_gl.so python3 -c "import dfft; from mpi4py import MPI; $P"
  try clocale LC_ALL=C LANG=C python3 -c "import dfft; from mpi4py import MPI; $P"
  try mpirun1 "${MPIRUN[@]}" -np 1 python3 -c "import dfft; from mpi4py import MPI; $P"
  try ostream python3 -c "import io, dfft; from mpi4py import MPI; print(dfft._dfft.__file__)"
  try sysstdcxx LD_PRELOAD=/lib/x86_64-linux-gnu/libstdc++.so.6 python3 -c "import dfft; from mpi4py import MPI; $P"
  try pyenvnone python3 -I -c "import sys; sys.path.insert(0, '$BUILD/python'); import dfft; from mpi4py import MPI; $P"
  # The faulting instruction and registers.
  timeout 120 cuda-gdb -q -batch -ex run -ex "x/12i \$pc-24" -ex "info registers" -ex "bt 4" -ex "info sharedlibrary" \
    --args python3 -c "import dfft; from mpi4py import MPI; $P" > "$OUT/gdb-regs.log" 2>&1
  grep -aA20 "SIGSEGV" "$OUT/gdb-regs.log" | cut -c1-160 | head -50
  grep -aE "libstdc|_dfft|LLVM|clang|pocl" "$OUT/gdb-regs.log" | cut -c1-160 | head
  ;;
s7py3)
  so=$(ls "$BUILD"/python/dfft/_dfft*.so)
  { for f in libstdc++.so libstdc++.so.6 libstdc++.a; do echo "$f -> $(c++ -print-file-name=$f)"; done
    ls -la "$(dirname "$(c++ -print-file-name=libstdc++.a)")"/libstdc++* 2>&1
    grep -E "C\+\+ runtime|libstdc" "$OUT/build-$WHAT.log"
    echo "module:"; readelf -d "$so" | grep -E "NEEDED"; echo "std:: definitions: $(nm -D --defined-only "$so" | c++filt | grep -cE ' std::')"
    echo "app:"; readelf -d "$BUILD/bin/dfft" | grep -E "NEEDED.*stdc" || echo "app: no libstdc++ NEEDED"
    cmake -DMODULE="$so" -DNM=nm -P "$ROOT/python/check_cxx_runtime.cmake"; echo "ctest check exit $?"
  } > "$OUT/runtime.txt" 2>&1; cat "$OUT/runtime.txt"
  export PYTHONPATH="$BUILD/python"
  timeout 60 python3 -X faulthandler -c "import dfft; from mpi4py import MPI; p = dfft.Plan(MPI.COMM_WORLD, (8, 8, 8), backend='cuda'); print('plan ok', p.input_shape)" \
    > "$OUT/py-plan.log" 2>&1; stamp "python plan: exit $?"; tail -3 "$OUT/py-plan.log"
  for np in 1 2; do
    timeout 150 "${MPIRUN[@]}" -np $np python3 -m pytest -q -rs -p no:cacheprovider "$ROOT/python/tests" \
      > "$OUT/pytest-np$np.log" 2>&1; stamp "pytest (test_dfft.py + test_gpu.py) np$np exit $?"; tail -4 "$OUT/pytest-np$np.log"
  done
  timeout 60 "${MPIRUN[@]}" -np 2 python3 "$ROOT/examples/python/poisson.py" > "$OUT/poisson.log" 2>&1
  stamp "poisson example np2 exit $?"; tail -2 "$OUT/poisson.log"
  ;;
s6c)
  for np in 1 2; do
    DFFT_CAPI_BACKEND=cuda timeout 200 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft_capi_tests" > "$OUT/capi-cuda-np$np.log" 2>&1
    stamp "capi cuda np$np exit $?"; grep -aE "capi:|FAIL" "$OUT/capi-cuda-np$np.log" | head -20
  done
  ;;
s5k)
  for np in 1 2; do
    timeout 120 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft_gpu_tests" \
      --gtest_filter='GpuCodec*:GpuMisc.Pipelined*:GpuMisc.Nccl*:GpuOverlap.Queued*:GpuOverlap.Tapered*' \
      > "$OUT/tests-s5k-np$np.log" 2>&1
    stamp "tests np$np exit $?"; grep -aE "FAILED|PASSED|tests ran|Failure|  OK  " "$OUT/tests-s5k-np$np.log" | head -30
  done
  BENCH=(--backend cuda)
  bench s5k-codec-sweep 2 120 --size 17 12 10 --size 12 10 9 --decomp slab-2d1d,slab-1d2d,pencil \
    --method a2a-sync,p2p-sync,p2p-pipelined --codec fp32,fp16,bf16 --validate --reps 1 --warmup 0
  grep -a "configurations:" "$OUT/s5k-codec-sweep.log"
  "$BUILD/bin/gpu-codec-bench" 1024 20 > "$OUT/codec-bench-new.log" 2>&1; stamp "codec bench (new) exit $?"
  cat "$OUT/codec-bench-new.log"
  if [ -f "$ROOT/out/codec_old.cu" ]; then
    OLD=/tmp/dfft-old; rm -rf $OLD; mkdir -p $OLD
    tar -C "$ROOT" --exclude='./build*' --exclude=./out --exclude=./.git -cf - . | tar -C $OLD -xf -
    cp "$ROOT/out/codec_old.cu" $OLD/src/backend/cuda/codec.cu
    { cmake -S $OLD -B $OLD/build -DCMAKE_BUILD_TYPE=Release -DDFFT_CUDA=ON -DDFFT_NCCL=ON -DDFFT_TESTS=OFF \
        -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" && cmake --build $OLD/build -j32 --target gpu_codec_bench; } \
      > "$OUT/build-old.log" 2>&1; stamp "old build exit $?"
    $OLD/build/bin/gpu-codec-bench 1024 20 > "$OUT/codec-bench-old.log" 2>&1; stamp "codec bench (old) exit $?"
    cat "$OUT/codec-bench-old.log"
  fi
  ;;
s5s)
  for np in 1 2 3; do
    timeout 120 "${MPIRUN[@]}" -np $np "$BUILD/bin/dfft_gpu_tests" \
      --gtest_filter='GpuOverlap.*:GpuMisc.Codecs*:GpuCodec*:GpuMisc.Nccl*' \
      > "$OUT/tests-s5s-np$np.log" 2>&1
    stamp "overlap tests np$np exit $?"; grep -aE "FAILED|PASSED|Failure" "$OUT/tests-s5s-np$np.log" | head -10
  done
  timeout $(( $(left) + 60 )) python3 "$ROOT/tools/stress.py" ${SEED:-1} $(left) "$BUILD/bin/dfft" cuda \
    > "$OUT/stress-cuda.log" 2>&1
  stamp "stress exit $?"; grep -v "^REFUSED" "$OUT/stress-cuda.log" | tail -25
  grep "^REFUSED" "$OUT/stress-cuda.log" | cut -c1-160 | sort | uniq -c | sort -rn | head -5
  ;;
s5b)
  for t in 0 1; do
    DFFT_CHUNK_TAPER=$t bench codec1024-taper$t 2 60 --size 1024 1024 1024 --precision double \
      --decomp slab-2d1d --variant default --method nccl --codec none,fp32 --chunks 4 --reps 5 --warmup 1
  done
  for p in float double; do
    bench ov1024-$p 2 90 --size 1024 1024 1024 --precision $p --decomp slab-2d1d \
      --variant default --method cuda-ipc --overlap 1,4,8 --reps 5 --warmup 2 --reference
    for env in DFFT_OVERLAP_QUEUE=1 DFFT_SLICE_TAPER=1 "DFFT_OVERLAP_QUEUE=1 DFFT_SLICE_TAPER=1"; do
      ( export $env; bench "ov1024-$p-$(echo "$env" | tr ' =' '_-')" 2 60 --size 1024 1024 1024 \
          --precision $p --decomp slab-2d1d --variant default --method cuda-ipc --overlap 4,8 \
          --reps 5 --warmup 2 )
    done
  done
  ;;
pipeline)
  GTEST_BRIEF=1 timeout 200 "${MPIRUN[@]}" -np 2 "$BUILD/bin/dfft_gpu_tests" \
    --gtest_filter='*nccl*:*cuda_ipc*:GpuIpc*:GpuMisc.*:GpuOverlap.*:-*NoLeak*' > "$OUT/tests-np2.log" 2>&1
  stamp "tests np2 exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np2.log" | head -20
  GTEST_BRIEF=1 timeout 60 "${MPIRUN[@]}" -np 1 "$BUILD/bin/dfft_gpu_tests" \
    --gtest_filter='GpuMisc.Nccl*:GpuIpc*' > "$OUT/tests-np1.log" 2>&1
  stamp "tests np1 exit $?"; grep -aE "FAILED|PASSED|tests ran" "$OUT/tests-np1.log" | head -20
  for p in float double; do
    bench ov1024-$p 2 120 --size 1024 1024 1024 --precision $p --decomp slab-2d1d --variant default \
      --method cuda-ipc,nccl --overlap 1,2,4 --reps 5 --warmup 2 --reference
  done
  for c in 1 4; do
    bench codec1024-chunks$c 2 60 --size 1024 1024 1024 --precision double --decomp slab-2d1d --variant default \
      --method nccl --codec none,fp32 --chunks $c --reps 3 --warmup 1
  done
  ;;
nccl-chunks)
  # nccl's chunk pipeline at 1024^3: exchange bandwidth (float) and fp32 codec (double).
  for c in ${CHUNKS:-1 4 8}; do
    bench nccl1024-float-chunks$c 2 60 --size 1024 1024 1024 --precision float --decomp slab-2d1d \
      --variant default --method nccl --chunks $c --reps 5 --warmup 2
    bench codec1024-chunks$c 2 60 --size 1024 1024 1024 --precision double --decomp slab-2d1d --variant default \
      --method nccl --codec none,fp32 --chunks $c --reps 3 --warmup 1
  done
  ;;
codec)
  bench codec1024 2 150 --size 1024 1024 1024 --precision double --decomp slab-2d1d --variant default \
    --method nccl,a2a-sync --codec none,fp32 --reps 3 --warmup 1
  ;;
rest-probe)
  # What the cupy test needs from this machine's python (the binding needs pybind11 and mpi4py).
  python3 -c "import cupy; print('cupy', cupy.__version__)" > "$OUT/python-probe.log" 2>&1
  python3 -c "import mpi4py; print('mpi4py', mpi4py.__version__)" >> "$OUT/python-probe.log" 2>&1
  grep -i "python binding" "$OUT/build-$WHAT.log" >> "$OUT/python-probe.log"; cat "$OUT/python-probe.log"
  ;;
esac

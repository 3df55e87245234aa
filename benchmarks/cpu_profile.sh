#!/bin/bash
# SPDX-License-Identifier: MIT
# CPU profile of dfft's automatic plan against FFTW-MPI at 256^3 on the 16-core host.
# Run on the 16-core host from the repository root with the Debian FFTW-MPI packages in .deps/
# (python3 tools/bench_run.py --machine gpu-h100-x1 --fetch-debs): builds build-cpu, then at 256^3
# times FFTW-MPI with its three pieces (fftw-mpi-bench --stages), dfft's libfftw3_mpi, and dfft's
# automatic plan with and without normalisation and destroy_input, each phase printed; then
# ranks x threads splits of both. RANKS (default "16 8 4 1") picks the rank counts.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=${1:?usage: bash benchmarks/cpu_profile.sh OUTDIR}; mkdir -p $R
exec > >(tee $R/log.txt) 2>&1
date -u; nproc; lscpu | grep -E "Model name|Socket|NUMA|L3"
mkdir -p .deps/x; for d in .deps/*.deb; do dpkg -x $d .deps/x; done
FL=$(pwd)/.deps/x/usr/lib/x86_64-linux-gnu
t0=$(date +%s)
cmake -S . -B build-cpu -DCMAKE_BUILD_TYPE=Release -DDFFT_CUDA=OFF -DDFFT_TESTS=OFF -DDFFT_PYTHON=OFF -DCMAKE_PREFIX_PATH=$(pwd)/.deps/x/usr > $R/cmake.txt 2>&1 || { tail -30 $R/cmake.txt; }
cmake --build build-cpu -j16 --target dfft_app fftw_mpi_bench dfft_libfftw3_mpi > $R/build.txt 2>&1 || { tail -40 $R/build.txt; }
echo "build $(( $(date +%s) - t0 )) s"
B=build-cpu/bin
MR="mpirun --bind-to core --map-by core"
for r in ${RANKS:-16 8 4 1}; do
  echo "=== ranks $r"
  LD_LIBRARY_PATH=$FL timeout 200 $MR -np $r -x LD_LIBRARY_PATH $B/fftw-mpi-bench --size 256 256 256 --effort measure --transposed --reps 10 --warmup 2 --stages --json $R/fftwmpi-$r.jsonl 2>&1 | grep -v "^\s*$" | tail -14
  LD_LIBRARY_PATH=build-cpu/lib/dfft-fftw-mpi:$FL timeout 200 $MR -np $r -x LD_LIBRARY_PATH $B/fftw-mpi-bench --size 256 256 256 --effort measure --transposed --reps 10 --warmup 2 --json $R/dfftlib-$r.jsonl 2>&1 | grep -v "^\s*$" | tail -4
  for opts in "" "--norm none --destroy-input" "--norm none" "--destroy-input"; do
    echo "--- dfft auto $opts"
    timeout 200 $MR -np $r $B/dfft bench --size 256x256x256 --no-progress --reps 10 --warmup 2 --decomp auto --variant auto --method auto --precision double --verbose $opts --json $R/dfft-$r-$(echo $opts | tr -d ' -').jsonl 2>&1 | grep -E "^(slab|pencil)|path|->|exchange|fft" | head -12
  done
done
echo "=== threads"
for rt in "4 4" "2 8" "1 16"; do set -- $rt
  LD_LIBRARY_PATH=$FL timeout 200 mpirun --map-by slot:PE=$2 --bind-to core -np $1 -x LD_LIBRARY_PATH $B/fftw-mpi-bench --size 256 256 256 --effort measure --transposed --reps 10 --warmup 2 --threads $2 2>&1 | tail -3
  timeout 200 mpirun --map-by slot:PE=$2 --bind-to core -np $1 $B/dfft bench --size 256x256x256 --no-progress --reps 10 --warmup 2 --decomp auto --variant auto --method auto --threads 0 --verbose 2>&1 | grep -E "^(slab|pencil)" | head -4
done
echo "total $(( $(date +%s) - t0 )) s"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: install dependencies, configure (Release) and build what the job runs, then on 2
# ranks compare, for 64^3 and 128^3 (double r2c), the plan dfft makes by itself with FFTW-MPI
# (fftw-mpi-bench) and with the fastest configuration of a `dfft bench` sweep (every decomposition
# and variant, the five methods bench sweeps on the CPU), and end with one
# table of the three (about a minute of benchmarks on 2 cores). Every step prints its time; the
# full tables and JSON records stay in build/run/.
# Any arguments are passed to dfft bench instead, e.g.
#   bash scripts/run.sh --size 128 128 128 --decomp slab-2d1d --reps 20
# Environment: NP (ranks, default 2), DFFT_JOBS (build jobs, default 2), DFFT_CUDA (AUTO, ON or
# OFF: the CUDA backend; default OFF where `nvidia-smi -L` finds no GPU, else AUTO),
# DFFT_CMAKE_ARGS (extra configure arguments), DFFT_SKIP_DEPS=1 (dependencies are installed
# already: do not run scripts/install-deps.sh), DFFT_RUN_SIZES (cube edges, default "64 128"),
# DFFT_RUN_REPS (timed runs per direction for all three, default 10).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

NP="${NP:-2}"
JOBS="${DFFT_JOBS:-2}"
read -r -a EXTRA <<<"${DFFT_CMAKE_ARGS:-}"
read -r -a SIZES <<<"${DFFT_RUN_SIZES:-64 128}"
REPS="${DFFT_RUN_REPS:-10}"
WARMUP=2
START=$SECONDS

# Runs "$@" and says how long it took under the name $1 (the rest is the command); with
# `-o FILE` first, the command's output goes to FILE.
timed() {
  local out=/dev/stdout
  if [[ "$1" == -o ]]; then
    out="$2"
    shift 2
  fi
  local name="$1" t=$SECONDS
  shift
  echo "== run.sh: $name"
  "$@" >"$out"
  echo "== run.sh: $name took $((SECONDS - t)) s"
}

if [[ "${DFFT_SKIP_DEPS:-0}" != 1 ]]; then
  timed "dependencies" bash scripts/install-deps.sh
fi

# A CUDA backend that no GPU here can run would only add build time (about half of it on 2
# cores); CI and scripts/test.sh build it wherever the toolkit is, so that it keeps compiling.
if [[ -z "${DFFT_CUDA:-}" ]]; then
  if nvidia-smi -L >/dev/null 2>&1; then
    CUDA=AUTO
  else
    CUDA=OFF
    echo "== run.sh: no GPU (nvidia-smi -L), so the CUDA backend is not built; DFFT_CUDA=AUTO bash scripts/run.sh builds it wherever nvcc is"
  fi
else
  CUDA="$DFFT_CUDA"
fi

# Tests off and only the programs the job runs: the library, dfft and fftw-mpi-bench. A unity
# build, as scripts/test.sh's, takes about 40% less compiler time (docs/building.md).
timed "configure (Release, DFFT_CUDA=$CUDA)" \
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDFFT_TESTS=OFF -DCMAKE_UNITY_BUILD=ON "-DDFFT_CUDA=$CUDA" "${EXTRA[@]}"
TARGETS=(dfft_app)
# Read whole before grep: with pipefail, grep -q's early exit would fail the pipe.
targets="$(cmake --build build --target help 2>/dev/null || true)"
if grep -q 'fftw_mpi_bench' <<<"$targets"; then
  TARGETS+=(fftw_mpi_bench)
fi
timed "build ${TARGETS[*]} ($JOBS jobs)" cmake --build build -j "$JOBS" --target "${TARGETS[@]}"

# Running as root is normal in containers and CI; Open MPI refuses it without these two.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [[ $# -gt 0 ]]; then
  echo "== run.sh: mpirun -np $NP build/bin/dfft bench $*"
  exec mpirun --oversubscribe -np "$NP" build/bin/dfft bench "$@"
fi

OUT=build/run
rm -rf "$OUT"
mkdir -p "$OUT"
same=(--warmup "$WARMUP" --reps "$REPS" --effort measure)
for n in "${SIZES[@]}"; do
  size=("$n" "$n" "$n")
  timed -o "$OUT/auto-$n.txt" "${n}^3: the plan dfft makes by itself (-> $OUT/auto-$n.txt)" \
    mpirun --oversubscribe -np "$NP" build/bin/dfft bench --size "${size[@]}" --decomp auto --variant auto \
    --method auto --validate "${same[@]}" --json "$OUT/auto-$n.jsonl"
  if [[ -x build/bin/fftw-mpi-bench ]]; then
    timed -o "$OUT/fftw-mpi-$n.txt" "${n}^3: FFTW-MPI (-> $OUT/fftw-mpi-$n.txt)" \
      mpirun --oversubscribe -np "$NP" build/bin/fftw-mpi-bench --size "${size[@]}" "${same[@]}" \
      --json "$OUT/fftw-mpi-$n.jsonl"
  fi
  timed -o "$OUT/sweep-$n.txt" "${n}^3: dfft bench sweep, every decomposition and variant, the sweep's CPU methods (-> $OUT/sweep-$n.txt)" \
    mpirun --oversubscribe -np "$NP" build/bin/dfft bench --size "${size[@]}" "${same[@]}" \
    --json "$OUT/sweep-$n.jsonl"
done

echo
python3 tools/run_summary.py "$OUT" "${SIZES[@]}"
echo "== run.sh: total $((SECONDS - START)) s"

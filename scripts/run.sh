#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: install dependencies, configure (Release), build, and run `dfft bench` on 2 ranks.
# With no arguments dfft bench runs its embedded default sweep (about a minute on 2 cores, no GPU
# needed); any arguments are passed to dfft bench, e.g.
#   bash scripts/run.sh --size 128 128 128 --decomp slab-2d1d --reps 20
# Environment: NP (ranks, default 2), DFFT_JOBS (build jobs, default 2), DFFT_CUDA (AUTO, ON or
# OFF: the CUDA backend; default AUTO builds it wherever the CUDA toolkit is found),
# DFFT_CMAKE_ARGS (extra configure arguments), DFFT_SKIP_DEPS=1 (dependencies are installed
# already: do not run scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

NP="${NP:-2}"
JOBS="${DFFT_JOBS:-2}"
CUDA="${DFFT_CUDA:-AUTO}"
read -r -a EXTRA <<<"${DFFT_CMAKE_ARGS:-}"

if [[ "${DFFT_SKIP_DEPS:-0}" != 1 ]]; then
  echo "== run.sh: dependencies"
  bash scripts/install-deps.sh
fi

# The CUDA backend is built wherever the toolkit is, GPU or not: CI machines have no GPU and must
# still compile it. On such a machine it only costs build time, so say so and how to skip it.
nvcc_path="$(command -v nvcc || true)"
[[ -z "$nvcc_path" && -x /usr/local/cuda/bin/nvcc ]] && nvcc_path=/usr/local/cuda/bin/nvcc
if [[ -n "$nvcc_path" && "$CUDA" != OFF ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "== run.sh: CUDA toolkit found ($nvcc_path) but no GPU: the CUDA backend is built anyway (so"
  echo "   that it keeps compiling) and its parts report themselves skipped. To skip building it:"
  echo "   DFFT_CUDA=OFF bash scripts/run.sh ...   (or DFFT_CMAKE_ARGS=-DDFFT_CUDA=OFF)"
fi

echo "== run.sh: configure (Release) and build"
start=$SECONDS
# Tests are not needed for the benchmark; skipping them halves the build on 2 cores.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDFFT_TESTS=OFF "-DDFFT_CUDA=$CUDA" "${EXTRA[@]}"
cmake --build build -j "$JOBS"
echo "== run.sh: configure and build took $((SECONDS - start)) s ($JOBS jobs, DFFT_CUDA=$CUDA)"

echo "== run.sh: mpirun -np $NP build/bin/dfft bench $*"
# Running as root is normal in containers and CI; Open MPI refuses it without these two.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun --oversubscribe -np "$NP" build/bin/dfft bench "$@"

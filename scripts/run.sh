#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: install dependencies, configure (Release), build, and run `dfft bench` on 2 ranks.
# With no arguments dfft bench runs its embedded default sweep (about a minute on 2 cores, no GPU
# needed); any arguments are passed to dfft bench, e.g.
#   bash scripts/run.sh --size 128 128 128 --decomp slab-2d1d --reps 20
# Environment: NP (ranks, default 2), DFFT_JOBS (build jobs, default 2), DFFT_CMAKE_ARGS (extra
# configure arguments, e.g. "-DDFFT_CUDA=OFF").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

NP="${NP:-2}"
JOBS="${DFFT_JOBS:-2}"
read -r -a EXTRA <<<"${DFFT_CMAKE_ARGS:-}"

echo "== run.sh: dependencies"
bash scripts/install-deps.sh

echo "== run.sh: configure (Release) and build"
# Tests are not needed for the benchmark; skipping them halves the build on 2 cores.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDFFT_TESTS=OFF "${EXTRA[@]}"
cmake --build build -j "$JOBS"

echo "== run.sh: mpirun -np $NP build/bin/dfft bench $*"
# Running as root is normal in containers and CI; Open MPI refuses it without these two.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun --oversubscribe -np "$NP" build/bin/dfft bench "$@"

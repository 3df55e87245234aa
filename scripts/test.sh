#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite, as CI runs it (bash .ci/run):
#   1. install dependencies            (scripts/install-deps.sh)
#   2. Release build, warnings as errors, all CTest tests (1-4 MPI ranks)       -> build/
#   3. install into a temporary prefix and build+run scripts/find-package-test (find_package(dfft))
#   4. `pip install .` into a fresh virtual environment, and into one over the system's packages
#      (Debian's python3-mpi4py); in each `python -m dfft` and a 2-rank transform against
#      numpy.fft from outside the source tree
#   5. AddressSanitizer + UndefinedBehaviorSanitizer build, 2-rank and unit tests -> build-asan/
#   6. libFuzzer targets, bounded (fuzz/run.sh, DFFT_FUZZ_SECONDS each, default 20)
#   7. ThreadSanitizer: concurrent plans on 2 ranks (tools/tsan.sh)                -> build-tsan/
# Exits non-zero on the first failure. Environment: DFFT_JOBS (build jobs, default 2),
# DFFT_CMAKE_ARGS (extra configure arguments for every build), DFFT_SKIP_ASAN=1 (skip steps 5-7).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

JOBS="${DFFT_JOBS:-2}"
read -r -a EXTRA <<<"${DFFT_CMAKE_ARGS:-}"
# Open MPI refuses to run as root (containers, CI) without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Shared-memory single copy (CMA) needs ptrace rights that many containers lack; the tests check
# results, not speed, so plain copy-in/copy-out is used. Overridable from the environment.
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
# Every rank runs on this one machine, where Open MPI's ob1 messaging over shared memory is all
# the tests need; left to choose, Debian's Open MPI starts UCX in every process, which took 0.2 s
# of each mpirun's 0.5 s on the 2-core development machine, and the tests start several hundred.
# The sanitizer tests keep Open MPI's own choice: there the message-heavy ones were slower with ob1
# in both runs that used it (features_np2 66 s without, 80 and 89 s with; overlap_np2 43, then 55
# and 59 s), more than the shorter launches gave back.
USER_PML="${OMPI_MCA_pml:-}"
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"

START=$SECONDS
PHASE="" PHASE_START=$SECONDS
SUMMARY=()
phase() {
  end_phase
  PHASE="$1"
  PHASE_START=$SECONDS
  echo
  echo "=== test.sh: $PHASE"
}
end_phase() {
  if [ -n "$PHASE" ]; then
    SUMMARY+=("$(printf '%5ds  %s' $((SECONDS - PHASE_START)) "$PHASE")")
    echo "=== test.sh: $PHASE done in $((SECONDS - PHASE_START))s"
  fi
  PHASE=""
}
TMP="$(mktemp -d)"
finish() {
  local rc=$?
  rm -rf "$TMP"
  [ -n "$PHASE" ] && [ "$rc" -ne 0 ] && echo "=== test.sh: FAILED in phase: $PHASE (exit $rc)"
  end_phase
  echo
  echo "=== test.sh: phase times"
  printf '%s\n' "${SUMMARY[@]}"
  printf '%5ds  total\n' $((SECONDS - START))
  if [ "$rc" -eq 0 ]; then echo "=== test.sh: ALL PASSED"; else echo "=== test.sh: FAILED"; fi
  exit "$rc"
}
trap finish EXIT
# Tests read and write the machine's wisdom (FFTW wisdom, calibrations that steer automatic
# plans) in a folder of their own: a user's files must neither change what the tests see nor be
# changed by them.
export DFFT_WISDOM_DIR="$TMP/wisdom"

phase "dependencies"
bash scripts/install-deps.sh
echo "cmake: $(cmake --version | head -1); c++: $(c++ --version | head -1)"
echo "mpirun: $(mpirun --version 2>&1 | head -1); cores: $(nproc); CI=${CI:-}"

phase "configure + build (Release, -Werror) in build/"
# A unity build (each target's sources compiled sixteen to a file, CMakeLists.txt) takes about 40%
# less compiler time than one file at a time (docs/building.md). A plain cmake build, the default
# for everyone else, compiles one file at a time.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDFFT_WERROR=ON -DDFFT_TESTS=ON -DCMAKE_UNITY_BUILD=ON "${EXTRA[@]}"
cmake --build build -j "$JOBS"

phase "FFTW's MPI test programs from Debian's fftw3 source (the fftw_mpi tests' referee)"
# Fetched and built here, where a failure stops the run, rather than inside ctest, where the
# fftw_mpi tests would report themselves skipped.
bash scripts/fftw-mpi-check.sh --build-only --src-dir build/fftw-mpi-check/src \
  --build-dir build/tests/fftw_mpi/fftw-mpi-check

phase "ctest (Release, all tests)"
# -j "$JOBS": every MPI test declares its ranks (PROCESSORS), so ctest runs a test of JOBS or more
# ranks alone and pairs the 1-rank ones, whose time is mostly process start-up.
(cd build && ctest --output-on-failure --no-tests=error --timeout 900 -j "$JOBS")

phase "install + find_package(dfft) downstream project"
cmake --install build --prefix "$TMP/prefix"
cmake -S scripts/find-package-test -B "$TMP/downstream" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$TMP/prefix"
cmake --build "$TMP/downstream" -j "$JOBS"
mpirun --oversubscribe -np 1 "$TMP/downstream/downstream"
mpirun --oversubscribe -np 1 "$TMP/downstream/downstream_c"
# FFTW-MPI's interface from the installed folder (dfft::fftw3_mpi), and its pkg-config file.
mpirun --oversubscribe -np 2 "$TMP/downstream/downstream_fftw_mpi"
PKG_CONFIG_PATH="$TMP/prefix/lib/pkgconfig" pkg-config --libs dfft-fftw3-mpi dfft-fftw3f-mpi

# `pip install .` into a new virtual environment made by interpreter $1 in folder $2 (further
# arguments go to `python -m venv`), then, from outside the source tree and without the build's
# paths, `python -m dfft` and a 2-rank transform against numpy.fft. $MPI4PY_FROM says where that
# environment's mpi4py must come from: "venv" (pip installed it) or "system" (the interpreter's
# own site-packages, e.g. Debian's python3-mpi4py).
# pip builds the library and the module only (pyproject.toml), with the Release build's warning
# flags and DFFT_CMAKE_ARGS; a compiler launcher such as ccache set in the environment
# (CMAKE_<LANG>_COMPILER_LAUNCHER) or in DFFT_CMAKE_ARGS reaches this build too. Without CUDA:
# build/ has compiled the CUDA backend already, and it adds about a fifth to this build's CPU
# time (docs/building.md; DFFT_CMAKE_ARGS=-DDFFT_CUDA=AUTO puts it back).
pip_install_and_transform() {
  local python="$1" venv="$2"
  shift 2
  "$python" -m venv "$@" "$venv"
  CMAKE_ARGS="-DDFFT_WERROR=ON -DDFFT_CUDA=OFF -DCMAKE_UNITY_BUILD=ON ${DFFT_CMAKE_ARGS:-}" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" \
    "$venv/bin/pip" install --quiet --progress-bar off --disable-pip-version-check --root-user-action=ignore "$ROOT"
  (cd "$TMP" && env -u LD_LIBRARY_PATH -u PYTHONPATH "$venv/bin/python" -m dfft)
  (cd "$TMP" && env -u LD_LIBRARY_PATH -u PYTHONPATH MPI4PY_FROM="$MPI4PY_FROM" mpirun --oversubscribe -np 2 "$venv/bin/python" -c '
import os
import sys
import numpy as np
import mpi4py
from mpi4py import MPI
import dfft
comm = MPI.COMM_WORLD
assert comm.size == 2 and dfft.__file__.startswith(sys.prefix), (comm.size, dfft.__file__)
in_venv = mpi4py.__file__.startswith(sys.prefix)
assert in_venv == (os.environ["MPI4PY_FROM"] == "venv"), (os.environ["MPI4PY_FROM"], mpi4py.__file__)
u = np.random.default_rng(7).random((12, 10, 9))
plan = dfft.Plan(comm, u.shape)
uk = plan.forward(plan.local_input(u))
ref = np.fft.rfftn(u)
err = np.abs(uk - plan.local_output(ref)).max() / np.abs(ref).max()
back = np.abs(plan.inverse(uk) - plan.local_input(u)).max()
worst = comm.allreduce(max(err, back), op=MPI.MAX)
if comm.rank == 0:
    print(f"pip-installed dfft with mpi4py {mpi4py.__version__} ({os.path.dirname(mpi4py.__file__)}), "
          f"2 ranks, 12x10x9 r2c: {worst:.1e} from numpy.fft.rfftn and back")
sys.exit(0 if worst < 1e-12 else 1)
')
}

phase "pip install . in a fresh virtual environment, 2-rank transform against numpy.fft"
MPI4PY_FROM=venv pip_install_and_transform python3 "$TMP/venv"

phase "pip install . in a venv over the system's packages (Debian's mpi4py), the same transform"
# How clusters provide mpi4py: built against their MPI, in the system's (or a module's)
# site-packages, seen through --system-site-packages. pip then builds dfft against no mpi4py at
# all (pyproject.toml) and the module must work with this older one. /usr/bin/python3 is the
# interpreter Debian's python3-mpi4py belongs to; a python3 earlier on PATH (pyenv) has no such
# package.
MPI4PY_FROM=system pip_install_and_transform /usr/bin/python3 "$TMP/venv-system" --system-site-packages

if [ "${DFFT_SKIP_ASAN:-0}" = 1 ]; then
  echo "=== test.sh: DFFT_SKIP_ASAN=1, sanitizer build skipped"
  exit 0
fi

phase "configure + build (AddressSanitizer + UBSan) in build-asan/"
# -O1 with line tables only (-g1): the sanitizers' recommended optimisation level, which compiles
# in much less time than -O2 -g on a 2-core machine and still names file and line in every report;
# _GLIBCXX_ASSERTIONS adds bounds checks on std::vector/array indexing, which ASan cannot see
# inside one allocation. CUDA is off here: the sanitizers instrument host code only and the CUDA
# runtime does not run under ASan by default.
# The Python module and the benchmark programs are left out: no sanitizer test runs them.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDFFT_SANITIZE=ON -DDFFT_TESTS=ON \
  -DCMAKE_UNITY_BUILD=ON -DDFFT_PYTHON=OFF -DDFFT_BENCHMARKS=OFF -DDFFT_CUDA=OFF -DCMAKE_CXX_FLAGS="-D_GLIBCXX_ASSERTIONS" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" "${EXTRA[@]}"
cmake --build build-asan -j "$JOBS"

phase "ctest (sanitizers: unit + 2-rank tests)"
# The sanitizer options and Open MPI leak suppressions (tests/lsan.supp) are set per test by
# tests/CMakeLists.txt, so a plain ctest run in build-asan behaves the same as this one.
# Left out there: the Python-driven CLI and tools tests that start dozens of short mpirun jobs
# (each minutes under the sanitizers) and reach code that app_cli and the fuzzers already run
# instrumented: argument parsing, record writing, exit statuses.
if [ -z "$USER_PML" ]; then unset OMPI_MCA_pml; fi
(cd build-asan && ctest --output-on-failure --no-tests=error --timeout 900 -j "$JOBS" -L '^(unit|np2)$' \
  -E '^(app_cli_status|app_reported_numbers|app_bench_suite_np2|app_tune_cli|app_run_script|tools_.*)$')

phase "fuzzers (.npy header, test-case JSON, wisdom; ${DFFT_FUZZ_SECONDS:-20} s each)"
bash fuzz/run.sh "${DFFT_FUZZ_SECONDS:-20}"

phase "ThreadSanitizer (threads with their own plans, 2 ranks) in build-tsan/"
# Builds the library and one test (about 2 minutes on 2 cores); Open MPI's own reports are
# suppressed (tests/tsan.supp) or classified (tools/tsan_triage.py), see docs/hardening.md.
bash tools/tsan.sh
end_phase

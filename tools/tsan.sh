#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ThreadSanitizer on the CPU build (docs/hardening.md): -fsanitize=thread, CUDA off,
# into build-tsan/ (DFFT_TSAN_BUILD). Compiler: DFFT_TSAN_CXX/DFFT_TSAN_CC, default g++/gcc:
# Debian 12's clang 14 rejects the _Float16 that tests/unit/half_test.cpp uses, and gcc ships its TSan runtime
# (libtsan2) with the compiler. Runs
#   (a) hardening_threads_np2: threads making and executing their own plans on their own
#       communicators (tests/hardening/thread_test.cpp), and
#   (b) with DFFT_TSAN_SUITE=1 (default 0), the other 2-rank tests (ctest -L np2).
# Reports made entirely inside Open MPI are suppressed by tests/tsan.supp (each entry says why);
# the rest are classified by tools/tsan_triage.py, and any report involving dfft code other than
# Open MPI's cross-thread copies of message buffers fails the run. Environment: DFFT_JOBS (build jobs, default 2),
# DFFT_TSAN_NOSUPP=1 runs without the suppressions (to count what they hide).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
BUILD="${DFFT_TSAN_BUILD:-build-tsan}"
JOBS="${DFFT_JOBS:-2}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"

CXX_TSAN="${DFFT_TSAN_CXX:-g++}" CC_TSAN="${DFFT_TSAN_CC:-gcc}"
command -v "$CXX_TSAN" >/dev/null || { echo "tsan.sh: $CXX_TSAN not found"; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# -O1 -g: TSan's documented setting (usable speed, exact stacks for the suppressions).
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$CC_TSAN" \
  -DCMAKE_CXX_COMPILER="$CXX_TSAN" -DCMAKE_UNITY_BUILD=ON -DDFFT_PYTHON=OFF -DDFFT_CUDA=OFF -DDFFT_NCCL=OFF -DDFFT_TESTS=ON -DDFFT_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -fno-omit-frame-pointer" \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" "${launcher[@]}" >/dev/null
targets=(dfft_thread_tests)
[ "${DFFT_TSAN_SUITE:-0}" = 1 ] && targets=(all)
cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"

LOG="$ROOT/$BUILD/tsan-logs"
rm -rf "$LOG" && mkdir -p "$LOG"
supp="suppressions=$ROOT/tests/tsan.supp:"
[ "${DFFT_TSAN_NOSUPP:-0}" = 1 ] && supp=""
# Reports go to one file per process (log_path) and are judged below (exitcode=0: the tests'
# own verdict stays separate).
export TSAN_OPTIONS="${supp}log_path=$LOG/tsan:exitcode=0:halt_on_error=0:second_deadlock_stack=1:history_size=7:print_suppressions=1"
labels='^np2$'
filter=(-R '^hardening_threads_np2$')
# The leak-cycle test bounds resident memory, which TSan's shadow memory makes grow by design.
[ "${DFFT_TSAN_SUITE:-0}" = 1 ] && filter=(-L "$labels" -E '^hardening_leak_np2$')
start=$SECONDS
rc=0
(cd "$BUILD" && ctest --output-on-failure --no-tests=error --timeout 900 "${filter[@]}") || rc=$?
reports=$(cat "$LOG"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
suppressed=$(cat "$LOG"/tsan.* 2>/dev/null | awk '/ThreadSanitizer: Matched/{n+=$3} END{print n+0}')
echo "=== tsan.sh: $reports report(s) not suppressed, $suppressed suppressed (tests/tsan.supp);" \
  "tests ran $((SECONDS - start)) s; logs: $LOG"
# The unsuppressed reports: Open MPI's copies of dfft buffers made by another thread's progress
# are listed and tolerated (tools/tsan_triage.py says why); anything else fails.
if [ "$reports" -gt 0 ]; then
  python3 tools/tsan_triage.py "$LOG"/tsan.* || rc=1
fi
if [ "$rc" -eq 0 ]; then echo "=== tsan.sh: PASSED"; else echo "=== tsan.sh: FAILED"; fi
exit "$rc"

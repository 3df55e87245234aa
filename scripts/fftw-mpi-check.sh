#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# FFTW's own MPI conformance test (mpi/mpi-bench driven by tests/check.pl), run against whichever
# libfftw3_mpi.so.3 / libfftw3f_mpi.so.3 the dynamic loader finds: the system's (Debian's real
# FFTW-MPI, the reference) or a drop-in replacement's folder given with --lib-dir.
#
# FFTW itself is never built. Debian's fftw3 source package is fetched with `apt-get source` (so
# the test sources match the installed libfftw3 exactly), its ./configure is run only to produce
# config.h (precision, threads), and mpi-bench + libbench2 are compiled with mpicc and linked
# against the system's serial libfftw3[f] (Debian's shared library exports the planner internals
# that tests/hook.c needs) and, by soname, against libfftw3[f]_mpi. No rpath points at the
# system's copy, so LD_LIBRARY_PATH=<lib-dir> at run time substitutes the MPI library.
#
#   bash scripts/fftw-mpi-check.sh                          # bounded: -c=10, maxsize 10000
#   bash scripts/fftw-mpi-check.sh --big                    # FFTW's `make bigcheck`: -c=100, 60000
#   bash scripts/fftw-mpi-check.sh --lib-dir build/lib/dfft-fftw-mpi
#   bash scripts/fftw-mpi-check.sh --ranks "1 2" --precisions double --count 3 --seed 7
#
# Options (environment variables in brackets):
#   --lib-dir DIR     folder holding libfftw3_mpi.so.3 / libfftw3f_mpi.so.3 [FFTW_MPI_LIB_DIR];
#                     empty (default) = the system's, found by the loader's default search
#   --src-dir DIR     cache of the fetched source package [FFTW_MPI_CHECK_SRC]
#                     (default build/fftw-mpi-check/src)
#   --build-dir DIR   where config.h and mpi-bench go [FFTW_MPI_CHECK_BUILD] (default build/fftw-mpi-check)
#   --count NUM       check.pl -c=NUM, random problems per run [FFTW_MPI_CHECK_COUNT] (default 10)
#   --maxsize N       check.pl --maxsize (default 10000)
#   --big             --count 100 --maxsize 60000, as FFTW's mpi/Makefile.am bigcheck target
#   --ranks "1 2 3 4" mpirun -np values (default "1 2 3 4", as FFTW's check-local target)
#   --precisions "double float"
#   --seed S          perl srand seed for check.pl's random problems [FFTW_MPI_CHECK_SEED] (default 1)
#   --fetch-only      fetch (and unpack) the source, then stop
#   --build-only      fetch and build, then stop
#   -v                echo check.pl's output as it runs (it always goes to a log file)
#
# Output: one line per run, parseable by CI:
#   FFTW-MPI-CHECK precision=double ranks=2 count=10 maxsize=10000 seed=1 result=PASS problems=44 seconds=12 lib=<path>
# then "fftw-mpi-check: N passed, M failed". Exit status: 0 all passed, 1 a failure, 77 skipped
# (the source package or a tool could not be had; 77 is the autotools/ctest convention for skip).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIB_DIR=${FFTW_MPI_LIB_DIR:-}
SRC_CACHE=${FFTW_MPI_CHECK_SRC:-$ROOT/build/fftw-mpi-check/src}
BUILD_DIR=${FFTW_MPI_CHECK_BUILD:-$ROOT/build/fftw-mpi-check}
COUNT=${FFTW_MPI_CHECK_COUNT:-10}
MAXSIZE=10000
RANKS="1 2 3 4"
PRECISIONS="double float"
SEED=${FFTW_MPI_CHECK_SEED:-1}
STOP_AFTER=""
VERBOSE=0

while [ $# -gt 0 ]; do
  case "$1" in
    --lib-dir) LIB_DIR=$2; shift ;;
    --src-dir) SRC_CACHE=$2; shift ;;
    --build-dir) BUILD_DIR=$2; shift ;;
    --count) COUNT=$2; shift ;;
    --maxsize) MAXSIZE=$2; shift ;;
    --big) COUNT=100; MAXSIZE=60000 ;;
    --ranks) RANKS=$2; shift ;;
    --precisions) PRECISIONS=$2; shift ;;
    --seed) SEED=$2; shift ;;
    --fetch-only) STOP_AFTER=fetch ;;
    --build-only) STOP_AFTER=build ;;
    -v|--verbose) VERBOSE=1 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "fftw-mpi-check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

SKIP=77
skip() { echo "fftw-mpi-check: SKIPPED: $*"; exit $SKIP; }
die() { echo "fftw-mpi-check: ERROR: $*" >&2; exit 1; }

if [ -n "$LIB_DIR" ]; then
  [ -d "$LIB_DIR" ] || die "--lib-dir $LIB_DIR is not a folder"
  LIB_DIR=$(cd "$LIB_DIR" && pwd)
fi
mkdir -p "$SRC_CACHE" "$BUILD_DIR"
SRC_CACHE=$(cd "$SRC_CACHE" && pwd)
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@";
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@";
  else return 1; fi
}

# ---- 1. fetch Debian's fftw3 source package ---------------------------------------------------
find_src() { ls -d "$SRC_CACHE"/fftw3-*/ 2>/dev/null | while read -r d; do
  [ -f "$d/tests/check.pl" ] && [ -f "$d/mpi/mpi-bench.c" ] && { echo "${d%/}"; break; }; done; }

have_deb_src() {
  grep -Eqs '^[[:space:]]*Types:.*deb-src' /etc/apt/sources.list.d/*.sources ||
    grep -Eqs '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list
}

# Same URIs/suites/components as the binary entries, so the source matches what is installed.
add_deb_src() {
  local f=/etc/apt/sources.list.d/debsrc.sources
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed -E 's/^Types:.*$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | as_root tee "$f" >/dev/null
  elif grep -Eqs '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list; then
    f=/etc/apt/sources.list.d/debsrc.list
    sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' /etc/apt/sources.list | as_root tee "$f" >/dev/null
  else
    return 1
  fi
  echo "fftw-mpi-check: added $f"
}

fetch_src() {
  SRC=$(find_src)
  if [ -n "$SRC" ]; then echo "fftw-mpi-check: source present: $SRC"; return 0; fi
  command -v apt-get >/dev/null 2>&1 || skip "apt-get not available to fetch the fftw3 source package"
  # apt-get source unpacks with dpkg-source, which dpkg-dev provides.
  if ! command -v dpkg-source >/dev/null 2>&1; then
    bash "$ROOT/scripts/install-deps.sh" dpkg-dev || skip "could not install dpkg-dev"
  fi
  local updated=0
  if ! have_deb_src; then
    add_deb_src || skip "no deb-src entry and none could be added (need root)"
    as_root apt-get update -q || skip "apt-get update failed"
    updated=1
  fi
  # Prefer the exact version of the installed library: hook.c reaches into FFTW's internals.
  local ver
  ver=$(dpkg-query -W -f='${source:Version}' libfftw3-double3 2>/dev/null || true)
  ( cd "$SRC_CACHE" && { [ -n "$ver" ] && apt-get source -q "fftw3=$ver" || apt-get source -q fftw3; } ) ||
  { [ $updated -eq 0 ] && as_root apt-get update -q &&
    ( cd "$SRC_CACHE" && { [ -n "$ver" ] && apt-get source -q "fftw3=$ver" || apt-get source -q fftw3; } ); } ||
    skip "apt-get source fftw3 failed (no network or no deb-src?)"
  SRC=$(find_src)
  [ -n "$SRC" ] || skip "apt-get source fftw3 left no fftw3-*/ folder in $SRC_CACHE"
  echo "fftw-mpi-check: fetched $SRC"
}

fetch_src
[ "$STOP_AFTER" = fetch ] && exit 0

# ---- 2. build mpi-bench, double and float -----------------------------------------------------
command -v mpicc >/dev/null 2>&1 || skip "mpicc not found"
command -v perl >/dev/null 2>&1 || skip "perl not found"

# Debian's configure flags (debian/rules), so config.h describes the library that is installed.
CONF_FLAGS=(--enable-mpi --enable-threads --enable-openmp --disable-fortran MPICC=mpicc)
case "$(uname -m)" in
  x86_64) CONF_FLAGS+=(--enable-sse2 --enable-avx) ;;
esac

# -L so -lfftw3_mpi resolves in --lib-dir first; the recorded DT_NEEDED is the soname only.
LINK_DIR_FLAGS=()
[ -n "$LIB_DIR" ] && LINK_DIR_FLAGS=(-L"$LIB_DIR")

build_one() {
  local prec=$1 bdir="$BUILD_DIR/$1" suffix=""
  [ "$prec" = float ] && suffix=f
  local stamp="$bdir/mpi-bench.stamp" want="src=$SRC lib=${LIB_DIR:-system}"
  if [ -x "$bdir/mpi-bench" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    echo "fftw-mpi-check: $prec mpi-bench up to date"; return 0
  fi
  mkdir -p "$bdir/obj"
  if [ ! -f "$bdir/config.h" ] || [ "$(cat "$bdir/config.src" 2>/dev/null)" != "$SRC" ]; then
    echo "fftw-mpi-check: configuring $prec (config.h only)"
    local flags=("${CONF_FLAGS[@]}")
    # Debian's single build uses --enable-sse where the double one has --enable-sse2.
    [ "$prec" = float ] && flags=("${flags[@]/--enable-sse2/--enable-sse}" --enable-single)
    ( cd "$bdir" && "$SRC/configure" "${flags[@]}" >configure.log 2>&1 ) ||
      { tail -20 "$bdir/configure.log"; die "configure failed for $prec (see $bdir/configure.log)"; }
    echo "$SRC" >"$bdir/config.src"
  fi
  echo "fftw-mpi-check: compiling $prec mpi-bench"
  local bench_objs=() main_objs=() s o
  cc1() {
    # -O1: the bench is not timed; keeps the build short on a small machine.
    mpicc -O1 -pthread -DHAVE_CONFIG_H -I"$bdir" -I"$SRC" -I"$SRC/api" -I"$SRC/mpi" \
      -c "$1" -o "$2" || die "compiling $1 failed"
  }
  for s in "$SRC"/libbench2/*.c; do
    o="$bdir/obj/bench2_$(basename "${s%.c}").o"; bench_objs+=("$o"); cc1 "$s" "$o"
  done
  # libbench2 must be an archive: mpi-bench.c and fftw-bench.c override some of its defaults
  # (after_problem_*, bench_exit, useropt), which only works with archive member selection.
  rm -f "$bdir/libbench2.a"; ar rcs "$bdir/libbench2.a" "${bench_objs[@]}" || die "ar failed"
  for s in "$SRC/mpi/mpi-bench.c" "$SRC/tests/fftw-bench.c" "$SRC/tests/hook.c"; do
    o="$bdir/obj/$(basename "${s%.c}").o"; main_objs+=("$o"); cc1 "$s" "$o"
  done
  # mpi/Makefile.am's LDADD order: MPI library, threads library, serial library, libbench2.
  # --enable-new-dtags: any path mpicc adds becomes RUNPATH, which LD_LIBRARY_PATH overrides.
  # A replacement folder may hold only the runtime name (no libfftw3_mpi.so link); then link that
  # file itself: ld still records just its SONAME, which must be libfftw3[f]_mpi.so.3.
  local mpilib=-lfftw3${suffix}_mpi
  if [ -n "$LIB_DIR" ] && [ ! -e "$LIB_DIR/libfftw3${suffix}_mpi.so" ] &&
     [ -e "$LIB_DIR/libfftw3${suffix}_mpi.so.3" ]; then
    mpilib="$LIB_DIR/libfftw3${suffix}_mpi.so.3"
  fi
  mpicc -pthread -Wl,--enable-new-dtags -o "$bdir/mpi-bench" "${main_objs[@]}" \
    "${LINK_DIR_FLAGS[@]}" "$mpilib" -lfftw3${suffix}_threads -lfftw3${suffix} \
    "$bdir/libbench2.a" -lm ||
    die "linking $prec mpi-bench failed"
  if readelf -d "$bdir/mpi-bench" | grep -Eq 'R(UN)?PATH'; then
    die "$prec mpi-bench carries an rpath; LD_LIBRARY_PATH could not substitute the MPI library"
  fi
  echo "$want" >"$stamp"
}

for p in $PRECISIONS; do build_one "$p"; done
[ "$STOP_AFTER" = build ] && exit 0

# ---- 3. run check.pl --------------------------------------------------------------------------
MPIRUN=(mpirun)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  MPIRUN+=(--oversubscribe)
  # CI containers run as root, which Open MPI refuses without this (as tests/CMakeLists.txt does).
  [ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)
  [ -n "$LIB_DIR" ] && MPIRUN+=(-x LD_LIBRARY_PATH)
fi
RUN_ENV=(env)
[ -n "$LIB_DIR" ] && RUN_ENV+=("LD_LIBRARY_PATH=$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")

# Which file the loader actually maps for libfftw3[f]_mpi.so.3, inside an mpirun-launched rank.
loaded_mpi_lib() {
  local bin=$1 suffix=$2 dbg="$BUILD_DIR/ld-debug" f
  rm -rf "$dbg"; mkdir -p "$dbg"
  "${RUN_ENV[@]}" LD_DEBUG=libs LD_DEBUG_OUTPUT="$dbg/ld" \
    "${MPIRUN[@]}" -x LD_DEBUG -x LD_DEBUG_OUTPUT -np 1 "$bin" --can-do if12 >/dev/null 2>&1
  for f in "$dbg"/ld.*; do
    grep -q "calling init: .*libfftw3${suffix}_mpi.so.3" "$f" 2>/dev/null || continue
    sed -nE "s/.*calling init: (.*libfftw3${suffix}_mpi\.so\.3)$/\1/p" "$f" | head -1; return
  done
}

# check.pl seeds perl's rand itself (no option or variable for it), so the run is reproduced by
# calling srand(SEED) first and then executing check.pl's code in the same interpreter; its
# `exit` calls still end the run with check.pl's own status.
CHECK_WRAP='my $s = shift @ARGV; my $f = shift @ARGV; srand($s); $0 = $f; do $f; die $@ if $@; exit 0;'

passed=0; failed=0; summary=()
for p in $PRECISIONS; do
  suffix=""; [ "$p" = float ] && suffix=f
  bin="$BUILD_DIR/$p/mpi-bench"
  lib=$(loaded_mpi_lib "$bin" "$suffix")
  if [ -n "$LIB_DIR" ] && [ "${lib%/*}" != "$LIB_DIR" ]; then
    echo "fftw-mpi-check: $p mpi-bench loaded '${lib:-nothing}', not $LIB_DIR/libfftw3${suffix}_mpi.so.3"
    failed=$((failed + 1)); summary+=("FFTW-MPI-CHECK precision=$p ranks=all result=FAIL reason=wrong-library lib=${lib:-none}")
    continue
  fi
  echo "fftw-mpi-check: $p mpi-bench loads ${lib:-?}"
  for n in $RANKS; do
    log="$BUILD_DIR/check-$p-np$n.log"
    t0=$(date +%s)
    cmd=("${RUN_ENV[@]}" perl -w -e "$CHECK_WRAP" "$SEED" "$SRC/tests/check.pl" --verbose --random
         "--maxsize=$MAXSIZE" "-c=$COUNT" --mpi "${MPIRUN[*]} -np $n $bin")
    if [ $VERBOSE -eq 1 ]; then "${cmd[@]}" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]};
    else "${cmd[@]}" >"$log" 2>&1; rc=$?; fi
    dt=$(( $(date +%s) - t0 ))
    # mpi-bench --verbose=1 prints "<problem> <three error norms>" per verified problem.
    nprob=$(grep -cE '^[^ ]+ [-0-9.e+]+ [-0-9.e+]+ [-0-9.e+]+$' "$log")
    # check.pl exits 0 when the bench was killed by SIGHUP/SIGINT/SIGKILL; count those as failures,
    # and a run that verified nothing too.
    if [ $rc -eq 0 ] && [ "$nprob" -gt 0 ] && ! tail -1 "$log" | grep -Eq '^(hangup|interrupted|killed)$'; then
      res=PASS; passed=$((passed + 1))
    else
      res=FAIL; failed=$((failed + 1))
      echo "---- $p, $n ranks: $log"
      grep -E '^FAILED|received signal|^(hangup|interrupted|killed)$' "$log" || tail -20 "$log"
      # check.pl names the whole batch; the culprit is its first problem with no result line.
      culprit=$(grep '^FAILED' "$log" | tail -1 | grep -o "'[^']*'" | tr -d "'" |
                while read -r q; do awk -v q="$q" '$1 == q && NF == 4 {f = 1} END {exit !f}' "$log" || { echo "$q"; break; }; done)
      [ -n "$culprit" ] && echo "FAILED problem: $culprit ($(grep -m1 '^Found' "$log" || echo "see $log"))"
    fi
    line="FFTW-MPI-CHECK precision=$p ranks=$n count=$COUNT maxsize=$MAXSIZE seed=$SEED result=$res problems=$nprob seconds=$dt lib=${lib:-?}"
    echo "$line"; summary+=("$line")
  done
done

echo "==== fftw-mpi-check summary"
printf '%s\n' "${summary[@]}"
echo "fftw-mpi-check: $passed passed, $failed failed"
[ $failed -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Application check of an FFTW-MPI drop-in: Debian's mpb-mpi (MIT Photonic Bands, linked against
# libfftw3_mpi.so.3) solves the same 3-D photonic crystals once with the system's FFTW-MPI and once
# with LD_LIBRARY_PATH=<lib-dir>; every printed band frequency ("freqs:" lines) must agree digit
# for digit. The loader's own trace (LD_DEBUG=libs, one file per process) proves that every rank
# of the second run mapped <lib-dir>/libfftw3_mpi.so.3 and that the first run did not.
#
#   bash scripts/mpb-check.sh --lib-dir build/lib/dfft-fftw-mpi
#   bash scripts/mpb-check.sh --lib-dir DIR --ranks 2 --ctl tests/fftw_mpi/sc-spheres.ctl
#   bash scripts/mpb-check.sh --lib-dir DIR --perturb eps=12.5 --expect-mismatch   # self-test
#
# Options (environment variables in brackets):
#   --lib-dir DIR       folder with the replacement libfftw3_mpi.so.3 (required) [FFTW_MPI_LIB_DIR]
#   --ranks "1 2 4"     mpirun -np values
#   --ctl "A.ctl ..."   inputs (default: tests/fftw_mpi/*.ctl)
#   --work-dir DIR      outputs and logs (default build/mpb-check) [MPB_CHECK_WORK]
#   --perturb K=V       test only: pass the libctl parameter K=V to the second run alone, so the
#                       results must differ (proves that a mismatch is detected)
#   --expect-mismatch   invert the verdict: pass only if every comparison found a difference
#   --no-install        do not try to install mpb-mpi when it is missing
#   [MPB_MPI]           the mpb-mpi program to run (default: mpb-mpi on PATH)
#
# Output: "MPB-CHECK ctl=... ranks=N result=PASS|FAIL ..." per run, then "mpb-check: N passed,
# M failed". Exit status 0 all passed, 1 a failure, 77 skipped (mpb-mpi cannot be had).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIB_DIR=${FFTW_MPI_LIB_DIR:-}
RANKS="1 2 4"
CTLS=""
WORK=${MPB_CHECK_WORK:-$ROOT/build/mpb-check}
PERTURB=""
EXPECT_MISMATCH=0
INSTALL=1

while [ $# -gt 0 ]; do
  case "$1" in
    --lib-dir) LIB_DIR=$2; shift ;;
    --ranks) RANKS=$2; shift ;;
    --ctl) CTLS=$2; shift ;;
    --work-dir) WORK=$2; shift ;;
    --perturb) PERTURB=$2; shift ;;
    --expect-mismatch) EXPECT_MISMATCH=1 ;;
    --no-install) INSTALL=0 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "mpb-check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

skip() { echo "mpb-check: SKIPPED: $*"; exit 77; }
die() { echo "mpb-check: ERROR: $*" >&2; exit 1; }

[ -n "$LIB_DIR" ] || die "--lib-dir DIR is required (the replacement libfftw3_mpi.so.3's folder)"
[ -e "$LIB_DIR/libfftw3_mpi.so.3" ] || die "$LIB_DIR/libfftw3_mpi.so.3 does not exist"
LIB_DIR=$(cd "$LIB_DIR" && pwd)
[ -n "$CTLS" ] || CTLS=$(ls "$ROOT"/tests/fftw_mpi/*.ctl)

MPB_NAME=${MPB_MPI:-mpb-mpi}
if ! command -v "$MPB_NAME" >/dev/null 2>&1 && [ $INSTALL -eq 1 ]; then
  bash "$ROOT/scripts/install-deps.sh" mpb-mpi >&2 || true
fi
MPB=$(command -v "$MPB_NAME") || skip "mpb-mpi is not installed and could not be (Debian package mpb-mpi)"
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found"

MPIRUN=(mpirun)
# Open MPI: allow more ranks than cores, and forward the loader variables to every rank explicitly.
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  MPIRUN+=(--oversubscribe -x LD_DEBUG -x LD_DEBUG_OUTPUT -x LD_LIBRARY_PATH)
  # CI containers run as root, which Open MPI refuses without this (as tests/CMakeLists.txt does).
  [ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# run_mpb DIR NP LDPATH [PARAM]: mpb-mpi in DIR (it writes its .h5 files into the current folder),
# loader trace in DIR/ld.<pid>. Returns mpirun's status.
run_mpb() {
  local dir=$1 np=$2 ldpath=$3 param=${4:-} ctl=$5
  rm -rf "$dir"; mkdir -p "$dir"
  ( cd "$dir" && env LD_LIBRARY_PATH="$ldpath" LD_DEBUG=libs LD_DEBUG_OUTPUT="$dir/ld" \
      "${MPIRUN[@]}" -np "$np" "$MPB" $param "$ctl" >out.txt 2>err.txt )
}

# The libfftw3_mpi.so.3 each mpb-mpi process initialised, one line per process.
loaded_by_ranks() {
  local f
  for f in "$1"/ld.*; do
    grep -q "calling init: .*/libfftw3_mpi\.so\.3$" "$f" 2>/dev/null || continue
    sed -nE 's/.*calling init: (.*\/libfftw3_mpi\.so\.3)$/\1/p' "$f" | head -1
  done
}

passed=0; failed=0; summary=()
record() { echo "$1"; summary+=("$1"); case "$1" in *result=PASS*) passed=$((passed+1));; *) failed=$((failed+1));; esac; }

for ctl in $CTLS; do
  ctl=$(cd "$(dirname "$ctl")" && pwd)/$(basename "$ctl")
  name=$(basename "$ctl" .ctl)
  for np in $RANKS; do
    ref="$WORK/$name-np$np/system" cand="$WORK/$name-np$np/replacement"
    t0=$(date +%s)
    # Reference under the caller's own LD_LIBRARY_PATH; the loader trace checks it misses LIB_DIR.
    run_mpb "$ref" "$np" "${LD_LIBRARY_PATH:-}" "" "$ctl"; rc_ref=$?
    run_mpb "$cand" "$np" "$LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$PERTURB" "$ctl"; rc_cand=$?
    dt=$(( $(date +%s) - t0 ))
    head="MPB-CHECK ctl=$name ranks=$np"
    if [ $rc_ref -ne 0 ] || [ $rc_cand -ne 0 ]; then
      record "$head result=FAIL reason=mpb-exit system=$rc_ref replacement=$rc_cand seconds=$dt"
      tail -5 "$ref/err.txt" "$cand/err.txt"; continue
    fi
    mapfile -t libs_ref < <(loaded_by_ranks "$ref")
    mapfile -t libs_cand < <(loaded_by_ranks "$cand")
    n_cand_ok=0; n_ref_bad=0
    for l in "${libs_cand[@]}"; do [ "${l%/*}" = "$LIB_DIR" ] && n_cand_ok=$((n_cand_ok+1)); done
    for l in "${libs_ref[@]}"; do [ "${l%/*}" = "$LIB_DIR" ] && n_ref_bad=$((n_ref_bad+1)); done
    if [ ${#libs_cand[@]} -ne "$np" ] || [ $n_cand_ok -ne "$np" ]; then
      record "$head result=FAIL reason=replacement-not-loaded loaded_from_dir=$n_cand_ok/$np libs=$(printf '%s,' "${libs_cand[@]}")"
      continue
    fi
    if [ ${#libs_ref[@]} -ne "$np" ] || [ $n_ref_bad -ne 0 ]; then
      record "$head result=FAIL reason=reference-not-system libs=$(printf '%s,' "${libs_ref[@]}")"
      continue
    fi
    grep '^freqs:' "$ref/out.txt" >"$ref/freqs.txt"
    grep '^freqs:' "$cand/out.txt" >"$cand/freqs.txt"
    nk=$(( $(wc -l <"$ref/freqs.txt") - 1 ))
    if [ $nk -le 0 ]; then
      record "$head result=FAIL reason=no-freqs-printed seconds=$dt"; continue
    fi
    if diff -u "$ref/freqs.txt" "$cand/freqs.txt" >"$WORK/$name-np$np/freqs.diff"; then
      same=1; verdict="identical"
    else
      same=0; verdict="differ"
      head -12 "$WORK/$name-np$np/freqs.diff"
    fi
    # Iteration counts are reported, not judged: MPB starts from random fields, so they vary even
    # between two runs on the same library (e.g. 1818 against 611) while, at tolerance 1e-12,
    # every printed frequency digit stays the same.
    it_ref=$(grep -o 'after [0-9]* iterations' "$ref/out.txt" | awk '{s+=$2} END {print s+0}')
    it_cand=$(grep -o 'after [0-9]* iterations' "$cand/out.txt" | awk '{s+=$2} END {print s+0}')
    if [ $same -ne $EXPECT_MISMATCH ]; then res=PASS; else res=FAIL; fi
    record "$head result=$res freqs=$verdict kpoints=$nk iterations=$it_ref/$it_cand seconds=$dt loaded=$LIB_DIR/libfftw3_mpi.so.3 ranks_on_it=$n_cand_ok/$np system=${libs_ref[0]}"
  done
done

echo "==== mpb-check summary${PERTURB:+ (second run perturbed: $PERTURB)}$([ $EXPECT_MISMATCH -eq 1 ] && echo ', expecting mismatches')"
printf '%s\n' "${summary[@]}"
echo "mpb-check: $passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs CTest tests under machine calibrations that steer the automatic choice (decomposition,
# grid, variant, methods of plans that leave them open: docs/tuning.md) away from what this
# machine picks, so that a test which assumes one layout or method fails here instead of on
# another machine.
#
#   tools/steered_tests.sh [-B BUILD] [-s "STEERINGS"] [-n "RANKS"] [-j JOBS] [CTEST_REGEX]
#
# For each steering (default: all of pencil slab-1d2d realigned onesided) it writes a wisdom file
# with calibrations for 2, 3, 4 and 8 ranks of this host (dfft-wisdom-<host>.json, backend cpu,
# measured) into a folder of its own, prints the automatic choice `dfft bench --verbose` makes
# with it on each rank count of -n (default "2 3 4"), and runs the CTest tests that match
# CTEST_REGEX (default: the suites that make plans with automatic fields) on those rank counts
# (labels np<N>; the cuda instances are left out) with DFFT_WISDOM_DIR pointing at the folder.
# Exit status 1 when a test failed or a steering did not produce the choice it is named after
# at 4 ranks.
#
# The steerings' constants and what they make the model prefer: tools/steering_wisdom.py.
# Not in CI, where a pass takes many minutes per steering; CI runs one steered test, the codec
# suite on 4 ranks under `realigned` (codec_np4_steered, tests/codec/CMakeLists.txt).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD=build
STEERINGS="pencil slab-1d2d realigned onesided"
RANKS="2 3 4"
JOBS=1
while getopts "B:s:n:j:h" opt; do
  case "$opt" in
    B) BUILD="$OPTARG" ;;
    s) STEERINGS="$OPTARG" ;;
    n) RANKS="$OPTARG" ;;
    j) JOBS="$OPTARG" ;;
    *) sed -n '3,16p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
REGEX="${1:-^(mpi_np._other|api_np|workspace_np|pipelined_np|overlap_np|features_np|halo_np|codec_np.$|npy_io_np|tune_np|nodes_np|capi|hardening_.*_np|python_np|python_injected|python_example|example_)}"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
DFFT="$BUILD/bin/dfft"
[ -x "$DFFT" ] || { echo "steered_tests.sh: no $DFFT (build the dfft target first)" >&2; exit 2; }
MPIRUN=(mpirun --oversubscribe)
mpirun --version 2>/dev/null | grep -q "Open MPI" || MPIRUN=(mpirun)

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

status=0
declare -a RESULTS
for s in $STEERINGS; do
  dir="$TMP/$s"
  python3 tools/steering_wisdom.py "$s" "$dir"
  echo "=== steering: $s ($dir)"
  for np in $RANKS; do
    line="$(DFFT_WISDOM_DIR="$dir" "${MPIRUN[@]}" -np "$np" "$DFFT" bench --size 32x30x28 --decomp auto \
              --variant auto --method auto --warmup 0 --reps 1 --verbose 2>&1 </dev/null | grep -m1 "automatic choice:" || true)"
    echo "  $np ranks: ${line:-no automatic choice printed}"
    # Each steering is named after what it makes win on 4 ranks, spelled as the choice line does.
    if [ "$np" = 4 ] && [[ "$line" != *" $s "* ]]; then
      echo "  steering $s did not choose $s on 4 ranks" >&2
      status=1
    fi
  done
  labels="$(printf 'np%s|' $RANKS)"
  if DFFT_WISDOM_DIR="$dir" ctest --test-dir "$BUILD" -R "$REGEX" -L "^(${labels%|})$" -LE cuda \
       -j "$JOBS" --output-on-failure; then
    RESULTS+=("passed  $s")
  else
    RESULTS+=("FAILED  $s")
    status=1
  fi
done
echo "=== steered tests"
printf '%s\n' "${RESULTS[@]}"
exit "$status"

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
# The constants are not a machine's: each one only makes the model rank the candidates
# differently (src/model/analytic.cpp):
#   pencil      FFTs of the contiguous axis slow (a slab's 2-D block), all-to-alls of P ranks
#               slow and of sub-communicators fast: a 2 x 2 pencil on 4 ranks, 1 x 3 on 3.
#   slab-1d2d   FFTs of the contiguous axis slow, links alike: slab-1d2d on 2 and 4 ranks
#               (a 1 x 3 pencil on 3).
#   realigned   as pencil, with slow box copies (the default variant packs on both sides, the
#               realigned one only unpacks): realigned pencils on 3 and 4 ranks.
#   onesided    the onesided method's link fast, every other method's slow.
# Not in CI: one pass over the default tests takes minutes per steering.
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
REGEX="${1:-^(mpi_np._other|api_np|workspace_np|pipelined_np|overlap_np|features_np|halo_np|codec_np|npy_io_np|tune_np|nodes_np|capi|hardening_.*_np|python_np|python_injected|python_example|example_)}"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
DFFT="$BUILD/bin/dfft"
[ -x "$DFFT" ] || { echo "steered_tests.sh: no $DFFT (build the dfft target first)" >&2; exit 2; }
MPIRUN=(mpirun --oversubscribe)
mpirun --version 2>/dev/null | grep -q "Open MPI" || MPIRUN=(mpirun)

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# Writes the steering's wisdom file into $2 (the calibration format of src/model/calibration_json.cpp).
write_wisdom() {
  python3 - "$1" "$2" <<'EOF'
import json, os, socket, sys

steering, folder = sys.argv[1], sys.argv[2]
host = socket.gethostname()
# The device string dfft reports for the cpu backend: "cpu: " and /proc/cpuinfo's first model name.
device = "cpu: unknown cpu"
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and ":" in line:
                device = "cpu: " + line.split(":", 1)[1].lstrip(" \t").rstrip("\n")
                break
except OSError:
    pass
METHODS = ["a2a-sync", "a2a-type", "p2p-sync", "p2p-type", "onesided", "p2p-pipelined"]
UNIFORM = (5e-6, 2e9)  # latency s, bandwidth B/s
SETTINGS = {
    "pencil": dict(fft=(1e8, 4e9, 4e9), full=(1e-6, 1e8), sub=(1e-7, 1e12)),
    "slab-1d2d": dict(fft=(1e8, 4e9, 4e9)),
    "realigned": dict(fft=(1e8, 4e9, 4e9), full=(1e-4, 1e7), sub=(1e-7, 1e12), pack=3e8),
    "onesided": dict(methods={"onesided": (1e-7, 1e12)}),
}


def link(size, latency, bandwidth):
    return {"size": size, "latency_s": latency, "bandwidth_Bps": bandwidth}


def calibration(ranks, fft=(4e9, 4e9, 4e9), full=UNIFORM, sub=None, methods=None, pack=1.2e10):
    contiguous, middle, strided = fft
    return {
        "ranks": ranks, "backend": "cpu", "device": device, "host": host,
        "timestamp": "2026-01-01T00:00:00Z", "measured": True, "pingpong": link(2, *full),
        "nodes": 1, "emulated_nodes": False, "intra_node": None, "inter_node": None,
        # all-to-all of the whole communicator and of every smaller group (pencil rows)
        "alltoall": [link(ranks, *full)] + [link(k, *(sub or full)) for k in range(2, ranks)],
        "fft_flops": {
            "double": {"contiguous": contiguous, "middle": middle, "strided": strided},
            "float": {"contiguous": 2 * contiguous, "middle": 2 * middle, "strided": 2 * strided},
        },
        "pack_Bps": pack,
        "method_links": [dict(link(ranks, *(methods or {}).get(m, full)), method=m) for m in METHODS],
    }


if steering not in SETTINGS:
    sys.exit(f"unknown steering '{steering}' (known: {' '.join(SETTINGS)})")
doc = {"dfft_wisdom": 1, "entries": [],
       "calibrations": [calibration(r, **SETTINGS[steering]) for r in (2, 3, 4, 8)]}
os.makedirs(folder, exist_ok=True)
with open(os.path.join(folder, f"dfft-wisdom-{host}.json"), "w") as f:
    json.dump(doc, f, indent=1)
EOF
}

status=0
declare -a RESULTS
for s in $STEERINGS; do
  dir="$TMP/$s"
  write_wisdom "$s" "$dir"
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

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined) and runs each for
# SECONDS (default 60) from the committed corpus fuzz/corpus/<target>/. Exits non-zero when a
# target crashes; the crashing input is left in $FUZZ_WORK/<target>/ (printed).
#   bash fuzz/run.sh [SECONDS]      env: FUZZ_WORK (default /tmp/dfft-fuzz), CXX (default clang++)
set -euo pipefail
secs=${1:-60}
if ! [[ $secs =~ ^[0-9]+$ ]] || ((secs < 1 || secs > 3600)); then
  echo "usage: $0 [SECONDS 1..3600]" >&2; exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
work=${FUZZ_WORK:-/tmp/dfft-fuzz}
cxx=${CXX_FUZZ:-clang++}
mkdir -p "$work"

command -v "$cxx" >/dev/null || { echo "fuzz: $cxx not found (install clang)" >&2; exit 2; }
# libFuzzer's runtime ships in a separate Debian package.
probe() { echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long){return 0;}' |
            "$cxx" -x c++ -fsanitize=fuzzer - -o "$work/probe" 2>/dev/null; }
if ! probe; then
  ver=$("$cxx" -dumpversion | cut -d. -f1)
  echo "fuzz: installing libclang-rt-$ver-dev" >&2
  apt-get update -qq && apt-get install -y -qq "libclang-rt-$ver-dev" >/dev/null
  probe || { echo "fuzz: -fsanitize=fuzzer does not link" >&2; exit 2; }
fi

mpi_inc=$(mpicxx --showme:compile 2>/dev/null || pkg-config --cflags ompi-cxx)
mpi_lib=$(mpicxx --showme:link 2>/dev/null || pkg-config --libs ompi-cxx)
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$root/include" -I"$root/src" -I"$root/apps/dfft" $mpi_inc)
common=("$root/src/util/check.cpp" "$root/src/util/names.cpp" "$root/src/util/option_fields.cpp"
        "$root/src/util/option_json.cpp" "$root/fuzz/link_stubs.cpp")
declare -A srcs=(
  [npy]="$root/src/io/npy_header.cpp"
  [cases]="$root/apps/dfft/cases_parse.cpp $root/apps/dfft/option_json.cpp"
  [wisdom]="$root/src/tune/wisdom.cpp $root/src/tune/json_util.cpp $root/src/model/calibration_json.cpp"
)
targets=(npy cases wisdom)
# Every source is compiled once (the common ones serve all three targets), DFFT_JOBS at a time,
# then each target is linked from its objects.
obj="$work/obj"
mkdir -p "$obj"
objects_of() {  # object paths of the given sources
  local s
  for s in "$@"; do echo "$obj/$(echo "${s#"$root"/}" | tr / _).o"; done
}
sources=("${common[@]}")
for t in "${targets[@]}"; do
  # shellcheck disable=SC2206
  sources+=("$root/fuzz/fuzz_$t.cpp" ${srcs[$t]})
done
echo "fuzz: compiling ${#sources[@]} sources" >&2
export cxx obj root
export -f objects_of
export FUZZ_FLAGS="${flags[*]}"
printf '%s\n' "${sources[@]}" | sort -u | xargs -P "${DFFT_JOBS:-2}" -I{} bash -c \
  '$cxx $FUZZ_FLAGS -c "$1" -o "$(objects_of "$1")"' _ {}
for t in "${targets[@]}"; do
  echo "fuzz: linking $t" >&2
  # shellcheck disable=SC2086,SC2046
  "$cxx" -fsanitize=fuzzer,address,undefined $(objects_of "$root/fuzz/fuzz_$t.cpp" ${srcs[$t]} "${common[@]}") \
    $mpi_lib -o "$work/fuzz_$t"
done

# The targets fuzz side by side, all at once: each runs for a fixed time, so the phase takes that
# time once instead of once per target (on fewer cores than targets each gets a share of a core).
fuzz_one() {  # target; exit status 0 when no input failed
  local t=$1 dir="$work/$1"
  rm -rf "$dir"; mkdir -p "$dir/new"
  echo "fuzz: running $t for ${secs}s" >&2
  # New inputs go to a scratch corpus so the committed one stays small; -timeout catches hangs,
  # -rss_limit_mb runaway allocation.
  if ! (cd "$dir" && "$work/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
          -max_len=65536 -print_final_stats=1 "$dir/new" "$root/fuzz/corpus/$t" >"$dir/log" 2>&1); then
    echo "fuzz: $t FAILED; log $dir/log, inputs:" >&2
    ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null >&2 || true
    tail -40 "$dir/log" >&2
    return 1
  fi
  grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$dir/log" | sed "s/^/fuzz: $t /" >&2
}
export work secs
export -f fuzz_one
status=0
printf '%s\n' "${targets[@]}" | xargs -P "${#targets[@]}" -I{} bash -c 'fuzz_one "$1"' _ {} || status=1
exit $status

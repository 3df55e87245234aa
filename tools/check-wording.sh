#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The product speaks of itself: code, tests, tools and docs say what things are and why, never
# which tracker ticket, work period or script stage they came from (history belongs in
# CHANGELOG.md, which is not checked). Prints every offending line and exits 1 if there is one.
#
#   tools/check-wording.sh [ROOT]      (ROOT: the repository, default: this script's parent)
#
# Sanitizer stack frames ("    #N func file:line") in recorded tool reports are not wording and
# are skipped; HTML entities ("&#" and digits) and colours (hex digits after "#") are not matched.
set -euo pipefail
root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
cd "$root"

paths=(src include apps tools docs tests python scripts benchmarks examples cmake fuzz README.md
       CMakeLists.txt)
existing=()
for p in "${paths[@]}"; do [[ -e $p ]] && existing+=("$p"); done

# The word is assembled so that this file does not match its own pattern.
w=sess
pattern="\\b${w}ions?\\b"                      # work periods
pattern+="|\\bissues?[ -]?#?[0-9]+"            # tracker tickets: "issue N", "issue-N", "issue #N"
pattern+="|(^|[^&[:alnum:]])#[0-9]+\\b"        # ... and a bare "#N"
pattern+="|\\bstages? s[0-9]"                  # script stages: "stage sN"
pattern+="|\\bs[0-9][a-z]?py[0-9]?\\b"         # ... "sNpy", "sNpyM"
pattern+="|(\\bOUT|\\bOUTDIR|\\.sh) s[0-9]"    # ... "script.sh OUT sNx"

hits=$(grep -rnIiE "$pattern" "${existing[@]}" | grep -vE '^[^:]+:[0-9]+: {4}#[0-9]+ ' || true)
if [[ -n $hits ]]; then
  printf '%s\n' "$hits"
  echo "check-wording: $(printf '%s\n' "$hits" | wc -l) line(s) name tickets, work periods or" \
       "script stages; say what the thing is or why instead (history goes in CHANGELOG.md)" >&2
  exit 1
fi
echo "check-wording: no ticket, work-period or script-stage references in ${existing[*]}"

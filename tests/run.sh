#!/usr/bin/env bash
# run.sh — runs the unit tests and every tests/sh_*.sh suite; prints
# "N passed, N failed, N skipped". Each suite prints one line per case, "ok   suite/case",
# "FAIL suite/case" or "skip suite/case: why" (an optional tool missing: not a pass).
# Env: HR_BIN (the headroom binary), HR_UNIT (the unit-test binary), HR_LONG=1.
set -u
cd "$(dirname "$0")/.."
export HR_BIN=${HR_BIN:-./headroom} HR_UNIT=${HR_UNIT:-build/portable/unit_tests}
# Tests never read the developer's tuned wisdom (results/<machine>/wisdom.json).
export HEADROOM_WISDOM=${HEADROOM_WISDOM:-/nonexistent/headroom-test-wisdom.json}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
long=()
[ "${HR_LONG:-0}" = 1 ] && long=(--long)
"$HR_UNIT" "${long[@]}" 2>&1 | tee -a "$log" || status=1
for suite in tests/sh_*.sh; do
    [ -e "$suite" ] || continue
    bash "$suite" 2>&1 | tee -a "$log" || status=1
done
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^skip ' "$log")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]

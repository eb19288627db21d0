# lib.sh — helpers for the shell test suites (sourced). Each case prints ok/FAIL/skip.
# SUITE must be set by the including script. HR_BIN is the binary under test.
HR_BIN=${HR_BIN:-./headroom}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
nfail=0
ok() { echo "ok   $SUITE/$1"; }
fail() { echo "FAIL $SUITE/$1: $2"; nfail=$((nfail + 1)); }
# skip NAME WHY: a case that could not run here (a missing optional tool); counted as
# skipped by tests/run.sh, never as passed.
skip() { echo "skip $SUITE/$1: $2"; }
# find_python MODULE...: sets PY to the first Python that imports every MODULE (python3
# on PATH, then /usr/bin/python3, which has Debian's python3-numpy/scipy when a pyenv or
# venv python3 comes first on PATH); PY is empty when none does.
find_python() {
    local p mods="pass"
    for m in "$@"; do mods="$mods; import $m"; done
    PY=""
    for p in python3 /usr/bin/python3; do
        if command -v "$p" >/dev/null 2>&1 && "$p" -c "$mods" 2>/dev/null; then
            PY=$p
            return 0
        fi
    done
    return 1
}
# expect NAME STATUS PATTERN -- CMD...: runs CMD, checks its exit status and that
# stderr+stdout match the extended regex PATTERN ("" matches anything).
expect() {
    local name=$1 want=$2 pat=$3
    shift 4
    local out rc
    out=$(timeout 120 "$@" 2>&1)
    rc=$?
    if [ "$rc" != "$want" ]; then
        fail "$name" "exit $rc, expected $want: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    elif [ -n "$pat" ] && ! printf '%s' "$out" | grep -Eq -- "$pat"; then
        fail "$name" "output does not match /$pat/: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    else
        ok "$name"
    fi
}
finish() { [ "$nfail" -eq 0 ]; }

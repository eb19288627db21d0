# lib.sh — helpers for the shell test suites (sourced). Each case prints ok/FAIL.
# SUITE must be set by the including script. HR_BIN is the binary under test.
HR_BIN=${HR_BIN:-./headroom}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
nfail=0
ok() { echo "ok   $SUITE/$1"; }
fail() { echo "FAIL $SUITE/$1: $2"; nfail=$((nfail + 1)); }
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

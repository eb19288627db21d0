# lib.sh — helpers for the shell test suites (sourced). Each case prints ok/FAIL/skip.
# SUITE must be set by the including script. HR_BIN is the binary under test.
HR_BIN=${HR_BIN:-./headroom}
B=$HR_BIN                                                # the binary, short
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)  # the repository root
TMP=$(mktemp -d)
# written_valid: at the end of every suite, each results file headroom wrote under $TMP
# (results.json, rows.jsonl and reps.jsonl of finished sweeps: a summary.md beside them; shard.json;
# ceilings.json) must validate against its schema in docs/reference/ (scripts/check-schema.py).
# Files a case doctored on purpose sit outside such folders or carry another name; a suite
# that copies committed fixtures under $TMP names their folders in NOT_WRITTEN, one a line.
NOT_WRITTEN=
written_valid() {
    local kind files out
    local schema
    for kind in results rows reps shard ceilings; do
        schema=$kind
        case $kind in
        results) files=$(find "$TMP" -name summary.md -execdir sh -c '[ -f results.json ] && echo "$PWD/results.json"' \; 2>/dev/null) ;;
        rows) files=$(find "$TMP" -name summary.md -execdir sh -c '[ -f rows.jsonl ] && echo "$PWD/rows.jsonl"' \; 2>/dev/null) ;;
        reps) schema='rows#/$defs/rep'
            files=$(find "$TMP" -name summary.md -execdir sh -c '[ -f reps.jsonl ] && echo "$PWD/reps.jsonl"' \; 2>/dev/null) ;;
        shard) files=$(find "$TMP" -name shard.json -size +0 2>/dev/null) ;;
        ceilings) files=$(find "$TMP" -name ceilings.json -size +0 2>/dev/null) ;;
        esac
        [ -z "$NOT_WRITTEN" ] || files=$(printf '%s\n' $files | grep -vF "$NOT_WRITTEN")
        [ -n "$files" ] || continue
        # shellcheck disable=SC2086
        if out=$(python3 "$ROOT/scripts/check-schema.py" "$schema" $files 2>&1); then
            ok "written-$kind-valid"
        else
            fail "written-$kind-valid" "$(printf '%s' "$out" | head -n 2 | tr '\n' ' ')"
        fi
    done
}
trap 'written_valid; rm -rf "$TMP"' EXIT
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
# sweep_config FILE [KEY=VALUE ...]: writes a [sweep] config of the tests' small shape
# (heads 2, d_head 16, one thread, 3 repetitions of at least 1 ms, no warm-up); each
# KEY=VALUE sets a key, replacing a default's value, and KEY= leaves a default out.
sweep_config() {
    local f=$1 a k
    shift
    local -A v=([heads]=2 [d_head]=16 [threads]=1 [reps]=3 [min_time]=0.001 [warmup]=0)
    local keys=(heads d_head threads reps min_time warmup)
    for a in "$@"; do
        k=${a%%=*}
        [ -n "${v[$k]+set}" ] || keys+=("$k")
        v[$k]=${a#*=}
    done
    {
        echo "[sweep]"
        for k in "${keys[@]}"; do [ -z "${v[$k]}" ] || echo "$k = ${v[$k]}"; done
    } > "$f"
}
# interrupt_sweep SIGNAL OUT NAME: starts a sweep of slow-ish points into OUT (its config
# in OUT.ini, stdout and stderr in OUT.out and OUT.err), sends SIGNAL once its first row
# is on disk, and checks the sweep's documented "interrupted" status, 130, for SIGINT and
# SIGTERM alike (case NAME_status). Interleaved, rows finish in the last round: a small
# sweep gets there soon, and the round lasts a while (20 points of >= 50 ms).
interrupt_sweep() {
    local sig=$1 out=$2 name=$3 pid rc
    sweep_config "$out.ini" kernels=naive "seq=64, 128, 256, 512, 1024" passes=4 reps=2 min_time=0.05
    "$HR_BIN" sweep "$out.ini" --out "$out" > "$out.out" 2> "$out.err" &
    pid=$!
    for _ in $(seq 1 1200); do # up to 60 s: the first row takes long under ASan
        [ -s "$out/rows.jsonl" ] && break
        sleep 0.05
    done
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq 130 ] && ok "${name}_status" || fail "${name}_status" "exit $rc, expected 130 (interrupted): $(tail -n 1 "$out.err")"
}
finish() { [ "$nfail" -eq 0 ]; }

# test_plugin NAME SRC OUT: builds the plugin source SRC, whose kernels are the array
# `static const hrp_kernel ks[]`, into OUT with the entry point headroom loads (library
# NAME, version 0, every kernel of ks); a failed build is the case "build" failed.
test_plugin() {
    cat "$2" - > "$2.all.c" <<EOF
static const hrp_kernel *kp[sizeof ks / sizeof *ks];

HRP_EXPORT const hrp_plugin *headroom_plugin_v1(void)
{
    static const hrp_plugin plugin = {HRP_ABI_MAJOR, HRP_ABI_MINOR, sizeof(hrp_plugin), "$1", "0",
                                      sizeof ks / sizeof *ks, kp, 0};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) kp[i] = &ks[i];
    return &plugin;
}
EOF
    $CC -std=c11 -Wall -Wextra -shared -fPIC -I "$ROOT/include" "$2.all.c" -o "$3" 2>&1 || fail build "cc failed"
}

# peer_plugin FILE HOW [ASAN]: whether a peer's plugin FILE is there to test (then P is
# FILE, RUN the quick run's flags, VER a version's pattern); if not, one skip line naming
# HOW it is built, and false. Under the sanitizers ASAN, when given, says why the peer
# declines to load: one skip line, and false. `peer_plugin ... || exit 0`.
peer_plugin() {
    P=$1
    RUN=(--reps 2 --min-time 0.001 --warmup 0 --no-probe)
    VER='[0-9]+\.[0-9]+\.[0-9]+'
    if [ ! -f "$1" ]; then
        skip built "$1 not built ($2)"
        return 1
    fi
    if [ -n "${3:-}" ] && [ "${HR_SANITIZE:-0}" = 1 ]; then
        skip sanitizer "$3"
        return 1
    fi
}

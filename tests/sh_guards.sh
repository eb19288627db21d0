# sh_guards.sh — memory guards: a plugin kernel (built here from inline C against include/
# alone) that writes past O or its workspace, reads past K, or writes into Q under a check
# is reported in one line naming what it touched, with a failing status and no glibc
# abort; a clean kernel still passes.
SUITE=guards
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
P=$TMP/bad.so
cat > "$TMP/bad.c" <<'EOF'
#include "headroom/plugin.h"

/* The last row in memory of a tensor, in either layout (BHND, BNHD). */
static float *last_row(hrp_view v, int b, int h, int n) { return hrp_row(v, b - 1, h - 1, n - 1); }

static int past_o(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    (void)t, (void)w;
    last_row(a->o, p->batch, p->heads, p->seq_q)[p->d_head] = 1.0f; /* one float past O */
    return HRP_OK;
}

static int read_k(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    (void)t, (void)w;
    volatile float x = ((const float *)last_row(a->k, p->batch, p->kv_heads, p->seq_kv))[p->d_head];
    (void)x;
    return HRP_OK;
}

static int write_q(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    (void)p, (void)t, (void)w;
    ((float *)a->q.data)[3] = 0.0f;
    return HRP_OK;
}

static size_t ws_page(const hrp_problem *p, const hrp_tune *t) { (void)p, (void)t; return 4096; }
static size_t ws_odd(const hrp_problem *p, const hrp_tune *t) { (void)p, (void)t; return 100; }
static int past_ws_page(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    (void)p, (void)t, (void)a;
    ((char *)w)[4096] = 1;
    return HRP_OK;
}
static int past_ws_odd(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    (void)p, (void)t, (void)a;
    for (int i = 0; i < 4; i++) ((char *)w)[100 + i] = 0;
    return HRP_OK;
}

#define K(N, RUN, WS) {.size = sizeof(hrp_kernel), .name = N, .summary = "guards test", .caps = HRP_CAP_CAUSAL | HRP_CAP_GQA, .workspace_bytes = WS, .run = RUN}
static const hrp_kernel ks[] = {K("bad_past_o", past_o, 0), K("bad_read_k", read_k, 0), K("bad_write_q", write_q, 0),
                                K("bad_ws", past_ws_page, ws_page), K("bad_ws_odd", past_ws_odd, ws_odd)};
EOF
test_plugin guards "$TMP/bad.c" "$P"

# guarded NAME PATTERN -- CMD...: CMD fails (any status but 0), prints PATTERN as the one
# line "headroom: kernel ...", and nothing of glibc's heap check or a core dump.
guarded() {
    local name=$1 pat=$2 out rc
    shift 3
    out=$(timeout 120 "$@" 2>&1)
    rc=$?
    if [ "$rc" = 0 ]; then
        fail "$name" "exit 0, expected a failure: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    elif [ "$rc" -ge 124 ]; then
        fail "$name" "exit $rc (a time limit or a signal), expected a report: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    elif ! printf '%s\n' "$out" | grep -Eq -- "^headroom: $pat\$"; then
        fail "$name" "no line /^headroom: $pat\$/: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    elif printf '%s' "$out" | grep -Eqi 'malloc|free\(\)|corrupted|double free|Aborted|core dumped|Segmentation'; then
        fail "$name" "a crash's text: $(printf '%s' "$out" | grep -Ei 'malloc|free|corrupt|Abort|core|Segment' | head -n 1)"
    else
        ok "$name"
    fi
}

RUN=(--plugin "$P" --seq 32 --heads 2 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --no-probe)
# O of 2 x 32 x 16 floats is 4096 bytes: its end is a guard page's start.
guarded past_o 'kernel bad_past_o wrote past O \(byte 0 after its end\)' -- $B run --kernel bad_past_o "${RUN[@]}"
guarded past_o_bnhd 'kernel bad_past_o wrote past O \(byte 0 after its end\)' -- $B run --kernel bad_past_o "${RUN[@]}" --layout bnhd
# O of 5 x 3 floats is 60 bytes: the 4 bytes after it to the 64-byte boundary are canaries.
guarded past_o_canary 'kernel bad_past_o wrote 4 bytes past O' -- $B run --kernel bad_past_o "${RUN[@]}" --seq 5 --heads 1 --d-head 3
guarded past_o_check 'kernel bad_past_o wrote (4 bytes past O|past O \(byte 0 after its end\))' -- $B check --quick --kernel bad_past_o --plugin "$P"
guarded read_k 'kernel bad_read_k read past K \(byte 0 after its end\)' -- $B run --kernel bad_read_k "${RUN[@]}"
guarded read_k_gqa 'kernel bad_read_k read past K \(byte 0 after its end\)' -- $B run --kernel bad_read_k "${RUN[@]}" --kv-heads 1
guarded write_q_check 'kernel bad_write_q wrote (into Q \(byte 12\)|past Q \(byte 8 after its end\))' -- $B check --quick --kernel bad_write_q --plugin "$P"
guarded write_q_run_check 'kernel bad_write_q wrote into Q \(byte 12\)' -- $B run --kernel bad_write_q "${RUN[@]}" --check
guarded past_ws 'kernel bad_ws wrote past workspace \(byte 0 after its end\)' -- $B run --kernel bad_ws "${RUN[@]}"
guarded past_ws_canary 'kernel bad_ws_odd wrote 4 bytes past workspace' -- $B run --kernel bad_ws_odd "${RUN[@]}"
# Outside a check the inputs stay writable (the guards cost the timed loop nothing).
expect write_q_unchecked 0 '' -- $B run --kernel bad_write_q "${RUN[@]}"

# A clean kernel still passes, with the inputs read-only under its check.
expect example_builds 0 '' -- make -s -C "$ROOT/examples/plugin" OUT="$TMP" CC="$CC"
expect clean_check 0 'example_naive +f32 +T1 +[0-9]+ pass +0 warn +0 fail' -- $B check --quick --kernel example_naive --plugin "$TMP/example_naive.so"
expect clean_run_check 0 'check: pass' -- $B run --kernel example_naive "${RUN[@]}" --plugin "$TMP/example_naive.so" --check
expect builtin_check 0 'flash .* 0 fail' -- $B check --quick --kernel flash --threads 2
finish

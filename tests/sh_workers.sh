# sh_workers.sh — every point in a worker process: plugin kernels (built here from inline C
# against include/ alone) that segfault, abort, exit(0), exit(7), hang, or crash in the
# middle of an interleaved round cost their own points only. The sweep finishes, keeps the
# other kernels' rows, records each failure with its reason (results.json, rows.jsonl,
# summary.md, the end-of-run table) and exits 4; run, check and tune print one line and
# exit 4; --resume skips failed points unless --retry-failed; bad --timeout and
# --retry-failed are refused.
SUITE=workers
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
P=$TMP/bad.so
# Under ASan a kernel's SIGSEGV is ASan's to report (it exits 86); here the signal itself
# is the case, so the sanitizer build leaves it to the worker's own end.
[ "${HR_SANITIZE:-0}" = 1 ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
cat > "$TMP/bad.c" <<'CEOF'
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pause under -std=c11 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "headroom/plugin.h"

/* Writes zeros: wrong (no oracle check here), but a kernel that returns. */
static int ok_run(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    (void)t, (void)w;
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++) {
                float *o = hrp_row(a->o, b, h, i);
                for (int j = 0; j < p->d_head; j++) o[j] = 0;
            }
    return HRP_OK;
}
static int segv(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    (void)p, (void)t, (void)a, (void)w;
    *(volatile int *)0 = 1;
    return HRP_OK;
}
static int abrt(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w) { (void)p, (void)t, (void)a, (void)w; abort(); }
static int exit0(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w) { (void)p, (void)t, (void)a, (void)w; exit(0); }
static int exit7(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w) { (void)p, (void)t, (void)a, (void)w; exit(7); }
static int hang(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    (void)p, (void)t, (void)a, (void)w;
    for (;;) pause();
    return HRP_OK;
}
/* Runs for 0.3 s from its first call, then crashes: in a repetition, the points
 * interleaved with it open in the same worker. */
static int late(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *w)
{
    static struct timespec t0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!t0.tv_sec) t0 = now;
    if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > 0.3) *(volatile int *)0 = 1;
    return ok_run(p, t, a, w);
}

#define K(N, RUN) {.size = sizeof(hrp_kernel), .name = N, .summary = "workers test", .caps = HRP_CAP_CAUSAL | HRP_CAP_GQA | HRP_CAP_BLOCK_Q, .run = RUN}
static const hrp_kernel ks[] = {K("w_ok", ok_run), K("w_segv", segv), K("w_abort", abrt), K("w_exit0", exit0),
                                K("w_exit7", exit7), K("w_hang", hang), K("w_late", late)};
CEOF
test_plugin workers "$TMP/bad.c" "$P"

# one_line NAME STATUS PATTERN -- CMD...: CMD exits STATUS and prints exactly one line,
# which matches PATTERN.
one_line() {
    local name=$1 want=$2 pat=$3 out rc
    shift 4
    out=$(timeout 120 "$@" 2>&1)
    rc=$?
    if [ "$rc" != "$want" ]; then
        fail "$name" "exit $rc, expected $want: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
    elif [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || ! printf '%s' "$out" | grep -Eq -- "$pat"; then
        fail "$name" "expected one line /$pat/, got: $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"
    else
        ok "$name"
    fi
}

# ---- a sweep: the failures cost their own points ---------------------------------------
sweep_config "$TMP/w.ini" "kernels=w_ok, w_segv, w_abort, w_exit0, w_exit7, w_hang, naive" seq=32 probe=false
S=$TMP/s1
expect sweep_status 4 '5 failed in their worker' -- $B sweep "$TMP/w.ini" --plugin "$P" --out "$S" --timeout 1
rows=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(sorted(b["name"].split("/")[0] for b in d["benchmarks"] if b.get("aggregate_name") == "median")))' "$S/results.json" 2>&1)
[ "$rows" = "naive w_ok" ] && ok sweep_keeps_others || fail sweep_keeps_others "median rows of: $rows"
for pair in "w_segv:signal SIGSEGV" "w_abort:signal SIGABRT" "w_exit0:exit status 0" "w_exit7:exit status 7" "w_hang:time limit 1 s"; do
    k=${pair%%:*} why=${pair#*:}
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(s["name"].startswith(sys.argv[2] + "/") and s["reason"] == "failed in its worker: " + sys.argv[3] for s in d["skipped"]) else 1)' "$S/results.json" "$k" "$why" \
        && ok "results_$k" || fail "results_$k" "no skipped entry '$why' in results.json"
    grep -q "\"name\":\"$k/.*\"failed\":\"$why\"" "$S/rows.jsonl" && ok "rows_$k" || fail "rows_$k" "no failed line '$why' in rows.jsonl"
    grep -q "| $k/.* | failed in its worker: $why |" "$S/summary.md" && ok "summary_$k" || fail "summary_$k" "not in summary.md"
done
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["sweep"]["failed_points"] == 5 else 1)' "$S/results.json" \
    && ok results_failed_points || fail results_failed_points "sweep.failed_points is not 5"
expect table_lists_failures 4 'FAILED w_exit0/.*: exit status 0' -- $B sweep "$TMP/w.ini" --plugin "$P" --out "$TMP/s2" --timeout 1 --filter w_exit0,w_ok
expect sequential 4 '1 failed in their worker' -- $B sweep "$TMP/w.ini" --plugin "$P" --out "$TMP/s3" --timeout 1 --filter w_ok,w_abort,naive --no-interleave

# A crash in the middle of an interleaved round: the points open beside it go on in a new worker.
sweep_config "$TMP/late.ini" "kernels=w_ok, w_late, naive" seq=32 probe=false reps=20 min_time=0.02
L=$TMP/late
expect late_status 4 '3 points interleaved' -- $B sweep "$TMP/late.ini" --plugin "$P" --out "$L"
rows=$(grep -c '"result"' "$L/rows.jsonl" 2>/dev/null)
[ "$rows" = 2 ] && grep -q '"name":"w_late/.*"failed":"signal SIGSEGV"' "$L/rows.jsonl" \
    && ok late_keeps_others || fail late_keeps_others "rows: $rows; $(grep -c failed "$L/rows.jsonl" 2>/dev/null) failed lines"
reps=$(grep -c '"key":"naive/' "$L/reps.jsonl" 2>/dev/null)
[ "$reps" = 20 ] && ok late_journal || fail late_journal "naive has $reps journaled repetitions, expected 20"

# ---- --resume and --retry-failed ----------------------------------------------------------------
before=$(wc -l < "$S/rows.jsonl")
out=$(timeout 120 $B sweep --resume "$S" --plugin "$P" --timeout 1 2>&1)
rc=$?
if [ "$rc" = 4 ] && ! printf '%s' "$out" | grep -q 'in its worker:' && [ "$(wc -l < "$S/rows.jsonl")" = "$before" ]; then
    ok resume_skips_failed
else
    fail resume_skips_failed "exit $rc; $(printf '%s' "$out" | grep -c 'in its worker:') failures measured again"
fi
expect resume_keeps_reasons 0 '' -- python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["sweep"]["failed_points"] == 5 else 1)' "$S/results.json"
expect retry_failed 4 'FAILED w_segv/.*: in its worker: signal SIGSEGV' -- $B sweep --resume "$S" --plugin "$P" --timeout 1 --retry-failed
expect retry_no_dup 0 '' -- python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=[s["name"] for s in d["skipped"]]; sys.exit(0 if len(n) == len(set(n)) == 5 else 1)' "$S/results.json"

# ---- run, check, tune: one line, exit 4 ----------------------------------------------------------
RUN=(--plugin "$P" --seq 32 --heads 2 --d-head 16 --reps 2 --min-time 0.001 --warmup 0 --no-probe)
one_line run_segv 4 '^headroom run: kernel w_segv: failed in its worker: signal SIGSEGV$' -- $B run --kernel w_segv "${RUN[@]}"
one_line run_abort 4 '^headroom run: kernel w_abort: failed in its worker: signal SIGABRT$' -- $B run --kernel w_abort "${RUN[@]}"
one_line run_exit0 4 '^headroom run: kernel w_exit0: failed in its worker: exit status 0$' -- $B run --kernel w_exit0 "${RUN[@]}"
one_line run_exit7 4 '^headroom run: kernel w_exit7: failed in its worker: exit status 7$' -- $B run --kernel w_exit7 "${RUN[@]}"
one_line run_hang 4 '^headroom run: kernel w_hang: failed in its worker: time limit 1 s$' -- $B run --kernel w_hang "${RUN[@]}" --timeout 1
expect run_ok 0 'w_ok' -- $B run --kernel w_ok "${RUN[@]}"
# --in-process: today's behaviour, the kernel's exit is the command's
expect run_in_process 7 '' -- $B run --kernel w_exit7 "${RUN[@]}" --in-process
expect check_segv 4 '^headroom check: kernel w_segv: failed in its worker: signal SIGSEGV$' -- sh -c "$B check --quick --plugin $P --kernel w_segv 2>&1 >/dev/null"
expect check_hang 4 'kernel w_hang: failed in its worker: time limit 1 s' -- $B check --quick --plugin "$P" --kernel w_hang --timeout 1
expect check_builtin 0 'flash .* 0 fail' -- $B check --quick --kernel flash --threads 1 --dtype f32
expect tune_segv 4 'kernel w_segv: failed in its worker: signal SIGSEGV' -- $B tune --plugin "$P" --kernel w_segv --seq 32 --heads 2 --d-head 16 --budget 1 --min-time 0.002 --dry-run
expect tune_hang 4 'kernel w_hang: failed in its worker: time limit 1 s' -- $B tune --plugin "$P" --kernel w_hang --seq 32 --heads 2 --d-head 16 --budget 1 --min-time 0.002 --dry-run --timeout 1

# ---- bad input ------------------------------------------------------------------------------------
one_line bad_timeout_zero 2 '^headroom sweep: --timeout: ' -- $B sweep "$TMP/w.ini" --timeout 0
one_line bad_timeout_negative 2 '^headroom run: --timeout: ' -- $B run --kernel naive --timeout -1
one_line bad_timeout_word 2 '^headroom check: --timeout: ' -- $B check --timeout soon
one_line bad_timeout_tune 2 '^headroom tune: --timeout: ' -- $B tune --kernel flash --timeout 0
one_line bad_retry_alone 2 '^headroom sweep: --retry-failed: only with --resume' -- $B sweep "$TMP/w.ini" --retry-failed
finish

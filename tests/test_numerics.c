/* test_numerics.c — every registered kernel on hostile numbers (huge and -inf-like logits,
 * fully masked rows, denormals, NaN/inf inputs) and its determinism run to run and across
 * thread counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "inputs.h"
#include "oracle.h"
#include "t.h"

/* Shapes every kernel is tried on; each kernel must be applicable to at least one (decode
 * takes Nq <= 16). Causal ones with Nq > Nkv have leading rows that see no key. */
static const hr_problem shapes[] = {
    {.batch = 1, .heads = 4, .kv_heads = 2, .seq_q = 33, .seq_kv = 33, .d_head = 16},
    {.batch = 2, .heads = 4, .kv_heads = 1, .seq_q = 40, .seq_kv = 17, .d_head = 24, .causal = true},
    {.batch = 1, .heads = 8, .kv_heads = 2, .seq_q = 9, .seq_kv = 4, .d_head = 32, .causal = true},
    {.batch = 1, .heads = 8, .kv_heads = 2, .seq_q = 3, .seq_kv = 300, .d_head = 64, .causal = true},
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static bool usable(const hr_kernel *k, const hr_problem *p)
{
    return !(k->applicable && k->applicable(p));
}

/* O prefilled with NaN, so an element a kernel never writes cannot pass. */
static void poison(const hr_problem *p, hr_view o)
{
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++)
                for (int c = 0; c < p->d_head; c++) hr_row(o, b, h, i)[c] = NAN;
}

/* Runs k with `threads` (kernel defaults otherwise) into ts's O. */
static void run(const hr_kernel *k, const hr_problem *p, hr_tensors *ts, int threads)
{
    hr_tune t = hr_kernel_tune(k, p, &(hr_tune){.threads = threads});
    size_t wsb = k->workspace_bytes(p, &t);
    void *ws = hr_alloc(wsb ? wsb : 64);
    CHECK(ws != NULL);
    if (!ws) return;
    poison(p, ts->args.o);
    CHECKF(k->run(p, &t, &ts->args, ws) == HR_OK, "%s: run failed", k->name);
    free(ws);
}

/* Number of NaN/inf in O; masked rows must be exactly zero (counted in *masked_bad). */
static long nonfinite_out(const hr_problem *p, hr_view o, long *masked_bad)
{
    long n = 0;
    *masked_bad = 0;
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++) {
                const float *r = hr_row(o, b, h, i);
                bool masked = hr_causal_end(p, i) == 0;
                for (int c = 0; c < p->d_head; c++) {
                    if (!isfinite(r[c])) n++;
                    if (masked && r[c] != 0.0f) (*masked_bad)++;
                }
            }
    return n;
}

/* Sets every element of a [B][H][N][d] view to x. */
static void fill_const(hr_view v, int B, int H, int N, int d, float x)
{
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int n = 0; n < N; n++)
                for (int c = 0; c < d; c++) hr_row(v, b, h, n)[c] = x;
}

/* Calls fn(k, p) for every kernel and every test shape it accepts; checks that each
 * kernel accepted at least one. */
typedef void (*case_fn)(const hr_kernel *k, const hr_problem *p);
static void each_kernel_shape(case_fn fn)
{
    for (int ki = 0; hr_kernels[ki]; ki++) {
        int ran = 0;
        for (int si = 0; si < NSHAPES; si++)
            if (usable(hr_kernels[ki], &shapes[si])) {
                fn(hr_kernels[ki], &shapes[si]);
                ran++;
            }
        CHECKF(ran > 0, "%s accepts none of the test shapes", hr_kernels[ki]->name);
    }
}

/* The `large` distribution (scaled logits ~1e4): finite, masked rows zero, oracle pass. */
static void case_numerics_large_logits(const hr_kernel *k, const hr_problem *p)
{
    hr_tensors ts;
    if (hr_tensors_alloc(&ts, p, HR_LAYOUT_BHND, HR_DIST_LARGE, 11)) {
        CHECK(!"alloc");
        return;
    }
    run(k, p, &ts, 0);
    long masked_bad, nf = nonfinite_out(p, ts.args.o, &masked_bad);
    hr_check c = hr_oracle_check(p, &ts.args, 0);
    char buf[96], msg[256];
    hr_problem_str(p, buf, sizeof buf);
    hr_check_str(&c, msg, sizeof msg);
    CHECKF(nf == 0 && masked_bad == 0, "%s %s large: %ld NaN/inf, %ld masked nonzero", k->name,
           buf, nf, masked_bad);
    CHECKF(c.verdict != HR_CHECK_FAIL, "%s %s large: %s", k->name, buf, msg);
    hr_tensors_free(&ts);
}

HR_TEST(numerics_large_logits) { each_kernel_shape(case_numerics_large_logits); }

/* Hand-made logits of +-1e30/sqrt(d) (finite, but exp of any difference over/underflows)
 * in a non-causal row: K row j is s_j * 1e15 * e0 and Q is 1e15 * e0, so logit j is
 * s_j * 1e30 * scale. winner >= 0: s = +1 for that key, -1 (a "-inf-like" mask) for the
 * rest: O = V[winner]. winner < 0: every key at -1e30: O = the mean of V. */
static void extreme_case(const hr_kernel *k, int winner)
{
    hr_problem p = {.batch = 1, .heads = 2, .kv_heads = 2, .seq_q = 3, .seq_kv = 37, .d_head = 16};
    if (!usable(k, &p)) p.seq_q = 1;
    if (!usable(k, &p)) return;
    hr_tensors ts;
    if (hr_tensors_alloc(&ts, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 5)) {
        CHECK(!"alloc");
        return;
    }
    fill_const(ts.q, p.batch, p.heads, p.seq_q, p.d_head, 0.0f);
    fill_const(ts.k, p.batch, p.kv_heads, p.seq_kv, p.d_head, 0.0f);
    for (int h = 0; h < p.heads; h++)
        for (int i = 0; i < p.seq_q; i++) hr_row(ts.q, 0, h, i)[0] = 1e15f;
    for (int g = 0; g < p.kv_heads; g++)
        for (int j = 0; j < p.seq_kv; j++) hr_row(ts.k, 0, g, j)[0] = j == winner ? 1e15f : -1e15f;
    run(k, &p, &ts, 0);
    for (int h = 0; h < p.heads; h++)
        for (int i = 0; i < p.seq_q; i++) {
            const float *o = hr_row(ts.args.o, 0, h, i);
            for (int c = 0; c < p.d_head; c++) {
                double want = 0, vmax = 0;
                for (int j = 0; j < p.seq_kv; j++) {
                    double v = hr_crow(ts.args.v, 0, h, j)[c];
                    vmax = fmax(vmax, fabs(v));
                    if (winner < 0) want += v / p.seq_kv;
                    else if (j == winner) want = v;
                }
                CHECKF(isfinite(o[c]) && fabs(o[c] - want) <= 1e-5 * vmax,
                       "%s: logits +-1e30, winner %d: O[%d][%d][%d] = %g, want %g", k->name, winner,
                       h, i, c, o[c], want);
            }
        }
    hr_tensors_free(&ts);
}

HR_TEST(numerics_extreme_logits)
{
    for (int ki = 0; hr_kernels[ki]; ki++) {
        extreme_case(hr_kernels[ki], 0);
        extreme_case(hr_kernels[ki], 36); /* the winner last: the running max moves late */
        extreme_case(hr_kernels[ki], 17);
        extreme_case(hr_kernels[ki], -1); /* every key "masked" at -1e30: uniform */
    }
}

/* Causal Nq > Nkv: the leading rows see no key and must be exactly zero, never NaN from
 * an empty softmax (0/0); the other rows match the oracle. */
static void case_numerics_fully_masked_rows(const hr_kernel *k, const hr_problem *p)
{
    if (!p->causal || p->seq_q <= p->seq_kv) return;
    for (int lay = 0; lay < 2; lay++) {
        hr_tensors ts;
        if (hr_tensors_alloc(&ts, p, (hr_layout)lay, HR_DIST_NORMAL, 3)) {
            CHECK(!"alloc");
            continue;
        }
        run(k, p, &ts, 0);
        long masked_bad, nf = nonfinite_out(p, ts.args.o, &masked_bad);
        hr_check c = hr_oracle_check(p, &ts.args, 0);
        CHECKF(nf == 0 && masked_bad == 0 && c.verdict == HR_CHECK_PASS,
               "%s Nq %d > Nkv %d %s: %ld NaN/inf, %ld masked nonzero, %s", k->name, p->seq_q,
               p->seq_kv, hr_layout_names[lay], nf, masked_bad, hr_check_names[c.verdict]);
        hr_tensors_free(&ts);
    }
}

HR_TEST(numerics_fully_masked_rows) { each_kernel_shape(case_numerics_fully_masked_rows); }

/* Denormal inputs: all of Q, K, V at 1e-40f gives O = 1e-40 exactly in real arithmetic
 * (a kernel that flushes denormals may give 0, but never NaN, inf or a sign change);
 * denormal Q and K with normal V give logits ~0, a uniform softmax, oracle pass. */
static void case_numerics_denormal_inputs(const hr_kernel *k, const hr_problem *p)
{
    const float tiny = 1e-40f;
    CHECK(tiny > 0 && !isnormal(tiny));
    hr_tensors ts;
    if (hr_tensors_alloc(&ts, p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 9)) {
        CHECK(!"alloc");
        return;
    }
    fill_const(ts.q, p->batch, p->heads, p->seq_q, p->d_head, tiny);
    fill_const(ts.k, p->batch, p->kv_heads, p->seq_kv, p->d_head, tiny);
    run(k, p, &ts, 0);
    hr_check c = hr_oracle_check(p, &ts.args, 0);
    CHECKF(c.nonfinite == 0 && c.masked_nonzero == 0 && c.verdict == HR_CHECK_PASS,
           "%s denormal Q,K: %s", k->name, hr_check_names[c.verdict]);
    fill_const(ts.v, p->batch, p->kv_heads, p->seq_kv, p->d_head, tiny);
    run(k, p, &ts, 0);
    long masked_bad, nf = nonfinite_out(p, ts.args.o, &masked_bad), bad = 0;
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++) {
                if (hr_causal_end(p, i) == 0) continue;
                const float *o = hr_row(ts.args.o, b, h, i);
                for (int x = 0; x < p->d_head; x++) bad += !(o[x] >= 0 && o[x] <= 2 * tiny);
            }
    CHECKF(nf == 0 && masked_bad == 0 && bad == 0,
           "%s denormal Q,K,V: %ld NaN/inf, %ld masked nonzero, %ld outside [0, 2e-40]",
           k->name, nf, masked_bad, bad);
    hr_tensors_free(&ts);
}

HR_TEST(numerics_denormal_inputs) { each_kernel_shape(case_numerics_denormal_inputs); }

/* A NaN or inf planted in the input is reported as such by the check (what run --check
 * and headroom check print), not as a vague mismatch, whatever the kernel makes of it. */
static void case_numerics_nonfinite_input_reported(const hr_kernel *k, const hr_problem *p)
{
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (int w = 0; w < 3; w++) {
        hr_tensors ts;
        if (hr_tensors_alloc(&ts, p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 2)) {
            CHECK(!"alloc");
            continue;
        }
        /* One value in Q, K or V (rotating), in the last visible row of the last head. */
        hr_view tgt = w == 0 ? ts.q : w == 1 ? ts.k : ts.v;
        int heads = w == 0 ? p->heads : p->kv_heads, rows = w == 0 ? p->seq_q : p->seq_kv;
        hr_row(tgt, p->batch - 1, heads - 1, rows - 1)[p->d_head / 2] = bad[w];
        run(k, p, &ts, 0);
        hr_check c = hr_oracle_check(p, &ts.args, 0);
        char msg[256];
        hr_check_str(&c, msg, sizeof msg);
        CHECKF(c.verdict == HR_CHECK_FAIL && c.input_nonfinite == 1 &&
                   strstr(msg, "the input contains 1 NaN/inf values"),
               "%s: %g planted in %c: '%s'", k->name, bad[w], "QKV"[w], msg);
        hr_tensors_free(&ts);
    }
}

HR_TEST(numerics_nonfinite_input_reported) { each_kernel_shape(case_numerics_nonfinite_input_reported); }

/* Determinism: at a fixed thread count every kernel's output is bitwise the same run to
 * run; across 1..4 threads (oversubscribed on small machines) every output passes the
 * oracle and differs from the 1-thread output by at most the pass tolerance. */
HR_TEST(numerics_determinism)
{
    static const hr_problem dshapes[] = {
        {.batch = 2, .heads = 4, .kv_heads = 2, .seq_q = 67, .seq_kv = 67, .d_head = 32, .causal = true},
        {.batch = 1, .heads = 8, .kv_heads = 2, .seq_q = 3, .seq_kv = 1000, .d_head = 64, .causal = true},
        {.batch = 1, .heads = 3, .kv_heads = 1, .seq_q = 5, .seq_kv = 129, .d_head = 80},
    };
    for (int ki = 0; hr_kernels[ki]; ki++) {
        const hr_kernel *k = hr_kernels[ki];
        int maxt = (k->caps & HR_CAP_THREADED) ? 4 : 1, ran = 0;
        for (size_t s = 0; s < sizeof dshapes / sizeof dshapes[0]; s++) {
            const hr_problem *p = &dshapes[s];
            if (!usable(k, p)) continue;
            ran++;
            hr_tensors ts;
            if (hr_tensors_alloc(&ts, p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 21)) {
                CHECK(!"alloc");
                continue;
            }
            size_t n = (size_t)p->batch * p->heads * p->seq_q * p->d_head; /* dense BHND */
            float *first = malloc(n * sizeof *first), *one = malloc(n * sizeof *one);
            char buf[96];
            hr_problem_str(p, buf, sizeof buf);
            for (int t = 1; t <= maxt && first && one; t++) {
                run(k, p, &ts, t);
                memcpy(first, ts.args.o.p, n * sizeof *first);
                run(k, p, &ts, t);
                CHECKF(!memcmp(first, ts.args.o.p, n * sizeof *first),
                       "%s %s T%d: two runs differ bitwise", k->name, buf, t);
                hr_check c = hr_oracle_check(p, &ts.args, 0);
                CHECKF(c.verdict == HR_CHECK_PASS, "%s %s T%d: %s (max_rel %.3g)", k->name, buf, t,
                       hr_check_names[c.verdict], c.max_rel_err);
                if (t == 1) {
                    memcpy(one, first, n * sizeof *one);
                    continue;
                }
                double dmax = 0, omax = 0;
                for (size_t x = 0; x < n; x++) {
                    dmax = fmax(dmax, fabs((double)first[x] - one[x]));
                    omax = fmax(omax, fabs((double)one[x]));
                }
                CHECKF(dmax <= c.tol_pass * omax, "%s %s: T%d vs T1 differ by %.3g > %.3g", k->name,
                       buf, t, dmax, c.tol_pass * omax);
            }
            free(first);
            free(one);
            hr_tensors_free(&ts);
        }
        CHECKF(ran > 0, "%s accepts none of the determinism shapes", k->name);
    }
}

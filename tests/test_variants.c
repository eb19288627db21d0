/* test_variants.c — the attention variants (window, soft cap, ALiBi): the oracle tells them
 * from plain attention, the counts count visible pairs, ALiBi's slopes follow the paper and
 * ggml, the window's edges, and every key that names a problem (wisdom, sweep) tells them
 * apart; files from before them read as plain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "config.h"
#include "counts.h"
#include "files.h"
#include "inputs.h"
#include "isa.h"
#include "layer.h"
#include "oracle.h"
#include "results.h"
#include "sweep_points.h"
#include "t.h"
#include "wisdom.h"

/* Writes the oracle's output of `as` into t's O, then judges it as v's output. */
static int judge_as(const hr_problem *as, const hr_problem *v, hr_tensors *t)
{
    double out[64];
    for (int b = 0; b < as->batch; b++)
        for (int h = 0; h < as->heads; h++)
            for (int i = 0; i < as->seq_q; i++) {
                hr_oracle_row(as, &t->args, b, h, i, out, NULL);
                float *o = hr_row(t->args.o, b, h, i);
                for (int c = 0; c < as->d_head; c++) o[c] = (float)out[c];
            }
    return hr_oracle_check(v, &t->args, 0).verdict;
}

/* A plain output fails each variant's oracle, and passes its own. */
HR_TEST(variants_oracle_discriminates)
{
    const hr_problem plain = {1, 4, 2, 24, 40, 16, true, 0, HR_F32, HR_F32, 0, 0, 0};
    hr_problem vs[4] = {plain, plain, plain, plain};
    vs[0].window = 9;
    vs[1].softcap = 0.5f; /* normal inputs' scores are ~1: a cap of 0.5 bites */
    vs[2].alibi = 8;
    vs[3].window = 9, vs[3].softcap = 50, vs[3].alibi = 8;
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &plain, HR_LAYOUT_BHND, HR_DIST_NORMAL, 3) == HR_OK);
    for (int i = 0; i < 4; i++) {
        CHECKF(judge_as(&vs[i], &vs[i], &t) == HR_CHECK_PASS, "variant %d: its own output", i);
        CHECKF(judge_as(&plain, &vs[i], &t) == HR_CHECK_FAIL, "variant %d: the plain output passed", i);
        CHECKF(judge_as(&vs[i], &plain, &t) == HR_CHECK_FAIL, "variant %d: passed as plain", i);
    }
    hr_tensors_free(&t);
}

/* hr_visible_pairs and hr_visible_keys against brute force over (i, j), Nq <, = and > Nkv. */
HR_TEST(variants_visible_pairs_brute_force)
{
    static const int NN[][2] = {{1, 1}, {1, 300}, {5, 37}, {64, 64}, {37, 5}, {17, 64}};
    static const int Ws[] = {1, 3, 7, 16, 64, 1000};
    for (size_t a = 0; a < sizeof NN / sizeof *NN; a++)
        for (size_t w = 0; w < sizeof Ws / sizeof *Ws; w++) {
            hr_problem p = {1, 1, 1, NN[a][0], NN[a][1], 8, true, 0, HR_F32, HR_F32, Ws[w], 0, 0};
            double n = 0;
            int lo = p.seq_kv, hi = -1;
            for (int i = 0; i < p.seq_q; i++) {
                const long ip = (long)i + p.seq_kv - p.seq_q; /* i' */
                for (int j = 0; j < p.seq_kv; j++)
                    if (j <= ip && j > ip - p.window) {
                        n++;
                        lo = j < lo ? j : lo, hi = j > hi ? j : hi;
                    }
            }
            CHECKF(hr_visible_pairs(&p) == n, "Nq %d Nkv %d W %d: %g pairs, brute force %g", p.seq_q, p.seq_kv,
                   p.window, hr_visible_pairs(&p), n);
            CHECKF(hr_visible_keys(&p) == (hi < 0 ? 0 : hi - lo + 1), "Nq %d Nkv %d W %d: keys", p.seq_q, p.seq_kv,
                   p.window);
            CHECK(hr_core_flops(&p) == 4.0 * p.d_head * n);
        }
    /* A decode row with a window reads W keys of its cache, not all of them. */
    hr_problem d = {1, 8, 8, 1, 8192, 128, true, 0, HR_F32, HR_F32, 4096, 0, 0};
    CHECK(hr_visible_keys(&d) == 4096 && hr_visible_pairs(&d) == 4096);
    d.window = 0;
    CHECK(hr_visible_keys(&d) == 8192);
}

/* ALiBi's slopes: 8 heads, max bias 8 -> 1/2, 1/4, ..., 1/256 (Press et al. 2022, §3); 12
 * heads: ggml's rule (ggml_compute_forward_alibi, llama.cpp), n = 8: m0 = 2^-1, m1 = 2^-0.5,
 * heads 0..7 m0^(h+1), heads 8..11 m1^(2(h-8)+1). */
HR_TEST(variants_alibi_slopes)
{
    hr_problem p = {1, 8, 8, 4, 4, 16, false, 0, HR_F32, HR_F32, 0, 0, 8};
    for (int h = 0; h < 8; h++) CHECK_NEAR(hr_alibi_slope(&p, h), 1.0 / (1 << (h + 1)), 1e-9);
    p.heads = p.kv_heads = 12;
    for (int h = 0; h < 8; h++) CHECK_NEAR(hr_alibi_slope(&p, h), pow(0.5, h + 1), 1e-9);
    for (int h = 8; h < 12; h++) CHECK_NEAR(hr_alibi_slope(&p, h), pow(sqrt(0.5), 2 * (h - 8) + 1), 1e-7);
    p.alibi = 0;
    CHECK(hr_alibi_slope(&p, 3) == 0);
}

/* hr_window_begin: keys [begin, end) of row i are visible; no window: 0. */
HR_TEST(variants_window_begin_edges)
{
    hr_problem p = {1, 1, 1, 10, 10, 8, true, 0, HR_F32, HR_F32, 3, 0, 0};
    CHECK(hr_window_begin(&p, 0) == 0 && hr_window_begin(&p, 2) == 0 && hr_window_begin(&p, 3) == 1);
    CHECK(hr_window_begin(&p, 9) == 7 && hr_causal_end(&p, 9) == 10); /* keys 7, 8, 9 */
    p.window = 1; /* a row sees only its own key */
    CHECK(hr_window_begin(&p, 5) == 5 && hr_causal_end(&p, 5) == 6);
    p.window = 10; /* W = Nkv, and beyond: causal */
    CHECK(hr_window_begin(&p, 9) == 0);
    p.window = 11;
    CHECK(hr_window_begin(&p, 9) == 0);
    p.window = 0;
    CHECK(hr_window_begin(&p, 9) == 0);
    /* Decode: one row against 100 keys, bottom-right: keys 90..99. */
    hr_problem d = {1, 1, 1, 1, 100, 8, true, 0, HR_F32, HR_F32, 10, 0, 0};
    CHECK(hr_window_begin(&d, 0) == 90 && hr_causal_end(&d, 0) == 100);
    /* Nq > Nkv: leading rows see nothing; row 9 of 10 against 5 keys sees keys 3, 4. */
    hr_problem e = {1, 1, 1, 10, 5, 8, true, 0, HR_F32, HR_F32, 2, 0, 0};
    CHECK(hr_causal_end(&e, 0) == 0 && hr_window_begin(&e, 0) == 0);
    CHECK(hr_window_begin(&e, 9) == 3 && hr_causal_end(&e, 9) == 5);
}

/* The wisdom class and a sweep point's name and key tell a variant from plain. */
HR_TEST(variants_keys_distinguish)
{
    const hr_kernel *k = hr_kernel_find("naive");
    CHECK(k != NULL);
    if (!k) return;
    hr_problem p = {1, 8, 8, 4096, 4096, 64, true, 0, HR_F32, HR_F32, 0, 0, 0}, w = p;
    w.window = 1024, w.softcap = 50;
    char a[160], b[160];
    hr_shape_class ca = hr_shape_class_of(k, &p), cb = hr_shape_class_of(k, &w);
    hr_shape_class_key(&ca, a, sizeof a);
    hr_shape_class_key(&cb, b, sizeof b);
    CHECKF(!strcmp(a, "naive/causal/d64/g1/nq4096/nkv4096/bh8"), "%s", a);
    CHECKF(!strcmp(b, "naive/causal/w1024/cap50/d64/g1/nq4096/nkv4096/bh8"), "%s", b);
    hr_result r = {.kernel = k, .prob = w, .tune = {0, 0, 1}};
    hr_sweep_key(&r, 1, a, sizeof a);
    CHECKF(strstr(a, "/causal/w1024/cap50/") != NULL, "%s", a);
}

/* window, softcap and alibi axes: the product, the points' problems, a plain kernel's
 * variant points refused with the reason, and a window on a full point refused. */
HR_TEST(variants_sweep_axes)
{
    hr_sweep_config c;
    CHECK(hr_config_parse("[sweep]\nkernels = naive, blocked\nseq = 64\ncausal = true, false\nwindow = 0, 7\n"
                          "softcap = 0, 50\nalibi = 0, 8\n", "t.ini", &c) == HR_OK);
    CHECK(c.window.n == 2 && c.nsoftcap == 2 && c.nalibi == 2 && c.softcap[1] == 50 && c.alibi[1] == 8);
    CHECK(hr_config_points(&c) == 2 * 2 * 8);
    hr_sweep_point *pts;
    int n, ndup;
    CHECK(hr_sweep_expand(&c, NULL, 0, &pts, &n, &ndup) == HR_OK);
    int measured = 0, no_cap = 0, not_causal = 0;
    for (int i = 0; i < n; i++) {
        const hr_problem *q = &pts[i].prob;
        if (!pts[i].skip[0]) {
            measured++;
            CHECKF(!strcmp(pts[i].kernel->name, "naive") || hr_problem_plain(q), "%s", pts[i].name);
        }
        no_cap += strstr(pts[i].skip, "capability '") != NULL && !strstr(pts[i].skip, "causal");
        not_causal += strstr(pts[i].skip, "--window: a sliding window is causal") != NULL;
    }
    /* naive: 8 causal variant sets + 4 full ones without a window; blocked (no variants): the
     * plain two, its other causal points (7) and full ones without a window (3) refused for
     * a capability. */
    CHECKF(measured == 12 + 2, "%d measured", measured);
    CHECKF(not_causal == 2 * 4, "%d refused as not causal", not_causal);
    CHECKF(no_cap == 10, "%d refused for a capability", no_cap);
    free(pts);
    static const char *const bad[] = {"window = -1\n", "window = 1, x\n", "softcap = -2\n", "alibi = 1e9\n",
                                      "softcap = 5,,6\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[96];
        snprintf(text, sizeof text, "[sweep]\n%s", bad[i]);
        CHECKF(hr_config_parse(text, "t.ini", &c) == HR_EUSAGE, "%s", bad[i]);
    }
}

/* The variant battery: each variant's cases carry it, windows on both sides of Nkv. */
HR_TEST(variants_check_battery)
{
    static hr_case cs[HR_MAX_CASES];
    int n = hr_variant_battery(cs, HR_MAX_CASES, HR_CAP_WINDOW, NULL), below = 0, equal = 0, above = 0;
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        const hr_problem *p = &cs[i].prob;
        CHECK(p->window > 0 && p->causal && hr_problem_validate(p) == HR_OK);
        below += p->window < p->seq_kv, equal += p->window == p->seq_kv, above += p->window > p->seq_kv;
    }
    CHECK(below && equal && above);
    n = hr_variant_battery(cs, HR_MAX_CASES, HR_CAP_ALIBI, NULL);
    int npow2 = 0;
    for (int i = 0; i < n; i++) npow2 += cs[i].prob.alibi > 0 && (cs[i].prob.heads & (cs[i].prob.heads - 1));
    CHECK(n > 0 && npow2 > 0);
    const hr_problem fixed = {.window = 5, .softcap = 3};
    n = hr_variant_battery(cs, HR_MAX_CASES, HR_CAP_WINDOW | HR_CAP_SOFTCAP, &fixed);
    for (int i = 0; i < n; i++) CHECK(cs[i].prob.window == 5 && cs[i].prob.softcap == 3 && cs[i].prob.causal);
}

/* A row with the variants reads them back (rows from before them read as plain:
 * test_typed_io.c's typed_results_from_before_types_read_as_f32). */
HR_TEST(variants_results_read_back)
{
    cJSON *o = cJSON_Parse("{\"kernel\":\"naive\",\"batch\":1,\"heads\":2,\"kv_heads\":2,\"seq_q\":8,\"seq_kv\":8,"
                           "\"d_head\":8,\"causal\":true,\"layout\":\"bhnd\",\"window\":4,\"softcap\":50,\"alibi\":8}");
    CHECK(o != NULL);
    hr_result r;
    if (o && hr_result_from_json(o, &r) == HR_OK) CHECK(r.prob.window == 4 && r.prob.softcap == 50 && r.prob.alibi == 8);
    cJSON_Delete(o);
}

/* Every registered kernel on each variant battery, on every ISA level this CPU runs: one
 * that declares the variants passes, one that does not is refused every case (-1), never
 * run on a problem it would get wrong. */
HR_TEST(variants_every_kernel_battery)
{
    static hr_case cs[HR_MAX_CASES];
    static const unsigned sets[] = {HR_CAP_WINDOW, HR_CAP_SOFTCAP, HR_CAP_ALIBI,
                                    HR_CAP_WINDOW | HR_CAP_SOFTCAP | HR_CAP_ALIBI};
    const char *was = hr_isa;
    for (int l = 0; l < hr_isa_count(); l++) {
        if (hr_isa_lacks(hr_isa_at(l))) continue;
        CHECK(hr_isa_select(hr_isa_at(l)->name) == HR_OK);
        for (size_t s = 0; s < sizeof sets / sizeof *sets; s++) {
            const int n = hr_variant_battery(cs, HR_MAX_CASES, sets[s], NULL);
            for (int i = 0; hr_kernels[i]; i++) {
                const hr_kernel *k = hr_kernels[i];
                for (int c = 0; c < n; c++) {
                    hr_check res;
                    char line[640];
                    const int v = hr_check_case(k, &cs[c], NULL, 1, &res, line, sizeof line);
                    if ((k->caps & sets[s]) != sets[s]) CHECKF(v == -1, "[%s] %s ran a variant it lacks", hr_isa, k->name);
                    else CHECKF(v != HR_CHECK_FAIL && v != HR_CHECK_ERROR, "[%s] %s", hr_isa, line);
                }
            }
        }
    }
    CHECK(hr_isa_select(was) == HR_OK);
}

/* The layer's FLOP crossover with a sliding window: a core of N·W pairs never overtakes
 * projections that grow as N when W is small; a window past the crossover is causal. */
HR_TEST(variants_layer_crossover_window)
{
    const double causal = hr_layer_flops_crossover(512, 8, 8, 64, true, 0);
    CHECK(isfinite(causal) && causal > 0);
    CHECK(isinf(hr_layer_flops_crossover(512, 8, 8, 64, true, 16)));
    CHECK_NEAR(hr_layer_flops_crossover(512, 8, 8, 64, true, 1 << 20), causal, 1e-9);
}

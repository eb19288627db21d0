/* test_typed.c — the element-type plumbing end to end with a test-only kernel that
 * declares bf16/f16 Q/K/V/O and f16/bf16/q8_0/q4_0 caches: typed tensors, the oracle's
 * two distances and their tolerances, hr_bench_run with --check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "counts.h"
#include "inputs.h"
#include "t.h"

/* ---- the test kernel: naive attention over typed operands ------------------------ */

static int bug; /* 1: drops the last visible key of every row (the checks must fail) */

static size_t typed_ws(const hr_problem *p, const hr_tune *t)
{
    (void)t;
    return sizeof(float) * (4 * (size_t)p->d_head + (size_t)p->seq_kv);
}

/* Row n of a [B][H][N][d] operand: from the typed view when its type is not f32. */
static const float *load(hr_dtype t, hr_cview f, hr_xcview x, int b, int h, int n, int d, float *buf)
{
    if (t == HR_F32) return hr_crow(f, b, h, n);
    hr_dtype_load_row(t, hr_xcrow(x, b, h, n), buf, d);
    return buf;
}

static int typed_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    (void)t;
    const int d = p->d_head, group = hr_group(p);
    float *qb = ws, *kb = qb + d, *vb = kb + d, *acc = vb + d, *s = acc + d;
    const float scale = hr_problem_scale(p);
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++) {
                const int g = h / group, end = hr_causal_end(p, i) - (bug && hr_causal_end(p, i) > 1);
                const float *q = load(p->dtype, a->q, a->xq, b, h, i, d, qb);
                float m = -INFINITY, l = 0;
                for (int j = 0; j < end; j++) {
                    const float *k = load(p->kv_dtype, a->k, a->xk, b, g, j, d, kb);
                    float x = 0;
                    for (int c = 0; c < d; c++) x += q[c] * k[c];
                    s[j] = x * scale;
                    m = s[j] > m ? s[j] : m;
                }
                for (int c = 0; c < d; c++) acc[c] = 0;
                for (int j = 0; j < end; j++) {
                    float w = expf(s[j] - m);
                    l += w;
                    /* A bf16 cache: P rounded to bf16 as a vdpbf16ps P·V would. */
                    if (p->kv_dtype == HR_BF16) w = hr_bf16_to_f32(hr_f32_to_bf16(w));
                    const float *v = load(p->kv_dtype, a->v, a->xv, b, g, j, d, vb);
                    for (int c = 0; c < d; c++) acc[c] += w * v[c];
                }
                for (int c = 0; c < d; c++) acc[c] = end > 0 ? acc[c] / l : 0.0f;
                if (p->dtype == HR_F32) memcpy(hr_row(a->o, b, h, i), acc, sizeof(float) * (size_t)d);
                else hr_dtype_store_row(p->dtype, acc, hr_xrow(a->xo, b, h, i), d);
            }
    return HR_OK;
}

static const char *typed_path(const hr_problem *p) { return p->dtype == HR_F32 ? "scalar f32" : "scalar convert"; }

static const hr_kernel typed = {
    .name = "typed",
    .summary = "test only: naive attention reading typed operands through hr_dtype_load_row",
    .caps = HR_CAP_CAUSAL | HR_CAP_GQA,
    .traffic = HR_TRAFFIC_KV_PER_HEAD,
    .workspace_bytes = typed_ws,
    .run = typed_run,
    .dtypes = 1u << HR_F32 | 1u << HR_BF16 | 1u << HR_F16,
    .kv_dtypes = (1u << HR_NDTYPES) - 1,
    .path = typed_path,
};

/* ---- typed tensors ----------------------------------------------------------------- */

/* Largest |x - y| / scale over a [B][H][N][d] pair of views, scale the row's max |y|
 * (block formats) or |y| itself (float types). */
static double view_diff(hr_cview x, hr_cview y, int B, int H, int N, int d, bool per_row)
{
    double worst = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int n = 0; n < N; n++) {
                const float *u = hr_crow(x, b, h, n), *v = hr_crow(y, b, h, n);
                double amax = 0;
                for (int c = 0; c < d; c++) amax = fmax(amax, fabs(v[c]));
                for (int c = 0; c < d; c++) {
                    double den = per_row ? amax : fabs(v[c]);
                    if (den > 0) worst = fmax(worst, fabs((double)u[c] - v[c]) / den);
                }
            }
    return worst;
}

/* The fp32 views hold what the typed rows hold (exactly), close to the original values
 * by the type's rounding; the same seed draws the same values whatever the types. */
HR_TEST(typed_tensors_hold_the_dequantized_values)
{
    /* Relative bound per element (float types) or per row max (block types). */
    const double bound[HR_NDTYPES] = {0, 0x1p-8, 0x1p-11, 1.0 / 127, 1.0 / 8};
    for (int lay = 0; lay < 2; lay++)
        for (int dt = 0; dt < 3; dt++)
            for (int kt = 0; kt < HR_NDTYPES; kt++) {
                hr_problem p = {2, 4, 2, 5, 7, 64, false, 0, (hr_dtype)dt, (hr_dtype)kt};
                hr_problem p32 = p;
                p32.dtype = p32.kv_dtype = HR_F32;
                hr_tensors t, o;
                CHECK(hr_tensors_alloc(&t, &p, (hr_layout)lay, HR_DIST_NORMAL, 3) == HR_OK);
                CHECK(hr_tensors_alloc(&o, &p32, (hr_layout)lay, HR_DIST_NORMAL, 3) == HR_OK);
                CHECK(t.bytes == (size_t)hr_tensors_bytes(&p));
                CHECK((dt || kt) ? hr_tensors_bytes(&p) > hr_tensors_bytes(&p32) : t.xmem == NULL);
                float row[64];
                int exact = 1;
                for (int b = 0; b < 2; b++)
                    for (int g = 0; g < 2; g++)
                        for (int n = 0; n < 7; n++) {
                            if (kt) {
                                hr_dtype_load_row((hr_dtype)kt, hr_xcrow(t.args.xk, b, g, n), row, 64);
                                exact &= !memcmp(row, hr_crow(t.args.k, b, g, n), sizeof row);
                                hr_dtype_load_row((hr_dtype)kt, hr_xcrow(t.args.xv, b, g, n), row, 64);
                                exact &= !memcmp(row, hr_crow(t.args.v, b, g, n), sizeof row);
                            }
                            if (dt && n < 5) {
                                hr_dtype_load_row((hr_dtype)dt, hr_xcrow(t.args.xq, b, 2 * g, n), row, 64);
                                exact &= !memcmp(row, hr_crow(t.args.q, b, 2 * g, n), sizeof row);
                            }
                        }
                CHECKF(exact, "dt %d kt %d layout %d: an fp32 view differs from its typed rows", dt, kt, lay);
                double eq = view_diff(t.args.q, o.args.q, 2, 4, 5, 64, false);
                double ek = view_diff(t.args.k, o.args.k, 2, 2, 7, 64, kt >= HR_Q8_0);
                double ev = view_diff(t.args.v, o.args.v, 2, 2, 7, 64, kt >= HR_Q8_0);
                CHECKF(eq <= bound[dt] * 1.0001 && (dt == 0 ? eq == 0 : eq > 0), "dt %d: Q off by %g", dt, eq);
                CHECKF(ek <= bound[kt] * 1.01 && ev <= bound[kt] * 1.01 && (kt == 0) == (ek == 0),
                       "kt %d: K off by %g, V by %g", kt, ek, ev);
                hr_tensors_free(&t);
                hr_tensors_free(&o);
            }
}

/* A typed O: the kernel writes xo; hr_tensors_output brings it into o; poison reaches both. */
HR_TEST(typed_output_and_poison)
{
    hr_problem p = {1, 2, 2, 3, 3, 32, false, 0, HR_BF16, HR_BF16};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 1) == HR_OK);
    hr_tensors_poison(&p, &t.args, 12345.0f);
    CHECK(hr_row(t.args.o, 0, 1, 2)[31] == 12345.0f);
    float row[32];
    hr_dtype_load_row(HR_BF16, hr_xrow(t.args.xo, 0, 1, 2), row, 32);
    CHECK(row[0] == 12352.0f); /* 12345 in bf16: 8 significant bits, rounded up */
    for (int c = 0; c < 32; c++) row[c] = 1.0f + c * 0x1p-10f;
    hr_dtype_store_row(HR_BF16, row, hr_xrow(t.args.xo, 0, 1, 2), 32);
    hr_tensors_output(&p, &t.args);
    CHECK(hr_row(t.args.o, 0, 1, 2)[1] == 1.0f);             /* 1 + 2^-10 rounds to 1 */
    CHECK(hr_row(t.args.o, 0, 1, 2)[4] == 1.0f);             /* 1 + 2^-8: tie to even */
    CHECK(hr_row(t.args.o, 0, 1, 2)[8] == 1.0f + 0x1p-7f);   /* exact in bf16 */
    CHECK(hr_row(t.args.o, 0, 1, 2)[12] == 1.0f + 0x1p-6f);  /* 1 + 1.5 * 2^-7: tie to even, up */
    hr_tensors_free(&t);
}

/* ---- the oracle's two distances ---------------------------------------------------- */

/* Every type combination the kernel declares passes the quick battery (a P rounded to
 * bf16 included); a kernel that drops a key fails for every one. */
HR_TEST(typed_kernel_passes_battery_for_every_type)
{
    static hr_case cases[HR_MAX_CASES];
    int n = hr_battery(cases, HR_MAX_CASES, true);
    for (int dt = 0; dt < 3; dt++)
        for (int kt = 0; kt < HR_NDTYPES; kt++) {
            int ran = 0, bad = 0, failed_bug = 0;
            char first[640] = "";
            for (int c = 0; c < n; c += 4) { /* every fourth case: the battery rotates its features */
                hr_case cs = cases[c];
                cs.prob.dtype = (hr_dtype)dt;
                cs.prob.kv_dtype = (hr_dtype)kt;
                if (cs.prob.seq_q * (double)cs.prob.seq_kv * cs.prob.heads > 40000) continue; /* the naive kernel is slow */
                hr_check r;
                char line[640];
                int v = hr_check_case(&typed, &cs, NULL, 1, &r, line, sizeof line);
                if (v < 0) continue;
                ran++;
                if (v == HR_CHECK_FAIL && !bad++) snprintf(first, sizeof first, "%s", line);
                if ((dt || kt) && !strstr(line, "format max_rel")) bad++;
                bug = 1;
                failed_bug += hr_check_case(&typed, &cs, NULL, 1, &r, line, sizeof line) == HR_CHECK_FAIL;
                bug = 0;
            }
            CHECKF(ran >= 8, "dt %d kt %d: only %d cases ran", dt, kt, ran);
            CHECKF(!bad, "dt %d kt %d: %d bad cases, first: %s", dt, kt, bad, first);
            CHECKF(failed_bug >= ran / 2, "dt %d kt %d: the dropped key failed only %d of %d cases", dt, kt,
                   failed_bug, ran);
        }
}

/* One case by hand: the kernel's error is fp32-small for every cache type (the oracle ran
 * on what the kernel was given), the format's error grows as the cache shrinks, and the
 * tolerance terms are those oracle.h documents. */
HR_TEST(typed_format_error_orders_the_types)
{
    hr_case cs = {{1, 4, 2, 9, 64, 64, true, 0, HR_F32, HR_F32}, HR_LAYOUT_BHND, HR_DIST_NORMAL};
    double fmt[HR_NDTYPES], kern[HR_NDTYPES];
    for (int kt = 0; kt < HR_NDTYPES; kt++) {
        cs.prob.kv_dtype = (hr_dtype)kt;
        hr_tensors t;
        CHECK(hr_tensors_alloc(&t, &cs.prob, cs.layout, cs.dist, 5) == HR_OK);
        void *ws = malloc(typed_ws(&cs.prob, NULL));
        typed.run(&cs.prob, &(hr_tune){0}, &t.args, ws);
        hr_tensors_output(&cs.prob, &t.args);
        hr_check k = hr_oracle_check(&cs.prob, &t.args, 0), f;
        CHECK(hr_format_check(&cs.prob, &t.args, cs.layout, cs.dist, 5, &f) == HR_OK);
        CHECKF(k.verdict == HR_CHECK_PASS, "kv %s: kernel error %g (pass %g)", hr_dtype_names[kt], k.max_rel_err, k.tol_pass);
        kern[kt] = k.max_rel_err, fmt[kt] = f.max_rel_err;
        free(ws);
        hr_tensors_free(&t);
    }
    CHECKF(fmt[HR_F32] == kern[HR_F32], "f32: format %g, kernel %g", fmt[HR_F32], kern[HR_F32]);
    CHECKF(fmt[HR_F16] < fmt[HR_BF16] && fmt[HR_BF16] < fmt[HR_Q8_0] && fmt[HR_Q8_0] < fmt[HR_Q4_0],
           "format errors f16 %g bf16 %g q8_0 %g q4_0 %g", fmt[HR_F16], fmt[HR_BF16], fmt[HR_Q8_0], fmt[HR_Q4_0]);
    CHECKF(kern[HR_Q4_0] < 1e-5 && fmt[HR_Q4_0] > 1e-2, "q4_0: kernel %g, format %g", kern[HR_Q4_0], fmt[HR_Q4_0]);
    hr_problem p = cs.prob;
    p.dtype = p.kv_dtype = HR_BF16;
    CHECK(hr_tol_out(&p) == 0x1p-8 && hr_tol_pv(&p) == 0x1p-8);
    p.dtype = p.kv_dtype = HR_F16;
    CHECK(hr_tol_out(&p) == 0x1p-11 && hr_tol_pv(&p) == 0x1p-11);
    p.dtype = HR_F32, p.kv_dtype = HR_Q4_0;
    CHECK(hr_tol_out(&p) == 0 && hr_tol_pv(&p) == 0);
    p.dtype = HR_BF16;
    CHECK(hr_tol_out(&p) == 0x1p-8 && hr_tol_pv(&p) == 0x1p-8);
    p.dtype = HR_F32, p.kv_dtype = HR_F16;
    CHECK(hr_tol_out(&p) == 0 && hr_tol_pv(&p) == 0x1p-11);
    p.kv_dtype = HR_F32;
    CHECK(hr_tol_out(&p) == 0 && hr_tol_pv(&p) == 0);
}

/* A bf16 O off by 3% fails: the bf16 tolerance is not so loose that anything passes. */
HR_TEST(typed_tolerance_is_tight_enough)
{
    hr_problem p = {1, 2, 2, 32, 32, 64, false, 0, HR_BF16, HR_BF16};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 2) == HR_OK);
    void *ws = malloc(typed_ws(&p, NULL));
    typed.run(&p, &(hr_tune){0}, &t.args, ws);
    hr_tensors_output(&p, &t.args);
    hr_check c = hr_oracle_check(&p, &t.args, 0);
    CHECKF(c.verdict == HR_CHECK_PASS, "max_rel %g pass %g", c.max_rel_err, c.tol_pass);
    CHECKF(c.tol_pass > 0x1p-8 && c.tol_pass < 0.03, "bf16 pass tolerance %g", c.tol_pass);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 32; i++) hr_row(t.args.o, 0, h, i)[5] *= 1.3f;
    c = hr_oracle_check(&p, &t.args, 0);
    CHECKF(c.verdict == HR_CHECK_FAIL, "30%% off: %s (max_rel %g, warn %g)", hr_check_names[c.verdict],
           c.max_rel_err, c.tol_warn);
    free(ws);
    hr_tensors_free(&t);
}

/* ---- bench: counts, names, path, both numbers -------------------------------------- */

HR_TEST(typed_bench_run_records_types_and_both_errors)
{
    hr_bench_spec s = {
        .prob = {1, 4, 2, 16, 32, 64, true, 0, HR_BF16, HR_Q8_0},
        .layout = HR_LAYOUT_BNHD,
        .dist = HR_DIST_NORMAL,
        .seed = 4,
        .timer = {.reps = 2, .min_time = 1e-4, .warmup = 0},
        .check = true,
    };
    hr_result r;
    CHECK(hr_bench_run(&typed, &s, &r) == HR_OK);
    char name[256];
    hr_result_name(&r, name, sizeof name);
    CHECKF(!strcmp(name, "typed/B1/H4/G2/N16/M32/d64/bf16/kv=q8_0/causal/bnhd/T1"), "name %s", name);
    CHECK(!strcmp(r.path, "scalar convert"));
    CHECK(r.checked && r.check.verdict == HR_CHECK_PASS);
    const double qo = 2.0 * 4 * 16 * 64 * 2, kv = 2.0 * 4 * 32 * 64 * 34 / 32; /* K/V per query head */
    CHECK_NEAR(r.bytes, qo + kv, 0);
    /* GB/s and AI count the bytes every kernel must read: K/V once per KV head (half). */
    double gbps = -1, ai = -1;
    for (int i = 0; i < r.ncounters; i++) {
        if (!strcmp(r.counters[i].name, "GBps")) gbps = r.counters[i].value;
        if (!strcmp(r.counters[i].name, "AI")) ai = r.counters[i].value;
    }
    CHECKF(fabs(gbps * r.timing.s.median * 1e9 - (qo + kv / 2)) < 1e-6 * (qo + kv), "GBps %g, median %g", gbps,
           r.timing.s.median);
    CHECK_NEAR(ai, r.flops / (qo + kv / 2), 1e-12 * ai);
    double fmt = -1;
    for (int i = 0; i < r.ncounters; i++)
        if (!strcmp(r.counters[i].name, "format_max_rel")) fmt = r.counters[i].value;
    CHECKF(fmt > 1e-3 && fmt < 0.1 && fmt > r.check.max_rel_err, "format_max_rel %g, kernel %g", fmt,
           r.check.max_rel_err);
    /* A kernel that cannot: the reason names the flag. */
    s.prob.kv_dtype = HR_Q4_0;
    s.prob.d_head = 48;
    CHECK(hr_bench_run(&typed, &s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--kv-dtype"));
    s.prob.d_head = 64;
    CHECK(hr_bench_run(hr_kernel_find("naive"), &s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--dtype"));
}

/* Bytes follow the stored types: q8_0 34 and q4_0 18 bytes per 32 values. */
HR_TEST(typed_counts_bytes_per_type)
{
    hr_problem p = {1, 8, 2, 1, 4096, 128, false, 0, HR_F32, HR_F32};
    const double qo = 2.0 * 8 * 128 * 4, kv32 = 2.0 * 2 * 4096 * 128 * 4;
    CHECK_NEAR(hr_min_bytes(&p), qo + kv32, 0);
    p.kv_dtype = HR_Q8_0;
    CHECK_NEAR(hr_min_bytes(&p), qo + kv32 / 4 * 34 / 32, 0);
    p.kv_dtype = HR_Q4_0;
    CHECK_NEAR(hr_min_bytes(&p), qo + kv32 / 4 * 18 / 32, 0);
    p.dtype = p.kv_dtype = HR_BF16;
    CHECK_NEAR(hr_min_bytes(&p), (qo + kv32) / 2, 0);
    CHECK_NEAR(hr_core_flops(&p), 4.0 * 8 * 128 * 4096, 0); /* FLOPs do not depend on types */
}

/* ---- decode-loop over a typed cache ------------------------------------------------ */

#include "decode_loop.h"
#include "kvcache.h"

/* The typed cache stores each appended row in its type; the loop's check reads it
 * dequantized (kernel error fp32-small) and reports the format's error beside it. */
HR_TEST(typed_decode_loop_over_typed_caches)
{
    for (int kt = 0; kt < HR_NDTYPES; kt++) {
        hr_decode_spec s = {.kernel = &typed, .batch = 1, .heads = 4, .kv_heads = 2, .d_head = 64,
                            .layers = 2, .prompt = 37, .tokens = 11, .dist = HR_DIST_NORMAL, .seed = 3,
                            .check = true, .dtype = kt == HR_F16 ? HR_F16 : HR_F32, .kv_dtype = (hr_dtype)kt};
        hr_decode_result r;
        CHECKF(hr_decode_loop(&s, &r) == HR_OK, "kv %s: %s", hr_dtype_names[kt], hr_errmsg());
        CHECKF(r.checked && r.check.verdict == HR_CHECK_PASS, "kv %s: max_rel %g (pass %g)", hr_dtype_names[kt],
               r.check.max_rel_err, r.check.tol_pass);
        CHECK(r.format_checked == (kt != HR_F32));
        if (kt >= HR_Q8_0) CHECKF(r.format.max_rel_err > 100 * r.check.max_rel_err, "kv %s: format %g kernel %g",
                                   hr_dtype_names[kt], r.format.max_rel_err, r.check.max_rel_err);
        CHECK_NEAR(r.cache_bytes, hr_kvcache_bytes_of((hr_dtype)kt, 2, 1, 2, 64, 48), 0);
        hr_decode_free(&r);
    }
    /* A typed cache has no fp32 rows to fill in place, and refuses a d off its blocks. */
    hr_kvcache c;
    hr_view k, v;
    CHECK(hr_kvcache_init_typed(&c, HR_Q4_0, 1, 1, 1, 48, 8, 0) == HR_EUSAGE && strstr(hr_errmsg(), "--kv-dtype"));
    CHECK(hr_kvcache_init_typed(&c, HR_Q4_0, 1, 1, 1, 64, 8, 0) == HR_OK);
    CHECK(hr_kvcache_extend(&c, 0, 1, &k, &v) == HR_EUSAGE);
    /* 8 rows of 36 bytes, each head's rows rounded up to a whole 16-key tile (hr_kvcache_set_tile) */
    CHECK(hr_kvcache_k(&c, 0).p == NULL && hr_kvcache_xk(&c, 0).p != NULL && c.bytes == 2 * 16 * 36);
    hr_kvcache_free(&c);
}

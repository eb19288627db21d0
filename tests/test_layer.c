/* test_layer.c — the full layer against its fp64 reference, spec validation, and the FLOP crossover. */
#include <string.h>

#include "counts.h"
#include "layer.h"
#include "t.h"

static hr_layer_spec spec(const char *kernel, int B, int N, int dm, int H, int G, int d, bool causal,
                          hr_gemm_backend gemm)
{
    return (hr_layer_spec){
        .batch = B, .seq = N, .d_model = dm, .heads = H, .kv_heads = G, .d_head = d,
        .causal = causal, .kernel = hr_kernel_find(kernel), .gemm = gemm, .threads = 2,
        .timer = {.reps = 1, .min_time = 0, .warmup = 0}, .seed = 3, .check = true,
    };
}

HR_TEST(layer_matches_fp64)
{
    static const struct {
        const char *k;
        int B, N, dm, H, G, d;
        bool causal;
    } cases[] = {
        {"naive", 1, 37, 64, 2, 2, 32, false},  {"flash", 2, 70, 128, 4, 4, 32, true},
        {"flash", 1, 129, 256, 4, 1, 64, false}, {"gqa", 1, 65, 256, 8, 2, 32, true},
        {"omp", 2, 33, 96, 3, 3, 32, false},     {"blas", 1, 100, 192, 6, 2, 32, true},
        {"naive", 1, 1, 64, 1, 1, 64, true},     /* one token */
        {"simd", 1, 64, 100, 2, 2, 50, false},   /* Hq·d = d_model, d not a vector multiple */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int g = 0; g < 2; g++) {
            if (!hr_kernel_find(cases[i].k) || !hr_gemm_available((hr_gemm_backend)g)) continue;
            hr_layer_spec s = spec(cases[i].k, cases[i].B, cases[i].N, cases[i].dm, cases[i].H,
                                   cases[i].G, cases[i].d, cases[i].causal, (hr_gemm_backend)g);
            hr_layer_result r;
            int st = hr_layer_bench(&s, &r);
            CHECKF(st == HR_OK && r.checked && r.check.verdict == HR_CHECK_PASS,
                   "layer %s gemm %s case %zu: status %d (%s), verdict %d, max_rel %.3g tol %.3g",
                   cases[i].k, hr_gemm_names[g], i, st, hr_errmsg(), r.check.verdict,
                   r.check.max_rel_err, r.check.tol_pass);
            CHECK(r.check.rows_checked > 0 && r.check.rows_checked <= r.check.rows_total);
            /* The phases' FLOPs are counts.c's, and every phase was timed. */
            CHECK(r.phase[HR_PHASE_QKV].flops == hr_proj_flops(s.batch, s.seq, s.d_model, s.heads, s.kv_heads, s.d_head));
            CHECK(r.phase[HR_PHASE_OUT].flops == hr_out_proj_flops(s.batch, s.seq, s.d_model, s.heads, s.d_head));
            CHECK(r.phase[HR_PHASE_CORE].flops == hr_core_flops(&r.prob));
            for (int ph = 0; ph < HR_NPHASES; ph++) CHECK(r.phase[ph].timing.reps == 1);
        }
}

/* A core that gets the math wrong (it drops the last visible key of every row): the
 * layer's check must catch it. */
static int broken_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    hr_problem q = *p;
    const hr_kernel *naive = hr_kernel_find("naive");
    q.seq_kv = p->seq_kv - 1; /* shorter cache: one key fewer for every row */
    q.causal = false;
    return naive->run(&q, t, a, ws);
}
static size_t broken_ws(const hr_problem *p, const hr_tune *t)
{
    return hr_kernel_find("naive")->workspace_bytes(p, t);
}
static const hr_kernel broken = {
    .name = "broken", .summary = "test double", .workspace_bytes = broken_ws, .run = broken_run,
};

HR_TEST(layer_check_catches_a_wrong_core)
{
    hr_layer_spec s = spec("naive", 1, 48, 64, 2, 2, 32, false, HR_GEMM_OWN);
    s.kernel = &broken;
    hr_layer_result r;
    CHECK(hr_layer_bench(&s, &r) == HR_EFAIL);
    CHECK(r.checked && r.check.verdict == HR_CHECK_FAIL);
    CHECK(strstr(hr_errmsg(), "fp64 check") != NULL);
}

/* Typed cores (--dtype, --kv-dtype): judged against the fp64 layer on the stored Q/K/V,
 * the format's error reported beside it; names carry the types. */
HR_TEST(layer_typed_matches_fp64)
{
    static const struct {
        const char *k;
        int N, dm, H, G, d;
        bool causal;
        hr_dtype dt, kt;
    } cases[] = {
        {"flash", 70, 128, 4, 4, 32, true, HR_BF16, HR_BF16},  {"gqa", 65, 256, 8, 2, 32, true, HR_BF16, HR_F16},
        {"flash", 33, 96, 2, 2, 48, false, HR_F16, HR_F16},    {"flash", 129, 256, 4, 1, 64, false, HR_F32, HR_BF16},
        {"gqa", 100, 512, 4, 2, 128, true, HR_BF16, HR_BF16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hr_layer_spec s = spec(cases[i].k, 1, cases[i].N, cases[i].dm, cases[i].H, cases[i].G, cases[i].d,
                               cases[i].causal, HR_GEMM_OWN);
        s.dtype = cases[i].dt, s.kv_dtype = cases[i].kt;
        hr_layer_result r;
        int st = hr_layer_bench(&s, &r);
        CHECKF(st == HR_OK && r.checked && r.check.verdict == HR_CHECK_PASS,
               "typed layer case %zu: status %d (%s), verdict %d, max_rel %.3g tol %.3g", i, st, hr_errmsg(),
               r.check.verdict, r.check.max_rel_err, r.check.tol_pass);
        /* Rounding Q/K/V (and O) to 8 or 11 bits costs something, never more than a few %. */
        CHECKF(r.check.format_max_rel > 0 && r.check.format_max_rel < 0.05, "case %zu: format error %.3g", i,
               r.check.format_max_rel);
        char name[256];
        hr_layer_name(&s, &r, name, sizeof name);
        CHECKF(strstr(name, cases[i].dt == HR_F32 ? "/kv=bf16/" : cases[i].dt == HR_BF16 ? "/bf16/" : "/f16/") != NULL,
               "case %zu: name %s", i, name);
    }
    hr_layer_spec s = spec("flash", 1, 40, 64, 2, 2, 32, false, HR_GEMM_OWN);
    hr_layer_result r;
    CHECK(hr_layer_bench(&s, &r) == HR_OK && r.check.format_max_rel == -1);
}

/* A typed core that drops the last visible key of every row, its O stored in bf16: the
 * types' allowance (the oracle's worst-case P·V rounding term carried through Wo) is
 * ~20x what bf16 rounding costs here, so a 1-in-48 error is no pass (a warning at least),
 * and one in 3 keys fails. */
static bool drop_many;
static int broken_typed_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    hr_problem q = *p;
    q.dtype = q.kv_dtype = HR_F32;
    if (drop_many) q.seq_kv -= q.seq_kv / 3 - 1; /* broken_run drops one more */
    int st = broken_run(&q, t, a, ws);
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int n = 0; n < p->seq_q; n++)
                hr_dtype_store_row(p->dtype, hr_row(a->o, b, h, n), hr_xrow(a->xo, b, h, n), p->d_head);
    return st;
}
static const hr_kernel broken_typed = {
    .name = "broken_typed", .summary = "test double", .workspace_bytes = broken_ws, .run = broken_typed_run,
    .dtypes = 1u << HR_BF16, .kv_dtypes = 1u << HR_BF16,
};

HR_TEST(layer_typed_check_catches_a_wrong_core)
{
    hr_layer_spec s = spec("naive", 1, 48, 64, 2, 2, 32, false, HR_GEMM_OWN);
    s.kernel = &broken_typed;
    s.dtype = s.kv_dtype = HR_BF16;
    hr_layer_result r;
    drop_many = false;
    int st = hr_layer_bench(&s, &r);
    CHECKF((st == HR_OK || st == HR_EFAIL) && r.checked && r.check.verdict != HR_CHECK_PASS,
           "one key dropped: status %d, verdict %d, max_rel %.3g tol %.3g", st, r.check.verdict,
           r.check.max_rel_err, r.check.tol_pass);
    drop_many = true;
    CHECK(hr_layer_bench(&s, &r) == HR_EFAIL && r.check.verdict == HR_CHECK_FAIL);
    drop_many = false;
}

HR_TEST(layer_rejects_bad_specs)
{
    hr_layer_result r;
    hr_layer_spec s = spec("flash", 1, 64, 128, 2, 2, 64, false, HR_GEMM_OWN);
    s.d_model = 0;
    CHECK(hr_layer_bench(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--d-model"));
    s = spec("flash", 1, 64, 128, 4, 3, 32, false, HR_GEMM_OWN); /* 3 does not divide 4 */
    CHECK(hr_layer_bench(&s, &r) == HR_EUSAGE);
    s = spec("flash", 1, 64, 128, 2, 2, 64, false, HR_GEMM_OWN);
    s.max_mem = 4096;
    CHECK(hr_layer_bench(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--max-mem"));
    CHECK(hr_layer_bytes(&s) > 4096);
    s = spec("flash", 1, 64, 128, 2, 2, 64, false, HR_GEMM_OWN);
    s.kernel = NULL;
    CHECK(hr_layer_bench(&s, &r) == HR_EUSAGE && hr_layer_bytes(&s) == 0);
    s = spec("decode", 1, 512, 128, 2, 2, 64, false, HR_GEMM_OWN); /* decode: Nq <= 16 only */
    if (s.kernel) CHECK(hr_layer_bench(&s, &r) == HR_EUSAGE);
    if (!hr_gemm_available(HR_GEMM_BLAS)) {
        s = spec("flash", 1, 64, 128, 2, 2, 64, false, HR_GEMM_BLAS);
        CHECK(hr_layer_bench(&s, &r) == HR_EUSAGE && strstr(hr_errmsg(), "--gemm"));
    }
}

HR_TEST(layer_flops_crossover_from_counts)
{
    /* MHA, Hq·d = d_model, non-causal: 8·N·dm² = 4·N²·dm at N = 2·dm. */
    for (int dm = 64; dm <= 4096; dm *= 2)
        CHECK_NEAR(hr_layer_flops_crossover(dm, dm / 64, dm / 64, 64, false, 0), 2.0 * dm, 1e-6);
    CHECK_NEAR(hr_layer_flops_crossover(768, 12, 12, 64, false, 0), 1536, 1e-6);
    /* GQA: projections 2·N·dm·(Hq + 2·Hkv)·d + 2·N·Hq·d·dm vs 4·N²·Hq·d -> dm·(1 + Hkv/Hq). */
    CHECK_NEAR(hr_layer_flops_crossover(1024, 16, 4, 64, false, 0), 1024 * 1.25, 1e-6);
    /* Causal halves (about) the core's pairs, so the crossover roughly doubles. */
    const double c = hr_layer_flops_crossover(512, 8, 8, 64, true, 0);
    CHECK(c > 2 * 1024 - 2 && c < 2 * 1024 + 2);
}

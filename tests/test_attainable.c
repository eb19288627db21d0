/* test_attainable.c — the attainable rate, min of matmul, softmax and memory: each bound_by, a missing ceiling, the row counters. */
#include <math.h>
#include <string.h>

#include "ceilings.h"
#include "counts.h"
#include "headroom.h"
#include "roofline.h"
#include "t.h"

HR_TEST(attainable3_each_bound)
{
    double a = -1;
    CHECK(hr_attainable3(100, 400, 900, &a) == HR_BOUND_MATMUL);
    CHECK_NEAR(a, 100, 0);
    CHECK(hr_attainable3(100, 40, 900, &a) == HR_BOUND_SOFTMAX);
    CHECK_NEAR(a, 40, 0);
    CHECK(hr_attainable3(100, 40, 9, &a) == HR_BOUND_MEMORY);
    CHECK_NEAR(a, 9, 0);
    /* a tie goes to the first of matmul, softmax, memory */
    CHECK(hr_attainable3(50, 50, 50, &a) == HR_BOUND_MATMUL);
    CHECK(hr_attainable3(60, 50, 50, &a) == HR_BOUND_SOFTMAX);
    CHECK(strcmp(hr_bound_names[HR_BOUND_SOFTMAX], "softmax") == 0);
}

HR_TEST(attainable3_missing_ceiling_gives_none)
{
    double a = -1;
    CHECK(hr_attainable3(100, 0, 900, &a) == -1 && a == 0);
    CHECK(hr_attainable3(0, 40, 900, &a) == -1 && a == 0);
    CHECK(hr_attainable3(100, 40, NAN, &a) == -1 && a == 0);
    CHECK(hr_attainable3(100, INFINITY, 5, &a) == -1 && a == 0);
}

HR_TEST(softmax_for_path)
{
    CHECK(hr_softmax_for(HR_ROOF_DOT + HR_DOT_AMX, "flash", "avx512") == HR_SMX_AMX);
    CHECK(hr_softmax_for(HR_ROOF_DOT + HR_DOT_BF16, "gqa", "avx512") == HR_SMX_BF16DOT);
    CHECK(hr_softmax_for(HR_FMA_AVX512, "flash", "avx512") == HR_SMX_FLASH_AVX512);
    CHECK(hr_softmax_for(HR_FMA_AVX2, "gqa", "avx2") == HR_SMX_FLASH_AVX2);
    CHECK(hr_softmax_for(HR_ROOF_SERIES + HR_DOT_VNNI512, "decode", "avx512") == HR_SMX_DECODE_AVX512);
    CHECK(hr_softmax_for(HR_FMA_SSE2, "naive", "generic") == HR_SMX_FLASH_GENERIC);
    CHECK(hr_softmax_for(HR_FMA_AVX512, "flash", "neon") == -1);
}

/* One thread, peak 100 GFLOP/s (build FMA and every level), DRAM 20 GB/s, no cache
 * roofs; the softmax ceilings of every step `gscores` (0: an old file). */
static hr_ceilings ceil_of(double gscores)
{
    hr_ceilings c;
    memset(&c, 0, sizeof c);
    c.nrows = 1;
    c.rows[0].threads = 1;
    for (int m = 0; m < HR_FMA_NISA; m++) c.rows[0].fma[m].best = 100;
    c.rows[0].triad.best = 20;
    for (int k = 0; k < HR_SMX_N; k++) c.rows[0].softmax[k].best = gscores;
    c.softmax_in_file = gscores > 0;
    return c;
}

static double counter(const hr_result *r, const char *name)
{
    for (int i = 0; i < r->ncounters; i++)
        if (!strcmp(r->counters[i].name, name)) return r->counters[i].value;
    return -1;
}

/* A fp32 row of d 64, 1 thread, `gflops` GFLOP/s: flops and compulsory bytes from counts.c. */
static hr_result row_of(int seq, double gflops)
{
    hr_result r;
    memset(&r, 0, sizeof r);
    r.prob = (hr_problem){.batch = 1, .heads = 1, .kv_heads = 1, .seq_q = seq, .seq_kv = seq, .d_head = 64};
    r.flops = hr_core_flops(&r.prob);
    r.bytes = hr_min_bytes(&r.prob);
    r.tune.threads = 1;
    double t = r.flops / (gflops * 1e9);
    r.timing.reps = 1;
    r.timing.rep_time[0] = t;
    r.timing.s = (hr_summary){t, t, t, t, 0, 0, 1};
    return r;
}

/* A row of seq keys at gflops against a file whose softmax ceiling is gscores: what binds,
 * its attainable GFLOP/s and the row's % of it. */
static void check_bound(double gscores, int seq, double gflops, const char *bound, double att, double pct)
{
    hr_ceilings c = ceil_of(gscores);
    hr_result r = row_of(seq, gflops);
    hr_roofline_attach(&r, &c);
    CHECKF(strcmp(r.bound_by, bound) == 0, "bound_by %s, want %s", r.bound_by, bound);
    CHECK_NEAR(counter(&r, "attainable_path_gflops"), att, 1e-9);
    CHECK_NEAR(counter(&r, "pct_of_attainable"), pct, 1e-6);
}

HR_TEST(attainable_row_counters)
{
    /* N 4096: AI = 4 N^2 d / (4 N d 4 bytes) = N / 4 = 1024, memory 20480 >> 100: the
     * matmul roof binds while the softmax allows 10 x 256 = 2560 */
    hr_ceilings c = ceil_of(10);
    hr_result r = row_of(4096, 50);
    hr_roofline_attach(&r, &c);
    CHECK(strcmp(r.bound_by, "matmul") == 0);
    CHECK_NEAR(counter(&r, "attainable_path_gflops"), 100, 1e-9);
    CHECK_NEAR(counter(&r, "softmax_gflops"), 10 * hr_flops_per_score(&r.prob), 1e-9);
    CHECK_NEAR(counter(&r, "pct_of_attainable"), 50, 1e-6);
    CHECK(strncmp(r.softmax_step, "flash_", 6) == 0);
    /* softmax 0.2 Gscores/s x 256 = 51.2 GFLOP/s < 100: softmax binds */
    check_bound(0.2, 4096, 25.6, "softmax", 51.2, 50);
    /* N 16: AI = 4, memory 80 GFLOP/s, DRAM (no cache roofs) < 100 and < 2560 */
    check_bound(10, 16, 8, "memory", 80, 10);
}

HR_TEST(attainable_row_without_softmax_ceiling)
{
    /* an old file: the matmul bound as before, no attainable of three, no bound_by */
    hr_ceilings c = ceil_of(0);
    hr_result r = row_of(4096, 50);
    hr_roofline_attach(&r, &c);
    CHECK_NEAR(counter(&r, "attainable_gflops"), 100, 1e-9);
    CHECK(counter(&r, "attainable_path_gflops") == -1);
    CHECK(counter(&r, "pct_of_attainable") == -1);
    CHECK(counter(&r, "softmax_gscores") == -1);
    CHECK(r.bound_by[0] == 0 && r.softmax_step[0] == 0);
}

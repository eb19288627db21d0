/* test_cache_roofs.c — the cache-level roofs: their ceilings-file round trip, old files without them, the level a row's working set fits and its bound, a tiny measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counts.h"
#include "headroom.h"
#include "roofline.h"
#include "sysinfo.h"
#include "t.h"

/* One thread: 100 GFLOP/s on every FMA ISA, triad 20 GB/s; L1/L2/L3 triad 400/200/80,
 * load 300/150/60. */
static hr_ceilings made_up(void)
{
    hr_ceilings c;
    memset(&c, 0, sizeof c);
    c.nrows = 1;
    c.reps = 3;
    hr_ceiling_row *r = &c.rows[0];
    r->threads = 1;
    for (int m = 0; m < HR_FMA_NISA; m++) r->fma[m] = (hr_roof_stat){100, 90, 80};
    r->triad = (hr_roof_stat){20, 19, 18};
    const double tri[HR_CACHE_N] = {400, 200, 80}, ld[HR_CACHE_N] = {300, 150, 60};
    for (int l = 0; l < HR_CACHE_N; l++) {
        r->cache[l].ws_bytes = 16384.0 * (1 << (4 * l));
        r->cache[l].triad = (hr_roof_stat){tri[l], tri[l] * 0.9, tri[l] * 0.8};
        r->cache[l].load = (hr_roof_stat){ld[l], ld[l] * 0.9, ld[l] * 0.8};
    }
    return c;
}

static char *tmp_path(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/hr_cache_roofs_%d_%s", (int)getpid(), name);
    return buf;
}

HR_TEST(cache_roofs_file_round_trip)
{
    char path[256];
    tmp_path("c.json", path, sizeof path);
    hr_ceilings c = made_up(), d;
    CHECK(hr_ceilings_save(&c, path) == HR_OK);
    CHECKF(hr_ceilings_load(path, &d) == HR_OK, "%s", hr_errmsg());
    for (int l = 0; l < HR_CACHE_N; l++) {
        const hr_cache_roof *a = &c.rows[0].cache[l], *b = &d.rows[0].cache[l];
        CHECKF(b->ws_bytes == a->ws_bytes, "%s", hr_cache_names[l]);
        CHECK(b->load.best == a->load.best && b->load.median == a->load.median && b->load.worst == a->load.worst);
        CHECK(b->triad.best == a->triad.best && b->triad.median == a->triad.median &&
              b->triad.worst == a->triad.worst);
    }
    CHECK_NEAR(hr_ceiling_cache_bw(&d, 1, HR_CACHE_L2), 200, 0);
    CHECK_NEAR(hr_ceiling_cache_bw(&d, 1, HR_CACHE_N), 20, 0); /* DRAM: the triad */
    CHECK(hr_ceiling_cache_bw(&d, 1, HR_CACHE_N + 1) == 0);
    remove(path);
}

/* A file from before the cache roofs reads with them absent; a malformed one names the key. */
HR_TEST(cache_roofs_old_file_reads_absent)
{
    char path[256];
    tmp_path("old.json", path, sizeof path);
    hr_test_write(path, "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 1, "
                     "\"fma_gflops\": {\"avx512\": 120, \"avx2\": 120, \"sse2\": 60}, \"triad_gbs\": 30}]}");
    hr_ceilings c;
    CHECKF(hr_ceilings_load(path, &c) == HR_OK, "%s", hr_errmsg());
    for (int l = 0; l < HR_CACHE_N; l++) {
        CHECK(c.rows[0].cache[l].ws_bytes == 0 && c.rows[0].cache[l].triad.best == 0);
        CHECK(hr_ceiling_cache_bw(&c, 1, l) == 0);
    }
    /* no cache roofs: a row gets the DRAM bound only, and no bound_level */
    hr_result r;
    memset(&r, 0, sizeof r);
    r.prob = (hr_problem){.batch = 1, .heads = 1, .kv_heads = 1, .seq_q = 16, .seq_kv = 16, .d_head = 16};
    r.flops = 1e6, r.bytes = 1e6, r.tune.threads = 1;
    hr_roofline_attach(&r, &c);
    CHECK(r.bound_level[0] == 0);
    hr_test_write(path, "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 1, \"fma_gflops\": {}, "
                     "\"triad_gbs\": 30, \"cache_roofs\": {\"L1\": {\"load_gbs\": 5, \"triad_gbs\": 5}}}]}");
    CHECK(hr_ceilings_load(path, &c) != HR_OK && strstr(hr_errmsg(), "working_set_bytes"));
    hr_test_write(path, "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 1, \"fma_gflops\": {}, "
                     "\"triad_gbs\": 30, \"cache_roofs\": {\"L2\": {\"working_set_bytes\": 512, \"triad_gbs\": 5}}}]}");
    CHECK(hr_ceilings_load(path, &c) != HR_OK && strstr(hr_errmsg(), "load_gbs"));
    remove(path);
}

/* The level of a working set follows the machine's cache sizes. */
HR_TEST(cache_roofs_level_of_working_set)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    if (si->l1d) CHECK(hr_cache_level_of((double)si->l1d / 2, 1) == HR_CACHE_L1);
    if (si->l1d && si->l2 > si->l1d) {
        CHECK(hr_cache_level_of((double)si->l1d * 2, 1) == HR_CACHE_L2);
        CHECK(hr_cache_level_of((double)si->l1d * 2, 2) == HR_CACHE_L1); /* per thread */
    }
    if (si->l2 && si->l3 > 2 * si->l2) CHECK(hr_cache_level_of((double)si->l2 * 2, 1) == HR_CACHE_L3);
    CHECK(hr_cache_level_of(1e15, 1) == HR_CACHE_N);
    CHECK(strcmp(hr_level_name(HR_CACHE_N), "DRAM") == 0 && strcmp(hr_level_name(HR_CACHE_L2), "L2") == 0);
    /* the working set is counts.c's: tensors as stored plus workspace */
    hr_problem p = {.batch = 1, .heads = 2, .kv_heads = 2, .seq_q = 8, .seq_kv = 8, .d_head = 4};
    CHECK_NEAR(hr_working_set_bytes(&p, 100), hr_min_bytes(&p) + 100, 0);
    /* each thread's working set: half the level, L3 shared over the team's threads */
    if (si->l3 && si->l3_shared >= 2)
        CHECK(hr_cache_ws_bytes(HR_CACHE_L3, 2) < hr_cache_ws_bytes(HR_CACHE_L3, 1));
    if (si->l1d) CHECK(hr_cache_ws_bytes(HR_CACHE_L1, 1) <= si->l1d / 2);
}

/* bound_level and the level's bound: a tiny shape sits in L1, a huge workspace in DRAM,
 * a high arithmetic intensity is compute bound. The DRAM fields stay as they were. */
HR_TEST(cache_roofs_bound_level_in_rows)
{
    hr_ceilings c = made_up();
    const hr_sysinfo *si = hr_sysinfo_get();
    hr_result r;
    memset(&r, 0, sizeof r);
    r.prob = (hr_problem){.batch = 1, .heads = 1, .kv_heads = 1, .seq_q = 8, .seq_kv = 8, .d_head = 8};
    /* the bound counts the problem's compulsory bytes (counts.c hr_bound_bytes): B */
    const double B = hr_min_bytes(&r.prob);
    r.flops = 0.1 * B, r.bytes = B, r.tune.threads = 1; /* AI = 0.1 */
    r.timing.reps = 1;
    r.timing.rep_time[0] = 1e-4;
    r.timing.s = (hr_summary){1e-4, 1e-4, 1e-4, 1e-4, 0, 0, 1};
    hr_roofline_attach(&r, &c);
    if (si->l1d) {
        CHECKF(strcmp(r.bound_level, "L1") == 0, "'%s'", r.bound_level);
        double v = -1;
        for (int i = 0; i < r.ncounters; i++)
            if (!strcmp(r.counters[i].name, "attainable_level_gflops")) v = r.counters[i].value;
        CHECK_NEAR(v, 40, 1e-9); /* min(100, 0.1 x 400) */
    }
    double dram = -1;
    for (int i = 0; i < r.ncounters; i++)
        if (!strcmp(r.counters[i].name, "attainable_gflops")) dram = r.counters[i].value;
    CHECK_NEAR(dram, 2, 1e-9); /* min(100, 0.1 x 20): the DRAM bound, unchanged */
    r.flops = B; /* AI 1: in L1, 1 x 400 reaches the peak: compute bound there */
    hr_roofline_attach(&r, &c);
    if (si->l1d) CHECK(strcmp(r.bound_level, "compute") == 0);
    r.flops = 0.1 * B;
    r.workspace_bytes = 1e15;
    hr_roofline_attach(&r, &c);
    CHECKF(strcmp(r.bound_level, "DRAM") == 0, "'%s'", r.bound_level);
    r.flops = 1000 * B; /* AI 1000 even against DRAM */
    hr_roofline_attach(&r, &c);
    CHECK(strcmp(r.bound_level, "compute") == 0);
}

/* A tiny real measurement: every level positive, working sets growing L1 < L2 < L3. */
HR_TEST(cache_roofs_measure_tiny)
{
    hr_ceiling_row row;
    memset(&row, 0, sizeof row);
    CHECKF(hr_cache_roofs_measure(1, 1, 1e-4, &row) == HR_OK, "%s", hr_errmsg());
    for (int l = 0; l < HR_CACHE_N; l++)
        CHECKF(row.cache[l].load.best > 0 && row.cache[l].triad.best > 0 && row.cache[l].ws_bytes > 0, "%s",
               hr_cache_names[l]);
    CHECK(row.cache[0].ws_bytes < row.cache[1].ws_bytes && row.cache[1].ws_bytes < row.cache[2].ws_bytes);
}

/* test_roofline.c — ceilings file round trip (old files too) and errors, the roof of each type, the roofline bound, the FMA and dot loops and the probes. */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counts.h"
#include "headroom.h"
#include "probe.h"
#include "results.h"
#include "roofline.h"
#include "t.h"

static char tmp_dir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_tmpdir(void) { nftw(tmp_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS); }

/* A fresh temporary directory for this process's files, removed at exit. */
static const char *tmpdir(void)
{
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/hr_roof_XXXXXX");
        if (mkdtemp(tmp_dir)) atexit(rm_tmpdir);
        else snprintf(tmp_dir, sizeof tmp_dir, "/tmp");
    }
    return tmp_dir;
}

static void expect_load_error(const char *name, const char *text, const char *want);

/* Made-up ceilings: 1 thread 100/50/40/10 GFLOP/s (avx512/avx2/sse2/scalar), 20 GB/s;
 * 4 threads four times the FLOPs, 40 GB/s. */
static hr_ceilings made_up(void)
{
    hr_ceilings c;
    memset(&c, 0, sizeof c);
    c.nrows = 2;
    c.reps = 7;
    c.min_rep_time = 0.01;
    c.triad_bytes = 3.0 * 1048576;
    const double fma[HR_FMA_NISA] = {100, 50, 40, 10};
    const int threads[2] = {1, 4};
    const double bw[2] = {20, 40};
    for (int i = 0; i < 2; i++) {
        hr_ceiling_row *r = &c.rows[i];
        r->threads = threads[i];
        for (int m = 0; m < HR_FMA_NISA; m++)
            r->fma[m] = (hr_roof_stat){fma[m] * threads[i], fma[m] * threads[i] * 0.9,
                                       fma[m] * threads[i] * 0.6};
        r->triad = (hr_roof_stat){bw[i], bw[i] * 0.95, bw[i] * 0.5};
        r->exp = (hr_roof_stat){2.5 * threads[i], 2.0 * threads[i], 1.0 * threads[i]};
        /* bf16 dot twice the avx512 FMA, int8 VNNI four times; no AVX-VNNI, no AMX */
        r->dot[HR_DOT_BF16] = (hr_roof_stat){200.0 * threads[i], 190.0 * threads[i], 150.0 * threads[i]};
        r->dot[HR_DOT_VNNI512] = (hr_roof_stat){400.0 * threads[i], 380.0 * threads[i], 300.0 * threads[i]};
        /* vpmaddubsw + vpmaddwd + vpaddd (AVX2 without VNNI): 80 GOP/s a thread */
        r->dot[HR_DOT_MADDUBS] = (hr_roof_stat){80.0 * threads[i], 76.0 * threads[i], 60.0 * threads[i]};
    }
    snprintf(c.dot_absent[HR_DOT_AVXVNNI], sizeof c.dot_absent[0], "the CPU has no AVX-VNNI (cpuid)");
    snprintf(c.dot_absent[HR_DOT_AMX], sizeof c.dot_absent[0], "the CPU has no AMX-BF16 (cpuid): no AMX roof");
    return c;
}

/* The build's FMA figure in made_up() at one thread. */
static double build_peak1(void)
{
    return !strcmp(hr_isa, "avx512") ? 100 : !strcmp(hr_isa, "avx2") ? 50 : 40;
}

HR_TEST(roofline_file_round_trip)
{
    char path[256];
    snprintf(path, sizeof path, "%s/sub/dir/ceilings.json", tmpdir());
    hr_ceilings c = made_up(), d;
    CHECK(hr_ceilings_save(&c, path) == HR_OK);
    CHECKF(hr_ceilings_load(path, &d) == HR_OK, "%s", hr_errmsg());
    CHECK(d.nrows == 2);
    CHECK(!d.quick && d.reps == 7);
    CHECK_NEAR(d.triad_bytes, c.triad_bytes, 0);
    CHECK(strcmp(d.path, path) == 0);
    CHECK(d.machine[0] != 0);
    for (int i = 0; i < 2; i++) {
        CHECK(d.rows[i].threads == c.rows[i].threads);
        for (int m = 0; m < HR_FMA_NISA; m++) {
            CHECK_NEAR(d.rows[i].fma[m].best, c.rows[i].fma[m].best, 1e-9);
            CHECK_NEAR(d.rows[i].fma[m].median, c.rows[i].fma[m].median, 1e-9);
            CHECK_NEAR(d.rows[i].fma[m].worst, c.rows[i].fma[m].worst, 1e-9);
        }
        CHECK_NEAR(d.rows[i].triad.best, c.rows[i].triad.best, 1e-9);
        CHECK_NEAR(d.rows[i].triad.median, c.rows[i].triad.median, 1e-9);
        CHECK_NEAR(d.rows[i].triad.worst, c.rows[i].triad.worst, 1e-9);
        CHECK_NEAR(d.rows[i].exp.best, c.rows[i].exp.best, 1e-9);
        CHECK_NEAR(d.rows[i].exp.worst, c.rows[i].exp.worst, 1e-9);
        for (int k = 0; k < HR_DOT_N; k++) {
            CHECKF(d.rows[i].dot[k].best == c.rows[i].dot[k].best, "%s", hr_dots[k].name);
            CHECK(d.rows[i].dot[k].median == c.rows[i].dot[k].median);
            CHECK(d.rows[i].dot[k].worst == c.rows[i].dot[k].worst);
        }
    }
    /* measured dots have no reason; absent ones keep theirs */
    CHECK(d.dot_absent[HR_DOT_BF16][0] == 0 && d.dot_absent[HR_DOT_VNNI512][0] == 0);
    CHECK(strcmp(d.dot_absent[HR_DOT_AVXVNNI], c.dot_absent[HR_DOT_AVXVNNI]) == 0);
    CHECK(strcmp(d.dot_absent[HR_DOT_AMX], c.dot_absent[HR_DOT_AMX]) == 0);
}

/* A ceilings file from before the dot roofs (only fma_gflops) still reads: its FMA and
 * triad figures as written, every dot roof absent with the reason, no dot roof looked up. */
HR_TEST(roofline_old_file_reads_without_dot_roofs)
{
    char path[256];
    snprintf(path, sizeof path, "%s/old.json", tmpdir());
    hr_test_write(path, "{\"context\": {\"machine\": \"old-box\"}, \"headroom_ceilings\": 1, "
                     "\"quick\": false, \"repetitions\": 7, \"ceilings\": [{\"threads\": 1, "
                     "\"fma_gflops\": {\"avx512\": 120, \"avx2\": 118}, "
                     "\"fma_gflops_median\": {\"avx512\": 119}, \"triad_gbs\": 30, "
                     "\"triad_gbs_median\": 29, \"exp_gelems\": 3}]}");
    hr_ceilings c;
    CHECKF(hr_ceilings_load(path, &c) == HR_OK, "%s", hr_errmsg());
    CHECK(c.nrows == 1 && strcmp(c.machine, "old-box") == 0);
    CHECK_NEAR(c.rows[0].fma[HR_FMA_AVX512].best, 120, 0);
    CHECK_NEAR(c.rows[0].fma[HR_FMA_AVX512].median, 119, 0);
    CHECK_NEAR(c.rows[0].triad.best, 30, 0);
    for (int k = 0; k < HR_DOT_N; k++) {
        CHECK(c.rows[0].dot[k].best == 0);
        CHECKF(strstr(c.dot_absent[k], "written before the dot-product roofs") != NULL, "%s: '%s'",
               hr_dots[k].name, c.dot_absent[k]);
        CHECK(hr_ceiling_roof(&c, 1, HR_ROOF_DOT + k) == 0);
    }
    CHECK_NEAR(hr_ceiling_roof(&c, 1, HR_FMA_AVX512), 120, 0);
    /* Saved again, the absence and its reason survive; the FMA figures too. */
    char again[256];
    snprintf(again, sizeof again, "%s/old-again.json", tmpdir());
    CHECK(hr_ceilings_save(&c, again) == HR_OK);
    hr_ceilings d;
    CHECKF(hr_ceilings_load(again, &d) == HR_OK, "%s", hr_errmsg());
    CHECK(strcmp(d.dot_absent[HR_DOT_BF16], c.dot_absent[HR_DOT_BF16]) == 0);
    CHECK_NEAR(d.rows[0].fma[HR_FMA_AVX2].best, 118, 0);
    /* A dot figure that is not a number is an error naming it. */
    expect_load_error("baddot.json",
                      "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 1, "
                      "\"fma_gflops\": {}, \"bf16_gflops\": {\"avx512_bf16\": -1}, \"triad_gbs\": 10}]}",
                      "bf16_gflops.avx512_bf16");
    expect_load_error("baddots.json",
                      "{\"headroom_ceilings\": 1, \"dot_roofs\": [], \"ceilings\": [{\"threads\": 1, "
                      "\"fma_gflops\": {}, \"triad_gbs\": 10}]}",
                      "dot_roofs");
}

/* The roof of a row's own type, from the path its kernel takes. */
HR_TEST(roofline_roof_of_each_type)
{
    CHECK(hr_roof_for_path("avx512", "avx512") == HR_FMA_AVX512);
    CHECK(hr_roof_for_path(NULL, "avx2") == HR_FMA_AVX2);
    CHECK(hr_roof_for_path("f16c convert", "generic") == HR_FMA_SSE2); /* f16: converted, FMA */
    CHECK(hr_roof_for_path("avx512 convert bf16->f32", "avx512") == HR_FMA_AVX512);
    CHECK(hr_roof_for_path("avx512-bf16 vdpbf16ps", "avx512") == HR_ROOF_DOT + HR_DOT_BF16);
    CHECK(hr_roof_for_path("AVX512_BF16", "avx2") == HR_ROOF_DOT + HR_DOT_BF16);
    CHECK(hr_roof_for_path("q8_0 vpdpbusd (avx512-vnni)", "avx512") == HR_ROOF_DOT + HR_DOT_VNNI512);
    CHECK(hr_roof_for_path("q8_0 avx-vnni", "avx2") == HR_ROOF_DOT + HR_DOT_AVXVNNI);
    CHECK(hr_roof_for_path("amx tiles", "avx512") == HR_ROOF_DOT + HR_DOT_AMX);
    CHECK(strcmp(hr_roof_name(HR_ROOF_DOT + HR_DOT_BF16), "avx512_bf16") == 0);
    CHECK(strcmp(hr_roof_name(HR_FMA_AVX2), "avx2") == 0);
    CHECK(strcmp(hr_roof_name(HR_NROOFS), "?") == 0);
    hr_ceilings c = made_up();
    CHECK_NEAR(hr_ceiling_roof(&c, 1, HR_ROOF_DOT + HR_DOT_BF16), 200, 0);
    CHECK_NEAR(hr_ceiling_roof(&c, 3, HR_ROOF_DOT + HR_DOT_VNNI512), 1600, 0); /* the 4-thread row */
    CHECK(hr_ceiling_roof(&c, 1, HR_ROOF_DOT + HR_DOT_AMX) == 0);
    CHECK(hr_ceiling_roof(&c, 1, -1) == 0 && hr_ceiling_roof(&c, 1, HR_NROOFS) == 0);
    /* decode's int8 path: vpdpbusd scores, P·V by FMA, the two roofs in series */
    CHECK(hr_roof_for_path("avx512 avx512-vnni vpdpbusd q8_0 (K+128), Q as q8_0, P·V FMA", "avx512") ==
          HR_ROOF_SERIES + HR_DOT_VNNI512);
    CHECK(hr_roof_for_path("avx2 avx-vnni vpdpbusd q4_0 nibbles, P·V FMA", "avx2") ==
          HR_ROOF_SERIES + HR_DOT_AVXVNNI);
    /* q4_0 on AVX2 without VNNI (decode_i8.c's decode_i8e copy): its own dot roof, the vpmaddubsw triple's;
     * with P·V by FMA that roof and avx2's in series (2 / (1/80 + 1/50)) */
    CHECK(hr_roof_for_path("avx2 int8 vpmaddubsw+vpmaddwd q4_0 nibbles, Q as q8_0, P·V vpmaddubsw+vpmaddwd (P·dv s8 "
                           "per 32 keys)", "avx2") == HR_ROOF_DOT + HR_DOT_MADDUBS);
    CHECK(hr_roof_for_path("avx2 int8 vpmaddubsw+vpmaddwd q4_0 nibbles, Q as q8_0, P·V FMA", "avx2") ==
          HR_ROOF_SERIES + HR_DOT_MADDUBS);
    CHECK(strcmp(hr_roof_name(HR_ROOF_DOT + HR_DOT_MADDUBS), "avx2_maddubs") == 0);
    CHECK(strcmp(hr_roof_name(HR_ROOF_SERIES + HR_DOT_MADDUBS), "avx2_maddubs+avx2") == 0);
    CHECK(strcmp(hr_roof_unit(HR_ROOF_SERIES + HR_DOT_MADDUBS), "GOP/s") == 0);
    CHECK_NEAR(hr_ceiling_roof(&c, 1, HR_ROOF_DOT + HR_DOT_MADDUBS), 80, 0);
    CHECK_NEAR(hr_ceiling_roof(&c, 1, HR_ROOF_SERIES + HR_DOT_MADDUBS), 2.0 / (1.0 / 80 + 1.0 / 50), 1e-9);
    CHECK(strcmp(hr_roof_name(HR_ROOF_SERIES + HR_DOT_VNNI512), "avx512_vnni+avx512") == 0);
    CHECK(strcmp(hr_roof_name(HR_ROOF_SERIES + HR_DOT_BF16), "avx512_bf16+avx512") == 0);
    CHECK_NEAR(hr_ceiling_roof(&c, 1, HR_ROOF_SERIES + HR_DOT_VNNI512), 160, 1e-9); /* 2 / (1/400 + 1/100) */
    CHECK_NEAR(hr_ceiling_roof(&c, 4, HR_ROOF_SERIES + HR_DOT_VNNI512), 640, 1e-9);
    CHECK(hr_ceiling_roof(&c, 1, HR_ROOF_SERIES + HR_DOT_AVXVNNI) == 0); /* no AVX-VNNI figure */
    /* decode's bf16 cache: FMA scores, P·V by vdpbf16ps, in series (2 / (1/200 + 1/100)) */
    CHECK(hr_roof_for_path("avx512 bf16 even/odd in registers, fp32 FMA scores, P·V vdpbf16ps (P in bf16)",
                           "avx512") == HR_ROOF_SERIES + HR_DOT_BF16);
    CHECK_NEAR(hr_ceiling_roof(&c, 1, HR_ROOF_SERIES + HR_DOT_BF16), 400.0 / 3, 1e-9);
    CHECK_NEAR(hr_ceiling_roof(&c, 1, HR_FMA_SCALAR), 10, 0);
}

/* A real (tiny) measurement: every figure the CPU has is positive, the file holds it. */
HR_TEST(roofline_measure_quick_round_trip)
{
    const int threads[] = {2, 1, 2};
    hr_roofline_opts o = {.threads = threads, .nthreads = 3, .reps = 2, .min_time = 1e-4,
                          .triad_bytes = 1 << 20, .quick = true};
    hr_ceilings c, d;
    CHECKF(hr_roofline_measure(&o, &c) == HR_OK, "%s", hr_errmsg());
    CHECK(c.nrows == 2); /* sorted, duplicate dropped */
    CHECK(c.rows[0].threads == 1 && c.rows[1].threads == 2);
    CHECK(c.quick && c.reps == 2);
    for (int i = 0; i < c.nrows; i++) {
        const hr_ceiling_row *r = &c.rows[i];
        for (int m = 0; m < HR_FMA_NISA; m++) {
            bool has = hr_fma_loops[m].supported();
            CHECKF(has ? r->fma[m].best > 0 : r->fma[m].best == 0, "isa %s", hr_fma_isa_names[m]);
            CHECK(r->fma[m].worst <= r->fma[m].median && r->fma[m].median <= r->fma[m].best);
        }
        CHECK(r->fma[hr_fma_build_loop()].best > 0);
        for (int k = 0; k < HR_DOT_N; k++) {
            bool has = hr_dot_absent(k) == NULL;
            CHECKF(has ? r->dot[k].best > 0 : r->dot[k].best == 0, "dot %s", hr_dots[k].name);
            CHECKF(has == !c.dot_absent[k][0], "dot %s", hr_dots[k].name);
        }
        CHECK(r->triad.best > 0 && r->triad.worst <= r->triad.best);
        CHECK(r->exp.best > 0);
        /* softmax ceilings: measured exactly where not absent; the running level's flash
         * step always; avx512_fp16 never (no kernel path runs it) */
        for (int k = 0; k < HR_SMX_N; k++)
            CHECKF(c.softmax_absent[k][0] ? r->softmax[k].best == 0 : r->softmax[k].best > 0, "softmax %s",
                   hr_softmaxes[k].name);
        CHECK(r->softmax[hr_softmax_for(HR_FMA_AVX512, "flash", hr_isa)].best > 0);
        CHECK(c.softmax_absent[HR_SMX_F16][0] != 0);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/quick.json", tmpdir());
    CHECK(hr_ceilings_save(&c, path) == HR_OK);
    CHECKF(hr_ceilings_load(path, &d) == HR_OK, "%s", hr_errmsg());
    CHECK(d.quick && d.nrows == 2);
    for (int k = 0; k < HR_DOT_N; k++) {
        CHECK_NEAR(d.rows[1].dot[k].best, c.rows[1].dot[k].best, 1e-9 * c.rows[1].dot[k].best);
        CHECK(strcmp(d.dot_absent[k], c.dot_absent[k]) == 0);
    }
    CHECK_NEAR(d.rows[1].triad.best, c.rows[1].triad.best, 1e-9 * c.rows[1].triad.best);
    CHECK(d.softmax_in_file);
    for (int k = 0; k < HR_SMX_N; k++) {
        CHECK_NEAR(d.rows[1].softmax[k].best, c.rows[1].softmax[k].best, 1e-9 * c.rows[1].softmax[k].best);
        CHECK(strcmp(d.softmax_absent[k], c.softmax_absent[k]) == 0);
    }
    CHECK_NEAR(hr_ceiling_fma(&d, 2, hr_isa), c.rows[1].fma[hr_fma_build_loop()].best,
               1e-9 * c.rows[1].fma[hr_fma_build_loop()].best);
}

HR_TEST(roofline_measure_rejects_bad_threads)
{
    const int zero[] = {0};
    hr_roofline_opts o = {.threads = zero, .nthreads = 1, .reps = 1, .min_time = 1e-4,
                          .triad_bytes = 1 << 20};
    hr_ceilings c;
    CHECK(hr_roofline_measure(&o, &c) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "--threads") != NULL);
    o.nthreads = 0;
    CHECK(hr_roofline_measure(&o, &c) == HR_EUSAGE);
}

HR_TEST(roofline_lookup_nearest_thread_count)
{
    hr_ceilings c = made_up();
    CHECK(hr_ceiling_threads(&c, 1) == 1);
    CHECK(hr_ceiling_threads(&c, 2) == 1); /* |2-1| < |2-4|                          */
    CHECK(hr_ceiling_threads(&c, 3) == 4);
    CHECK(hr_ceiling_threads(&c, 64) == 4); /* never extrapolated                     */
    c.rows[1].threads = 3;
    CHECK(hr_ceiling_threads(&c, 2) == 1); /* tie: the lower count                   */
    c = made_up();
    CHECK_NEAR(hr_ceiling_fma(&c, 1, "avx512"), 100, 0);
    CHECK_NEAR(hr_ceiling_fma(&c, 4, "avx2"), 200, 0);
    CHECK_NEAR(hr_ceiling_fma(&c, 1, "generic"), 40, 0); /* a generic build: sse2 */
    CHECK_NEAR(hr_ceiling_fma(&c, 1, "scalar"), 10, 0);
    CHECK(hr_ceiling_fma(&c, 1, "neon") == 0);
    CHECK_NEAR(hr_ceiling_bw(&c, 3), 40, 0);
    hr_ceilings empty;
    memset(&empty, 0, sizeof empty);
    CHECK(hr_ceiling_threads(&empty, 1) == 0 && hr_ceiling_bw(&empty, 1) == 0);
}

/* A result row with the given counts, thread count and median time. */
static hr_result row(double flops, double bytes, int threads, double median)
{
    hr_result r;
    memset(&r, 0, sizeof r);
    r.flops = flops;
    r.bytes = bytes;
    r.tune.threads = threads;
    r.timing.reps = 1;
    r.timing.rep_time[0] = median;
    r.timing.s = (hr_summary){median, median, median, median, 0, 0, 1};
    return r;
}

static double counter(const hr_result *r, const char *name)
{
    for (int i = 0; i < r->ncounters; i++)
        if (!strcmp(r->counters[i].name, name)) return r->counters[i].value;
    return -1;
}

/* Kernels known only by the path they report. */
static const char *path_bf16(const hr_problem *p) { return p->dtype == HR_BF16 ? "avx512-bf16 vdpbf16ps" : NULL; }
static const char *path_amx(const hr_problem *p) { return "amx-bf16 tiles"; }
static const char *path_f16c(const hr_problem *p) { return "f16c convert"; }
static const hr_kernel k_bf16 = {.name = "t_bf16", .path = path_bf16};
static const hr_kernel k_amx = {.name = "t_amx", .path = path_amx};
static const hr_kernel k_f16c = {.name = "t_f16c", .path = path_f16c};

HR_TEST(roofline_attach_memory_and_compute_bound)
{
    hr_ceilings c = made_up();
    double peak1 = build_peak1();
    /* AI = 1 FLOP/byte at 1 thread: attainable min(peak, 1 * 20) = 20 (memory bound);
     * 1e9 FLOPs in 0.1 s = 10 GFLOP/s = 50% of it. */
    hr_result r = row(1e9, 1e9, 1, 0.1);
    hr_roofline_attach(&r, &c);
    CHECK_NEAR(counter(&r, "ceiling_threads"), 1, 0);
    CHECK_NEAR(counter(&r, "ceiling_gflops"), peak1, 1e-12);
    CHECK_NEAR(counter(&r, "ceiling_gbs"), 20, 1e-12);
    CHECK_NEAR(counter(&r, "AI"), 1, 1e-12);
    CHECK_NEAR(counter(&r, "attainable_gflops"), 20, 1e-12);
    CHECK_NEAR(counter(&r, "pct_of_roofline"), 50, 1e-9);
    /* AI = 1000 at 3 threads -> the 4-thread row: attainable = its peak, compute bound. */
    r = row(1e12, 1e9, 3, 10.0);
    hr_roofline_attach(&r, &c);
    CHECK_NEAR(counter(&r, "ceiling_threads"), 4, 0);
    CHECK_NEAR(counter(&r, "attainable_gflops"), 4 * peak1, 1e-9);
    CHECK_NEAR(counter(&r, "pct_of_roofline"), 100.0 / (4 * peak1) * 100, 1e-9);
    /* Right at the ridge, AI = peak / BW: both bounds agree. */
    r = row(peak1 / 20 * 1e9, 1e9, 1, 1.0);
    hr_roofline_attach(&r, &c);
    CHECK_NEAR(counter(&r, "attainable_gflops"), peak1, 1e-9);
    /* No byte count: the ceilings are set, AI and the bound are not. */
    r = row(1e9, 0, 1, 0.1);
    hr_roofline_attach(&r, &c);
    CHECK(counter(&r, "ceiling_gflops") > 0);
    CHECK(counter(&r, "AI") == -1 && counter(&r, "pct_of_roofline") == -1);
    /* A kernel whose path runs vdpbf16ps on a bf16 problem is judged by the bf16 dot
     * roof (200 at 1 thread), one whose path names AMX has no compute roof (not
     * measured), and an f16 path that converts to f32 by the FMA. */
    r = row(1e12, 1e9, 1, 10.0);
    r.prob.dtype = HR_BF16;
    r.kernel = &k_bf16;
    hr_roofline_attach(&r, &c);
    CHECK_NEAR(counter(&r, "ceiling_gflops"), 200, 0);
    CHECK_NEAR(counter(&r, "attainable_gflops"), 200, 0);
    CHECK_NEAR(counter(&r, "pct_of_roofline"), 100.0 / 200 * 100, 1e-9);
    r = row(1e12, 1e9, 1, 10.0);
    r.kernel = &k_amx;
    hr_roofline_attach(&r, &c);
    CHECK(counter(&r, "ceiling_gflops") == -1 && counter(&r, "attainable_gflops") == -1);
    CHECK_NEAR(counter(&r, "ceiling_gbs"), 20, 0);
    r = row(1e12, 1e9, 1, 10.0);
    r.prob.dtype = HR_F16;
    r.kernel = &k_f16c;
    hr_roofline_attach(&r, &c);
    CHECK_NEAR(counter(&r, "ceiling_gflops"), peak1, 0);
    /* Attaching twice replaces, never duplicates. */
    r = row(1e9, 1e9, 1, 0.1);
    hr_roofline_attach(&r, &c);
    int n = r.ncounters;
    hr_roofline_attach(&r, &c);
    CHECK(r.ncounters == n);
}

/* A kernel that streams K/V once per query head, on a GQA decode problem: its bytes and
 * GB/s are its own traffic (4x the cache), its AI and bound the problem's compulsory
 * bytes, as for every kernel of that problem, so it cannot read past 100% of the bound
 * by re-reading K/V from cache. */
static const hr_kernel k_per_head = {.name = "t_per_head", .traffic = HR_TRAFFIC_KV_PER_HEAD};
static const hr_kernel k_per_group = {.name = "t_per_group", .traffic = HR_TRAFFIC_KV_PER_GROUP};

HR_TEST(roofline_bound_counts_compulsory_bytes)
{
    hr_ceilings c = made_up();
    hr_problem p = {.batch = 1, .heads = 32, .kv_heads = 8, .seq_q = 1, .seq_kv = 4096, .d_head = 128};
    const double kv = 2.0 * 8 * 4096 * 128 * 4, qo = 2.0 * 32 * 128 * 4;
    CHECK_NEAR(hr_min_bytes(&p), kv + qo, 0);
    CHECK_NEAR(hr_kernel_bytes(&k_per_head, &p, NULL), 4 * kv + qo, 0);
    CHECK_NEAR(hr_bound_bytes(&p, hr_kernel_bytes(&k_per_head, &p, NULL)), kv + qo, 0);
    const double flops = hr_core_flops(&p);
    double ai[2], pct[2];
    const hr_kernel *ks[2] = {&k_per_head, &k_per_group};
    for (int i = 0; i < 2; i++) {
        hr_result r = row(flops, hr_kernel_bytes(ks[i], &p, NULL), 1, 1e-3);
        r.prob = p;
        r.kernel = ks[i];
        hr_roofline_attach(&r, &c);
        ai[i] = counter(&r, "AI");
        pct[i] = counter(&r, "pct_of_roofline");
    }
    CHECK_NEAR(ai[0], flops / (kv + qo), 1e-12);
    CHECK_NEAR(ai[1], ai[0], 0);
    CHECK_NEAR(pct[0], pct[1], 0);
    /* memory-bound at 20 GB/s: the bound is the compulsory bytes' time */
    CHECK_NEAR(pct[0], (kv + qo) / 20e9 / 1e-3 * 100, 1e-9);
    /* a row without a problem (a layer phase, a made-up row) keeps its own count */
    CHECK_NEAR(hr_bound_bytes(&(hr_problem){0}, 5e6), 5e6, 0);
    CHECK_NEAR(hr_bound_bytes(&p, 0), 0, 0);
}

/* Writes text to NAME in the temp dir, loads it and expects HR_EUSAGE with a message
 * naming the file and containing want. */
static void expect_load_error(const char *name, const char *text, const char *want)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir(), name);
    if (text) hr_test_write(path, text);
    hr_ceilings c;
    int rc = hr_ceilings_load(path, &c);
    CHECKF(rc == HR_EUSAGE, "%s: status %d", name, rc);
    CHECKF(strstr(hr_errmsg(), path) != NULL, "%s: message '%s' does not name the file", name,
           hr_errmsg());
    CHECKF(strstr(hr_errmsg(), want) != NULL, "%s: message '%s' lacks '%s'", name, hr_errmsg(),
           want);
    CHECK(c.nrows == 0);
}

HR_TEST(roofline_load_errors_name_the_file)
{
    expect_load_error("missing.json", NULL, "cannot read");
    expect_load_error("empty.json", "", "empty file, not JSON");
    expect_load_error("trunc.json", "{\"headroom_ceilings\": 1, \"ceilings\": [", "JSON ends before");
    expect_load_error("two.json", "{\"headroom_ceilings\": 1} {}", "data after the end of the JSON document");
    expect_load_error("latin1.json", "{\"headroom_ceilings\": 1, \"x\": \"caf\xe9\"}", "invalid UTF-8");
    expect_load_error("other.json", "{\"benchmarks\": []}", "not a headroom ceilings file");
    expect_load_error("norows.json", "{\"headroom_ceilings\": 1, \"ceilings\": []}", "ceilings");
    expect_load_error("nothreads.json",
                      "{\"headroom_ceilings\": 1, \"ceilings\": [{\"fma_gflops\": {}, "
                      "\"triad_gbs\": 10}]}",
                      "threads");
    expect_load_error("zerothreads.json",
                      "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 0, "
                      "\"fma_gflops\": {}, \"triad_gbs\": 10}]}",
                      "threads");
    expect_load_error("nobw.json",
                      "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 1, "
                      "\"fma_gflops\": {\"avx2\": 50}}]}",
                      "triad_gbs");
    expect_load_error("badfma.json",
                      "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 1, "
                      "\"fma_gflops\": {\"avx2\": \"fast\"}, \"triad_gbs\": 10}]}",
                      "avx2");
    expect_load_error("order.json",
                      "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 2, "
                      "\"fma_gflops\": {}, \"triad_gbs\": 10}, {\"threads\": 1, "
                      "\"fma_gflops\": {}, \"triad_gbs\": 10}]}",
                      "increase");
    /* a minimal valid file loads */
    char path[256];
    snprintf(path, sizeof path, "%s/min.json", tmpdir());
    hr_test_write(path, "{\"headroom_ceilings\": 1, \"ceilings\": [{\"threads\": 2, "
                     "\"fma_gflops\": {\"sse2\": 30}, \"triad_gbs\": 12.5}]}");
    hr_ceilings c;
    CHECKF(hr_ceilings_load(path, &c) == HR_OK, "%s", hr_errmsg());
    CHECK(c.nrows == 1 && c.rows[0].threads == 2);
    CHECK_NEAR(hr_ceiling_fma(&c, 1, "generic"), 30, 0);
    CHECK_NEAR(hr_ceiling_bw(&c, 8), 12.5, 0);
    CHECK(hr_ceiling_fma(&c, 2, "avx512") == 0);
}

/* Each FMA loop does the work it claims: replay its chains in scalar float. */
HR_TEST(roofline_fma_loops_compute_their_chains)
{
    const float m = 0.75f, a = 0.5f;
    const long iters = 37;
    const int lanes[HR_FMA_NISA] = {16, 8, 4, 1};
    for (int k = 0; k < HR_FMA_NISA; k++) {
        const hr_roof_loop *L = &hr_fma_loops[k];
        if (!L->supported()) continue;
        int chains = L->chains;
        CHECKF(L->lanes == lanes[k] && L->flops_per_iter == 2.0 * chains * lanes[k], "%s",
               L->name);
        double want = 0;
        for (int j = 0; j < chains; j++) {
            float x = 1.0f + 0.01f * (float)j;
            for (long i = 0; i < iters; i++) x = k <= HR_FMA_AVX2 ? fmaf(x, m, a) : x * m + a;
            want += (double)x * lanes[k];
        }
        float got = L->run(iters, m, a);
        CHECKF(fabs(got - want) <= 1e-5 * fabs(want), "%s: %.9g, replay %.9g", L->name, got, want);
    }
}

/* Each dot loop does the work it claims: replay its chains (bf16: 2 m a per lane and
 * instruction, exact in fp32 for these values; int8: 4 u s per int32 lane). */
HR_TEST(roofline_dot_loops_compute_their_chains)
{
    const float m = 0.75f, a = 0.5f;
    const long iters = 37;
    for (int k = 0; k < HR_DOT_N; k++) {
        const hr_roof_loop *L = &hr_dot_loops[k];
        CHECKF(L->flops_per_iter == 2.0 * L->chains * L->madds, "%s", L->name);
        CHECK(strcmp(L->name, hr_dots[k].name) == 0);
        CHECK((hr_dot_absent(k) == NULL) == (hr_roof_loop_of(HR_ROOF_DOT + k) != NULL));
        if (hr_dot_absent(k)) continue;
        double want = 0;
        for (int j = 0; j < L->chains; j++)
            want += k == HR_DOT_BF16 ? (1.0 + 0.01f * (float)j + iters * 2 * m * a) * L->lanes
                    : k == HR_DOT_AMX ? (double)iters * 32 * m * a * L->lanes /* tiles start at 0 */
                                      : (double)(j + iters * 4 * 3 * 3) * L->lanes;
        float got = L->run(iters, m, a);
        CHECKF(fabs(got - want) <= 1e-5 * fabs(want), "%s: %.9g, replay %.9g", L->name, got, want);
        double per[2] = {0, 0};
        CHECK(hr_probe_run_loop(L, 2, 0.0003, per) > 0 && per[0] > 0 && per[1] > 0);
    }
    /* AMX: a loop in every x86-64 Linux build, run only where the CPU and OS allow it. */
    CHECK(hr_dot_absent(HR_DOT_AMX) != NULL || hr_dot_loops[HR_DOT_AMX].run != NULL);
    CHECK(hr_dot_absent(-1) != NULL && hr_dot_absent(HR_DOT_N) != NULL);
}

HR_TEST(roofline_probes)
{
    double per[4] = {-1, -1, -1, -1};
    double min = hr_probe_run(2, 0.0005, per);
    CHECK(min > 0);
    CHECK(per[0] > 0 && per[1] > 0);
    CHECK(min == (per[0] < per[1] ? per[0] : per[1]));
    CHECK(per[2] == -1); /* nothing written past the team */
    CHECK(hr_probe_run(1, 0.0002, NULL) > 0);

    hr_probe_buf pb;
    CHECK(hr_probe_buf_alloc(&pb, 1 << 20, 2) == HR_OK);
    CHECK(pb.n > 0 && pb.n % 16 == 0);
    double bw = hr_probe_bw(2, &pb, 0.0005, per);
    CHECK(bw > 0);
    CHECK_NEAR(bw, per[0] + per[1], 1e-9 * bw);
    /* the triad wrote b + 3c everywhere */
    int bad = 0;
    for (size_t i = 0; i < pb.n; i++) bad += pb.a[i] != 7.0f;
    CHECK(bad == 0);
    hr_probe_buf_free(&pb);
    CHECK(pb.a == NULL);
    CHECK(hr_probe_buf_alloc(&pb, 16, 1) == HR_EUSAGE);
    CHECK(hr_probe_buf_default_bytes() >= ((size_t)16 << 20));

    hr_probe_log log;
    memset(&log, 0, sizeof log);
    log.threads = 2;
    log.seconds = 0.0002;
    hr_probe_before_rep(&log, 0);
    hr_probe_after_rep(&log, 0);
    hr_probe_before_rep(&log, 1);
    hr_probe_after_rep(&log, 1);
    hr_probe_after_rep(&log, HR_MAX_REPS); /* out of range: ignored */
    CHECK(log.n == 2);
    CHECK(log.before[0] > 0 && log.after[0] > 0 && log.before[1] > 0 && log.after[1] > 0);
}

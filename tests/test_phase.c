/* test_phase.c — per-repetition probes, phase flags and filter, frac_of_ceiling, its JSON rows, rows.jsonl round trip, compare on real samples, interleaved sweeps, the one repetition loop. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ceilings.h"
#include "compare.h"
#include "config.h"
#include "phase.h"
#include "sweep.h"
#include "t.h"

/* A probed result made up by hand: reps repetitions of rep_time[i] with FMA probes of
 * per-thread GFLOP/s before[i] / after[i], 2 threads, 1e9 FLOPs, 5e8 bytes. */
static void fake(hr_result *r, int reps, const double *time, const double *before, const double *after)
{
    memset(r, 0, sizeof *r);
    r->kernel = hr_kernel_find("flash");
    r->prob = (hr_problem){1, 2, 2, 64, 64, 16, false, 0};
    r->tune = (hr_tune){0, 0, 2};
    r->flops = 1e9;
    r->bytes = 5e8;
    r->timing.iters = 1;
    r->timing.reps = reps;
    r->timing.probe_kind = HR_PROBE_FMA;
    for (int i = 0; i < reps; i++) {
        r->timing.rep_time[i] = time[i];
        r->timing.probe_before[i] = before[i];
        r->timing.probe_after[i] = after[i];
    }
}

HR_TEST(phase_flags_and_filter)
{
    /* Reps 1 and 4 change phase: 100 -> 60 (40%) and 100 -> 89 (11%); rep 2 differs 9%. */
    const double t[6] = {0.010, 0.016, 0.011, 0.010, 0.014, 0.010};
    const double b[6] = {100, 100, 100, 100, 100, 100}, a[6] = {100, 60, 91, 100, 89, 100};
    hr_result r;
    fake(&r, 6, t, b, a);
    hr_summarize(r.timing.rep_time, 6, &r.timing.s);
    hr_phase_mark(&r.timing, 0.10, false);
    CHECK(r.timing.nphase == 2 && r.timing.nexcluded == 0);
    CHECK(r.timing.phase_change[1] && r.timing.phase_change[4] && !r.timing.phase_change[2]);
    CHECK_NEAR(r.timing.s.median, 0.0105, 1e-12); /* all six */
    hr_phase_mark(&r.timing, 0.10, true);
    CHECK(r.timing.nexcluded == 2 && r.timing.s.n == 4);
    CHECK(hr_phase_excluded(&r.timing, 1) && !hr_phase_excluded(&r.timing, 0));
    CHECK_NEAR(r.timing.s.median, 0.010, 1e-12); /* 0.010 0.011 0.010 0.010 */
    CHECK_NEAR(r.timing.s.max, 0.011, 1e-12);
    /* A looser threshold keeps rep 4. */
    hr_phase_mark(&r.timing, 0.20, true);
    CHECK(r.timing.nphase == 1 && r.timing.nexcluded == 1);
    /* Every repetition flagged: nothing can be excluded, the note says so. */
    const double a2[6] = {50, 50, 50, 50, 50, 50};
    fake(&r, 6, t, b, a2);
    hr_phase_mark(&r.timing, 0.10, true);
    CHECK(r.timing.nphase == 6 && r.timing.nexcluded == 0 && r.timing.s.n == 6);
    char note[200];
    CHECK(hr_phase_note(&r, note, sizeof note) && strstr(note, "all repetitions changed phase"));
    /* Not probed: no flags, no note. */
    r.timing.probe_kind = 0;
    r.timing.nphase = 0;
    hr_phase_mark(&r.timing, 0.10, true);
    CHECK(r.timing.nphase == 0 && !hr_phase_note(&r, note, sizeof note));
}

HR_TEST(phase_frac_definition)
{
    /* 1e9 FLOPs in 10 ms = 100 GFLOP/s; slowest thread 80 before, 120 after -> mean 100
     * per thread, x 2 threads = 200: frac 0.5. */
    const double t[2] = {0.010, 0.020}, b[2] = {80, 100}, a[2] = {120, 100};
    hr_result r;
    fake(&r, 2, t, b, a);
    CHECK_NEAR(hr_phase_ceiling(&r, 0), 200, 1e-9);
    CHECK_NEAR(hr_phase_frac(&r, 0), 0.5, 1e-12);
    CHECK_NEAR(hr_phase_frac(&r, 1), 0.25, 1e-12);
    CHECK_NEAR(hr_phase_median(&r, 1), 0.375, 1e-12);
    /* Bandwidth: 5e8 bytes in 10 ms = 50 GB/s over a team triad of 100 GB/s (not x threads). */
    r.timing.probe_kind = HR_PROBE_BW;
    CHECK_NEAR(hr_phase_ceiling(&r, 0), 100, 1e-9);
    CHECK_NEAR(hr_phase_frac(&r, 0), 0.5, 1e-12);
    r.timing.probe_kind = 0;
    CHECK(hr_phase_frac(&r, 0) == 0 && hr_phase_ceiling(&r, 0) == 0);
    hr_phase_attach(&r); /* no-op without probes */
    CHECK(r.ncounters == 0);
}

/* The iteration rows of r's JSON, in order. */
static int iteration_rows(const hr_result *r, cJSON **arr, const cJSON **rows, int max)
{
    *arr = cJSON_CreateArray();
    hr_result_json_rows(r, *arr, false);
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, *arr)
    {
        const cJSON *type = cJSON_GetObjectItem(it, "run_type");
        if (!strcmp(type->valuestring, "iteration") && n < max) rows[n++] = it;
    }
    return n;
}

HR_TEST(phase_json_rows_per_repetition)
{
    const double t[4] = {0.010, 0.020, 0.0125, 0.010}, b[4] = {100, 100, 100, 100}, a[4] = {100, 100, 100, 50};
    hr_result r;
    fake(&r, 4, t, b, a);
    hr_phase_mark(&r.timing, 0.10, true);
    hr_phase_attach(&r);
    cJSON *arr;
    const cJSON *rows[8];
    CHECK(iteration_rows(&r, &arr, rows, 8) == 4);
    /* Per repetition, not one copied value: 100/200, 50/200, 80/200, 100/150. */
    CHECK_NEAR(cJSON_GetObjectItem(rows[0], "frac_of_ceiling")->valuedouble, 0.5, 1e-12);
    CHECK_NEAR(cJSON_GetObjectItem(rows[1], "frac_of_ceiling")->valuedouble, 0.25, 1e-12);
    CHECK_NEAR(cJSON_GetObjectItem(rows[2], "frac_of_ceiling")->valuedouble, 0.4, 1e-12);
    CHECK_NEAR(cJSON_GetObjectItem(rows[3], "probe_gflops")->valuedouble, 150, 1e-9);
    CHECK(!strcmp(cJSON_GetObjectItem(rows[0], "probe_kind")->valuestring, "fma"));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(rows[0], "phase_change")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(rows[3], "phase_change")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(rows[3], "excluded")) && !cJSON_GetObjectItem(rows[0], "excluded"));
    /* The median aggregate: median frac of the three kept reps (0.25 0.4 0.5) = 0.4. */
    const cJSON *it;
    int found = 0;
    cJSON_ArrayForEach(it, arr)
    {
        const cJSON *agg = cJSON_GetObjectItem(it, "aggregate_name");
        if (agg && !strcmp(agg->valuestring, "median")) {
            CHECK_NEAR(cJSON_GetObjectItem(it, "frac_of_ceiling")->valuedouble, 0.4, 1e-12);
            CHECK(cJSON_GetObjectItem(it, "phase_excluded")->valuedouble == 1);
            CHECK_NEAR(cJSON_GetObjectItem(it, "real_time")->valuedouble, 0.0125e9, 1e-3);
            found++;
        }
    }
    CHECK(found == 1);
    cJSON_Delete(arr);
}

HR_TEST(phase_rows_jsonl_roundtrip)
{
    const double t[3] = {0.010, 0.020, 0.011}, b[3] = {100, 100, 100}, a[3] = {100, 70, 95};
    hr_result r, back;
    fake(&r, 3, t, b, a);
    hr_phase_mark(&r.timing, 0.10, true);
    hr_phase_attach(&r);
    cJSON *o = hr_result_to_json(&r);
    CHECK(hr_result_from_json(o, &back) == HR_OK);
    CHECK(back.timing.probe_kind == HR_PROBE_FMA && back.timing.probe_after[1] == 70);
    CHECK(back.timing.phase_filter && back.timing.nexcluded == 1 && back.timing.phase_change[1]);
    CHECK(back.timing.s.median == r.timing.s.median);
    CHECK_NEAR(hr_phase_frac(&back, 2), hr_phase_frac(&r, 2), 1e-15);
    /* A malformed probe array is refused, not half-read. */
    cJSON_ReplaceItemInObject(o, "probe_after", cJSON_CreateString("x"));
    CHECK(hr_result_from_json(o, &back) == HR_EUSAGE && strstr(hr_errmsg(), "probe_after"));
    cJSON_Delete(o);
}

/* A results file holding r's rows, parsed as compare reads it. */
static int as_file(const hr_result *r, const char *path, hr_bench_file *f)
{
    cJSON *doc = cJSON_CreateObject();
    hr_result_json_rows(r, cJSON_AddArrayToObject(doc, "benchmarks"), false);
    char *txt = cJSON_PrintUnformatted(doc);
    int st = hr_bench_file_parse(txt, strlen(txt), path, f);
    free(txt);
    cJSON_Delete(doc);
    return st;
}

HR_TEST(phase_compare_normalized_uses_repetitions)
{
    /* Base: frac 0.50 +- 1%; new: 10% slower per repetition at the same probe; one new
     * repetition changed phase and was excluded. */
    double t0[8], t1[8], b[8], a[8];
    for (int i = 0; i < 8; i++) {
        t0[i] = 0.010 * (1 + 0.002 * i);
        t1[i] = 0.011 * (1 + 0.002 * ((i * 3) % 8));
        b[i] = a[i] = 100;
    }
    double a1[8];
    memcpy(a1, a, sizeof a1);
    a1[5] = 40;
    hr_result rb, rn;
    fake(&rb, 8, t0, b, a);
    fake(&rn, 8, t1, b, a1);
    hr_phase_mark(&rb.timing, 0.10, true);
    hr_phase_mark(&rn.timing, 0.10, true);
    hr_bench_file fb, fn;
    CHECK(as_file(&rb, "base.json", &fb) == HR_OK);
    CHECK(as_file(&rn, "new.json", &fn) == HR_OK);
    CHECK(fn.nexcluded == 1 && fn.nbench == 1 && fn.bench[0].n == 7);
    hr_cmp_opts o = {.threshold_pct = 5, .alpha = 0.05, .metric = HR_METRIC_NORMALIZED};
    hr_cmp c;
    CHECK(hr_compare(&fb, &fn, &o, &c) == HR_OK);
    CHECK(c.nrows == 1 && c.rows[0].tested && c.rows[0].n_base == 8 && c.rows[0].n_new == 7);
    CHECK(c.rows[0].verdict == HR_VERDICT_REGRESSION && c.rows[0].delta_pct < -8);
    int warned = 0;
    for (int i = 0; i < c.nwarn; i++) warned += strstr(c.warn[i], "excluded by the phase filter") != NULL;
    CHECK(warned == 1);
    hr_cmp_free(&c);
    /* Identical samples: same. */
    CHECK(hr_compare(&fb, &fb, &o, &c) == HR_OK && c.rows[0].verdict == HR_VERDICT_SAME);
    hr_cmp_free(&c);
    hr_bench_file_free(&fb);
    hr_bench_file_free(&fn);
}

HR_TEST(phase_probe_hooks_and_kind)
{
    static hr_timing t;
    memset(&t, 0, sizeof t);
    hr_phase_probe p = {HR_PROBE_FMA, 1, 0.0002, NULL, &t, NULL};
    hr_phase_before(&p, 0);
    hr_phase_after(&p, 0);
    CHECK(t.probe_kind == HR_PROBE_FMA && t.probe_before[0] > 0 && t.probe_after[0] > 0);
    hr_phase_after(&p, HR_MAX_REPS); /* out of range: ignored */
    const hr_probe_buf *pb = hr_phase_bw_buf(1);
    CHECK(pb != NULL && pb->n > 0);
    hr_phase_probe q = {HR_PROBE_BW, 1, 0.0002, pb, &t, NULL};
    hr_phase_before(&q, 1);
    CHECK(t.probe_kind == HR_PROBE_BW && t.probe_before[1] > 0);
    /* Any machine's balance is well inside (1e-3, 1e6) FLOP/byte. */
    CHECK(hr_phase_balance(1, hr_fma_build_loop()) > 0);
    /* A row whose path runs a dot product is probed with that loop, where the CPU has it. */
    const hr_roof_loop *dot = hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_BF16);
    if (dot) {
        hr_phase_probe d = {HR_PROBE_FMA, 1, 0.0002, NULL, &t, dot};
        hr_phase_before(&d, 2);
        CHECK(t.probe_kind == HR_PROBE_FMA && t.probe_before[2] > 0);
        CHECK(hr_phase_balance(1, HR_ROOF_DOT + HR_DOT_BF16) > 0);
    }
    /* The AMX loop exists where the CPU has AMX and the OS grants it (test_amx.c), and then
     * probes an amx row like the other dot loops; elsewhere such rows take the build's FMA. */
    const hr_roof_loop *amx = hr_roof_loop_of(HR_ROOF_DOT + HR_DOT_AMX);
    CHECK(!amx == !!hr_dot_absent(HR_DOT_AMX));
    if (amx) {
        hr_phase_probe d = {HR_PROBE_FMA, 1, 0.0002, NULL, &t, amx};
        hr_phase_before(&d, 3);
        CHECK(t.probe_kind == HR_PROBE_FMA && t.probe_before[3] > 0);
    }
    CHECK(hr_phase_kind_for(1, 1e12, 1) == HR_PROBE_BW);              /* past any cache, AI 1e-12 */
    CHECK(hr_phase_kind_for(1, 1e3, 1) == HR_PROBE_FMA);              /* cache-resident: FMA */
    CHECK(hr_phase_kind_for(1e6, 1, 1) == HR_PROBE_FMA);
    CHECK(hr_phase_kind_for(1, 0, 1) == HR_PROBE_FMA);
}

HR_TEST(phase_plant_delay_env)
{
    unsetenv("HEADROOM_PLANT_DELAY");
    CHECK(hr_phase_plant_delay() == 0);
    setenv("HEADROOM_PLANT_DELAY", "0.1", 1);
    CHECK(hr_phase_plant_delay() == 0.1);
    setenv("HEADROOM_PLANT_DELAY", "2", 1);
    CHECK(hr_phase_plant_delay() < 0);
    setenv("HEADROOM_PLANT_DELAY", "x", 1);
    CHECK(hr_phase_plant_delay() < 0);
    unsetenv("HEADROOM_PLANT_DELAY");
}

HR_TEST(phase_config_keys)
{
    static hr_sweep_config c;
    CHECK(hr_config_parse("[sweep]\nkernels = naive\n", "t.ini", &c) == HR_OK);
    CHECK(c.probe == HR_PROBE_AUTO && c.interleave && !c.phase_filter && c.phase_threshold == HR_PHASE_THRESHOLD);
    CHECK(hr_config_parse("[sweep]\nprobe = false\ninterleave = false\nphase_filter = true\n"
                          "phase_threshold = 20\n", "t.ini", &c) == HR_OK);
    CHECK(c.probe == HR_PROBE_OFF && !c.interleave && c.phase_filter && c.phase_threshold == 0.2);
    CHECK(hr_config_parse("[sweep]\nprobe = bw\n", "t.ini", &c) == HR_OK && c.probe == HR_PROBE_BW);
    CHECK(hr_config_parse("[sweep]\n\nprobe = maybe\n", "t.ini", &c) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "t.ini:3: probe: 'maybe'") != NULL);
    CHECK(hr_config_parse("[sweep]\nphase_threshold = 0\n", "t.ini", &c) == HR_EUSAGE);
}

HR_TEST(phase_interleaved_bench_sessions)
{
    /* Two kernels on one shared set of tensors, repetitions alternating: each result
     * gets every repetition, probes and a valid check. */
    hr_bench_spec s = {
        .prob = {1, 2, 2, 32, 32, 16, false, 0},
        .tune = {0, 0, 1},
        .seed = 3,
        .timer = {.reps = 3, .min_time = 0, .warmup = 0},
        .check = true,
        .probe = HR_PROBE_AUTO,
    };
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &s.prob, s.layout, s.dist, s.seed) == HR_OK);
    static hr_bench_session b[2];
    static hr_result r[2];
    const char *names[2] = {"naive", "flash"};
    for (int i = 0; i < 2; i++) CHECK(hr_bench_open(hr_kernel_find(names[i]), &s, &t, &b[i], &r[i]) == HR_OK);
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < 2; i++) hr_bench_rep(&b[(i + rep) % 2], rep, true);
    for (int i = 0; i < 2; i++) {
        CHECK(hr_bench_close(&b[i], 3) == HR_OK);
        CHECK(r[i].timing.reps == 3 && r[i].timing.rep_time[2] > 0 && r[i].checked);
        CHECK(r[i].check.verdict != HR_CHECK_FAIL && r[i].timing.probe_kind != 0);
        CHECK(hr_phase_frac(&r[i], 2) > 0);
    }
    hr_tensors_free(&t);
}

/* A hook that counts its calls and raises the stop flag after repetition stop_after. */
typedef struct {
    int before, after, last_rep, stop_after;
    volatile sig_atomic_t stop;
} hooks;
static void count_before(void *c, int rep)
{
    hooks *h = c;
    h->before++;
    h->last_rep = rep;
}
static void count_after(void *c, int rep)
{
    hooks *h = c;
    h->after++;
    if (rep == h->stop_after) h->stop = 1;
}
static void nop(void *c) { (void)c; }

HR_TEST(timer_reps_one_loop_stops_on_signal)
{
    static hr_timing t;
    hooks h = {.stop_after = 1};
    hr_timer_opts o = {.reps = 5, .before_rep = count_before, .after_rep = count_after, .hook_ctx = &h, .stop = &h.stop};
    hr_time(nop, NULL, &o, &t);
    CHECK(t.aborted && t.reps == 2 && h.before == 2 && h.after == 2 && h.last_rep == 1);
    CHECK(t.s.n == 2 && t.iters >= 1);
    /* The bench runs the same loop: the spec's hooks around each repetition, inside the
     * probes, and the stop flag ends it with the repetitions done. */
    h = (hooks){.stop_after = 2};
    hr_bench_spec s = {
        .prob = {1, 2, 2, 16, 16, 8, false, 0},
        .timer = {.reps = 6, .before_rep = count_before, .after_rep = count_after, .hook_ctx = &h, .stop = &h.stop},
        .probe = HR_PROBE_FMA,
    };
    static hr_result r;
    CHECK(hr_bench_run(hr_kernel_find("naive"), &s, &r) == HR_OK);
    CHECK(r.timing.aborted && r.timing.reps == 3 && h.before == 3 && h.after == 3);
    CHECK(r.timing.s.n == 3 && r.timing.rep_time[2] > 0 && r.timing.probe_after[2] > 0);
    /* Without a stop: every repetition, clamped to [1, HR_MAX_REPS]. */
    h = (hooks){.stop_after = -1};
    s.timer.reps = 0;
    CHECK(hr_bench_run(hr_kernel_find("naive"), &s, &r) == HR_OK);
    CHECK(!r.timing.aborted && r.timing.reps == 1 && h.before == 1);
}

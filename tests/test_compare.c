/* test_compare.c — Mann-Whitney U against scipy, results-file parsing, compare verdicts, the
 * machine's shift and the corrections on fixtures. */
#include <string.h>

#include "compare.h"
#include "headroom.h"
#include "phase.h"
#include "stats.h"
#include "t.h"
#include "verdict.h"

#define FIX "tests/fixtures/compare/"
#define SLOW_ROW "flash/B1/H16/G16/N2048/M2048/d64/causal/bhnd/T2"
#define FAST_ROW "blocked/B1/H16/G16/N1024/M1024/d64/none/bhnd/T2"
#define NOISY_ROW "naive/B1/H8/G8/N512/M512/d64/none/bhnd/T1"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Expected values computed offline with scipy 1.17.1:
 *   scipy.stats.mannwhitneyu(x, y, method=M)  (use_continuity=True, two-sided)
 * statistic is U1 (of x), pvalue the two-sided p. */
HR_TEST(mwu_matches_scipy)
{
    static const double sep3x[] = {1, 2, 3}, sep3y[] = {4, 5, 6};
    static const double sep9x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const double sep9y[] = {10, 11, 12, 13, 14, 15, 16, 17, 18};
    static const double ix[] = {1.1, 2.4, 3.3, 5.0, 7.2}, iy[] = {2.0, 4.1, 6.3, 8.8, 9.9, 10.5};
    static const double tx[] = {1, 2, 2, 3, 3, 3, 4}, ty[] = {2, 3, 3, 4, 4, 5, 5, 6};
    static const double ax[] = {5, 5, 5}, ay[] = {5, 5, 5, 5};
    double bx[60], by[55];
    for (int i = 0; i < 60; i++) bx[i] = i;
    for (int i = 0; i < 55; i++) by[i] = i + 20.5;
    struct {
        const char *what;
        const double *x, *y;
        size_t n1, n2;
        hr_mwu_method method;
        double u1, p;
    } cases[] = {
        /* method="exact" */
        {"separated 3/3", sep3x, sep3y, 3, 3, HR_MWU_EXACT, 0.0, 0.1},
        {"separated 9/9", sep9x, sep9y, 9, 9, HR_MWU_EXACT, 0.0, 4.113533525298231e-05},
        {"interleaved 5/6", ix, iy, 5, 6, HR_MWU_EXACT, 7.0, 0.17748917748917747},
        {"separated 4/4 reversed", sep9y, sep9x, 4, 4, HR_MWU_EXACT, 16.0, 0.02857142857142857},
        /* method="asymptotic" (ties, or a side larger than HR_MWU_EXACT_MAX) */
        {"ties 7/8", tx, ty, 7, 8, HR_MWU_NORMAL, 11.0, 0.04988443697992588},
        {"all equal 3/4", ax, ay, 3, 4, HR_MWU_NORMAL, 6.0, 1.0},
        {"large 60/55", bx, by, 60, 55, HR_MWU_NORMAL, 780.0, 1.1258207796772894e-06},
    };
    for (size_t i = 0; i < N(cases); i++) {
        hr_mwu_result r = hr_mwu(cases[i].x, cases[i].n1, cases[i].y, cases[i].n2);
        CHECKF(r.method == cases[i].method, "%s: method %s", cases[i].what,
               hr_mwu_method_names[r.method]);
        CHECKF(r.u1 == cases[i].u1, "%s: U1 %g, want %g", cases[i].what, r.u1, cases[i].u1);
        CHECKF(fabs(r.p - cases[i].p) <= 1e-12 * cases[i].p, "%s: p %.17g, want %.17g",
               cases[i].what, r.p, cases[i].p);
    }
}

HR_TEST(mwu_min_p)
{
    CHECK_NEAR(hr_mwu_min_p(3, 3), 0.1, 1e-15);        /* 2 / C(6,3)   */
    CHECK_NEAR(hr_mwu_min_p(4, 4), 2.0 / 70, 1e-15);   /* 2 / C(8,4)   */
    CHECK_NEAR(hr_mwu_min_p(9, 9), 2.0 / 48620, 1e-18);/* 2 / C(18,9)  */
    CHECK_NEAR(hr_mwu_min_p(2, 5), 2.0 / 21, 1e-15);   /* 2 / C(7,2)   */
    CHECK(hr_mwu_min_p(1, 1) == 1);
    CHECK(hr_mwu_min_p(0, 5) == 1);
    /* symmetric in the order of the samples */
    CHECK(hr_mwu_min_p(3, 7) == hr_mwu_min_p(7, 3));
}

HR_TEST(median_geomean)
{
    static const double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, g[] = {1, 4, 16};
    CHECK(hr_median(odd, 3) == 3);
    CHECK(hr_median(even, 4) == 2.5);
    CHECK(isnan(hr_median(odd, 0)));
    CHECK_NEAR(hr_geomean(g, 3), 4, 1e-12);
    CHECK(even[0] == 4); /* input untouched */
}

static int parse(const char *text, hr_bench_file *f)
{
    return hr_bench_file_parse(text, strlen(text), "mem.json", f);
}

HR_TEST(parse_rejects_bad_input)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"", "empty"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1, ", "truncated"},
        {"{\"benchmarks\": [{\"name\": \"a\", real_time: 1}]}", "invalid JSON at line 1"},
        {"[1, 2]", "not a JSON object"},
        {"{\"context\": {}}", "no \"benchmarks\" array"},
        {"{\"benchmarks\": {}}", "no \"benchmarks\" array"},
        {"{\"benchmarks\": []}", "no benchmark rows"},
        {"{\"benchmarks\": [3]}", "benchmarks[0] is not an object"},
        {"{\"benchmarks\": [{\"real_time\": 1, \"time_unit\": \"ns\"}]}", "has no \"name\""},
        {"{\"benchmarks\": [{\"name\": \"a\", \"real_time\": \"1\", \"time_unit\": \"ns\"}]}",
         "real_time is not a number"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1}]}", "without a time_unit"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1, \"time_unit\": \"min\"}]}",
         "unknown time_unit 'min'"},
        {"{\"benchmarks\": [{\"name\": \"a\", \"error_occurred\": true}]}",
         "every row has error_occurred"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        hr_bench_file f;
        int st = parse(bad[i].text, &f);
        CHECKF(st == HR_EUSAGE, "case %zu: status %d", i, st);
        CHECKF(strstr(hr_errmsg(), "mem.json: ") == hr_errmsg(), "case %zu: '%s'", i,
               hr_errmsg());
        CHECKF(strstr(hr_errmsg(), bad[i].msg) != NULL, "case %zu: '%s' lacks '%s'", i,
               hr_errmsg(), bad[i].msg);
        CHECK(f.nbench == 0 && f.bench == NULL);
    }
}

HR_TEST(parse_groups_units_and_aggregates)
{
    /* Two repetitions of a (in us and ms), aggregates that must be ignored, b known only
     * by its median aggregate (--benchmark_report_aggregates_only), an errored row. */
    const char *text =
        "{\"context\": {\"host_name\": \"h\"}, \"benchmarks\": ["
        "{\"name\": \"a\", \"run_name\": \"a\", \"run_type\": \"iteration\", \"real_time\": 1.5,"
        " \"time_unit\": \"us\", \"frac_of_ceiling\": 0.5},"
        "{\"name\": \"b_mean\", \"run_name\": \"b\", \"run_type\": \"aggregate\","
        " \"aggregate_name\": \"mean\", \"real_time\": 9, \"time_unit\": \"s\"},"
        "{\"name\": \"a\", \"run_name\": \"a\", \"run_type\": \"iteration\", \"real_time\": 0.002,"
        " \"time_unit\": \"ms\", \"unknown_field\": [1, 2]},"
        "{\"name\": \"a_median\", \"run_name\": \"a\", \"run_type\": \"aggregate\","
        " \"aggregate_name\": \"median\", \"real_time\": 1.75, \"time_unit\": \"us\"},"
        "{\"name\": \"b_median\", \"run_name\": \"b\", \"run_type\": \"aggregate\","
        " \"aggregate_name\": \"median\", \"real_time\": 2, \"time_unit\": \"s\"},"
        "{\"name\": \"c\", \"error_occurred\": true, \"error_message\": \"x\"}"
        "]}";
    hr_bench_file f;
    CHECKF(parse(text, &f) == HR_OK, "%s", hr_errmsg());
    CHECK(f.nbench == 2);
    CHECK(f.nerrored == 1);
    CHECK(f.context != NULL);
    if (f.nbench == 2) {
        CHECK(!strcmp(f.bench[0].name, "a") && f.bench[0].n == 2 && !f.bench[0].from_aggregate);
        CHECK_NEAR(f.bench[0].time_ns[0], 1500, 1e-9);
        CHECK_NEAR(f.bench[0].time_ns[1], 2000, 1e-9);
        CHECK(f.bench[0].frac[0] == 0.5 && isnan(f.bench[0].frac[1]));
        CHECK(!strcmp(f.bench[1].name, "b") && f.bench[1].n == 1 && f.bench[1].from_aggregate);
        CHECK_NEAR(f.bench[1].time_ns[0], 2e9, 1e-3);
    }
    hr_bench_file_free(&f);
}

/* Loads two fixtures and compares them with the options o. */
static int load_cmp(const char *a, const char *b, const hr_cmp_opts *o, hr_bench_file *fa,
                    hr_bench_file *fb, hr_cmp *c)
{
    memset(c, 0, sizeof *c);
    int st = hr_bench_file_load(a, fa);
    if (st) return st;
    if ((st = hr_bench_file_load(b, fb))) {
        hr_bench_file_free(fa);
        return st;
    }
    return hr_compare(fa, fb, o, c);
}

/* Compares two fixtures with the given metric, threshold 5%, alpha 0.05, the defaults
 * (Holm, shift on). */
static int run_cmp(const char *a, const char *b, hr_cmp_metric m, const char *filter,
                   hr_bench_file *fa, hr_bench_file *fb, hr_cmp *c)
{
    hr_cmp_opts o = {.threshold_pct = 5, .alpha = 0.05, .metric = m, .filter = filter};
    return load_cmp(a, b, &o, fa, fb, c);
}

static void done(hr_bench_file *fa, hr_bench_file *fb, hr_cmp *c)
{
    hr_cmp_free(c);
    hr_bench_file_free(fa);
    hr_bench_file_free(fb);
}

static const hr_cmp_row *row(const hr_cmp *c, const char *name)
{
    for (int i = 0; i < c->nrows; i++)
        if (!strcmp(c->rows[i].name, name)) return &c->rows[i];
    return NULL;
}

static int has_warn(const hr_cmp *c, const char *needle)
{
    for (int i = 0; i < c->nwarn; i++)
        if (strstr(c->warn[i], needle)) return 1;
    return 0;
}

HR_TEST(compare_identical_is_same)
{
    hr_bench_file a, b;
    hr_cmp c;
    int st = run_cmp(FIX "base.json", FIX "same.json", HR_METRIC_TIME, NULL, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    CHECK(c.nrows == 5 && c.count[HR_VERDICT_SAME] == 5);
    CHECK(c.geomean_delta_pct == 0);
    CHECK(c.nwarn == 0);
    for (int i = 0; i < c.nrows; i++) {
        CHECK(c.rows[i].tested && c.rows[i].n_base == 9 && c.rows[i].n_new == 9);
        CHECK(c.rows[i].test.p == 1 && c.rows[i].delta_pct == 0);
    }
    done(&a, &b, &c);
}

HR_TEST(compare_planted_slowdown)
{
    hr_bench_file a, b;
    hr_cmp c;
    int st = run_cmp(FIX "base.json", FIX "slow.json", HR_METRIC_TIME, NULL, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    CHECK(c.count[HR_VERDICT_REGRESSION] == 1 && c.count[HR_VERDICT_SAME] == 4);
    const hr_cmp_row *r = row(&c, SLOW_ROW);
    CHECK(r != NULL);
    if (r) {
        CHECK(r->verdict == HR_VERDICT_REGRESSION);
        CHECK_NEAR(r->delta_pct, 10, 1e-9);
        /* every new repetition above every base one: U1 = 0, p = 2 / C(18, 9) */
        CHECK(r->test.method == HR_MWU_EXACT && r->test.u1 == 0);
        CHECK_NEAR(r->test.p, 2.0 / 48620, 1e-18);
        /* Holm over the 5 tested rows; the other four have p = 1 */
        CHECK_NEAR(r->p_adj, 5 * 2.0 / 48620, 1e-17);
        CHECK_NEAR(r->adj_delta_pct, 10, 1e-9); /* 5 rows: no shift estimated */
    }
    CHECK(c.shift.kind == HR_SHIFT_FEW && c.shift.s == 0 && c.n_tested == 5);
    CHECK(hr_cmp_status(&c) == HR_EFAIL);
    /* geometric mean of the ratios 1.1, 1, 1, 1, 1 */
    CHECK_NEAR(c.geomean_delta_pct, 100 * (pow(1.1, 0.2) - 1), 1e-9);
    cJSON *j = hr_cmp_json(&c);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "counts"), "regression")->valuedouble == 1);
    cJSON_Delete(j);
    done(&a, &b, &c);

    /* the same file judged on frac_of_ceiling: lower is worse, 1/1.1 - 1 = -9.09% */
    st = run_cmp(FIX "base.json", FIX "slow.json", HR_METRIC_NORMALIZED, NULL, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    r = row(&c, SLOW_ROW);
    CHECK(c.count[HR_VERDICT_REGRESSION] == 1 && r && r->verdict == HR_VERDICT_REGRESSION);
    if (r) CHECK_NEAR(r->delta_pct, 100 * (1 / 1.1 - 1), 1e-9);
    done(&a, &b, &c);

    /* --filter keeps only the rows it matches */
    st = run_cmp(FIX "base.json", FIX "slow.json", HR_METRIC_TIME, "^(naive|gqa)/", &a, &b, &c);
    CHECK(st == HR_OK && c.nrows == 2 && c.count[HR_VERDICT_REGRESSION] == 0);
    done(&a, &b, &c);
}

HR_TEST(compare_improvement_and_noise)
{
    hr_bench_file a, b;
    hr_cmp c;
    int st = run_cmp(FIX "base.json", FIX "fast.json", HR_METRIC_TIME, NULL, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    const hr_cmp_row *r = row(&c, FAST_ROW);
    CHECK(r && r->verdict == HR_VERDICT_IMPROVEMENT && c.count[HR_VERDICT_REGRESSION] == 0);
    if (r) CHECK_NEAR(r->delta_pct, -15, 1e-9);
    done(&a, &b, &c);

    /* 6% slower in the median with +-15% noise. scipy 1.17.1 on the fixture's 9 + 9
     * real_time values: mannwhitneyu(base, new, method="exact") -> U1 24.0,
     * p 0.16149732620320856. Beyond the threshold, not significant: noise. */
    st = run_cmp(FIX "base.json", FIX "noisy.json", HR_METRIC_TIME, NULL, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    r = row(&c, NOISY_ROW);
    CHECK(r && r->verdict == HR_VERDICT_NOISE && c.count[HR_VERDICT_REGRESSION] == 0);
    if (r) {
        CHECK_NEAR(r->delta_pct, 6, 1e-9);
        CHECK(r->test.u1 == 24);
        CHECK_NEAR(r->test.p, 0.16149732620320856, 1e-13);
        CHECK_NEAR(r->p_adj, 5 * 0.16149732620320856, 1e-12);
    }
    done(&a, &b, &c);
}

HR_TEST(compare_units_and_context)
{
    hr_bench_file a, b;
    hr_cmp c;
    /* the same times written in ms: equal up to rounding */
    int st = run_cmp(FIX "base.json", FIX "ms.json", HR_METRIC_TIME, NULL, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    CHECK(c.count[HR_VERDICT_SAME] == 5);
    for (int i = 0; i < c.nrows; i++) CHECK(fabs(c.rows[i].delta_pct) < 1e-9);
    CHECK(c.nwarn == 0);
    done(&a, &b, &c);

    st = run_cmp(FIX "base.json", FIX "other_machine.json", HR_METRIC_TIME, NULL, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    CHECK(has_warn(&c, "different machines") && has_warn(&c, "cpu_model"));
    CHECK(has_warn(&c, "different builds") && has_warn(&c, "build_id"));
    done(&a, &b, &c);
}

HR_TEST(compare_too_few_repetitions)
{
    hr_bench_file a, b;
    hr_cmp c;
    int st = run_cmp(FIX "few_base.json", FIX "few_slow.json", HR_METRIC_TIME, NULL, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    const hr_cmp_row *r = row(&c, SLOW_ROW);
    /* 10% slower, fully separated, but with 3 + 3 samples p cannot go below 0.1 */
    CHECK(r && r->verdict == HR_VERDICT_NOISE && !r->can_reach);
    if (r) CHECK_NEAR(r->test.p, 0.1, 1e-15);
    /* Holm over 5 tested rows: a row that changed alone needs p < 0.05 / 5 = 0.01,
     * which 5 + 5 repetitions can give (2 / C(10, 5) = 0.0079) and 4 + 4 cannot */
    CHECK(has_warn(&c, "smallest possible p is 0.1 >= 0.01 (alpha 0.05 over 5 tested rows, holm)"));
    CHECK(has_warn(&c, "at least 5 repetitions"));
    done(&a, &b, &c);
}

HR_TEST(compare_google_benchmark_without_repetitions)
{
    hr_bench_file a, b;
    hr_cmp c;
    int st = run_cmp(FIX "gbench_base.json", FIX "gbench_slow.json", HR_METRIC_TIME, NULL, &a,
                     &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    CHECK(c.nrows == 4 && c.n_untested == 4 && a.nerrored == 1);
    const hr_cmp_row *r = row(&c, "BM_attention/1024");
    CHECK(r && !r->tested && r->verdict == HR_VERDICT_REGRESSION);
    if (r) CHECK_NEAR(r->delta_pct, 10, 1e-9);
    CHECK(c.count[HR_VERDICT_REGRESSION] == 1);
    CHECK(has_warn(&c, "threshold alone"));
    CHECK(has_warn(&c, "error_occurred"));
    done(&a, &b, &c);

    /* no frac_of_ceiling in Google Benchmark's rows */
    st = run_cmp(FIX "gbench_base.json", FIX "gbench_slow.json", HR_METRIC_NORMALIZED, NULL, &a,
                 &b, &c);
    CHECK(st == HR_EUSAGE && strstr(hr_errmsg(), "frac_of_ceiling"));
    CHECK(strstr(hr_errmsg(), "gbench_base.json") != NULL);
    hr_bench_file_free(&a);
    hr_bench_file_free(&b);
}

HR_TEST(compare_unusable_input)
{
    static const char *const files[] = {FIX "malformed.json", FIX "truncated.json",
                                        FIX "nobench.json", FIX "does-not-exist.json"};
    for (size_t i = 0; i < N(files); i++) {
        hr_bench_file f;
        CHECKF(hr_bench_file_load(files[i], &f) == HR_EUSAGE, "%s loaded", files[i]);
        CHECKF(strstr(hr_errmsg(), files[i]) != NULL, "'%s' does not name %s", hr_errmsg(),
               files[i]);
    }
    hr_bench_file a, b;
    hr_cmp c;
    /* no common names */
    int st = run_cmp(FIX "base.json", FIX "gbench_base.json", HR_METRIC_TIME, NULL, &a, &b, &c);
    CHECK(st == HR_EUSAGE && strstr(hr_errmsg(), "matches"));
    hr_bench_file_free(&a);
    hr_bench_file_free(&b);
    st = run_cmp(FIX "base.json", FIX "same.json", HR_METRIC_TIME, "([", &a, &b, &c);
    CHECK(st == HR_EUSAGE && strstr(hr_errmsg(), "--filter"));
    hr_bench_file_free(&a);
    hr_bench_file_free(&b);
}

/* A counter written unchanged into every repetition row is one observation: compare
 * must not test nine copies of it as nine samples. */
HR_TEST(compare_counter_copied_per_repetition)
{
    char a[2048], b[2048];
    for (int side = 0; side < 2; side++) {
        char *t = side ? b : a;
        int len = snprintf(t, 2048, "{\"benchmarks\": [");
        for (int rep = 0; rep < 5; rep++)
            len += snprintf(t + len, 2048 - (size_t)len,
                            "%s{\"name\": \"k\", \"real_time\": %d, \"time_unit\": \"ns\", "
                            "\"frac_of_ceiling\": %g}",
                            rep ? ", " : "", 10 + rep + 10 * side, side ? 0.4 : 0.5);
        snprintf(t + len, 2048 - (size_t)len, "]}");
    }
    hr_bench_file fa, fb;
    CHECK(hr_bench_file_parse(a, strlen(a), "a.json", &fa) == HR_OK);
    CHECK(hr_bench_file_parse(b, strlen(b), "b.json", &fb) == HR_OK);
    hr_cmp_opts o = {.threshold_pct = 5, .alpha = 0.05, .metric = HR_METRIC_NORMALIZED};
    hr_cmp c;
    CHECK(hr_compare(&fa, &fb, &o, &c) == HR_OK);
    CHECK(c.nrows == 1);
    if (c.nrows == 1) {
        /* one value per side: untested, -20% judged on the threshold alone */
        CHECK(c.rows[0].n_base == 1 && c.rows[0].n_new == 1 && !c.rows[0].tested);
        CHECK(c.rows[0].verdict == HR_VERDICT_REGRESSION);
        CHECK_NEAR(c.rows[0].delta_pct, -20, 1e-9);
    }
    CHECK(has_warn(&c, "per-result counter") && has_warn(&c, "threshold alone"));
    hr_cmp_free(&c);
    /* the times of the same rows are real repetitions and are tested */
    o.metric = HR_METRIC_TIME;
    CHECK(hr_compare(&fa, &fb, &o, &c) == HR_OK);
    CHECK(c.nrows == 1 && c.rows[0].tested && c.rows[0].n_base == 5);
    hr_cmp_free(&c);
    hr_bench_file_free(&fa);
    hr_bench_file_free(&fb);
}

/* Compares two fixtures as run_cmp does, with a correction and the shift on or off. */
static int run_opts(const char *a, const char *b, hr_cmp_metric m, hr_padj corr, bool no_shift,
                    hr_bench_file *fa, hr_bench_file *fb, hr_cmp *c)
{
    hr_cmp_opts o = {.threshold_pct = 5, .alpha = 0.05, .metric = m, .correction = corr,
                     .no_shift = no_shift};
    return load_cmp(a, b, &o, fa, fb, c);
}

#define SHIFT_ROW "flash/B1/H8/G8/N1024/M1024/d64/none/bhnd/T2"

HR_TEST(compare_machine_shift)
{
    hr_bench_file a, b;
    hr_cmp c;
    /* every row 25% slower, the probes 20% lower: the machine */
    int st = run_opts(FIX "shift_base.json", FIX "shift_machine_slow.json", HR_METRIC_TIME,
                      HR_PADJ_HOLM, false, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    CHECK(a.bench[0].probe_kind == HR_PROBE_FMA && a.bench[7].probe_kind == HR_PROBE_BW);
    CHECK(c.shift.kind == HR_SHIFT_MACHINE && c.shift.nprobed == 8 && c.nrows == 8);
    CHECK_NEAR(c.shift.c, log(1.25), 1e-12);
    CHECK_NEAR(c.shift.m, log(1.25), 1e-12);
    CHECK(c.count[HR_VERDICT_SAME] == 8 && hr_cmp_status(&c) == HR_OK);
    for (int i = 0; i < c.nrows; i++) {
        CHECK_NEAR(c.rows[i].delta_pct, 25, 1e-9);
        CHECK(fabs(c.rows[i].adj_delta_pct) < 1e-9);
        CHECK_NEAR(c.rows[i].probe_pct, -20, 1e-9);
    }
    CHECK(strstr(c.shift_note, "25.0% slower across 8 rows") &&
          strstr(c.shift_note, "the machine, not the code (probes: 25.0% slower)"));
    done(&a, &b, &c);
    /* the same without the shift: 8 regressions */
    st = run_opts(FIX "shift_base.json", FIX "shift_machine_slow.json", HR_METRIC_TIME,
                  HR_PADJ_HOLM, true, &a, &b, &c);
    CHECK(st == HR_OK && c.shift.kind == HR_SHIFT_OFF && c.count[HR_VERDICT_REGRESSION] == 8);
    CHECK(hr_cmp_status(&c) == HR_EFAIL);
    done(&a, &b, &c);
    /* a faster machine */
    st = run_opts(FIX "shift_base.json", FIX "shift_machine_fast.json", HR_METRIC_TIME,
                  HR_PADJ_HOLM, false, &a, &b, &c);
    CHECK(st == HR_OK && c.shift.kind == HR_SHIFT_MACHINE && c.count[HR_VERDICT_SAME] == 8);
    CHECK(strstr(c.shift_note, "20.0% faster across 8 rows") != NULL);
    done(&a, &b, &c);
    /* one row 10% slower inside the machine's 25%: it alone is a regression, its
     * samples scaled by 1/1.25 before the test (fully separated: p = 2 / C(18, 9)) */
    st = run_opts(FIX "shift_base.json", FIX "shift_machine_plus.json", HR_METRIC_TIME,
                  HR_PADJ_HOLM, false, &a, &b, &c);
    CHECK(st == HR_OK && c.shift.kind == HR_SHIFT_MACHINE);
    const hr_cmp_row *r = row(&c, SHIFT_ROW);
    CHECK(r && r->verdict == HR_VERDICT_REGRESSION && c.count[HR_VERDICT_REGRESSION] == 1);
    if (r) {
        CHECK_NEAR(r->delta_pct, 37.5, 1e-9);
        CHECK_NEAR(r->adj_delta_pct, 10, 1e-9);
        CHECK_NEAR(r->test.p, 2.0 / 48620, 1e-18);
    }
    CHECK(hr_cmp_status(&c) == HR_EFAIL);
    done(&a, &b, &c);
}

/* What each shift fixture must give: its kind, exit status and regressions. */
HR_TEST(compare_code_shift_and_undecided)
{
    static const struct {
        const char *base, *new_, *note;
        hr_shift_kind kind;
        int status, regressions;
    } cases[] = {
        /* every row 10% slower, the probes unchanged: the code's, and it fails */
        {"shift_base", "shift_code_slow", "the rest (10.0% slower) is the code's", HR_SHIFT_CODE,
         HR_EFAIL, 8},
        /* half the rows 30% slower */
        {"shift_base", "shift_uneven", "the rows moved unevenly", HR_SHIFT_UNEVEN,
         HR_CMP_UNDECIDED, 4},
        /* the probes 25% up, the rows unchanged */
        {"shift_base", "shift_disagree", "the probes say the machine was 20.0% faster",
         HR_SHIFT_DISAGREE, HR_CMP_UNDECIDED, 0},
        /* no probes: 10% everywhere cannot be attributed; 3% is taken out */
        {"noprobe_base", "noprobe_slow", "only 0 rows carry", HR_SHIFT_UNATTRIBUTED,
         HR_CMP_UNDECIDED, 8},
        {"noprobe_base", "noprobe_small", "taken out as the machine's", HR_SHIFT_UNPROBED,
         HR_EFAIL, 1},
    };
    for (size_t i = 0; i < N(cases); i++) {
        char a[128], b[128];
        snprintf(a, sizeof a, FIX "%s.json", cases[i].base);
        snprintf(b, sizeof b, FIX "%s.json", cases[i].new_);
        hr_bench_file fa, fb;
        hr_cmp c;
        int st = run_cmp(a, b, HR_METRIC_TIME, NULL, &fa, &fb, &c);
        CHECKF(st == HR_OK, "%s: %s", b, hr_errmsg());
        CHECKF(c.shift.kind == cases[i].kind, "%s: shift %s", b, hr_shift_kind_names[c.shift.kind]);
        CHECKF(hr_cmp_status(&c) == cases[i].status, "%s: status %d", b, hr_cmp_status(&c));
        CHECKF(c.count[HR_VERDICT_REGRESSION] == cases[i].regressions, "%s: %d regressions", b,
               c.count[HR_VERDICT_REGRESSION]);
        CHECKF(strstr(c.shift_note, cases[i].note) != NULL, "%s: '%s'", b, c.shift_note);
        CHECK(!c.shift.undecided || c.shift.s == 0);
        if (cases[i].kind == HR_SHIFT_CODE) CHECK(c.common == HR_VERDICT_REGRESSION);
        if (cases[i].kind == HR_SHIFT_UNPROBED) {
            const hr_cmp_row *r = row(&c, SHIFT_ROW);
            CHECK(r && r->verdict == HR_VERDICT_REGRESSION);
            if (r) CHECK_NEAR(r->adj_delta_pct, 100 * (1.12 / 1.03 - 1), 1e-9);
        }
        done(&fa, &fb, &c);
    }
}

HR_TEST(compare_probe_kind_flip)
{
    hr_bench_file a, b;
    hr_cmp c;
    /* normalized: the two rows normalized by another probe are left out, with a warning */
    int st = run_opts(FIX "shift_base.json", FIX "shift_kindflip.json", HR_METRIC_NORMALIZED,
                      HR_PADJ_HOLM, false, &a, &b, &c);
    CHECKF(st == HR_OK, "%s", hr_errmsg());
    CHECK(c.nrows == 6 && c.n_mismatch == 2 && has_warn(&c, "normalized by different probes"));
    CHECK(c.count[HR_VERDICT_SAME] == 6 && hr_cmp_status(&c) == HR_OK);
    done(&a, &b, &c);
    /* time: all 8 judged; the two rows do not count towards the probes' shift */
    st = run_opts(FIX "shift_base.json", FIX "shift_kindflip.json", HR_METRIC_TIME,
                  HR_PADJ_HOLM, false, &a, &b, &c);
    CHECK(st == HR_OK && c.nrows == 8 && c.n_mismatch == 0 && c.shift.nprobed == 6);
    const hr_cmp_row *r = row(&c, "blocked/B1/H8/G8/N1024/M1024/d64/none/bhnd/T2");
    CHECK(r && isnan(r->probe_pct));
    done(&a, &b, &c);
}

HR_TEST(compare_corrections)
{
    hr_bench_file a, b;
    hr_cmp c;
    /* uncorrected, the slow row's p is the raw one; Holm and BH multiply the smallest of
     * 5 by 5 */
    static const hr_padj m[] = {HR_PADJ_NONE, HR_PADJ_HOLM, HR_PADJ_BH};
    static const double want[] = {2.0 / 48620, 10.0 / 48620, 10.0 / 48620};
    for (int i = 0; i < 3; i++) {
        int st = run_opts(FIX "base.json", FIX "slow.json", HR_METRIC_TIME, m[i], false, &a, &b,
                          &c);
        CHECK(st == HR_OK);
        const hr_cmp_row *r = row(&c, SLOW_ROW);
        CHECK(r && r->verdict == HR_VERDICT_REGRESSION);
        if (r) CHECKF(fabs(r->p_adj - want[i]) < 1e-17, "%s: %g", hr_padj_names[m[i]], r->p_adj);
        cJSON *j = hr_cmp_json(&c);
        CHECK(!strcmp(cJSON_GetObjectItem(j, "correction")->valuestring, hr_padj_names[m[i]]));
        cJSON_Delete(j);
        done(&a, &b, &c);
    }
}

/* test_sweep.c — sweep configs (values, ranges, every error with file:line), the product,
 * the rows.jsonl round trip, interleaving over the whole sweep and its memory cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "files.h"
#include "sweep.h"
#include "sweep_cache.h"
#include "sweep_points.h"
#include "t.h"

/* Parses text; returns the status and leaves the message in hr_errmsg(). */
static int parse(const char *text, hr_sweep_config *c) { return hr_config_parse(text, "configs/t.ini", c); }

HR_TEST(config_defaults_and_values)
{
    static hr_sweep_config c;
    CHECK(parse("# comment\n[sweep]\nkernels = naive, flash\nseq = 128, 256\n"
                "kv_heads = mha, mqa, 4, ratio:2\ncausal = false, true\nthreads = 1,2\n"
                "description = x ; inline comment\n", &c) == HR_OK);
    CHECK(!strcmp(c.name, "t"));
    CHECK(c.nkernels == 2 && !strcmp(c.kernels[1]->name, "flash"));
    CHECK(c.seq.n == 2 && c.seq.v[0] == 128 && c.seq.v[1] == 256);
    CHECK(c.nkv == 4 && c.kv[0].kind == HR_KV_MHA && c.kv[1].kind == HR_KV_MQA);
    CHECK(c.kv[2].kind == HR_KV_COUNT && c.kv[2].n == 4 && c.kv[3].kind == HR_KV_RATIO && c.kv[3].n == 2);
    CHECK(c.ncausal == 2 && !c.causal[0] && c.causal[1]);
    CHECK(c.reps == 9 && c.passes == 1 && c.heads.v[0] == 8 && c.d_head.v[0] == 64 && c.seq_kv_same);
    CHECK(!strcmp(c.description, "x"));
    CHECK(hr_config_points(&c) == 2 * 2 * 4 * 2 * 2);
}

HR_TEST(config_ranges)
{
    hr_ilist l;
    CHECK(hr_ilist_parse("128..4096*2", 1, 1 << 20, &l) == HR_OK);
    CHECK(l.n == 6 && l.v[0] == 128 && l.v[5] == 4096);
    CHECK(hr_ilist_parse("1..131072*4", 1, 1 << 20, &l) == HR_OK);
    CHECK(l.n == 9 && l.v[8] == 65536); /* 4^8; 4^9 > 131072: the end is a bound, not a member */
    CHECK(hr_ilist_parse("1..4+1, 16", 0, 100, &l) == HR_OK);
    CHECK(l.n == 5 && l.v[3] == 4 && l.v[4] == 16);
    CHECK(hr_ilist_parse("128..4096*1", 1, 1 << 20, &l) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "never ends"));
    CHECK(hr_ilist_parse("1..8+0", 0, 100, &l) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "never ends"));
    CHECK(hr_ilist_parse("0..8*2", 0, 100, &l) == HR_EUSAGE);
    CHECK(hr_ilist_parse("64..8*2", 1, 100, &l) == HR_EUSAGE);
    CHECK(hr_ilist_parse("1..100000+1", 1, 1 << 20, &l) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "more than"));
    CHECK(hr_ilist_parse("1..8", 1, 100, &l) == HR_EUSAGE);
    CHECK(hr_ilist_parse("12x", 1, 100, &l) == HR_EUSAGE);
    CHECK(hr_ilist_parse("1,,2", 1, 100, &l) == HR_EUSAGE);
    CHECK(hr_ilist_parse("200", 1, 100, &l) == HR_EUSAGE);
}

HR_TEST(config_errors_name_file_and_line)
{
    static hr_sweep_config c;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[sweep]\nseq = 128\nseq = 256\n", "configs/t.ini:3: key 'seq' given twice (first on line 2)"},
        {"[sweep]\n\nbogus = 1\n", "configs/t.ini:3: unknown key 'bogus'"},
        {"[other]\nseq = 1\n", "configs/t.ini:2: section 'other'"},
        {"seq = 1\n", "configs/t.ini:1: key outside a section"},
        {"[sweep]\nseq = 128..4096*1\n", "configs/t.ini:2: seq: range 128..4096*1 never ends"},
        {"[sweep]\nkernels = naive, nosuch\n", "configs/t.ini:2: kernels: unknown kernel 'nosuch'"},
        {"[sweep]\nkv_heads = ratio:x\n", "configs/t.ini:2: kv_heads:"},
        {"[sweep]\ncausal = maybe\n", "configs/t.ini:2: causal:"},
        {"[sweep]\nheads = 8\nd_model = 512\n", "configs/t.ini:3: give heads or d_model"},
        {"[sweep]\nreps = 0\n", "configs/t.ini:2: reps:"},
        {"[sweep]\nseq =\n", "configs/t.ini:2: seq: empty value"},
        {"[sweep]\nthis is not ini\n", "configs/t.ini:2: not an INI line"},
        {"[sweep]\nseq = 1..16384+1, 1..16384+1\n", "configs/t.ini:2: seq:"},
        {"[sweep]\nseq = 1..32768*2\nd_head = 1..4096*2\nbatch=1..16*2\nheads=1..16*2\n",
         "configs/t.ini: the cartesian product has"},
        {"[sweep]\nmode = layer\n", "configs/t.ini:2: mode = layer needs d_model"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st = parse(cases[i].text, &c);
        CHECKF(st == HR_EUSAGE, "case %zu: status %d", i, st);
        CHECKF(strstr(hr_errmsg(), cases[i].want), "case %zu: '%s' lacks '%s'", i, hr_errmsg(), cases[i].want);
    }
}

HR_TEST(sweep_product_skips_and_dedup)
{
    static hr_sweep_config c;
    CHECK(parse("[sweep]\nkernels = naive, flash\nheads = 6\nkv_heads = ratio:4, mqa\nseq = 64, 128\n"
                "threads = 1, 2\n", &c) == HR_OK);
    hr_sweep_point *p;
    int n, nd;
    CHECK(hr_sweep_expand(&c, NULL, 0, &p, &n, &nd) == HR_OK);
    /* 2 kv x 2 seq x 2 threads x 2 kernels = 16; naive is unthreaded, so its threads=2
     * points equal its threads=1 points: 4 dropped. */
    CHECK(n == 12 && nd == 4);
    int skipped = 0;
    for (int i = 0; i < n; i++) skipped += strstr(p[i].skip, "ratio:4 does not divide heads 6") != NULL;
    CHECK(skipped == 6); /* every ratio:4 point */
    CHECK(p[0].kernel == c.kernels[0] && p[1].kernel == c.kernels[1]); /* kernel innermost */
    free(p);
    CHECK(hr_sweep_expand(&c, "flash", 0, &p, &n, &nd) == HR_OK);
    CHECK(n == 8 && nd == 0);
    for (int i = 0; i < n; i++) CHECK(!strcmp(p[i].kernel->name, "flash"));
    free(p);
    CHECK(hr_sweep_expand(&c, "nosuch", 0, &p, &n, &nd) == HR_EUSAGE);
    /* d_model: heads follow from d_head; a budget of 1 KiB skips everything that is valid. */
    CHECK(parse("[sweep]\nkernels = naive\nd_model = 256, 100\nd_head = 64\nseq = 32\n", &c) == HR_OK);
    CHECK(hr_sweep_expand(&c, NULL, 1024, &p, &n, &nd) == HR_OK);
    CHECK(n == 2 && p[0].prob.heads == 4);
    CHECK(strstr(p[0].skip, "over the memory budget") != NULL);
    CHECK(strstr(p[1].skip, "not a multiple of d_head") != NULL);
    free(p);
}

HR_TEST(sweep_row_json_roundtrip)
{
    hr_result r = {0}, b;
    r.kernel = hr_kernel_find("naive");
    r.prob = (hr_problem){2, 4, 2, 16, 32, 8, true, 0.5f};
    r.layout = HR_LAYOUT_BNHD;
    r.tune = (hr_tune){0, 0, 1};
    r.tune_source = "flag";
    r.flops = 1e6;
    r.bytes = 2e5;
    r.timing.iters = 7;
    r.timing.reps = 3;
    r.timing.rep_time[0] = 1.25e-3, r.timing.rep_time[1] = 1.5e-3, r.timing.rep_time[2] = 1.0e-3;
    hr_summarize(r.timing.rep_time, 3, &r.timing.s);
    r.checked = true;
    r.check.max_rel_err = 3e-7, r.check.verdict = HR_CHECK_WARN, r.check.rows_total = 64;
    hr_result_set(&r, "GBps", 12.5);
    /* A path past the 63 bytes a row once held (the int8 decode one is ~60): whole, back. */
    const char *lp = "avx512 avx512-vnni vpdpbusd q8_0 (K+128), Q as q8_0, P\xC2\xB7V FMA, a plugin's longer words";
    hr_copy_text(r.path, sizeof r.path, lp);
    cJSON *o = hr_result_to_json(&r);
    char *txt = cJSON_PrintUnformatted(o);
    cJSON *back = cJSON_Parse(txt);
    CHECK(hr_result_from_json(back, &b) == HR_OK);
    char k1[320], k2[320];
    hr_sweep_key(&r, 2, k1, sizeof k1);
    hr_sweep_key(&b, 2, k2, sizeof k2);
    CHECK(!strcmp(k1, k2));
    CHECK(b.layout == HR_LAYOUT_BNHD && b.prob.causal && b.prob.scale == 0.5f && b.prob.seq_kv == 32);
    CHECK(b.timing.reps == 3 && b.timing.iters == 7 && b.timing.rep_time[1] == 1.5e-3);
    CHECK(b.timing.s.median == r.timing.s.median && !strcmp(b.tune_source, "flag"));
    CHECK(b.checked && b.check.verdict == HR_CHECK_WARN && b.check.rows_total == 64);
    CHECK(b.ncounters == 1 && !strcmp(b.counters[0].name, "GBps") && b.counters[0].value == 12.5);
    CHECKF(!strcmp(b.path, lp), "path read back as '%s'", b.path);
    /* counters as an array (a fuzzer find): members without names are refused, not read */
    cJSON_ReplaceItemInObject(back, "counters", cJSON_Parse("[1, 2]"));
    CHECK(hr_result_from_json(back, &b) == HR_EUSAGE && strstr(hr_errmsg(), "counters"));
    cJSON_DeleteItemFromObject(back, "counters");
    cJSON_DeleteItemFromObject(back, "rep_time");
    CHECK(hr_result_from_json(back, &b) == HR_EUSAGE);
    cJSON_Delete(back);
    cJSON_Delete(o);
    free(txt);
}

/* ---- interleaving: the order of the rounds, and what a sweep does with it ---------------- */

HR_TEST(sweep_round_order)
{
    enum { N = 12, R = 8 };
    int a[R][N], b[N], differ = 0;
    for (int r = 0; r < R; r++) {
        hr_sweep_round_order(7, r, a[r], N);
        int seen[N] = {0}; /* a permutation of 0..N-1 */
        for (int i = 0; i < N; i++) {
            CHECKF(a[r][i] >= 0 && a[r][i] < N && !seen[a[r][i]], "round %d: %d twice or out of range", r, a[r][i]);
            if (a[r][i] >= 0 && a[r][i] < N) seen[a[r][i]] = 1;
        }
        hr_sweep_round_order(7, r, b, N); /* the same seed and round: the same order */
        CHECKF(!memcmp(a[r], b, sizeof b), "round %d differs for the same seed", r);
        if (r) differ += memcmp(a[r], a[r - 1], sizeof b) != 0;
    }
    CHECKF(differ == R - 1, "only %d of %d consecutive rounds differ", differ, R - 1);
    hr_sweep_round_order(8, 0, b, N); /* another seed, another order */
    CHECK(memcmp(a[0], b, sizeof b) != 0);
    int one = -1;
    hr_sweep_round_order(7, 3, &one, 1);
    CHECK(one == 0);
}

/* The "key" of every line of dir/rows.jsonl, in order; returns the count. */
static int row_keys(const char *dir, char (*keys)[320], int max)
{
    char path[256];
    snprintf(path, sizeof path, "%s/rows.jsonl", dir);
    char *t = hr_read_file(path, HR_CAP_RESULTS, "rows file", NULL);
    int n = 0;
    for (char *p = t, *e; p && *p && n < max; p = e + 1) {
        if (!(e = strchr(p, '\n'))) break;
        *e = 0;
        cJSON *o = cJSON_Parse(p);
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItem(o, "key"));
        snprintf(keys[n++], 320, "%s", k ? k : "");
        cJSON_Delete(o);
    }
    free(t);
    return n;
}

static const char *const two_shapes = "[sweep]\nkernels = naive, flash\nheads = 2\nd_head = 16\nseq = 32, 64\n"
                                      "threads = 1\nreps = 3\nmin_time = 0\nwarmup = 0\nprobe = false\nseed = 5\n";

/* Interleaved, rows finish in the last round's order over every point of the sweep (both
 * shapes); results.csv keeps the sweep's order. Without interleave, rows.jsonl is in the
 * sweep's order. */
HR_TEST(sweep_interleaves_the_whole_sweep)
{
    static hr_sweep_config c;
    char base[] = "/tmp/hr_sweep_XXXXXX", cfg[256], dir[256], path[300], keys[8][320];
    CHECK(mkdtemp(base) != NULL);
    snprintf(cfg, sizeof cfg, "%s/two.ini", base);
    const int wrote = hr_test_write(cfg, two_shapes) == 0;
    CHECK(wrote);
    if (!wrote) return;
    CHECK(hr_config_load(cfg, &c) == HR_OK);
    hr_sweep_point *p;
    int n, nd;
    CHECK(hr_sweep_expand(&c, NULL, 0, &p, &n, &nd) == HR_OK && n == 4);
    snprintf(dir, sizeof dir, "%s/il", base);
    hr_sweep_opts o = {.out_dir = dir, .min_time = -1};
    CHECKF(hr_sweep_run(&c, &o) == HR_OK, "sweep: %s", hr_errmsg());
    int order[4];
    hr_sweep_round_order(5, 2, order, 4);
    CHECK(row_keys(dir, keys, 8) == 4);
    for (int k = 0; k < 4; k++) CHECKF(!strcmp(keys[k], p[order[k]].key), "row %d: %s", k, keys[k]);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    char *csv = hr_read_file(path, HR_CAP_RESULTS, "results file", NULL);
    const char *at = csv;
    for (int i = 0; i < 4 && at; i++) { /* the sweep's order: naive N32, flash N32, naive N64, flash N64 */
        char line[300];
        snprintf(line, sizeof line, "\n%s,", p[i].name);
        at = strstr(at, line);
        CHECKF(at != NULL, "results.csv: %s not after the row before", p[i].name);
    }
    free(csv);
    snprintf(dir, sizeof dir, "%s/seq", base);
    hr_sweep_opts q = {.out_dir = dir, .min_time = -1, .interleave_flag = 2};
    CHECKF(hr_sweep_run(&c, &q) == HR_OK, "sweep: %s", hr_errmsg());
    CHECK(row_keys(dir, keys, 8) == 4);
    for (int k = 0; k < 4; k++) CHECKF(!strcmp(keys[k], p[k].key), "row %d: %s", k, keys[k]);
    free(p);
    snprintf(path, sizeof path, "rm -rf '%s'", base);
    CHECK(system(path) == 0);
}

/* The cache of an interleaved sweep stays within its budget: a budget for one point at a
 * time gives shapes back and regenerates them with the same values. */
HR_TEST(sweep_cache_within_budget)
{
    static hr_sweep_config c;
    CHECK(hr_config_parse(two_shapes, "two.ini", &c) == HR_OK);
    hr_sweep_point *p;
    int n, nd, idx[4] = {0, 1, 2, 3};
    CHECK(hr_sweep_expand(&c, NULL, 0, &p, &n, &nd) == HR_OK && n == 4);
    double most = 0;
    for (int i = 0; i < 4; i++) {
        const hr_tune t = hr_kernel_tune(p[i].kernel, &p[i].prob, &p[i].tune);
        const double b = hr_bench_bytes(p[i].kernel, &p[i].prob, &t);
        if (b > most) most = b;
    }
    hr_sweep_cache m;
    CHECK(hr_sweep_cache_init(&m, p, idx, 4, most, HR_DIST_NORMAL, 5) == HR_OK);
    CHECK(m.nshape == 2 && m.sl[0].shape == m.sl[1].shape && m.sl[2].shape != m.sl[0].shape);
    for (int i = 0; i < 4; i++) {
        m.sl[i].spec = (hr_bench_spec){.prob = p[i].prob, .layout = p[i].layout, .tune = p[i].tune,
                                       .dist = HR_DIST_NORMAL, .seed = 5, .timer = {.reps = 2}};
        CHECKF(hr_sweep_cache_open(&m, i) == HR_OK, "open %d: %s", i, hr_errmsg());
        CHECK(m.used <= most);
    }
    const float q0 = m.sh[m.sl[3].shape].t.mem ? m.sh[m.sl[3].shape].t.mem[1] : NAN;
    const int seq[] = {0, 3, 1, 2, 0, 3}; /* back and forth between the shapes */
    for (int k = 0; k < 6; k++) {
        CHECK(hr_sweep_cache_ready(&m, seq[k]) == HR_OK && m.used <= most);
        hr_bench_rep(&m.sl[seq[k]].ses, k / 4, true);
    }
    CHECK(m.regenerated >= 2);
    CHECK(m.sh[m.sl[3].shape].t.mem && m.sh[m.sl[3].shape].t.mem[1] == q0); /* the same inputs */
    for (int i = 0; i < 4; i++) {
        CHECK(hr_sweep_cache_ready(&m, i) == HR_OK);
        hr_bench_rep(&m.sl[i].ses, 1, true);
        CHECK(hr_sweep_cache_close(&m, i, 2) == HR_OK && m.sl[i].res.timing.reps == 2);
    }
    CHECK(m.used == 0 && !m.sh[0].t.mem && !m.sh[1].t.mem); /* every shape freed with its last point */
    hr_sweep_cache_free(&m);
    free(p);
}

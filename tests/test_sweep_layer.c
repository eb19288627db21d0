/* test_sweep_layer.c — layer-mode sweeps (phase rows, resume keys, crossover files), the shared N* interpolation, and wisdom in sweeps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "crossover.h"
#include "layer.h"
#include "sweep.h"
#include "sweep_layer.h"
#include "t.h"
#include "wisdom.h"

static char tmp_dir[64];

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd)) fprintf(stderr, "test_sweep_layer: could not remove %s\n", tmp_dir);
}

static const char *tmp(const char *name, char *buf, size_t len)
{
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/hr_sweep_layer_XXXXXX");
        if (mkdtemp(tmp_dir)) atexit(rm_tmp);
    }
    snprintf(buf, len, "%s/%s", tmp_dir, name);
    return buf;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *t = calloc(1 << 22, 1);
    size_t n = t ? fread(t, 1, (1 << 22) - 1, f) : 0;
    fclose(f);
    if (t) t[n] = 0;
    return t;
}

/* Writes text to the temporary directory and loads it as a sweep config (the sweep
 * copies its config into the results directory, so the file must exist). */
static int load_cfg(const char *name, const char *text, hr_sweep_config *c)
{
    char path[256];
    if (hr_test_write(tmp(name, path, sizeof path), text)) return -1;
    return hr_config_load(path, c);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *s = text; s && *s; s++) n += *s == '\n';
    return n;
}

static const char *const tiny_layer =
    "[sweep]\n"
    "mode = layer\n"
    "kernels = flash\n"
    "d_model = 64\n"
    "d_head = 32\n"
    "seq = 16, 48\n"
    "threads = 1\n"
    "reps = 2\n"
    "min_time = 0\n"
    "warmup = 0\n"
    "check = true\n";

HR_TEST(sweep_layer_rows_and_crossover)
{
    static hr_sweep_config c;
    CHECK(load_cfg("tiny_layer.ini", tiny_layer, &c) == HR_OK);
    char dir[128], path[256];
    hr_sweep_opts o = {.out_dir = tmp("layer1", dir, sizeof dir), .min_time = -1};
    CHECKF(hr_sweep_run(&c, &o) == HR_OK, "sweep: %s", hr_errmsg());

    /* results.json: 2 points x 4 phases, each phase with 2 iteration rows + 4 aggregates. */
    char *txt = slurp(tmp("layer1/results.json", path, sizeof path));
    cJSON *doc = txt ? cJSON_Parse(txt) : NULL;
    CHECK(doc != NULL);
    const cJSON *b = cJSON_GetObjectItem(doc, "benchmarks"), *x;
    CHECK(cJSON_GetArraySize(b) == 2 * 4 * (2 + 4));
    int core = 0, total = 0, wrong = 0;
    cJSON_ArrayForEach(x, b)
    {
        const char *run = cJSON_GetStringValue(cJSON_GetObjectItem(x, "run_name"));
        if (!run || strncmp(run, "layer/flash/own/B1/N", 20)) wrong++;
        else if (!strcmp(run, "layer/flash/own/B1/N48/D64/H2/G2/d32/full/T1/core")) core++;
        else if (!strcmp(run, "layer/flash/own/B1/N48/D64/H2/G2/d32/full/T1/total")) {
            total++;
            /* total FLOPs = 8·N·d_model² + 4·N²·d_model for MHA with Hq·d = d_model */
            CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(x, "flops")),
                       8.0 * 48 * 64 * 64 + 4.0 * 48 * 48 * 64, 0.5);
        }
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(x, "d_model")) == 64);
        CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(x, "check")), "pass"));
    }
    CHECK(wrong == 0 && core == 6 && total == 6);
    cJSON_Delete(doc);
    free(txt);

    /* results.csv: header + 8 rows; rows.jsonl: 8 lines that rebuild the labels. */
    txt = slurp(tmp("layer1/results.csv", path, sizeof path));
    CHECK(txt && count_lines(txt) == 9 && strstr(txt, "\nlayer/flash/own/B1/N16/D64/H2/G2/d32/full/T1/qkv_proj,flash,"));
    free(txt);
    txt = slurp(tmp("layer1/rows.jsonl", path, sizeof path));
    CHECK(txt && count_lines(txt) == 8);
    cJSON *line = txt ? cJSON_Parse(txt) : NULL; /* parses the first line */
    hr_result r;
    CHECK(line && hr_result_from_json(cJSON_GetObjectItem(line, "result"), &r) == HR_OK);
    CHECK(!strcmp(r.label, "layer/flash/own/B1/N16/D64/H2/G2/d32/full/T1/qkv_proj"));
    cJSON_Delete(line);
    free(txt);

    /* crossover.csv: one row per N; the table: one series with the FLOP N* of d_model 64. */
    txt = slurp(tmp("layer1/crossover.csv", path, sizeof path));
    CHECK(txt && !strncmp(txt, "kernel,d_model,N,proj_s,core_s,proj_gflops,core_gflops\nflash,64,16,", 67));
    CHECK(txt && count_lines(txt) == 3 && strstr(txt, "\nflash,64,48,"));
    free(txt);
    txt = slurp(tmp("layer1/crossover_table.csv", path, sizeof path));
    CHECK(txt && !strncmp(txt, "kernel,d_model,n_star_measured,n_star_flops,ratio,core_gflops,proj_gflops,note\n"
                               "flash,64,", 88));
    CHECK(txt && strstr(txt, ",128.0,") && count_lines(txt) == 2);
    free(txt);

    /* Resume: every point's key is found, nothing is measured again. */
    hr_sweep_opts o2 = {.resume_dir = dir, .min_time = -1};
    CHECKF(hr_sweep_run(&c, &o2) == HR_OK, "sweep: %s", hr_errmsg());
    txt = slurp(tmp("layer1/rows.jsonl", path, sizeof path));
    CHECK(txt && count_lines(txt) == 8);
    free(txt);
}

HR_TEST(sweep_layer_expand_and_skips)
{
    static hr_sweep_config c;
    const char *cfg = "[sweep]\nmode = layer\nkernels = flash, decode\ngemm = own, blas\nd_model = 64, 100\n"
                      "d_head = 32\nseq = 64\nthreads = 2\nmax_mem = 1G\n";
    CHECK(hr_config_parse(cfg, "x.ini", &c) == HR_OK);
    CHECK(hr_config_points(&c) == 2 * 2 * 2);
    hr_sweep_point *p;
    int n, nd;
    CHECK(hr_sweep_expand(&c, NULL, 0, &p, &n, &nd) == HR_OK);
    CHECK(n == 8 && nd == 0);
    /* gemm inside d_model, kernel innermost */
    CHECK(!strcmp(p[0].name, "layer/flash/own/B1/N64/D64/H2/G2/d32/full/T2") && !p[0].skip[0]);
    CHECK(!strcmp(p[2].name, "layer/flash/blas/B1/N64/D64/H2/G2/d32/full/T2"));
    CHECK(!strncmp(p[0].key, "layer/flash/own/B1/N64/D64/H2/G2/d32/full/T2/total/bq", 53));
    CHECK(strstr(p[1].skip, "decode cannot run this shape") != NULL);
    CHECK(strstr(p[4].skip, "d_model 100 is not a multiple of d_head 32") != NULL);
    free(p);
    /* the budget */
    CHECK(hr_sweep_expand(&c, "flash", 1024, &p, &n, &nd) == HR_OK);
    CHECK(n == 4 && strstr(p[0].skip, "over the memory budget") != NULL);
    free(p);
    CHECK(hr_config_parse("[sweep]\nheads = 2\ngemm = own\n", "a.ini", &c) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "gemm: only with mode = layer") != NULL);
    CHECK(hr_config_parse("[sweep]\nmode = layer\nd_model = 64\ngemm = mkl\n", "a.ini", &c) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "'mkl': expected own or blas") != NULL);
}

HR_TEST(crossover_interpolation_shared)
{
    /* log(core/proj) linear in log N: ratio 1/2 at N=64 and 2 at N=128 cross at
     * sqrt(64·128); the rates at N* interpolate the same way. */
    hr_xpoint pts[3] = {{32, 1.0, 0.25, 10, 40}, {64, 1.0, 0.5, 10, 40}, {128, 1.0, 2.0, 10, 10}};
    hr_crossing x = {0};
    hr_crossover_series(pts, 3, &x);
    CHECK_NEAR(x.n_star, sqrt(64.0 * 128.0), 1e-9);
    CHECK_NEAR(x.core_gflops, 20.0, 1e-9);
    CHECK_NEAR(x.proj_gflops, 10.0, 1e-9);
    CHECK(x.note[0] == 0);
    hr_crossover_series(pts, 2, &x);
    CHECK(isnan(x.n_star) && strstr(x.note, "> 64: core never overtook") != NULL);
    hr_crossover_series(pts + 2, 1, &x);
    CHECK(isnan(x.n_star) && strstr(x.note, "< 128: core already slower") != NULL);
    /* The FLOP crossover of MHA, non-causal, Hq·d = d_model: 2·d_model. */
    CHECK_NEAR(hr_layer_flops_crossover(512, 8, 8, 64, false, 0), 1024, 1e-6);
}

static const char *const tiny_attn =
    "[sweep]\n"
    "kernels = flash\n"
    "heads = 2\n"
    "d_head = 32\n"
    "seq = 64\n"
    "threads = 1\n"
    "reps = 2\n"
    "min_time = 0\n"
    "warmup = 0\n";

HR_TEST(sweep_reads_wisdom)
{
    char wpath[128], dir[128], path[256];
    tmp("wisdom.json", wpath, sizeof wpath);
    const hr_kernel *k = hr_kernel_find("flash");
    /* an entry tuned at 1 thread for the attention shape and for the layer's core shape */
    hr_wisdom_entry e = {.tune = {16, 32, 1}, .fixed_threads = 1, .gflops = 2, .default_gflops = 1};
    const hr_problem pa = {1, 2, 2, 64, 64, 32, false, 0}, pl = {1, 2, 2, 48, 48, 32, false, 0};
    CHECK(hr_wisdom_store(wpath, k, &pa, &e) == HR_OK);
    CHECK(hr_wisdom_store(wpath, k, &pl, &e) == HR_OK);

    static hr_sweep_config c;
    CHECK(load_cfg("tiny_attn.ini", tiny_attn, &c) == HR_OK);
    c.wisdom = true;
    c.wisdom_path = wpath;
    hr_sweep_opts o = {.out_dir = tmp("attn_w", dir, sizeof dir), .min_time = -1};
    CHECKF(hr_sweep_run(&c, &o) == HR_OK, "sweep: %s", hr_errmsg());
    char *txt = slurp(tmp("attn_w/results.csv", path, sizeof path));
    CHECK(txt && strstr(txt, "\nflash/B1/H2/G2/N64/M64/d32/full/bhnd/T1,flash,1,2,2,64,64,32,0,bhnd,1,16,32,wisdom,"));
    free(txt);

    /* The config's explicit block_q wins; wisdom fills block_kv: flag+wisdom. */
    CHECK(load_cfg("bq.ini", "[sweep]\nkernels = flash\nheads = 2\nd_head = 32\nseq = 64\nthreads = 1\n"
                          "block_q = 64\nreps = 1\nmin_time = 0\nwarmup = 0\n", &c) == HR_OK);
    c.wisdom = true;
    c.wisdom_path = wpath;
    hr_sweep_opts ob = {.out_dir = tmp("attn_bq", dir, sizeof dir), .min_time = -1};
    CHECKF(hr_sweep_run(&c, &ob) == HR_OK, "sweep: %s", hr_errmsg());
    txt = slurp(tmp("attn_bq/results.json", path, sizeof path));
    CHECK(txt && strstr(txt, "\"tune_source\":\t\"flag+wisdom\"") && strstr(txt, "\"block_q\":\t64,"));
    free(txt);

    /* Layer mode: the core's shape (N 48 -> class nq64) finds the entry; N 16 (nq16) not. */
    CHECK(load_cfg("tiny_layer.ini", tiny_layer, &c) == HR_OK);
    c.wisdom = true;
    c.wisdom_path = wpath;
    hr_sweep_opts ol = {.out_dir = tmp("layer_w", dir, sizeof dir), .min_time = -1};
    CHECKF(hr_sweep_run(&c, &ol) == HR_OK, "sweep: %s", hr_errmsg());
    txt = slurp(tmp("layer_w/results.csv", path, sizeof path));
    CHECK(txt && strstr(txt, "\nlayer/flash/own/B1/N48/D64/H2/G2/d32/full/T1/core,flash,1,2,2,48,48,32,0,bnhd,1,16,32,wisdom,"));
    CHECK(txt && strstr(txt, "\nlayer/flash/own/B1/N16/D64/H2/G2/d32/full/T1/core,flash,1,2,2,16,16,32,0,bnhd,1,") &&
          !strstr(txt, "N16/D64/H2/G2/d32/full/T1/core,flash,1,2,2,16,16,32,0,bnhd,1,16,32,"));
    free(txt);

    /* Without c.wisdom (sweep --no-wisdom) the same file is not read. */
    c.wisdom = false;
    hr_sweep_opts on = {.out_dir = tmp("layer_nw", dir, sizeof dir), .min_time = -1};
    CHECKF(hr_sweep_run(&c, &on) == HR_OK, "sweep: %s", hr_errmsg());
    txt = slurp(tmp("layer_nw/results.csv", path, sizeof path));
    CHECK(txt && !strstr(txt, "wisdom"));
    free(txt);
}

/* stop_after_crossover on synthetic rows: a point is past the crossover when a smaller N
 * of the same series (kernel, gemm, shape but N, threads, pass) had core > projections. */
HR_TEST(layer_past_stops_after_the_crossing)
{
    hr_sweep_point pt;
    memset(&pt, 0, sizeof pt);
    snprintf(pt.name, sizeof pt.name, "layer/naive/own/B1/N128/D64/H2/G2/d32/full/T1");
    pt.prob.seq_q = 128;
    pt.pass = 1;
    hr_result r[2];
    memset(r, 0, sizeof r);
    snprintf(r[0].label, sizeof r[0].label, "layer/naive/own/B1/N64/D64/H2/G2/d32/full/T1/total");
    r[0].prob.seq_q = 64;
    hr_result_set(&r[0], "core_over_proj", 1.5);
    /* the same N in another series (d_model 128) must not count */
    snprintf(r[1].label, sizeof r[1].label, "layer/naive/own/B1/N64/D128/H2/G2/d32/full/T1/total");
    r[1].prob.seq_q = 64;
    hr_result_set(&r[1], "core_over_proj", 3.0);
    char buf[256];
    CHECK(hr_sweep_layer_past(&pt, r, 2, buf, sizeof buf) != NULL);
    CHECK(strstr(buf, "N=64") != NULL);
    hr_result_set(&r[0], "core_over_proj", 0.8); /* core still faster: keep measuring */
    CHECK(hr_sweep_layer_past(&pt, r, 2, buf, sizeof buf) == NULL);
    hr_result_set(&r[0], "core_over_proj", 1.5);
    pt.prob.seq_q = 64; /* not a larger N */
    CHECK(hr_sweep_layer_past(&pt, r, 2, buf, sizeof buf) == NULL);
    pt.prob.seq_q = 128;
    pt.pass = 2; /* another pass is measured on its own */
    CHECK(hr_sweep_layer_past(&pt, r, 2, buf, sizeof buf) == NULL);
}

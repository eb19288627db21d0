/* cmd_crossover.c — `headroom crossover`: measured vs FLOP-predicted N* per kernel and d_model (the measuring is analyses/crossover.c).
 *
 * Outputs in --out (default results/<machine>/crossover-<stamp>/):
 *   crossover.csv        every measured point, appended and flushed as it is measured
 *   crossover_table.csv  one row per kernel x d_model, written atomically at the end */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "config.h"
#include "crossover.h"
#include "files.h"
#include "paths.h"
#include "sysinfo.h"
#include "threads.h"

#define MAX_LIST 32

int cmd_crossover(int argc, char **argv)
{
    const char *dm_list = "256,512,768,1024,2048", *out_dir = NULL;
    const char *k_list = HR_HAVE_BLAS ? "flash,naive,blas" : "flash,naive";
    int seq_min = 64, seq_max = 8192, d = 64, batch = 1, threads = 0, reps = 3, refine = 1;
    int gemm = HR_HAVE_BLAS ? HR_GEMM_BLAS : HR_GEMM_OWN, seed = 1;
    double min_time = 0.02, max_mem = 0;
    bool causal = false;
    const hr_opt opts[] = {
        {"--d-model", HR_OPT_STR, &dm_list, 0, 0, NULL, "LIST", "model widths (256,512,768,1024,2048)"},
        {"--kernels", HR_OPT_STR, &k_list, 0, 0, NULL, "LIST", "attention cores (flash,naive,blas)"},
        {"--seq-min", HR_OPT_INT, &seq_min, 1, HR_MAX_SEQ, NULL, "N", "first sequence length (64)"},
        {"--seq-max", HR_OPT_INT, &seq_max, 1, HR_MAX_SEQ, NULL, "N", "last sequence length (8192)"},
        {"--refine", HR_OPT_INT, &refine, 0, 8, NULL, "K", "bisection steps inside the bracket (1)"},
        {"--d-head", HR_OPT_INT, &d, 1, HR_MAX_DHEAD, NULL, "D", "head dimension; heads = d_model / D (64)"},
        {"--batch", HR_OPT_INT, &batch, 1, HR_MAX_BATCH, NULL, "B", "batch size (1)"},
        {"--causal", HR_OPT_FLAG, &causal, 0, 0, NULL, NULL, "causal mask"},
        {"--gemm", HR_OPT_ENUM, &gemm, 0, 0, hr_gemm_names, NULL, "projection GEMM (blas when built, else own)"},
        {"--threads", HR_OPT_INT, &threads, 1, HR_THREADS_MAX, NULL, "T", "threads (all CPUs)"},
        {"--reps", HR_OPT_INT, &reps, 1, HR_MAX_REPS, NULL, "R", "repetitions per phase (3)"},
        {"--min-time", HR_OPT_DOUBLE, &min_time, 0, 3600, NULL, "SEC", "minimum seconds per repetition (0.02)"},
        {"--seed", HR_OPT_INT, &seed, 0, 2147483647, NULL, "S", "input and weight seed (1)"},
        {"--max-mem", HR_OPT_BYTES, &max_mem, 1, 1e18, NULL, "BYTES", "memory budget; larger N is skipped (half of RAM)"},
        {"--out", HR_OPT_STR, &out_dir, 0, 0, NULL, "DIR", "output directory (results/<machine>/crossover-<stamp>)"},
        HR_PLUGIN_OPT,
        {NULL},
    };
    const char *syn = "crossover [--d-model LIST] [--kernels LIST] [--seq-min N] [--seq-max N] [--out DIR]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st) goto err; /* -1 after --help: hr_cmd_status returns HR_OK */
    if (seq_min > seq_max) {
        st = hr_fail("--seq-min: %d is larger than --seq-max %d", seq_min, seq_max);
        goto err;
    }
    /* The lists go through the config's parsers: an empty item ("64,,128") is refused as
     * it is everywhere else, and --d-model takes ranges like a config (256..2048*2). */
    char kbuf[512], *ks[MAX_LIST];
    snprintf(kbuf, sizeof kbuf, "%s", k_list);
    hr_ilist dml;
    if (hr_ilist_parse(dm_list, 1, 65536, &dml)) {
        char why[256];
        snprintf(why, sizeof why, "%s", hr_errmsg());
        st = hr_fail("--d-model: %s", why);
        goto err;
    }
    const int ndm = dml.n, nk = hr_list_split(kbuf, ks, MAX_LIST);
    if (ndm > MAX_LIST || nk < 1) {
        st = hr_fail("%s: expected 1 to %d comma-separated items, none empty", nk < 1 ? "--kernels" : "--d-model",
                     MAX_LIST);
        goto err;
    }
    const int *dmv = dml.v;
    const hr_kernel *kv[MAX_LIST];
    for (int i = 0; i < ndm; i++)
        if (dmv[i] % d) {
            st = hr_fail("--d-model: %d is not a multiple of d_head %d", dmv[i], d);
            goto err;
        }
    for (int i = 0; i < nk; i++)
        if (!(kv[i] = hr_kernel_find(ks[i]))) {
            st = hr_kernel_unknown("--kernels", ks[i]);
            goto err;
        }
    if (!hr_gemm_available((hr_gemm_backend)gemm)) {
        st = hr_fail("--gemm: back end 'blas' is not built into this binary (no OpenBLAS)");
        goto err;
    }

    char dir[1024];
    if (out_dir) snprintf(dir, sizeof dir, "%s", out_dir);
    else {
        char stamp[32];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
        char name[64];
        snprintf(name, sizeof name, "crossover-%s", stamp);
        hr_results_path(name, dir, sizeof dir);
    }
    if ((st = hr_mkdirs(dir))) goto err;
    char path[1100];
    snprintf(path, sizeof path, "%s/crossover.csv", dir);
    hr_crossover_spec c = {
        .base = {.batch = batch, .d_head = d, .causal = causal, .gemm = (hr_gemm_backend)gemm,
                 .threads = threads, .tune = {0, 0, threads}, .seed = (uint64_t)seed,
                 .timer = {.reps = reps, .min_time = min_time, .warmup = 0}},
        .budget = hr_mem_budget(max_mem),
        .log = stderr,
    };
    c.base.max_mem = c.budget;
    if (!(c.csv = fopen(path, "w"))) {
        st = hr_fail("%s: cannot write", path);
        goto err;
    }
    /* Columns of crossover.csv (one row per measured point; read by plots/crossover.gp):
     *   kernel       attention core (headroom list)
     *   d_model      model width; heads = d_model / d_head
     *   N            sequence length (B = --batch)
     *   proj_s       median seconds of the QKV projection plus the output projection
     *   core_s       median seconds of the attention core
     *   proj_gflops  projection FLOPs (counts.c) / proj_s / 1e9
     *   core_gflops  core FLOPs (counts.c) / core_s / 1e9 */
    hr_crossover_csv_header(c.csv);
    fflush(c.csv);
    fprintf(stderr, "headroom crossover: %s GEMM, d_head %d, B%d%s; points in %s\n",
            hr_gemm_names[gemm], d, batch, causal ? ", causal" : "", path);

    static hr_crossing xs[MAX_LIST * MAX_LIST];
    int nx = 0;
    for (int i = 0; i < nk && !st; i++)
        for (int j = 0; j < ndm && !st; j++) st = hr_crossover_measure(&c, kv[i], dmv[j], seq_min, seq_max, refine, &xs[nx++]);
    int werr = ferror(c.csv);
    if (fclose(c.csv) || werr) st = st ? st : hr_fail("%s: write error", path);
    if (st) goto err;

    /* Columns of crossover_table.csv (one row per kernel x d_model):
     *   kernel, d_model
     *   n_star_measured   N where core time = projection time (log-linear interpolation;
     *                     empty when not bracketed, see note)
     *   n_star_flops      N where core FLOPs = projection FLOPs (counts.c)
     *   ratio             n_star_measured / n_star_flops
     *   core_gflops, proj_gflops   the two phases' rates at N* (interpolated likewise)
     *   note              why there is no N* (not bracketed in [seq-min, seq-max], budget) */
    snprintf(path, sizeof path, "%s/crossover_table.csv", dir);
    st = hr_crossover_table_write(path, xs, nx, stdout);
    if (st) goto err;
    printf("wrote %s/crossover.csv and %s\n", dir, path);
    return HR_OK;
err:
    return hr_cmd_status("crossover", st);
}

/* crossover.c — `headroom crossover`: where the attention core's N² cost overtakes the layer's projections, measured vs predicted by FLOPs.
 *
 * For each kernel and d_model (heads = d_model / d_head), N runs geometrically (x2) from
 * --seq-min; each point times the whole layer phase by phase (hr_layer_bench) and keeps
 * proj_s = QKV + output projection and core_s. As soon as core_s > proj_s the crossing
 * is bracketed [lo, hi]; --refine bisection steps (geometric midpoints) narrow it, and
 * larger N is not measured (it would only cost time). N* is the log-linear
 * interpolation of log(core_s / proj_s) against log N between the bracket's ends: for
 * constant rates the ratio is proportional to N, so the line is exact in that case.
 * The FLOP prediction comes from counts.c (hr_layer_flops_crossover; 2·d_model for MHA
 * with Hq·d = d_model, non-causal). measured / predicted = the ratio of the two phases'
 * speeds: the core and the GEMMs run at different fractions of peak, printed beside it.
 *
 * Outputs in --out (default results/<machine>/crossover-<stamp>/):
 *   crossover.csv        every measured point, appended and flushed as it is measured
 *   crossover_table.csv  one row per kernel x d_model, written atomically at the end */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "files.h"
#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "counts.h"
#include "layer.h"
#include "results.h"
#include "sysinfo.h"

#define MAX_LIST 32

/* Splits a comma-separated list in place; returns the count or -1 when over max. */
static int split(char *s, char **items, int max)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max) return -1;
        items[n++] = tok;
    }
    return n;
}

/* ---- shared with sweep (layer.h) ------------------------------------------------ */

void hr_crossover_csv_header(FILE *f)
{
    fprintf(f, "kernel,d_model,N,proj_s,core_s,proj_gflops,core_gflops\n");
}

void hr_crossover_csv_row(FILE *f, const char *kernel, int d_model, const hr_xpoint *p)
{
    fprintf(f, "%s,%d,%d,%.9g,%.9g,%.6g,%.6g\n", kernel, d_model, p->n, p->proj_s, p->core_s,
            p->proj_gflops, p->core_gflops);
}

static double lratio(const hr_xpoint *p) { return log(p->core_s / p->proj_s); }

void hr_crossover_interp(const hr_xpoint *lo, const hr_xpoint *hi, hr_crossing *x)
{
    const double rl = lratio(lo), rh = lratio(hi);
    const double w = rh > rl ? -rl / (rh - rl) : 0.5; /* in [0, 1]: rl <= 0 < rh */
    x->n_star = exp(log(lo->n) + w * (log(hi->n) - log(lo->n)));
    x->core_gflops = exp(log(lo->core_gflops) + w * (log(hi->core_gflops) - log(lo->core_gflops)));
    x->proj_gflops = exp(log(lo->proj_gflops) + w * (log(hi->proj_gflops) - log(lo->proj_gflops)));
}

void hr_crossover_series(const hr_xpoint *pts, int n, hr_crossing *x)
{
    x->n_star = x->core_gflops = x->proj_gflops = NAN;
    x->note[0] = 0;
    if (n < 1) {
        snprintf(x->note, sizeof x->note, "no point measured");
        return;
    }
    int i = 0;
    while (i < n && !(pts[i].core_s > pts[i].proj_s)) i++;
    if (i == n) snprintf(x->note, sizeof x->note, "> %d: core never overtook the projections", pts[n - 1].n);
    else if (i == 0) snprintf(x->note, sizeof x->note, "< %d: core already slower at the smallest N", pts[0].n);
    else hr_crossover_interp(&pts[i - 1], &pts[i], x);
}

int hr_crossover_table_write(const char *path, const hr_crossing *xs, int n, FILE *print)
{
    size_t cap = 256 + (size_t)n * 320, len = 0;
    char *tab = malloc(cap);
    if (!tab) return hr_fail("out of memory");
    len += (size_t)snprintf(tab + len, cap - len, "kernel,d_model,n_star_measured,n_star_flops,ratio,core_gflops,proj_gflops,note\n");
    if (print)
        fprintf(print, "%-8s %8s %12s %12s %8s %12s %12s  %s\n", "kernel", "d_model", "N*_measured",
                "N*_flops", "ratio", "core GF/s", "proj GF/s", "note");
    for (int i = 0; i < n; i++) {
        const hr_crossing *x = &xs[i];
        char ns[32] = "", rs[32] = "", cg[32] = "", pg[32] = "";
        if (isfinite(x->n_star)) {
            snprintf(ns, sizeof ns, "%.0f", x->n_star);
            snprintf(rs, sizeof rs, "%.3f", x->n_star / x->n_flops);
            snprintf(cg, sizeof cg, "%.2f", x->core_gflops);
            snprintf(pg, sizeof pg, "%.2f", x->proj_gflops);
        }
        len += (size_t)snprintf(tab + len, cap - len, "%s,%d,%s,%.1f,%s,%s,%s,%s\n", x->kernel,
                                x->d_model, ns, x->n_flops, rs, cg, pg, x->note);
        if (print)
            fprintf(print, "%-8s %8d %12s %12.0f %8s %12s %12s  %s\n", x->kernel, x->d_model,
                    *ns ? ns : "-", x->n_flops, *rs ? rs : "-", *cg ? cg : "-", *pg ? pg : "-", x->note);
    }
    if (print)
        fprintf(print, "ratio = measured / FLOP-predicted N*: below 1 when the core runs at a lower fraction "
                       "of peak than the GEMMs (core GF/s < proj GF/s at N*), above 1 when faster.\n");
    int st = hr_write_atomic(path, tab);
    free(tab);
    return st;
}

/* ---- headroom crossover ------------------------------------------------------------ */

typedef struct {
    hr_layer_spec base;
    FILE *csv;
    double budget;
} sweep_ctx;

/* Measures one point; returns HR_OK, or the status of hr_layer_bench (over budget: the
 * message says so). */
static int measure(sweep_ctx *c, const hr_kernel *k, int d_model, int n, hr_xpoint *pt)
{
    hr_layer_spec s = c->base;
    s.kernel = k;
    s.d_model = d_model;
    s.heads = s.kv_heads = d_model / s.d_head;
    s.seq = n;
    hr_layer_result r;
    int st = hr_layer_bench(&s, &r);
    if (st) return st;
    pt->n = n;
    pt->proj_s = r.phase[HR_PHASE_QKV].timing.s.median + r.phase[HR_PHASE_OUT].timing.s.median;
    pt->core_s = r.phase[HR_PHASE_CORE].timing.s.median;
    const double pf = r.phase[HR_PHASE_QKV].flops + r.phase[HR_PHASE_OUT].flops;
    pt->proj_gflops = pt->proj_s > 0 ? pf / pt->proj_s * 1e-9 : 0;
    pt->core_gflops = hr_layer_phase_gflops(&r, HR_PHASE_CORE);
    hr_crossover_csv_row(c->csv, k->name, d_model, pt);
    fflush(c->csv);
    fprintf(stderr, "  %-6s d_model %5d N %6d: proj %9.3f ms (%6.1f GFLOP/s)  core %9.3f ms (%6.1f GFLOP/s)\n",
            k->name, d_model, n, pt->proj_s * 1e3, pt->proj_gflops, pt->core_s * 1e3, pt->core_gflops);
    return HR_OK;
}

/* Sweeps N for one kernel x d_model and fills x. */
static int sweep_one(sweep_ctx *c, const hr_kernel *k, int d_model, int seq_min, int seq_max,
                     int refine, hr_crossing *x)
{
    const int H = d_model / c->base.d_head;
    snprintf(x->kernel, sizeof x->kernel, "%s", k->name);
    x->d_model = d_model;
    x->n_star = x->core_gflops = x->proj_gflops = NAN;
    x->n_flops = hr_layer_flops_crossover(d_model, H, H, c->base.d_head, c->base.causal);
    x->note[0] = 0;
    hr_xpoint lo = {0}, hi = {0}, pt;
    int have_lo = 0;
    for (long n = seq_min; n <= seq_max; n *= 2) {
        hr_layer_spec s = c->base;
        s.kernel = k, s.d_model = d_model, s.heads = s.kv_heads = H, s.seq = (int)n;
        if (hr_layer_bytes(&s) > c->budget) {
            snprintf(x->note, sizeof x->note, "> %d: N=%ld skipped, over the memory budget", have_lo ? lo.n : 0, n);
            return HR_OK;
        }
        int st = measure(c, k, d_model, (int)n, &pt);
        if (st) return st;
        if (pt.core_s > pt.proj_s) {
            hi = pt;
            break;
        }
        lo = pt, have_lo = 1;
    }
    if (!hi.n) {
        snprintf(x->note, sizeof x->note, "> %d: core never overtook the projections", lo.n);
        return HR_OK;
    }
    if (!have_lo) {
        snprintf(x->note, sizeof x->note, "< %d: core already slower at --seq-min", hi.n);
        return HR_OK;
    }
    /* Bisection on log N: the geometric midpoint, rounded to a multiple of 8. */
    for (int i = 0; i < refine; i++) {
        int mid = (int)lround(sqrt((double)lo.n * hi.n) / 8) * 8;
        if (mid <= lo.n || mid >= hi.n) break;
        int st = measure(c, k, d_model, mid, &pt);
        if (st) return st;
        if (pt.core_s > pt.proj_s) hi = pt;
        else lo = pt;
    }
    hr_crossover_interp(&lo, &hi, x);
    return HR_OK;
}

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
        {"--threads", HR_OPT_INT, &threads, 1, 1024, NULL, "T", "threads (all CPUs)"},
        {"--reps", HR_OPT_INT, &reps, 1, HR_MAX_REPS, NULL, "R", "repetitions per phase (3)"},
        {"--min-time", HR_OPT_DOUBLE, &min_time, 0, 3600, NULL, "SEC", "minimum seconds per repetition (0.02)"},
        {"--seed", HR_OPT_INT, &seed, 0, 2147483647, NULL, "S", "input and weight seed (1)"},
        {"--max-mem", HR_OPT_BYTES, &max_mem, 1, 1e18, NULL, "BYTES", "memory budget; larger N is skipped (half of RAM)"},
        {"--out", HR_OPT_STR, &out_dir, 0, 0, NULL, "DIR", "output directory (results/<machine>/crossover-<stamp>)"},
        {NULL},
    };
    const char *syn = "crossover [--d-model LIST] [--kernels LIST] [--seq-min N] [--seq-max N] [--out DIR]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st < 0) return HR_OK;
    if (st) goto err;
    if (seq_min > seq_max) {
        st = hr_fail("--seq-min: %d is larger than --seq-max %d", seq_min, seq_max);
        goto err;
    }
    char dmbuf[512], kbuf[512], *dms[MAX_LIST], *ks[MAX_LIST];
    snprintf(dmbuf, sizeof dmbuf, "%s", dm_list);
    snprintf(kbuf, sizeof kbuf, "%s", k_list);
    int ndm = split(dmbuf, dms, MAX_LIST), nk = split(kbuf, ks, MAX_LIST);
    if (ndm < 1 || nk < 1) {
        st = hr_fail("%s: expected 1 to %d comma-separated items", ndm < 1 ? "--d-model" : "--kernels", MAX_LIST);
        goto err;
    }
    int dmv[MAX_LIST];
    const hr_kernel *kv[MAX_LIST];
    for (int i = 0; i < ndm; i++) {
        char *end;
        long v = strtol(dms[i], &end, 10);
        if (*end || v < 1 || v > 65536 || v % d) {
            st = hr_fail("--d-model: '%s' is not a positive multiple of d_head %d (at most 65536)", dms[i], d);
            goto err;
        }
        dmv[i] = (int)v;
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
        snprintf(dir, sizeof dir, "results/%s/crossover-%s", hr_sysinfo_get()->machine, stamp);
    }
    if ((st = hr_mkdirs(dir))) goto err;
    char path[1100];
    snprintf(path, sizeof path, "%s/crossover.csv", dir);
    sweep_ctx c = {
        .base = {.batch = batch, .d_head = d, .causal = causal, .gemm = (hr_gemm_backend)gemm,
                 .threads = threads, .tune = {0, 0, threads}, .seed = (uint64_t)seed,
                 .timer = {.reps = reps, .min_time = min_time, .warmup = 0}},
        .budget = max_mem > 0 ? max_mem : hr_default_max_mem(),
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
        for (int j = 0; j < ndm && !st; j++) st = sweep_one(&c, kv[i], dmv[j], seq_min, seq_max, refine, &xs[nx++]);
    fclose(c.csv);
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
    fprintf(stderr, "headroom crossover: %s\n", hr_errmsg());
    return st;
}

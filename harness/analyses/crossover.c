/* crossover.c — where the attention core's N² cost overtakes the layer's projections: N* measured and interpolated, the crossover CSVs (`headroom crossover` and layer sweeps).
 *
 * For each kernel and d_model (heads = d_model / d_head), N runs geometrically (x2) from
 * seq_min; each point times the whole layer phase by phase (hr_layer_bench) and keeps
 * proj_s = QKV + output projection and core_s. As soon as core_s > proj_s the crossing
 * is bracketed [lo, hi]; refine bisection steps (geometric midpoints) narrow it, and
 * larger N is not measured (it would only cost time). N* is the log-linear
 * interpolation of log(core_s / proj_s) against log N between the bracket's ends: for
 * constant rates the ratio is proportional to N, so the line is exact in that case.
 * The FLOP prediction comes from counts.c (hr_layer_flops_crossover; 2·d_model for MHA
 * with Hq·d = d_model, non-causal). measured / predicted = the ratio of the two phases'
 * speeds: the core and the GEMMs run at different fractions of peak, printed beside it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crossover.h"
#include "files.h"

/* ---- the CSVs and N* (shared with layer sweeps) ------------------------------------ */

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

/* ---- measuring N* --------------------------------------------------------------- */

/* Measures one point; returns HR_OK, or the status of hr_layer_bench (over budget: the
 * message says so). */
static int measure(const hr_crossover_spec *c, const hr_kernel *k, int d_model, int n, hr_xpoint *pt)
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
    if (c->csv) {
        hr_crossover_csv_row(c->csv, k->name, d_model, pt);
        fflush(c->csv);
    }
    if (c->log)
        fprintf(c->log, "  %-6s d_model %5d N %6d: proj %9.3f ms (%6.1f GFLOP/s)  core %9.3f ms (%6.1f GFLOP/s)\n",
                k->name, d_model, n, pt->proj_s * 1e3, pt->proj_gflops, pt->core_s * 1e3, pt->core_gflops);
    return HR_OK;
}

int hr_crossover_measure(const hr_crossover_spec *c, const hr_kernel *k, int d_model, int seq_min,
                         int seq_max, int refine, hr_crossing *x)
{
    const int H = d_model / c->base.d_head;
    snprintf(x->kernel, sizeof x->kernel, "%s", k->name);
    x->d_model = d_model;
    x->n_star = x->core_gflops = x->proj_gflops = NAN;
    x->n_flops = hr_layer_flops_crossover(d_model, H, H, c->base.d_head, c->base.causal, 0);
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

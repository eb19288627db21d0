/* sweep_layer.c — sweep points in layer mode (the full layer, one result row per phase), stop_after_crossover, and the crossover table from those rows.
 *
 * A layer point is kernel x gemm x B x d_model x kv_heads x d_head x N x causal x threads
 * (heads = d_model / d_head), named and keyed at expansion (sweep_points.c).
 * hr_layer_bench measures it once; it becomes four rows named "<point>/<phase>" with
 * phase qkv_proj, core, out_proj (each with its own FLOPs from counts.c and its own
 * repetitions) and total (repetition i = the sum of every phase's repetition i; FLOPs
 * the sum). The point's resume key is the total row's, and
 * the total row is appended last, so a point counts as measured only when all four rows
 * were written. In every row block_q, block_kv and tune_source are the core's; threads
 * is that phase's (the GEMMs' for qkv_proj, out_proj and total). Counters: d_model,
 * gemm_threads, core_threads, layer_bytes (what the layer allocated).
 *
 * With passes > 1 the point name ends in "/passP" (row names stay unique, as attention
 * rows' do); the crossover reads the pass from that component.
 *
 * The crossover: rows are grouped into series (everything but N fixed); per N the
 * projection time is qkv_proj + out_proj and the core time core (medians, and the median
 * over passes when a point was measured in several); hr_crossover_series brackets N* the
 * way `headroom crossover` does, and the same writers produce the same two CSVs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "crossover.h"
#include "files.h"
#include "sweep_layer.h"

/* ---- layer points ------------------------------------------------------------------ */

/* The total's repetition i is the sum of the phases' repetitions i. */
static void total_timing(const hr_layer_result *lr, hr_timing *t)
{
    t->reps = lr->phase[0].timing.reps;
    t->iters = lr->phase[0].timing.iters;
    for (int ph = 0; ph < HR_NPHASES; ph++) {
        const hr_timing *p = &lr->phase[ph].timing;
        if (p->reps < t->reps) t->reps = p->reps;
        if (p->iters < t->iters) t->iters = p->iters;
        t->aborted |= p->aborted;
    }
    for (int i = 0; i < t->reps; i++) {
        t->rep_time[i] = t->rep_cpu[i] = 0;
        for (int ph = 0; ph < HR_NPHASES; ph++) {
            t->rep_time[i] += lr->phase[ph].timing.rep_time[i];
            t->rep_cpu[i] += lr->phase[ph].timing.rep_cpu[i];
        }
    }
    if (t->reps > 0) hr_summarize(t->rep_time, t->reps, &t->s);
}

int hr_sweep_layer_run(const hr_sweep_point *pt, const hr_bench_spec *spec, hr_result *rows, int *nrows)
{
    *nrows = 0;
    memset(&rows[HR_NPHASES], 0, sizeof rows[HR_NPHASES]); /* the caller reads timing.aborted */
    hr_layer_spec s = hr_sweep_layer_spec(pt);
    s.timer = spec->timer;
    s.seed = spec->seed;
    s.check = spec->check;
    s.max_mem = spec->max_mem;
    hr_layer_result *lr = malloc(sizeof *lr);
    if (!lr) return hr_fail("out of memory");
    int st = hr_layer_bench(&s, lr);
    if (st) {
        free(lr);
        return st;
    }
    char base[200];
    hr_layer_name(&s, lr, base, sizeof base);
    if (pt->named) { /* several passes: "/passP", as the point's name (sweep_points.c) */
        const size_t n = strlen(base);
        if (n < sizeof base) snprintf(base + n, sizeof base - n, "/pass%d", pt->pass);
    }
    const hr_kernel *k = pt->kernel;
    for (int ph = 0; ph <= HR_NPHASES; ph++) {
        const bool total = ph == HR_NPHASES;
        hr_result *r = &rows[ph];
        memset(r, 0, sizeof *r);
        r->kernel = k;
        r->prob = lr->prob;
        r->layout = HR_LAYOUT_BNHD;
        r->tune = lr->tune;
        if (ph != HR_PHASE_CORE) r->tune.threads = lr->gemm_threads;
        r->tune_source = pt->tune_source;
        snprintf(r->label, sizeof r->label, "%.200s/%s", base, total ? "total" : hr_phase_names[ph]);
        r->flops = total ? hr_layer_total_flops(lr) : lr->phase[ph].flops;
        if (ph == HR_PHASE_CORE) {
            r->bytes = hr_kernel_bytes(k, &lr->prob, &lr->tune);
            r->workspace_bytes = (double)hr_kernel_workspace(k, &lr->prob, &lr->tune);
        }
        if (total) total_timing(lr, &r->timing);
        else r->timing = lr->phase[ph].timing;
        if (lr->checked) {
            const hr_layer_check *c = &lr->check;
            r->checked = true;
            r->check = (hr_check){.max_abs_err = c->max_abs_err, .max_rel_err = c->max_rel_err,
                                  .nmse = c->nmse, .tol_pass = c->tol_pass, .tol_warn = c->tol_warn,
                                  .nonfinite = c->nonfinite, .rows_checked = c->rows_checked,
                                  .rows_total = c->rows_total, .verdict = c->verdict};
            if (c->format_max_rel >= 0) {
                hr_result_set(r, "format_max_rel", c->format_max_rel);
                hr_result_set(r, "format_nmse", c->format_nmse);
            }
        }
        hr_result_set(r, "d_model", pt->d_model);
        hr_result_set(r, "gemm_threads", lr->gemm_threads);
        hr_result_set(r, "core_threads", lr->tune.threads);
        hr_result_set(r, "layer_bytes", lr->bytes);
        const double proj = lr->phase[HR_PHASE_QKV].timing.s.median + lr->phase[HR_PHASE_OUT].timing.s.median;
        if (total && proj > 0) hr_result_set(r, "core_over_proj", lr->phase[HR_PHASE_CORE].timing.s.median / proj);
    }
    *nrows = HR_NPHASES + 1;
    free(lr);
    return HR_OK;
}

static double counter(const hr_result *r, const char *name)
{
    for (int i = 0; i < r->ncounters; i++)
        if (!strcmp(r->counters[i].name, name)) return r->counters[i].value;
    return NAN;
}

/* The series of a point or row name: "layer/K/gemm/B/N/..." without its N component
 * (and without anything after the 11 components of a point name). */
static void series_of(const char *name, char *buf, size_t len)
{
    size_t l = 0;
    int comp = 0;
    buf[0] = 0;
    for (const char *s = name; *s && comp < 11; comp++) {
        const size_t m = strcspn(s, "/");
        if (comp != 4) l += (size_t)snprintf(buf + l, l < len ? len - l : 0, "%s%.*s", comp ? "/" : "", (int)m, s);
        s += m + (s[m] == '/');
    }
}

const char *hr_sweep_layer_past(const hr_sweep_point *pt, const hr_result *res, int nres, char *buf, size_t len)
{
    char want[256], have[256];
    series_of(pt->name, want, sizeof want);
    for (int i = 0; i < nres; i++) {
        const hr_result *r = &res[i];
        const size_t n = strlen(r->label);
        if (strncmp(r->label, "layer/", 6) || n < 6 || strcmp(r->label + n - 6, "/total")) continue;
        if (r->prob.seq_q >= pt->prob.seq_q || !(counter(r, "core_over_proj") > 1)) continue;
        const double pass = counter(r, "pass");
        if ((isnan(pass) ? 1 : (int)pass) != pt->pass) continue;
        series_of(r->label, have, sizeof have);
        if (strcmp(want, have)) continue;
        snprintf(buf, len, "past the crossover (stop_after_crossover): the core was already slower than the "
                 "projections at N=%d", r->prob.seq_q);
        return buf;
    }
    return NULL;
}

/* ---- crossover from the rows ------------------------------------------------------- */

/* One N of one series, the medians of possibly several passes. */
typedef struct {
    int n, count;
    double qkv[16], core[16], out[16]; /* per pass; at most 16 kept                    */
    double proj_flops, core_flops;
    int have;                           /* bit per phase seen (1 qkv, 2 core, 4 out)   */
} xcell;

typedef struct {
    char id[200];   /* the point name without its N component                        */
    char kernel[32], gemm[48], kv[16], causal[8], var[64]; /* var: hr_variant_seg */
    int batch, d_head, threads, d_model, heads, kv_heads, korder, window;
    int ncell, capcell;
    xcell *cell;
} xseries;

static double median(double *x, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
            const double t = x[j];
            x[j] = x[j - 1], x[j - 1] = t;
        }
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Splits "layer/K/gemm/B/N/D/H/G/d/causal[/wW/capC/alibiB]/T/phase" into the series id
 * (without the N component), the gemm and the phase index; -1 when r is not a layer phase
 * row. The variant segments (as many as r's problem has) stay in the id. */
static int parse_label(const hr_result *r, char *id, size_t idlen, char *gemm, size_t glen)
{
    if (strncmp(r->label, "layer/", 6)) return -1;
    const char *slash = strrchr(r->label, '/');
    int ph = -1;
    for (int i = 0; i < HR_NPHASES; i++)
        if (!strcmp(slash + 1, hr_phase_names[i])) ph = i;
    if (ph < 0) return -1;
    const hr_problem *p = &r->prob;
    const int nvar = (p->window > 0) + (p->softcap > 0) + (p->alibi > 0), npt = 11 + nvar;
    char parts[16][48];
    int np = 0;
    for (const char *s = r->label; np < 16;) {
        const size_t m = strcspn(s, "/");
        snprintf(parts[np++], sizeof parts[0], "%.*s", (int)(m < 47 ? m : 47), s);
        if (!s[m]) break;
        s += m + 1;
    }
    /* npt point components, "passP" when the sweep had passes, the phase */
    if (np != npt + 1 && !(np == npt + 2 && !strncmp(parts[npt], "pass", 4))) return -1;
    size_t len = 0;
    id[0] = 0;
    for (int i = 0; i < npt; i++)
        if (i != 4) len += (size_t)snprintf(id + len, len < idlen ? idlen - len : 0, "%s%s", i ? "/" : "", parts[i]);
    snprintf(gemm, glen, "%s", parts[2]);
    return ph;
}

static int cmp_series(const void *a, const void *b)
{
    const xseries *x = a, *y = b;
    if (x->korder != y->korder) return x->korder - y->korder;
    if (x->d_model != y->d_model) return x->d_model - y->d_model;
    return strcmp(x->id, y->id);
}

static int cmp_cell(const void *a, const void *b)
{
    return ((const xcell *)a)->n - ((const xcell *)b)->n;
}

int hr_sweep_layer_crossover(const hr_result *res, int nres, const char *dir)
{
    xseries *ser = calloc((size_t)nres + 1, sizeof *ser);
    if (!ser) return hr_fail("out of memory");
    int ns = 0, st = HR_OK;
    const hr_kernel *korder[64];
    int nk = 0;
    for (int i = 0; i < nres && !st; i++) {
        const hr_result *r = &res[i];
        char id[200], gemm[48];
        const int ph = parse_label(r, id, sizeof id, gemm, sizeof gemm);
        if (ph < 0) continue;
        int k = 0;
        while (k < nk && korder[k] != r->kernel) k++;
        if (k == nk && nk < 64) korder[nk++] = r->kernel;
        int si = 0;
        while (si < ns && strcmp(ser[si].id, id)) si++;
        xseries *x = &ser[si];
        if (si == ns) {
            ns++;
            const hr_problem *p = &r->prob;
            snprintf(x->id, sizeof x->id, "%s", id);
            snprintf(x->kernel, sizeof x->kernel, "%s", r->kernel->name);
            snprintf(x->gemm, sizeof x->gemm, "%s", gemm);
            snprintf(x->causal, sizeof x->causal, "%s", p->causal ? "causal" : "full");
            hr_variant_seg(p, x->var, sizeof x->var);
            x->window = p->window;
            if (p->kv_heads == p->heads) snprintf(x->kv, sizeof x->kv, "mha");
            else if (p->kv_heads == 1) snprintf(x->kv, sizeof x->kv, "mqa");
            else snprintf(x->kv, sizeof x->kv, "g%d", p->heads / p->kv_heads);
            x->batch = p->batch, x->d_head = p->d_head, x->heads = p->heads, x->kv_heads = p->kv_heads;
            x->threads = (int)counter(r, "gemm_threads");
            x->d_model = (int)counter(r, "d_model");
            x->korder = k;
        }
        int ci = 0;
        while (ci < x->ncell && x->cell[ci].n != r->prob.seq_q) ci++;
        if (ci == x->ncell) {
            if (x->ncell == x->capcell) {
                const int cap = x->capcell ? 2 * x->capcell : 8;
                xcell *nc = realloc(x->cell, (size_t)cap * sizeof *nc);
                if (!nc) {
                    st = hr_fail("out of memory");
                    break;
                }
                x->cell = nc, x->capcell = cap;
            }
            memset(&x->cell[ci], 0, sizeof x->cell[ci]);
            x->cell[ci].n = r->prob.seq_q;
            x->ncell++;
        }
        xcell *c = &x->cell[ci];
        /* A pass of this N is complete when all three phases arrived; a new qkv row starts
         * the next pass (rows of one point are written in phase order). */
        if (ph == HR_PHASE_QKV && c->count < 16) {
            c->qkv[c->count] = r->timing.s.median;
            c->have = 1;
            c->proj_flops = r->flops;
        } else if (ph == HR_PHASE_CORE && (c->have & 1) && c->count < 16) {
            c->core[c->count] = r->timing.s.median;
            c->have |= 2;
            c->core_flops = r->flops;
        } else if (ph == HR_PHASE_OUT && c->have == 3 && c->count < 16) {
            c->out[c->count] = r->timing.s.median;
            c->proj_flops += r->flops;
            c->have = 0;
            c->count++;
        }
    }
    /* Qualify the kernel column with what varies between series, so each (kernel column,
     * d_model) pair the plots group by is one series. */
    bool vary[6] = {false};
    for (int i = 1; i < ns; i++) {
        vary[0] |= strcmp(ser[i].gemm, ser[0].gemm) != 0;
        vary[1] |= ser[i].batch != ser[0].batch;
        vary[2] |= strcmp(ser[i].kv, ser[0].kv) || ser[i].d_head != ser[0].d_head;
        vary[3] |= strcmp(ser[i].causal, ser[0].causal) != 0;
        vary[4] |= ser[i].threads != ser[0].threads;
        vary[5] |= strcmp(ser[i].var, ser[0].var) != 0;
    }
    qsort(ser, (size_t)ns, sizeof *ser, cmp_series);
    hr_crossing *xs = calloc((size_t)ns + 1, sizeof *xs);
    hr_xpoint *pts = NULL;
    char *csv = NULL;
    size_t len = 0;
    FILE *f = st ? NULL : open_memstream(&csv, &len);
    if (!xs || (!st && !f)) st = hr_fail("out of memory");
    if (!st) hr_crossover_csv_header(f);
    for (int i = 0; i < ns && !st; i++) {
        xseries *x = &ser[i];
        hr_crossing *c = &xs[i];
        int l = snprintf(c->kernel, sizeof c->kernel, "%s", x->kernel);
        if (vary[0]) l += snprintf(c->kernel + l, sizeof c->kernel - (size_t)l, "/%s", x->gemm);
        if (vary[1]) l += snprintf(c->kernel + l, sizeof c->kernel - (size_t)l, "/B%d", x->batch);
        if (vary[2]) l += snprintf(c->kernel + l, sizeof c->kernel - (size_t)l, "/%s/d%d", x->kv, x->d_head);
        if (vary[3]) l += snprintf(c->kernel + l, sizeof c->kernel - (size_t)l, "/%s", x->causal);
        if (vary[4]) l += snprintf(c->kernel + l, sizeof c->kernel - (size_t)l, "/T%d", x->threads);
        if (vary[5] && l >= 0 && (size_t)l < sizeof c->kernel) /* "naive/w4/cap20"; "" for a plain series */
            snprintf(c->kernel + l, sizeof c->kernel - (size_t)l, "%s", x->var);
        c->d_model = x->d_model;
        c->n_flops = hr_layer_flops_crossover(x->d_model, x->heads, x->kv_heads, x->d_head,
                                              !strcmp(x->causal, "causal"), x->window);
        qsort(x->cell, (size_t)x->ncell, sizeof *x->cell, cmp_cell);
        hr_xpoint *np = realloc(pts, ((size_t)x->ncell + 1) * sizeof *np);
        if (!np) {
            st = hr_fail("out of memory");
            break;
        }
        pts = np;
        int n = 0;
        for (int j = 0; j < x->ncell; j++) {
            xcell *e = &x->cell[j];
            if (!e->count) continue; /* a point interrupted between its rows */
            double proj[16];
            for (int q = 0; q < e->count; q++) proj[q] = e->qkv[q] + e->out[q];
            hr_xpoint *p = &pts[n++];
            p->n = e->n;
            p->proj_s = median(proj, e->count);
            p->core_s = median(e->core, e->count);
            p->proj_gflops = p->proj_s > 0 ? e->proj_flops / p->proj_s * 1e-9 : 0;
            p->core_gflops = p->core_s > 0 ? e->core_flops / p->core_s * 1e-9 : 0;
            hr_crossover_csv_row(f, c->kernel, c->d_model, p);
        }
        hr_crossover_series(pts, n, c);
    }
    if (f) fclose(f);
    char path[1100];
    if (!st && ns) {
        snprintf(path, sizeof path, "%s/crossover.csv", dir);
        st = hr_write_atomic(path, csv);
        snprintf(path, sizeof path, "%s/crossover_table.csv", dir);
        if (!st) st = hr_crossover_table_write(path, xs, ns, NULL);
        if (!st) fprintf(stderr, "headroom sweep: crossover of %d series: %s/crossover.csv, %s\n", ns, dir, path);
    }
    for (int i = 0; i < ns; i++) free(ser[i].cell);
    free(ser);
    free(xs);
    free(pts);
    free(csv);
    return st;
}

/* compare.c — judges each benchmark of a results file against a baseline (both read by gbread.c). */
#include "compare.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "phase.h"

const char *const hr_cmp_metric_names[] = {"time", "normalized", NULL};

/* ---- judging ------------------------------------------------------------------------ */

static void add_warn(hr_cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warn(hr_cmp *c, const char *fmt, ...)
{
    if (c->nwarn >= HR_CMP_MAX_WARN) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->warn[c->nwarn++], sizeof c->warn[0], fmt, ap);
    va_end(ap);
}

/* The samples of b in the metric, checked: every one present, finite and positive
 * (medians are divided and logged). */
static int samples(const hr_bench_file *f, const hr_bench *b, hr_cmp_metric m,
                   const double **out)
{
    const double *v = m == HR_METRIC_TIME ? b->time_ns : b->frac;
    for (int i = 0; i < b->n; i++) {
        if (isnan(v[i])) {
            if (m == HR_METRIC_TIME)
                return hr_fail("%s: benchmark '%s' has no real_time", f->path, b->name);
            return hr_fail("%s: benchmark '%s' has no '%s' counter; --metric normalized "
                           "needs results measured with the concurrent-ceiling probe",
                           f->path, b->name, HR_CMP_FRAC_COUNTER);
        }
        if (!isfinite(v[i]) || v[i] <= 0)
            return hr_fail("%s: benchmark '%s': %s must be a positive number, got %g", f->path,
                           b->name, m == HR_METRIC_TIME ? "real_time" : HR_CMP_FRAC_COUNTER,
                           v[i]);
    }
    *out = v;
    return HR_OK;
}

/* A context field as text ("" when absent): strings as they are, numbers printed. */
static void ctx_field(const cJSON *ctx, const char *key, char *buf, size_t len)
{
    const cJSON *v = ctx ? cJSON_GetObjectItemCaseSensitive(ctx, key) : NULL;
    buf[0] = 0;
    if (cJSON_IsString(v)) snprintf(buf, len, "%s", v->valuestring);
    else if (cJSON_IsNumber(v)) snprintf(buf, len, "%.17g", v->valuedouble);
}

/* Appends "key 'a' vs 'b'" for each key present in both contexts with different values.
 * Returns how many differ. */
static int ctx_diff(const cJSON *a, const cJSON *b, const char *const *keys, char *out,
                    size_t len)
{
    int ndiff = 0;
    out[0] = 0;
    for (int i = 0; keys[i]; i++) {
        char va[128], vb[128];
        ctx_field(a, keys[i], va, sizeof va);
        ctx_field(b, keys[i], vb, sizeof vb);
        if (!va[0] || !vb[0] || !strcmp(va, vb)) continue;
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s '%s' vs '%s'", ndiff++ ? ", " : "", keys[i], va, vb);
    }
    return ndiff;
}

/* Context keys that identify the machine and the build (both headroom and Google
 * Benchmark write host_name, num_cpus, library_build_type; headroom adds cpu_model,
 * build_id, cflags, compiler, isa). mhz_per_cpu is left out: /proc/cpuinfo reports the
 * current clock, which differs from run to run on the same machine. */
static const char *const machine_keys[] = {"cpu_model", "host_name", "num_cpus", NULL};
static const char *const build_keys[] = {"build_id", "cflags", "compiler", "isa",
                                         "library_build_type", NULL};

static void context_warnings(hr_cmp *c, const hr_bench_file *a, const hr_bench_file *b)
{
    char diff[320];
    if (ctx_diff(a->context, b->context, machine_keys, diff, sizeof diff))
        add_warn(c, "the files come from different machines (%s): timings may not compare",
                 diff);
    if (ctx_diff(a->context, b->context, build_keys, diff, sizeof diff))
        add_warn(c, "the files come from different builds (%s)", diff);
}

/* Smallest equal repetition count per side for which the test can reach p < alpha. */
static int reps_needed(double alpha)
{
    for (int k = 2; k <= 1000; k++)
        if (hr_mwu_min_p((size_t)k, (size_t)k) < alpha) return k;
    return 1000;
}

/* Names a few of list[0..n): "a, b, c and 4 more". */
static void few_names(const char **list, int n, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < n && i < 3; i++) {
        size_t k = strlen(buf);
        snprintf(buf + k, len - k, "%s%s", i ? ", " : "", list[i]);
    }
    size_t k = strlen(buf);
    if (n > 3) snprintf(buf + k, len - k, " and %d more", n - 3);
}

/* The number of samples to test. A counter that is one figure per result, written
 * unchanged into every repetition's row (headroom writes its per-result counters that
 * way), is one observation, not n: testing n copies would report a significance the
 * data does not have. So for a counter metric, n identical values count as one (and
 * *ncopied is incremented). Identical times are left alone: every time is measured. */
static int distinct_samples(const double *x, int n, hr_cmp_metric m, int *ncopied)
{
    if (m == HR_METRIC_TIME || n < 2) return n;
    for (int i = 1; i < n; i++)
        if (x[i] != x[0]) return n;
    ++*ncopied;
    return 1;
}

static int cmp_bench_ptr_name(const void *a, const void *b)
{
    return strcmp((*(const hr_bench *const *)a)->name, (*(const hr_bench *const *)b)->name);
}

/* log(median probe new / median probe base) of a matched pair: NAN unless both name the
 * same probe (FMA or bandwidth) and every sample carries a positive figure. */
static double probe_log_ratio(const hr_bench *b, const hr_bench *n)
{
    if (b->probe_kind != n->probe_kind ||
        (b->probe_kind != HR_PROBE_FMA && b->probe_kind != HR_PROBE_BW))
        return NAN;
    for (int i = 0; i < b->n; i++)
        if (!(b->probe[i] > 0) || !isfinite(b->probe[i])) return NAN;
    for (int i = 0; i < n->n; i++)
        if (!(n->probe[i] > 0) || !isfinite(n->probe[i])) return NAN;
    return log(hr_median(n->probe, (size_t)n->n) / hr_median(b->probe, (size_t)b->n));
}

/* A matched pair between matching and judging. */
typedef struct {
    const double *xb, *xn; /* samples in the metric                                     */
    double d;              /* log(median new / median base)                             */
    double pm;             /* the metric's log change the row's probes predict, or NAN  */
} pending;

/* Medians, deltas and the U test of one row, its new samples taken as x e^-s (scratch
 * has room for them). The verdict waits for the family's correction. */
static void measure_row(hr_cmp_row *r, const pending *q, double s, double *scratch)
{
    r->base = hr_median(q->xb, (size_t)r->n_base);
    r->new_ = hr_median(q->xn, (size_t)r->n_new);
    r->delta_pct = 100 * (r->new_ / r->base - 1);
    double k = exp(-s);
    r->adj_delta_pct = 100 * (r->new_ * k / r->base - 1);
    r->tested = r->n_base >= 2 && r->n_new >= 2;
    r->p_adj = r->p_asym = NAN;
    if (!r->tested) return;
    for (int i = 0; i < r->n_new; i++) scratch[i] = q->xn[i] * k;
    r->test = hr_mwu(q->xb, (size_t)r->n_base, scratch, (size_t)r->n_new);
}

/* compare.py's geomean of a file: over every repetition's real_time, matched or not
 * (its aggregate rows left out). NAN when a time is missing or not positive. */
static double file_geomean(const hr_bench_file *f)
{
    double s = 0;
    long n = 0;
    for (int i = 0; i < f->nbench; i++)
        for (int k = 0; k < f->bench[i].n; k++) {
            double t = f->bench[i].time_ns[k];
            if (!(t > 0)) return NAN;
            s += log(t);
            n++;
        }
    return n ? exp(s / (double)n) : NAN;
}

/* "Worse" is slower for time, a lower fraction of the ceiling for normalized. Beyond the
 * threshold (relative to the shift taken out), a tested row needs adjusted p < alpha. */
hr_verdict hr_cmp_verdict(const hr_cmp_row *r, const hr_cmp_opts *o)
{
    double worse = o->metric == HR_METRIC_TIME ? r->adj_delta_pct : -r->adj_delta_pct;
    if (fabs(worse) <= o->threshold_pct) return HR_VERDICT_SAME;
    if (r->tested && !(r->p_adj < o->alpha)) return HR_VERDICT_NOISE;
    return worse > 0 ? HR_VERDICT_REGRESSION : HR_VERDICT_IMPROVEMENT;
}

/* Corrects the tested rows' p-values as one family (o->correction) into p_adj. */
static int correct_rows(hr_cmp *c)
{
    double *p = malloc((size_t)(c->nrows > 0 ? c->nrows : 1) * sizeof *p);
    if (!p) return hr_fail("out of memory");
    int n = 0;
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i].tested) p[n++] = c->rows[i].test.p;
    if (hr_p_adjust(p, (size_t)n, c->opts.correction, p)) {
        free(p);
        return hr_fail("out of memory");
    }
    c->n_tested = n;
    for (int i = 0, k = 0; i < c->nrows; i++)
        if (c->rows[i].tested) c->rows[i].p_adj = p[k++];
    free(p);
    return HR_OK;
}

/* The raw p a single changed row needs for its corrected p to fall below alpha. */
static double alpha_per_row(const hr_cmp *c)
{
    int n = c->opts.correction == HR_PADJ_NONE || c->n_tested < 1 ? 1 : c->n_tested;
    return c->opts.alpha / n;
}

/* The warnings about the judging itself: weak tests, untested rows, copied counters. */
static void judging_warnings(hr_cmp *c, const hr_bench_file *base, const hr_bench_file *nw,
                             int n_copied)
{
    int untested_base = 0, untested_new = 0, weak = 0, weak_nb = 0, weak_nn = 0;
    double need = alpha_per_row(c);
    for (int i = 0; i < c->nrows; i++) {
        hr_cmp_row *r = &c->rows[i];
        if (!r->tested) {
            untested_base += r->n_base < 2;
            untested_new += r->n_new < 2;
        } else if (!r->can_reach && !weak++) {
            weak_nb = r->n_base;
            weak_nn = r->n_new;
        }
    }
    char fam[96] = "";
    if (need < c->opts.alpha)
        snprintf(fam, sizeof fam, " (alpha %g over %d tested rows, %s)", c->opts.alpha,
                 c->n_tested, hr_padj_names[c->opts.correction]);
    if (weak)
        add_warn(c,
                 "%d row(s) have too few repetitions for the U test to reach significance: "
                 "with %d and %d repetitions the smallest possible p is %.3g >= %s%.3g%s, so "
                 "they are never flagged; use at least %d repetitions on each side",
                 weak, weak_nb, weak_nn, hr_mwu_min_p((size_t)weak_nb, (size_t)weak_nn),
                 fam[0] ? "" : "alpha ", need, fam, reps_needed(need));
    if (c->n_untested)
        add_warn(c,
                 "%d row(s) have no repetitions in %s: judged on the %g%% threshold alone, "
                 "without a significance test",
                 c->n_untested,
                 untested_base && untested_new ? "either file"
                 : untested_base               ? base->path
                                               : nw->path,
                 c->opts.threshold_pct);
    if (n_copied)
        add_warn(c,
                 "%d sample set(s) carry one %s for all their repetitions (a per-result "
                 "counter, not one per repetition): counted as a single value",
                 n_copied, HR_CMP_FRAC_COUNTER);
}

/* The warnings about what was not compared and what the files say of themselves. */
static void input_warnings(hr_cmp *c, const hr_bench_file *base, const hr_bench_file *nw)
{
    char names[320];
    if (c->n_mismatch) {
        few_names(c->mismatch, c->n_mismatch, names, sizeof names);
        add_warn(c,
                 "%d benchmark(s) normalized by different probes in the two files (say fma "
                 "in one, bw in the other), not compared: %s; their %s does not compare across "
                 "probes (judge them with --metric time, or pin the probe: probe = fma)",
                 c->n_mismatch, names, HR_CMP_FRAC_COUNTER);
    }
    if (c->n_only_base) {
        few_names(c->only_base, c->n_only_base, names, sizeof names);
        add_warn(c, "%d benchmark(s) only in %s, not compared: %s", c->n_only_base, base->path,
                 names);
    }
    if (c->n_only_new) {
        few_names(c->only_new, c->n_only_new, names, sizeof names);
        add_warn(c, "%d benchmark(s) only in %s, not compared: %s", c->n_only_new, nw->path,
                 names);
    }
    if (base->nerrored)
        add_warn(c, "%s: %d row(s) with error_occurred skipped", base->path, base->nerrored);
    if (base->nexcluded)
        add_warn(c, "%s: %d repetition(s) excluded by the phase filter left out", base->path, base->nexcluded);
    if (nw->nexcluded)
        add_warn(c, "%s: %d repetition(s) excluded by the phase filter left out", nw->path, nw->nexcluded);
    if (nw->nerrored)
        add_warn(c, "%s: %d row(s) with error_occurred skipped", nw->path, nw->nerrored);
}

/* A benchmark's GFLOP/s at its median time as a % of its attainable_path_gflops; NAN
 * without one (an old file, no flops). */
static double pct_att(const hr_bench *b)
{
    if (!(b->att_gflops > 0) || !(b->flops > 0) || b->n < 1) return NAN;
    double *t = malloc((size_t)b->n * sizeof *t);
    if (!t) return NAN;
    int m = 0;
    for (int i = 0; i < b->n; i++)
        if (b->time_ns[i] > 0) t[m++] = b->time_ns[i];
    double med = m ? hr_median(t, (size_t)m) : NAN;
    free(t);
    return med > 0 ? b->flops / med / b->att_gflops * 100 : NAN;
}

/* Matches base's benchmarks (passing re) with nw's by name into c->rows and q. */
static int match_rows(hr_cmp *c, const hr_bench_file *base, const hr_bench_file *nw,
                      const regex_t *re, pending *q, int *n_copied)
{
    const hr_cmp_opts *o = &c->opts;
    const hr_bench **byname = malloc((size_t)(nw->nbench > 0 ? nw->nbench : 1) * sizeof *byname);
    bool *used = calloc((size_t)nw->nbench + 1, sizeof *used);
    int st = HR_OK;
    if (!byname || !used) {
        st = hr_fail("out of memory");
        goto out;
    }
    for (int i = 0; i < nw->nbench; i++) byname[i] = &nw->bench[i];
    qsort(byname, (size_t)nw->nbench, sizeof *byname, cmp_bench_ptr_name);
    for (int i = 0; i < base->nbench; i++) {
        const hr_bench *b = &base->bench[i];
        if (re && regexec(re, b->name, 0, NULL, 0)) continue;
        const hr_bench *key = b, **hit = bsearch(&key, byname, (size_t)nw->nbench,
                                                 sizeof *byname, cmp_bench_ptr_name);
        if (!hit) {
            c->only_base[c->n_only_base++] = b->name;
            continue;
        }
        const hr_bench *n = *hit;
        used[n - nw->bench] = true;
        pending *p = &q[c->nrows];
        if ((st = samples(base, b, o->metric, &p->xb)) || (st = samples(nw, n, o->metric, &p->xn)))
            goto out;
        if (o->metric == HR_METRIC_NORMALIZED &&
            (b->probe_kind != n->probe_kind || b->probe_kind == HR_BENCH_PROBE_MIXED)) {
            c->mismatch[c->n_mismatch++] = b->name;
            continue;
        }
        hr_cmp_row *r = &c->rows[c->nrows++];
        r->name = b->name;
        r->n_base = distinct_samples(p->xb, b->n, o->metric, n_copied);
        r->n_new = distinct_samples(p->xn, n->n, o->metric, n_copied);
        p->d = log(hr_median(p->xn, (size_t)r->n_new) / hr_median(p->xb, (size_t)r->n_base));
        double lp = probe_log_ratio(b, n);
        r->probe_pct = isnan(lp) ? NAN : 100 * expm1(lp);
        r->att_base = pct_att(b), r->att_new = pct_att(n), r->bound_by = n->bound_by;
        /* a faster machine (probe up) predicts a lower time */
        p->pm = o->metric == HR_METRIC_TIME ? -lp : NAN;
    }
    for (int i = 0; i < nw->nbench; i++)
        if (!used[i] && !(re && regexec(re, nw->bench[i].name, 0, NULL, 0)))
            c->only_new[c->n_only_new++] = nw->bench[i].name;
out:
    free(byname);
    free(used);
    return st;
}

int hr_compare(const hr_bench_file *base, const hr_bench_file *nw, const hr_cmp_opts *o,
               hr_cmp *c)
{
    memset(c, 0, sizeof *c);
    c->opts = *o;
    c->base_path = base->path;
    c->new_path = nw->path;
    regex_t re;
    if (o->filter) {
        int e = regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB);
        if (e) {
            char msg[128];
            regerror(e, &re, msg, sizeof msg);
            return hr_fail("--filter: invalid regular expression '%s': %s", o->filter, msg);
        }
    }
    size_t nb = (size_t)base->nbench + 1;
    int st = HR_OK, nmax = 1, n_copied = 0;
    for (int i = 0; i < nw->nbench; i++) nmax = nw->bench[i].n > nmax ? nw->bench[i].n : nmax;
    c->rows = calloc(nb, sizeof *c->rows);
    c->only_base = calloc(nb, sizeof *c->only_base);
    c->only_new = calloc((size_t)nw->nbench + 1, sizeof *c->only_new);
    c->mismatch = calloc(nb, sizeof *c->mismatch);
    pending *q = calloc(nb, sizeof *q);
    double *d = calloc(nb, sizeof *d), *pm = calloc(nb, sizeof *pm);
    double *ratio = calloc(nb, sizeof *ratio), *scratch = calloc((size_t)nmax, sizeof *scratch);
    if (!c->rows || !c->only_base || !c->only_new || !c->mismatch || !q || !d || !pm ||
        !ratio || !scratch) {
        st = hr_fail("out of memory");
        goto out;
    }
    if ((st = match_rows(c, base, nw, o->filter ? &re : NULL, q, &n_copied))) goto out;
    if (c->nrows == 0) {
        st = hr_fail("no benchmark in %s matches one in %s by name%s%s%s%s", nw->path,
                     base->path, o->filter ? " (after --filter '" : "", o->filter ? o->filter : "",
                     o->filter ? "')" : "",
                     c->n_mismatch ? " and the same probe (--metric normalized)" : "");
        goto out;
    }

    /* the common shift, then every row relative to it, then the family's correction */
    for (int i = 0; i < c->nrows; i++) {
        d[i] = q[i].d;
        pm[i] = q[i].pm;
    }
    c->shift = hr_shift_estimate(d, pm, c->nrows, o->metric == HR_METRIC_NORMALIZED,
                                 o->threshold_pct, !o->no_shift);
    hr_shift_describe(&c->shift, o->metric == HR_METRIC_TIME, o->threshold_pct, c->shift_note,
                      sizeof c->shift_note);
    c->common = hr_shift_code_verdict(&c->shift, o->metric == HR_METRIC_TIME, o->threshold_pct,
                                      o->alpha);
    for (int i = 0; i < c->nrows; i++) {
        measure_row(&c->rows[i], &q[i], c->shift.s, scratch);
        if (o->p_asymptotic && c->rows[i].tested)
            c->rows[i].p_asym = hr_mwu_asymptotic(q[i].xb, (size_t)c->rows[i].n_base, q[i].xn, (size_t)c->rows[i].n_new).p;
        ratio[i] = c->rows[i].new_ / c->rows[i].base;
    }
    if ((st = correct_rows(c))) goto out;
    double need = alpha_per_row(c);
    for (int i = 0; i < c->nrows; i++) {
        hr_cmp_row *r = &c->rows[i];
        r->can_reach = !r->tested || hr_mwu_min_p((size_t)r->n_base, (size_t)r->n_new) < need;
        r->verdict = hr_cmp_verdict(r, o);
        c->count[r->verdict]++;
        c->n_untested += !r->tested;
    }
    c->geomean_delta_pct = 100 * (hr_geomean(ratio, (size_t)c->nrows) - 1);
    c->gbench_geomean_delta_pct = o->metric == HR_METRIC_TIME ? 100 * (file_geomean(nw) / file_geomean(base) - 1) : NAN;

    context_warnings(c, base, nw);
    judging_warnings(c, base, nw, n_copied);
    input_warnings(c, base, nw);
out:
    if (o->filter) regfree(&re);
    free(q);
    free(d);
    free(pm);
    free(ratio);
    free(scratch);
    if (st) hr_cmp_free(c);
    return st;
}

void hr_cmp_free(hr_cmp *c)
{
    free(c->rows);
    free(c->only_base);
    free(c->only_new);
    free(c->mismatch);
    memset(c, 0, sizeof *c);
}

int hr_cmp_status(const hr_cmp *c)
{
    if (c->shift.undecided) return HR_CMP_UNDECIDED;
    return c->count[HR_VERDICT_REGRESSION] || c->common == HR_VERDICT_REGRESSION ? HR_EFAIL
                                                                                 : HR_OK;
}

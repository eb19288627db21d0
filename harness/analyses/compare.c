/* compare.c — reads two Google Benchmark-schema results files and judges each benchmark. */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "headroom.h"

const char *const hr_cmp_metric_names[] = {"time", "normalized", NULL};
const char *const hr_verdict_names[] = {"same", "noise", "REGRESSION", "IMPROVEMENT", NULL};

/* ---- reading a results file ------------------------------------------------------ */

/* One usable row of the "benchmarks" array before grouping. */
typedef struct {
    const char *key; /* run_name or name (points into the cJSON tree)                  */
    int idx;         /* position in the array                                          */
    int aggregate;   /* 1: a "median" aggregate row, 0: an iteration row               */
    double time_ns, frac;
} raw_row;

static int cmp_raw(const void *a, const void *b)
{
    const raw_row *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_bench_first(const void *a, const void *b)
{
    const hr_bench *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* Nanoseconds per unit of Google Benchmark's time_unit, or 0 if unknown. */
static double ns_per_unit(const char *u)
{
    static const struct {
        const char *name;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(u, units[i].name)) return units[i].ns;
    return 0;
}

/* Whether text ends inside a string or with a bracket left open: a JSON document cut
 * off before its end (an interrupted write). */
static int json_unclosed(const char *text, size_t len)
{
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_str) {
            if (ch == '\\') i++;
            else if (ch == '"') in_str = 0;
        } else if (ch == '"') {
            in_str = 1;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            depth--;
        }
    }
    return in_str || depth > 0;
}

/* Line and column (1-based) of offset off in text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

/* Fills r from benchmarks[i]. Returns HR_OK, 1 if the row is to be skipped (another
 * aggregate, or errored: *errored set), or HR_EUSAGE. */
static int read_row(const cJSON *it, int i, const char *path, raw_row *r, int *errored)
{
    if (!cJSON_IsObject(it)) return hr_fail("%s: benchmarks[%d] is not an object", path, i);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "run_name");
    if (!cJSON_IsString(name)) name = cJSON_GetObjectItemCaseSensitive(it, "name");
    if (!cJSON_IsString(name) || !*name->valuestring)
        return hr_fail("%s: benchmarks[%d] has no \"name\"", path, i);
    *r = (raw_row){.key = name->valuestring, .idx = i, .time_ns = NAN, .frac = NAN};

    const cJSON *err = cJSON_GetObjectItemCaseSensitive(it, "error_occurred");
    if (cJSON_IsTrue(err)) {
        *errored = 1;
        return 1;
    }
    /* A repetition the phase filter left out of its result's medians (phase.h) is left
     * out of the test too, so compare judges the same samples the result reports. */
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "excluded"))) {
        *errored = 2;
        return 1;
    }
    /* Old Google Benchmark versions write no run_type: those rows are iterations. */
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(it, "run_type");
    if (cJSON_IsString(type) && !strcmp(type->valuestring, "aggregate")) {
        const cJSON *agg = cJSON_GetObjectItemCaseSensitive(it, "aggregate_name");
        if (!cJSON_IsString(agg) || strcmp(agg->valuestring, "median")) return 1;
        r->aggregate = 1;
    }

    const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "real_time");
    if (t) {
        if (!cJSON_IsNumber(t))
            return hr_fail("%s: benchmark '%s': real_time is not a number", path, r->key);
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(it, "time_unit");
        if (!cJSON_IsString(u))
            return hr_fail("%s: benchmark '%s': real_time without a time_unit", path, r->key);
        double ns = ns_per_unit(u->valuestring);
        if (ns == 0)
            return hr_fail("%s: benchmark '%s': unknown time_unit '%s' (ns, us, ms or s)",
                           path, r->key, u->valuestring);
        r->time_ns = t->valuedouble * ns;
    }
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(it, HR_CMP_FRAC_COUNTER);
    if (fr) {
        if (!cJSON_IsNumber(fr))
            return hr_fail("%s: benchmark '%s': %s is not a number", path, r->key,
                           HR_CMP_FRAC_COUNTER);
        r->frac = fr->valuedouble;
    }
    return HR_OK;
}

/* Groups rows (sorted by key, then position) into benchmarks: a benchmark's samples
 * are its iteration rows, or its first median aggregate when it has none. */
static int group_rows(raw_row *rows, int n, hr_bench_file *f)
{
    f->bench = calloc((size_t)n, sizeof *f->bench);
    if (!f->bench) return hr_fail("%s: out of memory", f->path);
    for (int s = 0; s < n;) {
        int e = s, niter = 0;
        while (e < n && !strcmp(rows[e].key, rows[s].key)) niter += !rows[e++].aggregate;
        hr_bench *b = &f->bench[f->nbench++];
        b->name = strdup(rows[s].key);
        b->n = niter ? niter : 1;
        b->from_aggregate = niter == 0;
        b->time_ns = malloc((size_t)b->n * sizeof *b->time_ns);
        b->frac = malloc((size_t)b->n * sizeof *b->frac);
        if (!b->name || !b->time_ns || !b->frac) return hr_fail("%s: out of memory", f->path);
        b->first = rows[s].idx;
        int k = 0;
        for (int q = s; q < e && k < b->n; q++) {
            if (rows[q].aggregate != b->from_aggregate) continue;
            b->time_ns[k] = rows[q].time_ns;
            b->frac[k++] = rows[q].frac;
        }
        s = e;
    }
    qsort(f->bench, (size_t)f->nbench, sizeof *f->bench, cmp_bench_first);
    return HR_OK;
}

int hr_bench_file_parse(const char *text, size_t len, const char *path, hr_bench_file *f)
{
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    if (!f->path) return hr_fail("%s: out of memory", path);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    int st = HR_OK;
    raw_row *rows = NULL;
    if (!root) {
        size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        int line, col;
        line_col(text, off, &line, &col);
        size_t blank = 0;
        while (blank < len && strchr(" \t\r\n", text[blank]) && text[blank]) blank++;
        if (blank == len)
            st = hr_fail("%s: empty file, not JSON", path);
        else if (json_unclosed(text, len))
            st = hr_fail("%s: JSON ends before its closing brackets (truncated file?)", path);
        else
            st = hr_fail("%s: invalid JSON at line %d, column %d", path, line, col);
        goto out;
    }
    if (!cJSON_IsObject(root)) {
        st = hr_fail("%s: not a results file (the top level is not a JSON object)", path);
        goto out;
    }
    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
    if (!cJSON_IsArray(benches)) {
        st = hr_fail("%s: no \"benchmarks\" array (not a Google Benchmark-schema results "
                     "file)",
                     path);
        goto out;
    }
    int n = cJSON_GetArraySize(benches), nrows = 0, i = 0;
    rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    if (!rows) {
        st = hr_fail("%s: out of memory", path);
        goto out;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, benches)
    {
        int errored = 0;
        int r = read_row(it, i++, path, &rows[nrows], &errored);
        if (r == HR_OK) nrows++;
        else if (r != 1) {
            st = r;
            goto out;
        }
        f->nerrored += errored == 1;
        f->nexcluded += errored == 2;
    }
    if (nrows == 0) {
        st = hr_fail("%s: no benchmark rows%s", path,
                     f->nerrored ? " (every row has error_occurred)" : "");
        goto out;
    }
    qsort(rows, (size_t)nrows, sizeof *rows, cmp_raw);
    if ((st = group_rows(rows, nrows, f))) goto out;
    f->context = cJSON_DetachItemFromObjectCaseSensitive(root, "context");
    if (f->context && !cJSON_IsObject(f->context)) {
        cJSON_Delete(f->context);
        f->context = NULL;
    }
out:
    free(rows);
    cJSON_Delete(root);
    if (st) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", hr_errmsg());
        hr_bench_file_free(f);
        hr_fail("%s", msg);
    }
    return st;
}

int hr_bench_file_load(const char *path, hr_bench_file *f)
{
    memset(f, 0, sizeof *f);
    FILE *fp = fopen(path, "rb");
    if (!fp) return hr_fail("%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(fp), &sb) || !S_ISREG(sb.st_mode)) {
        fclose(fp);
        return hr_fail("%s: not a regular file", path);
    }
    if (sb.st_size > (1L << 30)) {
        fclose(fp);
        return hr_fail("%s: %lld bytes, larger than the 1 GiB a results file may have", path,
                       (long long)sb.st_size);
    }
    size_t len = (size_t)sb.st_size;
    char *text = malloc(len + 1);
    if (!text) {
        fclose(fp);
        return hr_fail("%s: out of memory", path);
    }
    size_t got = fread(text, 1, len, fp);
    int rerr = ferror(fp);
    fclose(fp);
    if (rerr || got != len) {
        free(text);
        return hr_fail("%s: read error", path);
    }
    text[len] = 0;
    int st = hr_bench_file_parse(text, len, path, f);
    free(text);
    return st;
}

void hr_bench_file_free(hr_bench_file *f)
{
    for (int i = 0; i < f->nbench; i++) {
        free(f->bench[i].name);
        free(f->bench[i].time_ns);
        free(f->bench[i].frac);
    }
    free(f->bench);
    free(f->path);
    cJSON_Delete(f->context);
    memset(f, 0, sizeof *f);
}

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

/* Judges one matched pair. "Worse" is slower for time, a lower fraction of the ceiling
 * for normalized. Beyond the threshold, a tested row needs p < alpha to be called. */
static void judge(hr_cmp_row *r, const double *xb, const double *xn, const hr_cmp_opts *o)
{
    r->base = hr_median(xb, (size_t)r->n_base);
    r->new_ = hr_median(xn, (size_t)r->n_new);
    r->delta_pct = 100 * (r->new_ / r->base - 1);
    r->tested = r->n_base >= 2 && r->n_new >= 2;
    r->can_reach = true;
    bool significant = true;
    if (r->tested) {
        r->test = hr_mwu(xb, (size_t)r->n_base, xn, (size_t)r->n_new);
        r->can_reach = hr_mwu_min_p((size_t)r->n_base, (size_t)r->n_new) < o->alpha;
        significant = r->test.p < o->alpha;
    }
    double worse = o->metric == HR_METRIC_TIME ? r->delta_pct : -r->delta_pct;
    if (fabs(worse) <= o->threshold_pct) r->verdict = HR_VERDICT_SAME;
    else if (!significant) r->verdict = HR_VERDICT_NOISE;
    else r->verdict = worse > 0 ? HR_VERDICT_REGRESSION : HR_VERDICT_IMPROVEMENT;
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
    int st = HR_OK;
    const hr_bench **byname = malloc((size_t)nw->nbench * sizeof *byname);
    bool *used = calloc((size_t)nw->nbench, sizeof *used);
    c->rows = calloc((size_t)base->nbench, sizeof *c->rows);
    c->only_base = calloc((size_t)base->nbench, sizeof *c->only_base);
    c->only_new = calloc((size_t)nw->nbench, sizeof *c->only_new);
    double *ratio = calloc((size_t)base->nbench, sizeof *ratio);
    if (!byname || !used || !c->rows || !c->only_base || !c->only_new || !ratio) {
        st = hr_fail("out of memory");
        goto out;
    }
    for (int i = 0; i < nw->nbench; i++) byname[i] = &nw->bench[i];
    qsort(byname, (size_t)nw->nbench, sizeof *byname, cmp_bench_ptr_name);

    int untested_base = 0, untested_new = 0, weak = 0, weak_nb = 0, weak_nn = 0;
    int n_copied = 0;
    for (int i = 0; i < base->nbench; i++) {
        const hr_bench *b = &base->bench[i];
        if (o->filter && regexec(&re, b->name, 0, NULL, 0)) continue;
        const hr_bench *key = b, **hit = bsearch(&key, byname, (size_t)nw->nbench,
                                                 sizeof *byname, cmp_bench_ptr_name);
        if (!hit) {
            c->only_base[c->n_only_base++] = b->name;
            continue;
        }
        used[*hit - nw->bench] = true;
        const double *xb, *xn;
        if ((st = samples(base, b, o->metric, &xb)) || (st = samples(nw, *hit, o->metric, &xn)))
            goto out;
        hr_cmp_row *r = &c->rows[c->nrows];
        r->name = b->name;
        r->n_base = distinct_samples(xb, b->n, o->metric, &n_copied);
        r->n_new = distinct_samples(xn, (*hit)->n, o->metric, &n_copied);
        judge(r, xb, xn, o);
        ratio[c->nrows++] = r->new_ / r->base;
        c->count[r->verdict]++;
        if (!r->tested) {
            c->n_untested++;
            untested_base += r->n_base < 2;
            untested_new += r->n_new < 2;
        } else if (!r->can_reach && !weak++) {
            weak_nb = r->n_base;
            weak_nn = r->n_new;
        }
    }
    for (int i = 0; i < nw->nbench; i++)
        if (!used[i] && !(o->filter && regexec(&re, nw->bench[i].name, 0, NULL, 0)))
            c->only_new[c->n_only_new++] = nw->bench[i].name;
    if (c->nrows == 0) {
        st = hr_fail("no benchmark in %s matches one in %s by name%s%s%s", nw->path, base->path,
                     o->filter ? " (after --filter '" : "", o->filter ? o->filter : "",
                     o->filter ? "')" : "");
        goto out;
    }
    c->geomean_delta_pct = 100 * (hr_geomean(ratio, (size_t)c->nrows) - 1);

    context_warnings(c, base, nw);
    if (weak)
        add_warn(c,
                 "%d row(s) have too few repetitions for the U test to reach significance: "
                 "with %d and %d repetitions the smallest possible p is %.3g >= alpha %g, so "
                 "they are never flagged; use at least %d repetitions on each side",
                 weak, weak_nb, weak_nn,
                 hr_mwu_min_p((size_t)weak_nb, (size_t)weak_nn), o->alpha,
                 reps_needed(o->alpha));
    if (c->n_untested)
        add_warn(c,
                 "%d row(s) have no repetitions in %s: judged on the %g%% threshold alone, "
                 "without a significance test",
                 c->n_untested,
                 untested_base && untested_new ? "either file"
                 : untested_base               ? base->path
                                               : nw->path,
                 o->threshold_pct);
    if (n_copied)
        add_warn(c,
                 "%d sample set(s) carry one %s for all their repetitions (a per-result "
                 "counter, not one per repetition): counted as a single value",
                 n_copied, HR_CMP_FRAC_COUNTER);
    char names[320];
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
out:
    if (o->filter) regfree(&re);
    free(byname);
    free(used);
    free(ratio);
    if (st) hr_cmp_free(c);
    return st;
}

void hr_cmp_free(hr_cmp *c)
{
    free(c->rows);
    free(c->only_base);
    free(c->only_new);
    memset(c, 0, sizeof *c);
}

/* ---- reports ------------------------------------------------------------------------ */

/* A median in readable units: "1.234 ms" for time, "0.7312" for a fraction. */
static void fmt_value(const hr_cmp *c, double v, char *buf, size_t len)
{
    if (c->opts.metric == HR_METRIC_NORMALIZED) {
        snprintf(buf, len, "%.4f", v);
        return;
    }
    static const struct {
        double ns;
        const char *unit;
    } u[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    size_t i = 0;
    while (i + 1 < sizeof u / sizeof u[0] && v < u[i].ns) i++;
    snprintf(buf, len, "%.4g %s", v / u[i].ns, u[i].unit);
}

/* A delta for display: rounding noise (|d| < 0.005%) shows as +0.00%, not -0.00%. */
static double shown(double d) { return fabs(d) < 0.005 ? 0 : d; }

static void fmt_p(const hr_cmp_row *r, char *buf, size_t len)
{
    if (r->tested) snprintf(buf, len, "%.3g", r->test.p);
    else snprintf(buf, len, "-");
}

static const char *metric_desc(const hr_cmp *c)
{
    return c->opts.metric == HR_METRIC_TIME
               ? "time (median real_time, lower is better)"
               : "normalized (median " HR_CMP_FRAC_COUNTER ", higher is better)";
}

static void fmt_summary(const hr_cmp *c, char *buf, size_t len)
{
    snprintf(buf, len,
             "%d regression%s, %d improvement%s, %d same, %d noise (%d compared)",
             c->count[HR_VERDICT_REGRESSION], c->count[HR_VERDICT_REGRESSION] == 1 ? "" : "s",
             c->count[HR_VERDICT_IMPROVEMENT], c->count[HR_VERDICT_IMPROVEMENT] == 1 ? "" : "s",
             c->count[HR_VERDICT_SAME], c->count[HR_VERDICT_NOISE], c->nrows);
}

void hr_cmp_print_table(FILE *f, const hr_cmp *c)
{
    fprintf(f, "headroom compare: %s -> %s\n", c->base_path, c->new_path);
    fprintf(f, "metric: %s; threshold %g%%; two-sided Mann-Whitney U, alpha %g\n",
            metric_desc(c), c->opts.threshold_pct, c->opts.alpha);
    for (int i = 0; i < c->nwarn; i++) fprintf(f, "warning: %s\n", c->warn[i]);
    int w = (int)strlen("benchmark");
    for (int i = 0; i < c->nrows; i++)
        if ((int)strlen(c->rows[i].name) > w) w = (int)strlen(c->rows[i].name);
    fprintf(f, "\n%-*s  %11s  %11s  %9s  %9s  %7s  %s\n", w, "benchmark", "base", "new",
            "delta", "p", "reps", "verdict");
    for (int i = 0; i < c->nrows; i++) {
        const hr_cmp_row *r = &c->rows[i];
        char vb[32], vn[32], p[32], reps[32];
        fmt_value(c, r->base, vb, sizeof vb);
        fmt_value(c, r->new_, vn, sizeof vn);
        fmt_p(r, p, sizeof p);
        snprintf(reps, sizeof reps, "%d/%d", r->n_base, r->n_new);
        fprintf(f, "%-*s  %11s  %11s  %+8.2f%%  %9s  %7s  %s\n", w, r->name, vb, vn,
                shown(r->delta_pct), p, reps, hr_verdict_names[r->verdict]);
    }
    char geo[48], sum[160];
    snprintf(geo, sizeof geo, "geomean (%d row%s)", c->nrows, c->nrows == 1 ? "" : "s");
    fprintf(f, "%-*s  %11s  %11s  %+8.2f%%\n", w, geo, "", "", shown(c->geomean_delta_pct));
    fmt_summary(c, sum, sizeof sum);
    fprintf(f, "\nresult: %s\n", sum);
}

/* Writes s as a markdown code span inside a table cell: '|' must still be escaped
 * there (GitHub splits cells first) and a backquote would end the span. */
static void md_code(FILE *f, const char *s)
{
    fputc('`', f);
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else fputc(*s == '`' ? '\'' : *s, f);
    }
    fputc('`', f);
}

/* Writes s as markdown text with the characters markdown treats specially escaped. */
static void md_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (strchr("|\\`*_<>[]#", *s)) fputc('\\', f);
        fputc(*s, f);
    }
}

void hr_cmp_print_markdown(FILE *f, const hr_cmp *c)
{
    char sum[160];
    fmt_summary(c, sum, sizeof sum);
    fprintf(f, "### %s headroom compare: %s\n\n",
            c->count[HR_VERDICT_REGRESSION] ? ":x:" : ":white_check_mark:", sum);
    fprintf(f, "Base ");
    md_code(f, c->base_path);
    fprintf(f, ", new ");
    md_code(f, c->new_path);
    fprintf(f, ". Metric: %s; threshold %g%%; two-sided Mann-Whitney U test, alpha %g.\n\n",
            metric_desc(c), c->opts.threshold_pct, c->opts.alpha);
    for (int i = 0; i < c->nwarn; i++) {
        fprintf(f, "> **Warning:** ");
        md_escape(f, c->warn[i]);
        fprintf(f, "\n>\n");
    }
    if (c->nwarn) fprintf(f, "\n");
    fprintf(f, "| benchmark | base | new | delta | p | reps | verdict |\n");
    fprintf(f, "|:--|--:|--:|--:|--:|--:|:--|\n");
    for (int i = 0; i < c->nrows; i++) {
        const hr_cmp_row *r = &c->rows[i];
        char vb[32], vn[32], p[32];
        fmt_value(c, r->base, vb, sizeof vb);
        fmt_value(c, r->new_, vn, sizeof vn);
        fmt_p(r, p, sizeof p);
        fprintf(f, "| ");
        md_code(f, r->name);
        bool loud = r->verdict >= HR_VERDICT_REGRESSION;
        fprintf(f, " | %s | %s | %+.2f%% | %s | %d/%d | %s%s%s |\n", vb, vn, shown(r->delta_pct), p,
                r->n_base, r->n_new, loud ? "**" : "", hr_verdict_names[r->verdict],
                loud ? "**" : "");
    }
    fprintf(f, "| geomean (%d row%s) | | | %+.2f%% | | | |\n", c->nrows, c->nrows == 1 ? "" : "s",
            shown(c->geomean_delta_pct));
}

cJSON *hr_cmp_json(const hr_cmp *c)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "base", c->base_path);
    cJSON_AddStringToObject(j, "new", c->new_path);
    cJSON_AddStringToObject(j, "metric", hr_cmp_metric_names[c->opts.metric]);
    cJSON_AddNumberToObject(j, "threshold_pct", c->opts.threshold_pct);
    cJSON_AddNumberToObject(j, "alpha", c->opts.alpha);
    if (c->opts.filter) cJSON_AddStringToObject(j, "filter", c->opts.filter);
    cJSON *warn = cJSON_AddArrayToObject(j, "warnings");
    for (int i = 0; i < c->nwarn; i++) cJSON_AddItemToArray(warn, cJSON_CreateString(c->warn[i]));
    cJSON *rows = cJSON_AddArrayToObject(j, "rows");
    for (int i = 0; i < c->nrows; i++) {
        const hr_cmp_row *r = &c->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->name);
        cJSON_AddNumberToObject(o, "base", r->base);
        cJSON_AddNumberToObject(o, "new", r->new_);
        cJSON_AddStringToObject(o, "unit", c->opts.metric == HR_METRIC_TIME ? "ns" : "fraction");
        cJSON_AddNumberToObject(o, "delta_pct", r->delta_pct);
        cJSON_AddNumberToObject(o, "n_base", r->n_base);
        cJSON_AddNumberToObject(o, "n_new", r->n_new);
        cJSON_AddStringToObject(o, "test", hr_mwu_method_names[r->tested ? r->test.method : 0]);
        if (r->tested) {
            cJSON_AddNumberToObject(o, "u", r->test.u1);
            cJSON_AddNumberToObject(o, "p", r->test.p);
        } else {
            cJSON_AddNullToObject(o, "u");
            cJSON_AddNullToObject(o, "p");
        }
        cJSON_AddBoolToObject(o, "can_reach_alpha", r->can_reach);
        cJSON_AddStringToObject(o, "verdict", hr_verdict_names[r->verdict]);
        cJSON_AddItemToArray(rows, o);
    }
    cJSON_AddNumberToObject(j, "geomean_delta_pct", c->geomean_delta_pct);
    cJSON *cnt = cJSON_AddObjectToObject(j, "counts");
    static const char *const keys[] = {"same", "noise", "regression", "improvement"};
    for (int v = 0; v < 4; v++) cJSON_AddNumberToObject(cnt, keys[v], c->count[v]);
    cJSON *ob = cJSON_AddArrayToObject(j, "only_in_base");
    for (int i = 0; i < c->n_only_base; i++)
        cJSON_AddItemToArray(ob, cJSON_CreateString(c->only_base[i]));
    cJSON *on = cJSON_AddArrayToObject(j, "only_in_new");
    for (int i = 0; i < c->n_only_new; i++)
        cJSON_AddItemToArray(on, cJSON_CreateString(c->only_new[i]));
    return j;
}

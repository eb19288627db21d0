/* gbread.c — the one reader of Google Benchmark-schema results files (headroom's results.json, Google Benchmark's --benchmark_format=json): the document, row times in ns, and the samples grouped per benchmark. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "gbread.h"
#include "headroom.h"
#include "phase.h"

/* One usable row of the "benchmarks" array before grouping. */
typedef struct {
    const char *key; /* run_name or name (points into the cJSON tree)                  */
    int idx;         /* position in the array                                          */
    int aggregate;   /* 1: a "median" aggregate row, 0: an iteration row               */
    double time_ns, frac;
    double probe;    /* probe_gflops or probe_gbs, NAN when absent                      */
    double flops, roof; /* flops (or GFLOPS x real_time) and attainable_gflops, NAN: absent */
    double att;      /* attainable_path_gflops, NAN: absent                              */
    char bound[8];   /* bound_by, "": absent                                             */
    int pkind;       /* probe_kind: HR_PROBE_FMA, HR_PROBE_BW, or HR_PROBE_OFF           */
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

/* The probe figures of a row (phase.h): probe_kind "fma" with probe_gflops, or "bw"
 * with probe_gbs. A row without them is unprobed. Returns HR_OK or HR_EUSAGE. */
static int read_probe(const cJSON *it, const char *path, raw_row *r)
{
    r->probe = NAN;
    r->pkind = HR_PROBE_OFF;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(it, "probe_kind");
    int k = cJSON_IsString(kind) ? hr_choice(hr_probe_kind_names, kind->valuestring) : -1;
    if (k != HR_PROBE_FMA && k != HR_PROBE_BW) return HR_OK;
    const char *field = k == HR_PROBE_FMA ? "probe_gflops" : "probe_gbs";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, field);
    if (!v) return HR_OK;
    if (!cJSON_IsNumber(v))
        return hr_fail("%s: benchmark '%s': %s is not a number", path, r->key, field);
    r->probe = v->valuedouble;
    r->pkind = k;
    return HR_OK;
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
    *r = (raw_row){.key = name->valuestring, .idx = i, .time_ns = NAN, .frac = NAN, .att = NAN,
                   .probe = NAN, .flops = NAN, .roof = NAN};

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

    if (hr_gb_time_ns(it, path, r->key, &r->time_ns)) return HR_EUSAGE;
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(it, HR_GB_FRAC_COUNTER);
    if (fr) {
        if (!cJSON_IsNumber(fr))
            return hr_fail("%s: benchmark '%s': %s is not a number", path, r->key,
                           HR_GB_FRAC_COUNTER);
        r->frac = fr->valuedouble;
    }
    /* Optional numbers: a field of another type is ignored, as unknown fields are. */
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(it, "flops");
    const cJSON *gf = cJSON_GetObjectItemCaseSensitive(it, "GFLOPS");
    const cJSON *ro = cJSON_GetObjectItemCaseSensitive(it, "attainable_gflops");
    if (cJSON_IsNumber(fl) && fl->valuedouble > 0) r->flops = fl->valuedouble;
    else if (cJSON_IsNumber(gf) && gf->valuedouble > 0 && r->time_ns > 0) r->flops = gf->valuedouble * r->time_ns;
    if (cJSON_IsNumber(ro) && ro->valuedouble > 0) r->roof = ro->valuedouble;
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(it, "attainable_path_gflops");
    const cJSON *bb = cJSON_GetObjectItemCaseSensitive(it, "bound_by");
    if (cJSON_IsNumber(at) && at->valuedouble > 0) r->att = at->valuedouble;
    if (cJSON_IsString(bb)) snprintf(r->bound, sizeof r->bound, "%s", bb->valuestring);
    return read_probe(it, path, r);
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
        b->probe = malloc((size_t)b->n * sizeof *b->probe);
        if (!b->name || !b->time_ns || !b->frac || !b->probe)
            return hr_fail("%s: out of memory", f->path);
        b->first = rows[s].idx;
        b->flops = b->roof_gflops = b->att_gflops = NAN;
        int k = 0;
        for (int q = s; q < e && k < b->n; q++) {
            if (rows[q].aggregate != b->from_aggregate) continue;
            b->time_ns[k] = rows[q].time_ns;
            b->frac[k] = rows[q].frac;
            b->probe[k] = rows[q].probe;
            if (isnan(b->flops)) b->flops = rows[q].flops;
            if (isnan(b->roof_gflops)) b->roof_gflops = rows[q].roof;
            if (isnan(b->att_gflops)) b->att_gflops = rows[q].att;
            if (!b->bound_by[0]) snprintf(b->bound_by, sizeof b->bound_by, "%s", rows[q].bound);
            if (k++ == 0) b->probe_kind = rows[q].pkind;
            else if (b->probe_kind != rows[q].pkind) b->probe_kind = HR_BENCH_PROBE_MIXED;
        }
        s = e;
    }
    qsort(f->bench, (size_t)f->nbench, sizeof *f->bench, cmp_bench_first);
    return HR_OK;
}

cJSON *hr_gb_parse(const char *text, size_t len, const char *path)
{
    cJSON *root = hr_json_parse(text, len, path);
    if (!root) return NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        hr_fail("%s: not a results file (the top level is not a JSON object)", path);
        return NULL;
    }
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "benchmarks"))) {
        cJSON_Delete(root);
        hr_fail("%s: no \"benchmarks\" array (not a Google Benchmark-schema results file)", path);
        return NULL;
    }
    return root;
}

const char *hr_results_file(const char *path, char *buf, size_t len)
{
    struct stat sb;
    if (stat(path, &sb) || !S_ISDIR(sb.st_mode)) return path;
    snprintf(buf, len, "%s%sresults.json", path, *path && path[strlen(path) - 1] == '/' ? "" : "/");
    return buf;
}

cJSON *hr_gb_load(const char *path)
{
    char buf[4200];
    path = hr_results_file(path, buf, sizeof buf);
    size_t len = 0;
    char *text = hr_read_file(path, HR_CAP_RESULTS, "results file", &len);
    if (!text) return NULL;
    cJSON *root = hr_gb_parse(text, len, path);
    free(text);
    return root;
}

int hr_gb_time_ns(const cJSON *row, const char *path, const char *name, double *ns)
{
    *ns = NAN;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(row, "real_time");
    if (!t) return HR_OK;
    if (!cJSON_IsNumber(t)) return hr_fail("%s: benchmark '%s': real_time is not a number", path, name);
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(row, "time_unit");
    if (!cJSON_IsString(u)) return hr_fail("%s: benchmark '%s': real_time without a time_unit", path, name);
    double scale = ns_per_unit(u->valuestring);
    if (scale == 0)
        return hr_fail("%s: benchmark '%s': unknown time_unit '%s' (ns, us, ms or s)", path, name, u->valuestring);
    *ns = t->valuedouble * scale;
    return HR_OK;
}

int hr_bench_file_parse(const char *text, size_t len, const char *path, hr_bench_file *f)
{
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    if (!f->path) return hr_fail("%s: out of memory", path);
    int st = HR_OK;
    raw_row *rows = NULL;
    cJSON *root = hr_gb_parse(text, len, path);
    if (!root) {
        st = HR_EUSAGE;
        goto out;
    }
    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
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
    char buf[4200];
    path = hr_results_file(path, buf, sizeof buf);
    size_t len = 0;
    char *text = hr_read_file(path, HR_CAP_RESULTS, "results file", &len);
    if (!text) return HR_EUSAGE;
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
        free(f->bench[i].probe);
    }
    free(f->bench);
    free(f->path);
    cJSON_Delete(f->context);
    memset(f, 0, sizeof *f);
}

/* site_data.c — the results sets a site is built from: found under the paths given, read
 * once each, refused with one line when they are not headroom results of this schema. */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "gbread.h"
#include "headroom.h"
#include "history.h"
#include "site.h"

static int is_kind(const char *p, int dir, int follow)
{
    struct stat sb;
    if (follow ? stat(p, &sb) : lstat(p, &sb)) return 0;
    return dir ? S_ISDIR(sb.st_mode) : S_ISREG(sb.st_mode);
}

static double median(double *v, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) v[m++] = v[i];
    if (!m) return NAN;
    for (int i = 1; i < m; i++) /* insertion sort: a handful of repetitions */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            const double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

static void slugify(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (; *s && o + 1 < len; s++) {
        const char c = *s;
        const int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        buf[o++] = ok ? c : (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : '-';
    }
    buf[o] = 0;
}

/* The first row of the document named run_name (or name) `name`: its fields describe the benchmark. */
static const cJSON *row_of(const cJSON *bs, const char *name, int first)
{
    const cJSON *b = cJSON_GetArrayItem(bs, first);
    if (b && !strcmp(*hr_json_str(b, "run_name", "") ? hr_json_str(b, "run_name", "") : hr_json_str(b, "name", ""), name)) return b;
    cJSON_ArrayForEach(b, bs)
    if (!strcmp(*hr_json_str(b, "run_name", "") ? hr_json_str(b, "run_name", "") : hr_json_str(b, "name", ""), name)) return b;
    return NULL;
}

static void fill_row(hr_site_row *w, const hr_bench *b, const cJSON *row)
{
    snprintf(w->name, sizeof w->name, "%s", b->name);
    snprintf(w->kernel, sizeof w->kernel, "%s", hr_json_str(row, "kernel", "?"));
    const char *lib = hr_json_str(row, "plugin_library", "");
    if (*lib) snprintf(w->peer, sizeof w->peer, "%s %s", lib, hr_json_str(row, "plugin_version", ""));
    snprintf(w->bound, sizeof w->bound, "%s", hr_json_str(row, "bound_by", hr_json_str(row, "bound_level", "")));
    const int B = (int)hr_json_num(row, "batch", 0), H = (int)hr_json_num(row, "heads", 0);
    const int G = (int)hr_json_num(row, "kv_heads", 0), d = (int)hr_json_num(row, "d_head", 0);
    w->seq_q = (int)hr_json_num(row, "seq_q", 0), w->seq_kv = (int)hr_json_num(row, "seq_kv", 0);
    w->threads = (int)hr_json_num(row, "threads", 0);
    const char *dt = hr_json_str(row, "dtype", "f32"), *kv = hr_json_str(row, "kv_dtype", dt);
    char var[64]; /* the variants, where the row has them */
    hr_problem_variants_str(&(hr_problem){.window = (int)hr_json_num(row, "window", 0),
                                          .softcap = (float)hr_json_num(row, "softcap", 0),
                                          .alibi = (float)hr_json_num(row, "alibi", 0)}, var, sizeof var);
    snprintf(w->shape, sizeof w->shape, "B%d H%d/%d N%dx%d d%d%s%s %s%s%s", B, H, G, w->seq_q, w->seq_kv, d,
             hr_json_num(row, "causal", 0) ? " causal" : "", var, dt, strcmp(kv, dt) ? " kv " : "",
             strcmp(kv, dt) ? kv : "");
    double *tmp = malloc((size_t)(b->n ? b->n : 1) * sizeof *tmp);
    double ns = NAN, fr = NAN;
    if (tmp) {
        memcpy(tmp, b->time_ns, (size_t)b->n * sizeof *tmp);
        ns = median(tmp, b->n);
        memcpy(tmp, b->frac, (size_t)b->n * sizeof *tmp);
        fr = median(tmp, b->n);
        free(tmp);
    }
    const double bytes = hr_json_num(row, "bytes", NAN);
    w->bytes = bytes;
    snprintf(w->kv_dtype, sizeof w->kv_dtype, "%s", kv);
    w->ms = ns / 1e6;
    w->gflops = isfinite(b->flops) && ns > 0 ? b->flops / ns : hr_json_num(row, "GFLOPS", NAN);
    w->ai = isfinite(b->flops) && bytes > 0 ? b->flops / bytes : NAN;
    w->roof = b->roof_gflops;
    w->ceiling = hr_json_num(row, "ceiling_gflops", NAN);
    w->pct = w->roof > 0 && isfinite(w->gflops) ? 100 * w->gflops / w->roof : isfinite(fr) ? 100 * fr : NAN;
}

/* Reads the results set at path (a results.json) into a new run of s. */
static int add_run(hr_site *s, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) return hr_fail("%s: cannot resolve the path", path);
    for (int i = 0; i < s->nruns; i++)
        if (!strcmp(s->runs[i].path, real)) return HR_OK;
    size_t len = 0;
    char *text = hr_read_file(real, HR_CAP_RESULTS, "results file", &len);
    if (!text) return HR_EUSAGE;
    hr_bench_file f = {0};
    cJSON *doc = hr_gb_parse(text, len, real);
    int st = doc ? hr_bench_file_parse(text, len, real, &f) : HR_EUSAGE;
    free(text);
    const cJSON *c = doc ? cJSON_GetObjectItemCaseSensitive(doc, "context") : NULL;
    const cJSON *bs = doc ? cJSON_GetObjectItemCaseSensitive(doc, "benchmarks") : NULL;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(c, "schema_version");
    if (!st && ver && (!cJSON_IsNumber(ver) || ver->valuedouble != HR_SITE_SCHEMA))
        st = hr_fail("%s: results schema_version %g, this headroom reads %d (rerun the sweep, or use the headroom that wrote it)",
                     real, cJSON_IsNumber(ver) ? ver->valuedouble : NAN, HR_SITE_SCHEMA);
    if (!st && f.nbench && !*hr_json_str(row_of(bs, f.bench[0].name, f.bench[0].first), "kernel", ""))
        st = hr_fail("%s: not headroom's results (its rows have no \"kernel\" field)", real);
    if (!st && s->nruns == s->cap) {
        const int nc = s->cap ? 2 * s->cap : 32;
        hr_site_run *r = realloc(s->runs, (size_t)nc * sizeof *r);
        if (!r) st = hr_fail("out of memory");
        else s->runs = r, s->cap = nc;
    }
    hr_site_run *r = st ? NULL : &s->runs[s->nruns];
    if (r) {
        memset(r, 0, sizeof *r);
        snprintf(r->path, sizeof r->path, "%s", real);
        snprintf(r->dir, sizeof r->dir, "%s", real);
        char *sl = strrchr(r->dir, '/');
        if (sl) *sl = 0;
        const char *base = strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir;
        snprintf(r->machine, sizeof r->machine, "%s", hr_json_str(c, "machine", "unknown"));
        snprintf(r->cpu, sizeof r->cpu, "%s", hr_json_str(c, "cpu_model", "?"));
        snprintf(r->isa, sizeof r->isa, "%s", hr_json_str(c, "isa", "?"));
        snprintf(r->commit, sizeof r->commit, "%s", hr_json_str(c, "git_commit", "unknown"));
        snprintf(r->date, sizeof r->date, "%s", hr_json_str(c, "date", "unknown"));
        const char *ct = hr_json_str(c, "git_commit_time", NULL);
        snprintf(r->when, sizeof r->when, "%s", ct ? ct : r->date);
        r->t = hr_iso_time(r->when);
        const cJSON *sw = cJSON_GetObjectItemCaseSensitive(c, "sweep");
        snprintf(r->config, sizeof r->config, "%s", hr_json_str(sw, "config", hr_json_str(c, "config", base)));
        r->threads = (int)hr_json_num(c, "omp_max_threads", -1);
        char a[64], b2[96];
        slugify(r->machine, a, sizeof a);
        slugify(base, b2, sizeof b2);
        snprintf(r->slug, sizeof r->slug, "%s--%s", a, b2);
        for (int i = 0, k = 2; i < s->nruns; i++) /* unique: a second run of that name gets -2, ... */
            if (!strcmp(s->runs[i].slug, r->slug)) snprintf(r->slug, sizeof r->slug, "%s--%s-%d", a, b2, k++), i = -1;
        r->rows = calloc((size_t)f.nbench + 1, sizeof *r->rows);
        if (!r->rows) st = hr_fail("out of memory");
        for (int i = 0; !st && i < f.nbench; i++) {
            const cJSON *row = row_of(bs, f.bench[i].name, f.bench[i].first);
            if (!row) continue;
            fill_row(&r->rows[r->nrows++], &f.bench[i], row);
        }
        if (!st) s->nruns++;
        else free(r->rows);
    }
    hr_bench_file_free(&f);
    cJSON_Delete(doc);
    return st;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The results sets of one path; depth: how many directory levels below it to look. */
static int add_path(hr_site *s, const char *p, int depth, int top)
{
    char f[PATH_MAX + 32];
    if (is_kind(p, 0, 1)) return add_run(s, p);
    if (!is_kind(p, 1, 1)) return hr_fail("%s: no such file or directory", p);
    snprintf(f, sizeof f, "%s/results.json", p);
    if (is_kind(f, 0, 1)) return add_run(s, f);
    snprintf(f, sizeof f, "%s/ab.json", p);
    if (is_kind(f, 0, 1)) return hr_site_add_ab(s, p);
    snprintf(f, sizeof f, "%s/crossover.csv", p);
    if (is_kind(f, 0, 1)) return hr_site_add_cross(s, p);
    if (!depth) return HR_OK;
    DIR *d = opendir(p);
    if (!d) return hr_fail("%s: cannot open the directory", p);
    char **names = NULL;
    int n = 0, cap = 0, st = HR_OK, before = s->nruns + s->nabs + s->nxs;
    for (struct dirent *e; !st && (e = readdir(d));) {
        char sub[PATH_MAX + 300];
        snprintf(sub, sizeof sub, "%s/%s", p, e->d_name);
        if (e->d_name[0] == '.' || !is_kind(sub, 1, 0)) continue; /* links (latest/) are not followed */
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **nn = realloc(names, (size_t)cap * sizeof *nn);
            if (!nn) {
                st = hr_fail("out of memory");
                break;
            }
            names = nn;
        }
        if (!(names[n] = strdup(sub))) st = hr_fail("out of memory");
        else n++;
    }
    closedir(d);
    if (n) qsort(names, (size_t)n, sizeof *names, cmp_name);
    for (int i = 0; i < n && !st; i++) st = add_path(s, names[i], depth - 1, 0);
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    if (!st && top && s->nruns + s->nabs + s->nxs == before) st = hr_fail("%s: no results.json in it or in its subdirectories", p);
    return st;
}

static int cmp_run(const void *a, const void *b)
{
    const hr_site_run *x = a, *y = b;
    const int m = strcmp(x->machine, y->machine);
    if (m) return m;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return strcmp(x->path, y->path);
}

int hr_site_load(hr_site *s, const char *const *paths, int n)
{
    memset(s, 0, sizeof *s);
    int st = HR_OK;
    for (int i = 0; i < n && !st; i++) st = add_path(s, paths[i], 2, 1);
    if (st) hr_site_free(s);
    else if (s->nruns) qsort(s->runs, (size_t)s->nruns, sizeof *s->runs, cmp_run); /* runs NULL when none */
    return st;
}

void hr_site_free(hr_site *s)
{
    for (int i = 0; i < s->nruns; i++) free(s->runs[i].rows);
    for (int i = 0; i < s->nabs; i++) free(s->abs[i].rows);
    for (int i = 0; i < s->nxs; i++) free(s->xs[i].pts), free(s->xs[i].tab);
    free(s->runs), free(s->abs), free(s->xs);
    memset(s, 0, sizeof *s);
}

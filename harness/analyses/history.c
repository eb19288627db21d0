/* history.c — headroom history: finds the runs, orders them by commit date, builds a series per benchmark and judges each point against the runs before it. */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "files.h"
#include "headroom.h"
#include "history.h"

/* Seconds since the epoch of an ISO 8601 date-time ("2026-11-24T22:27:35+00:00",
 * "2026-11-24T22:27:35+0000", "...Z", fractions of a second ignored); 0 when s is not one. */
double hr_iso_time(const char *s)
{
    int Y, M, D, hh = 0, mm = 0, ss = 0, used = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &Y, &M, &D, &hh, &mm, &ss, &used) < 6 || used == 0) return 0;
    if (M < 1 || M > 12 || D < 1 || D > 31 || hh > 24 || mm > 59 || ss > 60) return 0;
    struct tm tm = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = hh, .tm_min = mm, .tm_sec = ss};
    double t = (double)timegm(&tm);
    const char *z = s + used;
    if (*z == '.')
        for (z++; *z >= '0' && *z <= '9'; z++) {}
    if (*z == '+' || *z == '-') {
        int oh = 0, om = 0;
        if (sscanf(z + 1, "%2d:%2d", &oh, &om) == 2 || sscanf(z + 1, "%2d%2d", &oh, &om) >= 1)
            t -= (*z == '+' ? 1 : -1) * (oh * 3600.0 + om * 60.0);
    }
    return t;
}

/* Appends the run of the results file at path (skipping one already read). */
static int add_run(hr_history *h, int *cap, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    for (int i = 0; i < h->nruns; i++)
        if (!strcmp(h->runs[i].path, real)) return HR_OK;
    if (h->nruns == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        hr_hist_run *r = realloc(h->runs, (size_t)nc * sizeof *r);
        if (!r) return hr_fail("out of memory");
        h->runs = r, *cap = nc;
    }
    hr_hist_run *r = &h->runs[h->nruns];
    memset(r, 0, sizeof *r);
    if (hr_bench_file_load(path, &r->f)) return HR_EUSAGE;
    h->nruns++;
    snprintf(r->path, sizeof r->path, "%s", real);
    const cJSON *c = r->f.context;
    const char *commit = hr_json_str(c, "git_commit", NULL), *ct = hr_json_str(c, "git_commit_time", NULL), *date = hr_json_str(c, "date", NULL);
    const char *machine = hr_json_str(c, "machine", NULL);
    const cJSON *th = cJSON_GetObjectItemCaseSensitive(c, "omp_max_threads");
    snprintf(r->commit, sizeof r->commit, "%s", commit && *commit ? commit : "unknown");
    snprintf(r->machine, sizeof r->machine, "%s", machine && *machine ? machine : "unknown");
    r->threads = cJSON_IsNumber(th) ? (int)th->valuedouble : -1;
    r->t_run = date ? hr_iso_time(date) : 0;
    r->t = ct ? hr_iso_time(ct) : 0;
    r->by_commit = r->t != 0;
    if (!r->by_commit) r->t = r->t_run;
    snprintf(r->when, sizeof r->when, "%s", r->by_commit ? ct : date ? date : "unknown");
    return HR_OK;
}

static int is_file(const char *p, int dir)
{
    struct stat sb;
    return !stat(p, &sb) && (dir ? S_ISDIR(sb.st_mode) : S_ISREG(sb.st_mode));
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The runs of one argument: a results file, a results directory, or a root of them. */
static int add_path(hr_history *h, int *cap, const char *p)
{
    char f[PATH_MAX + 32];
    if (is_file(p, 0)) return add_run(h, cap, p);
    if (!is_file(p, 1)) return hr_fail("%s: no such file or directory", p);
    snprintf(f, sizeof f, "%s/results.json", p);
    if (is_file(f, 0)) return add_run(h, cap, f);
    DIR *d = opendir(p);
    if (!d) return hr_fail("%s: cannot open the directory", p);
    char **names = NULL;
    int n = 0, capn = 0, st = HR_OK, before = h->nruns;
    struct dirent *e;
    while ((e = readdir(d)) && !st) {
        if (e->d_name[0] == '.') continue;
        char sub[PATH_MAX + 300];
        struct stat sb;
        snprintf(sub, sizeof sub, "%s/%s", p, e->d_name);
        if (lstat(sub, &sb) || !S_ISDIR(sb.st_mode)) continue; /* links (latest/) are not followed */
        if (n == capn) {
            capn = capn ? 2 * capn : 32;
            char **nn = realloc(names, (size_t)capn * sizeof *nn);
            if (!nn) st = hr_fail("out of memory");
            else names = nn;
        }
        if (!st && !(names[n++] = strdup(e->d_name))) st = hr_fail("out of memory");
    }
    closedir(d);
    if (!st && n) qsort(names, (size_t)n, sizeof *names, cmp_name);
    for (int i = 0; i < n && !st; i++) {
        snprintf(f, sizeof f, "%s/%s/results.json", p, names[i]);
        if (is_file(f, 0)) st = add_run(h, cap, f);
    }
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    if (!st && h->nruns == before) st = hr_fail("%s: no results.json in it or in its subdirectories", p);
    return st;
}

static int cmp_run(const void *a, const void *b)
{
    const hr_hist_run *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    if (x->t_run != y->t_run) return x->t_run < y->t_run ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* One machine and one thread count in the series, unless mixing was asked for. */
static int check_mix(hr_history *h)
{
    for (int i = 1; i < h->nruns; i++) {
        const hr_hist_run *a = &h->runs[0], *b = &h->runs[i];
        if (strcmp(a->machine, b->machine)) {
            if (!h->opts.mix)
                return hr_fail("runs of two machines, '%s' (%s) and '%s' (%s): one history per machine "
                               "(--mix to allow)", a->machine, a->path, b->machine, b->path);
            h->mixed |= 1;
        }
        if (a->threads != b->threads) {
            if (!h->opts.mix)
                return hr_fail("runs with omp_max_threads %d (%s) and %d (%s): one thread count per history "
                               "(--mix to allow)", a->threads, a->path, b->threads, b->path);
            h->mixed |= 2;
        }
    }
    return HR_OK;
}

/* The point of benchmark b in run ri (of file path): medians and rates. HR_EUSAGE naming
 * the file and the benchmark when a time is missing, not positive or not finite. */
static int make_point(const char *path, const hr_bench *b, int ri, hr_hist_point *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->run = ri;
    pt->n = b->n;
    pt->t = b->time_ns;
    pt->change_pct = pt->band_pct = pt->base = NAN;
    for (int i = 0; i < b->n; i++)
        if (!(b->time_ns[i] > 0) || isinf(b->time_ns[i]))
            return hr_fail("%s: benchmark '%s': real_time must be a positive number, got %g", path, b->name, b->time_ns[i]);
    pt->median = hr_median(b->time_ns, (size_t)b->n);
    pt->spread = b->n > 1 ? 1.4826 * hr_mad(b->time_ns, (size_t)b->n, pt->median) / pt->median : NAN;
    pt->gflops = NAN;
    if (b->flops > 0) {
        double *g = malloc((size_t)b->n * sizeof *g);
        if (!g) return hr_fail("out of memory");
        for (int i = 0; i < b->n; i++) g[i] = b->flops / b->time_ns[i];
        pt->gflops = hr_median(g, (size_t)b->n);
        free(g);
    }
    pt->frac_roof = b->roof_gflops > 0 ? pt->gflops / b->roof_gflops : NAN;
    return HR_OK;
}

/* Judges point i of series s against the (at most window) points before it. */
static int judge(const hr_hist_opts *o, hr_hist_series *s, int i)
{
    hr_hist_point *p = &s->pts[i];
    int from = o->window > 0 && i > o->window ? i - o->window : 0, nb = i - from;
    if (nb < 1) return HR_OK;
    double *med = malloc((size_t)nb * sizeof *med);
    size_t npool = 0;
    for (int j = from; j < i; j++) npool += (size_t)s->pts[j].n;
    double *pool = malloc((npool ? npool : 1) * sizeof *pool);
    if (!med || !pool) {
        free(med);
        free(pool);
        return hr_fail("out of memory");
    }
    size_t k = 0;
    for (int j = from; j < i; j++) {
        med[j - from] = s->pts[j].median;
        for (int q = 0; q < s->pts[j].n; q++) pool[k++] = s->pts[j].t[q];
    }
    p->judged = true;
    p->base = hr_median(med, (size_t)nb);
    double across = nb > 1 ? 1.4826 * hr_mad(med, (size_t)nb, p->base) / p->base : 0;
    p->band_pct = 100 * fmax(o->k * across, o->threshold_pct / 100);
    p->change_pct = 100 * (p->median / p->base - 1);
    if (p->n >= 2 && npool >= 2) p->test = hr_mwu(pool, npool, p->t, (size_t)p->n);
    bool big = fabs(p->change_pct) > p->band_pct;
    bool sig = p->test.method == HR_MWU_NONE || p->test.p < o->alpha;
    p->flag = big && sig ? (p->change_pct > 0 ? 1 : -1) : 0;
    free(med);
    free(pool);
    return HR_OK;
}

/* A series per benchmark (passing the filter) in order of first appearance. */
static int build_series(hr_history *h, const regex_t *re)
{
    int cap = 0;
    for (int ri = 0; ri < h->nruns; ri++) {
        const hr_bench_file *f = &h->runs[ri].f;
        for (int bi = 0; bi < f->nbench; bi++) {
            const hr_bench *b = &f->bench[bi];
            if (re && regexec(re, b->name, 0, NULL, 0)) continue;
            hr_hist_point pt;
            if (make_point(h->runs[ri].path, b, ri, &pt)) return HR_EUSAGE;
            int si = 0;
            while (si < h->nseries && strcmp(h->series[si].name, b->name)) si++;
            if (si == h->nseries) {
                if (h->nseries == cap) {
                    cap = cap ? 2 * cap : 64;
                    hr_hist_series *ns = realloc(h->series, (size_t)cap * sizeof *ns);
                    if (!ns) return hr_fail("out of memory");
                    h->series = ns;
                }
                h->series[h->nseries++] = (hr_hist_series){.name = b->name};
            }
            hr_hist_series *s = &h->series[si];
            hr_hist_point *np = realloc(s->pts, (size_t)(s->npts + 1) * sizeof *np);
            if (!np) return hr_fail("out of memory");
            s->pts = np;
            s->pts[s->npts++] = pt;
        }
    }
    return HR_OK;
}

int hr_history_load(const char *const *paths, int n, const hr_hist_opts *o, hr_history *h)
{
    memset(h, 0, sizeof *h);
    h->opts = *o;
    int cap = 0, st = HR_OK;
    regex_t re;
    bool have_re = false;
    if (o->filter) {
        if (regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB)) return hr_fail("--filter: invalid regex '%s'", o->filter);
        have_re = true;
    }
    for (int i = 0; i < n && !st; i++) st = add_path(h, &cap, paths[i]);
    if (!st && h->nruns < 2) st = hr_fail("%d run found; a history needs 2 or more", h->nruns);
    if (!st) {
        qsort(h->runs, (size_t)h->nruns, sizeof *h->runs, cmp_run);
        st = check_mix(h);
    }
    if (!st) st = build_series(h, have_re ? &re : NULL);
    if (!st && h->nseries == 0) st = hr_fail("no benchmark%s", o->filter ? " matches --filter" : " in the runs");
    for (int i = 0; i < h->nseries && !st; i++)
        for (int j = 1; j < h->series[i].npts && !st; j++) st = judge(o, &h->series[i], j);
    if (!st) {
        for (int i = 0; i < h->nruns; i++) {
            int seen = 0;
            for (int j = 0; j < i && !seen; j++) seen = !strcmp(h->runs[i].commit, h->runs[j].commit);
            h->ncommits += !seen;
        }
        for (int i = 0; i < h->nseries; i++) {
            const hr_hist_series *s = &h->series[i];
            const hr_hist_point *last = &s->pts[s->npts - 1];
            if (last->run != h->nruns - 1) continue;
            h->newest_slower += last->flag > 0;
            h->newest_faster += last->flag < 0;
        }
    }
    if (have_re) regfree(&re);
    if (st) hr_history_free(h);
    return st;
}

void hr_history_free(hr_history *h)
{
    for (int i = 0; i < h->nseries; i++) free(h->series[i].pts);
    free(h->series);
    for (int i = 0; i < h->nruns; i++) hr_bench_file_free(&h->runs[i].f);
    free(h->runs);
    memset(h, 0, sizeof *h);
}

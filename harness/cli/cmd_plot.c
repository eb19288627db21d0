/* cmd_plot.c — `headroom plot DIR`: gnuplot charts (PNG + SVG) from a results directory.
 *
 * Design: the C side reads every input with the suite's own readers (CSV by header name,
 * the ceilings file through hr_ceilings_load, the context block with cJSON), chooses
 * what each chart shows and writes one small gnuplot data file per chart (series as
 * blocks separated by two blank lines, sorted by x; repeated x of the same series, e.g.
 * sweep passes, collapse to their median). Then it runs gnuplot once per chart and
 * format on plots/<chart>.gp, passing paths, titles and ranges with -e. The .gp scripts
 * only draw; the .dat files stay in the output directory next to the images, so a chart
 * can be redrawn or restyled by hand.
 *
 * Inputs found in DIR (each overridable by a flag): results.csv (a sweep; or
 * DIR/latest/results.csv for results/<machine>), results.json beside it (machine, date),
 * ceilings.json in DIR or the sweep's parent, crossover.csv + crossover_table.csv,
 * kvcache.csv (headroom kvcache --format csv), decode.csv (headroom decode-loop --format
 * csv). A chart whose inputs are missing is skipped with a note. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "files.h"
#include "cli.h"
#include "commands.h"
#include "gnuplot.h"
#include "headroom.h"
#include "results.h"
#include "roofline.h"

/* ---- CSV by header name ----------------------------------------------------------- */

#define MAXF 64

typedef struct {
    char *buf;
    char *f[MAXF];
    int n;
} csv_row;

typedef struct {
    csv_row head;
    csv_row *rows;
    int nrows;
} csv_t;

/* Splits s in place at commas; a field may be double-quoted (no escaped quotes inside). */
static int split(char *s, char **f, int max)
{
    int n = 0;
    s[strcspn(s, "\r\n")] = 0;
    while (n < max) {
        if (*s == '"') {
            char *e = strchr(s + 1, '"');
            f[n++] = s + 1;
            if (!e) break;
            *e = 0;
            s = e + 1;
            if (*s != ',') break;
            s++;
            continue;
        }
        f[n++] = s;
        char *c = strchr(s, ',');
        if (!c) break;
        *c = 0;
        s = c + 1;
    }
    return n;
}

static void csv_free(csv_t *c)
{
    free(c->head.buf);
    for (int i = 0; i < c->nrows; i++) free(c->rows[i].buf);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

/* Reads a CSV with a header line. Repeated header lines (files appended by several runs)
 * and blank lines are skipped. Returns 1 when read, 0 when the file does not exist, and
 * HR_EUSAGE with a message when it exists but cannot be read or has no header. */
static int csv_load(const char *path, csv_t *c)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0;
        return -hr_fail("%s: cannot read (%s)", path, strerror(errno));
    }
    char line[8192];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[strspn(line, " \t\r\n")] == 0) continue;
        csv_row r = {.buf = strdup(line)};
        if (!r.buf) break;
        r.n = split(r.buf, r.f, MAXF);
        if (!c->head.buf) {
            c->head = r;
            continue;
        }
        if (r.n && !strcmp(r.f[0], c->head.f[0])) { /* a repeated header */
            free(r.buf);
            continue;
        }
        if (c->nrows == cap) {
            cap = cap ? 2 * cap : 256;
            csv_row *nr = realloc(c->rows, (size_t)cap * sizeof *nr);
            if (!nr) {
                free(r.buf);
                break;
            }
            c->rows = nr;
        }
        c->rows[c->nrows++] = r;
    }
    fclose(f);
    if (!c->head.buf || c->head.n < 2) {
        csv_free(c);
        return -hr_fail("%s: no CSV header line", path);
    }
    return 1;
}

static int col(const csv_t *c, const char *name)
{
    for (int i = 0; i < c->head.n; i++)
        if (!strcmp(c->head.f[i], name)) return i;
    return -1;
}

/* The number in column i of r; NaN when the column is absent, empty or not a number. */
static double num(const csv_row *r, int i)
{
    if (i < 0 || i >= r->n || !*r->f[i]) return NAN;
    char *end;
    double v = strtod(r->f[i], &end);
    return *end ? NAN : v;
}

static const char *str(const csv_row *r, int i) { return i >= 0 && i < r->n ? r->f[i] : ""; }

/* Fails naming the first of the NULL-terminated columns that c lacks. */
static int need_cols(const csv_t *c, const char *path, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (col(c, names[i]) < 0) return hr_fail("%s: no column '%s'", path, names[i]);
    return HR_OK;
}

/* ---- series: titled point lists written as gnuplot data blocks --------------------- */

#define MAXS 96

typedef struct {
    char title[160];
    int n, cap;
    double (*p)[3]; /* x, y, z (z: a third column some charts use) */
} series;

typedef struct {
    series s[MAXS];
    int n;
} sset;

/* The series titled t (created empty when new), or NULL when MAXS are in use. */
static series *ss_get(sset *S, const char *t)
{
    for (int i = 0; i < S->n; i++)
        if (!strcmp(S->s[i].title, t)) return &S->s[i];
    if (S->n == MAXS) return NULL;
    series *s = &S->s[S->n++];
    memset(s, 0, sizeof *s);
    snprintf(s->title, sizeof s->title, "%s", t);
    return s;
}

static void ss_add(series *s, double x, double y, double z)
{
    if (!s || !isfinite(x) || !isfinite(y)) return;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        double(*np)[3] = realloc(s->p, (size_t)cap * sizeof *np);
        if (!np) return;
        s->p = np, s->cap = cap;
    }
    s->p[s->n][0] = x, s->p[s->n][1] = y, s->p[s->n][2] = z;
    s->n++;
}

static void ss_free(sset *S)
{
    for (int i = 0; i < S->n; i++) free(S->s[i].p);
    S->n = 0;
}

static int by_x_then_y(const void *a, const void *b)
{
    const double *p = a, *q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* Sorts s by x; points with the same x collapse to the one with the median y. */
static void ss_tidy(series *s)
{
    qsort(s->p, (size_t)s->n, sizeof *s->p, by_x_then_y);
    int out = 0;
    for (int i = 0; i < s->n;) {
        int j = i;
        while (j < s->n && s->p[j][0] == s->p[i][0]) j++;
        memmove(s->p[out], s->p[i + (j - i - 1) / 2], sizeof *s->p);
        out++, i = j;
    }
    s->n = out;
}

/* Writes s as one block (a lone "NaN NaN NaN" when empty, so block numbers stay fixed). */
static void ss_block(FILE *f, series *s)
{
    if (s && s->n) {
        ss_tidy(s);
        fprintf(f, "# %s\n", s->title);
        for (int i = 0; i < s->n; i++) fprintf(f, "%.9g %.9g %.9g\n", s->p[i][0], s->p[i][1], s->p[i][2]);
    } else {
        fprintf(f, "# (no data)\nNaN NaN NaN\n");
    }
    fprintf(f, "\n\n");
}

/* Appends "title" as one gnuplot word (quotes stripped) to a list; "" draws no key entry. */
static void words_add(char *list, size_t len, const char *t)
{
    size_t n = strlen(list);
    if (n + 4 >= len) return;
    char *p = list + n;
    if (n) *p++ = ' ';
    *p++ = '"';
    for (; *t && (size_t)(p - list) + 3 < len; t++)
        if (*t != '"' && *t != '\'') *p++ = *t;
    *p++ = '"';
    *p = 0;
}

/* ---- running gnuplot ---------------------------------------------------------------- */

typedef struct {
    const char *gp;      /* gnuplot executable                      */
    char scripts[PATH_MAX];
    const char *out;     /* output directory                        */
    char who[160];       /* "machine, date" for the titles          */
    int made, failed;
} plotter;

/* Renders chart NAME (plots/NAME.gp) as NAME.png and NAME.svg in the output directory.
 * vars: further gnuplot assignments ("a=1; b='x'"). */
static void render(plotter *P, const char *name, const char *vars)
{
    static const char *const fmts[] = {"png", "svg"};
    char script[PATH_MAX + 64], log[PATH_MAX + 64];
    snprintf(script, sizeof script, "%s/%s.gp", P->scripts, name);
    /* gnuplot's own messages go to a log kept only when it fails: its warnings about the
     * placeholder blocks of absent series are expected. */
    snprintf(log, sizeof log, "%s/%s.gnuplot.log", P->out, name);
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        size_t len = strlen(vars) + strlen(P->out) + 2 * PATH_MAX + 512;
        char *e = malloc(len);
        if (!e) return;
        snprintf(e, len, "datafile='%s/%s.dat'; outfile='%s/%s.%s'; fmt='%s'; who='%s'; gpdir='%s'; %s",
                 P->out, name, P->out, name, fmts[i], fmts[i], P->who, P->scripts, vars);
        if (ok && hr_gnuplot_run(P->gp, script, e, log)) ok = 0;
        free(e);
    }
    if (ok) {
        P->made++;
        printf("wrote %s/%s.png and .svg\n", P->out, name);
    } else {
        P->failed++;
        fprintf(stderr, "headroom plot: gnuplot failed on %s; its messages (%s):\n", script, log);
        FILE *lf = fopen(log, "r");
        char line[512];
        for (int i = 0; lf && i < 20 && fgets(line, sizeof line, lf); i++) fprintf(stderr, "  %s", line);
        if (lf) fclose(lf);
    }
    fflush(stdout);
}

static FILE *open_dat(const plotter *P, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s.dat", P->out, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "headroom plot: %s: cannot write (%s)\n", path, strerror(errno));
    return f;
}

static void skip(const char *chart, const char *why) { printf("skipped %s: %s\n", chart, why); }

/* ---- the sweep's rows ----------------------------------------------------------------- */

typedef struct {
    char kernel[40], layout[8];
    int batch, heads, kv_heads, seq_q, seq_kv, d_head, causal, threads;
    double gflops, ai, ws, t_med;
} srow;

typedef struct {
    srow *r;
    int n;
    char shape[96];               /* the base shape: the most frequent prefill shape */
    int b, h, g, d;
    char layout[8];
} sweep_t;

static int sweep_load(const char *path, sweep_t *S)
{
    memset(S, 0, sizeof *S);
    csv_t c;
    int st = csv_load(path, &c);
    if (st <= 0) return st ? -st : 0;
    static const char *const need[] = {"kernel", "batch", "heads", "kv_heads", "seq_q", "seq_kv",
                                       "d_head", "causal", "layout", "threads", "GFLOPS",
                                       "time_median_s", "workspace_bytes", NULL};
    if ((st = need_cols(&c, path, need))) {
        csv_free(&c);
        return st;
    }
    S->r = calloc((size_t)c.nrows + 1, sizeof *S->r);
    if (!S->r) {
        csv_free(&c);
        return hr_fail("out of memory");
    }
    int ck = col(&c, "kernel"), cl = col(&c, "layout"), cai = col(&c, "AI");
    for (int i = 0; i < c.nrows; i++) {
        const csv_row *r = &c.rows[i];
        srow *o = &S->r[S->n];
        snprintf(o->kernel, sizeof o->kernel, "%s", str(r, ck));
        snprintf(o->layout, sizeof o->layout, "%s", str(r, cl));
        double v[8];
        static const char *const ints[] = {"batch", "heads", "kv_heads", "seq_q", "seq_kv", "d_head", "causal", "threads"};
        int bad = !*o->kernel;
        for (int k = 0; k < 8; k++) {
            v[k] = num(r, col(&c, ints[k]));
            if (!isfinite(v[k])) bad = 1;
        }
        if (bad) continue; /* a truncated row (interrupted sweep) */
        o->batch = (int)v[0], o->heads = (int)v[1], o->kv_heads = (int)v[2], o->seq_q = (int)v[3];
        o->seq_kv = (int)v[4], o->d_head = (int)v[5], o->causal = (int)v[6], o->threads = (int)v[7];
        o->gflops = num(r, col(&c, "GFLOPS"));
        o->t_med = num(r, col(&c, "time_median_s"));
        o->ws = num(r, col(&c, "workspace_bytes"));
        o->ai = num(r, cai);
        S->n++;
    }
    csv_free(&c);
    /* Base shape: the (B, Hq, Hkv, d, layout) with the most prefill (Nq = Nkv) rows. */
    int best = 0;
    for (int i = 0; i < S->n; i++) {
        const srow *a = &S->r[i];
        if (a->seq_q != a->seq_kv) continue;
        int cnt = 0;
        for (int j = 0; j < S->n; j++) {
            const srow *b = &S->r[j];
            cnt += b->seq_q == b->seq_kv && b->batch == a->batch && b->heads == a->heads &&
                   b->kv_heads == a->kv_heads && b->d_head == a->d_head && !strcmp(b->layout, a->layout);
        }
        if (cnt > best) {
            best = cnt;
            S->b = a->batch, S->h = a->heads, S->g = a->kv_heads, S->d = a->d_head;
            snprintf(S->layout, sizeof S->layout, "%s", a->layout);
        }
    }
    if (best)
        snprintf(S->shape, sizeof S->shape, "B%d H%d Hkv%d d%d %s, N = Nq = Nkv", S->b, S->h, S->g,
                 S->d, S->layout);
    return HR_OK;
}

static int in_base(const sweep_t *S, const srow *r)
{
    return r->seq_q == r->seq_kv && r->batch == S->b && r->heads == S->h && r->kv_heads == S->g &&
           r->d_head == S->d && !strcmp(r->layout, S->layout);
}

/* Distinct kernel names in row order (at most max). */
static int kernels_of(const sweep_t *S, int base_only, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < S->n; i++) {
        if (base_only && !in_base(S, &S->r[i])) continue;
        int seen = 0;
        for (int k = 0; k < n && !seen; k++) seen = !strcmp(names[k], S->r[i].kernel);
        if (!seen && n < max) names[n++] = S->r[i].kernel;
    }
    return n;
}

static int max_threads(const sweep_t *S, const char *kernel)
{
    int t = 0;
    for (int i = 0; i < S->n; i++)
        if (in_base(S, &S->r[i]) && !strcmp(S->r[i].kernel, kernel) && S->r[i].threads > t) t = S->r[i].threads;
    return t;
}

/* ---- charts --------------------------------------------------------------------------- */

/* The FMA ceiling's ISA for a build: the results' context isa ("generic" issues SSE2),
 * else the widest one the ceilings file measured. */
static int roof_isa(const hr_ceilings *C, const char *isa)
{
    if (*isa) {
        const char *name = !strcmp(isa, "generic") ? "sse2" : isa;
        for (int m = 0; m < HR_FMA_NISA; m++)
            if (!strcmp(hr_fma_isa_names[m], name) && C->rows[0].fma[m].best > 0) return m;
    }
    for (int m = 0; m < HR_FMA_NISA; m++)
        if (C->rows[0].fma[m].best > 0) return m;
    return 0;
}

/* 1. Roofline: every (kernel, threads) as points at (AI, GFLOP/s); per thread count the
 * roof min(peak, AI·BW) of the build's ISA; the other ISAs' peaks at the largest thread
 * count as dashed lines. */
static void chart_roofline(plotter *P, const sweep_t *S, const hr_ceilings *C, const char *isa)
{
    if (!C->nrows && !S->n) return skip("roofline", "no ceilings.json and no sweep results.csv");
    double lo = INFINITY, hi = 0;
    sset pts = {0};
    char ptit[8192] = "", pcol[1024] = "", ptyp[1024] = "";
    const char *names[MAXS];
    int nk = kernels_of(S, 0, names, MAXS);
    int tlist[16], nt = 0;
    for (int i = 0; i < S->n; i++) {
        int seen = 0;
        for (int j = 0; j < nt && !seen; j++) seen = tlist[j] == S->r[i].threads;
        if (!seen && nt < 16) tlist[nt++] = S->r[i].threads;
    }
    for (int i = 0; i < nt; i++) /* insertion sort: few values */
        for (int j = i; j > 0 && tlist[j - 1] > tlist[j]; j--) {
            int t = tlist[j];
            tlist[j] = tlist[j - 1], tlist[j - 1] = t;
        }
    static const int ptypes[] = {6, 7, 4, 5, 8, 9, 12, 13, 10, 11, 14, 15, 1, 2, 3, 0};
    for (int k = 0; k < nk; k++)
        for (int t = 0; t < nt; t++) {
            char title[128];
            snprintf(title, sizeof title, nt > 1 ? "%s T%d" : "%s", names[k], tlist[t]);
            series *s = NULL;
            for (int i = 0; i < S->n; i++) {
                const srow *r = &S->r[i];
                if (strcmp(r->kernel, names[k]) || r->threads != tlist[t]) continue;
                if (!(r->ai > 0) || !(r->gflops > 0)) continue;
                if (!s && !(s = ss_get(&pts, title))) break;
                /* Each (kernel, shape) is its own point: no collapsing by x here, so z
                 * holds a running index that keeps points of equal AI apart. */
                ss_add(s, r->ai, r->gflops, s->n);
                lo = fmin(lo, r->ai), hi = fmax(hi, r->ai);
            }
            if (!s) continue;
            char buf[16];
            words_add(ptit, sizeof ptit, title);
            snprintf(buf, sizeof buf, "%s%d", *pcol ? " " : "", k + 1);
            strncat(pcol, buf, sizeof pcol - strlen(pcol) - 1);
            snprintf(buf, sizeof buf, "%s%d", *ptyp ? " " : "", ptypes[t % 16]);
            strncat(ptyp, buf, sizeof ptyp - strlen(ptyp) - 1);
        }
    int m = C->nrows ? roof_isa(C, isa) : 0;
    for (int i = 0; i < C->nrows; i++) {
        double ridge = C->rows[i].fma[m].best / C->rows[i].triad.best;
        lo = fmin(lo, ridge), hi = fmax(hi, ridge);
    }
    if (!(hi > 0)) {
        ss_free(&pts);
        return skip("roofline", "no row has an arithmetic intensity (AI column) and no ceilings");
    }
    double xmin = exp2(floor(log2(lo)) - 1), xmax = exp2(ceil(log2(hi)) + 1);
    FILE *f = open_dat(P, "roofline");
    if (!f) return ss_free(&pts);
    fprintf(f, "# roofline: x = arithmetic intensity (FLOP/byte), y = GFLOP/s\n"
               "# blocks 0..nroof-1: roof min(peak, AI*BW) per thread count; then npeak other-ISA\n"
               "# peaks at the largest thread count; then npts point sets (kernel, threads)\n\n");
    char rtit[4096] = "";
    int nroof = 0, npeak = 0;
    for (int i = 0; i < C->nrows; i++) {
        const hr_ceiling_row *r = &C->rows[i];
        double peak = r->fma[m].best, bw = r->triad.best, ridge = peak / bw;
        char t[160];
        snprintf(t, sizeof t, "roof T%d: %s %.0f GFLOP/s, triad %.1f GB/s", r->threads,
                 hr_fma_isa_names[m], peak, bw);
        words_add(rtit, sizeof rtit, t);
        fprintf(f, "# %s\n%.9g %.9g 0\n", t, xmin, xmin * bw);
        if (ridge > xmin && ridge < xmax) fprintf(f, "%.9g %.9g 0\n", ridge, peak);
        fprintf(f, "%.9g %.9g 0\n\n\n", xmax, fmin(peak, xmax * bw));
        nroof++;
    }
    if (C->nrows) {
        const hr_ceiling_row *r = &C->rows[C->nrows - 1];
        for (int k = 0; k < HR_FMA_NISA; k++) {
            if (k == m || r->fma[k].best <= 0) continue;
            char t[160];
            snprintf(t, sizeof t, "%s peak T%d: %.0f GFLOP/s", hr_fma_isa_names[k], r->threads, r->fma[k].best);
            words_add(rtit, sizeof rtit, t);
            fprintf(f, "# %s\n%.9g %.9g 0\n%.9g %.9g 0\n\n\n", t, xmin, r->fma[k].best, xmax, r->fma[k].best);
            npeak++;
        }
    }
    for (int i = 0; i < pts.n; i++) {
        series *s = &pts.s[i];
        fprintf(f, "# %s\n", s->title);
        for (int j = 0; j < s->n; j++) fprintf(f, "%.9g %.9g 0\n", s->p[j][0], s->p[j][1]);
        fprintf(f, "\n\n");
    }
    fclose(f);
    char vars[16384];
    snprintf(vars, sizeof vars,
             "nroof=%d; npeak=%d; npts=%d; rtit='%s'; ptit='%s'; pcol='%s'; ptyp='%s'; xmin=%g; xmax=%g",
             nroof, npeak, pts.n, rtit, ptit, pcol, ptyp, xmin, xmax);
    ss_free(&pts);
    render(P, "roofline", vars);
}

/* 4. GFLOP/s vs N per kernel (base shape, each kernel at its largest thread count); left
 * panel non-causal, right causal. */
static void chart_kernels(plotter *P, const sweep_t *S)
{
    const char *names[MAXS / 2];
    int nk = kernels_of(S, 1, names, MAXS / 2);
    if (!nk) return skip("kernels", "no prefill rows (Nq = Nkv) in the sweep");
    sset ss = {0};
    char tit[2][4096] = {"", ""};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < nk; k++) {
            int t = max_threads(S, names[k]);
            char title[128];
            snprintf(title, sizeof title, "%s T%d%s", names[k], t, c ? " causal" : "");
            series *s = ss_get(&ss, title);
            for (int i = 0; i < S->n; i++) {
                const srow *r = &S->r[i];
                if (in_base(S, r) && r->causal == c && r->threads == t && !strcmp(r->kernel, names[k]))
                    ss_add(s, r->seq_kv, r->gflops, 0);
            }
            snprintf(title, sizeof title, "%s T%d", names[k], t);
            words_add(tit[c], sizeof tit[c], s && s->n ? title : "");
        }
    FILE *f = open_dat(P, "kernels");
    if (!f) return ss_free(&ss);
    fprintf(f, "# kernels: x = N, y = median GFLOP/s; blocks 0..nk-1 non-causal, nk..2nk-1 causal\n\n");
    for (int i = 0; i < ss.n; i++) ss_block(f, &ss.s[i]);
    fclose(f);
    ss_free(&ss);
    char vars[12288];
    snprintf(vars, sizeof vars, "nk=%d; tit0='%s'; tit1='%s'; shape='%s'", nk, tit[0], tit[1], S->shape);
    render(P, "kernels", vars);
}

/* 5. Working memory vs N per kernel (base shape, largest thread count, the larger of the
 * causal and non-causal figures). */
static void chart_workspace(plotter *P, const sweep_t *S)
{
    const char *names[MAXS];
    int nk = kernels_of(S, 1, names, MAXS);
    if (!nk) return skip("workspace", "no prefill rows (Nq = Nkv) in the sweep");
    sset ss = {0};
    char tit[8192] = "", none[512] = "";
    for (int k = 0; k < nk; k++) {
        int t = max_threads(S, names[k]);
        char title[128];
        snprintf(title, sizeof title, "%s T%d", names[k], t);
        series *s = ss_get(&ss, title);
        int zero = 0;
        for (int i = 0; i < S->n; i++) {
            const srow *r = &S->r[i];
            if (!in_base(S, r) || r->threads != t || strcmp(r->kernel, names[k])) continue;
            if (r->ws > 0) ss_add(s, r->seq_kv, r->ws / 1048576.0, 0);
            else zero = 1;
        }
        /* Keep the larger figure per N: sort by (x, y) and drop all but the last of each x. */
        if (s && s->n) {
            qsort(s->p, (size_t)s->n, sizeof *s->p, by_x_then_y);
            int out = 0;
            for (int i = 0; i < s->n; i++)
                if (i + 1 == s->n || s->p[i + 1][0] != s->p[i][0]) memmove(s->p[out++], s->p[i], sizeof *s->p);
            s->n = out;
        }
        words_add(tit, sizeof tit, s && s->n ? title : "");
        if (zero && !(s && s->n)) {
            if (*none) strncat(none, ", ", sizeof none - strlen(none) - 1);
            strncat(none, names[k], sizeof none - strlen(none) - 1);
        }
    }
    FILE *f = open_dat(P, "workspace");
    if (!f) return ss_free(&ss);
    fprintf(f, "# workspace: x = N, y = workspace MiB (harness-allocated scratch of the kernel)\n\n");
    for (int i = 0; i < ss.n; i++) ss_block(f, &ss.s[i]);
    fclose(f);
    ss_free(&ss);
    char vars[12288];
    snprintf(vars, sizeof vars, "nk=%d; tit='%s'; shape='%s'; none='%s'", nk, tit, S->shape, none);
    render(P, "workspace", vars);
}

/* 6. Thread scaling: per threaded kernel, GFLOP/s vs threads at the largest N measured at
 * two or more thread counts (non-causal if it has them); the FMA ceiling per thread
 * count. z = speed-up over the series' smallest thread count. */
static void chart_scaling(plotter *P, const sweep_t *S, const hr_ceilings *C, const char *isa)
{
    const char *names[MAXS];
    int nk = kernels_of(S, 1, names, MAXS - 1), ns = 0, tmin0 = 0;
    sset ss = {0};
    char tit[8192] = "", cols[1024] = "";
    for (int k = 0; k < nk; k++) {
        int bestn = 0, bestc = -1;
        for (int c = 0; c < 2 && bestc < 0; c++)
            for (int i = 0; i < S->n; i++) {
                const srow *a = &S->r[i];
                if (!in_base(S, a) || a->causal != c || strcmp(a->kernel, names[k]) || a->seq_kv <= bestn) continue;
                int other = 0;
                for (int j = 0; j < S->n && !other; j++) {
                    const srow *b = &S->r[j];
                    other = in_base(S, b) && b->causal == c && b->seq_kv == a->seq_kv &&
                            b->threads != a->threads && !strcmp(b->kernel, a->kernel);
                }
                if (other) bestn = a->seq_kv, bestc = c;
            }
        if (bestc < 0) continue;
        char title[128];
        snprintf(title, sizeof title, "%s N%d%s", names[k], bestn, bestc ? " causal" : "");
        series *s = ss_get(&ss, title);
        for (int i = 0; i < S->n; i++) {
            const srow *r = &S->r[i];
            if (in_base(S, r) && r->causal == bestc && r->seq_kv == bestn && !strcmp(r->kernel, names[k]))
                ss_add(s, r->threads, r->gflops, 0);
        }
        if (!s) break;
        ss_tidy(s);
        for (int i = 0; i < s->n; i++) s->p[i][2] = s->p[i][1] / s->p[0][1];
        tmin0 = tmin0 ? (int)fmin(tmin0, s->p[0][0]) : (int)s->p[0][0];
        words_add(tit, sizeof tit, title);
        char buf[16];
        snprintf(buf, sizeof buf, "%s%d", *cols ? " " : "", k + 1); /* the kernels chart's colour */
        strncat(cols, buf, sizeof cols - strlen(cols) - 1);
        ns++;
    }
    if (!ns) {
        ss_free(&ss);
        return skip("scaling", "no kernel was measured at two or more thread counts on one shape");
    }
    int tmax = 0;
    for (int i = 0; i < ss.n; i++) tmax = (int)fmax(tmax, ss.s[i].p[ss.s[i].n - 1][0]);
    FILE *f = open_dat(P, "scaling");
    if (!f) return ss_free(&ss);
    fprintf(f, "# scaling: x = threads, y = median GFLOP/s, z = speed-up over the series' fewest threads\n"
               "# blocks 0..ns-1 kernels; block ns (when nceil=1) the FMA ceiling\n\n");
    for (int i = 0; i < ss.n; i++) ss_block(f, &ss.s[i]);
    int nceil = 0;
    if (C->nrows) {
        int m = roof_isa(C, isa);
        char t[96];
        snprintf(t, sizeof t, "FMA ceiling (%s)", hr_fma_isa_names[m]);
        words_add(tit, sizeof tit, t);
        fprintf(f, "# %s\n", t);
        double base = C->rows[0].fma[m].best;
        for (int i = 0; i < C->nrows && (C->rows[i].threads <= tmax || i == 0); i++)
            fprintf(f, "%d %.9g %.9g\n", C->rows[i].threads, C->rows[i].fma[m].best, C->rows[i].fma[m].best / base);
        fprintf(f, "\n\n");
        nceil = 1;
    }
    fclose(f);
    ss_free(&ss);
    char vars[12288];
    snprintf(vars, sizeof vars, "ns=%d; nceil=%d; tit='%s'; cols='%s'; shape='%s'; tmax=%d; tmin0=%d", ns, nceil,
             tit, cols, S->shape, tmax, tmin0);
    render(P, "scaling", vars);
}

/* 2. Crossover: per (kernel, d_model) projection and core time vs N, the measured N*
 * (a point at the crossing: projection time interpolated log-linearly there) and the
 * FLOP-predicted N* as a vertical line. */
static void chart_crossover(plotter *P, const char *pts_path, const char *tab_path)
{
    csv_t c, t = {0};
    int st = csv_load(pts_path, &c);
    if (st <= 0) return skip("crossover", st ? hr_errmsg() : "no crossover.csv (headroom crossover writes one)");
    static const char *const need[] = {"kernel", "d_model", "N", "proj_s", "core_s", NULL};
    if (need_cols(&c, pts_path, need)) {
        csv_free(&c);
        return skip("crossover", hr_errmsg());
    }
    int have_tab = csv_load(tab_path, &t) > 0;
    int ck = col(&c, "kernel"), cd = col(&c, "d_model"), cn = col(&c, "N"), cp = col(&c, "proj_s"), cc = col(&c, "core_s");
    char keys[32][64];
    int ng = 0;
    for (int i = 0; i < c.nrows && ng < 32; i++) {
        char key[64];
        snprintf(key, sizeof key, "%s %s", str(&c.rows[i], ck), str(&c.rows[i], cd));
        int seen = 0;
        for (int g = 0; g < ng && !seen; g++) seen = !strcmp(keys[g], key);
        if (!seen) snprintf(keys[ng++], sizeof keys[0], "%s", key);
    }
    /* One panel per kernel (in order of first appearance), its groups together: kidx[g] is
     * group g's panel; colour = the rank of its d_model among all d_models, the same in
     * every panel. */
    char kerns[16][48];
    int nkern = 0, kidx[32];
    for (int g = 0; g < ng; g++) {
        int len = (int)strcspn(keys[g], " "), k = 0;
        while (k < nkern && (strncmp(kerns[k], keys[g], (size_t)len) || kerns[k][len])) k++;
        if (k == nkern && nkern < 16) snprintf(kerns[nkern++], sizeof kerns[0], "%.*s", len, keys[g]);
        kidx[g] = k < nkern ? k : nkern - 1;
    }
    for (int g = 1; g < ng; g++) /* stable insertion sort by panel */
        for (int h = g; h > 0 && kidx[h - 1] > kidx[h]; h--) {
            char tk[64];
            int ti = kidx[h];
            memcpy(tk, keys[h], sizeof tk), memcpy(keys[h], keys[h - 1], sizeof tk), memcpy(keys[h - 1], tk, sizeof tk);
            kidx[h] = kidx[h - 1], kidx[h - 1] = ti;
        }
    double dms[32];
    int ndm = 0, gcol[32];
    for (int g = 0; g < ng; g++) {
        double d = atof(strchr(keys[g], ' ') + 1);
        int j = 0;
        while (j < ndm && dms[j] != d) j++;
        if (j == ndm) dms[ndm++] = d;
    }
    for (int i = 1; i < ndm; i++)
        for (int j = i; j > 0 && dms[j - 1] > dms[j]; j--) {
            double x = dms[j];
            dms[j] = dms[j - 1], dms[j - 1] = x;
        }
    for (int g = 0; g < ng; g++) {
        double d = atof(strchr(keys[g], ' ') + 1);
        gcol[g] = 1;
        for (int j = 0; j < ndm; j++)
            if (dms[j] == d) gcol[g] = j + 1;
    }
    double ylo = INFINITY, yhi = 0;
    sset ss = {0};
    char tit[8192] = "";
    FILE *f = open_dat(P, "crossover");
    if (!f) {
        csv_free(&c), csv_free(&t);
        return;
    }
    fprintf(f, "# crossover: x = N, y = seconds; per group 4 blocks: projections, core, measured N*\n"
               "# (at the interpolated projection time), FLOP-predicted N* (vertical line)\n\n");
    for (int g = 0; g < ng; g++) {
        char kern[48], dm[16], pre[80];
        sscanf(keys[g], "%47s %15s", kern, dm);
        if (nkern > 1) snprintf(pre, sizeof pre, "%s d_model %s", kern, dm);
        else snprintf(pre, sizeof pre, "d_model %s", dm);
        ss_free(&ss);
        char t1[160], t2[160];
        snprintf(t1, sizeof t1, "%s: projections", pre);
        snprintf(t2, sizeof t2, "%s: core", pre);
        series *sp = ss_get(&ss, t1), *sc = ss_get(&ss, t2);
        for (int i = 0; i < c.nrows; i++) {
            const csv_row *r = &c.rows[i];
            if (strcmp(str(r, ck), kern) || strcmp(str(r, cd), dm)) continue;
            double n = num(r, cn), p = num(r, cp), q = num(r, cc);
            if (!(n > 0) || !(p > 0) || !(q > 0)) continue;
            ss_add(sp, n, p, 0), ss_add(sc, n, q, 0);
            ylo = fmin(ylo, fmin(p, q)), yhi = fmax(yhi, fmax(p, q));
        }
        ss_block(f, sp);
        ss_block(f, sc);
        words_add(tit, sizeof tit, t1);
        words_add(tit, sizeof tit, t2);
        double nm = NAN, nf = NAN;
        if (have_tab) {
            int tk = col(&t, "kernel"), td = col(&t, "d_model");
            for (int i = 0; i < t.nrows; i++)
                if (!strcmp(str(&t.rows[i], tk), kern) && !strcmp(str(&t.rows[i], td), dm)) {
                    nm = num(&t.rows[i], col(&t, "n_star_measured"));
                    nf = num(&t.rows[i], col(&t, "n_star_flops"));
                }
        }
        /* The measured N* sits where the two curves meet: place it on the projection
         * curve, interpolated log-linearly between the measured Ns around it. */
        double yt = NAN;
        for (int i = 0; sp && i + 1 < sp->n && isfinite(nm); i++)
            if (sp->p[i][0] <= nm && nm <= sp->p[i + 1][0]) {
                double w = log(nm / sp->p[i][0]) / log(sp->p[i + 1][0] / sp->p[i][0]);
                yt = exp(log(sp->p[i][1]) + w * log(sp->p[i + 1][1] / sp->p[i][1]));
            }
        char t3[160] = "", t4[160] = "";
        if (isfinite(yt)) {
            fprintf(f, "# measured N*\n%.9g %.9g 0\n\n\n", nm, yt);
            snprintf(t3, sizeof t3, "%s: N* measured %.0f", pre, nm);
        } else {
            fprintf(f, "# no measured N*\nNaN NaN NaN\n\n\n");
        }
        if (!have_tab) nf = 2 * atof(dm); /* no table: the MHA non-causal rule */
        if (isfinite(nf)) {
            fprintf(f, "# FLOP-predicted N*\n%.9g YLO 0\n%.9g YHI 0\n\n\n", nf, nf);
            snprintf(t4, sizeof t4, have_tab ? "%s: N* by FLOPs %.0f" : "%s: 2 d_model = %.0f", pre, nf);
        } else {
            fprintf(f, "# no FLOP-predicted N*\nNaN NaN NaN\n\n\n");
        }
        words_add(tit, sizeof tit, t3);
        words_add(tit, sizeof tit, t4);
    }
    ss_free(&ss);
    fclose(f);
    csv_free(&c);
    csv_free(&t);
    if (!(yhi > 0)) return skip("crossover", "crossover.csv has no positive times");
    /* The vertical lines span the data's y range: patch YLO/YHI now that it is known. */
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/crossover.dat", P->out);
    FILE *in = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    if (in) {
        fseek(in, 0, SEEK_END);
        long sz = ftell(in);
        fseek(in, 0, SEEK_SET);
        text = sz >= 0 ? calloc((size_t)sz + 1, 1) : NULL;
        if (text) len = fread(text, 1, (size_t)sz, in);
        fclose(in);
    }
    if (!text) return skip("crossover", "cannot reread crossover.dat");
    FILE *o = fopen(path, "w");
    double ymin = exp2(floor(log2(ylo))), ymax = exp2(ceil(log2(yhi)));
    for (size_t i = 0; o && i < len; i++) {
        if (!strncmp(text + i, "YLO", 3)) fprintf(o, "%.9g", ymin), i += 2;
        else if (!strncmp(text + i, "YHI", 3)) fprintf(o, "%.9g", ymax), i += 2;
        else fputc(text[i], o);
    }
    free(text);
    if (o) fclose(o);
    /* Per panel: kernel name, first group and group count; per group its colour; the
     * d_models in colour order. */
    char kw[1024] = "", k0[256] = "", kn[256] = "", gc[256] = "", dw[512] = "";
    for (int k = 0; k < nkern; k++) {
        int first = 0, cnt = 0;
        for (int g = ng - 1; g >= 0; g--)
            if (kidx[g] == k) first = g + 1, cnt++;
        words_add(kw, sizeof kw, kerns[k]);
        snprintf(k0 + strlen(k0), sizeof k0 - strlen(k0), "%s%d", k ? " " : "", first);
        snprintf(kn + strlen(kn), sizeof kn - strlen(kn), "%s%d", k ? " " : "", cnt);
    }
    for (int g = 0; g < ng; g++) snprintf(gc + strlen(gc), sizeof gc - strlen(gc), "%s%d", g ? " " : "", gcol[g]);
    for (int j = 0; j < ndm; j++) {
        char d[32];
        snprintf(d, sizeof d, "%g", dms[j]);
        words_add(dw, sizeof dw, d);
    }
    char vars[12288];
    snprintf(vars, sizeof vars,
             "ng=%d; tit='%s'; ymin=%g; ymax=%g; nk=%d; kerns='%s'; kfirst='%s'; kcount='%s'; gcol='%s'; "
             "ndm=%d; dms='%s'; flopsrule=%d",
             ng, tit, ymin, ymax, nkern, kw, k0, kn, gc, ndm, dw, !have_tab);
    render(P, "crossover", vars);
}

/* 3a. KV-cache memory vs context length per model preset (fp16), and the MHA equivalent
 * of GQA/MQA models dashed. */
static void chart_kvcache(plotter *P, const char *path)
{
    csv_t c;
    int st = csv_load(path, &c);
    if (st <= 0) return skip("kvcache", st ? hr_errmsg() : "no kvcache CSV");
    static const char *const need[] = {"model", "attention", "heads", "kv_heads", "tokens", "bytes_fp16", "mha_bytes_fp16", NULL};
    if (need_cols(&c, path, need)) {
        csv_free(&c);
        return skip("kvcache", hr_errmsg());
    }
    int cm = col(&c, "model"), ca = col(&c, "attention"), ch = col(&c, "heads"), cg = col(&c, "kv_heads");
    int ct = col(&c, "tokens"), cb = col(&c, "bytes_fp16"), cmha = col(&c, "mha_bytes_fp16"), cbat = col(&c, "batch");
    const double gib = 1073741824.0;
    sset ss = {0};
    char tit[8192] = "";
    int nm = 0;
    for (int i = 0; i < c.nrows; i++) {
        const csv_row *r = &c.rows[i];
        int seen = 0;
        for (int k = 0; k < nm && !seen; k++) seen = !strncmp(ss.s[2 * k].title, str(r, cm), strlen(str(r, cm))) &&
                                                   ss.s[2 * k].title[strlen(str(r, cm))] == ' ';
        if (seen || ss.n + 2 > MAXS) continue;
        char t1[128], t2[128];
        int mha = !strcmp(str(r, ca), "MHA");
        snprintf(t1, sizeof t1, "%s %s (%sq/%skv heads)", str(r, cm), str(r, ca), str(r, ch), str(r, cg));
        snprintf(t2, sizeof t2, "%s as MHA", str(r, cm));
        series *s1 = ss_get(&ss, t1), *s2 = ss_get(&ss, t2);
        for (int j = 0; j < c.nrows; j++) {
            const csv_row *q = &c.rows[j];
            if (strcmp(str(q, cm), str(r, cm))) continue;
            ss_add(s1, num(q, ct), num(q, cb) / gib, 0);
            if (!mha) ss_add(s2, num(q, ct), num(q, cmha) / gib, 0);
        }
        words_add(tit, sizeof tit, t1);
        words_add(tit, sizeof tit, mha ? "" : t2);
        nm++;
    }
    char batch[16];
    snprintf(batch, sizeof batch, "%s", c.nrows ? str(&c.rows[0], cbat) : "1");
    csv_free(&c);
    if (!nm) {
        ss_free(&ss);
        return skip("kvcache", "the kvcache CSV has no rows");
    }
    FILE *f = open_dat(P, "kvcache");
    if (!f) return ss_free(&ss);
    fprintf(f, "# kvcache: x = tokens in the cache, y = GiB at fp16; per model 2 blocks: its own\n"
               "# attention, the MHA equivalent (empty for MHA models)\n\n");
    for (int i = 0; i < ss.n; i++) ss_block(f, &ss.s[i]);
    fclose(f);
    ss_free(&ss);
    char vars[12288];
    snprintf(vars, sizeof vars, "nm=%d; tit='%s'; batch='%s'", nm, tit, *batch ? batch : "1");
    render(P, "kvcache", vars);
}

/* 3b. Decode: step time per generated token vs cache length (headroom decode-loop --format
 * csv); without one, the sweep's one-query rows (one layer's attention per step). */
static void chart_decode(plotter *P, const char *path, const sweep_t *S)
{
    csv_t c;
    int st = csv_load(path, &c);
    sset ss = {0};
    char tit[8192] = "", ylab[128];
    if (st > 0) {
        static const char *const need[] = {"kernel", "cache_first", "cache_last", "step_ms_median", NULL};
        if (need_cols(&c, path, need)) {
            csv_free(&c);
            return skip("decode", hr_errmsg());
        }
        static const char *const key[] = {"heads", "kv_heads", "d_head", "layers", "threads", "batch"};
        int kc[6];
        for (int k = 0; k < 6; k++) kc[k] = col(&c, key[k]);
        int ck = col(&c, "kernel"), c0 = col(&c, "cache_first"), c1 = col(&c, "cache_last"), cs = col(&c, "step_ms_median");
        for (int i = 0; i < c.nrows; i++) {
            const csv_row *r = &c.rows[i];
            char t[128];
            snprintf(t, sizeof t, "%s T%s: H%s/%s d%s, %s layers, B%s", str(r, ck), str(r, kc[4]),
                     str(r, kc[0]), str(r, kc[1]), str(r, kc[2]), str(r, kc[3]), str(r, kc[5]));
            ss_add(ss_get(&ss, t), (num(r, c0) + num(r, c1)) / 2, num(r, cs), 0);
        }
        csv_free(&c);
        snprintf(ylab, sizeof ylab, "step time per token, all layers (ms, median over the range)");
    } else {
        if (st < 0) return skip("decode", hr_errmsg());
        for (int i = 0; i < S->n; i++) {
            const srow *r = &S->r[i];
            if (r->seq_q != 1 || r->seq_kv < 2) continue;
            char t[128];
            snprintf(t, sizeof t, "%s T%d: B%d H%d/%d d%d", r->kernel, r->threads, r->batch, r->heads, r->kv_heads, r->d_head);
            ss_add(ss_get(&ss, t), r->seq_kv, r->t_med * 1e3, 0);
        }
        snprintf(ylab, sizeof ylab, "attention time of one decode step, one layer (ms)");
    }
    int n = 0;
    double xlo = INFINITY, xhi = 0;
    for (int i = 0; i < ss.n; i++) {
        n += ss.s[i].n > 0;
        for (int j = 0; j < ss.s[i].n; j++) xlo = fmin(xlo, ss.s[i].p[j][0]), xhi = fmax(xhi, ss.s[i].p[j][0]);
    }
    if (!n) {
        ss_free(&ss);
        return skip("decode", "no decode.csv (headroom decode-loop --format csv) and no one-query rows in the sweep");
    }
    FILE *f = open_dat(P, "decode");
    if (!f) return ss_free(&ss);
    fprintf(f, "# decode: x = tokens in the KV cache, y = %s\n\n", ylab);
    for (int i = 0; i < ss.n; i++) {
        ss_block(f, &ss.s[i]);
        words_add(tit, sizeof tit, ss.s[i].title);
    }
    fclose(f);
    char vars[12288];
    snprintf(vars, sizeof vars, "ns=%d; tit='%s'; ylab='%s'; logx=%d", ss.n, tit, ylab, xhi > 16 * xlo);
    ss_free(&ss);
    render(P, "decode", vars);
}

/* ---- the command ------------------------------------------------------------------------ */

/* "machine, date" from a file's context block; 0 when it has none. */
static int context_label(const char *path, char *buf, size_t len, char *isa, size_t isalen)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char *text = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 > cap) {
            char *nt = realloc(text, cap = cap ? 2 * cap : 65536);
            if (!nt) break;
            text = nt;
        }
        size_t got = fread(text + n, 1, cap - n - 1, f);
        if (!got) break;
        n += got;
    }
    fclose(f);
    if (!text) return 0;
    cJSON *root = cJSON_ParseWithLength(text, n);
    free(text);
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(root, "context");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(ctx, "machine");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(ctx, "date");
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(ctx, "isa");
    int ok = cJSON_IsString(m);
    if (ok) {
        char date[32] = "";
        if (cJSON_IsString(d)) {
            snprintf(date, sizeof date, "%.16s", d->valuestring);
            if (date[10] == 'T') date[10] = ' ';
        }
        snprintf(buf, len, "%s%s%s", m->valuestring, *date ? ", " : "", date);
        if (isa && cJSON_IsString(i) && !*isa) snprintf(isa, isalen, "%s", i->valuestring);
    }
    cJSON_Delete(root);
    return ok;
}

static int exists(const char *p) { return !access(p, R_OK); }

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL, *ceil_path = NULL, *cross = NULL, *kv_path = NULL, *dec_path = NULL, *label = NULL;
    const hr_opt opts[] = {
        {"--out", HR_OPT_STR, &out, 0, 0, NULL, "DIR", "write the charts (PNG, SVG) and their .dat files here (DIR/plots)"},
        {"--ceilings", HR_OPT_STR, &ceil_path, 0, 0, NULL, "FILE", "roofline ceilings (DIR/ceilings.json, else beside the sweep directory)"},
        {"--crossover", HR_OPT_STR, &cross, 0, 0, NULL, "PATH", "crossover.csv or the directory holding it (DIR/crossover.csv)"},
        {"--kvcache", HR_OPT_STR, &kv_path, 0, 0, NULL, "FILE", "headroom kvcache --format csv output (DIR/kvcache.csv)"},
        {"--decode", HR_OPT_STR, &dec_path, 0, 0, NULL, "FILE", "headroom decode-loop --format csv output (DIR/decode.csv)"},
        {"--label", HR_OPT_STR, &label, 0, 0, NULL, "TEXT", "machine and date for the titles (from the results' context)"},
        {NULL},
    };
    const char *syn = "plot DIR [--out OUTDIR] [--ceilings FILE] [--crossover PATH] [--kvcache FILE] [--decode FILE]\n"
                      "  DIR: a sweep directory (results/<machine>/<stamp>-<config>) or results/<machine>\n"
                      "  (its latest/). Charts: roofline, kernels, workspace, scaling, crossover, kvcache,\n"
                      "  decode; each drawn when its inputs exist. gnuplot: $HEADROOM_GNUPLOT or gnuplot;\n"
                      "  scripts: $HEADROOM_PLOTS or plots/ beside the binary.";
    char *pos[2];
    int npos = 0;
    int st = hr_parse(argc, argv, opts, syn, pos, 2, &npos);
    if (st < 0) return HR_OK;
    if (st) goto err;
    if (npos != 1) {
        st = hr_fail(npos ? "give one results directory" : "give a results directory (see --help)");
        goto err;
    }
    const char *dir = pos[0];
    struct stat sb;
    if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
        st = hr_fail("%s: not a directory", dir);
        goto err;
    }

    /* Where each input is. */
    char sweep_dir[PATH_MAX], p_csv[PATH_MAX + 32], p_json[PATH_MAX + 32], p_ceil[PATH_MAX + 32];
    char p_cross[PATH_MAX + 32], p_tab[PATH_MAX + 32], p_kv[PATH_MAX + 32], p_dec[PATH_MAX + 32];
    char outdir[PATH_MAX + 32];
    snprintf(sweep_dir, sizeof sweep_dir, "%s", dir);
    snprintf(p_csv, sizeof p_csv, "%s/results.csv", dir);
    if (!exists(p_csv)) {
        snprintf(p_csv, sizeof p_csv, "%s/latest/results.csv", dir);
        if (exists(p_csv)) snprintf(sweep_dir, sizeof sweep_dir, "%s/latest", dir);
        else snprintf(p_csv, sizeof p_csv, "%s/results.csv", dir);
    }
    snprintf(p_json, sizeof p_json, "%s/results.json", sweep_dir);
    if (ceil_path) snprintf(p_ceil, sizeof p_ceil, "%s", ceil_path);
    else {
        snprintf(p_ceil, sizeof p_ceil, "%s/ceilings.json", dir);
        if (!exists(p_ceil)) snprintf(p_ceil, sizeof p_ceil, "%s/../ceilings.json", sweep_dir);
    }
    if (cross && !stat(cross, &sb) && S_ISDIR(sb.st_mode)) snprintf(p_cross, sizeof p_cross, "%s/crossover.csv", cross);
    else if (cross) snprintf(p_cross, sizeof p_cross, "%s", cross);
    else snprintf(p_cross, sizeof p_cross, "%s/crossover.csv", dir);
    snprintf(p_tab, sizeof p_tab, "%s", p_cross);
    char *slash = strrchr(p_tab, '/');
    snprintf(slash ? slash + 1 : p_tab, sizeof p_tab - (size_t)(slash ? slash + 1 - p_tab : 0), "crossover_table.csv");
    snprintf(p_kv, sizeof p_kv, "%s", kv_path ? kv_path : "");
    if (!kv_path) snprintf(p_kv, sizeof p_kv, "%s/kvcache.csv", dir);
    if (dec_path) snprintf(p_dec, sizeof p_dec, "%s", dec_path);
    else snprintf(p_dec, sizeof p_dec, "%s/decode.csv", dir);
    if (out) snprintf(outdir, sizeof outdir, "%s", out);
    else snprintf(outdir, sizeof outdir, "%s/plots", sweep_dir);
    /* Flags name files the user asked for: a missing one is an error, not a skip. */
    const char *given[][2] = {{ceil_path, "--ceilings"}, {cross, "--crossover"}, {kv_path, "--kvcache"}, {dec_path, "--decode"}};
    for (int i = 0; i < 4; i++)
        if (given[i][0] && !exists(given[i][0])) {
            st = hr_fail("%s: %s: no such file", given[i][1], given[i][0]);
            goto err;
        }

    plotter P = {.out = outdir};
    P.gp = hr_gnuplot_exe();
    if (!hr_gnuplot_works(P.gp)) {
        st = hr_fail("%s not found or not working (install gnuplot or set HEADROOM_GNUPLOT)", P.gp);
        goto err;
    }
    /* The scripts' directory: where roofline.gp is found. */
    if (!hr_plot_script("roofline.gp", P.scripts, sizeof P.scripts)) {
        st = hr_fail("plots/roofline.gp not found (set HEADROOM_PLOTS to the plots/ directory)");
        goto err;
    }
    *strrchr(P.scripts, '/') = 0;
    char isa[32] = "";
    if (label) snprintf(P.who, sizeof P.who, "%s", label);
    else if (!context_label(p_json, P.who, sizeof P.who, isa, sizeof isa) &&
             !context_label(p_ceil, P.who, sizeof P.who, NULL, 0))
        snprintf(P.who, sizeof P.who, "machine unknown");
    if (!*isa) context_label(p_json, (char[160]){0}, 160, isa, sizeof isa);
    if (!hr_gnuplot_quotable(outdir) || !hr_gnuplot_quotable(P.scripts) || !hr_gnuplot_quotable(P.who)) {
        st = hr_fail("paths and labels holding a quote cannot be passed to gnuplot");
        goto err;
    }

    sweep_t S;
    if ((st = sweep_load(p_csv, &S))) goto err;
    hr_ceilings C = {0};
    if (exists(p_ceil) && (st = hr_ceilings_load(p_ceil, &C))) {
        free(S.r);
        goto err;
    }
    if ((st = hr_mkdirs(outdir))) {
        free(S.r);
        goto err;
    }
    if (!S.n) printf("no sweep rows (%s): roofline points, kernels, workspace and scaling need a sweep\n", p_csv);
    chart_roofline(&P, &S, &C, isa);
    if (S.n) {
        chart_kernels(&P, &S);
        chart_workspace(&P, &S);
        chart_scaling(&P, &S, &C, isa);
    }
    chart_crossover(&P, p_cross, p_tab);
    chart_kvcache(&P, p_kv);
    chart_decode(&P, p_dec, &S);
    free(S.r);
    if (P.failed) {
        st = hr_fail("gnuplot failed on %d chart(s)", P.failed);
        goto err;
    }
    if (!P.made) {
        st = hr_fail("%s: nothing to plot (no results.csv, ceilings.json, crossover.csv, kvcache.csv or decode.csv)", dir);
        goto err;
    }
    printf("%d chart(s) in %s\n", P.made, outdir);
    return HR_OK;
err:
    fprintf(stderr, "headroom plot: %s\n", hr_errmsg());
    return st;
}

/* summary.c — a results file summed up: the shape x kernel table on stdout, summary.md and
 * a self-contained index.html (tables and charts inline) in the results directory. */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "gbread.h"
#include "headroom.h"
#include "site.h"
#include "summary.h"

/* One point of the file: its median aggregate and what the table shows of it. */
typedef struct {
    char name[320], shape[320], kernel[64];
    int threads;
    double ms, gflops, pct, cpu_ratio, cv; /* NAN where the file lacks the figure */
    double pct_att;                       /* pct_of_attainable: of min(matmul, softmax, memory) */
    char bound_by[8];                     /* which of the three binds; "" without         */
} srow;

typedef struct {
    cJSON *doc;
    srow *r;
    int n;
    const char *kern[64], *shape[4096]; /* distinct, in order of first appearance   */
    int nkern, nshape;
    int lv_measured, lv_topology; /* median rows whose bound_level's level came from the
                                   * bandwidth curve (level_measured 1) or the topology */
} sdata;

/* ---- reading the file --------------------------------------------------------------------- */

/* The shape of a row: its name without the kernel's segment. */
static void shape_of(const char *name, const char *kernel, char *buf, size_t len)
{
    const size_t kl = strlen(kernel);
    size_t o = 0;
    int dropped = 0;
    *buf = 0;
    for (const char *p = name; o < len;) {
        const size_t l = strcspn(p, "/");
        if (!dropped && l == kl && !strncmp(p, kernel, l)) dropped = 1;
        else o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? "/" : "", (int)l, p);
        if (!p[l]) break;
        p += l + 1;
    }
    if (!*buf) snprintf(buf, len, "%s", name);
}

static int distinct(const char **set, int *n, int cap, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(set[i], s)) return i;
    if (*n >= cap) return -1;
    set[*n] = s;
    return (*n)++;
}

static srow *find(sdata *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->r[i].name, name)) return &d->r[i];
    return NULL;
}

/* Loads path: every "median" aggregate becomes a row; the "cv" aggregates fill in CV. */
static int load(const char *path, sdata *d)
{
    memset(d, 0, sizeof *d);
    if (!(d->doc = hr_gb_load(path))) return HR_EUSAGE;
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(d->doc, "benchmarks"), *b;
    d->r = calloc((size_t)cJSON_GetArraySize(bs) + 1, sizeof *d->r);
    if (!d->r) return hr_fail("out of memory");
    cJSON_ArrayForEach(b, bs)
    {
        if (strcmp(hr_json_str(b, "run_type", ""), "aggregate") || strcmp(hr_json_str(b, "aggregate_name", ""), "median")) continue;
        srow *r = &d->r[d->n];
        const char *run = *hr_json_str(b, "run_name", "") ? hr_json_str(b, "run_name", "") : hr_json_str(b, "name", "");
        snprintf(r->name, sizeof r->name, "%s", run);
        snprintf(r->kernel, sizeof r->kernel, "%s", *hr_json_str(b, "kernel", "") ? hr_json_str(b, "kernel", "") : "?");
        shape_of(r->name, r->kernel, r->shape, sizeof r->shape);
        const double th = hr_json_num(b, "threads", NAN);
        r->threads = th >= 0 && th < 1e6 ? (int)th : 0;
        double ns = NAN;
        if (hr_gb_time_ns(b, path, run, &ns)) return HR_EUSAGE;
        const double cpu = hr_json_num(b, "cpu_time", NAN);
        r->ms = ns * 1e-6;
        r->cpu_ratio = ns > 0 && cpu >= 0 ? cpu / hr_json_num(b, "real_time", NAN) : NAN;
        r->gflops = hr_json_num(b, "GFLOPS", NAN);
        r->pct = hr_json_num(b, "pct_of_roofline", NAN);
        r->pct_att = hr_json_num(b, "pct_of_attainable", NAN);
        snprintf(r->bound_by, sizeof r->bound_by, "%s", hr_json_str(b, "bound_by", ""));
        const double lm = hr_json_num(b, "level_measured", NAN);
        d->lv_measured += lm == 1, d->lv_topology += lm == 0;
        r->cv = NAN;
        d->n++;
    }
    cJSON_ArrayForEach(b, bs)
    {
        srow *r;
        if (!strcmp(hr_json_str(b, "aggregate_name", ""), "cv") && (r = find(d, hr_json_str(b, "run_name", ""))))
            r->cv = hr_json_num(b, "real_time", NAN);
    }
    for (int i = 0; i < d->n; i++) {
        distinct(d->kern, &d->nkern, 64, d->r[i].kernel);
        distinct(d->shape, &d->nshape, 4096, d->r[i].shape);
    }
    return HR_OK;
}

/* The row of shape s and kernel k (the first, when passes repeat it), or NULL. */
static const srow *cell(const sdata *d, const char *s, const char *k)
{
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->r[i].shape, s) && !strcmp(d->r[i].kernel, k)) return &d->r[i];
    return NULL;
}

static void fmt_cell(const srow *r, char *buf, size_t len)
{
    if (!r) snprintf(buf, len, "-");
    else if (isfinite(r->pct)) snprintf(buf, len, "%.3g (%.0f%%)", r->gflops, r->pct);
    else snprintf(buf, len, "%.3g", r->gflops);
}

static void fmt_num(double v, const char *f, char *buf, size_t len)
{
    if (isfinite(v)) snprintf(buf, len, f, v);
    else snprintf(buf, len, "-");
}

/* ---- the text table ----------------------------------------------------------------------- */

static void text_table(const sdata *d, FILE *f, const char *dir)
{
    int w0 = 5, w[64];
    for (int s = 0; s < d->nshape; s++) {
        const int l = (int)strlen(d->shape[s]);
        if (l > w0) w0 = l > 60 ? 60 : l;
    }
    char buf[64];
    for (int k = 0; k < d->nkern; k++) {
        w[k] = (int)strlen(d->kern[k]);
        for (int s = 0; s < d->nshape; s++) {
            fmt_cell(cell(d, d->shape[s], d->kern[k]), buf, sizeof buf);
            if ((int)strlen(buf) > w[k]) w[k] = (int)strlen(buf);
        }
    }
    fprintf(f, "\nGFLOP/s (%% of roof) per shape and kernel; summary.md and index.html in %s\n", dir);
    fprintf(f, "%-*s", w0, "shape");
    for (int k = 0; k < d->nkern; k++) fprintf(f, "  %*s", w[k], d->kern[k]);
    fputc('\n', f);
    for (int s = 0; s < d->nshape; s++) {
        fprintf(f, "%-*.*s", w0, w0, d->shape[s]);
        for (int k = 0; k < d->nkern; k++) {
            fmt_cell(cell(d, d->shape[s], d->kern[k]), buf, sizeof buf);
            fprintf(f, "  %*s", w[k], buf);
        }
        fputc('\n', f);
    }
    fflush(f);
}

/* ---- summary.md and index.html ------------------------------------------------------------ */

typedef enum { MD, HTML } fmt;

static void put(FILE *f, fmt m, const char *s)
{
    if (m == MD) hr_md_cell(f, s, HR_MD_PLAIN);
    else hr_html_put(f, s);
}

/* The facts of the context, one line. */
static void context_line(FILE *f, fmt m, const cJSON *c)
{
    char line[1024];
    snprintf(line, sizeof line, "%s: %s, %.0f CPUs, ISA %s; %s; commit %s; %s", hr_json_str(c, "machine", ""),
             hr_json_str(c, "cpu_model", ""), hr_json_num(c, "num_cpus", NAN), hr_json_str(c, "isa", ""), hr_json_str(c, "compiler", ""), hr_json_str(c, "git_commit", ""),
             hr_json_str(c, "date", ""));
    put(f, m, line);
}

/* A table: header cells, then rows of cells (ncols each). */
static void table(FILE *f, fmt m, const char *const *head, int ncols, char (*cells)[400], int nrows)
{
    if (m == MD) {
        fputc('|', f);
        for (int j = 0; j < ncols; j++) fputc(' ', f), hr_md_cell(f, head[j], HR_MD_PLAIN), fputs(" |", f);
        fputs("\n|", f);
        for (int j = 0; j < ncols; j++) fputs(j ? "---:|" : "---|", f);
        fputc('\n', f);
        for (int i = 0; i < nrows; i++) {
            fputc('|', f);
            for (int j = 0; j < ncols; j++) fputc(' ', f), hr_md_cell(f, cells[i * ncols + j], HR_MD_PLAIN), fputs(" |", f);
            fputc('\n', f);
        }
        fputc('\n', f);
        return;
    }
    fputs("<table>\n<tr>", f);
    for (int j = 0; j < ncols; j++) fputs("<th>", f), hr_html_put(f, head[j]), fputs("</th>", f);
    fputs("</tr>\n", f);
    for (int i = 0; i < nrows; i++) {
        fputs("<tr>", f);
        for (int j = 0; j < ncols; j++)
            fputs(j ? "<td class=n>" : "<td>", f), hr_html_put(f, cells[i * ncols + j]), fputs("</td>", f);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void heading(FILE *f, fmt m, int level, const char *s)
{
    if (m == MD) fprintf(f, "%.*s ", level, "###"), hr_md_cell(f, s, HR_MD_PLAIN), fputs("\n\n", f);
    else fprintf(f, "<h%d>", level), hr_html_put(f, s), fprintf(f, "</h%d>\n", level);
}

static void para(FILE *f, fmt m, const char *s)
{
    if (m == HTML) fputs("<p>", f);
    put(f, m, s);
    fputs(m == MD ? "\n\n" : "</p>\n", f);
}

/* The tables of both files: shape x kernel, every row, warnings, skipped points. */
static int body(FILE *f, fmt m, const sdata *d)
{
    const int nk = d->nkern < 63 ? d->nkern : 63;
    char(*cells)[400] = calloc(((size_t)d->nshape + d->n + 1) * 10 + (size_t)d->nshape * (nk + 1), sizeof *cells);
    if (!cells) return hr_fail("out of memory");
    const char *head[64] = {"shape"};
    for (int k = 0; k < nk; k++) head[k + 1] = d->kern[k];
    for (int s = 0; s < d->nshape; s++) {
        snprintf(cells[s * (nk + 1)], 400, "%s", d->shape[s]);
        for (int k = 0; k < nk; k++) fmt_cell(cell(d, d->shape[s], d->kern[k]), cells[s * (nk + 1) + k + 1], 400);
    }
    heading(f, m, 2, "GFLOP/s (% of roof) by shape and kernel");
    table(f, m, head, nk + 1, cells, d->nshape);
    if (d->lv_measured || d->lv_topology) {
        char lv[240];
        snprintf(lv, sizeof lv, "Cache levels behind bound_level: %d row%s measured off the bandwidth curve, %d taken "
                 "from the topology (a ceilings file without the curve).", d->lv_measured,
                 d->lv_measured == 1 ? "" : "s", d->lv_topology);
        para(f, m, lv);
    }

    static const char *const rhead[] = {"name",      "kernel",   "threads",         "median ms", "GFLOP/s",
                                        "% of roof", "bound by", "% of attainable", "CPU/real",  "CV %"};
    for (int i = 0; i < d->n; i++) {
        const srow *r = &d->r[i];
        char(*c)[400] = &cells[i * 10];
        snprintf(c[0], 400, "%s", r->name);
        snprintf(c[1], 400, "%s", r->kernel);
        snprintf(c[2], 400, "%d", r->threads);
        fmt_num(r->ms, "%.4g", c[3], 400);
        fmt_num(r->gflops, "%.4g", c[4], 400);
        fmt_num(r->pct, "%.1f", c[5], 400);
        snprintf(c[6], 400, "%s", r->bound_by[0] ? r->bound_by : "-");
        fmt_num(r->pct_att, "%.1f", c[7], 400);
        fmt_num(r->cpu_ratio, "%.2f", c[8], 400);
        fmt_num(r->cv * 100, "%.1f", c[9], 400);
    }
    heading(f, m, 2, "Every row");
    para(f, m, "CPU/real: process CPU time over wall time of the timed calls; below the thread count when "
               "the threads did not all run (steal, oversubscription, waiting). % of attainable: of the least "
               "of the path's matmul roof, its softmax ceiling x 4d and its level's bandwidth x AI (bound by).");
    table(f, m, rhead, 10, cells, d->n);

    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(d->doc, "context"), *x;
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(ctx, "warnings");
    if (cJSON_GetArraySize(w) > 0) {
        heading(f, m, 2, "Warnings");
        if (m == HTML) fputs("<ul>\n", f);
        cJSON_ArrayForEach(x, w) if (cJSON_IsString(x))
        {
            fputs(m == MD ? "- " : "<li>", f);
            put(f, m, x->valuestring);
            fputs(m == MD ? "\n" : "</li>\n", f);
        }
        fputs(m == MD ? "\n" : "</ul>\n", f);
    }
    const cJSON *sk = cJSON_GetObjectItemCaseSensitive(d->doc, "skipped");
    const int nsk = cJSON_GetArraySize(sk);
    if (nsk > 0) {
        char(*sc)[400] = calloc((size_t)nsk * 2, sizeof *sc);
        if (!sc) {
            free(cells);
            return hr_fail("out of memory");
        }
        int i = 0;
        cJSON_ArrayForEach(x, sk)
        {
            snprintf(sc[2 * i], 400, "%s", hr_json_str(x, "name", ""));
            snprintf(sc[2 * i + 1], 400, "%s", hr_json_str(x, "reason", ""));
            i++;
        }
        static const char *const shead[] = {"point not measured", "why"};
        heading(f, m, 2, "Skipped");
        table(f, m, shead, 2, sc, nsk);
        free(sc);
    }
    free(cells);
    return HR_OK;
}

/* ---- charts ------------------------------------------------------------------------------- */

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A binary file (a PNG) whole, at most 32 MiB; NULL when it cannot be read. */
static unsigned char *read_bin(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *b = NULL;
    if (!fseek(f, 0, SEEK_END)) {
        const long n = ftell(f);
        if (n > 0 && n < (32L << 20) && !fseek(f, 0, SEEK_SET) && (b = malloc((size_t)n)) &&
            fread(b, 1, (size_t)n, f) != (size_t)n) {
            free(b);
            b = NULL;
        }
        *len = (size_t)n;
    }
    fclose(f);
    return b;
}

static void base64(FILE *f, const unsigned char *b, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        const unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        fputc(t[v >> 18 & 63], f), fputc(t[v >> 12 & 63], f);
        fputc(i + 1 < n ? t[v >> 6 & 63] : '=', f), fputc(i + 2 < n ? t[v & 63] : '=', f);
    }
}

/* Every chart of dir, by name: NAME.svg inline, else NAME.png as a data URI. */
static void charts(FILE *f, const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) && n < 256) {
        const size_t l = strlen(e->d_name);
        if (l > 4 && (!strcmp(e->d_name + l - 4, ".svg") || !strcmp(e->d_name + l - 4, ".png")) &&
            (names[n] = strndup(e->d_name, l - 4))) {
            for (int i = 0; i < n; i++)
                if (!strcmp(names[i], names[n])) { /* NAME.svg and NAME.png: one chart */
                    free(names[n--]);
                    break;
                }
            n++;
        }
    }
    closedir(dp);
    qsort(names, (size_t)n, sizeof *names, by_name);
    if (n) fputs("<h2>Charts</h2>\n", f);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 300];
        fputs("<figure>", f);
        snprintf(path, sizeof path, "%s/%s.svg", dir, names[i]);
        char *svg = hr_read_file(path, HR_CAP_SMALL, "chart", NULL);
        const char *start = svg ? strstr(svg, "<svg") : NULL;
        size_t len = 0;
        unsigned char *png = NULL;
        if (start) {
            fputs(start, f);
        } else {
            snprintf(path, sizeof path, "%s/%s.png", dir, names[i]);
            if ((png = read_bin(path, &len))) {
                fputs("<img alt=\"", f), hr_html_put(f, names[i]), fputs("\" src=\"data:image/png;base64,", f);
                base64(f, png, len);
                fputs("\">", f);
            }
        }
        fputs("<figcaption>", f), hr_html_put(f, names[i]), fputs("</figcaption></figure>\n", f);
        free(svg);
        free(png);
        free(names[i]);
    }
}

/* index.html: the results set as a page of the site's template (site.c), every asset inline
 * (Chart.js where it is installed) and the gnuplot charts of plots_dir inline after it. */
static int html_page(FILE *f, const char *dir, const char *plots_dir, const char *title, const char *desc)
{
    hr_site s;
    const char *paths[1] = {dir};
    int st = hr_site_load(&s, paths, 1);
    if (st) return st;
    cJSON *data = hr_site_run_data(&s.runs[0], NULL, NULL), *nav = cJSON_CreateArray();
    if (*desc) hr_site_fact(data, "config", desc);
    char *extra = NULL, *chartjs = hr_site_chartjs();
    size_t len = 0;
    FILE *x = open_memstream(&extra, &len);
    if (x) charts(x, plots_dir), fclose(x);
    st = hr_site_page(f, title, data, nav, chartjs, true, extra);
    free(extra);
    free(chartjs);
    cJSON_Delete(data);
    cJSON_Delete(nav);
    hr_site_free(&s);
    return st;
}

/* ---- the files ---------------------------------------------------------------------------- */

static int write_file(const char *dir, const char *name, char *text, int st)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!st) st = hr_write_atomic(path, text ? text : "");
    free(text);
    return st;
}

int hr_summary_write(const char *dir, const char *plots_dir, FILE *tbl)
{
    char path[PATH_MAX + 64], plots[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/results.json", dir);
    snprintf(plots, sizeof plots, "%s/plots", dir);
    sdata d;
    int st = load(path, &d);
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(d.doc, "context");
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(d.doc, "sweep");
    char title[512];
    snprintf(title, sizeof title, "headroom: %s — %s", *hr_json_str(sw, "config", "") ? hr_json_str(sw, "config", "") : "results",
             hr_json_str(ctx, "machine", ""));
    for (int m = MD; m <= HTML && !st; m++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f) {
            st = hr_fail("out of memory");
            break;
        }
        if (m == HTML) {
            st = html_page(f, dir, plots_dir ? plots_dir : plots, title, hr_json_str(sw, "description", ""));
            fclose(f);
            st = write_file(dir, "index.html", text, st);
            continue;
        }
        heading(f, (fmt)m, 1, title);
        const char *desc = hr_json_str(sw, "description", "");
        if (*desc) para(f, (fmt)m, desc);
        context_line(f, (fmt)m, ctx);
        fputs("\n\n", f);
        st = body(f, (fmt)m, &d);
        fclose(f);
        st = write_file(dir, m == MD ? "summary.md" : "index.html", text, st);
    }
    if (!st && tbl) text_table(&d, tbl, dir);
    cJSON_Delete(d.doc);
    free(d.r);
    return st;
}

/* site.c — headroom site: the page template (one for the site and a sweep's index.html), the
 * pages of a results set, a machine and the overview, and the output written whole or not at all. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "headroom.h"
#include "site.h"

/* ---- the template ------------------------------------------------------------------------- */

/* JSON inside <script>: every '<' as \u003c, so no "</script>" or "<!--" ends or opens anything. */
static int put_json(FILE *f, const cJSON *doc)
{
    char *t = hr_json_text(doc, 0);
    if (!t) return hr_fail("out of memory");
    for (const char *p = t; *p; p++)
        if (*p == '<') fputs("\\u003c", f);
        else fputc(*p, f);
    free(t);
    return HR_OK;
}

int hr_site_page(FILE *f, const char *title, const cJSON *data, const cJSON *nav, const char *chartjs_text,
                 bool inline_assets, const char *extra_html)
{
    fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    hr_html_put(f, title);
    fputs(" — headroom</title>\n", f);
    if (inline_assets) fprintf(f, "<style>\n%s</style>\n", hr_site_css);
    else fputs("<link rel=\"stylesheet\" href=\"assets/site.css\">\n", f);
    fputs("</head>\n<body>\n<header><nav><span class=\"brand\">headroom</span>", f);
    const cJSON *l;
    cJSON_ArrayForEach(l, nav)
    {
        fputs("<a href=\"", f);
        hr_html_put(f, cJSON_GetArrayItem(l, 1)->valuestring);
        fputs("\">", f);
        hr_html_put(f, cJSON_GetArrayItem(l, 0)->valuestring);
        fputs("</a>", f);
    }
    fputs("</nav><button id=\"theme\" type=\"button\" aria-label=\"light or dark theme\">&#9680; theme</button></header>\n"
          "<main>\n<h1>",
          f);
    hr_html_put(f, title);
    fputs("</h1>\n<pre id=\"hr-errors\" hidden></pre>\n<noscript>This page draws its tables and charts with JavaScript.</noscript>\n"
          "<div id=\"app\"></div>\n",
          f);
    if (extra_html) fputs(extra_html, f);
    fputs("</main>\n<script type=\"application/json\" id=\"hr-data\">", f);
    if (put_json(f, data)) return HR_EUSAGE;
    fputs("</script>\n", f);
    if (chartjs_text) {
        if (inline_assets) fprintf(f, "<script>\n%s\n</script>\n", chartjs_text);
        else fputs("<script src=\"assets/chart.min.js\"></script>\n", f);
    }
    if (inline_assets) fprintf(f, "<script>\n%s</script>\n", hr_site_js);
    else fputs("<script src=\"assets/site.js\"></script>\n", f);
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? hr_fail("cannot write the page '%s'", title) : HR_OK;
}

/* ---- page data helpers (site_int.h) ------------------------------------------------------- */

void hr_site_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

cJSON *hr_site_col(cJSON *cols, const char *key, const char *label, int num, int digits)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "key", key);
    cJSON_AddStringToObject(c, "label", label);
    if (num) cJSON_AddTrueToObject(c, "num");
    if (digits >= 0) cJSON_AddNumberToObject(c, "digits", digits);
    cJSON_AddItemToArray(cols, c);
    return c;
}

void hr_site_cols(cJSON *cols, const hr_site_colspec *spec, int n)
{
    for (int i = 0; i < n; i++) hr_site_col(cols, spec[i].key, spec[i].label, spec[i].num, spec[i].digits);
}

/* An entry of data's list (tables, charts) with its id, title and source. */
static cJSON *list_entry(cJSON *data, const char *list, const char *id, const char *title, const char *src)
{
    cJSON *a = cJSON_GetObjectItemCaseSensitive(data, list);
    if (!a) a = cJSON_AddArrayToObject(data, list);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "id", id);
    cJSON_AddStringToObject(e, "title", title);
    cJSON_AddStringToObject(e, "src", src);
    cJSON_AddItemToArray(a, e);
    return e;
}

cJSON *hr_site_table(cJSON *data, const char *id, const char *title, const char *src)
{
    return cJSON_AddArrayToObject(list_entry(data, "tables", id, title, src), "cols");
}

cJSON *hr_site_chart(cJSON *data, const char *id, const char *title, const char *src, const char *x, const char *y,
                     const char *group, int logs, const char *table)
{
    cJSON *c = list_entry(data, "charts", id, title, src);
    cJSON_AddStringToObject(c, "x", x);
    cJSON_AddStringToObject(c, "y", y);
    if (group) cJSON_AddStringToObject(c, "group", group);
    if (logs & 1) cJSON_AddTrueToObject(c, "xlog");
    if (logs & 2) cJSON_AddTrueToObject(c, "ylog");
    if (table) cJSON_AddStringToObject(c, "table", table);
    return c;
}

void hr_site_fact(cJSON *data, const char *k, const char *v)
{
    cJSON *fs = cJSON_GetObjectItemCaseSensitive(data, "facts");
    if (!fs) fs = cJSON_AddArrayToObject(data, "facts");
    const char *kv[2] = {k, v};
    cJSON_AddItemToArray(fs, cJSON_CreateStringArray(kv, 2));
}

void hr_site_tip(cJSON *chart, const char *const *tips, int n)
{
    cJSON *a = cJSON_AddArrayToObject(chart, "tip");
    for (int i = 0; i < n; i++) {
        const char *t[3] = {tips[3 * i], tips[3 * i + 1], tips[3 * i + 2]};
        cJSON_AddItemToArray(a, cJSON_CreateStringArray(t, 3));
    }
}

/* The roof of rows: peak = the largest ceiling; bandwidth = roof / AI where a row's roof is below its ceiling. */
void hr_site_ceilings(const hr_site_row *rows, int n, double *peak, double *bw)
{
    *peak = NAN, *bw = NAN;
    for (int i = 0; i < n; i++) {
        const hr_site_row *r = &rows[i];
        if (isfinite(r->ceiling) && !(*peak >= r->ceiling)) *peak = r->ceiling;
        if (isfinite(r->roof) && r->ai > 0 && isfinite(r->ceiling) && r->roof < 0.999 * r->ceiling && !(*bw >= r->roof / r->ai))
            *bw = r->roof / r->ai;
    }
}

/* The rows of a results set as page data: src "rows", the rows table and the roofline (with
 * the line min(peak, AI x bandwidth) where the rows give it). */
void hr_site_rows(cJSON *data, const hr_site_row *rows, int n, const char *key, const char *title)
{
    cJSON *a = cJSON_AddArrayToObject(data, key);
    int kv = 0;
    for (int i = 0; i < n; i++) {
        const hr_site_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kernel", r->kernel);
        cJSON_AddStringToObject(o, "shape", r->shape);
        cJSON_AddNumberToObject(o, "threads", r->threads);
        cJSON_AddNumberToObject(o, "n", r->seq_kv);
        hr_site_num(o, "gflops", r->gflops);
        hr_site_num(o, "ms", r->ms);
        hr_site_num(o, "ai", r->ai);
        hr_site_num(o, "roof", r->roof);
        hr_site_num(o, "pct", r->pct);
        cJSON_AddStringToObject(o, "bound", r->bound);
        cJSON_AddStringToObject(o, "peer", r->peer);
        if (r->seq_q == 1) { /* a decode step: the KV story's fields */
            char g[96];
            snprintf(g, sizeof g, "%s kv %s", r->kernel, r->kv_dtype);
            cJSON_AddStringToObject(o, "kv", g);
            hr_site_num(o, "kv_ms", r->ms);
            hr_site_num(o, "kv_mb", r->bytes > 0 ? r->bytes / 1e6 : NAN);
            hr_site_num(o, "tok_s", r->ms > 0 ? 1e3 / r->ms : NAN);
            kv++;
        }
        cJSON_AddStringToObject(o, "name", r->name);
        cJSON_AddItemToArray(a, o);
    }
    cJSON *cols = hr_site_table(data, key, title, key);
    hr_site_col(cols, "kernel", "kernel", 0, -1);
    hr_site_col(cols, "shape", "shape", 0, -1);
    hr_site_col(cols, "threads", "threads", 1, 0);
    hr_site_col(cols, "gflops", "GFLOP/s", 1, -1);
    hr_site_col(cols, "pct", "% of roof", 1, 1);
    hr_site_col(cols, "roof", "roof GFLOP/s", 1, -1);
    hr_site_col(cols, "ai", "FLOP/byte", 1, -1);
    hr_site_col(cols, "ms", "ms", 1, 3);
    hr_site_col(cols, "bound", "bound", 0, -1);
    hr_site_col(cols, "peer", "peer library", 0, -1);
    static const char *const tips[] = {"", "kernel", "", "", "shape", "", "", "gflops", " GFLOP/s", "", "pct", "% of roof"};
    char id[96];
    snprintf(id, sizeof id, "%s-roofline", key);
    cJSON *c = hr_site_chart(data, id, "roofline: GFLOP/s against arithmetic intensity (click a point: its row)", key,
                             "ai", "gflops", "kernel", 3, key);
    cJSON_AddStringToObject(c, "xlabel", "FLOP per byte");
    cJSON_AddStringToObject(c, "ylabel", "GFLOP/s");
    hr_site_tip(c, tips, 4);
    double peak, bw, lo = INFINITY, hi = 0;
    hr_site_ceilings(rows, n, &peak, &bw);
    for (int i = 0; i < n; i++)
        if (rows[i].ai > 0) lo = fmin(lo, rows[i].ai), hi = fmax(hi, rows[i].ai);
    if (isfinite(peak) && hi > 0) {
        cJSON *roof = cJSON_AddArrayToObject(c, "roof");
        const double x0 = lo / 2, x1 = hi * 2;
        const double knee = isfinite(bw) ? peak / bw : NAN;
        const double xs[3] = {x0, isfinite(knee) && knee > x0 && knee < x1 ? knee : NAN, x1};
        for (int i = 0; i < 3; i++) {
            if (!isfinite(xs[i])) continue;
            cJSON *p = cJSON_CreateObject();
            cJSON_AddNumberToObject(p, "x", xs[i]);
            cJSON_AddNumberToObject(p, "y", isfinite(bw) ? fmin(peak, xs[i] * bw) : peak);
            cJSON_AddItemToArray(roof, p);
        }
    }
    snprintf(id, sizeof id, "%s-kernels", key);
    c = hr_site_chart(data, id, "GFLOP/s against sequence length, per kernel", key, "n", "gflops", "kernel", 1, key);
    cJSON_AddStringToObject(c, "xlabel", "keys (N)");
    cJSON_AddStringToObject(c, "ylabel", "GFLOP/s");
    hr_site_tip(c, tips, 4);
    if (kv) {
        static const char *const kv_tips[] = {"", "kv", "", "", "shape", "", "", "tok_s", " steps/s", "", "kv_mb", " MB a step"};
        snprintf(id, sizeof id, "%s-kv", key);
        c = hr_site_chart(data, id, "decode over a KV cache: time per step against cache length", key, "n", "kv_ms", "kv", 3,
                          key);
        cJSON_AddStringToObject(c, "xlabel", "cache length (keys)");
        cJSON_AddStringToObject(c, "ylabel", "ms per step");
        cJSON_AddTrueToObject(c, "line");
        hr_site_tip(c, kv_tips, 4);
        /* The KV story: a stored type that holds a token in fewer bytes makes a step read
         * less; against the memory roof (steps/s = bandwidth ÷ bytes), dashed. */
        snprintf(id, sizeof id, "%s-kvstory", key);
        c = hr_site_chart(data, id, "the KV story: bytes a decode step reads against steps per second", key, "kv_mb", "tok_s",
                          "kv", 3, key);
        cJSON_AddStringToObject(c, "xlabel", "MB read per generated token (K and V cache)");
        cJSON_AddStringToObject(c, "ylabel", "decode steps (tokens) per second");
        cJSON_AddTrueToObject(c, "line");
        hr_site_tip(c, kv_tips, 4);
        double blo = INFINITY, bhi = 0;
        for (int i = 0; i < n; i++)
            if (rows[i].seq_q == 1 && rows[i].bytes > 0) blo = fmin(blo, rows[i].bytes), bhi = fmax(bhi, rows[i].bytes);
        double peak_, bw_;
        hr_site_ceilings(rows, n, &peak_, &bw_);
        if (isfinite(bw_) && bhi > 0) {
            cJSON *roof = cJSON_AddArrayToObject(c, "roof");
            for (int k = 0; k < 2; k++) {
                cJSON *p = cJSON_CreateObject();
                const double x = k ? bhi * 1.5 : blo / 1.5; /* bytes */
                cJSON_AddNumberToObject(p, "x", x / 1e6);
                cJSON_AddNumberToObject(p, "y", bw_ * 1e9 / x);
                cJSON_AddItemToArray(roof, p);
            }
            char lab[64];
            snprintf(lab, sizeof lab, "memory roof %.0f GB/s", bw_);
            cJSON_AddStringToObject(c, "roof_label", lab);
            cJSON_AddStringToObject(c, "roof_unit", " steps/s");
        }
    }
}

cJSON *hr_site_run_data(const hr_site_run *r, const char *img_prefix, const char *img_dir)
{
    cJSON *d = cJSON_CreateObject();
    char buf[256];
    hr_site_fact(d, "machine", r->machine);
    snprintf(buf, sizeof buf, "%s, %s, %d threads", r->cpu, r->isa, r->threads);
    hr_site_fact(d, "cpu", buf);
    hr_site_fact(d, "commit", r->commit);
    hr_site_fact(d, "date", r->date);
    hr_site_fact(d, "results", r->path);
    double peak, bw;
    hr_site_ceilings(r->rows, r->nrows, &peak, &bw);
    if (isfinite(peak)) {
        snprintf(buf, sizeof buf, "FMA %.1f GFLOP/s%s", peak, "");
        if (isfinite(bw)) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ", memory %.1f GB/s", bw);
        hr_site_fact(d, "ceilings", buf);
    }
    hr_site_rows(d, r->rows, r->nrows, "rows", "results");
    if (img_dir) hr_site_images(d, img_dir, img_prefix, NULL);
    return d;
}

/* ---- writing the folder: a temp directory, renamed over out at the end --------------------- */

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(p);
}

static void rm_tree(const char *p) { nftw(p, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* a is b or below it (both real paths). */
static int below(const char *a, const char *b)
{
    const size_t l = strlen(b);
    return !strncmp(a, b, l) && (a[l] == '/' || a[l] == 0 || (l == 1 && b[0] == '/'));
}

int hr_site_write(const hr_site *s, const char *out, const char *chartjs)
{
    char real_out[PATH_MAX], parent[PATH_MAX], tmp[PATH_MAX + 32], old[PATH_MAX + 32];
    struct stat sb;
    const int exists = !stat(out, &sb);
    if (exists && !S_ISDIR(sb.st_mode)) return hr_fail("--out %s: exists and is not a directory", out);
    snprintf(parent, sizeof parent, "%s", out);
    size_t l = strlen(parent);
    while (l > 1 && parent[l - 1] == '/') parent[--l] = 0;
    char *sl = strrchr(parent, '/');
    const char *base = sl ? sl + 1 : parent;
    char name[NAME_MAX + 1];
    snprintf(name, sizeof name, "%s", base);
    if (sl == parent) parent[1] = 0;
    else if (sl) *sl = 0;
    else snprintf(parent, sizeof parent, ".");
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) return hr_fail("--out %s: name a directory to write", out);
    if (!realpath(parent, real_out)) return hr_fail("--out %s: its parent directory %s does not exist", out, parent);
    l = strlen(real_out);
    snprintf(real_out + l, sizeof real_out - l, "%s%s", l > 1 ? "/" : "", name);
    for (int i = 0; i < s->nruns + s->nabs + s->nxs; i++) {
        const char *dir = i < s->nruns ? s->runs[i].dir : i < s->nruns + s->nabs ? s->abs[i - s->nruns].dir
                                                                                  : s->xs[i - s->nruns - s->nabs].dir;
        if (below(real_out, dir))
            return hr_fail("--out %s: inside the results directory %s (write the site elsewhere)", out, dir);
        if (below(dir, real_out))
            return hr_fail("--out %s: holds the results %s, which writing the site would replace", out, dir);
    }
    if (exists) {
        char mark[PATH_MAX + 40];
        snprintf(mark, sizeof mark, "%s/.headroom-site", out);
        DIR *d = opendir(out);
        int entries = 0;
        for (struct dirent *e; d && (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) entries++;
        if (d) closedir(d);
        if (entries && stat(mark, &sb))
            return hr_fail("--out %s: a directory that holds other files (not a site headroom wrote); name a new one", out);
    }
    snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", real_out);
    if (!mkdtemp(tmp)) return hr_fail("--out %s: cannot make a directory beside it: %s", out, strerror(errno));
    int st = hr_site_pages(s, tmp, chartjs);
    if (!st && exists) {
        snprintf(old, sizeof old, "%s.old-XXXXXX", real_out);
        if (!mkdtemp(old) || rmdir(old) || rename(real_out, old)) st = hr_fail("--out %s: cannot move the old site aside: %s", out, strerror(errno));
    }
    if (!st && rename(tmp, real_out)) {
        st = hr_fail("--out %s: cannot rename the new site into place: %s", out, strerror(errno));
        if (exists) rename(old, real_out);
    }
    if (st) rm_tree(tmp);
    else if (exists) rm_tree(old);
    return st;
}

char *hr_site_chartjs(void)
{
    const char *p = getenv("HEADROOM_CHARTJS");
    if (!p || !*p) p = HR_SITE_CHARTJS;
    if (access(p, R_OK)) return NULL;
    return hr_read_file(p, 16u << 20, "Chart.js", NULL);
}

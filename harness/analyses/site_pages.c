/* site_pages.c — the pages of a site: the overview, one per machine and per results set, the
 * benchmarks' histories (history.c's change points), machine against machine and the peers
 * (report.c, report_peers.c). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "headroom.h"
#include "history.h"
#include "report.h"
#include "report_peers.h"
#include "site.h"

typedef struct {
    const hr_site *s;
    const char *dir;
    char *chartjs;   /* its text, NULL: tables only */
    cJSON *nav;
    int has_peers, nbench;
} ctx;

static int page(ctx *c, const char *file, const char *title, cJSON *data)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", c->dir, file);
    FILE *f = fopen(p, "w");
    int st = f ? hr_site_page(f, title, data, c->nav, c->chartjs, false, NULL) : hr_fail("%s: cannot write", p);
    if (f && fclose(f) && !st) st = hr_fail("%s: write error", p);
    cJSON_Delete(data);
    return st;
}

static int write_text(const char *dir, const char *name, const char *text)
{
    char p[8192];
    if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p) return hr_fail("%s/%s: path too long", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) return hr_fail("%s: cannot write", p);
    const int bad = fputs(text, f) < 0;
    return fclose(f) || bad ? hr_fail("%s: write error", p) : HR_OK;
}

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
    char buf[65536];
    int bad = !a || !b;
    for (size_t n; !bad && (n = fread(buf, 1, sizeof buf, a)) > 0;) bad = fwrite(buf, 1, n, b) != n;
    if (a) fclose(a);
    if (b && fclose(b)) bad = 1;
    return bad ? hr_fail("%s: cannot copy into the site", from) : HR_OK;
}

void hr_site_images(cJSON *data, const char *dir, const char *prefix, const char *copy_to)
{
    cJSON *list = cJSON_CreateArray();
    for (int sub = 0; sub < 2; sub++) {
        char d[8192];
        snprintf(d, sizeof d, "%s%s", dir, sub ? "/plots" : "");
        DIR *dd = opendir(d);
        for (struct dirent *e; dd && (e = readdir(dd));) {
            const char *x = strrchr(e->d_name, '.');
            if (e->d_name[0] == '.' || !x || (strcmp(x, ".png") && strcmp(x, ".svg"))) continue;
            char from[8400], to[8400], href[8400];
            if (snprintf(from, sizeof from, "%s/%s", d, e->d_name) >= (int)sizeof from ||
                snprintf(href, sizeof href, "%s%s%s", prefix, sub && !copy_to ? "plots/" : "", e->d_name) >= (int)sizeof href)
                continue;
            if (copy_to) {
                snprintf(to, sizeof to, "%s/%s", copy_to, e->d_name);
                if (hr_mkdirs(copy_to) || copy_file(from, to)) continue;
            }
            const char *pair[2] = {e->d_name, href};
            cJSON_AddItemToArray(list, cJSON_CreateStringArray(pair, 2));
        }
        if (dd) closedir(dd);
    }
    if (!cJSON_GetArraySize(list)) {
        cJSON_Delete(list);
        return;
    }
    cJSON *links = cJSON_AddArrayToObject(data, "links"), *l = cJSON_CreateArray();
    cJSON_AddItemToArray(l, cJSON_CreateString("charts for print (gnuplot)"));
    cJSON_AddItemToArray(l, list);
    cJSON_AddItemToArray(links, l);
}

static void slug_of(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (; *s && o + 1 < len; s++) buf[o++] = (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ? *s : '-';
    buf[o] = 0;
}

/* The runs [*a, *b) of one machine (s->runs is ordered by machine). */
static int machine_end(const hr_site *s, int a)
{
    int b = a;
    while (b < s->nruns && !strcmp(s->runs[b].machine, s->runs[a].machine)) b++;
    return b;
}

/* ---- a results set, a machine, the overview ----------------------------------------------- */

static int run_pages(ctx *c)
{
    int st = HR_OK;
    for (int i = 0; i < c->s->nruns && !st; i++) {
        const hr_site_run *r = &c->s->runs[i];
        char prefix[300], copy[8400], title[400], file[300];
        snprintf(prefix, sizeof prefix, "r-%s/", r->slug);
        snprintf(copy, sizeof copy, "%s/r-%s", c->dir, r->slug);
        cJSON *d = hr_site_run_data(r, NULL, NULL);
        hr_site_images(d, r->dir, prefix, copy);
        snprintf(title, sizeof title, "%s · %s · %.12s", r->machine, r->config, r->commit);
        snprintf(file, sizeof file, "r-%s.html", r->slug);
        st = page(c, file, title, d);
    }
    return st;
}

static void add_str(cJSON *o, const char *k, const char *v) { cJSON_AddStringToObject(o, k, v); }

/* A commit in a table: its first 12 characters, as git's short form (the whole hash is
 * on the results set's page), so tables of 40-hex hashes keep their verdicts in view. */
static void add_commit(cJSON *o, const char *k, const char *v)
{
    char c[16];
    snprintf(c, sizeof c, "%.12s", v);
    cJSON_AddStringToObject(o, k, c);
}

static int machine_pages(ctx *c, cJSON *overview_rows, cJSON *machine_rows)
{
    const hr_site *s = c->s;
    int st = HR_OK;
    for (int a = 0, b; a < s->nruns && !st; a = b) {
        b = machine_end(s, a);
        const hr_site_run *newest = &s->runs[b - 1];
        char slug[120], file[160], title[200];
        slug_of(newest->machine, slug, sizeof slug);
        snprintf(file, sizeof file, "m-%s.html", slug);
        cJSON *d = cJSON_CreateObject();
        hr_site_fact(d, "cpu", newest->cpu);
        hr_site_fact(d, "isa", newest->isa);
        char newest_commit[16];
        snprintf(newest_commit, sizeof newest_commit, "%.12s", newest->commit);
        hr_site_fact(d, "newest commit", newest_commit); /* the whole hash is on its set's page */
        /* the runs */
        cJSON *runs = cJSON_AddArrayToObject(d, "runs");
        int ncommit = 0, nrows = 0;
        for (int i = a; i < b; i++) {
            const hr_site_run *r = &s->runs[i];
            cJSON *o = cJSON_CreateObject();
            char href[300];
            snprintf(href, sizeof href, "r-%s.html", r->slug);
            add_commit(o, "commit", r->commit), add_str(o, "when", r->when), add_str(o, "config", r->config);
            add_str(o, "href", href);
            cJSON_AddNumberToObject(o, "rows", r->nrows);
            cJSON_AddItemToArray(runs, o);
            if (i == a || strcmp(r->commit, s->runs[i - 1].commit)) ncommit++;
            if (!strcmp(r->commit, newest->commit)) nrows += r->nrows;
        }
        cJSON *cols = hr_site_table(d, "runs", "results sets, oldest first", "runs");
        cJSON_AddStringToObject(hr_site_col(cols, "config", "results set", 0, -1), "link", "href");
        static const hr_site_colspec run_cols[] = {{"commit", "commit", 0, -1}, {"when", "commit date", 0, -1},
            {"rows", "rows", 1, 0}};
        HR_SITE_COLS(cols, run_cols);
        /* the newest commit's rows: roofline, kernels, KV */
        hr_site_row *rows = calloc((size_t)nrows + 1, sizeof *rows);
        if (!rows) st = hr_fail("out of memory");
        int k = 0;
        for (int i = a; rows && i < b; i++)
            if (!strcmp(s->runs[i].commit, newest->commit))
                memcpy(rows + k, s->runs[i].rows, (size_t)s->runs[i].nrows * sizeof *rows), k += s->runs[i].nrows;
        double peak, bw;
        hr_site_ceilings(rows, k, &peak, &bw);
        char buf[160];
        snprintf(buf, sizeof buf, "FMA %.1f GFLOP/s", peak);
        if (isfinite(bw)) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ", memory %.1f GB/s", bw);
        if (isfinite(peak)) hr_site_fact(d, "ceilings", buf);
        hr_site_rows(d, rows, k, "rows", "the newest commit's results");
        hr_site_cross_data(d, s, newest->machine);
        /* the overview's rows: per kernel, its best GFLOP/s and median % of roof at the newest commit */
        for (int i = 0; i < k; i++) {
            int seen = 0;
            for (int j = 0; j < i; j++) seen |= !strcmp(rows[j].kernel, rows[i].kernel);
            if (seen) continue;
            double best = NAN, pcts[4096];
            int np = 0, nshape = 0;
            char bound[200] = "";
            for (int j = i; j < k; j++) {
                if (strcmp(rows[j].kernel, rows[i].kernel)) continue;
                nshape++;
                if (isfinite(rows[j].gflops) && !(best >= rows[j].gflops)) best = rows[j].gflops;
                if (isfinite(rows[j].pct) && np < 4096) pcts[np++] = rows[j].pct;
            }
            for (int j = i; j < k; j++) { /* "fma 3, dram 2": each bound with its shapes, first seen first */
                if (strcmp(rows[j].kernel, rows[i].kernel) || !*rows[j].bound) continue;
                int dup = 0, cnt = 0;
                for (int q = i; q < j; q++) dup |= !strcmp(rows[q].kernel, rows[i].kernel) && !strcmp(rows[q].bound, rows[j].bound);
                if (dup) continue;
                for (int q = j; q < k; q++) cnt += !strcmp(rows[q].kernel, rows[i].kernel) && !strcmp(rows[q].bound, rows[j].bound);
                const size_t bl = strlen(bound);
                snprintf(bound + bl, sizeof bound - bl, "%s%s %d", bl ? ", " : "", rows[j].bound, cnt);
            }
            for (int x = 1; x < np; x++)
                for (int y = x; y > 0 && pcts[y - 1] > pcts[y]; y--) {
                    const double t = pcts[y];
                    pcts[y] = pcts[y - 1], pcts[y - 1] = t;
                }
            cJSON *o = cJSON_CreateObject();
            add_str(o, "machine", newest->machine), add_str(o, "href", file), add_str(o, "kernel", rows[i].kernel);
            cJSON_AddNumberToObject(o, "shapes", nshape);
            hr_site_num(o, "best", best);
            hr_site_num(o, "pct", np ? (np % 2 ? pcts[np / 2] : 0.5 * (pcts[np / 2 - 1] + pcts[np / 2])) : NAN);
            add_str(o, "bound", bound);
            cJSON_AddItemToArray(overview_rows, o);
        }
        free(rows);
        cJSON *m = cJSON_CreateObject();
        add_str(m, "machine", newest->machine), add_str(m, "href", file), add_str(m, "cpu", newest->cpu);
        add_str(m, "isa", newest->isa), add_commit(m, "newest", newest->commit), add_str(m, "when", newest->when);
        cJSON_AddNumberToObject(m, "runs", b - a);
        cJSON_AddNumberToObject(m, "commits", ncommit);
        hr_site_num(m, "peak", peak);
        hr_site_num(m, "bw", bw);
        cJSON_AddItemToArray(machine_rows, m);
        snprintf(title, sizeof title, "machine %s", newest->machine);
        if (!st) st = page(c, file, title, d);
        else cJSON_Delete(d);
    }
    return st;
}

static int overview(ctx *c)
{
    cJSON *d = cJSON_CreateObject();
    cJSON *rows = cJSON_AddArrayToObject(d, "kernels"), *ms = cJSON_AddArrayToObject(d, "machines");
    int st = machine_pages(c, rows, ms);
    char buf[120];
    snprintf(buf, sizeof buf, "%d results sets, %d machines", c->s->nruns, cJSON_GetArraySize(ms));
    hr_site_fact(d, "over", buf);
    if (!c->chartjs) hr_site_fact(d, "charts", "none: Chart.js was not found when the site was built (tables only)");
    cJSON *cols = hr_site_table(d, "machines", "machines", "machines");
    cJSON_AddStringToObject(hr_site_col(cols, "machine", "machine", 0, -1), "link", "href");
    static const hr_site_colspec machine_cols[] = {{"cpu", "cpu", 0, -1}, {"isa", "isa", 0, -1},
        {"peak", "FMA peak GFLOP/s", 1, 1}, {"bw", "memory GB/s", 1, 1}, {"runs", "results sets", 1, 0},
        {"commits", "commits", 1, 0}, {"newest", "newest commit", 0, -1}};
    HR_SITE_COLS(cols, machine_cols);
    cols = hr_site_table(d, "kernels", "machines × kernels at each machine's newest commit", "kernels");
    cJSON_AddStringToObject(hr_site_col(cols, "machine", "machine", 0, -1), "link", "href");
    static const hr_site_colspec kernel_cols[] = {{"kernel", "kernel", 0, -1}, {"shapes", "shapes", 1, 0},
        {"best", "best GFLOP/s", 1, -1}, {"pct", "median % of roof", 1, 1}, {"bound", "bound by", 0, -1}};
    HR_SITE_COLS(cols, kernel_cols);
    if (!st) st = page(c, "index.html", "results overview", d);
    else cJSON_Delete(d);
    return st;
}

/* ---- the benchmarks' histories ------------------------------------------------------------ */

static int bench_pages(ctx *c)
{
    const hr_site *s = c->s;
    cJSON *by = cJSON_CreateObject(); /* name -> array of points */
    int st = HR_OK;
    for (int a = 0, b; a < s->nruns && !st; a = b) {
        b = machine_end(s, a);
        if (b - a < 2) { /* one run: history has nothing to judge; a page that says so, with its value */
            const hr_site_run *r = &s->runs[a];
            for (int i = 0; i < r->nrows; i++) {
                const hr_site_row *w = &r->rows[i];
                cJSON *pts = cJSON_GetObjectItemCaseSensitive(by, w->name);
                if (!pts) pts = cJSON_AddArrayToObject(by, w->name);
                cJSON *o2 = cJSON_CreateObject();
                add_str(o2, "machine", r->machine), add_commit(o2, "commit", r->commit), add_str(o2, "when", r->when);
                cJSON_AddNumberToObject(o2, "run", 1);
                hr_site_num(o2, "gflops", w->gflops);
                hr_site_num(o2, "ms", w->ms);
                hr_site_num(o2, "pct", w->pct);
                add_str(o2, "verdict", "one run");
                cJSON_AddItemToArray(pts, o2);
            }
            continue;
        }
        const char **paths = malloc((size_t)(b - a) * sizeof *paths);
        if (!paths) return hr_fail("out of memory");
        for (int i = a; i < b; i++) paths[i - a] = s->runs[i].path;
        hr_hist_opts o = {.k = 3, .threshold_pct = 5, .alpha = 0.05, .window = 8, .mix = true};
        hr_history h;
        st = hr_history_load(paths, b - a, &o, &h);
        free(paths);
        if (st) break;
        for (int i = 0; i < h.nseries; i++) {
            const hr_hist_series *se = &h.series[i];
            cJSON *pts = cJSON_GetObjectItemCaseSensitive(by, se->name);
            if (!pts) pts = cJSON_AddArrayToObject(by, se->name);
            for (int j = 0; j < se->npts; j++) {
                const hr_hist_point *p = &se->pts[j];
                const hr_hist_run *r = &h.runs[p->run];
                cJSON *o2 = cJSON_CreateObject();
                add_str(o2, "machine", r->machine), add_commit(o2, "commit", r->commit), add_str(o2, "when", r->when);
                cJSON_AddNumberToObject(o2, "run", p->run + 1);
                hr_site_num(o2, "gflops", p->gflops);
                hr_site_num(o2, "ms", p->median / 1e6);
                hr_site_num(o2, "spread", 100 * p->spread);
                hr_site_num(o2, "pct", 100 * p->frac_roof);
                hr_site_num(o2, "change", p->judged ? p->change_pct : NAN);
                hr_site_num(o2, "p", p->test.method != HR_MWU_NONE ? p->test.p : NAN);
                add_str(o2, "verdict", !p->judged ? "first run" : p->flag > 0 ? "slower" : p->flag < 0 ? "faster" : "no change");
                if (p->flag) add_str(o2, "verdict_class", p->flag > 0 ? "slower" : "faster"), cJSON_AddTrueToObject(o2, "flag");
                cJSON_AddItemToArray(pts, o2);
            }
        }
        hr_history_free(&h);
    }
    for (int i = 0; i < s->nabs; i++) /* a benchmark only an A/B measured has its page too */
        for (int j = 0; j < s->abs[i].nrows; j++)
            if (!cJSON_GetObjectItemCaseSensitive(by, s->abs[i].rows[j].name)) cJSON_AddArrayToObject(by, s->abs[i].rows[j].name);
    cJSON *list = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(list, "benchmarks");
    int n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, by)
    {
        if (st) break;
        char file[64];
        snprintf(file, sizeof file, "b-%d.html", ++n);
        cJSON *d = cJSON_CreateObject();
        int slower = 0, faster = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, e) slower += !strcmp(hr_json_str(p, "verdict", ""), "slower"),
            faster += !strcmp(hr_json_str(p, "verdict", ""), "faster");
        cJSON_AddItemToObject(d, "points", cJSON_Duplicate(e, 1));
        cJSON *cols = hr_site_table(d, "points", "runs, oldest first per machine (history: change points and verdicts)", "points");
        static const hr_site_colspec point_cols[] = {{"machine", "machine", 0, -1}, {"run", "run", 1, 0},
            {"commit", "commit", 0, -1}, {"when", "date", 0, -1}, {"gflops", "GFLOP/s", 1, -1},
            {"ms", "median ms", 1, 3}, {"spread", "spread %", 1, 1}, {"pct", "% of roof", 1, 1},
            {"change", "change %", 1, 1}, {"p", "p", 1, 3}, {"verdict", "verdict", 0, -1}};
        HR_SITE_COLS(cols, point_cols);
        static const char *const tips[] = {"", "commit", "", "", "gflops", " GFLOP/s", "", "verdict", ""};
        cJSON *ch = hr_site_chart(d, "history", "GFLOP/s per run, per machine (triangles: change points)", "points", "run",
                                  "gflops", "machine", 0, "points");
        cJSON_AddTrueToObject(ch, "line");
        cJSON_AddTrueToObject(ch, "xint");
        cJSON_AddStringToObject(ch, "xlabel", "run (ordered by commit date)");
        cJSON_AddStringToObject(ch, "ylabel", "GFLOP/s");
        hr_site_tip(ch, tips, 3);
        const int nab = hr_site_ab_data(d, s, e->string);
        cJSON *o = cJSON_CreateObject();
        add_str(o, "name", e->string), add_str(o, "href", file);
        if (nab) add_str(o, "ab", hr_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "ab"), nab - 1), "verdict", ""));
        cJSON_AddNumberToObject(o, "runs", cJSON_GetArraySize(e));
        cJSON_AddNumberToObject(o, "slower", slower);
        cJSON_AddNumberToObject(o, "faster", faster);
        if (slower) add_str(o, "slower_class", "slower");
        cJSON_AddItemToArray(rows, o);
        st = page(c, file, e->string, d);
    }
    cJSON_Delete(by);
    cJSON *cols = hr_site_table(list, "benchmarks", "benchmarks: their runs on every machine (one run: its value, nothing judged)", "benchmarks");
    cJSON_AddStringToObject(hr_site_col(cols, "name", "benchmark", 0, -1), "link", "href");
    static const hr_site_colspec bench_cols[] = {{"runs", "runs", 1, 0}, {"slower", "slower change points", 1, 0},
        {"faster", "faster change points", 1, 0}, {"ab", "headroom ab", 0, -1}};
    HR_SITE_COLS(cols, bench_cols);
    c->nbench = n;
    if (!st) st = page(c, "benchmarks.html", "benchmarks across commits", list);
    else cJSON_Delete(list);
    return st;
}

static void nav_add(cJSON *nav, const char *label, const char *href)
{
    const char *pair[2] = {label, href};
    cJSON_AddItemToArray(nav, cJSON_CreateStringArray(pair, 2));
}

/* ---- machine against machine, and the peers (the newest results set of each machine) ------- */

static int compare_pages(ctx *c)
{
    const hr_site *s = c->s;
    hr_report r = {0};
    int st = HR_OK, nm = 0;
    for (int a = 0, b; a < s->nruns && !st && nm < HR_REPORT_MAX_MACHINES; a = b, nm++)
        b = machine_end(s, a), st = hr_report_add(&r, s->runs[b - 1].path);
    cJSON *d = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(d, "cells");
    cJSON *cols = hr_site_table(d, "cells", "GFLOP/s per shape and kernel, each machine's newest results set", "cells");
    hr_site_col(cols, "shape", "shape", 0, -1);
    hr_site_col(cols, "kernel", "kernel", 0, -1);
    for (int m = 0; m < r.nmachines; m++) {
        char key[16];
        snprintf(key, sizeof key, "m%d", m);
        hr_site_col(cols, key, r.machines[m].label, 1, -1);
        char head[200];
        snprintf(head, sizeof head, "÷ %s", r.machines[0].label);
        if (m) snprintf(key, sizeof key, "x%d", m), hr_site_col(cols, key, head, 1, 2);
    }
    cJSON *bars = cJSON_AddArrayToObject(d, "best");
    for (int si = 0; !st && si < r.nshapes; si++) {
        const char *names[64];
        char shape[200];
        hr_report_shape_str(&r.shapes[si], shape, sizeof shape);
        const int nk = hr_report_kernels(&r, si, names, 64);
        for (int k = 0; k < nk; k++) {
            cJSON *o = cJSON_CreateObject();
            add_str(o, "shape", shape), add_str(o, "kernel", names[k]);
            for (int m = 0; m < r.nmachines; m++) {
                const hr_report_cell *cell = hr_report_pick(&r, si, m, names[k]);
                char key[16];
                snprintf(key, sizeof key, "m%d", m);
                hr_site_num(o, key, cell ? cell->gflops : NAN);
                const hr_report_cell *c0 = hr_report_pick(&r, si, 0, names[k]);
                if (m) snprintf(key, sizeof key, "x%d", m), hr_site_num(o, key, cell && c0 ? cell->gflops / c0->gflops : NAN);
            }
            cJSON_AddItemToArray(rows, o);
        }
        for (int m = 0; m < r.nmachines; m++) {
            double best = NAN;
            for (int k = 0; k < nk; k++) {
                const hr_report_cell *cell = hr_report_pick(&r, si, m, names[k]);
                if (cell && !(best >= cell->gflops)) best = cell->gflops;
            }
            cJSON *o = cJSON_CreateObject();
            add_str(o, "machine", r.machines[m].label), add_str(o, "shape", shape);
            cJSON_AddNumberToObject(o, "shape_no", si + 1);
            hr_site_num(o, "gflops", best);
            cJSON_AddItemToArray(bars, o);
        }
    }
    static const char *const tips[] = {"", "machine", "", "", "shape", "", "", "gflops", " GFLOP/s"};
    cJSON *ch = hr_site_chart(d, "best", "the best kernel's GFLOP/s per shape, per machine", "best", "shape_no", "gflops",
                              "machine", 2, NULL);
    cJSON_AddTrueToObject(ch, "xint");
    cJSON_AddTrueToObject(ch, "dodge");
    cJSON_AddStringToObject(ch, "xlabel", "shape (numbered in the order of the table)");
    cJSON_AddStringToObject(ch, "ylabel", "GFLOP/s");
    hr_site_tip(ch, tips, 3);
    /* the peers page goes into the navigation of every page, this one included */
    if (!st && (c->has_peers = hr_report_has_peers(&r))) nav_add(c->nav, "peers", "peers.html");
    if (!st) st = page(c, "compare.html", "machine against machine", d);
    else cJSON_Delete(d);
    if (!st && c->has_peers) {
        cJSON *p = cJSON_CreateObject(), *prow = cJSON_AddArrayToObject(p, "peers");
        for (int i = 0; i < r.ncells; i++) {
            const hr_report_cell *x = &r.cells[i];
            if (!x->peer[0]) continue;
            const hr_report_cell *best = hr_report_best_builtin(&r, x->shape, x->machine, x->threads);
            char shape[200];
            hr_report_shape_str(&r.shapes[x->shape], shape, sizeof shape);
            cJSON *o = cJSON_CreateObject();
            add_str(o, "machine", r.machines[x->machine].label), add_str(o, "shape", shape), add_str(o, "kernel", x->kernel);
            add_str(o, "library", x->peer);
            cJSON_AddNumberToObject(o, "threads", x->threads);
            hr_site_num(o, "gflops", x->gflops);
            add_str(o, "builtin", best ? best->kernel : "");
            hr_site_num(o, "builtin_gflops", best ? best->gflops : NAN);
            hr_site_num(o, "ratio", best ? x->gflops / best->gflops : NAN);
            cJSON_AddItemToArray(prow, o);
        }
        cols = hr_site_table(p, "peers", "peer libraries against headroom's best built-in kernel", "peers");
        static const hr_site_colspec peer_cols[] = {{"machine", "machine", 0, -1}, {"shape", "shape", 0, -1},
            {"kernel", "peer kernel", 0, -1}, {"library", "library", 0, -1}, {"threads", "threads", 1, 0},
            {"gflops", "GFLOP/s", 1, -1}, {"builtin", "best built-in", 0, -1},
            {"builtin_gflops", "its GFLOP/s", 1, -1}, {"ratio", "peer ÷ built-in", 1, 2}};
        HR_SITE_COLS(cols, peer_cols);
        st = page(c, "peers.html", "peers", p);
    }
    hr_report_free(&r);
    return st;
}

int hr_site_pages(const hr_site *s, const char *dir, const char *chartjs)
{
    ctx c = {.s = s, .dir = dir, .nav = cJSON_CreateArray()};
    char assets[8192];
    snprintf(assets, sizeof assets, "%s/assets", dir);
    int st = hr_mkdirs(assets);
    if (!st && chartjs && !(c.chartjs = hr_read_file(chartjs, 16u << 20, "Chart.js", NULL))) st = HR_EUSAGE;
    /* The machines and the pages that exist go into every page's navigation (peers: once
     * compare_pages has read the report, before any page is written). */
    nav_add(c.nav, "overview", "index.html");
    nav_add(c.nav, "benchmarks", "benchmarks.html");
    nav_add(c.nav, "compare", "compare.html");
    for (int a = 0, b; a < s->nruns; a = b) {
        b = machine_end(s, a);
        char slug[120], href[160];
        slug_of(s->runs[a].machine, slug, sizeof slug);
        snprintf(href, sizeof href, "m-%s.html", slug);
        nav_add(c.nav, s->runs[a].machine, href);
    }
    if (!st) st = write_text(assets, "site.css", hr_site_css);
    if (!st) st = write_text(assets, "site.js", hr_site_js);
    if (!st && c.chartjs) st = write_text(assets, "chart.min.js", c.chartjs);
    if (!st) st = write_text(dir, ".headroom-site", "written by headroom site; the whole folder is replaced by the next one\n");
    for (int i = 0; i < s->nxs; i++) { /* a crossover shows on its machine's page: say where there is none */
        int seen = 0;
        for (int j = 0; j < s->nruns && !seen; j++) seen = !strcmp(s->runs[j].machine, s->xs[i].machine);
        if (!seen)
            fprintf(stderr, "headroom site: notice: %s: no results set of machine '%s' beside it, its crossover is not shown\n",
                    s->xs[i].dir, s->xs[i].machine);
    }
    if (!st) st = compare_pages(&c);
    if (!st) st = overview(&c);
    if (!st) st = run_pages(&c);
    if (!st) st = bench_pages(&c);
    free(c.chartjs);
    cJSON_Delete(c.nav);
    return st;
}

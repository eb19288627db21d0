/* plot_data.c — the plot inputs (CSV by header name, a sweep's rows, the context block) and the series/.dat writer. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "files.h"
#include "gbread.h"
#include "headroom.h"
#include "plot_int.h"
#include "result.h"
#include "stats.h"

/* ---- CSV by header name ----------------------------------------------------------- */

/* Splits the line s in place at commas; a field may be double-quoted. */
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

void pl_csv_free(pl_csv *c)
{
    free(c->text);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

int pl_csv_load(const char *path, pl_csv *c)
{
    memset(c, 0, sizeof *c);
    struct stat sb;
    if (stat(path, &sb) && errno == ENOENT) return 0;
    if (!(c->text = hr_read_file(path, HR_CAP_RESULTS, "CSV file", NULL))) return -HR_EUSAGE;
    int cap = 0, have_head = 0;
    for (char *s = c->text, *next; *s; s = next) {
        char *nl = strchr(s, '\n');
        next = nl ? nl + 1 : s + strlen(s);
        if (nl) *nl = 0;
        if (s[strspn(s, " \t\r")] == 0) continue;
        pl_row r;
        r.n = split(s, r.f, PL_MAXF);
        if (!have_head) {
            c->head = r, have_head = 1;
            continue;
        }
        if (r.n && !strcmp(r.f[0], c->head.f[0])) continue; /* a repeated header */
        if (c->nrows == cap) {
            cap = cap ? 2 * cap : 256;
            pl_row *nr = realloc(c->rows, (size_t)cap * sizeof *nr);
            if (!nr) {
                pl_csv_free(c);
                return -hr_fail("%s: out of memory", path);
            }
            c->rows = nr;
        }
        c->rows[c->nrows++] = r;
    }
    if (!have_head || c->head.n < 2) {
        pl_csv_free(c);
        return -hr_fail("%s: no CSV header line", path);
    }
    return 1;
}

int pl_col(const pl_csv *c, const char *name)
{
    for (int i = 0; i < c->head.n; i++)
        if (!strcmp(c->head.f[i], name)) return i;
    return -1;
}

double pl_num(const pl_row *r, int i)
{
    if (i < 0 || i >= r->n || !*r->f[i]) return NAN;
    char *end;
    double v = strtod(r->f[i], &end);
    return *end ? NAN : v;
}

const char *pl_str(const pl_row *r, int i) { return i >= 0 && i < r->n ? r->f[i] : ""; }

int pl_need(const pl_csv *c, const char *path, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (pl_col(c, names[i]) < 0) return hr_fail("%s: no column '%s'", path, names[i]);
    return HR_OK;
}

/* ---- series ------------------------------------------------------------------------- */

pl_series *pl_get(pl_set *S, const char *t)
{
    for (int i = 0; i < S->n; i++)
        if (!strcmp(S->s[i].title, t)) return &S->s[i];
    if (S->n == PL_MAXS) return NULL;
    pl_series *s = &S->s[S->n++];
    memset(s, 0, sizeof *s);
    snprintf(s->title, sizeof s->title, "%s", t);
    return s;
}

void pl_add(pl_series *s, double x, double y, double z)
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

void pl_drop_last(pl_set *S)
{
    if (S->n) free(S->s[--S->n].p);
}

void pl_set_free(pl_set *S)
{
    for (int i = 0; i < S->n; i++) free(S->s[i].p);
    S->n = 0;
}

int pl_by_x_then_y(const void *a, const void *b)
{
    const double *p = a, *q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* The collapsed point keeps the z of the lower middle one. Out of memory: s is left
 * sorted, not collapsed. */
void pl_tidy(pl_series *s)
{
    qsort(s->p, (size_t)s->n, sizeof *s->p, pl_by_x_then_y);
    double *y = malloc((size_t)s->n * sizeof *y + 1);
    if (!y) return;
    int out = 0;
    for (int i = 0; i < s->n;) {
        int j = i;
        for (; j < s->n && s->p[j][0] == s->p[i][0]; j++) y[j - i] = s->p[j][1];
        memmove(s->p[out], s->p[i + (j - i - 1) / 2], sizeof *s->p);
        s->p[out][1] = hr_median(y, (size_t)(j - i));
        out++, i = j;
    }
    free(y);
    s->n = out;
}

/* ---- the chart's data ----------------------------------------------------------------- */

void pl_skip(pl_chart *c, const char *why) { snprintf(c->why, sizeof c->why, "%s", why); }

void pl_point(pl_chart *c, double x, double y, double z)
{
    fprintf(c->dat, "%.9g %.9g %.9g\n", x, y, z);
    c->points += isfinite(x) && isfinite(y);
}

void pl_block(pl_chart *c, pl_series *s)
{
    if (s && s->n) {
        pl_tidy(s);
        fprintf(c->dat, "# %s\n", s->title);
        for (int i = 0; i < s->n; i++) pl_point(c, s->p[i][0], s->p[i][1], s->p[i][2]);
    } else {
        fprintf(c->dat, "# (no data)\nNaN NaN NaN\n");
    }
    fprintf(c->dat, "\n\n");
}

void pl_words(char *list, size_t len, const char *t)
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

void pl_ints(char *list, size_t len, int v)
{
    size_t n = strlen(list);
    if (n < len) snprintf(list + n, len - n, "%s%d", n ? " " : "", v);
}

/* ---- the sweep's rows ----------------------------------------------------------------- */

/* Fills S's base shape: the (B, Hq, Hkv, d, layout) with the most prefill (Nq = Nkv) rows. */
static void base_shape(pl_sweep *S)
{
    int best = 0;
    for (int i = 0; i < S->n; i++) {
        const pl_srow *a = &S->r[i];
        if (a->seq_q != a->seq_kv) continue;
        int cnt = 0;
        for (int j = 0; j < S->n; j++) {
            const pl_srow *b = &S->r[j];
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
}

int pl_sweep_load(const char *path, pl_sweep *S)
{
    memset(S, 0, sizeof *S);
    pl_csv c;
    int st = pl_csv_load(path, &c);
    if (st <= 0) return -st;
    static const char *const need[] = {"kernel", "batch", "heads", "kv_heads", "seq_q", "seq_kv",
                                       "d_head", "causal", "layout", "threads", "GFLOPS",
                                       "time_median_s", "workspace_bytes", NULL};
    if ((st = pl_need(&c, path, need))) {
        pl_csv_free(&c);
        return st;
    }
    S->r = calloc((size_t)c.nrows + 1, sizeof *S->r);
    if (!S->r) {
        pl_csv_free(&c);
        return hr_fail("out of memory");
    }
    static const char *const ints[] = {"batch", "heads", "kv_heads", "seq_q", "seq_kv", "d_head", "causal", "threads"};
    int ci[8];
    for (int k = 0; k < 8; k++) ci[k] = pl_col(&c, ints[k]);
    int ck = pl_col(&c, "kernel"), cl = pl_col(&c, "layout"), cai = pl_col(&c, "AI"), cg = pl_col(&c, "GFLOPS");
    int ct = pl_col(&c, "time_median_s"), cw = pl_col(&c, "workspace_bytes");
    int cdt = pl_col(&c, "dtype"), ckv = pl_col(&c, "kv_dtype"); /* absent before the types: f32 */
    int cpl = pl_col(&c, "plugin_library"), cpv = pl_col(&c, "plugin_version"); /* absent before them */
    int cvw = pl_col(&c, "window"), cvs = pl_col(&c, "softcap"), cva = pl_col(&c, "alibi"); /* likewise */
    int cvp = pl_col(&c, "page_size");
    for (int i = 0; i < c.nrows; i++) {
        const pl_row *r = &c.rows[i];
        pl_srow *o = &S->r[S->n];
        snprintf(o->kernel, sizeof o->kernel, "%s", pl_str(r, ck));
        snprintf(o->layout, sizeof o->layout, "%s", pl_str(r, cl));
        const char *dt = pl_str(r, cdt), *kv = pl_str(r, ckv);
        bool qf = *dt && strcmp(dt, "f32"), kf = *kv && strcmp(kv, *dt ? dt : "f32");
        snprintf(o->types, sizeof o->types, "%.8s%s%s%.8s", qf ? dt : "", qf && kf ? "/" : "", kf ? "kv=" : "", kf ? kv : "");
        snprintf(o->dt, sizeof o->dt, "%.7s", *dt ? dt : "f32");
        snprintf(o->kv, sizeof o->kv, "%.7s", *kv ? kv : o->dt);
        const double vw = pl_num(r, cvw), vs = pl_num(r, cvs), va = pl_num(r, cva), vp = pl_num(r, cvp);
        o->page_size = vp > 0 ? (int)vp : 0;
        char var[48]; /* "/w4096/cap50/page16": the row's variants, 0 or absent when off */
        hr_variant_seg(&(hr_problem){.window = vw > 0 ? (int)vw : 0, .softcap = vs > 0 ? (float)vs : 0,
                                     .alibi = va > 0 ? (float)va : 0, .page_size = o->page_size}, var, sizeof var);
        if (var[0]) {
            const size_t tl = strlen(o->types);
            snprintf(o->types + tl, sizeof o->types - tl, "%s", tl ? var : var + 1);
        }
        if (*pl_str(r, cpl))
            snprintf(o->peer, sizeof o->peer, " (peer %.30s %.20s)", pl_str(r, cpl), pl_str(r, cpv));
        double v[8];
        int bad = !*o->kernel;
        for (int k = 0; k < 8; k++) {
            v[k] = pl_num(r, ci[k]);
            if (!isfinite(v[k])) bad = 1;
        }
        if (bad) continue; /* a truncated row (interrupted sweep) */
        o->batch = (int)v[0], o->heads = (int)v[1], o->kv_heads = (int)v[2], o->seq_q = (int)v[3];
        o->seq_kv = (int)v[4], o->d_head = (int)v[5], o->causal = (int)v[6], o->threads = (int)v[7];
        o->gflops = pl_num(r, cg);
        o->t_med = pl_num(r, ct);
        o->ws = pl_num(r, cw);
        o->ai = pl_num(r, cai);
        const double win = pl_num(r, cvw), cap = pl_num(r, cvs), al = pl_num(r, cva);
        o->window = win > 0 ? (int)win : 0;
        o->softcap = cap > 0 ? cap : 0;
        o->alibi = al > 0 ? al : 0;
        S->n++;
    }
    pl_csv_free(&c);
    base_shape(S);
    return HR_OK;
}

int pl_in_base(const pl_sweep *S, const pl_srow *r)
{
    return r->seq_q == r->seq_kv && r->batch == S->b && r->heads == S->h && r->kv_heads == S->g &&
           r->d_head == S->d && !strcmp(r->layout, S->layout) && !r->window && !(r->softcap > 0) &&
           !(r->alibi > 0);
}

int pl_kernels(const pl_sweep *S, int base_only, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < S->n; i++) {
        if (base_only && !pl_in_base(S, &S->r[i])) continue;
        int seen = 0;
        for (int k = 0; k < n && !seen; k++) seen = !strcmp(names[k], S->r[i].kernel);
        if (!seen && n < max) names[n++] = S->r[i].kernel;
    }
    return n;
}

int pl_max_threads(const pl_sweep *S, const char *kernel)
{
    int t = 0;
    for (int i = 0; i < S->n; i++)
        if (pl_in_base(S, &S->r[i]) && !strcmp(S->r[i].kernel, kernel) && S->r[i].threads > t) t = S->r[i].threads;
    return t;
}

const char *pl_peer_of(const pl_sweep *S, const char *kernel)
{
    for (int i = 0; i < S->n; i++)
        if (!strcmp(S->r[i].kernel, kernel)) return S->r[i].peer;
    return "";
}

/* ---- the context block ---------------------------------------------------------------- */

int pl_context(const char *path, const char *what, char *who, size_t len, char *isa, size_t isalen)
{
    struct stat sb;
    if (stat(path, &sb) && errno == ENOENT) return 0;
    cJSON *root = hr_read_json(path, HR_CAP_RESULTS, what);
    if (!root) return -1; /* there, but not readable: the caller fails, naming it */
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
        snprintf(who, len, "%s%s%s", m->valuestring, *date ? ", " : "", date);
        if (isa && !*isa && cJSON_IsString(i)) snprintf(isa, isalen, "%s", i->valuestring);
    }
    cJSON_Delete(root);
    return ok;
}

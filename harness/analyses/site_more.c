/* site_more.c — what a site shows beside the results sets: the verdicts of `headroom ab`
 * on the benchmark pages they concern (with an interval on the ratio drawn from the paired
 * repetitions) and a machine's crossover (core ÷ projection time against N, its N*). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "gbread.h"
#include "headroom.h"
#include "plot_int.h"
#include "site.h"
#include "stats.h"

/* The folder holding dir (its last-but-one component): results/<machine>/<run>. */
static void parent_name(const char *dir, char *buf, size_t len)
{
    char t[PATH_MAX];
    snprintf(t, sizeof t, "%s", dir);
    char *sl = strrchr(t, '/');
    if (sl) *sl = 0;
    sl = strrchr(t, '/');
    hr_copy_text(buf, len, sl ? sl + 1 : t);
}

/* ---- A/B ---------------------------------------------------------------------------------- */

#define REPS_CAP 4096 /* repetitions of a point read per side (ab keeps at most 1024) */

/* The repetitions (seconds per call, in the order taken) of benchmark name in the results
 * document doc: its iteration rows. Returns how many went into t (at most cap). */
static int reps_of(const cJSON *doc, const char *name, double *t, int cap)
{
    const cJSON *b;
    int n = 0;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(doc, "benchmarks"))
    {
        const char *rn = hr_json_str(b, "run_name", hr_json_str(b, "name", ""));
        if (n < cap && !strcmp(rn, name) && !strcmp(hr_json_str(b, "run_type", ""), "iteration"))
            t[n++] = hr_json_num(b, "real_time", NAN);
    }
    return n;
}

/* P(X <= k) for X ~ Binomial(n, 1/2). */
static double binom_half_cdf(int n, int k)
{
    double c = 1, sum = 0;
    for (int i = 0; i <= k && i <= n; i++) {
        sum += c;
        c = c * (n - i) / (i + 1);
    }
    return sum / pow(2, n);
}

/* The interval of the ratio: the test's n units are the rounds (reps / n consecutive pairs
 * each, a round's value the median of its pairs' log(new / base), as ab.c judges them); the
 * distribution-free interval of their median between order statistics k and n + 1 - k,
 * k the largest with coverage 1 - 2 P(X < k) >= 1 - alpha. NAN where n is too small. */
static void interval(const double *b, const double *nw, int m, int n, double alpha, hr_site_abrow *w, double *level)
{
    w->lo = w->hi = *level = NAN;
    if (n < 1 || m < n || m % n) return;
    const int per = m / n;
    double *d = malloc((size_t)m * sizeof *d), *u = malloc((size_t)n * sizeof *u);
    for (int r = 0; d && u && r < n; r++) {
        for (int j = 0; j < per; j++) d[j] = log(nw[r * per + j] / b[r * per + j]);
        u[r] = hr_median(d, (size_t)per);
    }
    int k = 0;
    while (k + 1 <= n / 2 && 2 * binom_half_cdf(n, k) <= alpha) k++; /* P(X <= k - 1) -> k */
    if (d && u && k > 0) {
        for (int x = 1; x < n; x++)
            for (int y = x; y > 0 && u[y - 1] > u[y]; y--) {
                const double t = u[y];
                u[y] = u[y - 1], u[y - 1] = t;
            }
        w->lo = exp(u[k - 1]), w->hi = exp(u[n - k]);
        *level = 1 - 2 * binom_half_cdf(n, k - 1);
    }
    free(d), free(u);
}

int hr_site_add_ab(hr_site *s, const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/ab.json", dir);
    cJSON *doc = hr_read_json(path, HR_CAP_RESULTS, "A/B verdicts");
    if (!doc) return HR_EUSAGE;
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
    if (!cJSON_IsArray(rows) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "test"))) {
        cJSON_Delete(doc);
        return hr_fail("%s: not the verdicts of headroom ab (no \"test\" and \"rows\")", path);
    }
    hr_site_ab *na = realloc(s->abs, (size_t)(s->nabs + 1) * sizeof *na);
    if (!na) {
        cJSON_Delete(doc);
        return hr_fail("out of memory");
    }
    s->abs = na;
    hr_site_ab *a = &s->abs[s->nabs];
    memset(a, 0, sizeof *a);
    if (!realpath(dir, a->dir)) snprintf(a->dir, sizeof a->dir, "%s", dir);
    snprintf(a->title, sizeof a->title, "%s", hr_json_str(doc, "title", "headroom ab"));
    snprintf(a->test, sizeof a->test, "%s", hr_json_str(doc, "test", ""));
    a->alpha = hr_json_num(doc, "alpha", 0.05);
    cJSON *side[2];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s.json", dir, k ? "new" : "base");
        side[k] = hr_gb_load(path); /* without them: the verdicts, no interval */
    }
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(side[1] ? side[1] : side[0], "context");
    parent_name(a->dir, a->machine, sizeof a->machine);
    snprintf(a->machine, sizeof a->machine, "%s", hr_json_str(ctx, "machine", a->machine));
    a->rows = calloc((size_t)cJSON_GetArraySize(rows) + 1, sizeof *a->rows);
    double *tb = malloc(REPS_CAP * sizeof *tb), *tn = malloc(REPS_CAP * sizeof *tn);
    int st = a->rows && tb && tn ? HR_OK : hr_fail("out of memory");
    const cJSON *r;
    cJSON_ArrayForEach(r, rows)
    {
        if (st) break;
        hr_site_abrow *w = &a->rows[a->nrows++];
        snprintf(w->name, sizeof w->name, "%s", hr_json_str(r, "name", "?"));
        snprintf(w->verdict, sizeof w->verdict, "%s", hr_json_str(r, "verdict", "?"));
        w->base_ms = hr_json_num(r, "base", NAN) / 1e6, w->new_ms = hr_json_num(r, "new", NAN) / 1e6;
        w->ratio = 1 + hr_json_num(r, "delta_pct", NAN) / 100;
        w->p_adj = hr_json_num(r, "p_adj", NAN);
        w->n = (int)hr_json_num(r, "n_base", 0);
        const int nb = side[0] ? reps_of(side[0], w->name, tb, REPS_CAP) : 0;
        const int nn = side[1] ? reps_of(side[1], w->name, tn, REPS_CAP) : 0;
        interval(tb, tn, nb < nn ? nb : nn, w->n, a->alpha, w, &w->level);
    }
    free(tb), free(tn);
    cJSON_Delete(side[0]), cJSON_Delete(side[1]), cJSON_Delete(doc);
    if (st) free(a->rows);
    else s->nabs++;
    return st;
}

int hr_site_ab_data(cJSON *data, const hr_site *s, const char *name)
{
    cJSON *rows = NULL;
    for (int i = 0; i < s->nabs; i++) {
        const hr_site_ab *a = &s->abs[i];
        for (int j = 0; j < a->nrows; j++) {
            const hr_site_abrow *w = &a->rows[j];
            if (strcmp(w->name, name)) continue;
            if (!rows) rows = cJSON_AddArrayToObject(data, "ab");
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "machine", a->machine);
            const char *base = strrchr(a->dir, '/');
            char k[300];
            snprintf(k, sizeof k, "A/B run %.200s", base ? base + 1 : a->dir);
            hr_site_fact(data, k, a->title);
            cJSON_AddStringToObject(o, "ab", base ? base + 1 : a->dir);
            hr_site_num(o, "base_ms", w->base_ms);
            hr_site_num(o, "new_ms", w->new_ms);
            hr_site_num(o, "ratio", w->ratio);
            hr_site_num(o, "lo", w->lo);
            hr_site_num(o, "hi", w->hi);
            char iv[64] = "none (too few rounds)";
            if (isfinite(w->lo)) snprintf(iv, sizeof iv, "%.3f – %.3f (%.0f%%)", w->lo, w->hi, 100 * w->level);
            cJSON_AddStringToObject(o, "interval", iv);
            cJSON_AddNumberToObject(o, "n", w->n);
            hr_site_num(o, "p_adj", w->p_adj);
            cJSON_AddStringToObject(o, "verdict", w->verdict);
            if (!strcmp(w->verdict, "REGRESSION")) cJSON_AddStringToObject(o, "verdict_class", "slower");
            if (!strcmp(w->verdict, "IMPROVEMENT")) cJSON_AddStringToObject(o, "verdict_class", "faster");
            cJSON_AddItemToArray(rows, o);
        }
    }
    if (!rows) return 0;
    cJSON *cols = hr_site_table(data, "ab", "headroom ab: the two builds measured interleaved, judged on the paired ratios", "ab");
    static const hr_site_colspec ab_cols[] = {{"machine", "machine", 0, -1}, {"ab", "A/B run", 0, -1},
        {"base_ms", "base ms", 1, 4}, {"new_ms", "new ms", 1, 4}, {"ratio", "new ÷ base time", 1, 3},
        {"interval", "its interval (coverage)", 0, -1}, {"n", "rounds", 1, 0},
        {"p_adj", "corrected p", 1, 4}, {"verdict", "verdict", 0, -1}};
    HR_SITE_COLS(cols, ab_cols);
    const cJSON *tables = cJSON_GetObjectItemCaseSensitive(data, "tables");
    cJSON_AddStringToObject(cJSON_GetArrayItem(tables, cJSON_GetArraySize(tables) - 1), "note",
                            "Ratio above 1: the new build is slower. The interval is distribution-free, on the median of "
                            "the rounds' log ratios, at coverage 1 - alpha or more (none under 6 rounds). An A/B run "
                            "is named by the folder headroom ab --out wrote.");
    return cJSON_GetArraySize(rows);
}

/* ---- crossover ---------------------------------------------------------------------------- */

int hr_site_add_cross(hr_site *s, const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/crossover.csv", dir);
    pl_csv c = {0}, t = {0};
    static const char *const need[] = {"kernel", "d_model", "N", "proj_s", "core_s", NULL};
    int got = pl_csv_load(path, &c);
    if (got < 0 || pl_need(&c, path, need)) {
        pl_csv_free(&c);
        return HR_EUSAGE;
    }
    snprintf(path, sizeof path, "%s/crossover_table.csv", dir);
    if (pl_csv_load(path, &t) < 0) memset(&t, 0, sizeof t); /* the points suffice */
    hr_site_cross *nx = realloc(s->xs, (size_t)(s->nxs + 1) * sizeof *nx);
    if (!nx) {
        pl_csv_free(&c), pl_csv_free(&t);
        return hr_fail("out of memory");
    }
    s->xs = nx;
    hr_site_cross *x = &s->xs[s->nxs++];
    memset(x, 0, sizeof *x);
    if (!realpath(dir, x->dir)) snprintf(x->dir, sizeof x->dir, "%s", dir);
    parent_name(x->dir, x->machine, sizeof x->machine);
    x->pts = calloc((size_t)c.nrows + 1, sizeof *x->pts);
    x->tab = calloc((size_t)t.nrows + 1, sizeof *x->tab);
    const int ck = pl_col(&c, "kernel"), cd = pl_col(&c, "d_model"), cn = pl_col(&c, "N");
    const int cp = pl_col(&c, "proj_s"), cc = pl_col(&c, "core_s");
    for (int i = 0; x->pts && i < c.nrows; i++) {
        hr_site_xpt *p = &x->pts[x->npts++];
        snprintf(p->series, sizeof p->series, "%s d_model %.0f", pl_str(&c.rows[i], ck), pl_num(&c.rows[i], cd));
        p->n = (int)pl_num(&c.rows[i], cn);
        p->proj_s = pl_num(&c.rows[i], cp), p->core_s = pl_num(&c.rows[i], cc);
    }
    const int tk = pl_col(&t, "kernel"), td = pl_col(&t, "d_model"), tm = pl_col(&t, "n_star_measured");
    const int tf = pl_col(&t, "n_star_flops"), tn = pl_col(&t, "note");
    for (int i = 0; x->tab && tk >= 0 && i < t.nrows; i++) {
        hr_site_xrow *r = &x->tab[x->ntab++];
        snprintf(r->series, sizeof r->series, "%s d_model %.0f", pl_str(&t.rows[i], tk), pl_num(&t.rows[i], td));
        r->n_star = pl_num(&t.rows[i], tm), r->n_flops = pl_num(&t.rows[i], tf);
        snprintf(r->note, sizeof r->note, "%s", pl_str(&t.rows[i], tn));
    }
    pl_csv_free(&c), pl_csv_free(&t);
    return x->pts && x->tab ? HR_OK : hr_fail("out of memory");
}

void hr_site_cross_data(cJSON *data, const hr_site *s, const char *machine)
{
    const hr_site_cross *x = NULL;
    for (int i = 0; i < s->nxs; i++) /* the last found: the newest of results/<machine>/crossover-<stamp> */
        if (!strcmp(s->xs[i].machine, machine)) x = &s->xs[i];
    if (!x) return;
    cJSON *a = cJSON_AddArrayToObject(data, "crossover");
    for (int i = 0; i < x->npts; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "series", x->pts[i].series);
        cJSON_AddNumberToObject(o, "n", x->pts[i].n);
        hr_site_num(o, "proj_ms", 1e3 * x->pts[i].proj_s);
        hr_site_num(o, "core_ms", 1e3 * x->pts[i].core_s);
        hr_site_num(o, "ratio", x->pts[i].proj_s > 0 ? x->pts[i].core_s / x->pts[i].proj_s : NAN);
        cJSON_AddItemToArray(a, o);
    }
    cJSON *cols = hr_site_table(data, "crossover", "crossover: the points measured", "crossover");
    static const hr_site_colspec x_cols[] = {{"series", "kernel, d_model", 0, -1}, {"n", "N", 1, 0},
        {"proj_ms", "projections ms", 1, 3}, {"core_ms", "attention core ms", 1, 3}, {"ratio", "core ÷ projections", 1, 3}};
    HR_SITE_COLS(cols, x_cols);
    static const char *const tips[] = {"", "series", "", "N", "n", "", "", "ratio", " core ÷ projections"};
    cJSON *c = hr_site_chart(data, "crossover", "crossover: attention core ÷ projection time against N (N* where it crosses 1)",
                             "crossover", "n", "ratio", "series", 3, "crossover");
    cJSON_AddStringToObject(c, "xlabel", "sequence length N");
    cJSON_AddStringToObject(c, "ylabel", "core time ÷ projection time");
    cJSON_AddTrueToObject(c, "line");
    hr_site_tip(c, tips, 3);
    cJSON *hline = cJSON_AddArrayToObject(c, "roof"); /* the crossing: ratio 1 over the Ns measured */
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < x->npts; i++)
        if (x->pts[i].n > 0) lo = fmin(lo, x->pts[i].n), hi = fmax(hi, x->pts[i].n);
    for (int k = 0; hi > 0 && k < 2; k++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "x", k ? hi : lo);
        cJSON_AddNumberToObject(p, "y", 1);
        cJSON_AddItemToArray(hline, p);
    }
    cJSON_AddStringToObject(c, "roof_label", "core = projections");
    if (!x->ntab) return;
    cJSON *t = cJSON_AddArrayToObject(data, "nstar");
    for (int i = 0; i < x->ntab; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "series", x->tab[i].series);
        hr_site_num(o, "n_star", x->tab[i].n_star);
        hr_site_num(o, "n_flops", x->tab[i].n_flops);
        hr_site_num(o, "ratio", x->tab[i].n_star / x->tab[i].n_flops);
        cJSON_AddStringToObject(o, "note", x->tab[i].note);
        cJSON_AddItemToArray(t, o);
    }
    cols = hr_site_table(data, "nstar", "crossover: N* measured against N* by FLOPs", "nstar");
    static const hr_site_colspec n_cols[] = {{"series", "kernel, d_model", 0, -1}, {"n_star", "N* measured", 1, 0},
        {"n_flops", "N* by FLOPs", 1, 0}, {"ratio", "measured ÷ FLOPs", 1, 2}, {"note", "note", 0, -1}};
    HR_SITE_COLS(cols, n_cols);
}

/* plot_model.c — the charts of whole-model runs: crossover (a full layer), kvcache (model presets), kvstory (the decode loop's stored types); decode is in plot_decode.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "kvcache.h"
#include "plot_int.h"
#include "stats.h"

/* ---- crossover ----------------------------------------------------------------------- */

/* The crossover's groups (kernel, d_model) and panels (one per kernel). */
typedef struct {
    char keys[32][64];     /* "kernel d_model", grouped by panel (stable)        */
    int ng;
    char kerns[16][48];    /* panel titles, in order of first appearance         */
    int nkern, kidx[32];   /* kidx[g]: group g's panel                           */
    double dms[32];        /* the d_models, ascending                            */
    int ndm, gcol[32];     /* gcol[g]: the rank of group g's d_model (its colour) */
} cross_groups;

static void find_groups(const pl_csv *c, cross_groups *G)
{
    int ck = pl_col(c, "kernel"), cd = pl_col(c, "d_model");
    G->ng = G->nkern = G->ndm = 0;
    for (int i = 0; i < c->nrows && G->ng < 32; i++) {
        char key[64];
        snprintf(key, sizeof key, "%s %s", pl_str(&c->rows[i], ck), pl_str(&c->rows[i], cd));
        int seen = 0;
        for (int g = 0; g < G->ng && !seen; g++) seen = !strcmp(G->keys[g], key);
        if (!seen) snprintf(G->keys[G->ng++], sizeof G->keys[0], "%s", key);
    }
    for (int g = 0; g < G->ng; g++) {
        int len = (int)strcspn(G->keys[g], " "), k = 0;
        while (k < G->nkern && (strncmp(G->kerns[k], G->keys[g], (size_t)len) || G->kerns[k][len])) k++;
        if (k == G->nkern && G->nkern < 16) {
            /* A kernel name is at most 47 characters (the key's part before the space). */
            size_t n = (size_t)len < sizeof G->kerns[0] ? (size_t)len : sizeof G->kerns[0] - 1;
            memcpy(G->kerns[G->nkern], G->keys[g], n);
            G->kerns[G->nkern++][n] = 0;
        }
        G->kidx[g] = k < G->nkern ? k : G->nkern - 1;
    }
    for (int g = 1; g < G->ng; g++) /* stable insertion sort by panel */
        for (int h = g; h > 0 && G->kidx[h - 1] > G->kidx[h]; h--) {
            char tk[64];
            int ti = G->kidx[h];
            memcpy(tk, G->keys[h], sizeof tk), memcpy(G->keys[h], G->keys[h - 1], sizeof tk);
            memcpy(G->keys[h - 1], tk, sizeof tk);
            G->kidx[h] = G->kidx[h - 1], G->kidx[h - 1] = ti;
        }
    for (int g = 0; g < G->ng; g++) {
        double d = atof(strchr(G->keys[g], ' ') + 1);
        int j = 0;
        while (j < G->ndm && G->dms[j] != d) j++;
        if (j == G->ndm) G->dms[G->ndm++] = d;
    }
    for (int i = 1; i < G->ndm; i++)
        for (int j = i; j > 0 && G->dms[j - 1] > G->dms[j]; j--) {
            double x = G->dms[j];
            G->dms[j] = G->dms[j - 1], G->dms[j - 1] = x;
        }
    for (int g = 0; g < G->ng; g++) {
        double d = atof(strchr(G->keys[g], ' ') + 1);
        G->gcol[g] = 1;
        for (int j = 0; j < G->ndm; j++)
            if (G->dms[j] == d) G->gcol[g] = j + 1;
    }
}

/* The measured and FLOP-predicted N* of (kern, dm) from crossover_table.csv (NaN: absent). */
static void n_stars(const pl_inputs *in, const char *kern, const char *dm, double *nm, double *nf)
{
    const pl_csv *t = &in->table;
    *nm = *nf = NAN;
    if (!in->have_table) return;
    int tk = pl_col(t, "kernel"), td = pl_col(t, "d_model");
    for (int i = 0; i < t->nrows; i++)
        if (!strcmp(pl_str(&t->rows[i], tk), kern) && !strcmp(pl_str(&t->rows[i], td), dm)) {
            *nm = pl_num(&t->rows[i], pl_col(t, "n_star_measured"));
            *nf = pl_num(&t->rows[i], pl_col(t, "n_star_flops"));
        }
}

/* Crossover: per (kernel, d_model) projection and core time vs N, the measured N* (a
 * point at the crossing: projection time interpolated log-linearly there) and the
 * FLOP-predicted N* as a vertical line over the data's y range. */
void pl_crossover(const pl_inputs *in, pl_chart *c)
{
    const pl_csv *x = &in->cross;
    static const char *const need[] = {"kernel", "d_model", "N", "proj_s", "core_s", NULL};
    if (pl_need(x, in->cross_path, need)) { pl_skip(c, hr_errmsg()); return; }
    cross_groups *G = malloc(sizeof *G);
    pl_set *ss = calloc(1, sizeof *ss);
    if (!G || !ss) {
        free(G), free(ss);
        { pl_skip(c, "out of memory"); return; }
    }
    find_groups(x, G);
    int ck = pl_col(x, "kernel"), cd = pl_col(x, "d_model"), cn = pl_col(x, "N");
    int cp = pl_col(x, "proj_s"), cc = pl_col(x, "core_s");
    /* First the series of every group (2 each: projections, core) and the y range. */
    double ylo = INFINITY, yhi = 0;
    char pre[32][80], kern[32][48], dm[32][16];
    pl_series *sp[32], *sc[32];
    for (int g = 0; g < G->ng; g++) {
        sscanf(G->keys[g], "%47s %15s", kern[g], dm[g]);
        if (G->nkern > 1) snprintf(pre[g], sizeof pre[g], "%s d_model %s", kern[g], dm[g]);
        else snprintf(pre[g], sizeof pre[g], "d_model %s", dm[g]);
        char t[160];
        snprintf(t, sizeof t, "%.79s: projections", pre[g]);
        sp[g] = pl_get(ss, t);
        snprintf(t, sizeof t, "%.79s: core", pre[g]);
        sc[g] = pl_get(ss, t);
        for (int i = 0; i < x->nrows; i++) {
            const pl_row *r = &x->rows[i];
            if (strcmp(pl_str(r, ck), kern[g]) || strcmp(pl_str(r, cd), dm[g])) continue;
            double n = pl_num(r, cn), p = pl_num(r, cp), q = pl_num(r, cc);
            if (!(n > 0) || !(p > 0) || !(q > 0)) continue;
            pl_add(sp[g], n, p, 0), pl_add(sc[g], n, q, 0);
            ylo = fmin(ylo, fmin(p, q)), yhi = fmax(yhi, fmax(p, q));
        }
    }
    if (!(yhi > 0)) {
        pl_set_free(ss);
        free(G), free(ss);
        { pl_skip(c, "crossover.csv has no positive times"); return; }
    }
    double ymin = exp2(floor(log2(ylo))), ymax = exp2(ceil(log2(yhi)));
    fprintf(c->dat, "# crossover: x = N, y = seconds; per group 4 blocks: projections, core, measured N*\n"
                    "# (at the interpolated projection time), FLOP-predicted N* (vertical line)\n\n");
    char tit[8192] = "";
    for (int g = 0; g < G->ng; g++) {
        const pl_series *p = sp[g];
        pl_block(c, sp[g]);
        pl_block(c, sc[g]);
        char t[160];
        snprintf(t, sizeof t, "%.79s: projections", pre[g]);
        pl_words(tit, sizeof tit, t);
        snprintf(t, sizeof t, "%.79s: core", pre[g]);
        pl_words(tit, sizeof tit, t);
        double nm, nf;
        n_stars(in, kern[g], dm[g], &nm, &nf);
        /* The measured N* sits where the two curves meet: place it on the projection
         * curve, interpolated log-linearly between the measured Ns around it. */
        double yt = NAN;
        for (int i = 0; p && i + 1 < p->n && isfinite(nm); i++)
            if (p->p[i][0] <= nm && nm <= p->p[i + 1][0]) {
                double w = log(nm / p->p[i][0]) / log(p->p[i + 1][0] / p->p[i][0]);
                yt = exp(log(p->p[i][1]) + w * log(p->p[i + 1][1] / p->p[i][1]));
            }
        char t3[160] = "", t4[160] = "";
        if (isfinite(yt)) {
            fprintf(c->dat, "# measured N*\n");
            pl_point(c, nm, yt, 0);
            fprintf(c->dat, "\n\n");
            snprintf(t3, sizeof t3, "%.79s: N* measured %.0f", pre[g], nm);
        } else {
            fprintf(c->dat, "# no measured N*\nNaN NaN NaN\n\n\n");
        }
        if (!in->have_table) nf = 2 * atof(dm[g]); /* no table: the MHA non-causal rule */
        if (isfinite(nf)) {
            fprintf(c->dat, "# FLOP-predicted N*\n");
            pl_point(c, nf, ymin, 0);
            pl_point(c, nf, ymax, 0);
            fprintf(c->dat, "\n\n");
            snprintf(t4, sizeof t4, in->have_table ? "%.79s: N* by FLOPs %.0f" : "%.79s: 2 d_model = %.0f", pre[g], nf);
        } else {
            fprintf(c->dat, "# no FLOP-predicted N*\nNaN NaN NaN\n\n\n");
        }
        pl_words(tit, sizeof tit, t3);
        pl_words(tit, sizeof tit, t4);
    }
    pl_set_free(ss);
    /* Per panel: kernel name, first group and group count; per group its colour; the
     * d_models in colour order. */
    char kw[1024] = "", k0[256] = "", kn[256] = "", gc[256] = "", dw[512] = "";
    for (int k = 0; k < G->nkern; k++) {
        int first = 0, cnt = 0;
        for (int g = G->ng - 1; g >= 0; g--)
            if (G->kidx[g] == k) first = g + 1, cnt++;
        pl_words(kw, sizeof kw, G->kerns[k]);
        pl_ints(k0, sizeof k0, first);
        pl_ints(kn, sizeof kn, cnt);
    }
    for (int g = 0; g < G->ng; g++) pl_ints(gc, sizeof gc, G->gcol[g]);
    for (int j = 0; j < G->ndm; j++) {
        char d[32];
        snprintf(d, sizeof d, "%g", G->dms[j]);
        pl_words(dw, sizeof dw, d);
    }
    snprintf(c->vars, sizeof c->vars,
             "ng=%d; tit='%s'; ymin=%g; ymax=%g; nk=%d; kerns='%s'; kfirst='%s'; kcount='%s'; gcol='%s'; "
             "ndm=%d; dms='%s'; flopsrule=%d",
             G->ng, tit, ymin, ymax, G->nkern, kw, k0, kn, gc, G->ndm, dw, !in->have_table);
    free(G), free(ss);
}

/* ---- kvcache ------------------------------------------------------------------------- */

/* The stored types of the kvcache CSV, widest first, and the columns of files written
 * before the types (fp32, fp16; their int8 left out scales, so it is not read). */
static const struct {
    const char *type, *old;
} kv_cols[] = {{"f32", "fp32"}, {"f16", "fp16"}, {"bf16", NULL}, {"q8_0", NULL}, {"q4_0", NULL}};
#define KV_NT ((int)(sizeof kv_cols / sizeof kv_cols[0]))

/* Column `prefix`TYPE of x, or the old name; -1 when neither. */
static int kv_col(const pl_csv *x, const char *prefix, int t)
{
    char name[48];
    snprintf(name, sizeof name, "%s%s", prefix, kv_cols[t].type);
    int c = pl_col(x, name);
    if (c < 0 && kv_cols[t].old) {
        snprintf(name, sizeof name, "%s%s", prefix, kv_cols[t].old);
        c = pl_col(x, name);
    }
    return c;
}

/* KV-cache memory vs context length: one panel per model preset, one line per stored
 * type (GiB, scales included), and the model's MHA equivalent at f16 dashed for GQA/MQA. */
void pl_kvcache(const pl_inputs *in, pl_chart *c)
{
    const pl_csv *x = &in->kv;
    static const char *const need[] = {"model", "attention", "heads", "kv_heads", "tokens", NULL};
    if (pl_need(x, in->kv_path, need)) { pl_skip(c, hr_errmsg()); return; }
    int cm = pl_col(x, "model"), ca = pl_col(x, "attention"), ch = pl_col(x, "heads"), cg = pl_col(x, "kv_heads");
    int ct = pl_col(x, "tokens"), cmha = kv_col(x, "mha_bytes_", 1);
    int cb[KV_NT], tt[KV_NT], nt = 0;
    char ttit[256] = "", tdash[64] = "";
    for (int t = 0; t < KV_NT; t++)
        if ((cb[nt] = kv_col(x, "bytes_", t)) >= 0) {
            tt[nt++] = t;
            pl_words(ttit, sizeof ttit, kv_cols[t].type);
            pl_ints(tdash, sizeof tdash, strcmp(kv_cols[t].type, "bf16") ? 1 : 2); /* bf16 lies on f16 */
        }
    if (!nt) {
        char why[256];
        snprintf(why, sizeof why, "%s: no bytes_<type> column (headroom kvcache --format csv writes them)", in->kv_path);
        pl_skip(c, why);
        return;
    }
    const double gib = 1073741824.0;
    pl_set *ss = calloc(1, sizeof *ss);
    if (!ss) { pl_skip(c, "out of memory"); return; }
    char tit[8192] = "";
    const char *models[16];
    int nm = 0;
    for (int i = 0; i < x->nrows; i++) {
        const pl_row *r = &x->rows[i];
        const char *model = pl_str(r, cm);
        int seen = 0;
        for (int k = 0; k < nm && !seen; k++) seen = !strcmp(models[k], model);
        if (seen || nm == 16 || ss->n + nt + 1 > PL_MAXS) continue;
        models[nm++] = model;
        int mha = !strcmp(pl_str(r, ca), "MHA");
        char t1[160];
        snprintf(t1, sizeof t1, "%s: %s, %s/%s heads", model, pl_str(r, ca), pl_str(r, ch), pl_str(r, cg));
        pl_words(tit, sizeof tit, t1);
        /* nt type series, then the MHA equivalent: blocks (nt + 1) * m .. */
        pl_series *st[KV_NT], *sm;
        for (int k = 0; k < nt; k++) {
            snprintf(t1, sizeof t1, "%s|%s", model, kv_cols[tt[k]].type);
            st[k] = pl_get(ss, t1);
        }
        snprintf(t1, sizeof t1, "%s|mha", model);
        sm = pl_get(ss, t1);
        for (int j = 0; j < x->nrows; j++) {
            const pl_row *q = &x->rows[j];
            if (strcmp(pl_str(q, cm), model)) continue;
            for (int k = 0; k < nt; k++) pl_add(st[k], pl_num(q, ct), pl_num(q, cb[k]) / gib, 0);
            if (!mha) pl_add(sm, pl_num(q, ct), pl_num(q, cmha) / gib, 0);
        }
    }
    if (!nm) {
        free(ss);
        { pl_skip(c, "the kvcache CSV has no rows"); return; }
    }
    const char *batch = pl_str(&x->rows[0], pl_col(x, "batch"));
    fprintf(c->dat, "# kvcache: x = tokens in the cache, y = GiB (scales included); per model %d blocks:\n"
                    "# one per stored type (%s), then the MHA equivalent at f16 (empty for MHA models)\n\n",
            nt + 1, ttit);
    for (int i = 0; i < ss->n; i++) pl_block(c, &ss->s[i]);
    pl_set_free(ss);
    free(ss);
    snprintf(c->vars, sizeof c->vars, "nm=%d; nt=%d; tit='%s'; ttit='%s'; tdash='%s'; batch='%.15s'", nm, nt, tit,
             ttit, tdash, *batch ? batch : "1");
}

/* ---- kvstory ------------------------------------------------------------------------- */

/* The KV-cache story from decode-loop runs with --kv-dtype (decode.csv rows that carry a
 * kv_dtype): per stored type, tokens/s against the GiB the cache holds at each context
 * length (left), and what the type costs in accuracy, the format's error (right). One
 * series per (kv_dtype, kernel, threads, shape), types widest first. The cache's bytes are
 * the row's kv_bytes, else computed from its shape (hr_kv_bytes_of); the error is the
 * median of the rows' format_max_rel (the fp64 oracle on the original fp32 inputs against
 * the output), the panel left out when no row has one. */
void pl_kvstory(const pl_inputs *in, pl_chart *c)
{
    const pl_csv *x = &in->dec;
    static const char *const need[] = {"kernel", "kv_dtype", "layers", "batch", "kv_heads", "d_head",
                                       "cache_last", "tokens_per_s", NULL};
    if (pl_need(x, in->dec_path, need)) {
        char why[256];
        snprintf(why, sizeof why, "%s (decode-loop --kv-dtype T --format csv writes the KV-cache story's columns)", hr_errmsg());
        pl_skip(c, why);
        return;
    }
    int ck = pl_col(x, "kernel"), cq = pl_col(x, "kv_dtype"), cl = pl_col(x, "layers"), cb = pl_col(x, "batch");
    int cg = pl_col(x, "kv_heads"), cd = pl_col(x, "d_head"), ch = pl_col(x, "heads"), ct = pl_col(x, "threads");
    int cn = pl_col(x, "cache_last"), cs = pl_col(x, "tokens_per_s"), cy = pl_col(x, "kv_bytes");
    int ce = pl_col(x, "format_max_rel");
    pl_set *ss = calloc(1, sizeof *ss), *es = calloc(1, sizeof *es);
    if (!ss || !es) {
        free(ss), free(es);
        pl_skip(c, "out of memory");
        return;
    }
    char tit[8192] = "", slab[4096] = "", ecol[512] = "", edash[512] = "", bad[64] = "";
    const double gib = 1073741824.0;
    /* Series in type order, widest first, then as the rows come. */
    for (int t = 0; t < HR_NDTYPES; t++) {
        static const hr_dtype order[HR_NDTYPES] = {HR_F32, HR_F16, HR_BF16, HR_Q8_0, HR_Q4_0};
        const char *type = hr_dtype_names[order[t]];
        int in_type = 0; /* series of this type so far: the second and later are dashed */
        for (int i = 0; i < x->nrows; i++) {
            const pl_row *r = &x->rows[i];
            if (strcmp(pl_str(r, cq), type)) continue;
            char name[160];
            snprintf(name, sizeof name, "%s: %s T%s, H%s/%s d%s, %s layers", type, pl_str(r, ck), pl_str(r, ct),
                     pl_str(r, ch), pl_str(r, cg), pl_str(r, cd), pl_str(r, cl));
            int before = ss->n;
            pl_series *s = pl_get(ss, name), *e = pl_get(es, name);
            if (!s || !e) continue;
            /* the colour of the type, as in the kvcache chart: f32 1, f16 2, bf16 3, q8_0 4, q4_0 5 */
            if (ss->n > before) {
                pl_ints(ecol, sizeof ecol, t + 1);
                pl_ints(edash, sizeof edash, in_type++ ? 2 : 1);
                char lab[96];
                snprintf(lab, sizeof lab, "%s %s T%s", type, pl_str(r, ck), pl_str(r, ct));
                pl_words(slab, sizeof slab, lab);
            }
            /* The shape as integers only when every field is one in range (a hostile or
             * cut-short row draws nothing rather than converting NaN to int). */
            double dim[5] = {pl_num(r, cl), pl_num(r, cb), pl_num(r, cg), pl_num(r, cd), pl_num(r, cn)};
            int ok = 1;
            for (int k = 0; k < 5; k++) ok &= dim[k] >= 1 && dim[k] <= 1e9 && dim[k] == floor(dim[k]);
            double bytes = cy >= 0 && pl_num(r, cy) > 0 ? pl_num(r, cy)
                           : ok ? hr_kv_bytes_of((int)dim[0], (int)dim[1], (int)dim[2], (int)dim[3], (long)dim[4], order[t])
                                : -1;
            if (bytes > 0 && ok) pl_add(s, bytes / gib, pl_num(r, cs), dim[4]);
            if (ce >= 0 && pl_num(r, ce) > 0) pl_add(e, 0, pl_num(r, ce), 0);
        }
    }
    for (int i = 0; i < x->nrows && !bad[0]; i++) /* a type headroom does not know */
        if (hr_choice(hr_dtype_names, pl_str(&x->rows[i], cq)) < 0)
            snprintf(bad, sizeof bad, "%.40s", pl_str(&x->rows[i], cq));
    int n = 0, nerr = 0;
    for (int i = 0; i < ss->n; i++) n += ss->s[i].n > 0, nerr += es->s[i].n > 0;
    if (!n) {
        char why[256];
        snprintf(why, sizeof why, "%s: no row with a known kv_dtype and a cache size%s%s%s", in->dec_path,
                 bad[0] ? " (kv_dtype '" : "", bad, bad[0] ? "' is not a type: f32, f16, bf16, q8_0, q4_0)" : "");
        pl_set_free(ss), pl_set_free(es), free(ss), free(es);
        pl_skip(c, why);
        return;
    }
    fprintf(c->dat, "# kvstory: blocks 0..ns-1, per series (kv_dtype: kernel threads, shape) x = GiB of KV cache,\n"
                    "# y = tokens/s, z = tokens in the cache; block ns: per series x = series number, y = the\n"
                    "# format's max relative error (median over its rows; NaN: not measured)\n\n");
    double err[PL_MAXS];
    for (int i = 0; i < ss->n; i++) {
        pl_series *s = &ss->s[i];
        fprintf(c->dat, "# %s\n", s->title);
        pl_tidy(s);
        for (int j = 0; j < s->n; j++) pl_point(c, s->p[j][0], s->p[j][1], s->p[j][2]);
        if (!s->n) pl_point(c, NAN, NAN, NAN);
        fprintf(c->dat, "\n\n");
        pl_series *e = &es->s[i];
        double *v = e->n ? malloc((size_t)e->n * sizeof *v) : NULL;
        for (int j = 0; v && j < e->n; j++) v[j] = e->p[j][1];
        err[i] = v ? hr_median(v, (size_t)e->n) : NAN;
        free(v);
        char t[200], es_txt[24] = "not measured";
        if (isfinite(err[i])) snprintf(es_txt, sizeof es_txt, "%.2g", err[i]);
        snprintf(t, sizeof t, "%s (format error %s)", s->title, es_txt);
        pl_words(tit, sizeof tit, t);
    }
    fprintf(c->dat, "# format error per series\n");
    for (int i = 0; i < ss->n; i++) fprintf(c->dat, "%d %.9g 0\n", i + 1, err[i]);
    fprintf(c->dat, "\n\n");
    /* The roof: a step reads the whole cache, so tokens/s <= triad / cache bytes, whatever
     * the type: one line of slope -1 (log-log) per thread count, blocks ns+1.. */
    double xlo = INFINITY, xhi = 0;
    for (int i = 0; i < ss->n; i++)
        for (int j = 0; j < ss->s[i].n; j++) xlo = fmin(xlo, ss->s[i].p[j][0]), xhi = fmax(xhi, ss->s[i].p[j][0]);
    int ts[8], nt = 0;
    char btit[512] = "";
    for (int i = 0; i < x->nrows && in->C.nrows && xhi > 0; i++) {
        const double th = pl_num(&x->rows[i], ct);
        const int t = th >= 1 && th <= 1024 ? (int)th : 1;
        int seen = 0;
        for (int j = 0; j < nt; j++) seen |= ts[j] == t;
        const double bw = seen || nt == 8 ? 0 : hr_ceiling_bw(&in->C, t);
        if (!(bw > 0)) continue;
        ts[nt++] = t;
        char b[96];
        snprintf(b, sizeof b, "bound T%d: triad %.1f GB/s / KV bytes", t, bw);
        fprintf(c->dat, "# %s\n%.9g %.9g 0\n%.9g %.9g 0\n\n\n", b, xlo, bw * 1e9 / (xlo * gib), xhi,
                bw * 1e9 / (xhi * gib));
        pl_words(btit, sizeof btit, b);
    }
    snprintf(c->vars, sizeof c->vars, "ns=%d; nerr=%d; tit='%s'; slab='%s'; scol='%s'; sdash='%s'; nb=%d; btit='%s'",
             ss->n, nerr, tit, slab, ecol, edash, nt, btit);
    pl_set_free(ss), pl_set_free(es), free(ss), free(es);
}

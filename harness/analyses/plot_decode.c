/* plot_decode.c — the decode chart: time per generated token against the KV cache it
 * reads, beside the bound the memory roof sets (KV bytes ÷ measured triad), log-log. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "kvcache.h"
#include "plot_int.h"

/* The stored K/V type of a sweep row from its types segment ("", "bf16", "kv=q8_0",
 * "bf16/kv=q4_0"): kv= wins, else the one type, else f32. */
static hr_dtype sweep_kv_type(const char *types)
{
    const char *kv = strstr(types, "kv=");
    char name[16];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(kv ? kv + 3 : types, "/"), kv ? kv + 3 : types);
    const int t = *name ? hr_choice(hr_dtype_names, name) : HR_F32;
    return t < 0 ? HR_F32 : (hr_dtype)t;
}

/* The memory bound of one step, ms: the cache's bytes read once at the measured triad of
 * that thread count (NAN without ceilings or a shape). */
static double bound_ms(const pl_inputs *in, int threads, double kv_bytes)
{
    const double bw = in->C.nrows ? hr_ceiling_bw(&in->C, threads > 0 ? threads : 1) : 0;
    return bw > 0 && kv_bytes > 0 ? kv_bytes / (bw * 1e9) * 1e3 : NAN;
}

static int whole(double v) { return v >= 1 && v <= 1e9 && v == floor(v); }

/* Decode: step time per generated token vs cache length (headroom decode-loop --format
 * csv); without one, the sweep's one-query rows (one layer's attention per step). Beside
 * each measured series, its bound: the KV cache's bytes at that length (all layers, K and
 * V, hr_kv_bytes_of in the stored type) over the triad GB/s measured at its thread count,
 * dashed in the same colour. On log-log axes a bandwidth-bound step is a line of slope 1
 * and the gap to its bound is the headroom. */
void pl_decode(const pl_inputs *in, pl_chart *c)
{
    pl_set *ss = calloc(1, sizeof *ss), *bs = calloc(1, sizeof *bs);
    if (!ss || !bs) {
        free(ss), free(bs);
        pl_skip(c, "out of memory");
        return;
    }
    char tit[8192] = "", btit[8192] = "", ylab[128];
    if (in->dec.text) {
        const pl_csv *x = &in->dec;
        static const char *const need[] = {"kernel", "cache_first", "cache_last", "step_ms_median", NULL};
        if (pl_need(x, in->dec_path, need)) {
            free(ss), free(bs);
            pl_skip(c, hr_errmsg());
            return;
        }
        static const char *const key[] = {"heads", "kv_heads", "d_head", "layers", "threads", "batch"};
        int kc[6];
        for (int k = 0; k < 6; k++) kc[k] = pl_col(x, key[k]);
        int ck = pl_col(x, "kernel"), c0 = pl_col(x, "cache_first"), c1 = pl_col(x, "cache_last");
        int cs = pl_col(x, "step_ms_median"), cq = pl_col(x, "kv_dtype");
        for (int i = 0; i < x->nrows; i++) {
            const pl_row *r = &x->rows[i];
            char t[128], kv[40] = "";
            if (cq >= 0) snprintf(kv, sizeof kv, " kv %s", pl_str(r, cq)); /* one series per stored type */
            snprintf(t, sizeof t, "%s%s T%s: H%s/%s d%s, %s layers, B%s", pl_str(r, ck), kv, pl_str(r, kc[4]),
                     pl_str(r, kc[0]), pl_str(r, kc[1]), pl_str(r, kc[2]), pl_str(r, kc[3]), pl_str(r, kc[5]));
            const double L = (pl_num(r, c0) + pl_num(r, c1)) / 2;
            pl_series *s = pl_get(ss, t), *b = pl_get(bs, t);
            pl_add(s, L, pl_num(r, cs), 0);
            /* The shape as integers only when every field is one in range (a hostile or
             * cut-short row draws no bound rather than converting NaN to int). */
            const double lay = pl_num(r, kc[3]), B = pl_num(r, kc[5]), g = pl_num(r, kc[1]), d = pl_num(r, kc[2]);
            const int q = cq >= 0 ? hr_choice(hr_dtype_names, pl_str(r, cq)) : HR_F32;
            const double th = pl_num(r, kc[4]);
            if (whole(lay) && whole(B) && whole(g) && whole(d) && L >= 1 && L <= 1e9 && q >= 0)
                pl_add(b, L, bound_ms(in, whole(th) ? (int)th : 1,
                                      hr_kv_bytes_of((int)lay, (int)B, (int)g, (int)d, (long)llround(L), (hr_dtype)q)), 0);
        }
        snprintf(ylab, sizeof ylab, "step time per token, all layers (ms, median over the range)");
    } else {
        const pl_sweep *S = &in->S;
        for (int i = 0; i < S->n; i++) {
            const pl_srow *r = &S->r[i];
            if (r->seq_q != 1 || r->seq_kv < 2) continue;
            char t[256];
            snprintf(t, sizeof t, "%s%s%s%s T%d: B%d H%d/%d d%d", r->kernel, r->types[0] ? " " : "", r->types,
                     r->peer, r->threads, r->batch, r->heads, r->kv_heads, r->d_head);
            pl_add(pl_get(ss, t), r->seq_kv, r->t_med * 1e3, 0);
            pl_add(pl_get(bs, t), r->seq_kv,
                   bound_ms(in, r->threads,
                            hr_kv_bytes_of(1, r->batch, r->kv_heads, r->d_head, r->seq_kv, sweep_kv_type(r->types))),
                   0);
        }
        snprintf(ylab, sizeof ylab, "attention time of one decode step, one layer (ms)");
    }
    int n = 0, nb = 0;
    for (int i = 0; i < ss->n; i++) n += ss->s[i].n > 0, nb += bs->s[i].n > 0;
    if (!n) {
        pl_set_free(ss), pl_set_free(bs), free(ss), free(bs);
        pl_skip(c, "no decode.csv (headroom decode-loop --format csv) and no one-query rows in the sweep");
        return;
    }
    fprintf(c->dat, "# decode: blocks 0..ns-1 x = tokens in the KV cache, y = %s; blocks ns..2ns-1 the same\n"
                    "# series' bound, y = KV bytes / measured triad (ms; NaN: no ceilings)\n\n", ylab);
    for (int i = 0; i < ss->n; i++) {
        pl_block(c, &ss->s[i]);
        pl_words(tit, sizeof tit, ss->s[i].title);
    }
    /* The bound's points are not counted as data: without measured points nothing is drawn. */
    const int pts = c->points;
    for (int i = 0; i < ss->n; i++) {
        pl_block(c, &bs->s[i]);
        pl_words(btit, sizeof btit, i == 0 && nb ? "bound: KV bytes ÷ measured triad (dashed, same colour)" : "");
    }
    c->points = pts;
    snprintf(c->vars, sizeof c->vars, "ns=%d; nb=%d; tit='%s'; btit='%s'; ylab='%s'", ss->n, nb ? ss->n : 0, tit,
             btit, ylab);
    pl_set_free(ss), pl_set_free(bs), free(ss), free(bs);
}

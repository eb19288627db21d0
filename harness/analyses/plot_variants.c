/* plot_variants.c — the variant charts: a sliding window's cost against N beside dense causal; paged against contiguous decode. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot_int.h"

/* Whether r is a square causal row of the base shape but for its variants, with no soft
 * cap or ALiBi (they change the cost per pair, not the pairs). */
static int window_row(const pl_sweep *S, const pl_srow *r)
{
    return r->seq_q == r->seq_kv && r->causal && r->batch == S->b && r->heads == S->h && r->kv_heads == S->g &&
           r->d_head == S->d && !strcmp(r->layout, S->layout) && !(r->softcap > 0) && !(r->alibi > 0);
}

void pl_window(const pl_inputs *in, pl_chart *c)
{
    const pl_sweep *S = &in->S;
    int windowed = 0;
    for (int i = 0; i < S->n && !windowed; i++) windowed = S->r[i].window > 0 && window_row(S, &S->r[i]);
    if (!windowed) {
        pl_skip(c, "no causal rows with a sliding window of the base shape (a sweep with a window axis)");
        return;
    }
    /* a series per kernel and window (0: dense causal), at each kernel's most threads */
    pl_set ss = {0};
    char tit[8192] = "";
    for (int i = 0; i < S->n; i++) {
        const pl_srow *r = &S->r[i];
        if (!window_row(S, r) || r->threads != pl_max_threads(S, r->kernel) || !(r->t_med > 0)) continue;
        char title[160];
        if (r->window) snprintf(title, sizeof title, "%s%s window %d", r->kernel, r->peer, r->window);
        else snprintf(title, sizeof title, "%s%s dense causal", r->kernel, r->peer);
        pl_series *s = pl_get(&ss, title);
        if (s) pl_add(s, r->seq_q, r->t_med * 1e3, r->window);
    }
    fprintf(c->dat, "# window: x = N (Nq = Nkv, causal), y = median ms, z = window (0: dense causal)\n"
                    "# one block per kernel and window, at the kernel's most threads\n\n");
    for (int i = 0; i < ss.n; i++) {
        pl_block(c, &ss.s[i]);
        pl_words(tit, sizeof tit, ss.s[i].title);
    }
    snprintf(c->vars, sizeof c->vars, "ns=%d; tit='%s'; shape='%s'", ss.n, tit, S->shape);
    pl_set_free(&ss);
}

/* Whether r is a decode row (one query) with no window, soft cap or ALiBi. */
static int decode_row(const pl_srow *r)
{
    return r->seq_q == 1 && !r->window && !(r->softcap > 0) && !(r->alibi > 0) && r->t_med > 0;
}

/* Whether a and b are the same problem and run but for the page size. */
static int same_but_page(const pl_srow *a, const pl_srow *b)
{
    return !strcmp(a->kernel, b->kernel) && !strcmp(a->peer, b->peer) && !strcmp(a->layout, b->layout) &&
           !strcmp(a->dt, b->dt) && !strcmp(a->kv, b->kv) && a->batch == b->batch && a->heads == b->heads &&
           a->kv_heads == b->kv_heads && a->seq_kv == b->seq_kv && a->d_head == b->d_head &&
           a->causal == b->causal && a->threads == b->threads;
}

void pl_paged(const pl_inputs *in, pl_chart *c)
{
    const pl_sweep *S = &in->S;
    pl_set ss = {0};
    for (int i = 0; i < S->n; i++) {
        const pl_srow *r = &S->r[i], *r0 = NULL;
        if (!r->page_size || !decode_row(r)) continue;
        for (int j = 0; j < S->n && !r0; j++)
            if (!S->r[j].page_size && decode_row(&S->r[j]) && same_but_page(r, &S->r[j])) r0 = &S->r[j];
        if (!r0) continue; /* no contiguous row to set it against */
        char title[160];
        snprintf(title, sizeof title, "%s%s %s%s%s T%d B%d H%d/%d M%d d%d", r->kernel, r->peer,
                 strcmp(r->dt, "f32") ? r->dt : "", strcmp(r->dt, "f32") ? " kv=" : "", r->kv, r->threads, r->batch,
                 r->heads, r->kv_heads, r->seq_kv, r->d_head);
        pl_series *s = pl_get(&ss, title);
        if (s) pl_add(s, r->page_size, r->batch / r->t_med, r0->batch / r0->t_med);
    }
    if (!ss.n) {
        pl_skip(c, "no decode rows that differ only in page_size, contiguous and paged (run --page-size P)");
        return;
    }
    fprintf(c->dat, "# paged: x = page size P (keys a block), y = tokens/s (batch / median time) paged,\n"
                    "# z = tokens/s of the same decode on a contiguous cache; one block per kernel, KV type, threads\n\n");
    char tit[8192] = "";
    for (int i = 0; i < ss.n; i++) {
        pl_block(c, &ss.s[i]);
        pl_words(tit, sizeof tit, ss.s[i].title);
    }
    snprintf(c->vars, sizeof c->vars, "ns=%d; tit='%s'", ss.n, tit);
    pl_set_free(&ss);
}

/* plot_variants.c — the window chart: a sliding window's cost against N beside dense causal. */
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

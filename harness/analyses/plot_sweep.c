/* plot_sweep.c — the charts of a sweep and the ceilings: roofline, kernels, workspace, scaling. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "plot_int.h"

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

/* The distinct thread counts of S's rows, ascending (at most max). */
static int thread_counts(const pl_sweep *S, int *t, int max)
{
    int n = 0;
    for (int i = 0; i < S->n; i++) {
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = t[j] == S->r[i].threads;
        if (!seen && n < max) t[n++] = S->r[i].threads;
    }
    for (int i = 0; i < n; i++) /* insertion sort: few values */
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            int x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    return n;
}

/* The softmax ceilings at the largest thread count: the build level's flash step (the
 * fp32 rows' own) times FLOPs per score (counts.c: 4 d), one flat line per head
 * dimension of the sweep (up to 4; without a sweep d 64 and 128). A ceilings file without
 * them draws none. Returns the blocks written. */
static int softmax_roofs(const pl_sweep *S, const hr_ceilings *C, const char *isa, double xmin, double xmax,
                         pl_chart *c, char *rtit, size_t rlen, char *scol, size_t slen)
{
    static const char *const colour[4] = {"#bcbd22", "#7f7f7f", "#aec7e8", "#ff9896"};
    int ds[4], nd = 0, n = 0;
    for (int i = 0; i < S->n && nd < 4; i++) {
        int seen = 0;
        for (int k = 0; k < nd; k++) seen |= ds[k] == S->r[i].d_head;
        if (!seen && S->r[i].d_head > 0) ds[nd++] = S->r[i].d_head;
    }
    if (!nd) ds[nd++] = 64, ds[nd++] = 128;
    int sm = hr_softmax_for(HR_FMA_AVX512, "flash", isa);
    const hr_ceiling_row *r = C->nrows ? &C->rows[C->nrows - 1] : NULL;
    double g = r && sm >= 0 ? r->softmax[sm].best : 0;
    for (int k = 0; k < nd && g > 0; k++) {
        const hr_problem p = {.d_head = ds[k]};
        double y = g * hr_flops_per_score(&p);
        char t[160];
        snprintf(t, sizeof t, "softmax %s T%d d%d: %.0f GFLOP/s (%.2f Gscores/s)", hr_softmaxes[sm].name, r->threads,
                 ds[k], y, g);
        pl_words(rtit, rlen, t);
        pl_words(scol, slen, colour[k]);
        fprintf(c->dat, "# %s\n", t);
        pl_point(c, xmin, y, 0);
        pl_point(c, xmax, y, 0);
        fprintf(c->dat, "\n\n");
        n++;
    }
    if (!n) pl_words(scol, slen, "#000000");
    return n;
}

/* Roofline: every (kernel, threads) as points at (AI, GFLOP/s); per thread count the roof
 * min(peak, AI·BW) of the build's ISA; the other ISAs' peaks at the largest thread count
 * as dashed lines, the bf16 / int8 dot-product roofs there as coloured lines, the L1 / L2 /
 * L3 bandwidth roofs there as coloured slopes. Without a
 * sweep, the roofs alone. */
void pl_roofline(const pl_inputs *in, pl_chart *c)
{
    const pl_sweep *S = &in->S;
    const hr_ceilings *C = &in->C;
    double lo = INFINITY, hi = 0;
    pl_set pts = {0};
    char ptit[8192] = "", pcol[1024] = "", ptyp[1024] = "";
    const char *names[PL_MAXS];
    int nk = pl_kernels(S, 0, names, PL_MAXS), tlist[16];
    int nt = thread_counts(S, tlist, 16);
    static const int ptypes[] = {6, 7, 4, 5, 8, 9, 12, 13, 10, 11, 14, 15, 1, 2, 3, 0};
    for (int k = 0; k < nk; k++)
        for (int t = 0; t < nt; t++)
            for (int i = 0; i < S->n; i++) {
                const pl_srow *r = &S->r[i];
                if (strcmp(r->kernel, names[k]) || r->threads != tlist[t]) continue;
                if (!(r->ai > 0) || !(r->gflops > 0)) continue;
                /* one series per kernel, element types (bf16 rows sit under their own roof)
                 * and thread count */
                char title[160];
                snprintf(title, sizeof title, "%s%s%s%s", names[k], *r->types ? " " : "", r->types, r->peer);
                if (nt > 1) snprintf(title + strlen(title), sizeof title - strlen(title), " T%d", tlist[t]);
                int before = pts.n;
                pl_series *s = pl_get(&pts, title);
                if (!s) break;
                if (pts.n > before) {
                    pl_words(ptit, sizeof ptit, title);
                    pl_ints(pcol, sizeof pcol, k + 1);
                    pl_ints(ptyp, sizeof ptyp, r->peer[0] ? 3 : ptypes[t % 16]); /* a peer: a star */
                }
                /* Each (kernel, shape) is its own point: no collapsing by x here. */
                pl_add(s, r->ai, r->gflops, 0);
                lo = fmin(lo, r->ai), hi = fmax(hi, r->ai);
            }
    int m = C->nrows ? roof_isa(C, in->isa) : 0;
    for (int i = 0; i < C->nrows; i++) {
        double ridge = C->rows[i].fma[m].best / C->rows[i].triad.best;
        lo = fmin(lo, ridge), hi = fmax(hi, ridge);
        for (int k = 0; k < HR_DOT_N; k++) /* the dot roofs' ridges lie further right */
            if (C->rows[i].dot[k].best > 0) hi = fmax(hi, C->rows[i].dot[k].best / C->rows[i].triad.best);
        for (int l = 0; l < HR_CACHE_N; l++) /* the cache roofs' ridges lie further left */
            if (hr_ceiling_cache_bw(C, C->rows[i].threads, l) > 0)
                lo = fmin(lo, C->rows[i].fma[m].best / hr_ceiling_cache_bw(C, C->rows[i].threads, l));
    }
    if (!(hi > 0)) {
        pl_set_free(&pts);
        { pl_skip(c, "no row has both an arithmetic intensity and GFLOP/s (AI, GFLOPS) and no ceilings"); return; }
    }
    double xmin = exp2(floor(log2(lo)) - 1), xmax = exp2(ceil(log2(hi)) + 1);
    fprintf(c->dat, "# roofline: x = arithmetic intensity (FLOP/byte), y = GFLOP/s\n"
                    "# blocks 0..nroof-1: roof min(peak, AI*BW) per thread count; then npeak other-ISA\n"
                    "# peaks at the largest thread count; then ndot dot-product roofs (bf16 GFLOP/s,\n"
                    "# int8 GOP/s) at the largest thread count; then ncache cache-level roofs (L1, L2,\n"
                    "# L3 triad GB/s up to the FMA peak) at the largest thread count; then npts point\n"
                    "# sets (kernel, threads)\n\n");
    char rtit[4096] = "";
    int nroof = 0, npeak = 0;
    for (int i = 0; i < C->nrows; i++) {
        const hr_ceiling_row *r = &C->rows[i];
        double peak = r->fma[m].best, bw = r->triad.best, ridge = peak / bw;
        char t[160];
        snprintf(t, sizeof t, "roof T%d: %s %.0f GFLOP/s, triad %.1f GB/s", r->threads,
                 hr_fma_isa_names[m], peak, bw);
        pl_words(rtit, sizeof rtit, t);
        fprintf(c->dat, "# %s\n", t);
        pl_point(c, xmin, xmin * bw, 0);
        if (ridge > xmin && ridge < xmax) pl_point(c, ridge, peak, 0);
        pl_point(c, xmax, fmin(peak, xmax * bw), 0);
        fprintf(c->dat, "\n\n");
        nroof++;
    }
    if (C->nrows) {
        const hr_ceiling_row *r = &C->rows[C->nrows - 1];
        for (int k = 0; k < HR_FMA_NISA; k++) {
            if (k == m || r->fma[k].best <= 0) continue;
            char t[160];
            snprintf(t, sizeof t, "%s peak T%d: %.0f GFLOP/s", hr_fma_isa_names[k], r->threads, r->fma[k].best);
            pl_words(rtit, sizeof rtit, t);
            fprintf(c->dat, "# %s\n", t);
            pl_point(c, xmin, r->fma[k].best, 0);
            pl_point(c, xmax, r->fma[k].best, 0);
            fprintf(c->dat, "\n\n");
            npeak++;
        }
    }
    /* The dot-product roofs at the largest thread count: the triad's slope on from the
     * FMA ridge, then flat from their own ridge. */
    int ndot = 0;
    char dcol[256] = "";
    static const char *const dot_colour[HR_DOT_N] = {"#1f77b4", "#d62728", "#ff7f0e", "#2ca02c", "#17becf"};
    if (C->nrows) {
        const hr_ceiling_row *r = &C->rows[C->nrows - 1];
        for (int k = 0; k < HR_DOT_N; k++) {
            double peak = r->dot[k].best, bw = r->triad.best;
            if (!(peak > 0) || !(bw > 0)) continue;
            char t[160];
            snprintf(t, sizeof t, "%s roof T%d: %.0f %s", hr_dots[k].name, r->threads, peak, hr_dots[k].unit);
            pl_words(rtit, sizeof rtit, t);
            pl_words(dcol, sizeof dcol, dot_colour[k]);
            fprintf(c->dat, "# %s\n", t);
            double from = r->fma[m].best > 0 ? fmin(r->fma[m].best, peak) / bw : xmin;
            pl_point(c, fmax(xmin, from), fmax(xmin, from) * bw, 0);
            pl_point(c, peak / bw, peak, 0);
            pl_point(c, xmax, peak, 0);
            fprintf(c->dat, "\n\n");
            ndot++;
        }
    }
    if (!ndot) pl_words(dcol, sizeof dcol, "#000000"); /* gnuplot reads the colour of an empty loop too */
    /* The cache-level roofs at the largest thread count: each level's triad bandwidth as a
     * slope up to the build ISA's FMA peak (a row whose working set fits that level is
     * bound by it); labelled with the load figure too. */
    int ncache = 0;
    char ccol[128] = "";
    static const char *const cache_colour[HR_CACHE_N] = {"#9467bd", "#8c564b", "#e377c2"};
    if (C->nrows) {
        const hr_ceiling_row *r = &C->rows[C->nrows - 1];
        for (int l = 0; l < HR_CACHE_N; l++) {
            /* the level measured off the bandwidth curve, else the roof at half the
             * reported size (hr_ceiling_cache_bw) */
            const int meas = r->nlevels > 0;
            double bw = hr_ceiling_cache_bw(C, r->threads, l), peak = r->fma[m].best;
            if (!(bw > 0) || !(peak > 0)) continue;
            char t[160];
            snprintf(t, sizeof t, "%s roof T%d: triad %.0f GB/s, load %.0f GB/s%s", hr_cache_names[l], r->threads, bw,
                     meas ? r->levels[l].load : r->cache[l].load.best, meas ? " (measured level)" : "");
            pl_words(rtit, sizeof rtit, t);
            pl_words(ccol, sizeof ccol, cache_colour[l]);
            fprintf(c->dat, "# %s\n", t);
            pl_point(c, xmin, xmin * bw, 0);
            pl_point(c, fmin(xmax, peak / bw), fmin(xmax * bw, peak), 0);
            fprintf(c->dat, "\n\n");
            ncache++;
        }
    }
    if (!ncache) pl_words(ccol, sizeof ccol, "#000000");
    char scol[128] = "";
    int nsmx = softmax_roofs(S, C, in->isa, xmin, xmax, c, rtit, sizeof rtit, scol, sizeof scol);
    for (int i = 0; i < pts.n; i++) {
        const pl_series *s = &pts.s[i];
        fprintf(c->dat, "# %s\n", s->title);
        for (int j = 0; j < s->n; j++) pl_point(c, s->p[j][0], s->p[j][1], 0);
        fprintf(c->dat, "\n\n");
    }
    snprintf(c->vars, sizeof c->vars,
             "nroof=%d; npeak=%d; ndot=%d; ncache=%d; nsmx=%d; npts=%d; rtit='%s'; dcol='%s'; ccol='%s'; "
             "scol='%s'; ptit='%s'; pcol='%s'; ptyp='%s'; xmin=%g; xmax=%g",
             nroof, npeak, ndot, ncache, nsmx, pts.n, rtit, dcol, ccol, scol, ptit, pcol, ptyp, xmin, xmax);
    pl_set_free(&pts);
}

/* Kernels: GFLOP/s vs N per kernel (base shape, each kernel at its largest thread count);
 * left panel non-causal, right causal; one panel when the sweep has one kind. */
void pl_kernels_chart(const pl_inputs *in, pl_chart *c)
{
    const pl_sweep *S = &in->S;
    const char *names[PL_MAXS / 2];
    int nk = pl_kernels(S, 1, names, PL_MAXS / 2);
    if (!nk) { pl_skip(c, "no prefill rows (Nq = Nkv) in the sweep"); return; }
    pl_set ss = {0};
    char tit[2][4096] = {"", ""}, kdt[256] = "";
    int has[2] = {0, 0};
    for (int causal = 0; causal < 2; causal++)
        for (int k = 0; k < nk; k++) {
            int t = pl_max_threads(S, names[k]);
            char title[160];
            snprintf(title, sizeof title, "%s T%d%s", names[k], t, causal ? " causal" : "");
            pl_series *s = pl_get(&ss, title);
            for (int i = 0; i < S->n; i++) {
                const pl_srow *r = &S->r[i];
                if (pl_in_base(S, r) && r->causal == causal && r->threads == t && !strcmp(r->kernel, names[k]))
                    pl_add(s, r->seq_kv, r->gflops, 0);
            }
            snprintf(title, sizeof title, "%s%s T%d", names[k], pl_peer_of(S, names[k]), t);
            pl_words(tit[causal], sizeof tit[causal], s && s->n ? title : "");
            if (!causal) pl_ints(kdt, sizeof kdt, pl_peer_of(S, names[k])[0] ? 2 : 1); /* a peer: dashed */
            has[causal] |= s && s->n;
        }
    if (!has[0] && !has[1]) {
        pl_set_free(&ss);
        { pl_skip(c, "no GFLOPS in the sweep's prefill rows"); return; }
    }
    fprintf(c->dat, "# kernels: x = N, y = median GFLOP/s; blocks 0..nk-1 non-causal, nk..2nk-1 causal;\n"
                    "# blocks 2nk.. the FMA peak at each thread count shown (the roof at large N)\n\n");
    for (int i = 0; i < ss.n; i++) pl_block(c, &ss.s[i]);
    /* The roof: every attention kernel's AI grows with N, so past the ridge its bound is
     * the FMA peak of its thread count; one flat line per thread count the chart shows. */
    double xlo = INFINITY, xhi = 0;
    for (int i = 0; i < ss.n; i++)
        for (int j = 0; j < ss.s[i].n; j++) xlo = fmin(xlo, ss.s[i].p[j][0]), xhi = fmax(xhi, ss.s[i].p[j][0]);
    int ts[8], nt = 0, nroof = 0;
    char rtit[1024] = "";
    for (int k = 0; k < nk && in->C.nrows; k++) {
        const int t = pl_max_threads(S, names[k]);
        int seen = 0;
        for (int j = 0; j < nt; j++) seen |= ts[j] == t;
        if (seen || nt == 8) continue;
        ts[nt++] = t;
        const int m = roof_isa(&in->C, in->isa);
        const double peak = hr_ceiling_fma(&in->C, t, hr_fma_isa_names[m]);
        if (!(peak > 0) || !(xhi > 0)) continue;
        char title[96];
        snprintf(title, sizeof title, "%s FMA peak T%d: %.0f GFLOP/s", hr_fma_isa_names[m], t, peak);
        fprintf(c->dat, "# %s\n%.9g %.9g 0\n%.9g %.9g 0\n\n\n", title, xlo, peak, xhi, peak);
        pl_words(rtit, sizeof rtit, title);
        nroof++;
    }
    pl_set_free(&ss);
    int n = snprintf(c->vars, sizeof c->vars, "nk=%d; tit0='%s'; tit1='%s'; kdt='%s'; shape='%s'; nroof=%d; rtit='%s'",
                     nk, tit[0], tit[1], kdt, S->shape, nroof, rtit);
    if (has[0] != has[1] && n > 0 && (size_t)n < sizeof c->vars) /* a panel without data is left out */
        snprintf(c->vars + n, sizeof c->vars - (size_t)n, "; only=%d", has[1]);
}

/* Workspace: working memory vs N per kernel (base shape, largest thread count, the larger
 * of the causal and non-causal figures). */
void pl_workspace(const pl_inputs *in, pl_chart *c)
{
    const pl_sweep *S = &in->S;
    const char *names[PL_MAXS];
    int nk = pl_kernels(S, 1, names, PL_MAXS);
    if (!nk) { pl_skip(c, "no prefill rows (Nq = Nkv) in the sweep"); return; }
    pl_set ss = {0};
    char tit[8192] = "", none[512] = "";
    for (int k = 0; k < nk; k++) {
        int t = pl_max_threads(S, names[k]);
        char title[128];
        snprintf(title, sizeof title, "%s T%d", names[k], t);
        pl_series *s = pl_get(&ss, title);
        int zero = 0;
        for (int i = 0; i < S->n; i++) {
            const pl_srow *r = &S->r[i];
            if (!pl_in_base(S, r) || r->threads != t || strcmp(r->kernel, names[k])) continue;
            if (r->ws > 0) pl_add(s, r->seq_kv, r->ws / 1048576.0, 0);
            else zero = 1;
        }
        /* Keep the larger figure per N: sort by (x, y) and drop all but the last of each x. */
        if (s && s->n) {
            qsort(s->p, (size_t)s->n, sizeof *s->p, pl_by_x_then_y);
            int out = 0;
            for (int i = 0; i < s->n; i++)
                if (i + 1 == s->n || s->p[i + 1][0] != s->p[i][0]) memmove(s->p[out++], s->p[i], sizeof *s->p);
            s->n = out;
        }
        pl_words(tit, sizeof tit, s && s->n ? title : "");
        if (zero && !(s && s->n)) {
            if (*none) strncat(none, ", ", sizeof none - strlen(none) - 1);
            strncat(none, names[k], sizeof none - strlen(none) - 1);
        }
    }
    fprintf(c->dat, "# workspace: x = N, y = workspace MiB (harness-allocated scratch of the kernel)\n\n");
    for (int i = 0; i < ss.n; i++) pl_block(c, &ss.s[i]);
    pl_set_free(&ss);
    if (!c->points) { pl_skip(c, "no kernel of the sweep has a workspace (workspace_bytes)"); return; }
    snprintf(c->vars, sizeof c->vars, "nk=%d; tit='%s'; shape='%s'; none='%s'", nk, tit, S->shape, none);
}

/* The largest N kernel was measured at with two or more thread counts on the base shape,
 * non-causal if it has one (*causal says which); 0 when none. */
static int scaling_n(const pl_sweep *S, const char *kernel, int *causal)
{
    int bestn = 0;
    *causal = -1;
    for (int c = 0; c < 2 && *causal < 0; c++)
        for (int i = 0; i < S->n; i++) {
            const pl_srow *a = &S->r[i];
            if (!pl_in_base(S, a) || a->causal != c || strcmp(a->kernel, kernel) || a->seq_kv <= bestn) continue;
            int other = 0;
            for (int j = 0; j < S->n && !other; j++) {
                const pl_srow *b = &S->r[j];
                other = pl_in_base(S, b) && b->causal == c && b->seq_kv == a->seq_kv &&
                        b->threads != a->threads && !strcmp(b->kernel, a->kernel);
            }
            if (other) bestn = a->seq_kv, *causal = c;
        }
    return bestn;
}

/* Scaling: per threaded kernel, GFLOP/s vs threads at the largest N measured at two or
 * more thread counts; the FMA ceiling per thread count. z = speed-up over the series'
 * smallest thread count. */
void pl_scaling(const pl_inputs *in, pl_chart *c)
{
    const pl_sweep *S = &in->S;
    const hr_ceilings *C = &in->C;
    const char *names[PL_MAXS];
    int nk = pl_kernels(S, 1, names, PL_MAXS - 1), ns = 0, tmin0 = 0;
    pl_set ss = {0};
    char tit[8192] = "", cols[1024] = "";
    for (int k = 0; k < nk; k++) {
        int causal, n = scaling_n(S, names[k], &causal);
        if (causal < 0) continue;
        char title[128];
        snprintf(title, sizeof title, "%s N%d%s", names[k], n, causal ? " causal" : "");
        pl_series *s = pl_get(&ss, title);
        if (!s) break;
        for (int i = 0; i < S->n; i++) {
            const pl_srow *r = &S->r[i];
            if (pl_in_base(S, r) && r->causal == causal && r->seq_kv == n && !strcmp(r->kernel, names[k]))
                pl_add(s, r->threads, r->gflops, 0);
        }
        if (!s->n) { /* no GFLOP/s in its rows */
            pl_drop_last(&ss);
            continue;
        }
        pl_tidy(s);
        for (int i = 0; i < s->n; i++) s->p[i][2] = s->p[i][1] / s->p[0][1];
        tmin0 = tmin0 ? (int)fmin(tmin0, s->p[0][0]) : (int)s->p[0][0];
        pl_words(tit, sizeof tit, title);
        pl_ints(cols, sizeof cols, k + 1); /* the kernels chart's colour */
        ns++;
    }
    if (!ns) {
        pl_set_free(&ss);
        { pl_skip(c, "no kernel has GFLOP/s at two or more thread counts on one shape"); return; }
    }
    int tmax = 0;
    for (int i = 0; i < ss.n; i++) tmax = (int)fmax(tmax, ss.s[i].p[ss.s[i].n - 1][0]);
    fprintf(c->dat, "# scaling: x = threads, y = median GFLOP/s, z = speed-up over the series' fewest threads\n"
                    "# blocks 0..ns-1 kernels; block ns (when nceil=1) the FMA ceiling\n\n");
    for (int i = 0; i < ss.n; i++) pl_block(c, &ss.s[i]);
    pl_set_free(&ss);
    int nceil = 0;
    if (C->nrows) {
        int m = roof_isa(C, in->isa);
        char t[96];
        snprintf(t, sizeof t, "FMA ceiling (%s)", hr_fma_isa_names[m]);
        pl_words(tit, sizeof tit, t);
        fprintf(c->dat, "# %s\n", t);
        double base = C->rows[0].fma[m].best;
        for (int i = 0; i < C->nrows && (C->rows[i].threads <= tmax || i == 0); i++)
            pl_point(c, C->rows[i].threads, C->rows[i].fma[m].best, C->rows[i].fma[m].best / base);
        fprintf(c->dat, "\n\n");
        nceil = 1;
    }
    snprintf(c->vars, sizeof c->vars, "ns=%d; nceil=%d; tit='%s'; cols='%s'; shape='%s'; tmax=%d; tmin0=%d", ns,
             nceil, tit, cols, S->shape, tmax, tmin0);
}

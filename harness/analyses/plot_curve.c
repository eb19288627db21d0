/* plot_curve.c — the bandwidth-curve chart: load and triad GB/s over the working set per thread count, the knees read off it, the reported cache sizes. */
#include <stdio.h>
#include <string.h>

#include "plot_int.h"

/* Blocks: per thread count with a curve, its triad then its load curve; then one block
 * of the knees (x: the level's size, y: its triad GB/s, per thread count). Variables:
 * ncurve (curve blocks), ctit (their titles), nknee (knee blocks, one per thread
 * count), ktit, rep (the reported sizes of the largest thread count's team, L1 L2 L3,
 * in bytes), rtit (their names). */
void pl_cachecurve(const pl_inputs *in, pl_chart *c)
{
    const hr_ceilings *C = &in->C;
    int ncurve = 0, nknee = 0, last = -1;
    char ctit[4096] = "", ktit[1024] = "", rep[256] = "", rtit[256] = "";
    for (int i = 0; i < C->nrows; i++)
        if (C->rows[i].ncurve) last = i;
    if (last < 0) {
        pl_skip(c, "the ceilings have no bandwidth curve (written before it; headroom roofline measures one)");
        return;
    }
    fprintf(c->dat, "# bandwidth curve: x = the team's working set (bytes), y = GB/s (best of the repetitions)\n"
                    "# blocks: per thread count its triad then its load curve; then per thread count its knees\n"
                    "# (x = the level's size, y = its triad GB/s)\n\n");
    for (int i = 0; i < C->nrows; i++) {
        const hr_ceiling_row *r = &C->rows[i];
        if (!r->ncurve) continue;
        for (int k = 0; k < 2; k++) {
            char t[64];
            snprintf(t, sizeof t, "%s T%d", k ? "load" : "triad", r->threads);
            pl_words(ctit, sizeof ctit, t);
            fprintf(c->dat, "# %s\n", t);
            for (int j = 0; j < r->ncurve; j++)
                pl_point(c, r->curve[j].ws_bytes, k ? r->curve[j].load : r->curve[j].triad, 0);
            fprintf(c->dat, "\n\n");
            ncurve++;
        }
    }
    for (int i = 0; i < C->nrows; i++) {
        const hr_ceiling_row *r = &C->rows[i];
        if (!r->ncurve) continue;
        char t[64];
        snprintf(t, sizeof t, "knees T%d (%d level%s)", r->threads, r->nlevels, r->nlevels == 1 ? "" : "s");
        pl_words(ktit, sizeof ktit, t);
        fprintf(c->dat, "# %s\n", t);
        if (!r->nlevels) fprintf(c->dat, "NaN NaN NaN\n");
        for (int l = 0; l < r->nlevels; l++) pl_point(c, r->levels[l].size, r->levels[l].triad, 0);
        fprintf(c->dat, "\n\n");
        nknee++;
    }
    for (int l = 0; l < HR_CACHE_N; l++) {
        double b = hr_reported_level_bytes(l, C->rows[last].threads);
        if (!(b > 0)) continue;
        snprintf(rep + strlen(rep), sizeof rep - strlen(rep), "%s%.0f", rep[0] ? " " : "", b);
        char t[48];
        snprintf(t, sizeof t, "%s reported (T%d)", hr_cache_names[l], C->rows[last].threads);
        pl_words(rtit, sizeof rtit, t);
    }
    snprintf(c->vars, sizeof c->vars, "ncurve=%d; ctit='%s'; nknee=%d; ktit='%s'; rep='%s'; rtit='%s'", ncurve, ctit,
             nknee, ktit, rep, rtit);
}

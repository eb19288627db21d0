/* test_cachecurve.c — the knee finder over made-up curves: three true levels, one level, a noisy non-monotone curve, a VM whose reported L3 is 15x the real one. */
#include <math.h>
#include <string.h>

#include "cachecurve.h"
#include "t.h"

#define KIB 1024.0
#define MIB 1048576.0

/* A curve 4 points per octave from 4 KiB to `top`: a sweep of ws bytes runs at the
 * bandwidth gbs[l] of the smallest level that holds it (sizes[l]; memory, gbs[nl], beyond
 * the last), falling to the next level's over half an octave past each size (log-log),
 * as an LRU cache thrashes once a cyclic sweep outgrows it. */
static int made_up(const double *sizes, const double *gbs, int nl, double top, double *ws, double *bw)
{
    int n = 0;
    for (double w = 4 * KIB; w <= top * 1.0001 && n < 96; w *= pow(2, 0.25), n++) {
        double lg = log(gbs[0]);
        for (int l = 0; l < nl; l++) {
            double t = fmin(1, fmax(0, log2(w / sizes[l]) / 0.5));
            lg += t * (log(gbs[l + 1]) - log(gbs[l]));
        }
        ws[n] = w;
        bw[n] = exp(lg);
    }
    return n;
}

static int within(double got, double want, double factor) { return got >= want / factor && got <= want * factor; }

HR_TEST(cachecurve_three_levels)
{
    const double sizes[] = {48 * KIB, 1 * MIB, 32 * MIB}, gbs[] = {400, 150, 60, 20};
    double ws[96], bw[96];
    int n = made_up(sizes, gbs, 3, 4 * 32 * MIB, ws, bw);
    hr_plateau p[HR_LEVELS_MAX];
    char note[256];
    int k = hr_curve_levels(ws, bw, n, p, HR_LEVELS_MAX, note, sizeof note);
    CHECKF(k == 4, "%d plateaus (%s)", k, note);
    CHECKF(!note[0], "note: %s", note);
    for (int l = 0; l < 3 && l < k; l++) {
        CHECKF(within(p[l].size, sizes[l], 2), "level %d at %.0f KiB, true %.0f", l, p[l].size / KIB, sizes[l] / KIB);
        CHECKF(within(p[l].bw, gbs[l], 1.15), "level %d %.1f GB/s, true %.1f", l, p[l].bw, gbs[l]);
    }
    if (k == 4) CHECK(p[3].size == 0 && within(p[3].median, 20, 1.2));
}

/* One level: flat within a few percent, no knee, a note, and no level made up. */
HR_TEST(cachecurve_one_level)
{
    double ws[64], bw[64];
    int n = 0;
    for (double w = 4 * KIB; w <= 64 * MIB; w *= 2, n++) ws[n] = w, bw[n] = 30 * (1 + 0.03 * ((n * 7) % 5 - 2) / 2);
    hr_plateau p[HR_LEVELS_MAX];
    char note[256];
    int k = hr_curve_levels(ws, bw, n, p, HR_LEVELS_MAX, note, sizeof note);
    CHECKF(k == 1, "%d plateaus", k);
    CHECKF(strstr(note, "no knee") != NULL, "note: '%s'", note);
    CHECK(strchr(note, '\n') == NULL);
    CHECK(p[0].size == 0 && within(p[0].bw, 30, 1.1));
}

/* Noise: a two-point dip inside L2 that recovers, and a rise at the start (loop overhead
 * at tiny sizes). The dip makes no level; the real L1/L2 knee stays. */
HR_TEST(cachecurve_noisy_non_monotone)
{
    const double sizes[] = {48 * KIB, 1 * MIB}, gbs[] = {300, 120, 25};
    double ws[96], bw[96];
    int n = made_up(sizes, gbs, 2, 16 * MIB, ws, bw);
    bw[0] *= 0.6, bw[1] *= 0.6, bw[2] *= 0.6; /* slow start: 4-6.7 KiB */
    int dip = 0;
    while (ws[dip] < 256 * KIB) dip++;
    bw[dip] *= 0.5, bw[dip + 1] *= 0.5, bw[dip + 2] *= 0.5;
    for (int i = 0; i < n; i++) bw[i] *= 1 + 0.04 * ((i * 5) % 3 - 1); /* +-4% jitter */
    hr_plateau p[HR_LEVELS_MAX];
    char note[256];
    int k = hr_curve_levels(ws, bw, n, p, HR_LEVELS_MAX, note, sizeof note);
    CHECKF(k == 3, "%d plateaus (%s)", k, note);
    CHECKF(note[0] && strchr(note, '\n') == NULL, "note: '%s'", note);
    if (k == 3) {
        CHECKF(within(p[0].size, 48 * KIB, 2), "L1 at %.0f KiB", p[0].size / KIB);
        CHECKF(within(p[1].size, 1 * MIB, 2), "L2 at %.0f KiB", p[1].size / KIB);
    }
    /* Pure noise, up and down by 40% with no trend: no knee. */
    for (int i = 0; i < n; i++) bw[i] = 50 * (i % 2 ? 1.4 : 1.0);
    k = hr_curve_levels(ws, bw, n, p, HR_LEVELS_MAX, note, sizeof note);
    CHECKF(k <= 1, "%d plateaus from noise (%s)", k, note);
    CHECK(note[0]);
    /* Bad input: a working set that does not increase. */
    ws[3] = ws[2];
    CHECK(hr_curve_levels(ws, bw, n, p, HR_LEVELS_MAX, note, sizeof note) == 0 && note[0]);
    CHECK(hr_curve_levels(ws, bw, 2, p, HR_LEVELS_MAX, note, sizeof note) == 0 && strstr(note, "too few"));
}

/* A VM that reports a 480 MiB L3 where the part has 32 MiB: the curve finds the real
 * one, and it disagrees with the reported one by more than 2x. */
HR_TEST(cachecurve_vm_reported_l3_15x)
{
    const double sizes[] = {48 * KIB, 2 * MIB, 32 * MIB}, gbs[] = {350, 140, 70, 30};
    const double reported = 15 * 32 * MIB;
    double ws[96], bw[96];
    int n = made_up(sizes, gbs, 3, 4 * reported > 1024 * MIB ? 1024 * MIB : 4 * reported, ws, bw);
    hr_plateau p[HR_LEVELS_MAX];
    char note[256];
    int k = hr_curve_levels(ws, bw, n, p, HR_LEVELS_MAX, note, sizeof note);
    CHECKF(k == 4, "%d plateaus (%s)", k, note);
    if (k == 4) {
        CHECKF(within(p[2].size, 32 * MIB, 2), "L3 at %.0f MiB", p[2].size / MIB);
        CHECK(hr_level_disagrees(p[2].size, reported, 2));
        CHECK(!hr_level_disagrees(p[0].size, 48 * KIB, 2));
        CHECKF(within(p[3].median, 30, 1.2), "memory %.1f GB/s", p[3].median);
    }
    CHECK(!hr_level_disagrees(0, reported, 2));
}

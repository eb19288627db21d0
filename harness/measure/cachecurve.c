/* cachecurve.c — the cache levels read off a bandwidth curve: smooth, cut into plateaus, keep the knees where the bandwidth falls and stays down. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachecurve.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double med3(double a, double b, double c)
{
    double v[3] = {a, b, c};
    qsort(v, 3, sizeof v[0], cmp_double);
    return v[1];
}

/* Median and best of s[first..last] (smoothed) and raw[first..last]. */
static void stats(const double *s, const double *raw, hr_plateau *p)
{
    int n = p->last - p->first + 1;
    double *v = malloc(sizeof(double) * (size_t)n);
    double best = 0;
    for (int i = 0; i < n; i++) {
        v[i] = s[p->first + i];
        if (raw[p->first + i] > best) best = raw[p->first + i];
    }
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    p->median = n % 2 ? v[n / 2] : sqrt(v[n / 2 - 1] * v[n / 2]);
    p->bw = best;
    free(v);
}

/* Where the smoothed curve first falls below thr after index from: log-log interpolated
 * between the two points around the crossing. */
static double crossing(const double *ws, const double *s, int from, int to, double thr)
{
    for (int i = from + 1; i <= to; i++)
        if (s[i] < thr) {
            double y0 = log(s[i - 1]), y1 = log(s[i]), t = y0 > y1 ? (y0 - log(thr)) / (y0 - y1) : 0;
            return exp(log(ws[i - 1]) + t * (log(ws[i]) - log(ws[i - 1])));
        }
    return ws[to];
}

static double kib(double b) { return b / 1024; }

int hr_curve_levels(const double *ws, const double *bw, int n, hr_plateau *out, int max, char *note,
                    size_t notelen)
{
    if (note && notelen) note[0] = 0;
    if (max < 1) return 0;
    for (int i = 0; i < n; i++)
        if (!(ws[i] > 0) || !(bw[i] > 0) || !isfinite(bw[i]) || (i && !(ws[i] > ws[i - 1]))) {
            if (note) snprintf(note, notelen, "the curve's point %d is not a positive, increasing working set "
                                              "with a positive bandwidth: no levels read", i);
            return 0;
        }
    if (n < 3) {
        if (note) snprintf(note, notelen, "the curve has %d point%s, too few to read levels from", n, n == 1 ? "" : "s");
        return 0;
    }
    double *s = malloc(sizeof(double) * (size_t)n);
    s[0] = bw[0], s[n - 1] = bw[n - 1];
    for (int i = 1; i + 1 < n; i++) s[i] = med3(bw[i - 1], bw[i], bw[i + 1]);
    /* Runs of points within the spread of each other; one-point runs are transitions. */
    hr_plateau runs[256];
    int nr = 0;
    for (int i = 0; i < n;) {
        double lo = s[i], hi = s[i];
        int j = i + 1;
        while (j < n && fmax(hi, s[j]) / fmin(lo, s[j]) <= HR_PLATEAU_SPREAD) {
            lo = fmin(lo, s[j]), hi = fmax(hi, s[j]);
            j++;
        }
        if (j - i >= 2 && nr < (int)(sizeof runs / sizeof runs[0])) {
            runs[nr] = (hr_plateau){.first = i, .last = j - 1};
            stats(s, bw, &runs[nr]);
            nr++;
        }
        i = j;
    }
    /* Levels: a run that falls HR_KNEE_DROP below the level before and stays down starts
     * a new one; any other run joins the level before, and a level is represented by its
     * longest run (the flat part; the short runs on a slope between two levels are not). */
    int nk = 0, len[HR_LEVELS_MAX] = {0};
    char why[160] = "";
    for (int r = 0; r < nr; r++) {
        hr_plateau p = runs[r];
        int plen = p.last - p.first + 1;
        if (!nk) {
            out[nk] = p, len[nk++] = plen;
            continue;
        }
        hr_plateau *k = &out[nk - 1];
        double later = 0;
        for (int i = p.first; i < n; i++) later = fmax(later, s[i]);
        int knee = k->median / p.median >= HR_KNEE_DROP && later * HR_KNEE_DROP <= k->median;
        if (knee && nk < max) {
            out[nk] = p, len[nk++] = plen;
            continue;
        }
        if (!why[0] && p.median > k->median * HR_KNEE_DROP &&
            !(nk == 1 && plen > len[0])) /* the smallest sets run slow on loop overhead */
            snprintf(why, sizeof why, "the curve is not monotone: it rises from %.1f to %.1f GB/s at %.0f KiB",
                     k->median, p.median, kib(ws[p.first]));
        else if (!why[0] && knee)
            snprintf(why, sizeof why, "more than %d levels: the knee at %.0f KiB is left out", max - 1,
                     kib(ws[p.first]));
        else if (!why[0] && k->median / p.median >= HR_KNEE_DROP)
            snprintf(why, sizeof why, "the curve dips to %.1f GB/s at %.0f KiB and climbs back", p.median,
                     kib(ws[p.first]));
        if (plen > len[nk - 1]) *k = p, len[nk - 1] = plen;
    }
    /* Each knee: where the smoothed curve falls half-way (in log) from one level's flat
     * run to the next's. */
    for (int l = 0; l + 1 < nk; l++)
        out[l].size = crossing(ws, s, out[l].last, out[l + 1].first, sqrt(out[l].median * out[l + 1].median));
    if (nk) out[nk - 1].size = 0;
    free(s);
    if (!note) return nk;
    if (!nk)
        snprintf(note, notelen, "the curve has no plateau (no two neighbours within %.0f%%): no levels read",
                 (HR_PLATEAU_SPREAD - 1) * 100);
    else if (nk == 1)
        snprintf(note, notelen, "the curve has no knee (one level, %.1f GB/s, %.0f KiB to %.0f KiB)%s%s", out[0].median,
                 kib(ws[out[0].first]), kib(ws[out[0].last]), why[0] ? "; " : "", why);
    else if (why[0])
        snprintf(note, notelen, "%s; knees only where it falls %.1fx and stays down", why, HR_KNEE_DROP);
    return nk;
}

int hr_level_disagrees(double measured, double reported, double factor)
{
    if (!(measured > 0) || !(reported > 0)) return 0;
    return measured > reported * factor || reported > measured * factor;
}

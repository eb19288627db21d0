/* cachecurve.h — the cache levels read off a bandwidth curve (GB/s over working sets): plateaus, the knees between them, and how they compare with the levels the topology reports. Pure functions. */
#ifndef HR_CACHECURVE_H
#define HR_CACHECURVE_H

#include <stddef.h>

/* A level of the curve: runs of points whose smoothed bandwidths lie within
 * HR_PLATEAU_SPREAD of each other, those after the first that do not fall HR_KNEE_DROP
 * below it (and stay down) joined to it. */
#define HR_PLATEAU_SPREAD 1.15
#define HR_KNEE_DROP 1.3
#define HR_LEVELS_MAX 8

typedef struct {
    int first, last;  /* indices of the first and last point of its flat part: the
                       * longest run of the level                                      */
    double bw;        /* the best bandwidth of its points: the level's roof            */
    double median;    /* the median of its smoothed points                             */
    double size;      /* bytes: where the curve falls half-way (in log bandwidth) from
                       * this plateau to the next; 0 for the last plateau (the memory
                       * beyond the last knee)                                          */
} hr_plateau;

/* Reads the levels off a curve: n points of working set ws[i] (increasing, bytes) and
 * bandwidth bw[i] (GB/s). The curve is smoothed (median of three neighbours), cut into
 * plateaus, and a knee is placed between two plateaus only where the bandwidth falls by
 * HR_KNEE_DROP or more and stays down (no later point climbs back to within
 * HR_KNEE_DROP of the plateau before); any other plateau joins the one before it.
 * Writes the plateaus in order (at most max; the last is whatever lies beyond the last
 * knee) and returns their number: 1 means no knee. note gets one line when the curve
 * supports fewer levels than it seems to have (no knee, a rise, a dip that recovers, too
 * few points), else "". Never invents a level: every plateau is points of the curve. */
int hr_curve_levels(const double *ws, const double *bw, int n, hr_plateau *out, int max, char *note,
                    size_t notelen);

/* Whether a measured level size and a reported one disagree by more than `factor`
 * (either way); 0 when either is missing (<= 0). */
int hr_level_disagrees(double measured, double reported, double factor);

#endif

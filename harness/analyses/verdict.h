/* verdict.h — a compared file as a whole: the machine's common shift, estimated from the
 * rows and their probes, that compare takes out before it judges each row. */
#ifndef HR_VERDICT_H
#define HR_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

/* A row's verdict (and the verdict on the code's share of a common shift). */
typedef enum {
    HR_VERDICT_SAME,        /* within the threshold                                   */
    HR_VERDICT_NOISE,       /* beyond the threshold but not significant (adjusted p >= alpha) */
    HR_VERDICT_REGRESSION,  /* worse beyond the threshold and significant (or untested) */
    HR_VERDICT_IMPROVEMENT, /* better beyond the threshold and significant (or untested) */
} hr_verdict;
extern const char *const hr_verdict_names[]; /* "same", "noise", "REGRESSION", "IMPROVEMENT" */

/* Fewer matched rows than this: no common shift is estimated. */
#define HR_SHIFT_MIN_ROWS 6

/* What the rows' common movement was attributed to. The last three leave the file
 * undecided ("cannot separate machine from code", compare's exit status 3). */
typedef enum {
    HR_SHIFT_OFF,          /* --no-shift: nothing taken out                                */
    HR_SHIFT_FEW,          /* fewer than HR_SHIFT_MIN_ROWS rows: nothing taken out         */
    HR_SHIFT_MACHINE,      /* the probes explain the common shift c: s = c                 */
    HR_SHIFT_UNPROBED,     /* no probes, |c| <= threshold: s = c                           */
    HR_SHIFT_CODE,         /* the probes do not explain c: s = m, the rest is the code's   */
    HR_SHIFT_UNEVEN,       /* undecided: the rows scatter around c by more than threshold  */
    HR_SHIFT_UNATTRIBUTED, /* undecided: |c| > threshold and no probes to attribute it     */
    HR_SHIFT_DISAGREE,     /* undecided: the probes moved beyond threshold, rows did not   */
} hr_shift_kind;
extern const char *const hr_shift_kind_names[]; /* "off", "few-rows", "machine", ... */

/* All shifts are natural logs of new / base in the judged metric's own units (time or
 * frac_of_ceiling), so exp(-s) is the factor that takes a shift out of new samples. */
typedef struct {
    hr_shift_kind kind;
    int nrows;      /* matched rows c is the median over                                  */
    int nprobed;    /* rows with the same probe in both files (m is the median over them) */
    double c;       /* common shift: median over rows of log(median new / median base)    */
    double mad;     /* spread: median over rows of |log ratio - c|                        */
    double m;       /* the machine's shift as the probes see it; NAN without probes       */
    double s;       /* the shift taken out: every new sample is multiplied by exp(-s)     */
    bool undecided; /* machine and code cannot be separated                               */
    double code_p;  /* HR_SHIFT_CODE: two-sided sign test of the rows' log ratios against
                     * s (how many moved beyond the probes' shift in each direction);
                     * NAN otherwise                                                       */
} hr_shift;

/* Estimates the shift of a file of n rows from d[i] = log(median new / median base) of
 * each row and pm[i] = the change of the metric its probes predict (for time,
 * -log(probe new / probe base); NAN where the row has no probe comparable across the
 * files). in_metric: the metric is already relative to the probes (normalized), so the
 * machine's shift is 0 by construction. T = log(1 + threshold_pct / 100):
 *   off, or n < HR_SHIFT_MIN_ROWS          nothing taken out (s = 0);
 *   mad > T                                undecided (uneven);
 *   fewer than HR_SHIFT_MIN_ROWS probed    |c| <= T: s = c; else undecided;
 *   |c - m| <= T / 2                       s = c (the machine);
 *   |m| > T                                undecided (the rows did not follow the probes);
 *   otherwise                              s = m (the rest of c is the code's).
 * Undecided files have s = 0. Never fails. */
hr_shift hr_shift_estimate(const double *d, const double *pm, int n, bool in_metric,
                           double threshold_pct, bool on);

/* The verdict on the code's share of the common shift, c - s, as one more test: beyond
 * the threshold and code_p < alpha is HR_VERDICT_REGRESSION (worse: slower for time,
 * lower for normalized) or HR_VERDICT_IMPROVEMENT; beyond the threshold otherwise
 * HR_VERDICT_NOISE; else (and for every kind but HR_SHIFT_CODE) HR_VERDICT_SAME. So a
 * change that slows every row alike, which the probes do not see, fails the gate even
 * when no row alone is significant. */
hr_verdict hr_shift_code_verdict(const hr_shift *s, bool lower_is_better, double threshold_pct,
                          double alpha);

/* One sentence for the reports (no newline): what moved, by how much, whose it is and
 * what was taken out, e.g. "the new run was 21.0% faster across 28 rows (spread 0.9%):
 * the machine, not the code (probes: 20.0% faster); rows judged relative to it".
 * lower_is_better: the metric is time (words "faster"/"slower", else "higher"/"lower"). */
void hr_shift_describe(const hr_shift *s, bool lower_is_better, double threshold_pct,
                       char *buf, size_t len);

#endif

/* verdict.c — the common shift of a compared file: estimated from the rows' medians, attributed
 * to the machine by the probes, or left undecided. */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"

const char *const hr_verdict_names[] = {"same", "noise", "REGRESSION", "IMPROVEMENT", NULL};
const char *const hr_shift_kind_names[] = {"off",    "few-rows",     "machine",  "unprobed", "code",
                                           "uneven", "unattributed", "disagree", NULL};

hr_shift hr_shift_estimate(const double *d, const double *pm, int n, bool in_metric,
                           double threshold_pct, bool on)
{
    hr_shift sh = {.kind = on ? HR_SHIFT_FEW : HR_SHIFT_OFF, .nrows = n, .c = NAN, .mad = NAN,
                   .m = NAN, .s = 0, .code_p = NAN};
    if (n <= 0) return sh;
    sh.c = hr_median(d, (size_t)n);
    sh.mad = hr_mad(d, (size_t)n, sh.c);
    double *probed = malloc((size_t)n * sizeof *probed);
    if (probed && !in_metric) {
        for (int i = 0; i < n; i++)
            if (!isnan(pm[i])) probed[sh.nprobed++] = pm[i];
        if (sh.nprobed >= HR_SHIFT_MIN_ROWS) sh.m = hr_median(probed, (size_t)sh.nprobed);
    } else if (in_metric) {
        sh.nprobed = n;
        sh.m = 0;
    }
    free(probed);
    if (!on || n < HR_SHIFT_MIN_ROWS || isnan(sh.mad)) return sh;

    double t = log1p(threshold_pct / 100);
    if (sh.mad > t) {
        sh.kind = HR_SHIFT_UNEVEN;
    } else if (isnan(sh.m)) {
        sh.kind = fabs(sh.c) <= t ? HR_SHIFT_UNPROBED : HR_SHIFT_UNATTRIBUTED;
        sh.s = sh.kind == HR_SHIFT_UNPROBED ? sh.c : 0;
    } else if (fabs(sh.c - sh.m) <= t / 2) {
        sh.kind = HR_SHIFT_MACHINE;
        sh.s = sh.c;
    } else if (fabs(sh.m) > t) {
        sh.kind = HR_SHIFT_DISAGREE;
    } else {
        sh.kind = HR_SHIFT_CODE;
        sh.s = sh.m;
        int up = 0, down = 0;
        for (int i = 0; i < n; i++) {
            up += d[i] > sh.s;
            down += d[i] < sh.s;
        }
        sh.code_p = hr_sign_test_p(up, down);
    }
    sh.undecided = sh.kind >= HR_SHIFT_UNEVEN;
    return sh;
}

hr_verdict hr_shift_code_verdict(const hr_shift *s, bool lower_is_better, double threshold_pct,
                          double alpha)
{
    if (s->kind != HR_SHIFT_CODE) return HR_VERDICT_SAME;
    double pct = 100 * expm1(s->c - s->s), worse = lower_is_better ? pct : -pct;
    if (fabs(worse) <= threshold_pct) return HR_VERDICT_SAME;
    if (!(s->code_p < alpha)) return HR_VERDICT_NOISE;
    return worse > 0 ? HR_VERDICT_REGRESSION : HR_VERDICT_IMPROVEMENT;
}

/* "21.0% faster" for a log ratio x of the metric. */
static void moved(double x, bool lower_is_better, char *buf, size_t len)
{
    double pct = 100 * expm1(x);
    const char *up = lower_is_better ? "slower" : "higher", *down = lower_is_better ? "faster" : "lower";
    snprintf(buf, len, "%.1f%% %s", fabs(pct), pct >= 0 ? up : down);
}

void hr_shift_describe(const hr_shift *s, bool lower_is_better, double threshold_pct,
                       char *buf, size_t len)
{
    char c[48], m[48], rest[48], spread[32];
    double mm = isnan(s->m) ? 0 : s->m;
    moved(s->c, lower_is_better, c, sizeof c);
    moved(mm, lower_is_better, m, sizeof m);
    moved(s->c - mm, lower_is_better, rest, sizeof rest);
    snprintf(spread, sizeof spread, "spread %.1f%%", 100 * expm1(isnan(s->mad) ? 0 : s->mad));
    /* the subject: time moves as the run does; frac_of_ceiling already has the probes in */
    const char *run = lower_is_better ? "the new run was" : "frac_of_ceiling was";
    switch (s->kind) {
    case HR_SHIFT_OFF:
        snprintf(buf, len, "not taken out (--no-shift); the median row moved %s", c);
        break;
    case HR_SHIFT_FEW:
        snprintf(buf, len,
                 "%d row%s, too few to estimate a common shift (needs %d): rows judged as "
                 "measured",
                 s->nrows, s->nrows == 1 ? "" : "s", HR_SHIFT_MIN_ROWS);
        break;
    case HR_SHIFT_MACHINE:
        if (lower_is_better)
            snprintf(buf, len,
                     "%s %s across %d rows (%s): the machine, not the code (probes: %s); rows "
                     "judged relative to it",
                     run, c, s->nrows, spread, m);
        else
            snprintf(buf, len,
                     "%s %s across %d rows (%s), within half the threshold of what the probes "
                     "explain: the machine's; rows judged relative to it",
                     run, c, s->nrows, spread);
        break;
    case HR_SHIFT_UNPROBED:
        snprintf(buf, len,
                 "%s %s across %d rows (%s), no probes to attribute it; within the %g%% "
                 "threshold, taken out as the machine's; rows judged relative to it",
                 run, c, s->nrows, spread, threshold_pct);
        break;
    case HR_SHIFT_CODE:
        if (lower_is_better)
            snprintf(buf, len,
                     "%s %s across %d rows (%s), the probes %s: only the probes' share is "
                     "the machine's, the rest (%s) is the code's (sign test over rows p "
                     "%.2g); rows judged relative to the probes' shift",
                     run, c, s->nrows, spread, m, rest, s->code_p);
        else
            snprintf(buf, len,
                     "%s %s across %d rows (%s), more than the probes' noise: the code's "
                     "(sign test over rows p %.2g); rows judged as measured",
                     run, c, s->nrows, spread, s->code_p);
        break;
    case HR_SHIFT_UNEVEN:
        snprintf(buf, len,
                 "cannot separate machine from code: the rows moved unevenly (median %s, "
                 "%s > the %g%% threshold): part of the run was slowed or sped up (another "
                 "process, a phase) or the change affects rows differently; rows judged as "
                 "measured",
                 c, spread, threshold_pct);
        break;
    case HR_SHIFT_UNATTRIBUTED:
        snprintf(buf, len,
                 "cannot separate machine from code: %s %s across %d rows (%s), beyond the "
                 "%g%% threshold, and only %d row%s carry the same probe in both files to "
                 "attribute it; rows judged as measured",
                 run, c, s->nrows, spread, threshold_pct, s->nprobed,
                 s->nprobed == 1 ? "" : "s");
        break;
    case HR_SHIFT_DISAGREE:
        snprintf(buf, len,
                 "cannot separate machine from code: the probes say the machine was %s, "
                 "the rows moved %s (%s): either the code changed by the difference or "
                 "these kernels do not follow the probes; rows judged as measured",
                 m, c, spread);
        break;
    }
}

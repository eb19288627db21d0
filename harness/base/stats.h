/* stats.h — small-sample statistics: median, summaries of repeated timings, MAD, geometric
 * mean, Mann-Whitney U, the sign test, multiple-testing corrections. */
#ifndef HR_STATS_H
#define HR_STATS_H

#include <stdbool.h>

#include <stddef.h>

/* Median of x[0..n) (mean of the two middle values for even n); x is not modified.
 * NAN for n == 0. */
double hr_median(const double *x, size_t n);
/* The q-quantile of x[0..n) (0 <= q <= 1), linear between the order statistics (numpy's
 * default: position q (n - 1)); x is not modified. NAN for n == 0 or q outside [0, 1]. */
double hr_quantile(const double *x, size_t n, double q);

typedef struct {
    double min, median, mean, max, stddev, cv; /* cv = stddev / mean */
    int n;
} hr_summary;
/* Summarizes x[0..n): median by hr_median, sample standard deviation (n - 1). x is not
 * modified; n < 1 gives all zeros. */
void hr_summarize(const double *x, int n, hr_summary *s);

/* Geometric mean of x[0..n), all > 0 (exp of the mean log). NAN for n == 0. */
double hr_geomean(const double *x, size_t n);

/* Median absolute deviation of x[0..n) around center: median |x_i - center|, unscaled
 * (no 1.4826 factor). NAN for n == 0 or when memory runs out. */
double hr_mad(const double *x, size_t n, double center);

/* Samples of at most this size on both sides and without ties get the exact null
 * distribution of U; larger ones (or any ties) the normal approximation. */
#define HR_MWU_EXACT_MAX 50

typedef enum { HR_MWU_NONE = 0, HR_MWU_EXACT, HR_MWU_NORMAL } hr_mwu_method;
extern const char *const hr_mwu_method_names[]; /* "none", "exact", "normal" */

typedef struct {
    double u1;            /* U of the first sample: pairs (x_i, y_j) with x_i > y_j,
                           * ties counting one half (scipy's "statistic")          */
    double p;             /* two-sided p-value in [0, 1]                          */
    hr_mwu_method method;
    int ties;             /* the pooled sample has tied values                    */
} hr_mwu_result;

/* Two-sided Mann-Whitney U test of x[0..n1) against y[0..n2) (n1, n2 >= 1).
 * Exact: p = min(1, 2 P(U >= max(U1, U2))) under the permutation distribution of U,
 * counted with the recurrence f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u).
 * Normal: z = (max(U1, U2) - n1 n2 / 2 - 1/2) / sigma with the tie-corrected
 * sigma^2 = n1 n2 / 12 ((n+1) - sum(t^3 - t) / (n (n-1))), p = min(1, erfc(z/sqrt 2)).
 * Both agree with scipy.stats.mannwhitneyu(x, y, method=..., use_continuity=True).
 * Returns the result; method HR_MWU_NONE (p = 1) when either side is empty. */
hr_mwu_result hr_mwu(const double *x, size_t n1, const double *y, size_t n2);

/* The same test always by the normal approximation (tie-corrected sigma, continuity
 * correction), whatever the sample sizes: scipy.stats.mannwhitneyu(x, y,
 * method="asymptotic"), which Google Benchmark's compare.py gets by default for samples
 * of more than 8 (scipy >= 1.7) or any size (older scipy). Method HR_MWU_NORMAL, or
 * HR_MWU_NONE when either side is empty. */
hr_mwu_result hr_mwu_asymptotic(const double *x, size_t n1, const double *y, size_t n2);

/* The smallest two-sided p the test can give for sample sizes n1, n2 (two fully
 * separated samples without ties): 2 / C(n1+n2, n1) when exact. If this is >= alpha
 * the test can never call a difference significant. */
double hr_mwu_min_p(size_t n1, size_t n2);

/* Two-sided exact sign test: npos values above the null median and nneg below (ties
 * left out). p = min(1, 2 P(X >= max(npos, nneg))) for X ~ Binomial(npos + nneg, 1/2);
 * 1 when both are 0. */
double hr_sign_test_p(int npos, int nneg);

/* Corrections of a family of p-values for testing them all at once. */
typedef enum { HR_PADJ_HOLM = 0, HR_PADJ_BH = 1, HR_PADJ_NONE = 2 } hr_padj;
extern const char *const hr_padj_names[]; /* "holm", "bh", "none", NULL */

/* Adjusted p-values of p[0..n) into adj[0..n) (adj may be p). With p sorted ascending,
 * p(1) <= ... <= p(n):
 *   holm  Holm (1979) step-down, family-wise error rate <= alpha under any dependence:
 *         adj(i) = max over j <= i of min(1, (n - j + 1) p(j));
 *   bh    Benjamini-Hochberg (1995) step-up, false discovery rate <= alpha for
 *         independent or positively dependent tests:
 *         adj(i) = min over j >= i of min(1, n p(j) / j);
 *   none  adj = p.
 * The same values as R's p.adjust(p, "holm" | "BH"). Ties keep their input order.
 * Returns 0, or -1 when memory runs out (adj is then p unchanged). */
int hr_p_adjust(const double *p, size_t n, hr_padj method, double *adj);

/* Two-sided Wilcoxon signed-rank test of paired differences d[0..n) against 0 (as
 * scipy.stats.wilcoxon with zero_method "wilcox", correction False): zeros are dropped,
 * |d| ranked with average ranks for ties, W+ the rank sum of the positive ones. Exact
 * distribution of W+ without ties and with at most HR_WSR_EXACT_MAX non-zero pairs,
 * else the normal approximation with the tie correction. n_used: the non-zero pairs;
 * none gives p = 1. */
#define HR_WSR_EXACT_MAX 50
typedef struct {
    double w_plus;  /* rank sum of the positive differences                        */
    double p;       /* two-sided, in [0, 1]                                         */
    int n_used;     /* non-zero differences                                         */
    bool exact;     /* from the exact distribution                                  */
} hr_wsr_result;
hr_wsr_result hr_wilcoxon(const double *d, size_t n);
/* The smallest two-sided p the exact signed-rank test can give with n pairs: 2 / 2^n. */
double hr_wilcoxon_min_p(size_t n);

#endif

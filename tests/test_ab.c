/* test_ab.c — the paired statistics of headroom ab: the Wilcoxon signed-rank test against scipy's values, and one point judged from its pairs. */
#include <math.h>

#include "ab.h"
#include "stats.h"
#include "t.h"

/* scipy.stats.wilcoxon(d) (zero_method "wilcox", correction False, exact without ties):
 * statistic min(W+, W-), two-sided p; W+ from alternative="greater". */
HR_TEST(wilcoxon_exact_matches_scipy)
{
    const double a[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    hr_wsr_result r = hr_wilcoxon(a, 9);
    CHECK(r.exact && r.n_used == 9 && r.w_plus == 45);
    CHECK_NEAR(r.p, 0.00390625, 1e-15);
    CHECK_NEAR(hr_wilcoxon_min_p(9), 0.00390625, 1e-15);
    const double b[] = {0.5, -0.2, 0.3, 0.8, -0.1, 0.4, 0.6, 0.9, 0.7, 1.1};
    r = hr_wilcoxon(b, 10);
    CHECK(r.exact && r.w_plus == 52);
    CHECK_NEAR(r.p, 0.009765625, 1e-15);
    const double c[] = {1, -2, 3, -4, 5, -6, 7, 8};
    r = hr_wilcoxon(c, 8);
    CHECK(r.w_plus == 24);
    CHECK_NEAR(r.p, 0.4609375, 1e-15);
    /* Symmetric in sign: the mirror image gives the same p. */
    const double cm[] = {-1, 2, -3, 4, -5, 6, -7, -8};
    CHECK_NEAR(hr_wilcoxon(cm, 8).p, 0.4609375, 1e-15);
}

HR_TEST(wilcoxon_ties_zeros_and_empty)
{
    /* Ties: average ranks (|1| x3 -> 2, |2| x2 -> 4.5, |3| x2 -> 6.5, |4| -> 8), W+ = 29.5;
     * normal approximation, var = 8*9*17/24 - (24 + 6 + 6)/48 = 50.25, no continuity
     * correction: p = erfc(|29.5 - 18| / sqrt(50.25) / sqrt 2). */
    const double t[] = {1, 1, 2, -2, 3, 3, -1, 4};
    hr_wsr_result r = hr_wilcoxon(t, 8);
    CHECK(!r.exact && r.w_plus == 29.5);
    CHECK_NEAR(r.p, erfc(11.5 / sqrt(50.25) / sqrt(2.0)), 1e-12);
    /* Zeros are dropped before ranking. */
    const double z[] = {0, 1, 2, 0, 3};
    r = hr_wilcoxon(z, 5);
    CHECK(r.n_used == 3 && r.w_plus == 6);
    CHECK_NEAR(r.p, 0.25, 1e-15);
    /* Nothing to test: p = 1. */
    const double zero[] = {0, 0};
    CHECK(hr_wilcoxon(zero, 2).p == 1 && hr_wilcoxon(zero, 0).p == 1);
}

HR_TEST(ab_point_judged_on_pairs)
{
    /* New is 5% slower in every pair while both drift together by 30%: the paired
     * estimate is the 5%, and every pair agrees in sign. */
    double base[12], nw[12];
    for (int i = 0; i < 12; i++) {
        base[i] = 1e-3 * (1 + 0.3 * (i % 3));
        nw[i] = base[i] * (1.05 + 1e-4 * i);
    }
    hr_cmp_row row = {0};
    hr_ab_judge_point(base, nw, 12, &row);
    CHECK(row.n_base == 12 && row.n_new == 12 && row.tested);
    CHECK_NEAR(row.delta_pct, 100 * (1.05 + 1e-4 * 5.5 - 1), 0.01);
    CHECK_NEAR(row.test.p, hr_wilcoxon_min_p(12), 1e-15);
    CHECK_NEAR(row.base, 1e9 * hr_median(base, 12), 1e-6);
}

HR_TEST(ab_rounds_judged_on_their_ratios)
{
    /* Ten rounds of fresh workers, each round's median log ratio a value: the estimate is
     * their median and the test is over the ten, not over the pairs behind them. */
    double d[10];
    for (int i = 0; i < 9; i++) d[i] = log(1.030 + 0.001 * i);
    d[9] = log(0.99); /* one round the other way, the smallest |d|: rank 1 */
    hr_cmp_row row = {0};
    hr_ab_judge_logs(d, 10, 2e-3, 2.1e-3, &row);
    CHECK(row.n_base == 10 && row.n_new == 10 && row.tested);
    CHECK_NEAR(row.delta_pct, 100 * (exp(0.5 * (log(1.033) + log(1.034))) - 1), 1e-9);
    CHECK_NEAR(row.base, 2e6, 1e-6);
    CHECK_NEAR(row.new_, 2.1e6, 1e-6);
    /* W- = 1: exact two-sided p = 2 * 2 / 2^10 (W <= 1 in two of the 1024 sign patterns). */
    CHECK(row.test.method == HR_MWU_EXACT && row.test.u1 == 54);
    CHECK_NEAR(row.test.p, 4.0 / 1024, 1e-15);
    /* Three rounds alone cannot reach 0.05: the smallest p is 2/2^3. */
    hr_ab_judge_logs(d, 3, 2e-3, 2.1e-3, &row);
    CHECK_NEAR(row.test.p, 0.25, 1e-15);
}

/* test_stats.c — timing summaries over repetitions (hr_summarize) and the median they use. */
#include <math.h>

#include "stats.h"
#include "t.h"

HR_TEST(summarize_uses_the_median)
{
    const double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};
    hr_summary s;
    hr_summarize(odd, 3, &s);
    CHECK(s.median == 3 && s.min == 1 && s.max == 5 && s.n == 3 && s.mean == 3);
    CHECK_NEAR(s.stddev, 2, 1e-12);
    hr_summarize(even, 4, &s);
    CHECK(s.median == hr_median(even, 4) && s.median == 2.5 && s.min == 1 && s.max == 4);
    CHECK(odd[0] == 5 && even[0] == 4); /* inputs untouched */
    hr_summarize(odd, 0, &s);
    CHECK(s.n == 0 && s.median == 0);
}

/* hr_mwu_asymptotic is scipy's method="asymptotic" (what compare.py gets with 9
 * repetitions from scipy >= 1.7's method="auto"); hr_mwu stays exact at these sizes.
 * Worked values: scipy 1.10 mannwhitneyu. */
HR_TEST(mwu_asymptotic_matches_scipy)
{
    const double x[] = {1.0, 2.1, 3.2, 4.3, 5.4, 6.5, 7.6, 8.7, 9.8};
    const double y[] = {3.05, 4.15, 5.25, 6.35, 7.45, 8.55, 9.65, 10.75, 11.85};
    hr_mwu_result a = hr_mwu_asymptotic(x, 9, y, 9), e = hr_mwu(x, 9, y, 9);
    CHECK(a.method == HR_MWU_NORMAL && e.method == HR_MWU_EXACT);
    CHECK_NEAR(a.p, 0.28931483238198774, 1e-12);
    CHECK_NEAR(e.p, 0.29732620320855613, 1e-12);
    const double s[] = {1, 2, 3}, t[] = {4, 5, 6};
    CHECK_NEAR(hr_mwu_asymptotic(s, 3, t, 3).p, 0.08085559837005224, 1e-12);
    CHECK(hr_mwu_asymptotic(s, 0, t, 3).method == HR_MWU_NONE);
}

HR_TEST(stats_quantile)
{
    const double x[] = {4, 1, 3, 2, 5};
    CHECK(hr_quantile(x, 5, 0.5) == 3 && hr_quantile(x, 5, 0) == 1 && hr_quantile(x, 5, 1) == 5);
    CHECK(fabs(hr_quantile(x, 5, 0.9) - 4.6) < 1e-12); /* numpy.quantile([1..5], 0.9) */
    CHECK(isnan(hr_quantile(x, 0, 0.5)) && isnan(hr_quantile(x, 5, 1.5)));
    CHECK(x[0] == 4); /* not modified */
}

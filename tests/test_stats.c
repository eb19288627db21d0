/* test_stats.c — timing summaries over repetitions (hr_summarize) and the median they use. */
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

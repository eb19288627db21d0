/* test_path_table.c — path.h's one way a family chooses: forced, refused, alias, fits, and values shared by sibling tables. */
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "t.h"

/* A family of three rows: "fast" where the problem's d is 64 (else "this CPU has no fast"),
 * "slow" with the alias "fast" (always available), "plain" the fallback; "fast" fits only
 * an f32 Q (and a bf16 one where forced). */
static const char *fast_why_not(const hr_problem *p) { return p->d_head == 64 ? NULL : "this CPU has no fast"; }
static int fast_fits(const hr_problem *p, int forced) { return p->dtype == HR_F32 || (forced && p->dtype == HR_BF16); }
static const char *roof_fast(const hr_problem *p) { return "fast"; }
static const char *roof_slow(const hr_problem *p) { return "slow"; }
static const char *roof_plain(const hr_problem *p) { return "plain"; }

static const hr_path rows[] = {
    {"fast", fast_why_not, NULL, roof_fast, NULL, fast_fits},
    {"slow", NULL, NULL, roof_slow, "fast", NULL},
    {"plain", NULL, NULL, roof_plain, NULL, NULL},
};
static const hr_path strict_rows[] = {
    {"fast", fast_why_not, NULL, roof_fast, NULL, NULL},
    {"plain", NULL, NULL, roof_plain, NULL, NULL},
};
static const char *const values[] = {"fast", "slow", "plain", "other", NULL};

static const char *pick(const hr_path_table *t, int d, hr_dtype q)
{
    hr_problem p = {1, 8, 8, 1, 64, d, false, 0, q, q};
    return hr_path_pick(t, &p)->roof(&p);
}
static const char *why(const hr_path_table *t, int d)
{
    hr_problem p = {1, 8, 8, 1, 64, d, false, 0, HR_F32, HR_F32};
    return hr_path_why_not(t, &p);
}

HR_TEST(path_table_auto_forced_alias_fits)
{
    const hr_path_table t = {"HR_TEST_PATH", 1, rows, 3, NULL, NULL, NULL};
    unsetenv("HR_TEST_PATH");
    CHECK(!strcmp(pick(&t, 64, HR_F32), "fast") && !why(&t, 64));
    CHECK(!strcmp(pick(&t, 32, HR_F32), "slow")); /* fast unavailable: the next row */
    CHECK(!strcmp(pick(&t, 64, HR_BF16), "slow")); /* available, but fits only when forced */
    setenv("HR_TEST_PATH", "auto", 1);
    CHECK(!strcmp(pick(&t, 64, HR_F32), "fast") && !why(&t, 64));
    setenv("HR_TEST_PATH", "fast", 1);
    CHECK(!strcmp(pick(&t, 64, HR_BF16), "fast"));  /* forced: fits */
    CHECK(!strcmp(pick(&t, 64, HR_F16), "slow"));   /* forced but not fitting: chosen as unset */
    CHECK(!strcmp(pick(&t, 32, HR_F32), "slow") && !why(&t, 32)); /* the alias stands in */
    setenv("HR_TEST_PATH", "plain", 1);
    CHECK(!strcmp(pick(&t, 64, HR_F32), "plain"));
    setenv("HR_TEST_PATH", "nope", 1); /* the generated refusal, names from the fallback up */
    const char *w = why(&t, 64);
    CHECKF(w && !strcmp(w, "HR_TEST_PATH=nope: not one of plain, slow, fast"), "'%s'", w ? w : "");
    CHECK(!strcmp(pick(&t, 64, HR_F32), "plain"));
    unsetenv("HR_TEST_PATH");
}

HR_TEST(path_table_refusal_values_bad)
{
    const hr_path_table t = {"HR_TEST_PATH", 0, strict_rows, 2, NULL, values, "HR_TEST_PATH must be one of five"};
    setenv("HR_TEST_PATH", "fast", 1);
    const char *w = why(&t, 32); /* no alias: refused with the row's reason */
    CHECKF(w && !strcmp(w, "HR_TEST_PATH=fast: this CPU has no fast"), "'%s'", w ? w : "");
    CHECK(!strcmp(pick(&t, 32, HR_F32), "plain"));
    setenv("HR_TEST_PATH", "other", 1); /* a sibling table's value: chosen as unset */
    CHECK(!why(&t, 64) && !strcmp(pick(&t, 64, HR_F32), "fast"));
    setenv("HR_TEST_PATH", "auto", 1); /* auto_ok 0: not a value here */
    w = why(&t, 64);
    CHECKF(w && !strcmp(w, "HR_TEST_PATH must be one of five"), "'%s'", w ? w : "");
    unsetenv("HR_TEST_PATH");
}

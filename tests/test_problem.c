/* test_problem.c — problem validation (limits, messages naming the flag) and the tensors'
 * layouts and views. */
#include <math.h>
#include <string.h>

#include "inputs.h"
#include "t.h"

HR_TEST(problem_validation)
{
    hr_problem ok = {1, 8, 2, 16, 16, 64, false, 0};
    CHECK(hr_problem_validate(&ok) == HR_OK);
    hr_problem bad = ok;
    bad.kv_heads = 3;
    CHECK(hr_problem_validate(&bad) == HR_EUSAGE && strstr(hr_errmsg(), "--kv-heads"));
    bad = ok;
    bad.seq_q = 0;
    CHECK(hr_problem_validate(&bad) == HR_EUSAGE && strstr(hr_errmsg(), "--seq"));
    bad = ok;
    bad.d_head = HR_MAX_DHEAD + 1;
    CHECK(hr_problem_validate(&bad) == HR_EUSAGE && strstr(hr_errmsg(), "--d-head"));
    /* Every dimension at its limit overflows the element count: refused, not allocated. */
    hr_problem huge = {HR_MAX_BATCH, HR_MAX_HEADS, HR_MAX_HEADS, HR_MAX_SEQ, HR_MAX_SEQ, HR_MAX_DHEAD, false, 0};
    CHECK(hr_problem_validate(&huge) == HR_EUSAGE && strstr(hr_errmsg(), "overflow"));
}

/* Inputs do not depend on the layout: the same logical element in BHND and BNHD. */
HR_TEST(inputs_layout_independent_and_views)
{
    hr_problem p = {2, 3, 3, 5, 5, 4, false, 0};
    hr_tensors a, b;
    CHECK(hr_tensors_alloc(&a, &p, HR_LAYOUT_BHND, HR_DIST_UNIFORM, 9) == HR_OK);
    CHECK(hr_tensors_alloc(&b, &p, HR_LAYOUT_BNHD, HR_DIST_UNIFORM, 9) == HR_OK);
    CHECK(b.q.sn == 3 * 4 && b.q.sh == 4 && b.q.sb == 5 * 3 * 4);
    for (int bb = 0; bb < 2; bb++)
        for (int h = 0; h < 3; h++)
            for (int n = 0; n < 5; n++)
                CHECK(memcmp(hr_row(a.k, bb, h, n), hr_row(b.k, bb, h, n), 16) == 0);
    float mx = 0;
    for (int i = 0; i < 4; i++) mx = fmaxf(mx, fabsf(hr_row(a.q, 0, 0, 0)[i]));
    CHECK(mx <= 1.0f && mx > 0);
    hr_tensors_free(&a);
    hr_tensors_free(&b);
}

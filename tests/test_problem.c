/* test_problem.c — problem validation (limits, messages naming the flag) and the tensors'
 * layouts and views. */
#include <math.h>
#include <string.h>

#include "check.h"
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

HR_TEST(kernel_why_not_one_decision)
{
    const hr_kernel *flash = hr_kernel_find("flash"), *dec = hr_kernel_find("decode");
    hr_problem p = {1, 8, 2, 32, 64, 16, true, 0};
    CHECK(hr_kernel_why_not(flash, &p) == NULL && hr_kernel_validate(flash, &p) == HR_OK);
    /* An invalid problem: its own message, naming the flag, from both. */
    hr_problem bad = p;
    bad.kv_heads = 3;
    const char *why = hr_kernel_why_not(flash, &bad);
    CHECK(why && strstr(why, "--kv-heads"));
    CHECK(hr_kernel_validate(flash, &bad) == HR_EUSAGE && !strncmp(hr_errmsg(), "--kv-heads", 10));
    /* The kernel's own applicability: decode takes at most 16 query rows. */
    why = hr_kernel_why_not(dec, &p);
    CHECK(why && strstr(why, "Nq <= 16"));
    CHECK(hr_kernel_validate(dec, &p) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "kernel decode cannot run this shape: decode takes") != NULL);
    p.seq_q = 4;
    CHECK(hr_kernel_why_not(dec, &p) == NULL);
    /* A capability the problem needs: causal masking. */
    hr_kernel nocausal = *flash;
    nocausal.caps &= ~(unsigned)HR_CAP_CAUSAL;
    why = hr_kernel_why_not(&nocausal, &p);
    CHECK(why && strstr(why, "causal"));
    p.causal = false;
    CHECK(hr_kernel_why_not(&nocausal, &p) == NULL);
    /* The battery skips exactly what why_not refuses. */
    hr_case c = {{1, 2, 2, 32, 32, 8, false, 0}, HR_LAYOUT_BHND, HR_DIST_NORMAL};
    hr_check res;
    char line[256];
    CHECK(hr_check_case(dec, &c, &(hr_tune){0}, 1, &res, line, sizeof line) == -1);
}

/* test_verdict.c — Holm and Benjamini-Hochberg by hand, MAD, the sign test, and every rule of
 * the machine's common shift (verdict.h) on made-up rows. */
#include <math.h>
#include <string.h>

#include "stats.h"
#include "t.h"
#include "verdict.h"

/* Holm and Benjamini-Hochberg worked by hand (the same as R's p.adjust):
 * p = 0.01 0.04 0.03 0.005 0.2, sorted 0.005 0.01 0.03 0.04 0.2, n = 5.
 *   Holm: 5(0.005) = 0.025, 4(0.01) = 0.04, 3(0.03) = 0.09, 2(0.04) = 0.08 -> 0.09
 *         (running max), 0.2
 *   BH:   0.005(5/1) = 0.025, 0.01(5/2) = 0.025, 0.03(5/3) = 0.05, 0.04(5/4) = 0.05, 0.2;
 *         running min from the top changes nothing */
HR_TEST(p_adjust_by_hand)
{
    static const double p[] = {0.01, 0.04, 0.03, 0.005, 0.2};
    static const double holm[] = {0.04, 0.09, 0.09, 0.025, 0.2};
    static const double bh[] = {0.025, 0.05, 0.05, 0.025, 0.2};
    double adj[5];
    CHECK(hr_p_adjust(p, 5, HR_PADJ_HOLM, adj) == 0);
    for (int i = 0; i < 5; i++) CHECKF(fabs(adj[i] - holm[i]) < 1e-15, "holm %d: %g", i, adj[i]);
    CHECK(hr_p_adjust(p, 5, HR_PADJ_BH, adj) == 0);
    for (int i = 0; i < 5; i++) CHECKF(fabs(adj[i] - bh[i]) < 1e-15, "bh %d: %g", i, adj[i]);
    CHECK(hr_p_adjust(p, 5, HR_PADJ_NONE, adj) == 0);
    for (int i = 0; i < 5; i++) CHECK(adj[i] == p[i]);

    /* capped at 1: Holm 2(0.5) = 1, then max(1, 0.6); BH 0.5(2/1) = 1 > 0.6(2/2) */
    static const double big[] = {0.5, 0.6};
    CHECK(hr_p_adjust(big, 2, HR_PADJ_HOLM, adj) == 0 && adj[0] == 1 && adj[1] == 1);
    CHECK(hr_p_adjust(big, 2, HR_PADJ_BH, adj) == 0);
    CHECK_NEAR(adj[0], 0.6, 1e-15);
    CHECK_NEAR(adj[1], 0.6, 1e-15);
    /* ties: Holm 3(0.02) = 0.06 for all three; BH 0.02(3/3) = 0.02 for all */
    double tie[] = {0.02, 0.02, 0.02};
    CHECK(hr_p_adjust(tie, 3, HR_PADJ_BH, adj) == 0);
    for (int i = 0; i < 3; i++) CHECK_NEAR(adj[i], 0.02, 1e-15);
    CHECK(hr_p_adjust(tie, 3, HR_PADJ_HOLM, tie) == 0); /* in place */
    for (int i = 0; i < 3; i++) CHECK_NEAR(tie[i], 0.06, 1e-15);
    /* a family of one is unchanged */
    double one = 0.03;
    CHECK(hr_p_adjust(&one, 1, HR_PADJ_HOLM, &one) == 0 && one == 0.03);
    CHECK(hr_p_adjust(&one, 0, HR_PADJ_BH, &one) == 0);
}

HR_TEST(mad_and_sign_test)
{
    static const double x[] = {1, 2, 3, 4, 100};
    CHECK(hr_mad(x, 5, 3) == 1); /* |x - 3| = 2 1 0 1 97 */
    CHECK(hr_mad(x, 5, 0) == 3);
    CHECK(isnan(hr_mad(x, 0, 0)));
    CHECK_NEAR(hr_sign_test_p(6, 0), 2.0 / 64, 1e-15);      /* 2 P(X >= 6), n = 6 */
    CHECK_NEAR(hr_sign_test_p(1, 5), 2.0 * 7 / 64, 1e-15);  /* 2 (1 + 6) / 64      */
    CHECK(hr_sign_test_p(3, 3) == 1);
    CHECK(hr_sign_test_p(0, 0) == 1);
    CHECK_NEAR(hr_sign_test_p(28, 0), 2 * pow(2, -28), 1e-20);
}

/* hr_shift_estimate on made-up rows: each branch of the rule. Threshold 5%: T = log 1.05. */
HR_TEST(shift_rules)
{
    const double t = log(1.05);
    double d[8], pm[8];
    /* every row 20% slower, the probes 19% slower: the machine's, taken out */
    for (int i = 0; i < 8; i++) {
        d[i] = log(1.20) + 0.002 * (i - 4);
        pm[i] = log(1.19);
    }
    hr_shift s = hr_shift_estimate(d, pm, 8, false, 5, true);
    CHECK(s.kind == HR_SHIFT_MACHINE && !s.undecided && s.nprobed == 8);
    CHECK_NEAR(s.c, log(1.20) - 0.001, 1e-12); /* median of the 8: between i = 3 and 4 */
    CHECK_NEAR(s.s, s.c, 0);
    CHECK_NEAR(s.m, log(1.19), 1e-12);
    CHECK_NEAR(s.mad, 0.004, 1e-12);
    /* off, or too few rows: nothing taken out */
    s = hr_shift_estimate(d, pm, 8, false, 5, false);
    CHECK(s.kind == HR_SHIFT_OFF && s.s == 0 && !s.undecided);
    s = hr_shift_estimate(d, pm, 5, false, 5, true);
    CHECK(s.kind == HR_SHIFT_FEW && s.s == 0 && !s.undecided);
    /* the probes did not move: the rows' 20% is the code's, only m taken out */
    for (int i = 0; i < 8; i++) pm[i] = log(1.01);
    s = hr_shift_estimate(d, pm, 8, false, 5, true);
    CHECK(s.kind == HR_SHIFT_CODE && !s.undecided);
    CHECK_NEAR(s.s, log(1.01), 1e-12);
    CHECK_NEAR(s.code_p, 2.0 / 256, 1e-15); /* all 8 rows above m */
    CHECK(hr_shift_code_verdict(&s, true, 5, 0.05) == HR_VERDICT_REGRESSION);
    CHECK(hr_shift_code_verdict(&s, false, 5, 0.05) == HR_VERDICT_IMPROVEMENT);
    CHECK(hr_shift_code_verdict(&s, true, 25, 0.05) == HR_VERDICT_SAME);
    CHECK(hr_shift_code_verdict(&s, true, 5, 1e-3) == HR_VERDICT_NOISE);
    /* the probes moved 30% and the rows did not follow them: undecided */
    for (int i = 0; i < 8; i++) {
        d[i] = 0.001 * i;
        pm[i] = log(0.70);
    }
    s = hr_shift_estimate(d, pm, 8, false, 5, true);
    CHECK(s.kind == HR_SHIFT_DISAGREE && s.undecided && s.s == 0);
    /* half the rows 30% slower, half unchanged: uneven, undecided */
    for (int i = 0; i < 8; i++) {
        d[i] = i % 2 ? log(1.30) : 0;
        pm[i] = 0;
    }
    s = hr_shift_estimate(d, pm, 8, false, 5, true);
    CHECK(s.kind == HR_SHIFT_UNEVEN && s.undecided && s.mad > t && s.s == 0);
    /* no probes: a 3% shift is taken out, a 10% one leaves the file undecided; fewer
     * than 6 probed rows count as none */
    for (int i = 0; i < 8; i++) {
        d[i] = log(1.03);
        pm[i] = i < 5 ? 0 : NAN;
    }
    s = hr_shift_estimate(d, pm, 8, false, 5, true);
    CHECK(s.kind == HR_SHIFT_UNPROBED && s.nprobed == 5 && isnan(s.m));
    CHECK_NEAR(s.s, log(1.03), 1e-12);
    for (int i = 0; i < 8; i++) d[i] = log(1.10);
    s = hr_shift_estimate(d, pm, 8, false, 5, true);
    CHECK(s.kind == HR_SHIFT_UNATTRIBUTED && s.undecided && s.s == 0);
    /* normalized: the probes are in the metric, m = 0; a 2% drift is the machine's, 10%
     * is the code's */
    for (int i = 0; i < 8; i++) d[i] = log(0.98);
    s = hr_shift_estimate(d, pm, 8, true, 5, true);
    CHECK(s.kind == HR_SHIFT_MACHINE && s.m == 0 && s.nprobed == 8);
    for (int i = 0; i < 8; i++) d[i] = log(0.90);
    s = hr_shift_estimate(d, pm, 8, true, 5, true);
    CHECK(s.kind == HR_SHIFT_CODE && s.s == 0);
    CHECK(hr_shift_code_verdict(&s, false, 5, 0.05) == HR_VERDICT_REGRESSION);
    char buf[512];
    hr_shift_describe(&s, false, 5, buf, sizeof buf);
    CHECKF(strstr(buf, "frac_of_ceiling was 10.0% lower across 8 rows") != NULL, "%s", buf);
}

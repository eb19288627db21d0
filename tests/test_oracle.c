/* test_oracle.c — the fp64 oracle (hand-worked, softmax sums, MQA = repeated MHA), the
 * check's verdicts, and the naive reference kernel's bottom-right causal alignment. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "oracle.h"
#include "t.h"

/* A case worked by hand: d = 1, Nq = 1, Nkv = 2, q = 1, k = (0, ln 3 · sqrt(1)),
 * scale 1 -> weights (1/4, 3/4); v = (2, 6) -> o = 0.5 + 4.5 = 5. */
HR_TEST(oracle_hand_worked)
{
    hr_problem p = {1, 1, 1, 1, 2, 1, false, 1.0f};
    float q[1] = {1}, k[2] = {0, (float)log(3.0)}, v[2] = {2, 6}, o[1] = {0};
    hr_args a = {{q, 1, 1, 1}, {k, 2, 2, 1}, {v, 2, 2, 1}, {o, 1, 1, 1}};
    double out;
    hr_oracle_row(&p, &a, 0, 0, 0, &out, NULL);
    CHECK_NEAR(out, 5.0, 1e-6);
    /* Causal with Nq = 1 sees every key: same answer. */
    p.causal = true;
    hr_oracle_row(&p, &a, 0, 0, 0, &out, NULL);
    CHECK_NEAR(out, 5.0, 1e-6);
    /* Nq = 2, Nkv = 1 causal: row 0 sees no key -> 0; row 1 sees key 0 -> v0. */
    hr_problem p2 = {1, 1, 1, 2, 1, 1, true, 1.0f};
    float q2[2] = {1, 1};
    hr_args a2 = {{q2, 2, 2, 1}, {k, 1, 1, 1}, {v, 1, 1, 1}, {o, 2, 2, 1}};
    hr_oracle_row(&p2, &a2, 0, 0, 0, &out, NULL);
    CHECK(out == 0.0);
    hr_oracle_row(&p2, &a2, 0, 0, 1, &out, NULL);
    CHECK_NEAR(out, 2.0, 1e-12);
}

/* With V = identity columns (d = Nkv), the output row is the softmax itself: sums to 1. */
HR_TEST(oracle_softmax_rows_sum_to_one)
{
    const int N = 5;
    hr_problem p = {1, 1, 1, 3, N, N, false, 0};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 7) == HR_OK);
    for (int j = 0; j < N; j++)
        for (int c = 0; c < N; c++) hr_row(t.v, 0, 0, j)[c] = (j == c);
    double out[5];
    for (int i = 0; i < 3; i++) {
        hr_oracle_row(&p, &t.args, 0, 0, i, out, NULL);
        double s = 0;
        for (int c = 0; c < N; c++) {
            s += out[c];
            CHECK(out[c] > 0);
        }
        CHECK_NEAR(s, 1.0, 1e-12);
    }
    hr_tensors_free(&t);
}

/* MQA equals MHA with K/V repeated per head. */
HR_TEST(oracle_mqa_equals_repeated_mha)
{
    hr_problem mqa = {1, 4, 1, 9, 13, 8, true, 0}, mha = mqa;
    mha.kv_heads = 4;
    hr_tensors a, b;
    CHECK(hr_tensors_alloc(&a, &mqa, HR_LAYOUT_BHND, HR_DIST_NORMAL, 3) == HR_OK);
    CHECK(hr_tensors_alloc(&b, &mha, HR_LAYOUT_BHND, HR_DIST_NORMAL, 3) == HR_OK);
    for (int h = 0; h < 4; h++)
        for (int j = 0; j < 13; j++) {
            memcpy(hr_row(b.k, 0, h, j), hr_row(a.k, 0, 0, j), 8 * sizeof(float));
            memcpy(hr_row(b.v, 0, h, j), hr_row(a.v, 0, 0, j), 8 * sizeof(float));
        }
    for (int h = 0; h < 4; h++)
        for (int i = 0; i < 9; i++) {
            memcpy(hr_row(b.q, 0, h, i), hr_row(a.q, 0, h, i), 8 * sizeof(float));
            double x[8], y[8];
            hr_oracle_row(&mqa, &a.args, 0, h, i, x, NULL);
            hr_oracle_row(&mha, &b.args, 0, h, i, y, NULL);
            for (int c = 0; c < 8; c++) CHECK(x[c] == y[c]);
        }
    hr_tensors_free(&a);
    hr_tensors_free(&b);
}

/* Causal with Nq = 1 equals non-causal (bottom-right alignment: the one query sees all). */
HR_TEST(naive_causal_single_query_equals_full)
{
    const hr_kernel *k = hr_kernel_find("naive");
    hr_problem p = {2, 4, 2, 1, 33, 16, true, 0}, q = p;
    q.causal = false;
    hr_tensors a, b;
    CHECK(hr_tensors_alloc(&a, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 5) == HR_OK);
    CHECK(hr_tensors_alloc(&b, &q, HR_LAYOUT_BHND, HR_DIST_NORMAL, 5) == HR_OK);
    void *ws = hr_alloc(k->workspace_bytes(&p, &(hr_tune){0}));
    k->run(&p, &(hr_tune){0}, &a.args, ws);
    k->run(&q, &(hr_tune){0}, &b.args, ws);
    CHECK(memcmp(a.args.o.p, b.args.o.p, sizeof(float) * 2 * 4 * 16) == 0);
    free(ws);
    hr_tensors_free(&a);
    hr_tensors_free(&b);
}

/* The check catches a wrong output and a non-zero fully masked row. */
HR_TEST(oracle_check_detects_errors)
{
    hr_problem p = {1, 2, 1, 8, 4, 16, true, 0};
    const hr_kernel *k = hr_kernel_find("naive");
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 2) == HR_OK);
    void *ws = hr_alloc(k->workspace_bytes(&p, &(hr_tune){0}));
    k->run(&p, &(hr_tune){0}, &t.args, ws);
    CHECK(hr_oracle_check(&p, &t.args, 0).verdict == HR_CHECK_PASS);
    hr_row(t.args.o, 0, 1, 7)[3] += 1e-2f;
    CHECK(hr_oracle_check(&p, &t.args, 0).verdict == HR_CHECK_FAIL);
    hr_row(t.args.o, 0, 1, 7)[3] -= 1e-2f;
    hr_row(t.args.o, 0, 0, 0)[0] = 1e-30f; /* row 0 sees no key (Nq > Nkv) */
    hr_check c = hr_oracle_check(&p, &t.args, 0);
    CHECK(c.verdict == HR_CHECK_FAIL && c.masked_nonzero == 1);
    hr_row(t.args.o, 0, 0, 0)[0] = NAN;
    CHECK(hr_oracle_check(&p, &t.args, 0).nonfinite == 1);
    ((float *)t.args.q.p)[5] = INFINITY;
    c = hr_oracle_check(&p, &t.args, 0);
    CHECK(c.input_nonfinite == 1 && c.verdict == HR_CHECK_FAIL);
    free(ws);
    hr_tensors_free(&t);
}

/* test_spine.c — the oracle, counts, problem validation, whether a kernel can run a problem,
 * views, inputs, .npy I/O and timing summaries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "counts.h"
#include "inputs.h"
#include "npy.h"
#include "oracle.h"
#include "stats.h"
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

HR_TEST(counts_flops_and_bytes)
{
    hr_problem p = {2, 8, 2, 128, 128, 64, false, 0};
    CHECK(hr_core_flops(&p) == 4.0 * 2 * 8 * 128 * 128 * 64);
    /* Causal square: N(N+1)/2 visible pairs. */
    p.causal = true;
    CHECK(hr_visible_pairs(&p) == 128.0 * 129 / 2);
    /* Nq = 2, Nkv = 5 causal: rows see 4 and 5 keys. Nq = 5, Nkv = 2: 0,0,0,1,2. */
    hr_problem d = {1, 1, 1, 2, 5, 1, true, 0}, e = {1, 1, 1, 5, 2, 1, true, 0};
    CHECK(hr_visible_pairs(&d) == 9 && hr_visible_pairs(&e) == 3);
    CHECK(hr_min_bytes(&p) == 4.0 * (2 * 2 * 8 * 128 * 64 + 2 * 2 * 2 * 128 * 64));
    /* GPT-3 175B, 4096 tokens, fp16: 2·96·96·128·4096·2 bytes = 18 GiB. */
    CHECK(hr_kv_cache_bytes(96, 1, 96, 128, 4096, 2) == 19327352832.0);
}

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

HR_TEST(npy_roundtrip)
{
    hr_problem p = {1, 2, 2, 3, 3, 5, false, 0};
    hr_tensors t;
    CHECK(hr_tensors_alloc(&t, &p, HR_LAYOUT_BNHD, HR_DIST_NORMAL, 1) == HR_OK);
    char path[] = "/tmp/hr_npy_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK(hr_npy_write_view(path, t.args.q, 1, 2, 3, 5) == HR_OK);
    float *data;
    long shape[4];
    int nd;
    CHECK(hr_npy_read(path, &data, shape, &nd) == HR_OK);
    CHECK(nd == 4 && shape[0] == 1 && shape[1] == 2 && shape[2] == 3 && shape[3] == 5);
    for (int h = 0; h < 2; h++)
        for (int n = 0; n < 3; n++)
            CHECK(memcmp(data + (h * 3 + n) * 5, hr_row(t.q, 0, h, n), 20) == 0);
    /* The data starts on a 64-byte boundary (header padded, as numpy does). */
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    CHECK((ftell(f) - 30 * 4) % 64 == 0);
    fclose(f);
    free(data);
    unlink(path);
    hr_tensors_free(&t);
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

/* Every registered kernel passes the quick battery (the per-kernel report is
 * `headroom check`; this keeps make test honest about it). */
HR_TEST(every_kernel_passes_quick_battery)
{
    static hr_case cases[HR_MAX_CASES];
    int n = hr_battery(cases, HR_MAX_CASES, true);
    CHECK(n > 100);
    for (int i = 0; hr_kernels[i]; i++)
        for (int c = 0; c < n; c++) {
            hr_check res;
            char line[512];
            int v = hr_check_case(hr_kernels[i], &cases[c], NULL, 1, &res, line, sizeof line);
            CHECKF(v != HR_CHECK_FAIL, "%s", line);
        }
}

/* Tunables are not allowed to change the answer: every kernel that reads block sizes
 * passes odd ones (not multiples of the vector width, 1, larger than N) on a spread of
 * the quick battery (flash once lost keys at block_kv = 8 and 24; tune caught it). */
HR_TEST(every_kernel_passes_with_odd_block_sizes)
{
    static hr_case cases[HR_MAX_CASES];
    int n = hr_battery(cases, HR_MAX_CASES, true);
    static const int bq[] = {1, 5, 13, 300}, bkv[] = {1, 7, 8, 24, 33, 1000};
    for (int i = 0; hr_kernels[i]; i++) {
        const hr_kernel *k = hr_kernels[i];
        if (!(k->caps & (HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV))) continue;
        for (size_t a = 0; a < sizeof bq / sizeof *bq; a++)
            for (size_t b = 0; b < sizeof bkv / sizeof *bkv; b++)
                for (int c = (int)(a * 7 + b) % 9; c < n; c += 9) {
                    hr_check res;
                    char line[512];
                    hr_tune t = {bq[a], bkv[b], 0};
                    int v = hr_check_case(k, &cases[c], &t, 1, &res, line, sizeof line);
                    CHECKF(v != HR_CHECK_FAIL, "%s", line);
                }
    }
}

/* fp32 pass must hold up to N = 16384 (rows sampled by the oracle). */
HR_TEST_LONG(naive_passes_at_16k)
{
    hr_case c = {{1, 1, 1, 16384, 16384, 64, true, 0}, HR_LAYOUT_BHND, HR_DIST_NORMAL};
    hr_check res;
    char line[512];
    for (int i = 0; hr_kernels[i]; i++) {
        int v = hr_check_case(hr_kernels[i], &c, NULL, 1, &res, line, sizeof line);
        CHECKF(v < 0 || v == HR_CHECK_PASS, "%s", line);
    }
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

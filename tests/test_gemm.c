/* test_gemm.c — hr_sgemm's back ends against an fp64 product, odd sizes, strides, alpha/beta. */
#include <stdlib.h>

#include "gemm.h"
#include "headroom.h"
#include "inputs.h"
#include "t.h"

/* Checks one C = alpha·A·B + beta·C0 (leading dimensions padded by pad floats) against
 * the product in double. Tolerance: the standard worst case of a K-term fp32 dot product,
 * 2·(K+2)·eps·(|alpha|·sum_k |a_k b_k| + |beta·c0|); a wrong index or a lost panel misses
 * it by orders of magnitude. The padding columns of C must stay untouched, and with
 * beta = 0 NaNs planted in C must not leak into the result. */
static void one(hr_gemm_backend be, int M, int N, int K, float alpha, float beta, int pad,
                int threads)
{
    const int lda = K + pad, ldb = N + pad, ldc = N + pad;
    float *A = malloc(sizeof(float) * ((size_t)M * lda + 1));
    float *B = malloc(sizeof(float) * ((size_t)K * ldb + 1));
    float *C = malloc(sizeof(float) * ((size_t)M * ldc + 1));
    float *C0 = malloc(sizeof(float) * ((size_t)M * ldc + 1));
    hr_rng r;
    hr_rng_seed(&r, (uint64_t)(M * 131 + N * 17 + K));
    for (size_t i = 0; i < (size_t)M * lda; i++) A[i] = (float)hr_rng_normal(&r);
    for (size_t i = 0; i < (size_t)K * ldb; i++) B[i] = (float)hr_rng_normal(&r);
    for (size_t i = 0; i < (size_t)M * ldc; i++)
        C0[i] = C[i] = (beta == 0 && (i % 3 == 0)) ? NAN : (float)hr_rng_normal(&r);
    size_t wsb = hr_sgemm_workspace(be, M, N, K, threads);
    void *ws = hr_alloc(wsb ? wsb : 64);
    int st = hr_sgemm(be, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, threads, ws);
    CHECKF(st == HR_OK, "sgemm %s %dx%dx%d: status %d (%s)", hr_gemm_names[be], M, N, K, st,
           hr_errmsg());
    const double eps = 1.0 / (1 << 23);
    int bad = 0;
    for (int i = 0; i < M && !bad; i++)
        for (int j = 0; j < ldc && !bad; j++) {
            const double c = C[(size_t)i * ldc + j], c0 = C0[(size_t)i * ldc + j];
            if (j >= N) { /* padding: untouched (NaN stays NaN) */
                if (!(c == c0 || (c != c && c0 != c0))) bad = 1;
                CHECKF(!bad, "%s %dx%dx%d: padding C[%d][%d] written", hr_gemm_names[be], M, N, K, i, j);
                continue;
            }
            double ref = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double ab = (double)A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
                ref += ab;
                mag += ab < 0 ? -ab : ab;
            }
            ref = alpha * ref + (beta != 0 ? beta * c0 : 0);
            const double tol = 2.0 * (K + 2) * eps * (fabs(alpha) * mag + fabs(beta * (beta != 0 ? c0 : 0))) + 1e-30;
            if (!(fabs(c - ref) <= tol)) bad = 1;
            CHECKF(!bad, "%s %dx%dx%d a=%g b=%g pad %d T%d: C[%d][%d] = %.9g, ref %.9g, tol %.3g",
                   hr_gemm_names[be], M, N, K, alpha, beta, pad, threads, i, j, c, ref, tol);
        }
    free(ws);
    free(A);
    free(B);
    free(C);
    free(C0);
}

static void battery(hr_gemm_backend be)
{
    static const int sz[] = {1, 7, 63, 65, 257};
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 5; c++) {
                const int M = sz[a], N = sz[b], K = sz[c];
                one(be, M, N, K, 1.0f, 0.0f, (a + b + c) % 2 ? 3 : 0, 1 + (a + c) % 2);
            }
    one(be, 65, 63, 257, -0.5f, 2.0f, 5, 2);
    one(be, 300, 70, 600, 1.25f, 1.0f, 0, 2);  /* K > KC: several rank-KC updates with beta */
    one(be, 8, 4200, 9, 1.0f, 0.5f, 1, 2);     /* N > NC: several column blocks */
}

HR_TEST(gemm_own_vs_fp64) { battery(HR_GEMM_OWN); }

HR_TEST(gemm_blas_vs_fp64)
{
    if (!hr_gemm_available(HR_GEMM_BLAS)) return;
    battery(HR_GEMM_BLAS);
}

HR_TEST(gemm_edge_cases)
{
    /* K = 0: C = beta·C; beta 0 writes zeros over NaN. */
    float C[6] = {1, 2, 3, NAN, NAN, NAN};
    CHECK(hr_sgemm(HR_GEMM_OWN, 1, 3, 0, 1, NULL, 1, NULL, 3, 2.0f, C, 3, 1, NULL) == HR_OK);
    CHECK(C[0] == 2 && C[1] == 4 && C[2] == 6);
    CHECK(hr_sgemm(HR_GEMM_OWN, 1, 3, 0, 1, NULL, 1, NULL, 3, 0.0f, C + 3, 3, 1, NULL) == HR_OK);
    CHECK(C[3] == 0 && C[4] == 0 && C[5] == 0);
    /* Bad sizes are refused with a message and nothing written. */
    CHECK(hr_sgemm(HR_GEMM_OWN, -1, 3, 3, 1, C, 3, C, 3, 0, C, 3, 1, NULL) == HR_EUSAGE);
    CHECK(hr_sgemm(HR_GEMM_OWN, 2, 3, 4, 1, C, 3, C, 3, 0, C, 3, 1, NULL) == HR_EUSAGE); /* lda < K */
    CHECK(hr_sgemm_workspace(HR_GEMM_BLAS, 10, 10, 10, 2) == 0);
    CHECK(hr_sgemm_workspace(HR_GEMM_OWN, 10, 10, 10, 2) > hr_sgemm_workspace(HR_GEMM_OWN, 10, 10, 10, 1));
    if (!hr_gemm_available(HR_GEMM_BLAS))
        CHECK(hr_sgemm(HR_GEMM_BLAS, 1, 1, 1, 1, C, 1, C, 1, 0, C, 1, 1, NULL) == HR_EUSAGE);
}

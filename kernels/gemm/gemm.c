/* gemm.c — headroom's own cache-blocked sgemm (BLIS-style packing, register-blocked micro-kernel) and the back-end dispatch.
 *
 * The loop nest is the one of Goto & van de Geijn, "Anatomy of High-Performance Matrix
 * Multiplication" (ACM TOMS 34(3), 2008), as BLIS writes it:
 *
 *   for jc in N step NC            B's column block
 *     for pc in K step KC          rank-KC update
 *       pack B[pc:+KC, jc:+NC] into NR-wide micro-panels   (shared, ~L3)
 *       for each work item (MC rows ic x a range of micro-panels), split over threads:
 *         pack A[ic:+MC, pc:+KC] into MR-tall micro-panels  (per thread, ~L2)
 *         for jr, ir: micro-kernel MR x NR += A panel (KC x MR) · B panel (KC x NR)
 *
 * The micro-kernel keeps an MR x NR tile of C in registers (NR = 2 vectors, MR rows:
 * 12 x 32 = 24 zmm accumulators on AVX-512, 6 x 16 = 12 ymm on AVX2, 4 x 8 portable)
 * and, per k, loads two vectors of B and broadcasts MR elements of A: MR·NR/VW FMAs for
 * NR/VW + MR loads. Panels are zero padded to whole MR / NR, so the inner loops have no
 * tails; only the final store of a partial tile is masked. beta is applied on the first
 * rank-KC update only (later ones accumulate with beta = 1), so C is read at most once
 * per KC step and never when beta = 0.
 *
 * Threads: one OpenMP region per call. When C has fewer MC row blocks than threads, each
 * row block is also split by micro-panels (so a 64-row GEMM still uses every thread).
 * The region allocates nothing: packing buffers come from the caller's workspace
 * (hr_sgemm_workspace). */
#include <omp.h>
#include <string.h>

#include "gemm.h"
#include "headroom.h"
#include "vec.h"

#if defined(HR_VEC_AVX512)
#define MR 12
#elif defined(HR_VEC_AVX2)
#define MR 6
#else
#define MR 4
#endif
#define NV 2              /* vectors per micro-tile row                          */
#define NR (NV * HR_VW)   /* 32 / 16 / 8 columns                                 */
#define KC 256            /* B micro-panel KC x NR = 32 KiB on AVX-512: L1       */
#define MC (MR * 12)      /* A block MC x KC = 144 x 256 x 4 = 144 KiB: L2       */
#define NC 4096           /* B block KC x NC = 4 MiB: L3                         */

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }
static int imin(int a, int b) { return a < b ? a : b; }

/* Floats of the shared B block and of one thread's A block. */
static size_t b_floats(int N, int K) { return round_up((size_t)imin(NC, N), NR) * (size_t)imin(KC, K); }
static size_t a_floats(int M, int K) { return round_up((size_t)imin(MC, M), MR) * (size_t)imin(KC, K); }

size_t hr_sgemm_workspace_lv(hr_gemm_backend be, int M, int N, int K, int threads)
{
    if (be != HR_GEMM_OWN || M <= 0 || N <= 0 || K <= 0) return 0;
    if (threads < 1) threads = 1;
    return round_up(b_floats(N, K) * sizeof(float), 64) +
           (size_t)threads * round_up(a_floats(M, K) * sizeof(float), 64);
}

/* A[0:m, 0:kc] (row stride lda) -> MR-tall micro-panels: panel r holds, for each k, the
 * MR values A[r·MR + i][k]; rows past m are zero. */
static void pack_a(int m, int kc, const float *A, int lda, float *dst)
{
    for (int r = 0; r < m; r += MR) {
        const int mr = imin(MR, m - r);
        for (int k = 0; k < kc; k++) {
            int i = 0;
            for (; i < mr; i++) dst[i] = A[(size_t)(r + i) * lda + k];
            for (; i < MR; i++) dst[i] = 0;
            dst += MR;
        }
    }
}

/* One NR-wide micro-panel of B[0:kc, 0:n] (n <= NR): for each k, NR values of row k;
 * columns past n are zero. */
static void pack_b_panel(int n, int kc, const float *B, int ldb, float *dst)
{
    for (int k = 0; k < kc; k++, dst += NR) {
        const float *b = B + (size_t)k * ldb;
        if (n == NR) {
            memcpy(dst, b, NR * sizeof(float));
        } else {
            int j = 0;
            for (; j < n; j++) dst[j] = b[j];
            for (; j < NR; j++) dst[j] = 0;
        }
    }
}

/* C[0:m, 0:n] = alpha · (A panel · B panel) + beta · C, m <= MR, n <= NR. */
static inline void micro_kernel(int kc, const float *restrict a, const float *restrict b,
                                float *restrict c, int ldc, int m, int n, float alpha, float beta)
{
    hr_vf acc[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++) acc[i][v] = hr_vzero();
    for (int k = 0; k < kc; k++, a += MR, b += NR) {
        hr_vf bv[NV];
        for (int v = 0; v < NV; v++) bv[v] = hr_vload(b + v * HR_VW);
        for (int i = 0; i < MR; i++) {
            const hr_vf ai = hr_vset1(a[i]);
            for (int v = 0; v < NV; v++) acc[i][v] = hr_vfma(ai, bv[v], acc[i][v]);
        }
    }
    const hr_vf va = hr_vset1(alpha), vb = hr_vset1(beta);
    for (int i = 0; i < m; i++) {
        float *ci = c + (size_t)i * ldc;
        for (int v = 0; v < NV; v++) {
            const int cols = n - v * HR_VW;
            if (cols <= 0) break;
            hr_vf r = hr_vmul(va, acc[i][v]);
            if (cols >= HR_VW) {
                if (beta != 0) r = hr_vfma(vb, hr_vload(ci + v * HR_VW), r);
                hr_vstore(ci + v * HR_VW, r);
            } else {
                if (beta != 0) r = hr_vfma(vb, hr_vload_n(ci + v * HR_VW, cols), r);
                hr_vstore_n(ci + v * HR_VW, r, cols);
            }
        }
    }
}

/* C = beta · C (K = 0: no product to add). */
static void scale_c(int M, int N, float beta, float *C, int ldc)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) C[(size_t)i * ldc + j] = beta == 0 ? 0 : beta * C[(size_t)i * ldc + j];
}

static void sgemm_own(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                      int ldb, float beta, float *C, int ldc, int threads, void *ws)
{
    float *Bp = ws;
    float *Ap0 = (float *)((char *)ws + round_up(b_floats(N, K) * sizeof(float), 64));
    const size_t a_stride = round_up(a_floats(M, K) * sizeof(float), 64) / sizeof(float);
    const int mblocks = (M + MC - 1) / MC;
#pragma omp parallel num_threads(threads)
    {
        const int tid = omp_get_thread_num(), nth = omp_get_num_threads();
        float *Ap = Ap0 + (size_t)tid * a_stride;
        for (int jc = 0; jc < N; jc += NC) {
            const int nc = imin(NC, N - jc), npanels = (nc + NR - 1) / NR;
            /* Split each row block into nsplit ranges of micro-panels when there are
             * fewer row blocks than threads. */
            int nsplit = mblocks >= nth ? 1 : (nth + mblocks - 1) / mblocks;
            if (nsplit > npanels) nsplit = npanels;
            const int items = mblocks * nsplit;
            for (int pc = 0; pc < K; pc += KC) {
                const int kc = imin(KC, K - pc);
                const float beta_p = pc == 0 ? beta : 1.0f;
#pragma omp for schedule(static)
                for (int jp = 0; jp < npanels; jp++)
                    pack_b_panel(imin(NR, nc - jp * NR), kc, B + (size_t)pc * ldb + jc + jp * NR,
                                 ldb, Bp + (size_t)jp * NR * kc);
                /* (implicit barrier: B is packed) */
#pragma omp for schedule(static)
                for (int it = 0; it < items; it++) {
                    const int ib = it / nsplit, part = it % nsplit;
                    const int ic = ib * MC, mc = imin(MC, M - ic);
                    const int jp0 = (int)((long)npanels * part / nsplit);
                    const int jp1 = (int)((long)npanels * (part + 1) / nsplit);
                    pack_a(mc, kc, A + (size_t)ic * lda + pc, lda, Ap);
                    for (int jp = jp0; jp < jp1; jp++) {
                        const int jr = jp * NR, nr = imin(NR, nc - jr);
                        const float *bp = Bp + (size_t)jp * NR * kc;
                        for (int ir = 0; ir < mc; ir += MR)
                            micro_kernel(kc, Ap + (size_t)ir * kc, bp,
                                         C + (size_t)(ic + ir) * ldc + jc + jr, ldc,
                                         imin(MR, mc - ir), nr, alpha, beta_p);
                    }
                }
                /* (implicit barrier: Bp may be repacked) */
            }
        }
    }
}

int hr_sgemm_lv(hr_gemm_backend be, int M, int N, int K, float alpha, const float *A, int lda,
                const float *B, int ldb, float beta, float *C, int ldc, int threads, void *ws)
{
    if (M < 0 || N < 0 || K < 0) return hr_fail("sgemm: negative size %dx%dx%d", M, N, K);
    if (lda < (K > 1 ? K : 1) || ldb < (N > 1 ? N : 1) || ldc < (N > 1 ? N : 1))
        return hr_fail("sgemm: leading dimension too small (lda %d, ldb %d, ldc %d for K %d, N %d)",
                       lda, ldb, ldc, K, N);
    if (!hr_gemm_available(be))
        return hr_fail("--gemm: back end '%s' is not built into this binary (no OpenBLAS)",
                       be == HR_GEMM_BLAS ? "blas" : "?");
    if (threads < 1) threads = 1;
    if (M == 0 || N == 0) return HR_OK;
    if (K == 0) {
        scale_c(M, N, beta, C, ldc);
        return HR_OK;
    }
#if HR_HAVE_BLAS
    if (be == HR_GEMM_BLAS) {
        hr_sgemm_blas(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, threads);
        return HR_OK;
    }
#endif
    sgemm_own(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, threads, ws);
    return HR_OK;
}

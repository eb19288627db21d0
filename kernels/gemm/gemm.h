/* gemm.h — row-major single-precision GEMM with two back ends: headroom's own and OpenBLAS. */
#ifndef HR_GEMM_H
#define HR_GEMM_H

#include <stddef.h>

#ifndef HR_HAVE_BLAS /* the Makefile says; a tool built outside it has no BLAS back end */
#define HR_HAVE_BLAS 0
#endif

/* Back ends, chosen at run time. HR_GEMM_BLAS exists only when built with OpenBLAS
 * (HR_HAVE_BLAS=1); hr_gemm_available says which ones this binary has. */
typedef enum { HR_GEMM_OWN = 0, HR_GEMM_BLAS = 1 } hr_gemm_backend;
extern const char *const hr_gemm_names[]; /* "own", "blas", NULL */
/* true when backend be is built into this binary (inline: the levels' GEMM asks it
 * without calling up into dispatch.c). */
static inline int hr_gemm_available(hr_gemm_backend be)
{
    return be == HR_GEMM_OWN || (be == HR_GEMM_BLAS && HR_HAVE_BLAS);
}

/* Scratch bytes hr_sgemm needs for these sizes and threads (0 for the BLAS back end,
 * which manages its own). Allocate it 64-byte aligned, outside any timed region. */
size_t hr_sgemm_workspace(hr_gemm_backend be, int M, int N, int K, int threads);

/* C = alpha · A · B + beta · C, row major, no transposes: A is M x K with row stride lda,
 * B is K x N with row stride ldb, C is M x N with row stride ldc (strides in floats,
 * lda >= K, ldb >= N, ldc >= N). beta = 0 never reads C (it may hold NaN). threads >= 1
 * (the OpenMP team of the own back end, openblas_set_num_threads for BLAS). ws holds
 * hr_sgemm_workspace(be, M, N, K, threads) bytes. Returns HR_OK, or HR_EUSAGE with a
 * message for a bad size or a back end not built in; nothing is written then. */
int hr_sgemm(hr_gemm_backend be, int M, int N, int K, float alpha, const float *A, int lda,
             const float *B, int ldb, float beta, float *C, int ldc, int threads, void *ws);

/* hr_sgemm and hr_sgemm_workspace as compiled for one ISA level (gemm.c, once per level;
 * isa.h's table points at them, and the two above forward to the running level's). */
int hr_sgemm_lv(hr_gemm_backend be, int M, int N, int K, float alpha, const float *A, int lda,
                const float *B, int ldb, float beta, float *C, int ldc, int threads, void *ws);
size_t hr_sgemm_workspace_lv(hr_gemm_backend be, int M, int N, int K, int threads);

/* The OpenBLAS back end (gemm_blas.c; only when HR_HAVE_BLAS). */
void hr_sgemm_blas(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                   int ldb, float beta, float *C, int ldc, int threads);

#endif

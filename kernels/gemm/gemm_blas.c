/* gemm_blas.c — the OpenBLAS back end of hr_sgemm (built only with OpenBLAS).
 *
 * Threads: openblas_set_num_threads before every call, so the count the caller asks
 * for is the count that runs. With Debian's OpenMP build (the Makefile's choice when
 * installed) the BLAS workers are libgomp's threads. The pthreads build (Debian's
 * default) has worker threads of its own that spin for a while after a call before
 * sleeping, so an OpenMP region that follows right away may share the cores with
 * spinning BLAS threads for a moment. */
#include <cblas.h>

#include "gemm.h"

void hr_sgemm_blas(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                   int ldb, float beta, float *C, int ldc, int threads)
{
    openblas_set_num_threads(threads < 1 ? 1 : threads);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, lda, B, ldb, beta,
                C, ldc);
}

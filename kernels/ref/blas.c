/* blas.c — the OpenBLAS baseline: per head S = scale·Q·Kᵀ (sgemm), row softmax, O = P·V (sgemm).
 *
 * What a user writes with a BLAS library at hand: two cblas_sgemm calls per (batch,
 * head) around a plain softmax. The views' row stride sn is the leading dimension of
 * Q, K, V and O, so BHND and BNHD inputs (a projection's output) run without a copy.
 * The whole Nq x Nkv score matrix of one head is materialized (HR_TRAFFIC_SCORES), as in
 * naive. Causal masking is applied in the softmax: the sgemm computes every score and the
 * masked ones get weight exactly 0, so a row that sees no key comes out all zeros.
 *
 * Threads: tune.threads is passed to openblas_set_num_threads before the sgemms, and the
 * softmax runs in an OpenMP region of the same size. The Makefile links Debian's OpenMP
 * build of OpenBLAS when it is installed (libopenblas-openmp-dev): its workers are
 * libgomp's, the softmax's own pool. The pthreads build keeps workers of its own, which
 * fight OpenMP's over the cores between calls (20 ms stalls seen). */
#include <math.h>

#include <cblas.h>
#include <omp.h>

#include "headroom.h"
#include "ref_softmax.h"

static size_t blas_workspace(const hr_problem *p, const hr_tune *t)
{
    (void)t;
    return (size_t)p->seq_q * (size_t)p->seq_kv * sizeof(float);
}

/* Max-subtracted softmax of each row's visible scores [0, end); masked ones become 0. */
static void softmax_rows(const hr_problem *p, float *S, int threads)
{
    const int Nq = p->seq_q, Nk = p->seq_kv;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int i = 0; i < Nq; i++) {
        const int end = hr_causal_end(p, i);
        float *s = S + (size_t)i * Nk;
        const float sum = hr_ref_exp_row(s, end);
        const float inv = end > 0 ? 1.0f / sum : 0.0f;
        for (int j = 0; j < end; j++) s[j] *= inv;
        for (int j = end; j < Nk; j++) s[j] = 0;
    }
}

static int blas_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    const int Nq = p->seq_q, Nk = p->seq_kv, d = p->d_head, group = hr_group(p);
    const float scale = hr_problem_scale(p);
    float *S = ws;
    openblas_set_num_threads(t->threads);
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++) {
            const int g = h / group;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Nq, Nk, d, scale,
                        hr_crow(a->q, b, h, 0), (int)a->q.sn, hr_crow(a->k, b, g, 0), (int)a->k.sn,
                        0.0f, S, Nk);
            softmax_rows(p, S, t->threads);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Nq, d, Nk, 1.0f, S, Nk,
                        hr_crow(a->v, b, g, 0), (int)a->v.sn, 0.0f, hr_row(a->o, b, h, 0),
                        (int)a->o.sn);
        }
    return HR_OK;
}

static const char *blas_applicable(const hr_problem *p)
{
    /* cblas takes int leading dimensions; the views' strides must fit. */
    if ((double)p->seq_q * p->seq_kv > 2147483647.0) return "Nq x Nkv exceeds cblas's int range";
    return NULL;
}

const hr_kernel hr_kernel_blas = {
    .name = "blas",
    .summary = "OpenBLAS baseline: sgemm QKᵀ, row softmax, sgemm PV per head; Nq x Nkv scores",
    .caps = HR_CAP_CAUSAL | HR_CAP_THREADED,
    .traffic = HR_TRAFFIC_SCORES,
    .applicable = blas_applicable,
    .workspace_bytes = blas_workspace,
    .run = blas_run,
};

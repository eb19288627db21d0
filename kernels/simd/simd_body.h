/* simd_body.h — the blocked vectorized attention body, shared by the simd and omp kernels. */
#ifndef HR_SIMD_BODY_H
#define HR_SIMD_BODY_H

#include "headroom.h"

/* One thread's scratch, carved from its slice of the workspace by hr_simd_scratch_at.
 * kt holds Kᵀ of the KV head (kt_b, kt_g) packed [d][ldkt]; vp holds V padded to whole
 * vectors [Nkv][ldv] when d is not a multiple of the vector width (else unused). A
 * thread that runs several query heads of one group in a row packs K and V once. */
typedef struct {
    float *s, *kt, *vp, *acc, *lsum;
    size_t lds, ldkt, ldv;
    int bq, kt_b, kt_g;
} hr_simd_scratch;

/* Fills zero block_q / block_kv with defaults for p derived from d and m's cache sizes. */
void hr_simd_resolve(const hr_problem *p, const hr_machine *m, hr_tune *t);
/* Bytes of one thread's scratch for p and a resolved t (a multiple of 64). */
size_t hr_simd_scratch_bytes(const hr_problem *p, const hr_tune *t);
/* Lays out one thread's scratch on mem (64-byte aligned, hr_simd_scratch_bytes long)
 * with nothing packed yet. Call once per run, per thread. */
hr_simd_scratch hr_simd_scratch_at(const hr_problem *p, const hr_tune *t, void *mem);
/* Computes output rows [i_begin, i_end) of query head h of batch b. */
void hr_simd_rows(const hr_problem *p, const hr_tune *t, const hr_args *a, int b, int h,
                  int i_begin, int i_end, hr_simd_scratch *sc);

#endif

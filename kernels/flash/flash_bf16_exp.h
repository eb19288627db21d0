/* flash_bf16_exp.h — the exp passes of flash's bf16 paths (bf16dot: exp_job; amx: exp_row): P = bf16(2^(s c - m)) and its sums. */
#ifndef HR_FLASH_BF16_EXP_H
#define HR_FLASH_BF16_EXP_H

/* Included by flash_bf16.c, flash_amx.c and the roofline's softmax loop (cpu/roofloops.c),
 * so the softmax ceiling of each bf16 path is measured on its own step. Compiled where
 * the level has AVX512-BF16 code (HR_HAVE_BF16DOT); HR_VW is 16 there. */

#include <stdint.h>

#include "vec.h"
#include "vec_bf16.h"
#include "vec_softmax.h"

#if defined(HR_HAVE_BF16DOT)

/* The exp pass of one row: its scores s, n of them (a multiple of HR_VW), P over them, the
 * running m as mneg = -m, l its sum. */
typedef struct {
    const float *s;
    uint16_t *p;
    float *l;
    float mneg;
    int n;
} sm_job;

/* Columns c, c + HR_VW of a job's exp pass (c alone where it is the last vector). Two vectors
 * a step, rounded by one vcvtne2ps2bf16 and one store, cheaper than a vcvtneps2bf16 and a
 * 32-byte store each (perf-log 0225).
 * p[c .. c+32) (bytes 2c..2c+63) overwrites only scores already read (bytes from 4c). l
 * sums in two chains, even and odd vectors: one chain of two adds a step was the loop's
 * latency bound (perf-log 0225). */
HR_BF16_INLINE void exp_unit(const sm_job *j, int c, hr_vf cv, hr_vf mneg, hr_vf *sum, hr_vf *sum2)
{
    const hr_vf a = hr_vexp2_bf16(hr_vfma(hr_vload(j->s + c), cv, mneg));
    if (c + HR_VW < j->n) {
        const hr_vf b = hr_vexp2_bf16(hr_vfma(hr_vload(j->s + c + HR_VW), cv, mneg));
        hr_vstore_bf16x2(j->p + c, a, b);
        *sum2 = hr_vadd(*sum2, b);
    } else
        hr_vstore_bf16(j->p + c, a);
    *sum = hr_vadd(*sum, a);
}
HR_BF16_INLINE void exp_done(const sm_job *j, hr_vf sum, hr_vf sum2)
{
    hr_vstore(j->l, hr_vadd(hr_vload(j->l), hr_vadd(sum, sum2)));
}
HR_BF16_INLINE void exp_job(const sm_job *j, hr_vf cv)
{
    const hr_vf mneg = hr_vset1(j->mneg);
    hr_vf sum = hr_vzero(), sum2 = hr_vzero();
    for (int c = 0; c < j->n; c += 2 * HR_VW) exp_unit(j, c, cv, mneg, &sum, &sum2);
    exp_done(j, sum, sum2);
}

/* p[c] = bf16(2^(s[c] * qscale - m)) for c < n (a multiple of 32); returns the lanes' sums
 * of the unrounded weights (l sums those, as flash_bf16.c's). */
static inline HR_BF16_TARGET hr_vf exp_row(const float *s, uint16_t *p, int n, float qscale, float m)
{
    const hr_vf cv = hr_vset1(qscale), mneg = hr_vset1(-m);
    hr_vf sum = hr_vzero();
    for (int c = 0; c < n; c += 2 * HR_VW) {
        const hr_vf a = hr_vexp2_bf16(hr_vfma(hr_vload(s + c), cv, mneg));
        const hr_vf b = hr_vexp2_bf16(hr_vfma(hr_vload(s + c + 16), cv, mneg));
        hr_vstore_bf16x2(p + c, a, b);
        sum = hr_vadd(sum, hr_vadd(a, b));
    }
    return sum;
}

#endif
#endif

/* vec_tanh.h — the soft cap c·tanh(s/c) of attention scores (Gemma 2), in the vector layer.
 *
 *   hr_vsoftcap(s, c, inv_c)   c·tanh(s·inv_c) lane by lane (inv_c = 1/c), in whatever units
 *                              s and c share (the kernels' log2 units: both times log2 e).
 *   hr_vscore_variants(...)    the soft cap, then ALiBi's bias: every kernel's variant step.
 *
 * tanh(y) = (e^{2y} - 1) / (e^{2y} + 1) with y clamped to [-9, 9] (tanh(9) rounds to 1 in
 * fp32), e^{2y} = 2^{2y log2 e} by the softmax's hr_vexp2_fin (relative error 2.7e-6) and
 * the division as a reciprocal estimate and one Newton step: ~17 ops a vector, none of
 * them a division (with expf and a divide the soft cap cost 13% of flash at d 128,
 * perf-log 0495). tanh is then off by at most ~1.4e-6 absolute (de/e times
 * 2e/(e+1)^2 <= 1/2), c·tanh by under 2^-19·c; the oracle allows 2^-17·c
 * (harness/base/oracle.c). tests/test_vec.c checks 2^-19 against tanh in double. */
#ifndef HR_VEC_TANH_H
#define HR_VEC_TANH_H

#include "vec.h"

#include "vec_softmax.h"

#if defined(HR_VEC_AVX512)
/* 1/x: vrcp14ps and one Newton step (relative error ~2^-27). */
static inline hr_vf hr_vrcp_(hr_vf x)
{
    const __m512 r = _mm512_rcp14_ps(x);
    return _mm512_mul_ps(r, _mm512_fnmadd_ps(x, r, _mm512_set1_ps(2.0f)));
}
static inline hr_vf hr_vclamp9_(hr_vf y) { return hr_vmax(hr_vmin_(y, hr_vset1(9.0f)), hr_vset1(-9.0f)); }
#elif defined(HR_VEC_AVX2)
/* 1/x: vrcpps (12 bits) and one Newton step (~2^-23). */
static inline hr_vf hr_vrcp_(hr_vf x)
{
    const __m256 r = _mm256_rcp_ps(x);
    return _mm256_mul_ps(r, _mm256_fnmadd_ps(x, r, _mm256_set1_ps(2.0f)));
}
static inline hr_vf hr_vclamp9_(hr_vf y) { return hr_vmax(hr_vmin_(y, hr_vset1(9.0f)), hr_vset1(-9.0f)); }
#else
static inline hr_vf hr_vrcp_(hr_vf x)
{
    for (int i = 0; i < HR_VW; i++) x.v[i] = 1.0f / x.v[i];
    return x;
}
static inline hr_vf hr_vclamp9_(hr_vf y)
{
    for (int i = 0; i < HR_VW; i++) y.v[i] = y.v[i] > 9.0f ? 9.0f : y.v[i] < -9.0f ? -9.0f : y.v[i];
    return y;
}
#endif

static inline hr_vf hr_vsoftcap(hr_vf s, hr_vf c, hr_vf inv_c)
{
    const hr_vf y = hr_vclamp9_(hr_vmul(s, inv_c)), one = hr_vset1(1.0f);
    const hr_vf e = hr_vexp2_fin(hr_vmul(y, hr_vset1(2.8853900817779268f))); /* e^{2y} */
    return hr_vmul(c, hr_vmul(hr_vsub(e, one), hr_vrcp_(hr_vadd(e, one))));
}

/* The attention variants on a vector of scores (the kernels' log2 units): the soft cap
 * where cap_on (hr_vsoftcap), then ALiBi's bias neg_m |dj| where bias_on, dj the keys'
 * offsets j - i' (exact in fp32 below 2^24). One step for flash and decode, so their
 * scores agree bit for bit. */
static inline hr_vf hr_vscore_variants(hr_vf x, int cap_on, hr_vf cap, hr_vf inv_c, int bias_on, hr_vf neg_m,
                                       hr_vf dj)
{
    if (cap_on) x = hr_vsoftcap(x, cap, inv_c);
    if (bias_on) x = hr_vfma(neg_m, hr_vmax(dj, hr_vsub(hr_vzero(), dj)), x);
    return x;
}

#endif

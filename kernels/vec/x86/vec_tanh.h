/* vec_tanh.h — the soft cap c·tanh(s/c) of attention scores (Gemma 2), in the vector layer.
 *
 *   hr_vsoftcap(s, c, inv_c)   c·tanh(s·inv_c) lane by lane (inv_c = 1/c), in whatever units
 *                              s and c share (the kernels' log2 units: both times log2 e).
 *   hr_vscore_variants(...)    the soft cap, then ALiBi's bias: every kernel's variant step.
 *
 * c·tanh(y) = c - 2c / (e^{2y} + 1) with y clamped to [-9, 9] (tanh(9) rounds to 1 in
 * fp32), e^{2y} = 2^{2y log2 e} by the softmax's hr_vexp2_fin (relative error 2.7e-6),
 * 2y log2 e by one multiply of s, and the division as a reciprocal estimate and one
 * Newton step: ~15 ops a vector, none of them a division (with expf and a divide the
 * soft cap cost 13% of flash at d 128, perf-log 0495; the form c (e - 1) / (e + 1) took
 * 3 ops more, perf-log 0570). c·tanh is then off by at most ~1.4e-6·c from e's error (de/e
 * times 2e/(e+1)^2 <= 1/2) and an ulp of c from the subtraction near s = 0, under
 * 2^-19·c; the oracle allows 2^-17·c (harness/base/oracle.c). tests/test_vec.c checks
 * 2^-19 against tanh in double. */
#ifndef HR_VEC_TANH_H
#define HR_VEC_TANH_H

#include "vec.h"

#include "vec_softmax.h"

/* y = 9 in x = 2y log2 e's units: tanh(9) rounds to 1 in fp32 */
#define X9 25.968510735999341f

#if defined(HR_VEC_AVX512)
/* 1/x: vrcp14ps and one Newton step (relative error ~2^-27). */
static inline hr_vf hr_vrcp_(hr_vf x)
{
    const __m512 r = _mm512_rcp14_ps(x);
    return _mm512_mul_ps(r, _mm512_fnmadd_ps(x, r, _mm512_set1_ps(2.0f)));
}
static inline hr_vf hr_vclamp9_(hr_vf x) { return hr_vmax(hr_vmin_(x, hr_vset1(X9)), hr_vset1(-X9)); }
#elif defined(HR_VEC_AVX2)
/* 1/x: vrcpps (12 bits) and one Newton step (~2^-23). */
static inline hr_vf hr_vrcp_(hr_vf x)
{
    const __m256 r = _mm256_rcp_ps(x);
    return _mm256_mul_ps(r, _mm256_fnmadd_ps(x, r, _mm256_set1_ps(2.0f)));
}
static inline hr_vf hr_vclamp9_(hr_vf x) { return hr_vmax(hr_vmin_(x, hr_vset1(X9)), hr_vset1(-X9)); }
#else
static inline hr_vf hr_vrcp_(hr_vf x)
{
    for (int i = 0; i < HR_VW; i++) x.v[i] = 1.0f / x.v[i];
    return x;
}
static inline hr_vf hr_vclamp9_(hr_vf x)
{
    for (int i = 0; i < HR_VW; i++) x.v[i] = x.v[i] > X9 ? X9 : x.v[i] < -X9 ? -X9 : x.v[i];
    return x;
}
#endif

static inline hr_vf hr_vsoftcap(hr_vf s, hr_vf c, hr_vf inv_c)
{
    /* x = 2y log2 e by one multiply (inv_c's factor is loop-invariant), clamped where y is */
    const hr_vf x = hr_vclamp9_(hr_vmul(s, hr_vmul(inv_c, hr_vset1(2.8853900817779268f))));
    const hr_vf e = hr_vexp2_fin(x); /* e^{2y} */
    return hr_vfma(hr_vmul(c, hr_vset1(-2.0f)), hr_vrcp_(hr_vadd(e, hr_vset1(1.0f))), c); /* c - 2c/(e + 1) */
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

/* vec_tanh.h — the soft cap c·tanh(s/c) of attention scores (Gemma 2), in the vector layer.
 *
 *   hr_vsoftcap(s, c, inv_c)   c·tanh(s·inv_c) lane by lane (inv_c = 1/c), in whatever units
 *                              s and c share (the kernels' log2 units: both times log2 e).
 *
 * tanh(y) = (e^{2y} - 1) / (e^{2y} + 1) with y clamped to [-9, 9] (tanh(9) rounds to 1 in
 * fp32), e^{2y} by hr_vexp (expf to about an ulp): 9 FMA-pipe ops and a division per
 * vector. Near y = 0 the numerator's cancellation leaves an absolute error of a few
 * 2^-24, so c·tanh is off by at most ~2^-21·c; the oracle allows 2^-17·c
 * (harness/base/oracle.c). tests/test_vec.c checks it against tanh in double. */
#ifndef HR_VEC_TANH_H
#define HR_VEC_TANH_H

#include "vec.h"

#if defined(HR_VEC_AVX512)
static inline hr_vf hr_vdiv_(hr_vf a, hr_vf b) { return _mm512_div_ps(a, b); }
static inline hr_vf hr_vclamp9_(hr_vf y) { return hr_vmax(hr_vmin_(y, hr_vset1(9.0f)), hr_vset1(-9.0f)); }
#elif defined(HR_VEC_AVX2)
static inline hr_vf hr_vdiv_(hr_vf a, hr_vf b) { return _mm256_div_ps(a, b); }
static inline hr_vf hr_vclamp9_(hr_vf y) { return hr_vmax(hr_vmin_(y, hr_vset1(9.0f)), hr_vset1(-9.0f)); }
#else
static inline hr_vf hr_vdiv_(hr_vf a, hr_vf b)
{
    hr_vf r;
    for (int i = 0; i < HR_VW; i++) r.v[i] = a.v[i] / b.v[i];
    return r;
}
static inline hr_vf hr_vclamp9_(hr_vf y)
{
    for (int i = 0; i < HR_VW; i++) y.v[i] = y.v[i] > 9.0f ? 9.0f : y.v[i] < -9.0f ? -9.0f : y.v[i];
    return y;
}
#endif

static inline hr_vf hr_vsoftcap(hr_vf s, hr_vf c, hr_vf inv_c)
{
    const hr_vf y = hr_vclamp9_(hr_vmul(s, inv_c));
    const hr_vf e = hr_vexp(hr_vadd(y, y)), one = hr_vset1(1.0f);
    return hr_vmul(c, hr_vdiv_(hr_vsub(e, one), hr_vadd(e, one)));
}

#endif

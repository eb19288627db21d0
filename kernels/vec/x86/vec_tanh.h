/* vec_tanh.h — the soft cap c tanh(s / c) of a vector of scores, by hr_vexp2 (decode's and flash's softcap). */
#ifndef HR_VEC_TANH_H
#define HR_VEC_TANH_H

/* hr_vsoftcap(s, c, inv_c) = c tanh(s inv_c), lane-wise, for c > 0 and inv_c = 1 / c in
 * the units of s (a kernel scoring in log2 units passes c log2 e and its inverse).
 *   tanh |x| = (1 - e) / (1 + e),  e = exp(-2 |x|) = 2^(-2 log2(e) |x|) in (0, 1],
 * so hr_vexp2 sees only arguments <= 0 (its contract) and large |x| needs no care: past
 * |x| = 52 the argument is below -150, e is exactly 0 and tanh exactly 1; the sign of s
 * is put back on c tanh |x| (tanh is odd). Error: absolute, a few ulps of 1 in tanh
 * (hr_vexp2's 7.9e-8 relative, the two roundings of its argument, the quotient's), so
 * a few ulps of c in the result; near 0 that is a large relative error of tanh x ~ x,
 * but a score's error counts in absolute terms (the softmax takes exp of it), and the
 * oracle allows 4c for a soft cap (harness/base/oracle.c). 14-16 ops a vector: abs,
 * two muls, hr_vexp2 (8-10), sub, add, div, mul, the sign. */

#include "vec.h"

#if defined(HR_VEC_AVX512)
HR_VINLINE_ hr_vf hr_vabs_t_(hr_vf x) { return _mm512_abs_ps(x); }
HR_VINLINE_ hr_vf hr_vdiv_t_(hr_vf a, hr_vf b) { return _mm512_div_ps(a, b); }
/* |a| with the sign of s */
HR_VINLINE_ hr_vf hr_vsign_t_(hr_vf a, hr_vf s)
{
    const __m512i m = _mm512_set1_epi32((int)0x80000000u);
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_and_si512(_mm512_castps_si512(s), m)));
}
#elif defined(HR_VEC_AVX2)
HR_VINLINE_ hr_vf hr_vabs_t_(hr_vf x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
HR_VINLINE_ hr_vf hr_vdiv_t_(hr_vf a, hr_vf b) { return _mm256_div_ps(a, b); }
HR_VINLINE_ hr_vf hr_vsign_t_(hr_vf a, hr_vf s) { return _mm256_or_ps(a, _mm256_and_ps(s, _mm256_set1_ps(-0.0f))); }
#else
static inline hr_vf hr_vabs_t_(hr_vf x)
{
    for (int i = 0; i < HR_VW; i++) x.v[i] = fabsf(x.v[i]);
    return x;
}
static inline hr_vf hr_vdiv_t_(hr_vf a, hr_vf b)
{
    for (int i = 0; i < HR_VW; i++) a.v[i] /= b.v[i];
    return a;
}
static inline hr_vf hr_vsign_t_(hr_vf a, hr_vf s)
{
    for (int i = 0; i < HR_VW; i++) a.v[i] = copysignf(a.v[i], s.v[i]);
    return a;
}
#endif

HR_VINLINE_ hr_vf hr_vsoftcap(hr_vf s, hr_vf c, hr_vf inv_c)
{
    const hr_vf one = hr_vset1(1.0f);
    const hr_vf x = hr_vmul(hr_vabs_t_(s), inv_c);
    const hr_vf e = hr_vexp2(hr_vmul(x, hr_vset1(-2.88539008177792681f))); /* -2 log2 e */
    return hr_vsign_t_(hr_vmul(c, hr_vdiv_t_(hr_vsub(one, e), hr_vadd(one, e))), s);
}

#endif

/* vec_softmax.h — fp32 helpers of the online softmax (flash.c): a lane-wise bound check and short 2^x. */
#ifndef HR_VEC_SOFTMAX_H
#define HR_VEC_SOFTMAX_H

/* Both sit on flash's per-score path, where on Intel AVX-512 every vector op takes an
 * FMA port (p0/p5), so each op saved is an FMA slot won back (flash.c's Intel budget).
 *   hr_vgt_any(x, t)   whether any lane of x is > t: one compare into a mask (AVX-512),
 *                      compare + movemask (AVX2), a loop (portable); lets the lazy
 *                      rescale skip the horizontal max on most tiles (flash.c, and
 *                      flash_bf16.c's softmax shared by the bf16dot and amx paths).
 *   hr_vexp2_fin(x)    2^x for finite x <= 64. AVX-512: n = round(x), f = x - n, 2^f by the
 *                      degree-4 minimax polynomial on [-1/2, 1/2] (Lawson's iteration on the
 *                      relative error, coefficients rounded to fp32: max relative error
 *                      2.7e-6; flash_bf16.c's softmax uses it too, its weights rounded to bf16 next), times 2^n by
 *                      scalef; no clamp: x below -150 (a masked score, -1e30) gives exactly
 *                      0, and 3 ops fewer than hr_vexp2 (its clamp, and its degree-6 polynomial's two more FMAs). AVX2:
 *                      the same polynomial by Estrin, n by a shifter add, 2^n in the
 *                      exponent bits (clamped: -1e30 gives 0; below). Portable: hr_vexp2.
 *                      tests/test_vec.c checks 3e-6 (AVX-512, AVX2).
 *   hr_vexp2_bf16(x)   2^x for finite x <= 64 whose result is rounded to bf16 next (flash's
 *                      amx path: P). AVX-512: f = x - floor(x) in [0, 1) in one vreduceps,
 *                      2^f by the degree-3 minimax polynomial on [0, 1) (Remez on the
 *                      relative error, coefficients rounded to fp32: max relative error
 *                      7.5e-5 = 2^-13.7, 1/52 of bf16's unit roundoff 2^-8), times
 *                      2^floor(x) by scalef (which floors its exponent operand itself, so
 *                      no rounded copy of x is needed): 5 ops after x, 2 fewer than
 *                      hr_vexp2_fin (round, sub, one FMA). -1e30 gives exactly 0 (f = 0,
 *                      scalef underflows); x past 128 gives +inf (scalef overflows), which
 *                      the amx softmax's overflow test relies on. Elsewhere hr_vexp2_fin. tests/test_vec.c checks
 *                      7.6e-5; harness/base/oracle.c says why the bf16 tolerance covers it. */

#include "vec.h"

#if defined(HR_VEC_AVX512)
static inline int hr_vgt_any(hr_vf x, float t)
{
    return _mm512_cmp_ps_mask(x, _mm512_set1_ps(t), _CMP_GT_OQ) != 0;
}
static inline __attribute__((always_inline)) hr_vf hr_vexp2_fin(hr_vf x)
{
    const __m512 n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_sub_ps(x, n);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(9.570098482e-03f), f, _mm512_set1_ps(5.591787770e-02f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.402474433e-01f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.931217909e-01f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.999992847e-01f));
    return _mm512_scalef_ps(p, n);
}
#if defined(__AVX512DQ__)
static inline __attribute__((always_inline)) hr_vf hr_vexp2_bf16(hr_vf x)
{
    const __m512 f = _mm512_reduce_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(7.802452147e-02f), f, _mm512_set1_ps(2.260671556e-01f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.958335638e-01f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.999251962e-01f));
    return _mm512_scalef_ps(p, x);
}
#else
static inline __attribute__((always_inline)) hr_vf hr_vexp2_bf16(hr_vf x) { return hr_vexp2_fin(x); }
#endif
#elif defined(HR_VEC_AVX2)
static inline int hr_vgt_any(hr_vf x, float t)
{
    return _mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_set1_ps(t), _CMP_GT_OQ)) != 0;
}
/* On Intel, ymm muls, rounds, converts and shifts share p0/p1 with the FMAs while adds
 * also go to p5: n = round(x) by the shifter 1.5 * 2^23 + 127 (one add leaves n + 127 in
 * t's low mantissa bits, one sub gives n back), f = x - n, the degree-4 polynomial by
 * Estrin (3 FMAs deep; Horner's 4 deep was slower at d 128: perf-log 0218), 2^n as t's bits
 * shifted into the exponent field: 8 ops on p0/p1 (clamp, mul, 4 FMAs, shift, mul)
 * against 11 for the degree-5 form it replaced. The clamp stays: x = -127 (and below, -1e30 masks)
 * gives a zero exponent field, so exactly 0. */
static inline __attribute__((always_inline)) hr_vf hr_vexp2_fin(hr_vf x)
{
    const __m256 sh = _mm256_set1_ps(12583039.0f); /* 1.5 * 2^23 + 127 */
    x = _mm256_max_ps(x, _mm256_set1_ps(-127.0f));
    const __m256 t = _mm256_add_ps(x, sh);
    const __m256 f = _mm256_sub_ps(x, _mm256_sub_ps(t, sh));
    const __m256 f2 = _mm256_mul_ps(f, f);
    const __m256 u = _mm256_fmadd_ps(_mm256_set1_ps(6.931217909e-01f), f, _mm256_set1_ps(9.999992847e-01f));
    const __m256 v = _mm256_fmadd_ps(_mm256_set1_ps(5.591787770e-02f), f, _mm256_set1_ps(2.402474433e-01f));
    const __m256 p = _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_set1_ps(9.570098482e-03f), f2, v), f2, u);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23)));
}
#else
static inline int hr_vgt_any(hr_vf x, float t)
{
    for (int i = 0; i < HR_VW; i++)
        if (x.v[i] > t) return 1;
    return 0;
}
static inline hr_vf hr_vexp2_fin(hr_vf x) { return hr_vexp2(x); }
#endif
#if !defined(HR_VEC_AVX512)
static inline hr_vf hr_vexp2_bf16(hr_vf x) { return hr_vexp2_fin(x); }
#endif

#endif

/* vec_bf16.h — the vector layer's AVX512-BF16 part: vdpbf16ps and bf16 pair packing, chosen at run time. */
#ifndef HR_VEC_BF16_H
#define HR_VEC_BF16_H

/* An AVX-512 build (vec.h's HR_VEC_AVX512) compiles these with a target attribute, so
 * -march=x86-64-v4 (ISA=avx512), which lacks AVX512-BF16, still has them; hr_cpu_bf16()
 * says at run time whether this CPU may run them. Other builds (ISA=avx2, generic) leave
 * HR_HAVE_BF16DOT undefined and their kernels take their conversion paths: an ISA=avx2
 * binary stands for an AVX2 machine even where it runs on a BF16 one.
 *
 *   hr_vbf                      32 bf16 as 16 pairs (one zmm)
 *   hr_vbf_load(p), hr_vbf_store(p, x)   64 bytes, unaligned
 *   hr_vbf_pair1(p)             the pair (p[0], p[1]) in every lane (vpbroadcastd)
 *   hr_vbf_zip_n(a, b, n)       lane c = (a[c], b[c]) for c < n <= 16, 0 past n; b NULL
 *                               gives (a[c], 0)
 *   hr_vdot_bf16(acc, a, b)     acc[i] += a[2i] b[2i] + a[2i+1] b[2i+1] (vdpbf16ps: fp32
 *                               accumulation, products exact; denormals flushed)
 *   hr_vstore_bf16(p, x)        16 floats rounded to bf16 (nearest even, vcvtneps2bf16)
 *   hr_vany_gt(x, t)            whether any lane of x is > t (vcmpps into a mask)
 *   hr_vexp2_bf16(x)            2^x for finite x <= 0, relative error 2.7e-6: for weights
 *                               that are rounded to bf16 (2^-8) next
 */

#include <stdint.h>
#include <string.h>

#include "vec.h"

#if defined(HR_VEC_AVX512) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HR_HAVE_BF16DOT 1

#include <cpuid.h>
#include <immintrin.h>

#define HR_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#define HR_BF16_INLINE static inline __attribute__((always_inline)) HR_BF16_TARGET

typedef __m512i hr_vbf;

/* AVX-512F usable (cpuid and the OS's XCR0, by the compiler's check) and CPUID.(7,1):EAX
 * bit 5, AVX512_BF16. */
static inline int hr_cpu_bf16(void)
{
    unsigned a, b, c, d;
    if (!__builtin_cpu_supports("avx512f")) return 0;
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d)) return 0;
    return a >> 5 & 1;
}

HR_BF16_INLINE hr_vbf hr_vbf_load(const void *p) { return _mm512_loadu_si512(p); }
HR_BF16_INLINE void hr_vbf_store(void *p, hr_vbf x) { _mm512_storeu_si512(p, x); }
HR_BF16_INLINE hr_vbf hr_vbf_pair1(const void *p)
{
    int32_t x;
    memcpy(&x, p, sizeof x);
    return _mm512_set1_epi32(x);
}
HR_BF16_INLINE hr_vbf hr_vbf_zip_n(const void *a, const void *b, int n)
{
    const __mmask16 m = (__mmask16)((1u << n) - 1u);
    __m512i x = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, a));
    if (!b) return x;
    __m512i y = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, b));
    return _mm512_or_si512(x, _mm512_slli_epi32(y, 16));
}
HR_BF16_INLINE hr_vf hr_vdot_bf16(hr_vf acc, hr_vbf a, hr_vbf b)
{
    return _mm512_dpbf16_ps(acc, (__m512bh)a, (__m512bh)b);
}
HR_BF16_INLINE int hr_vany_gt(hr_vf x, float t)
{
    return _mm512_cmp_ps_mask(x, _mm512_set1_ps(t), _CMP_GT_OQ) != 0;
}

/* 2^x = 2^f * 2^n, n = round(x), |f| <= 1/2, 2^f by the degree-4 minimax polynomial on
 * [-1/2, 1/2] (Lawson's iteration on the relative error, coefficients rounded to fp32:
 * max relative error 2.7e-6 against vec.h's degree 6 at 7.9e-8), times 2^n by scalef. No
 * clamp: x must be finite (a masked score is a large finite negative, whose scalef gives
 * 0), which saves the max of hr_vexp2; 2 FMAs fewer as well. */
HR_BF16_INLINE hr_vf hr_vexp2_bf16(hr_vf x)
{
    const __m512 n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_sub_ps(x, n);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(9.570098482e-03f), f, _mm512_set1_ps(5.591787770e-02f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.402474433e-01f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.931217909e-01f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.999992847e-01f));
    return _mm512_scalef_ps(p, n);
}
HR_BF16_INLINE void hr_vstore_bf16(void *p, hr_vf x)
{
    _mm256_storeu_si256((__m256i *)p, (__m256i)_mm512_cvtneps_pbh(x));
}
#endif

#endif

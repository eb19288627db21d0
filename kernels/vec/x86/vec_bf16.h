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
 *   hr_vstore_bf16x2(p, a, b)   32 bf16: a's 16 then b's, rounded as above in one
 *                               vcvtne2ps2bf16 and one 64-byte store (half the converts and
 *                               stores of two hr_vstore_bf16)
 *   hr_vstore_bf16x2_n(p, x, n) the floats x[0 .. n) (n <= 32 read; masked loads) rounded
 *                               as above into the 32 bf16 at p, zeros from n on
 *   hr_vbf_load_n(p, n), hr_vbf_store_n(p, x, n)  the first n <= 32 bf16 at p (loads
 *                               fill the rest with 0, stores leave memory past n alone)
 *   hr_vstore_bf16_exact_n(p, x, n)  x's first n <= 16 lanes as bf16 rounded as
 *                               dtype.c's hr_f32_to_bf16 (nearest even, denormals kept,
 *                               NaN quieted): the bits the scalar store writes
 *   hr_vbf_zero()               all zero
 *   hr_vbf_interleave(x, y, lo, hi)  32 bf16 of each of two rows as pairs (x_c, y_c) for
 *                               vdpbf16ps: lane 4l + i (l, i < 4) of *lo holds c = 8l + i,
 *                               of *hi c = 8l + 4 + i (vpunpcklwd / vpunpckhwd work within
 *                               128-bit lanes)
 *   hr_vbf_to_pair_order(a, b, lo, hi)    32 floats in order (a: 0-15, b: 16-31) into
 *                               that lane order, for accumulators of such pairs (vpermt2ps)
 *   hr_vbf_from_pair_order(lo, hi, a, b)  and back
 * The softmax's lane test and short exp2 are vec_softmax.h's (hr_vgt_any, hr_vexp2_bf16:
 * degree 3, relative error 7.5e-5, for weights rounded to bf16 next).
 */

#include <stdint.h>
#include <string.h>

#include "vec.h"

#if defined(HR_VEC_AVX512) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HR_HAVE_BF16DOT 1

#include <immintrin.h>

#include "cpu_vendor.h"

#define HR_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#define HR_BF16_INLINE static inline __attribute__((always_inline)) HR_BF16_TARGET

typedef __m512i hr_vbf;

/* AVX-512F usable (cpuid and the OS's XCR0, by the compiler's check) and CPUID.(7,1):EAX
 * bit 5, AVX512_BF16. */
static inline int hr_cpu_bf16(void) { return __builtin_cpu_supports("avx512f") && hr_cpuid_bit(7, 1, 0, 5); }

HR_BF16_INLINE hr_vbf hr_vbf_load(const void *p) { return _mm512_loadu_si512(p); }
HR_BF16_INLINE void hr_vbf_store(void *p, hr_vbf x) { _mm512_storeu_si512(p, x); }
HR_BF16_INLINE hr_vbf hr_vbf_load_n(const void *p, int n)
{
    return _mm512_maskz_loadu_epi16(n >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << n) - 1, p);
}
HR_BF16_INLINE void hr_vbf_store_n(void *p, hr_vbf x, int n)
{
    _mm512_mask_storeu_epi16(p, n >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << n) - 1, x);
}
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

HR_BF16_INLINE void hr_vstore_bf16(void *p, hr_vf x)
{
    _mm256_storeu_si256((__m256i *)p, (__m256i)_mm512_cvtneps_pbh(x));
}
HR_BF16_INLINE void hr_vstore_bf16x2(void *p, hr_vf a, hr_vf b)
{
    _mm512_storeu_si512(p, (__m512i)_mm512_cvtne2ps_pbh(b, a)); /* the second operand is the low half */
}
HR_BF16_INLINE void hr_vstore_bf16x2_n(void *p, const float *x, int n)
{
    const __mmask16 ma = n >= 16 ? (__mmask16)0xffff : n > 0 ? (__mmask16)((1u << n) - 1) : 0;
    const __mmask16 mb = n >= 32 ? (__mmask16)0xffff : n > 16 ? (__mmask16)((1u << (n - 16)) - 1) : 0;
    hr_vstore_bf16x2(p, _mm512_maskz_loadu_ps(ma, x), mb ? _mm512_maskz_loadu_ps(mb, x + 16) : _mm512_setzero_ps());
}
HR_BF16_INLINE void hr_vstore_bf16_exact_n(void *p, hr_vf x, int n)
{
    const __m512i u = _mm512_castps_si512(x), one = _mm512_set1_epi32(1);
    __m512i r = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)),
                                 _mm512_and_si512(_mm512_srli_epi32(u, 16), one));
    r = _mm512_srli_epi32(r, 16);
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
                                                  _mm512_set1_epi32(0x7f800000));
    r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
    _mm256_mask_storeu_epi16(p, n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1),
                             _mm512_cvtepi32_epi16(r));
}
HR_BF16_INLINE hr_vbf hr_vbf_zero(void) { return _mm512_setzero_si512(); }
HR_BF16_INLINE void hr_vbf_interleave(hr_vbf x, hr_vbf y, hr_vbf *lo, hr_vbf *hi)
{
    *lo = _mm512_unpacklo_epi16(x, y);
    *hi = _mm512_unpackhi_epi16(x, y);
}
HR_BF16_INLINE void hr_vbf_to_pair_order(hr_vf a, hr_vf b, hr_vf *lo, hr_vf *hi)
{
    const __m512i il = _mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
    const __m512i ih = _mm512_setr_epi32(4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
    const hr_vf l = _mm512_permutex2var_ps(a, il, b), h = _mm512_permutex2var_ps(a, ih, b);
    *lo = l, *hi = h;
}
HR_BF16_INLINE void hr_vbf_from_pair_order(hr_vf lo, hr_vf hi, hr_vf *a, hr_vf *b)
{
    const __m512i ia = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
    const __m512i ib = _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
    const hr_vf va = _mm512_permutex2var_ps(lo, ia, hi), vb = _mm512_permutex2var_ps(lo, ib, hi);
    *a = va, *b = vb;
}
#endif

#endif

/* vec_int8.h — the vector layer's int8 part: vpdpbusd dot products of q8_0/q4_0 blocks (AVX512-VNNI zmm, AVX-VNNI ymm), chosen at run time. */
#ifndef HR_VEC_INT8_H
#define HR_VEC_INT8_H

/* As vec_bf16.h does for AVX512-BF16: an AVX-512 build compiles these with a target
 * attribute for AVX512-VNNI (x86-64-v4 lacks it), an AVX2 build for AVX-VNNI (the VEX
 * form Alder Lake and Sapphire Rapids have; x86-64-v3 lacks it), and hr_cpu_i8dot() says
 * at run time whether this CPU may run them. Generic builds leave HR_HAVE_I8DOT
 * undefined and take their conversion paths.
 *
 * An hr_vi holds HR_IB 32-value blocks (64 bytes on AVX-512, 32 on AVX2), or HR_VW int32.
 *   hr_vi_load(p)              HR_IB * 32 bytes, unaligned
 *   hr_vi_q8_0(blk, nb)        the int8 values of nb <= HR_IB consecutive q8_0 blocks
 *                              (34 bytes each, scale first) plus 128, as unsigned bytes
 *                              (vpdpbusd multiplies unsigned by signed bytes); bytes past
 *                              nb blocks are 0
 *   hr_vi_q4_0(blk, nb)        the nibbles (0..15, the -8 not applied) of nb <= HR_IB
 *                              q4_0 blocks (18 bytes each), in hr_vi_value's order
 *   hr_vi_value(q4, i)         which value of the hr_vi's blocks byte i holds: block
 *                              hr_vi_value / 32, value hr_vi_value % 32 (q8_0: i; q4_0 on
 *                              AVX-512: [b0 lo, b1 lo, b0 hi, b1 hi] 16 bytes each)
 *   hr_vi_scales(s0, s1, q4)   fp32 lanes: lane L the fp16 scale (s0 or s1) of the block
 *                              its four bytes belong to (AVX2: s0 in every lane)
 *   hr_vi_dot(acc, u, s)       acc[L] += sum of u[4L+i] * s[4L+i], u unsigned, s signed
 *                              (vpdpbusd; no saturation: |sum| < 2^31 for 32-value blocks)
 *   hr_vi_cvt(x)               int32 lanes to fp32 (exact below 2^24)
 *   hr_vload_i8(p)             HR_VW signed bytes to fp32 (vpmovsxbd + vcvtdq2ps)
 *   hr_vload_u4(p, hi)         the low (hi 0) or high nibbles of HR_VW bytes to fp32
 *   hr_f16_scalar(p)           the fp16 at p as a float (F16C)
 *   hr_vgather_f16(p, stride, out)   out[l] = the fp16 at p + l * stride, l < HR_VW
 *                              (AVX-512: one vpgatherdd, 4 bytes read at each; stride
 *                              below 2^31 / 16)
 */

#include <stdint.h>
#include <string.h>

#include "vec.h"

#if (defined(HR_VEC_AVX512) || (defined(HR_VEC_AVX2) && defined(__F16C__))) && \
    (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HR_HAVE_I8DOT 1

#include <cpuid.h>
#include <immintrin.h>

static inline int hr_vi_value(int q4, int i)
{
#if defined(HR_VEC_AVX512)
    if (q4) return (i % 32) / 16 * 32 + i / 32 * 16 + i % 16;
#endif
    (void)q4;
    return i;
}

static inline float hr_f16_scalar(const void *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

#if defined(HR_VEC_AVX512)
#define HR_IB 2
#define HR_I8_ISA "avx512-vnni"
#define HR_I8_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
typedef __m512i hr_vi;

/* AVX-512F usable and CPUID.(7,0):ECX bit 11, AVX512_VNNI. */
static inline int hr_cpu_i8dot(void)
{
    unsigned a, b, c, d;
    if (!__builtin_cpu_supports("avx512f")) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return c >> 11 & 1;
}

#define HR_I8_INLINE static inline __attribute__((always_inline)) HR_I8_TARGET
HR_I8_INLINE hr_vi hr_vi_load(const void *p) { return _mm512_loadu_si512(p); }
HR_I8_INLINE hr_vi hr_vi_q8_0(const void *blk, int nb)
{
    const unsigned char *b = (const unsigned char *)blk;
    const __m256i lo = _mm256_loadu_si256((const __m256i *)(b + 2));
    const __m512i x = nb > 1 ? _mm512_inserti64x4(_mm512_castsi256_si512(lo), _mm256_loadu_si256((const __m256i *)(b + 36)), 1)
                             : _mm512_zextsi256_si512(lo);
    return _mm512_xor_si512(x, nb > 1 ? _mm512_set1_epi8((char)0x80) : _mm512_zextsi256_si512(_mm256_set1_epi8((char)0x80)));
}
HR_I8_INLINE hr_vi hr_vi_q4_0(const void *blk, int nb)
{
    const unsigned char *b = (const unsigned char *)blk;
    const __m128i b0 = _mm_loadu_si128((const __m128i *)(b + 2));
    const __m256i v = nb > 1 ? _mm256_inserti128_si256(_mm256_castsi128_si256(b0), _mm_loadu_si128((const __m128i *)(b + 20)), 1)
                             : _mm256_zextsi128_si256(b0);
    const __m512i x = _mm512_inserti64x4(_mm512_castsi256_si512(v), _mm256_srli_epi16(v, 4), 1);
    return _mm512_and_si512(x, _mm512_set1_epi8(15));
}
HR_I8_INLINE hr_vf hr_vi_scales(const void *s0, const void *s1, int q4)
{
    uint16_t a, b;
    memcpy(&a, s0, 2);
    memcpy(&b, s1, 2);
    const __m128 f = _mm_cvtph_ps(_mm_cvtsi32_si128((int)((unsigned)a | (unsigned)b << 16)));
    const __m512i idx = q4 ? _mm512_set_epi32(1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0)
                           : _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    return _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(f));
}
HR_I8_INLINE hr_vi hr_vi_dot(hr_vi acc, hr_vi u, hr_vi s) { return _mm512_dpbusd_epi32(acc, u, s); }
HR_I8_INLINE hr_vf hr_vi_cvt(hr_vi x) { return _mm512_cvtepi32_ps(x); }
static inline hr_vf hr_vload_i8(const void *p)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p)));
}
static inline void hr_vgather_f16(const void *p, ptrdiff_t stride, float *out)
{
    const __m512i idx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                           _mm512_set1_epi32((int)stride));
    const __m512i w = _mm512_i32gather_epi32(idx, p, 1);
    _mm512_storeu_ps(out, _mm512_cvtph_ps(_mm512_cvtepi32_epi16(w)));
}
static inline hr_vf hr_vload_u4(const void *p, int hi)
{
    __m512i x = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
    x = hi ? _mm512_srli_epi32(x, 4) : _mm512_and_si512(x, _mm512_set1_epi32(15));
    return _mm512_cvtepi32_ps(x);
}
#else /* AVX2 + F16C */
#define HR_IB 1
#define HR_I8_ISA "avx-vnni"
#define HR_I8_TARGET __attribute__((target("avx2,fma,f16c,avxvnni")))
typedef __m256i hr_vi;

/* AVX2 usable and CPUID.(7,1):EAX bit 4, AVX-VNNI. */
static inline int hr_cpu_i8dot(void)
{
    unsigned a, b, c, d;
    if (!__builtin_cpu_supports("avx2")) return 0;
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d)) return 0;
    return a >> 4 & 1;
}

#define HR_I8_INLINE static inline __attribute__((always_inline)) HR_I8_TARGET
HR_I8_INLINE hr_vi hr_vi_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
HR_I8_INLINE hr_vi hr_vi_q8_0(const void *blk, int nb)
{
    (void)nb;
    return _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)((const unsigned char *)blk + 2)), _mm256_set1_epi8((char)0x80));
}
HR_I8_INLINE hr_vi hr_vi_q4_0(const void *blk, int nb)
{
    (void)nb;
    const __m128i v = _mm_loadu_si128((const __m128i *)((const unsigned char *)blk + 2));
    const __m256i x = _mm256_inserti128_si256(_mm256_castsi128_si256(v), _mm_srli_epi16(v, 4), 1);
    return _mm256_and_si256(x, _mm256_set1_epi8(15));
}
HR_I8_INLINE hr_vf hr_vi_scales(const void *s0, const void *s1, int q4)
{
    (void)s1;
    (void)q4;
    return _mm256_set1_ps(hr_f16_scalar(s0));
}
HR_I8_INLINE hr_vi hr_vi_dot(hr_vi acc, hr_vi u, hr_vi s) { return _mm256_dpbusd_avx_epi32(acc, u, s); }
HR_I8_INLINE hr_vf hr_vi_cvt(hr_vi x) { return _mm256_cvtepi32_ps(x); }
static inline hr_vf hr_vload_i8(const void *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}
static inline void hr_vgather_f16(const void *p, ptrdiff_t stride, float *out)
{
    for (int l = 0; l < HR_VW; l++) out[l] = hr_f16_scalar((const unsigned char *)p + l * stride);
}
static inline hr_vf hr_vload_u4(const void *p, int hi)
{
    __m256i x = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    x = hi ? _mm256_srli_epi32(x, 4) : _mm256_and_si256(x, _mm256_set1_epi32(15));
    return _mm256_cvtepi32_ps(x);
}
#endif
#endif

#endif

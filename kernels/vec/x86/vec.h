/* vec.h — the one SIMD layer: fp32 vectors for AVX-512, AVX2+FMA or portable C, by build flags. */
#ifndef HR_VEC_H
#define HR_VEC_H

/* Kernels are written once against this layer (in the manner of ggml's simd-mappings.h).
 * The path follows the compiler's target flags (make ISA=native|avx512|avx2|generic);
 * -DHR_VEC_GENERIC forces the portable path on any target.
 *
 *   HR_VW                      floats per vector (16, 8 or 4)
 *   hr_vf                      the vector type
 *   hr_vzero, hr_vset1(x)      constants
 *   hr_vload(p), hr_vstore(p,v)        unaligned, HR_VW floats
 *   hr_vload_n(p,n), hr_vstore_n(p,v,n) the first n lanes (0 <= n < HR_VW); loads fill
 *                              the other lanes with 0, stores leave memory past n alone
 *   hr_vadd, hr_vsub, hr_vmul, hr_vmax, hr_vfma(a,b,c) = a*b + c
 *   hr_vreduce_add, hr_vreduce_max      horizontal sum / max of all lanes
 *   hr_vexp(x), hr_expf_poly(x)         expf, vector and scalar, bit-identical per lane
 *   hr_vexp2(x)                         2^x for x <= 0 (softmax in log2 units)
 *   hr_vtranspose(src, ss, dst, ds)     an HR_VW x HR_VW block, rows ss and ds floats apart
 *
 * The portable path is a struct of 4 floats handled lane by lane: it keeps the tail
 * logic of every kernel exercised on any machine, and compilers vectorize it for SSE2.
 */

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "headroom.h" /* hr_f16_to_f32, hr_bf16_to_f32 for the portable loads */

#if defined(__AVX512F__) && !defined(HR_VEC_GENERIC)
#define HR_VEC_AVX512 1
#define HR_VEC_ISA "avx512"
#elif defined(__AVX2__) && defined(__FMA__) && !defined(HR_VEC_GENERIC)
#define HR_VEC_AVX2 1
#define HR_VEC_ISA "avx2"
#else
#define HR_VEC_GENERIC_PATH 1
#define HR_VEC_ISA "generic"
#endif

#if defined(HR_VEC_AVX512) || defined(HR_VEC_AVX2)
#include <immintrin.h>
#endif

/* ---- scalar exp ------------------------------------------------------------------ */

/* The constants of hr_expf_poly / hr_vexp (Cephes expf, S. L. Moshier).
 *   x = n*ln2 + r, n = round(x*log2(e)) by the 1.5*2^23 trick (round to nearest even),
 *   r = x - n*C1 - n*C2 (Cody-Waite: C1 has 9 significant bits so n*C1 is exact),
 *   |r| <= ln2/2, exp(r) = 1 + r + r^2 * P(r) with P of degree 5 (minimax),
 *   2^n is built in the exponent bits: (n + 127) << 23.
 * Domain: x is clamped to [HR_EXP_LO, HR_EXP_HI]; x < HR_EXP_LO (= ln FLT_MIN, this
 * includes -inf) returns exactly 0, no denormals; x > 88 returns exp(88) ~ 1.65e38
 * (never inf); NaN returns NaN.
 * Accuracy: max relative error vs exp in double 8.5e-8 (0.71 FLT_EPSILON), found by an
 * exhaustive sweep of every float in [-87, 88] on the AVX-512, AVX2 and portable paths
 * (8.2e-8 without FMA). tests/test_vec.c re-checks a dense sweep at 1.0e-7. */
#define HR_EXP_LO (-87.33654475f) /* ln(FLT_MIN): below it the result is 0            */
#define HR_EXP_HI 88.0f           /* keeps n <= 127 so 2^n is a normal float          */
#define HR_EXP_LOG2E 1.44269504088896341f
#define HR_EXP_C1 0.693359375f
#define HR_EXP_C2 (-2.12194440e-4f)
#define HR_EXP_MAGIC 12582912.0f /* 1.5 * 2^23: adding it rounds to an integer      */
#define HR_EXP_P0 1.9875691500e-4f
#define HR_EXP_P1 1.3981999507e-3f
#define HR_EXP_P2 8.3334519073e-3f
#define HR_EXP_P3 4.1665795894e-2f
#define HR_EXP_P4 1.6666665459e-1f
#define HR_EXP_P5 5.0000001201e-1f

/* a*b + c exactly as the vector path computes it: one fused rounding where the vector
 * path has FMA, two roundings where it does not (-std=c11 never contracts a*b + c). */
#if defined(HR_VEC_GENERIC_PATH)
#define HR_SFMA(a, b, c) ((a) * (b) + (c))
#else
#define HR_SFMA(a, b, c) fmaf((a), (b), (c))
#endif

/* expf by the polynomial above; bit-identical to one lane of hr_vexp. */
static inline float hr_expf_poly(float x)
{
    if (x != x) return x;
    float xc = x < HR_EXP_HI ? x : HR_EXP_HI;
    xc = xc > HR_EXP_LO ? xc : HR_EXP_LO;
    float t = xc * HR_EXP_LOG2E;
    float n = (t + HR_EXP_MAGIC) - HR_EXP_MAGIC;
    float r = HR_SFMA(n, -HR_EXP_C1, xc);
    r = HR_SFMA(n, -HR_EXP_C2, r);
    float p = HR_EXP_P0;
    p = HR_SFMA(p, r, HR_EXP_P1);
    p = HR_SFMA(p, r, HR_EXP_P2);
    p = HR_SFMA(p, r, HR_EXP_P3);
    p = HR_SFMA(p, r, HR_EXP_P4);
    p = HR_SFMA(p, r, HR_EXP_P5);
    float y = HR_SFMA(p, r * r, r) + 1.0f;
    int32_t bits = ((int32_t)n + 127) * (1 << 23); /* n in [-126, 127]: a normal 2^n */
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    y *= scale;
    return x < HR_EXP_LO ? 0.0f : y;
}

/* ---- AVX-512 --------------------------------------------------------------------- */
#if defined(HR_VEC_AVX512)

#define HR_VW 16
typedef __m512 hr_vf;

static inline hr_vf hr_vzero(void) { return _mm512_setzero_ps(); }
static inline hr_vf hr_vset1(float x) { return _mm512_set1_ps(x); }
static inline hr_vf hr_vload(const float *p) { return _mm512_loadu_ps(p); }
static inline void hr_vstore(float *p, hr_vf v) { _mm512_storeu_ps(p, v); }
static inline hr_vf hr_vload_n(const float *p, int n)
{
    return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p);
}
static inline void hr_vstore_n(float *p, hr_vf v, int n)
{
    _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v);
}
static inline hr_vf hr_vadd(hr_vf a, hr_vf b) { return _mm512_add_ps(a, b); }
static inline hr_vf hr_vsub(hr_vf a, hr_vf b) { return _mm512_sub_ps(a, b); }
static inline hr_vf hr_vmul(hr_vf a, hr_vf b) { return _mm512_mul_ps(a, b); }
static inline hr_vf hr_vmax(hr_vf a, hr_vf b) { return _mm512_max_ps(a, b); }
static inline hr_vf hr_vfma(hr_vf a, hr_vf b, hr_vf c) { return _mm512_fmadd_ps(a, b, c); }
static inline float hr_vreduce_add(hr_vf v) { return _mm512_reduce_add_ps(v); }
static inline float hr_vreduce_max(hr_vf v) { return _mm512_reduce_max_ps(v); }

static inline hr_vf hr_vmin_(hr_vf a, hr_vf b) { return _mm512_min_ps(a, b); }
/* hr_vexp's end: y scaled by 2^n, 0 where x < HR_EXP_LO, x itself where x is NaN. */
static inline hr_vf hr_vexp_end_(hr_vf y, hr_vf n, hr_vf x)
{
    __m512i e = _mm512_slli_epi32(
        _mm512_add_epi32(_mm512_cvttps_epi32(n), _mm512_set1_epi32(127)), 23);
    y = _mm512_mul_ps(y, _mm512_castsi512_ps(e));
    __mmask16 under = _mm512_cmp_ps_mask(x, _mm512_set1_ps(HR_EXP_LO), _CMP_LT_OQ);
    __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    y = _mm512_mask_mov_ps(y, under, _mm512_setzero_ps());
    return _mm512_mask_mov_ps(y, nan, x);
}

/* ---- AVX2 + FMA ------------------------------------------------------------------ */
#elif defined(HR_VEC_AVX2)

#define HR_VW 8
typedef __m256 hr_vf;

/* Lanes [0, n) set: all-ones where lane index < n. */
static inline __m256i hr_vmask_(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline hr_vf hr_vzero(void) { return _mm256_setzero_ps(); }
static inline hr_vf hr_vset1(float x) { return _mm256_set1_ps(x); }
static inline hr_vf hr_vload(const float *p) { return _mm256_loadu_ps(p); }
static inline void hr_vstore(float *p, hr_vf v) { _mm256_storeu_ps(p, v); }
static inline hr_vf hr_vload_n(const float *p, int n)
{
    return _mm256_maskload_ps(p, hr_vmask_(n));
}
static inline void hr_vstore_n(float *p, hr_vf v, int n)
{
    _mm256_maskstore_ps(p, hr_vmask_(n), v);
}
static inline hr_vf hr_vadd(hr_vf a, hr_vf b) { return _mm256_add_ps(a, b); }
static inline hr_vf hr_vsub(hr_vf a, hr_vf b) { return _mm256_sub_ps(a, b); }
static inline hr_vf hr_vmul(hr_vf a, hr_vf b) { return _mm256_mul_ps(a, b); }
static inline hr_vf hr_vmax(hr_vf a, hr_vf b) { return _mm256_max_ps(a, b); }
static inline hr_vf hr_vfma(hr_vf a, hr_vf b, hr_vf c) { return _mm256_fmadd_ps(a, b, c); }
static inline float hr_vreduce_add(hr_vf v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}
static inline float hr_vreduce_max(hr_vf v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static inline hr_vf hr_vmin_(hr_vf a, hr_vf b) { return _mm256_min_ps(a, b); }
/* hr_vexp's end, as the AVX-512 one above. */
static inline hr_vf hr_vexp_end_(hr_vf y, hr_vf n, hr_vf x)
{
    __m256i e = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_cvttps_epi32(n), _mm256_set1_epi32(127)), 23);
    y = _mm256_mul_ps(y, _mm256_castsi256_ps(e));
    hr_vf under = _mm256_cmp_ps(x, _mm256_set1_ps(HR_EXP_LO), _CMP_LT_OQ);
    hr_vf nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    y = _mm256_andnot_ps(under, y);
    return _mm256_blendv_ps(y, x, nan);
}

/* ---- portable C ------------------------------------------------------------------ */
#else

#define HR_VW 4
typedef struct {
    float v[HR_VW];
} hr_vf;

static inline hr_vf hr_vzero(void) { return (hr_vf){{0.0f, 0.0f, 0.0f, 0.0f}}; }
static inline hr_vf hr_vset1(float x) { return (hr_vf){{x, x, x, x}}; }
static inline hr_vf hr_vload(const float *p)
{
    hr_vf r;
    for (int i = 0; i < HR_VW; i++) r.v[i] = p[i];
    return r;
}
static inline void hr_vstore(float *p, hr_vf v)
{
    for (int i = 0; i < HR_VW; i++) p[i] = v.v[i];
}
static inline hr_vf hr_vload_n(const float *p, int n)
{
    hr_vf r = hr_vzero();
    for (int i = 0; i < n; i++) r.v[i] = p[i];
    return r;
}
static inline void hr_vstore_n(float *p, hr_vf v, int n)
{
    for (int i = 0; i < n; i++) p[i] = v.v[i];
}
#define HR_VLANEWISE_(name, expr)                                                        \
    static inline hr_vf name(hr_vf a, hr_vf b)                                            \
    {                                                                                    \
        hr_vf r;                                                                         \
        for (int i = 0; i < HR_VW; i++) r.v[i] = (expr);                                 \
        return r;                                                                        \
    }
HR_VLANEWISE_(hr_vadd, a.v[i] + b.v[i])
HR_VLANEWISE_(hr_vsub, a.v[i] - b.v[i])
HR_VLANEWISE_(hr_vmul, a.v[i] * b.v[i])
HR_VLANEWISE_(hr_vmax, a.v[i] > b.v[i] ? a.v[i] : b.v[i])
#undef HR_VLANEWISE_
static inline hr_vf hr_vfma(hr_vf a, hr_vf b, hr_vf c)
{
    hr_vf r;
    for (int i = 0; i < HR_VW; i++) r.v[i] = HR_SFMA(a.v[i], b.v[i], c.v[i]);
    return r;
}
static inline float hr_vreduce_add(hr_vf v) { return (v.v[0] + v.v[2]) + (v.v[1] + v.v[3]); }
static inline float hr_vreduce_max(hr_vf v)
{
    float a = v.v[0] > v.v[2] ? v.v[0] : v.v[2], b = v.v[1] > v.v[3] ? v.v[1] : v.v[3];
    return a > b ? a : b;
}
static inline hr_vf hr_vexp(hr_vf x)
{
    hr_vf r;
    for (int i = 0; i < HR_VW; i++) r.v[i] = hr_expf_poly(x.v[i]);
    return r;
}

#endif

#if defined(HR_VEC_AVX512) || defined(HR_VEC_AVX2)
/* expf on both vector ISAs, written once with their ops (hr_expf_poly's steps, lane by lane). */
static inline hr_vf hr_vexp(hr_vf x)
{
    /* min/max return their second operand when either is NaN: clamp the constant
     * first, then put NaN lanes back at the end. */
    hr_vf xc = hr_vmin_(x, hr_vset1(HR_EXP_HI));
    xc = hr_vmax(xc, hr_vset1(HR_EXP_LO));
    hr_vf t = hr_vmul(xc, hr_vset1(HR_EXP_LOG2E));
    hr_vf n = hr_vsub(hr_vadd(t, hr_vset1(HR_EXP_MAGIC)), hr_vset1(HR_EXP_MAGIC));
    hr_vf r = hr_vfma(n, hr_vset1(-HR_EXP_C1), xc);
    r = hr_vfma(n, hr_vset1(-HR_EXP_C2), r);
    hr_vf p = hr_vset1(HR_EXP_P0);
    p = hr_vfma(p, r, hr_vset1(HR_EXP_P1));
    p = hr_vfma(p, r, hr_vset1(HR_EXP_P2));
    p = hr_vfma(p, r, hr_vset1(HR_EXP_P3));
    p = hr_vfma(p, r, hr_vset1(HR_EXP_P4));
    p = hr_vfma(p, r, hr_vset1(HR_EXP_P5));
    hr_vf y = hr_vadd(hr_vfma(p, hr_vmul(r, r), r), hr_vset1(1.0f));
    return hr_vexp_end_(y, n, x);
}
#endif

/* ---- reduced-precision loads ------------------------------------------------------ */

/* HR_VW stored values converted to fp32 in registers, exactly as hr_dtype_load_row
 * converts them (kernels/dtype.c), so a kernel sees the values the oracle sees:
 *   hr_vload_f16(p), hr_vload_f16_n(p,n)    IEEE binary16 (F16C vcvtph2ps; portable:
 *                                           hr_f16_to_f32), the _n form n < HR_VW values
 *                                           with the other lanes 0
 *   hr_vload_bf16(p), hr_vload_bf16_n(p,n)  bf16: the 16 bits shifted into the top half
 *   hr_vset1_f16(p)                         the f16 at p broadcast (a block's scale)
 *   hr_vload_q8_0(blk,i,sc)                 values [i, i+HR_VW) of a q8_0 block (i a
 *                                           multiple of HR_VW below 32): int8 * sc
 *   hr_vload_q4_0(blk,i,sc)                 the same for q4_0: (nibble - 8) * sc, value
 *                                           j < 16 in byte j's low nibble, j >= 16 in
 *                                           byte j - 16's high one
 * blk points at the block (its fp16 scale first), sc is hr_vset1_f16(blk); one product
 * rounded once, as dtype.c's (float)q * d. Pointers need no alignment.
 * And the sums a converted key block's dot products end in:
 *   hr_vreduce_add4(a,b,c,d,out)            out[0..3] = the horizontal sums of a, b, c, d
 *                                           (halves added, then three hadds: ~12 uops for
 *                                           four sums instead of ~8 per hr_vreduce_add)
 *   hr_vreduce_add16(v,out,ld)              out[r ld .. r ld + 3] = the sums of v[4r ..
 *                                           4r + 3]: a 4 x 4 tile's 16 sums by one tree */
#if defined(HR_VEC_AVX512)
static inline hr_vf hr_vload_f16(const void *p) { return _mm512_cvtph_ps(_mm256_loadu_si256(p)); }
static inline hr_vf hr_vload_f16_n(const void *p, int n)
{
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16((__mmask16)((1u << n) - 1u), p));
}
static inline hr_vf hr_vload_bf16(const void *p)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(p)), 16));
}
static inline hr_vf hr_vload_bf16_n(const void *p, int n)
{
    __m256i h = _mm256_maskz_loadu_epi16((__mmask16)((1u << n) - 1u), p);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
static inline hr_vf hr_vset1_f16(const void *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    return _mm512_set1_ps(_cvtsh_ss(h));
}
static inline hr_vf hr_vload_q8_0(const void *blk, int i, hr_vf sc)
{
    __m128i b = _mm_loadu_si128((const __m128i *)((const unsigned char *)blk + 2 + i));
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b)), sc);
}
static inline hr_vf hr_vload_q4_0(const void *blk, int i, hr_vf sc)
{
    __m512i x = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)((const unsigned char *)blk + 2)));
    x = i ? _mm512_srli_epi32(x, 4) : _mm512_and_si512(x, _mm512_set1_epi32(15));
    x = _mm512_sub_epi32(x, _mm512_set1_epi32(8));
    return _mm512_mul_ps(_mm512_cvtepi32_ps(x), sc);
}
static inline __m256 hr_vhalves_(hr_vf a)
{
    return _mm256_add_ps(_mm512_castps512_ps256(a), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
}
#elif defined(HR_VEC_AVX2) && defined(__F16C__)
static inline hr_vf hr_vload_f16(const void *p) { return _mm256_cvtph_ps(_mm_loadu_si128(p)); }
static inline hr_vf hr_vload_f16_n(const void *p, int n)
{
    uint16_t h[8] = {0};
    memcpy(h, p, (size_t)n * 2);
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h));
}
static inline hr_vf hr_vload_bf16(const void *p)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(p)), 16));
}
static inline hr_vf hr_vload_bf16_n(const void *p, int n)
{
    uint16_t h[8] = {0};
    memcpy(h, p, (size_t)n * 2);
    return hr_vload_bf16(h);
}
static inline hr_vf hr_vset1_f16(const void *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    return _mm256_set1_ps(_cvtsh_ss(h));
}
static inline hr_vf hr_vload_q8_0(const void *blk, int i, hr_vf sc)
{
    __m128i b = _mm_loadl_epi64((const __m128i *)((const unsigned char *)blk + 2 + i));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b)), sc);
}
static inline hr_vf hr_vload_q4_0(const void *blk, int i, hr_vf sc)
{
    __m128i b = _mm_loadl_epi64((const __m128i *)((const unsigned char *)blk + 2 + (i & 15)));
    __m256i x = _mm256_cvtepu8_epi32(b);
    x = i >= 16 ? _mm256_srli_epi32(x, 4) : _mm256_and_si256(x, _mm256_set1_epi32(15));
    x = _mm256_sub_epi32(x, _mm256_set1_epi32(8));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(x), sc);
}
#endif
#if defined(HR_VEC_AVX512) || defined(HR_VEC_AVX2)
#if defined(HR_VEC_AVX2)
#define hr_vhalves_(a) (a)
#endif
static inline void hr_vreduce_add4(hr_vf a, hr_vf b, hr_vf c, hr_vf d, float *out)
{
    /* hadd(x, y) = x0+x1 x2+x3 y0+y1 y2+y3 | x4+x5 ...: after three, lane i of each
     * 128-bit half holds half of sum i. */
    __m256 ab = _mm256_hadd_ps(hr_vhalves_(a), hr_vhalves_(b)), cd = _mm256_hadd_ps(hr_vhalves_(c), hr_vhalves_(d));
    __m256 abcd = _mm256_hadd_ps(ab, cd);
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(abcd), _mm256_extractf128_ps(abcd, 1)));
}
#endif
#if !defined(HR_VEC_AVX512) && !(defined(HR_VEC_AVX2) && defined(__F16C__))
/* Portable, and AVX2 without F16C: lane by lane through dtype.c's conversions. */
static inline hr_vf hr_vload_f16_n(const void *p, int n)
{
    float x[HR_VW] = {0};
    uint16_t h[HR_VW];
    memcpy(h, p, (size_t)n * 2);
    for (int l = 0; l < n; l++) x[l] = hr_f16_to_f32(h[l]);
    return hr_vload(x);
}
static inline hr_vf hr_vload_f16(const void *p) { return hr_vload_f16_n(p, HR_VW); }
static inline hr_vf hr_vload_bf16_n(const void *p, int n)
{
    float x[HR_VW] = {0};
    uint16_t h[HR_VW];
    memcpy(h, p, (size_t)n * 2);
    for (int l = 0; l < n; l++) x[l] = hr_bf16_to_f32(h[l]);
    return hr_vload(x);
}
static inline hr_vf hr_vload_bf16(const void *p) { return hr_vload_bf16_n(p, HR_VW); }
static inline hr_vf hr_vset1_f16(const void *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    return hr_vset1(hr_f16_to_f32(h));
}
static inline hr_vf hr_vload_q8_0(const void *blk, int i, hr_vf sc)
{
    const signed char *q = (const signed char *)blk + 2 + i;
    float x[HR_VW];
    for (int l = 0; l < HR_VW; l++) x[l] = (float)q[l];
    return hr_vmul(hr_vload(x), sc);
}
static inline hr_vf hr_vload_q4_0(const void *blk, int i, hr_vf sc)
{
    const unsigned char *q = (const unsigned char *)blk + 2 + (i & 15);
    float x[HR_VW];
    for (int l = 0; l < HR_VW; l++) x[l] = (float)((i >= 16 ? q[l] >> 4 : q[l] & 15) - 8);
    return hr_vmul(hr_vload(x), sc);
}
#endif
#if defined(HR_VEC_GENERIC_PATH)
static inline void hr_vreduce_add4(hr_vf a, hr_vf b, hr_vf c, hr_vf d, float *out)
{
    out[0] = hr_vreduce_add(a), out[1] = hr_vreduce_add(b), out[2] = hr_vreduce_add(c), out[3] = hr_vreduce_add(d);
}
#endif
#if defined(HR_VEC_AVX512)
/* One tree (8 + 4 + 2 + 1 shuffle pairs and adds, ~52 ops with the stores; four
 * hr_vreduce_add4 ~80), fed v[f(k)] (sum i lands in lane f(i)). Split so decode_kv.c can
 * spread it: hr_vsum16_start (16 vectors to 8), hr_vsum16_step k = 0 .. 6 (the stores at 6). */
static inline void hr_vsum16_start(const hr_vf *v, hr_vf w[8])
{
    static const unsigned char f[16] = {0, 2, 1, 3, 8, 10, 9, 11, 4, 6, 5, 7, 12, 14, 13, 15};
    for (int i = 0; i < 8; i++) {
        const __m512 a = v[f[i]], b = v[f[i + 8]];
        w[i] = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x44), _mm512_shuffle_f32x4(a, b, 0xEE));
    }
}
static inline void hr_vsum16_step(hr_vf w[8], int k, float *out, size_t ld)
{
    if (k < 4) w[k] = _mm512_add_ps(_mm512_shuffle_f32x4(w[k], w[k + 4], 0x88), _mm512_shuffle_f32x4(w[k], w[k + 4], 0xDD));
    else if (k < 6) w[k - 4] = _mm512_add_ps(_mm512_shuffle_ps(w[k - 4], w[k - 2], 0x88), _mm512_shuffle_ps(w[k - 4], w[k - 2], 0xDD));
    else {
        const __m512 z = _mm512_add_ps(_mm512_shuffle_ps(w[0], w[1], 0x88), _mm512_shuffle_ps(w[0], w[1], 0xDD));
        _mm_storeu_ps(out, _mm512_castps512_ps128(z));
        _mm_storeu_ps(out + ld, _mm512_extractf32x4_ps(z, 1));
        _mm_storeu_ps(out + 2 * ld, _mm512_extractf32x4_ps(z, 2));
        _mm_storeu_ps(out + 3 * ld, _mm512_extractf32x4_ps(z, 3));
    }
}
static inline void hr_vreduce_add16(const hr_vf *v, float *out, size_t ld)
{
    hr_vf w[8];
    hr_vsum16_start(v, w);
    for (int k = 0; k < 7; k++) hr_vsum16_step(w, k, out, ld);
}
#else
static inline void hr_vreduce_add16(const hr_vf *v, float *out, size_t ld)
{
    for (int r = 0; r < 4; r++) hr_vreduce_add4(v[4 * r], v[4 * r + 1], v[4 * r + 2], v[4 * r + 3], out + r * ld);
}
#endif

/* ---- exp2 for x <= 0 ------------------------------------------------------------- */

/* hr_vexp2(x) = 2^x for x <= 0; -inf gives exactly 0. For a softmax whose scores were
 * multiplied once by log2(e) (FlashAttention-2's trick): exp(s - m) = 2^(s' - m').
 * AVX-512 and AVX2: x = n + f, n = round(x), |f| <= 1/2 (f is exact), 2^f = 1 + f P(f)
 * with Cephes exp2f's degree-5 P (max relative error 7.9e-8 in fp32 over [-1/2, 1/2]),
 * times 2^n:
 *   AVX-512 multiplies by scalef, x clamped at -150 so -inf gives 2^-150, which rounds to
 *     exactly 0; results down to the smallest denormal are kept;
 *   AVX2 builds 2^n in the exponent field, x clamped at -127, where n = -127 gives a zero
 *     exponent field and so exactly 0: results below 2^-126.5 (and -inf) are 0, not
 *     denormals, which no softmax sum (>= 1) can see.
 * Portable: hr_vexp(x ln 2), so exactly 0 below 2^-126; rounding ln 2 and the product
 * adds up to |x| * 4.5e-8 of relative error (4e-6 near -92; tests/test_vec.c).
 * x > 0 is outside the contract (AVX2 has no overflow guard). It sits in a softmax's
 * inner loop, so it is always inlined. */
#define HR_VINLINE_ static inline __attribute__((always_inline))
#if defined(HR_VEC_AVX512) || defined(HR_VEC_AVX2)
/* 2^f for |f| <= 1/2. */
HR_VINLINE_ hr_vf hr_vexp2_frac_(hr_vf f)
{
    hr_vf p = hr_vset1(1.535336188319500e-4f);
    p = hr_vfma(p, f, hr_vset1(1.339887440266574e-3f));
    p = hr_vfma(p, f, hr_vset1(9.618437357674640e-3f));
    p = hr_vfma(p, f, hr_vset1(5.550332471162809e-2f));
    p = hr_vfma(p, f, hr_vset1(2.402264791363012e-1f));
    p = hr_vfma(p, f, hr_vset1(6.931472028550421e-1f));
    return hr_vfma(p, f, hr_vset1(1.0f));
}
#endif
/* hr_vexp2's range reduction: x = n + f, n = round(x) after the clamp, and 2^n
 * applied to the polynomial's 2^f (scalef on AVX-512, the exponent bits on AVX2). */
#if defined(HR_VEC_AVX512)
HR_VINLINE_ hr_vf hr_vexp2_split_(hr_vf x, hr_vf *n)
{
    x = _mm512_max_ps(x, _mm512_set1_ps(-150.0f));
    *n = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm512_sub_ps(x, *n);
}
HR_VINLINE_ hr_vf hr_vexp2_join_(hr_vf p, hr_vf n) { return _mm512_scalef_ps(p, n); }
#elif defined(HR_VEC_AVX2)
HR_VINLINE_ hr_vf hr_vexp2_split_(hr_vf x, hr_vf *n)
{
    x = _mm256_max_ps(x, _mm256_set1_ps(-127.0f));
    *n = _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_sub_ps(x, *n);
}
HR_VINLINE_ hr_vf hr_vexp2_join_(hr_vf p, hr_vf n)
{
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
#endif
#if defined(HR_VEC_AVX512) || defined(HR_VEC_AVX2)
HR_VINLINE_ hr_vf hr_vexp2(hr_vf x)
{
    hr_vf n, f = hr_vexp2_split_(x, &n);
    return hr_vexp2_join_(hr_vexp2_frac_(f), n);
}
#else
HR_VINLINE_ hr_vf hr_vexp2(hr_vf x) { return hr_vexp(hr_vmul(x, hr_vset1(0.693147180559945f))); }
#endif

/* ---- transpose ------------------------------------------------------------------- */

/* dst[c * ds + r] = src[r * ss + c] for r, c < HR_VW: a square block of HR_VW rows of
 * HR_VW floats, unaligned, strides in floats; src and dst must not overlap.
 * AVX-512: 16 x 16 in four rounds of in-register shuffles (pairs, quads, 128-bit lanes,
 * 256-bit halves), 64 shuffles for 256 floats instead of 256 scalar strided stores.
 * AVX2: 8 x 8 in three rounds (pairs, quads, 128-bit halves), 24 shuffles. Portable: a
 * 4 x 4 loop. */
#if defined(HR_VEC_AVX512)
static inline void hr_vtranspose(const float *src, ptrdiff_t ss, float *dst, ptrdiff_t ds)
{
    __m512 r[16], t[16];
    for (int i = 0; i < 16; i++) r[i] = _mm512_loadu_ps(src + i * ss);
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) {
        r[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
        r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            t[8 * i + j] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + j + 4], 0x88);
            t[8 * i + 4 + j] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + j + 4], 0xDD);
        }
    for (int j = 0; j < 8; j++) {
        r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
        r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xDD);
    }
    for (int i = 0; i < 16; i++) _mm512_storeu_ps(dst + i * ds, r[i]);
}
#elif defined(HR_VEC_AVX2)
static inline void hr_vtranspose(const float *src, ptrdiff_t ss, float *dst, ptrdiff_t ds)
{
    __m256 r[8], t[8];
    for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(src + i * ss);
    for (int i = 0; i < 4; i++) { /* t0 = r0[0] r1[0] r0[1] r1[1] | r0[4] r1[4] r0[5] r1[5] */
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) { /* r[4i + c]: column c | column c + 4 of rows 4i..4i+3 */
        r[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        r[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
        r[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        r[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
    }
    for (int j = 0; j < 4; j++) { /* low halves: column j; high halves: column j + 4 */
        t[j] = _mm256_permute2f128_ps(r[j], r[j + 4], 0x20);
        t[j + 4] = _mm256_permute2f128_ps(r[j], r[j + 4], 0x31);
    }
    for (int i = 0; i < 8; i++) _mm256_storeu_ps(dst + i * ds, t[i]);
}
#else
static inline void hr_vtranspose(const float *src, ptrdiff_t ss, float *dst, ptrdiff_t ds)
{
    for (int r = 0; r < HR_VW; r++)
        for (int c = 0; c < HR_VW; c++) dst[c * ds + r] = src[r * ss + c];
}
#endif

#endif

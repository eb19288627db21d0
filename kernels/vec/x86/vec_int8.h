/* vec_int8.h — the vector layer's int8 part: vpdpbusd dot products of q8_0/q4_0 blocks (AVX512-VNNI zmm, AVX-VNNI ymm; vpmaddubsw + vpmaddwd under HR_I8_EMU, AVX2 without VNNI), chosen at run time. */
#ifndef HR_VEC_INT8_H
#define HR_VEC_INT8_H

/* As vec_bf16.h does for AVX512-BF16: an AVX-512 build compiles these with a target
 * attribute for AVX512-VNNI (x86-64-v4 lacks it), an AVX2 build for AVX-VNNI (the VEX
 * form Alder Lake and Sapphire Rapids have; x86-64-v3 lacks it), and hr_cpu_i8dot() says
 * at run time whether this CPU may run them. Generic builds leave HR_HAVE_I8DOT
 * undefined and take their conversion paths.
 *
 * An hr_vi holds HR_VW int32 lanes (or 4 HR_VW bytes). The scores take K transposed,
 * one lane per key, so that a vpdpbusd adds four values of HR_VW keys at once against a
 * broadcast dword of Q and no horizontal sum is left per key:
 *   hr_vi_kt_q8(b, stride, nk, out)  the 32 values at b + L stride (lane L < HR_VW, keys
 *                              past nk read key nk - 1): out[i] lane L = values 4i..4i+3
 *                              of key L plus 128 (vpdpbusd multiplies unsigned bytes by
 *                              signed ones); a transpose of 8 x 8 dwords (per 256 bits)
 *   hr_vi_kt_q4(b, stride, nk, out)  the same for 16 bytes of packed nibbles (q4_0): the
 *                              nibbles as they are (0..15, the -8 not applied), out[i]
 *                              lane L values 4i..4i+3 of key L, the low nibbles of bytes
 *                              4i.. for i < 4, the high ones (values 16 + ...) above
 *   hr_vi_set1(p)              the int32 (four bytes) at p in every lane
 *   hr_vi_dot(acc, u, s)       acc[L] += sum of u[4L+i] * s[4L+i], u unsigned, s signed
 *                              (vpdpbusd; no saturation: |sum| < 2^31 for 32-value blocks)
 *   hr_vi_add(a, b), hr_vi_zero()
 *   hr_vi_cvt(x)               int32 lanes to fp32 (exact below 2^24)
 *   hr_vload_i8(p)             HR_VW signed bytes to fp32 (vpmovsxbd + vcvtdq2ps)
 *   hr_vi_load_u8(p)           HR_VW bytes zero-extended to int32 lanes (a q4_0 block's
 *                              bytes once, for both nibbles)
 *   hr_vcvt_u4(x, hi)          the low (hi 0) or high nibbles of those lanes to fp32
 *   hr_vload_f16_pair(p, lo, hi)  HR_VW dwords at p, each two fp16 (low half, high
 *                              half), to fp32: decode_i8.c's K and V block scales of
 *                              HR_VW keys, stored side by side by one scalar store
 *   hr_vi_q4_scales(k, ksn, v, vsn, n, np, out, os)  (AVX-512 only) the same dwords of
 *                              q4_0 rows of d 128, keys [0, np) (a multiple of 16; past n
 *                              key n - 1), K's scale low and V's high, block b's at out + b os
 */

#include <stdint.h>
#include <string.h>

#include "vec.h"

#if (defined(HR_VEC_AVX512) || (defined(HR_VEC_AVX2) && defined(__F16C__))) && \
    (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HR_HAVE_I8DOT 1

#include <immintrin.h>

#include "cpu_vendor.h"

/* HR_I8_SK 1 where q8_0's K and V stay signed and the int8 dots take the sign trick
 * (vec_int8_avx2.h's HR_I8_EMU instance: hr_vi_abs8, hr_vi_dot_sk); 0: K + 128 (vpdpbusd) */
#if defined(HR_I8_EMU)
#define HR_I8_SK 1
#else
#define HR_I8_SK 0
#endif

/* Four fp32 / int32 lanes (an xmm at every level): four reductions' results at once
 * (hr_vf_max4, hr_vi_add4) and pv_quant's group scales made from them (the hr_x4_* below). */
typedef __m128 hr_x4;
typedef __m128i hr_xi4;

#if defined(HR_VEC_AVX512)
#define HR_IB 2
#define HR_I8_ISA "avx512-vnni"
#define HR_I8_DOT "vpdpbusd"
#define HR_I8_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
typedef __m512i hr_vi;

/* AVX-512F usable and CPUID.(7,0):ECX bit 11, AVX512_VNNI. */
static inline int hr_cpu_i8dot(void) { return __builtin_cpu_supports("avx512f") && hr_cpuid_bit(7, 0, 2, 11); }

#define HR_I8_INLINE static inline __attribute__((always_inline)) HR_I8_TARGET
/* Each 256-bit half of r[0..7] an 8 x 8 matrix of dwords (row p = r[p]), transposed:
 * unpacks within 128 bits, then the 128-bit quarters joined by vpermt2q. 24 shuffles. */
HR_I8_INLINE void hr_vi_tr8(const __m512i r[8], hr_vi *out)
{
    __m512i t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++) {
        const __m512i *x = t + 4 * h;
        u[4 * h] = _mm512_unpacklo_epi64(x[0], x[2]);
        u[4 * h + 1] = _mm512_unpackhi_epi64(x[0], x[2]);
        u[4 * h + 2] = _mm512_unpacklo_epi64(x[1], x[3]);
        u[4 * h + 3] = _mm512_unpackhi_epi64(x[1], x[3]);
    }
    const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (int i = 0; i < 4; i++) {
        out[i] = _mm512_permutex2var_epi64(u[i], lo, u[4 + i]);
        out[4 + i] = _mm512_permutex2var_epi64(u[i], hi, u[4 + i]);
    }
}
/* The offset of row p (0..7) at stride s, for base + index * scale addressing: s, 3 s, 5 s
 * and 7 s as the index registers. The full-vector loads below take the stride through
 * an empty asm first, so that GCC keeps no per-row offsets live across the caller's loop:
 * it had hoisted all 16 and spilled them, and each load then took a reload and an add
 * (perf-log 0205). */
HR_I8_INLINE ptrdiff_t hr_vi_row8(ptrdiff_t s, ptrdiff_t s3, ptrdiff_t s5, ptrdiff_t s7, int p)
{
    return p == 0 ? 0 : p == 1 ? s : p == 2 ? 2 * s : p == 3 ? s3 : p == 4 ? 4 * s : p == 5 ? s5 : p == 6 ? 2 * s3 : s7;
}
HR_I8_INLINE void hr_vi_kt_q8(const unsigned char *b, ptrdiff_t stride, int nk, hr_vi *out)
{
    __m512i r[8];
    if (nk == HR_VW) {
        __asm__("" : "+r"(stride));
        const ptrdiff_t s3 = 3 * stride, s5 = 5 * stride, s7 = 7 * stride;
        const unsigned char *b8 = b + 8 * stride;
        for (int p = 0; p < 8; p++) {
            const ptrdiff_t o = hr_vi_row8(stride, s3, s5, s7, p);
            r[p] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(b + o))),
                                      _mm256_loadu_si256((const __m256i *)(b8 + o)), 1);
        }
    } else
        for (int p = 0; p < 8; p++) {
            const unsigned char *lo = b + (p < nk ? p : nk - 1) * stride, *hi = b + (p + 8 < nk ? p + 8 : nk - 1) * stride;
            r[p] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)lo)),
                                      _mm256_loadu_si256((const __m256i *)hi), 1);
        }
    hr_vi_tr8(r, out);
    for (int i = 0; i < 8; i++) out[i] = _mm512_xor_si512(out[i], _mm512_set1_epi8((char)0x80));
}
/* r[p] holds keys p, p + 4, p + 8, p + 12 (16 bytes each); a 4 x 4 dword transpose per
 * 128 bits puts key 4m + p in lane 4m + p. */
HR_I8_INLINE void hr_vi_kt_q4r(const __m512i r[4], hr_vi *out)
{
    const __m512i t0 = _mm512_unpacklo_epi32(r[0], r[1]), t1 = _mm512_unpackhi_epi32(r[0], r[1]);
    const __m512i t2 = _mm512_unpacklo_epi32(r[2], r[3]), t3 = _mm512_unpackhi_epi32(r[2], r[3]);
    const __m512i c[4] = {_mm512_unpacklo_epi64(t0, t2), _mm512_unpackhi_epi64(t0, t2), _mm512_unpacklo_epi64(t1, t3),
                          _mm512_unpackhi_epi64(t1, t3)};
    const __m512i m4 = _mm512_set1_epi8(15);
    for (int i = 0; i < 4; i++) {
        out[i] = _mm512_and_si512(c[i], m4);
        out[4 + i] = _mm512_and_si512(_mm512_srli_epi16(c[i], 4), m4);
    }
}
HR_I8_INLINE __m512i hr_vi_load4x16(const unsigned char *k0, const unsigned char *k1, const unsigned char *k2,
                                    const unsigned char *k3)
{
    __m512i x = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)k0));
    x = _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)k1), 1);
    x = _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)k2), 2);
    return _mm512_inserti32x4(x, _mm_loadu_si128((const __m128i *)k3), 3);
}
HR_I8_INLINE void hr_vi_kt_q4(const unsigned char *b, ptrdiff_t stride, int nk, hr_vi *out)
{
    __m512i r[4];
    if (nk == HR_VW) { /* as hr_vi_kt_q8: keys 4 m + p from 4 bases (keys 0, 4, 8, 12) */
        __asm__("" : "+r"(stride));
        const ptrdiff_t s3 = 3 * stride;
        const unsigned char *b4 = b + 4 * stride, *b8 = b + 8 * stride, *b12 = b4 + 8 * stride;
        for (int p = 0; p < 4; p++) {
            const ptrdiff_t o = hr_vi_row8(stride, s3, 0, 0, p);
            r[p] = hr_vi_load4x16(b + o, b4 + o, b8 + o, b12 + o);
        }
    } else
        for (int p = 0; p < 4; p++) {
            const unsigned char *k[4];
            for (int m = 0; m < 4; m++) k[m] = b + (4 * m + p < nk ? 4 * m + p : nk - 1) * stride;
            r[p] = hr_vi_load4x16(k[0], k[1], k[2], k[3]);
        }
    hr_vi_kt_q4r(r, out);
}
/* hr_vi_kt_q4 on a q4_0 K tile's block (HR_KV_TILE, headroom.h): its 256 nibble bytes
 * are already lane by key, 4 plain loads */
HR_I8_INLINE void hr_vi_kt_q4t(const unsigned char *p, hr_vi *out)
{
    const __m512i m4 = _mm512_set1_epi8(15);
    for (int i = 0; i < 4; i++) {
        const __m512i x = _mm512_loadu_si512(p + 64 * i);
        out[i] = _mm512_and_si512(x, m4);
        out[4 + i] = _mm512_and_si512(_mm512_srli_epi16(x, 4), m4);
    }
}
/* hr_vi_kt_q8 on a K tile's block: 8 plain loads, each + 128 */
HR_I8_INLINE void hr_vi_kt_q8t(const unsigned char *p, hr_vi *out)
{
    for (int i = 0; i < 8; i++) out[i] = _mm512_xor_si512(_mm512_loadu_si512(p + 64 * i), _mm512_set1_epi8((char)0x80));
}
HR_I8_INLINE hr_vi hr_vi_set1(const void *p)
{
    int32_t x;
    memcpy(&x, p, 4);
    return _mm512_set1_epi32(x);
}
HR_I8_INLINE hr_vi hr_vi_add(hr_vi a, hr_vi b) { return _mm512_add_epi32(a, b); }
HR_I8_INLINE hr_vi hr_vi_zero(void) { return _mm512_setzero_si512(); }
HR_I8_INLINE hr_vi hr_vi_dot(hr_vi acc, hr_vi u, hr_vi s) { return _mm512_dpbusd_epi32(acc, u, s); }
HR_I8_INLINE hr_vf hr_vi_cvt(hr_vi x) { return _mm512_cvtepi32_ps(x); }
static inline hr_vf hr_vload_i8(const void *p)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p)));
}
static inline hr_vi hr_vi_load_u8(const void *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline hr_vf hr_vcvt_u4(hr_vi x, int hi)
{
    return _mm512_cvtepi32_ps(hi ? _mm512_srli_epi32(x, 4) : _mm512_and_si512(x, _mm512_set1_epi32(15)));
}

/* int8 P·V (HR_HAVE_I8PV; the AVX2 forms below): V of 4 keys transposed so that a dword holds
 * one d of the 4 keys (vpdpbusd sums 4 adjacent byte products), two q blocks per
 * vector set. k[t] points at key t's first block's values, o1 bytes on to the second
 * (0: the same block twice, its half discarded). out[i], 128-bit lane L, dword p holds
 * d = 32 blk + 16 half + 4i + p of the pair (blk the block, 0 or 1):
 *   hr_vi_vt_q8: v + 128 (unsigned), or v as stored where sgn (signed, against u8
 *                weights); blk = L >> 1, half = L & 1 (two vinserti64x4 loads per
 *                key, 4 vpxor unless sgn, 8 unpacks per 4 keys);
 *   hr_vi_vt_q4: the nibbles as they are (v + 8); blk = L & 1, half = L >> 1 (a
 *                broadcast and a masked broadcast per key, 8 unpacks, then per vector
 *                one vpand: lanes 0-7 the low nibbles, lanes 8-15 the high ones as
 *                16 v, in place (hr_vi_q4_hz, hr_vf_q4_hc take the 16 out)).
 * hr_vi_set2(p0, p1, q4): the int32 at p0 in blk-0 lanes, at p1 in blk-1 lanes (the
 * weights of 4 keys, or a group's offset correction); hr_vset2f the same for floats.
 * hr_vf_tr4(x): x[i] lane L <-> x[L] lane i (128-bit lanes): the permuted order above
 * to d order and back (q4_0: real vector m sits at lane {0,2,1,3}[m]); hr_vf_tile_load /
 * hr_vf_tile_store: a row's fp32 tile of blocks b, b2 from d order into it and back.
 * hr_vi_round(x) nearest-even int32 lanes; hr_vi_store_i8 their low bytes (|x| <= 127, or 0..255 where u8), hr_vi_store4_i8 4 vectors'
 * (the same u8);
 * hr_vi_store4_i8 returns the packed vector (bytes in pack order), hr_vi_sum4(c, x) the 4 vectors'
 * sum in int32 lanes (AVX-512 from c by vpdpbusd); hr_vf_maxabs(a, b) max(|a|, |b|) lane-wise;
 * hr_vi_reduce_add the int32 sum; hr_vf_max4 / hr_vi_add4 four such reductions at once,
 * into the 4 lanes of an xmm (kept in registers: pv_quant's scales and corrections come
 * from them by vector ops); hr_vf_lane4(x, k) lane k of such an xmm in every lane. */
#define HR_HAVE_I8PV 1
HR_I8_INLINE void hr_vi_vt_tr(const __m512i K[4], hr_vi out[4])
{
    const __m512i A = _mm512_unpacklo_epi8(K[0], K[1]), B = _mm512_unpackhi_epi8(K[0], K[1]);
    const __m512i C = _mm512_unpacklo_epi8(K[2], K[3]), D = _mm512_unpackhi_epi8(K[2], K[3]);
    out[0] = _mm512_unpacklo_epi16(A, C);
    out[1] = _mm512_unpackhi_epi16(A, C);
    out[2] = _mm512_unpacklo_epi16(B, D);
    out[3] = _mm512_unpackhi_epi16(B, D);
}
HR_I8_INLINE void hr_vi_vt_q8(const unsigned char *const k[4], ptrdiff_t o1, int sgn, hr_vi out[4])
{
    __m512i K[4];
    for (int t = 0; t < 4; t++) {
        K[t] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)k[t])),
                                  _mm256_loadu_si256((const __m256i *)(k[t] + o1)), 1);
        if (!sgn) K[t] = _mm512_xor_si512(K[t], _mm512_set1_epi8((char)0x80));
    }
    hr_vi_vt_tr(K, out);
}
HR_I8_INLINE void hr_vi_vt_q4(const unsigned char *const k[4], ptrdiff_t o1, hr_vi out[4])
{
    __m512i K[4], U[4];
    for (int t = 0; t < 4; t++)
        K[t] = _mm512_mask_broadcast_i32x4(_mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)k[t])), 0xF0F0,
                                           _mm_loadu_si128((const __m128i *)(k[t] + o1)));
    hr_vi_vt_tr(K, U);
    /* the low nibbles in the lower 256 bits, the high ones left in place (16 times the
     * nibble) in the upper: one vpand, no shift; hr_vi_q4_hz / hr_vf_q4_hc scale back */
    const __m512i m = _mm512_mask_blend_epi64(0xF0, _mm512_set1_epi8(0x0F), _mm512_set1_epi8((char)0xF0));
    for (int i = 0; i < 4; i++) out[i] = _mm512_and_si512(U[i], m);
}
/* hr_vi_vt_q4 from a V tile (HR_KV_TILE): a key quad's rows of a block pair, 32 bytes
 * each (lone 0), or of a lone block, 16 each (lone 1; its second half the same block
 * again, as o1 0 gives) at p, already in the transposed order: a broadcast and a vpand */
HR_I8_INLINE void hr_vi_vt_q4t(const unsigned char *p, int lone, hr_vi out[4])
{
    const __m512i m = _mm512_mask_blend_epi64(0xF0, _mm512_set1_epi8(0x0F), _mm512_set1_epi8((char)0xF0));
    for (int i = 0; i < 4; i++) {
        const __m512i x = lone ? _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(p + 16 * i)))
                               : _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(p + 32 * i)));
        out[i] = _mm512_and_si512(x, m);
    }
}
/* hr_vi_vt_q8 from a V tile: a key quad's 4 vectors of a block pair, 64 bytes each (lone
 * 0), or of a lone block, 32 each broadcast to both halves (lone 1); + 128 unless sgn */
HR_I8_INLINE void hr_vi_vt_q8t(const unsigned char *p, int lone, int sgn, hr_vi out[4])
{
    for (int i = 0; i < 4; i++) {
        const __m512i x = lone ? _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(p + 32 * i)))
                               : _mm512_loadu_si512(p + 64 * i);
        out[i] = sgn ? x : _mm512_xor_si512(x, _mm512_set1_epi8((char)0x80));
    }
}
/* q4_0's high-nibble lanes (8-15) of hr_vi_vt_q4 hold 16 v: their accumulators start at
 * 16 times the offset correction (hr_vi_q4_hz, vpsllvd by 4 there) and flush by c / 16
 * (hr_vf_q4_hc); exact, 16 (z + sum w v) staying below 2^24 for a 64-key group */
HR_I8_INLINE hr_vi hr_vi_q4_hz(hr_vi z) { return _mm512_sllv_epi32(z, _mm512_set_epi32(4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0)); }
HR_I8_INLINE hr_vf hr_vf_q4_hc(hr_vf c)
{
    return _mm512_mul_ps(c, _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(1.0f), _mm512_set1_ps(0.0625f)));
}
HR_I8_INLINE hr_vi hr_vi_set2(const void *p0, const void *p1, int q4)
{
    int32_t x0, x1;
    memcpy(&x0, p0, 4);
    memcpy(&x1, p1, 4);
    return _mm512_mask_set1_epi32(_mm512_set1_epi32(x0), q4 ? 0xF0F0 : 0xFF00, x1);
}
HR_I8_INLINE hr_vf hr_vset2f(float x0, float x1, int q4)
{
    return _mm512_mask_mov_ps(_mm512_set1_ps(x0), q4 ? 0xF0F0 : 0xFF00, _mm512_set1_ps(x1));
}
HR_I8_INLINE void hr_vf_tr4(hr_vf x[4])
{
    const __m512 t0 = _mm512_shuffle_f32x4(x[0], x[1], 0x44), t1 = _mm512_shuffle_f32x4(x[0], x[1], 0xEE);
    const __m512 t2 = _mm512_shuffle_f32x4(x[2], x[3], 0x44), t3 = _mm512_shuffle_f32x4(x[2], x[3], 0xEE);
    x[0] = _mm512_shuffle_f32x4(t0, t2, 0x88);
    x[1] = _mm512_shuffle_f32x4(t0, t2, 0xDD);
    x[2] = _mm512_shuffle_f32x4(t1, t3, 0x88);
    x[3] = _mm512_shuffle_f32x4(t1, t3, 0xDD);
}
/* A row's fp32 tile of blocks b and b2 (b2 == b: one block, the second half zero and
 * not stored) from o (d order) into the transposes' order and back. */
HR_I8_INLINE void hr_vf_tile_load(const float *o, int b, int b2, int q4, hr_vf x[4])
{
    static const int perm[2][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}}; /* real vector m at lane perm[m] */
    for (int m = 0; m < 4; m++)
        x[perm[q4][m]] = (m >> 1) && b2 == b ? hr_vzero() : hr_vload(o + 32 * ((m >> 1) ? b2 : b) + 16 * (m & 1));
    hr_vf_tr4(x);
}
HR_I8_INLINE void hr_vf_tile_store(float *o, int b, int b2, int q4, const hr_vf x[4])
{
    static const int perm[2][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}};
    hr_vf y[4] = {x[0], x[1], x[2], x[3]};
    hr_vf_tr4(y);
    for (int m = 0; m < 4; m++)
        if (!((m >> 1) && b2 == b)) hr_vstore(o + 32 * ((m >> 1) ? b2 : b) + 16 * (m & 1), y[perm[q4][m]]);
}
/* hr_vi_dot as one vpdpbusd on acc in place: GCC 12 keeps the intrinsic's 16 P·V
 * accumulators in rotating copies (a vmovdqa per dot product, three spilled per 4 keys) */
HR_I8_INLINE void hr_vi_dot_ip(hr_vi *acc, hr_vi u, hr_vi s)
{
    __asm__("vpdpbusd %2, %1, %0" : "+v"(*acc) : "v"(u), "v"(s));
}
HR_I8_INLINE hr_vi hr_vi_round(hr_vf x) { return _mm512_cvtps_epi32(x); }
/* u8: lanes 0..255 (u8 weights); vpmovdb keeps the low byte either way */
HR_I8_INLINE void hr_vi_store_i8(void *p, hr_vi x, int u8)
{
    (void)u8;
    _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(x));
}
/* the low bytes of 4 vectors (|x| <= 127) to p[0 .. 64) in order: two vpackssdw and a
 * vpacksswb leave 128-bit lane l holding lanes 4l..4l+3 of each vector, one vpermd puts
 * them back (4 ops and a store where 4 vpmovdb take 8 and 4 stores) */
HR_I8_INLINE hr_vi hr_vi_store4_i8(void *p, const hr_vi x[4], int u8)
{
    const __m512i a = _mm512_packs_epi32(x[0], x[1]), b = _mm512_packs_epi32(x[2], x[3]);
    const __m512i c = u8 ? _mm512_packus_epi16(a, b) : _mm512_packs_epi16(a, b); /* u8: lanes 0..255 */
    _mm512_storeu_si512(p, _mm512_permutexvar_epi32(_mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0), c));
    return c;
}
/* the 4 vectors x's sum in int32 lanes (its total the one wanted) from c, their packed
 * bytes: one vpdpbusd by ones where the vectors' sum took 3 vpaddd */
HR_I8_INLINE hr_vi hr_vi_sum4(hr_vi c, const hr_vi x[4])
{
    (void)x;
    return _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(1), c);
}
/* max(|a|, |b|) lane-wise, one vrangeps (imm 0x0B: the larger magnitude, sign cleared;
 * AVX512-DQ, in x86-64-v4) where vandps twice and vmaxps took 3 */
HR_I8_INLINE hr_vf hr_vf_maxabs(hr_vf a, hr_vf b) { return _mm512_range_ps(a, b, 0x0B); }
HR_I8_INLINE int hr_vi_reduce_add(hr_vi x) { return _mm512_reduce_add_epi32(x); }
/* out[k] = the max of x[k]'s lanes, the int32 sum of y[k]'s, four at once: 128-bit lanes
 * transposed (6 shuffles, 3 ops: lane L holds 4 partials of vector L), then 2 in-lane
 * steps (~15 ops and one store for four, ~8 and a move for each _mm512_reduce_*) */
HR_I8_INLINE hr_x4 hr_vf_max4(const hr_vf x[4])
{
    const __m512 t0 = _mm512_max_ps(_mm512_shuffle_f32x4(x[0], x[1], 0x44), _mm512_shuffle_f32x4(x[0], x[1], 0xEE));
    const __m512 t1 = _mm512_max_ps(_mm512_shuffle_f32x4(x[2], x[3], 0x44), _mm512_shuffle_f32x4(x[2], x[3], 0xEE));
    __m512 m = _mm512_max_ps(_mm512_shuffle_f32x4(t0, t1, 0x88), _mm512_shuffle_f32x4(t0, t1, 0xDD));
    m = _mm512_max_ps(m, _mm512_permute_ps(m, 0x4E));
    m = _mm512_max_ps(m, _mm512_permute_ps(m, 0xB1));
    return _mm512_castps512_ps128(_mm512_permutexvar_ps(_mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 8, 4, 0), m));
}
/* lane k (a constant) of x in every lane */
HR_I8_INLINE hr_vf hr_vf_lane4(hr_x4 x, int k) { return _mm512_permutexvar_ps(_mm512_set1_epi32(k), _mm512_castps128_ps512(x)); }
HR_I8_INLINE hr_xi4 hr_vi_add4(const hr_vi y[4])
{
    const __m512i t0 = _mm512_add_epi32(_mm512_shuffle_i32x4(y[0], y[1], 0x44), _mm512_shuffle_i32x4(y[0], y[1], 0xEE));
    const __m512i t1 = _mm512_add_epi32(_mm512_shuffle_i32x4(y[2], y[3], 0x44), _mm512_shuffle_i32x4(y[2], y[3], 0xEE));
    __m512i m = _mm512_add_epi32(_mm512_shuffle_i32x4(t0, t1, 0x88), _mm512_shuffle_i32x4(t0, t1, 0xDD));
    m = _mm512_add_epi32(m, _mm512_shuffle_epi32(m, (_MM_PERM_ENUM)0x4E));
    m = _mm512_add_epi32(m, _mm512_shuffle_epi32(m, (_MM_PERM_ENUM)0xB1));
    return _mm512_castsi512_si128(_mm512_permutexvar_epi32(_mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 8, 4, 0), m));
}
HR_I8_INLINE hr_vf hr_vabs(hr_vf x) { return _mm512_abs_ps(x); }
/* one vpermw gathers the 16 low halves into the lower 256 bits, the high into the upper */
/* q4_0 rows of d 128 (72 bytes: the 4 scales at bytes 0, 18, 36, 54, words 0, 9, 18, 27
 * of the first 64): per key one 64-byte load of its K row and one of its V row, and one
 * vpermt2w placing its 4 K | V dwords at dword 4 b + t (t its slot in a group of 4); 4
 * keys OR-ed into a vector whose 128-bit lane b holds block b of the 4 keys, then a 4 x 4
 * lane transpose of 4 such vectors gives block b of 16 keys a vector. */
HR_I8_INLINE void hr_vi_q4_scales(const unsigned char *k, ptrdiff_t ksn, const unsigned char *v, ptrdiff_t vsn,
                                  int n, int np, uint32_t *out, size_t os)
{
    uint16_t ix[32]; /* word w: K's word 9 (w / 8), odd w V's (32 + ...) */
    for (int w = 0; w < 32; w++) ix[w] = (uint16_t)((w & 1) * 32 + 9 * (w / 8));
    const __m512i idx = _mm512_loadu_si512(ix);
    for (int j0 = 0; j0 < np; j0 += 16) {
        __m512i a[4];
        for (int m = 0; m < 4; m++) {
            a[m] = _mm512_setzero_si512();
            for (int t = 0; t < 4; t++) {
                const int j = j0 + 4 * m + t < n ? j0 + 4 * m + t : n - 1;
                const __mmask32 keep = 0x03030303u << (2 * t); /* words 8 b + 2 t, + 1 */
                a[m] = _mm512_or_si512(a[m], _mm512_maskz_permutex2var_epi16(keep, _mm512_loadu_si512(k + j * ksn), idx,
                                                                               _mm512_loadu_si512(v + j * vsn)));
            }
        }
        const __m512i t0 = _mm512_shuffle_i32x4(a[0], a[1], 0x44), t1 = _mm512_shuffle_i32x4(a[0], a[1], 0xEE);
        const __m512i t2 = _mm512_shuffle_i32x4(a[2], a[3], 0x44), t3 = _mm512_shuffle_i32x4(a[2], a[3], 0xEE);
        _mm512_storeu_si512(out + j0, _mm512_shuffle_i32x4(t0, t2, 0x88));
        _mm512_storeu_si512(out + os + j0, _mm512_shuffle_i32x4(t0, t2, 0xDD));
        _mm512_storeu_si512(out + 2 * os + j0, _mm512_shuffle_i32x4(t1, t3, 0x88));
        _mm512_storeu_si512(out + 3 * os + j0, _mm512_shuffle_i32x4(t1, t3, 0xDD));
    }
}
HR_I8_INLINE void hr_vload_f16_pair(const uint32_t *p, hr_vf *lo, hr_vf *hi)
{
    const __m512i idx = _mm512_set_epi16(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1, 30, 28, 26, 24,
                                         22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i w = _mm512_permutexvar_epi16(idx, _mm512_loadu_si512(p));
    *lo = _mm512_cvtph_ps(_mm512_castsi512_si256(w));
    *hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(w, 1));
}
#else /* AVX2 + F16C: the same functions on ymm */
#include "vec_int8_avx2.h"
#endif

/* On 4 lanes at every level (SSE4.1): hr_x4_tiny(a, lim) the lanes with 0 < a < lim as a
 * bit mask; hr_x4_rdiv(num, a) num / a where a > 0, else 0; hr_x4_div(a, den) a / den;
 * hr_xi4_mul(x, k) x k; stores of the 4 lanes. */
HR_I8_INLINE int hr_x4_tiny(hr_x4 a, float lim)
{
    return _mm_movemask_ps(_mm_and_ps(_mm_cmpgt_ps(a, _mm_setzero_ps()), _mm_cmplt_ps(a, _mm_set1_ps(lim))));
}
HR_I8_INLINE hr_x4 hr_x4_rdiv(float num, hr_x4 a)
{
    return _mm_and_ps(_mm_cmpgt_ps(a, _mm_setzero_ps()), _mm_div_ps(_mm_set1_ps(num), a));
}
HR_I8_INLINE hr_x4 hr_x4_div(hr_x4 a, float den) { return _mm_div_ps(a, _mm_set1_ps(den)); }
HR_I8_INLINE hr_xi4 hr_xi4_mul(hr_xi4 x, int k) { return _mm_mullo_epi32(x, _mm_set1_epi32(k)); }
HR_I8_INLINE void hr_x4_store(float *p, hr_x4 x) { _mm_storeu_ps(p, x); }
HR_I8_INLINE void hr_xi4_store(int32_t *p, hr_xi4 x) { _mm_storeu_si128((__m128i *)p, x); }
#endif

#endif

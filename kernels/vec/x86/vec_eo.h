/* vec_eo.h — the vector layer's bf16 even/odd loads: 2 HR_VW stored bf16 values as HR_VW dwords, split even/odd without a widening shuffle; the permutes to and from that order. */
#ifndef HR_VEC_EO_H
#define HR_VEC_EO_H

#include "vec.h"

/* 2 HR_VW bf16 values read as HR_VW dwords: dword i holds value 2i in its low half and
 * 2i + 1 in its high half (little-endian), so
 *   hr_vload_bf16_eo(p, e, o)   *e = values 0, 2, .., 2 HR_VW - 2 (dword << 16), *o = values
 *                               1, 3, .., 2 HR_VW - 1 (dword & 0xffff0000); exact, the values
 *                               hr_vload_bf16 gives. At AVX2 two ops (vpslld, vpand) per 16
 *                               values where hr_vload_bf16 takes two (vpmovzxwd, a port 5
 *                               shuffle, and vpslld) per 8.
 *   hr_vsplit_eo(a, b, e, o)    a = values 0 .. HR_VW - 1, b = the next HR_VW, in d order,
 *                               into that even/odd order (AVX2: vshufps + vpermpd each)
 *   hr_vmerge_eo(e, o, a, b)    back to d order (AVX2: vunpcklps/hps, two vperm2f128)
 * A dot product over values in this order is the same sum if its other operand is in the
 * same order; decode_kv.c's bf16 tiles at the avx2 level use them, the other
 * levels do not (avx512 hides its conversion under the stream). tests/test_vec.c checks
 * each level the build compiles the harness for. e, o, a, b may alias the inputs. */
#if defined(HR_VEC_AVX512)
static inline void hr_vload_bf16_eo(const void *p, hr_vf *e, hr_vf *o)
{
    const __m512i x = _mm512_loadu_si512(p);
    *e = _mm512_castsi512_ps(_mm512_slli_epi32(x, 16));
    *o = _mm512_castsi512_ps(_mm512_and_si512(x, _mm512_set1_epi32((int)0xffff0000u)));
}
static inline void hr_vsplit_eo(hr_vf a, hr_vf b, hr_vf *e, hr_vf *o)
{
    /* vpermt2ps: index i < 16 picks a[i], 16 + i picks b[i]. */
    const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512 ve = _mm512_permutex2var_ps(a, ie, b), vo = _mm512_permutex2var_ps(a, io, b);
    *e = ve, *o = vo;
}
static inline void hr_vmerge_eo(hr_vf e, hr_vf o, hr_vf *a, hr_vf *b)
{
    const __m512i ia = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i ib = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const __m512 va = _mm512_permutex2var_ps(e, ia, o), vb = _mm512_permutex2var_ps(e, ib, o);
    *a = va, *b = vb;
}
#elif defined(HR_VEC_AVX2)
static inline void hr_vload_bf16_eo(const void *p, hr_vf *e, hr_vf *o)
{
    const __m256i x = _mm256_loadu_si256(p);
    *e = _mm256_castsi256_ps(_mm256_slli_epi32(x, 16));
    *o = _mm256_castsi256_ps(_mm256_and_si256(x, _mm256_set1_epi32((int)0xffff0000u)));
}
static inline void hr_vsplit_eo(hr_vf a, hr_vf b, hr_vf *e, hr_vf *o)
{
    /* vshufps: a0 a2 b0 b2 | a4 a6 b4 b6; vpermpd 0xd8 puts the 64-bit pairs in order. */
    const __m256 ve = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8));
    const __m256 vo = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xdd)), 0xd8));
    *e = ve, *o = vo;
}
static inline void hr_vmerge_eo(hr_vf e, hr_vf o, hr_vf *a, hr_vf *b)
{
    /* unpacklo: v0 v1 v2 v3 | v8 v9 v10 v11; unpackhi: v4 .. v7 | v12 .. v15. */
    const __m256 lo = _mm256_unpacklo_ps(e, o), hi = _mm256_unpackhi_ps(e, o);
    *a = _mm256_permute2f128_ps(lo, hi, 0x20);
    *b = _mm256_permute2f128_ps(lo, hi, 0x31);
}
#else
static inline void hr_vload_bf16_eo(const void *p, hr_vf *e, hr_vf *o)
{
    uint16_t h[2 * HR_VW];
    memcpy(h, p, sizeof h);
    for (int i = 0; i < HR_VW; i++) e->v[i] = hr_bf16_to_f32(h[2 * i]), o->v[i] = hr_bf16_to_f32(h[2 * i + 1]);
}
static inline void hr_vsplit_eo(hr_vf a, hr_vf b, hr_vf *e, hr_vf *o)
{
    float x[2 * HR_VW];
    hr_vstore(x, a), hr_vstore(x + HR_VW, b);
    for (int i = 0; i < HR_VW; i++) e->v[i] = x[2 * i], o->v[i] = x[2 * i + 1];
}
static inline void hr_vmerge_eo(hr_vf e, hr_vf o, hr_vf *a, hr_vf *b)
{
    float x[2 * HR_VW];
    for (int i = 0; i < HR_VW; i++) x[2 * i] = e.v[i], x[2 * i + 1] = o.v[i];
    *a = hr_vload(x), *b = hr_vload(x + HR_VW);
}
#endif

#endif

/* vec_int8_avx2.h — vec_int8.h's AVX2 forms (ymm, AVX-VNNI; vpmaddubsw + vpmaddwd under HR_I8_EMU): the same functions on 8 lanes, included by vec_int8.h only, inside its HR_HAVE_I8DOT branch for an AVX2 build (immintrin.h and vec.h already in). */
#ifndef HR_VEC_INT8_AVX2_H
#define HR_VEC_INT8_AVX2_H
#define HR_IB 1
typedef __m256i hr_vi;

/* AVX2 usable and CPUID.(7,1):EAX bit 4, AVX-VNNI. */
static inline int hr_cpu_avxvnni(void) { return __builtin_cpu_supports("avx2") && hr_cpuid_bit(7, 1, 0, 4); }
#if defined(HR_I8_EMU)
/* The decode_i8e copy's instance (decode_i8.c built again), for AVX2 CPUs without AVX-VNNI (Zen 2/3, Intel before Alder
 * Lake): vpdpbusd spelled as vpmaddubsw (u8 x s8 pairs into saturating int16) + vpmaddwd
 * by ones + vpaddd, exact while every pair's sum stays within int16: q4_0's nibbles (0-15)
 * against Q's s8 (|q| <= 127) reach 3810; the int8 P·V's q4_0 high nibbles are shifted
 * down here (hr_vi_vt_q4). q8_0's K + 128 (up to 255) would saturate against Q's s8, so
 * q8_0 keeps K and V signed as stored (HR_I8_SK) and takes llama.cpp's sign trick where
 * both sides are signed: hr_vi_dot_sk(acc, |k|, k, q) = vpmaddubsw(|k|, q with k's signs)
 * (vpsignb) + vpmaddwd + vpaddd, exact (|k| <= 128, |q| <= 127: pairs up to 32512), |k|
 * once per K vector (hr_vi_abs8) for all rows; its P·V's weights stay within 127 (a pair
 * of u8 weights against V's s8 reaches 32512), so its path says "P·dv s8". */
#define HR_I8_ISA "int8"
#define HR_I8_DOT "vpmaddubsw+vpmaddwd"
#define HR_I8_TARGET __attribute__((target("avx2,fma,f16c")))
static inline int hr_cpu_i8dot(void) { return __builtin_cpu_supports("avx2") && !hr_cpu_avxvnni(); }
#else
#define HR_I8_ISA "avx-vnni"
#define HR_I8_DOT "vpdpbusd"
#define HR_I8_TARGET __attribute__((target("avx2,fma,f16c,avxvnni")))
static inline int hr_cpu_i8dot(void) { return hr_cpu_avxvnni(); }
#endif

#define HR_I8_INLINE static inline __attribute__((always_inline)) HR_I8_TARGET
/* As the AVX-512 forms, on 8 keys (one 8 x 8 transpose; q4_0: keys p, p + 4 in r[p]). */
HR_I8_INLINE void hr_vi_kt_q8(const unsigned char *b, ptrdiff_t stride, int nk, hr_vi *out)
{
    __m256i r[8], t[8], u[8];
    for (int p = 0; p < 8; p++) r[p] = _mm256_loadu_si256((const __m256i *)(b + (p < nk ? p : nk - 1) * stride));
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++) {
        const __m256i *x = t + 4 * h;
        u[4 * h] = _mm256_unpacklo_epi64(x[0], x[2]);
        u[4 * h + 1] = _mm256_unpackhi_epi64(x[0], x[2]);
        u[4 * h + 2] = _mm256_unpacklo_epi64(x[1], x[3]);
        u[4 * h + 3] = _mm256_unpackhi_epi64(x[1], x[3]);
    }
    const __m256i o = _mm256_set1_epi8((char)0x80);
    for (int i = 0; i < 4; i++) {
        out[i] = _mm256_permute2x128_si256(u[i], u[4 + i], 0x20);
        out[4 + i] = _mm256_permute2x128_si256(u[i], u[4 + i], 0x31);
    }
    for (int i = 0; i < 8 && !HR_I8_SK; i++) out[i] = _mm256_xor_si256(out[i], o); /* + 128, or signed as stored */
}
HR_I8_INLINE void hr_vi_kt_q4(const unsigned char *b, ptrdiff_t stride, int nk, hr_vi *out)
{
    __m256i r[4];
    for (int p = 0; p < 4; p++) {
        const unsigned char *k0 = b + (p < nk ? p : nk - 1) * stride, *k1 = b + (p + 4 < nk ? p + 4 : nk - 1) * stride;
        r[p] = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)k0)),
                                       _mm_loadu_si128((const __m128i *)k1), 1);
    }
    const __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    const __m256i c[4] = {_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2), _mm256_unpacklo_epi64(t1, t3),
                          _mm256_unpackhi_epi64(t1, t3)};
    const __m256i m4 = _mm256_set1_epi8(15);
    for (int i = 0; i < 4; i++) {
        out[i] = _mm256_and_si256(c[i], m4);
        out[4 + i] = _mm256_and_si256(_mm256_srli_epi16(c[i], 4), m4);
    }
}
/* On a K tile's block (HR_KV_TILE, headroom.h): 8 of its 16 keys' lanes, the caller's p
 * already at their half of each 64-byte dword row: plain loads, q4_0's nibbles split,
 * q8_0's + 128 */
HR_I8_INLINE void hr_vi_kt_q4t(const unsigned char *p, hr_vi *out)
{
    const __m256i m4 = _mm256_set1_epi8(15);
    for (int i = 0; i < 4; i++) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)(p + 64 * i));
        out[i] = _mm256_and_si256(x, m4);
        out[4 + i] = _mm256_and_si256(_mm256_srli_epi16(x, 4), m4);
    }
}
HR_I8_INLINE void hr_vi_kt_q8t(const unsigned char *p, hr_vi *out)
{
    for (int i = 0; i < 8; i++) {
        out[i] = _mm256_loadu_si256((const __m256i *)(p + 64 * i));
        if (!HR_I8_SK) out[i] = _mm256_xor_si256(out[i], _mm256_set1_epi8((char)0x80));
    }
}
HR_I8_INLINE hr_vi hr_vi_set1(const void *p)
{
    int32_t x;
    memcpy(&x, p, 4);
    return _mm256_set1_epi32(x);
}
HR_I8_INLINE hr_vi hr_vi_add(hr_vi a, hr_vi b) { return _mm256_add_epi32(a, b); }
HR_I8_INLINE hr_vi hr_vi_zero(void) { return _mm256_setzero_si256(); }
#if defined(HR_I8_EMU)
HR_I8_INLINE hr_vi hr_vi_dot(hr_vi acc, hr_vi u, hr_vi s)
{
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
}
HR_I8_INLINE hr_vi hr_vi_abs8(hr_vi k) { return _mm256_abs_epi8(k); }
HR_I8_INLINE hr_vi hr_vi_dot_sk(hr_vi acc, hr_vi ku, hr_vi k, hr_vi q) { return hr_vi_dot(acc, ku, _mm256_sign_epi8(q, k)); }
#else
HR_I8_INLINE hr_vi hr_vi_dot(hr_vi acc, hr_vi u, hr_vi s) { return _mm256_dpbusd_avx_epi32(acc, u, s); }
#endif
HR_I8_INLINE hr_vf hr_vi_cvt(hr_vi x) { return _mm256_cvtepi32_ps(x); }
static inline hr_vf hr_vload_i8(const void *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}
static inline hr_vi hr_vi_load_u8(const void *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
static inline hr_vf hr_vcvt_u4(hr_vi x, int hi)
{
    return _mm256_cvtepi32_ps(hi ? _mm256_srli_epi32(x, 4) : _mm256_and_si256(x, _mm256_set1_epi32(15)));
}
/* int8 P·V at this level (HR_HAVE_I8PV, the forms above on ymm): one q block per vector
 * set (o1, p1, x1 and q4 unused: 4 ymm hold a whole block of 4 keys). out[i], 128-bit
 * lane h, dword p holds d = 16 h + 4 i + p for q8_0 (lane h the block's bytes 16 h ..)
 * and q4_0 alike (lane h the low nibbles, values 0-15, or the high ones, 16-31):
 *   hr_vi_vt_q8: v + 128, or v where sgn (4 loads, 4 vpxor unless sgn, 8 unpacks per 4 keys);
 *   hr_vi_vt_q4: the nibbles (4 vbroadcasti128 loads, 8 unpacks, 4 vpand: lane 1's
 *                high nibbles left in place as 16 v, as on AVX-512).
 * hr_vf_tile_load / hr_vf_tile_store: a row's block b (4 vectors from o + 32 b) between
 * d order and that order (2 x 2 128-bit transposes, vperm2f128). */
#define HR_HAVE_I8PV 1
HR_I8_INLINE void hr_vi_vt_tr(const __m256i K[4], hr_vi out[4])
{
    const __m256i A = _mm256_unpacklo_epi8(K[0], K[1]), B = _mm256_unpackhi_epi8(K[0], K[1]);
    const __m256i C = _mm256_unpacklo_epi8(K[2], K[3]), D = _mm256_unpackhi_epi8(K[2], K[3]);
    out[0] = _mm256_unpacklo_epi16(A, C);
    out[1] = _mm256_unpackhi_epi16(A, C);
    out[2] = _mm256_unpacklo_epi16(B, D);
    out[3] = _mm256_unpackhi_epi16(B, D);
}
HR_I8_INLINE void hr_vi_vt_q8(const unsigned char *const k[4], ptrdiff_t o1, int sgn, hr_vi out[4])
{
    (void)o1;
    __m256i K[4];
    for (int t = 0; t < 4; t++) {
        K[t] = _mm256_loadu_si256((const __m256i *)k[t]);
        if (!sgn) K[t] = _mm256_xor_si256(K[t], _mm256_set1_epi8((char)0x80));
    }
    hr_vi_vt_tr(K, out);
}
/* hr_vi_vt_q8 / hr_vi_vt_q4 from a V tile: the quad's rows of this block at p, 32 (q8_0)
 * or 16 (q4_0) bytes each, a row every 64 / 32 bytes (a block of a pair) or every 32 / 16
 * (a lone last block: lone), already in the transposed order */
HR_I8_INLINE void hr_vi_vt_q8t(const unsigned char *p, int lone, int sgn, hr_vi out[4])
{
    for (int i = 0; i < 4; i++) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)(p + (lone ? 32 : 64) * i));
        out[i] = sgn ? x : _mm256_xor_si256(x, _mm256_set1_epi8((char)0x80));
    }
}
HR_I8_INLINE void hr_vi_vt_q4_nib(const __m256i U[4], hr_vi out[4]);
HR_I8_INLINE void hr_vi_vt_q4t(const unsigned char *p, int lone, hr_vi out[4])
{
    __m256i U[4];
    for (int i = 0; i < 4; i++) U[i] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + (lone ? 16 : 32) * i)));
    hr_vi_vt_q4_nib(U, out);
}
HR_I8_INLINE void hr_vi_vt_q4(const unsigned char *const k[4], ptrdiff_t o1, hr_vi out[4])
{
    (void)o1;
    __m256i K[4], U[4];
    for (int t = 0; t < 4; t++) K[t] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)k[t]));
    hr_vi_vt_tr(K, U);
    hr_vi_vt_q4_nib(U, out);
}
/* the nibbles of the 4 transposed vectors: lane 0 the low ones, lane 1 the high ones */
HR_I8_INLINE void hr_vi_vt_q4_nib(const __m256i U[4], hr_vi out[4])
{
#if defined(HR_I8_EMU)
    /* lane 1's high nibbles shifted down: as 16 v (up to 240) a vpmaddubsw pair would
     * saturate int16 against weights up to 127 */
    const __m256i m = _mm256_set1_epi8(15);
    for (int i = 0; i < 4; i++) out[i] = _mm256_and_si256(_mm256_blend_epi32(U[i], _mm256_srli_epi16(U[i], 4), 0xF0), m);
}
HR_I8_INLINE hr_vi hr_vi_q4_hz(hr_vi z) { return z; }
HR_I8_INLINE hr_vf hr_vf_q4_hc(hr_vf c) { return c; }
#else
    /* lane 0 the low nibbles, lane 1 the high ones left in place (16 v): one vpand */
    const __m256i m = _mm256_setr_epi32(0x0F0F0F0F, 0x0F0F0F0F, 0x0F0F0F0F, 0x0F0F0F0F, (int)0xF0F0F0F0, (int)0xF0F0F0F0,
                                        (int)0xF0F0F0F0, (int)0xF0F0F0F0);
    for (int i = 0; i < 4; i++) out[i] = _mm256_and_si256(U[i], m);
}
HR_I8_INLINE hr_vi hr_vi_q4_hz(hr_vi z) { return _mm256_sllv_epi32(z, _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4)); }
HR_I8_INLINE hr_vf hr_vf_q4_hc(hr_vf c)
{
    return _mm256_mul_ps(c, _mm256_setr_ps(1.0f, 1.0f, 1.0f, 1.0f, 0.0625f, 0.0625f, 0.0625f, 0.0625f));
}
#endif
HR_I8_INLINE hr_vi hr_vi_set2(const void *p0, const void *p1, int q4)
{
    (void)p1, (void)q4;
    return hr_vi_set1(p0);
}
HR_I8_INLINE hr_vf hr_vset2f(float x0, float x1, int q4)
{
    (void)x1, (void)q4;
    return _mm256_set1_ps(x0);
}
HR_I8_INLINE void hr_vf_tile_load(const float *o, int b, int b2, int q4, hr_vf x[4])
{
    (void)b2, (void)q4;
    const float *ob = o + 32 * b;
    const __m256 y0 = _mm256_loadu_ps(ob), y1 = _mm256_loadu_ps(ob + 8), y2 = _mm256_loadu_ps(ob + 16),
                 y3 = _mm256_loadu_ps(ob + 24);
    x[0] = _mm256_permute2f128_ps(y0, y2, 0x20);
    x[1] = _mm256_permute2f128_ps(y0, y2, 0x31);
    x[2] = _mm256_permute2f128_ps(y1, y3, 0x20);
    x[3] = _mm256_permute2f128_ps(y1, y3, 0x31);
}
HR_I8_INLINE void hr_vf_tile_store(float *o, int b, int b2, int q4, const hr_vf x[4])
{
    (void)b2, (void)q4;
    float *ob = o + 32 * b;
    _mm256_storeu_ps(ob, _mm256_permute2f128_ps(x[0], x[1], 0x20));
    _mm256_storeu_ps(ob + 8, _mm256_permute2f128_ps(x[2], x[3], 0x20));
    _mm256_storeu_ps(ob + 16, _mm256_permute2f128_ps(x[0], x[1], 0x31));
    _mm256_storeu_ps(ob + 24, _mm256_permute2f128_ps(x[2], x[3], 0x31));
}
/* the VEX form spelled out: GNU as picks EVEX for a bare vpdpbusd, which CPUs with
 * AVX-VNNI and no AVX-512 fault on; "x" keeps the operands in ymm0-15 */
HR_I8_INLINE void hr_vi_dot_ip(hr_vi *acc, hr_vi u, hr_vi s)
{
#if defined(HR_I8_EMU)
    *acc = hr_vi_dot(*acc, u, s);
#else
    __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(*acc) : "x"(u), "x"(s));
#endif
}
HR_I8_INLINE hr_vi hr_vi_round(hr_vf x) { return _mm256_cvtps_epi32(x); }
/* 8 lanes' low bytes: two packs leave lanes 0-3 and 4-7 at the bottom of each 128 bits */
HR_I8_INLINE void hr_vi_store_i8(void *p, hr_vi x, int u8) /* u8: lanes 0..255 */
{
    const __m256i a = _mm256_packs_epi32(x, x), c = u8 ? _mm256_packus_epi16(a, x) : _mm256_packs_epi16(a, x);
    _mm_storel_epi64((__m128i *)p, _mm_unpacklo_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1)));
}
/* 4 vectors' low bytes to p[0 .. 32) in order: after the packs dword 4 h + k holds lanes
 * 4 h .. 4 h + 3 of x[k]; one vpermd puts them back */
HR_I8_INLINE hr_vi hr_vi_store4_i8(void *p, const hr_vi x[4], int u8)
{
    const __m256i a = _mm256_packs_epi32(x[0], x[1]), b = _mm256_packs_epi32(x[2], x[3]);
    const __m256i c = u8 ? _mm256_packus_epi16(a, b) : _mm256_packs_epi16(a, b); /* u8: lanes 0..255 */
    _mm256_storeu_si256((__m256i *)p, _mm256_permutevar8x32_epi32(c, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
    return c;
}
/* here the 3 vpaddd: the vpdpbusd by ones did not pay at this level (perf-log 0220) */
HR_I8_INLINE hr_vi hr_vi_sum4(hr_vi c, const hr_vi x[4])
{
    (void)c;
    return _mm256_add_epi32(_mm256_add_epi32(x[0], x[1]), _mm256_add_epi32(x[2], x[3]));
}
HR_I8_INLINE int hr_vi_reduce_add(hr_vi x)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}
/* four reductions at once: 128-bit halves paired (lane h: vector 2 k + h's partials),
 * then dwords 0/2 against 1/3 of two vectors, then neighbours; vector k ends in lane
 * k & 1, dword k & 2 */
HR_I8_INLINE hr_x4 hr_vf_max4(const hr_vf x[4])
{
    const __m256 t0 = _mm256_max_ps(_mm256_permute2f128_ps(x[0], x[1], 0x20), _mm256_permute2f128_ps(x[0], x[1], 0x31));
    const __m256 t1 = _mm256_max_ps(_mm256_permute2f128_ps(x[2], x[3], 0x20), _mm256_permute2f128_ps(x[2], x[3], 0x31));
    __m256 m = _mm256_max_ps(_mm256_shuffle_ps(t0, t1, 0x88), _mm256_shuffle_ps(t0, t1, 0xDD));
    m = _mm256_max_ps(m, _mm256_permute_ps(m, 0xB1));
    return _mm256_castps256_ps128(_mm256_permutevar8x32_ps(m, _mm256_setr_epi32(0, 4, 2, 6, 0, 0, 0, 0)));
}
HR_I8_INLINE hr_vf hr_vf_lane4(hr_x4 x, int k) { return _mm256_permutevar8x32_ps(_mm256_castps128_ps256(x), _mm256_set1_epi32(k)); }
HR_I8_INLINE hr_xi4 hr_vi_add4(const hr_vi y[4])
{
    const __m256i t0 = _mm256_add_epi32(_mm256_permute2x128_si256(y[0], y[1], 0x20), _mm256_permute2x128_si256(y[0], y[1], 0x31));
    const __m256i t1 = _mm256_add_epi32(_mm256_permute2x128_si256(y[2], y[3], 0x20), _mm256_permute2x128_si256(y[2], y[3], 0x31));
    const __m256 a = _mm256_castsi256_ps(t0), b = _mm256_castsi256_ps(t1);
    __m256i m = _mm256_add_epi32(_mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88)), _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xDD)));
    m = _mm256_add_epi32(m, _mm256_shuffle_epi32(m, 0xB1));
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(m, _mm256_setr_epi32(0, 4, 2, 6, 0, 0, 0, 0)));
}
HR_I8_INLINE hr_vf hr_vabs(hr_vf x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }
HR_I8_INLINE hr_vf hr_vf_maxabs(hr_vf a, hr_vf b) { return _mm256_max_ps(hr_vabs(a), hr_vabs(b)); }
/* per 128 bits the low halves to bytes 0-7 and the high to 8-15 (vpshufb), then the
 * 64-bit quarters reordered 0, 2, 1, 3: lows in the lower 128 bits, highs above */
HR_I8_INLINE void hr_vload_f16_pair(const uint32_t *p, hr_vf *lo, hr_vf *hi)
{
    const __m256i sh = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1, 4, 5, 8, 9, 12,
                                        13, 2, 3, 6, 7, 10, 11, 14, 15);
    const __m256i w = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)p), sh), 0xD8);
    *lo = _mm256_cvtph_ps(_mm256_castsi256_si128(w));
    *hi = _mm256_cvtph_ps(_mm256_extracti128_si256(w, 1));
}
#endif

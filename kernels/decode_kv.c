/* decode_kv.c — flash-decoding's block step on a typed KV cache (f16, bf16, q8_0, q4_0): K and V rows converted in registers, scored and summed in fp32. */
/*
 * The walks, splits and merges are decode.c's; this file replaces its fp32 block step
 * (attend_block) when p->kv_dtype is not f32. A key block is at most DECODE_KV_BUF_F
 * floats once dequantized (32 keys at d 128), so the scratch stays in L1:
 *
 *   K rows -> dequantize into buf (kb x dp fp32) -> scores, online softmax (decode_block.h)
 *   V rows -> dequantize into buf                -> P·V into the fp32 accumulators
 *
 * The conversions are vec.h's "reduced-precision loads": exact, so the kernel sees the
 * very values hr_dtype_load_row gives the oracle, and its own error is fp32
 * accumulation only (tests/test_decode_kv.c).
 *
 * Budget per key at H32/8 d128, Nq 1 (R = 4 query rows per KV head), AVX-512, Zen 4:
 *   bytes read    K + V: f32 1024, f16/bf16 512, q8_0 272, q4_0 144
 *   FMAs          scores R*d + P·V R*d = 1024 (64 zmm FMAs): ~64 cycles at one zmm
 *                 FMA per cycle (Zen 4 double-pumps 512-bit FMAs on two 256-bit pipes)
 *   conversion    2 rows of d/16 = 8 vectors: per vector one load, 1-2 converts
 *                 (vcvtph2ps; vpmovzxwd + vpslld; vpmovsxbd + vcvtdq2ps + vmulps;
 *                 q4_0 adds vpand/vpsrld + vpsubd), one store into buf, later one
 *                 reload per row tile: ~16 stores and 40-70 other uops per key
 *   softmax       R exps per key, amortized over the block
 *   So f16/bf16 at 512 B per key stay memory-bound up to ~30 GB/s per core (64-80
 *   cycles per key at ~4 GHz is 25-30 GB/s); q8_0 and q4_0 are bound by the fp32 FMAs
 *   (and the conversion uops beside them), not by their 272 or 144 bytes: ~50-60 M keys
 *   per second per core whatever the format, which is the compute roof they are
 *   measured against (docs/decode-kv.md).
 *
 * Prefetch: as in decode.c, V rows of the next block during the K conversion and K rows
 * of the block after next during the V conversion, every line of a row in address order
 * (the rows of a head are contiguous in BHND); the interleaved (BNHD) walk prefetches
 * whole rows of heads itself and passes none.
 */
#include "decode_block.h"

/* Dequantizes one stored row of d values of type t into dst (dp floats, zero padded). */
DECODE_INLINE void row_to_f32(hr_dtype t, const unsigned char *src, float *dst, int d)
{
    int x = 0;
    switch (t) {
    case HR_F16:
        for (; x + HR_VW <= d; x += HR_VW) hr_vstore(dst + x, hr_vload_f16(src + 2 * x));
        if (x < d) hr_vstore(dst + x, hr_vload_f16_n(src + 2 * x, d - x));
        break;
    case HR_BF16:
        for (; x + HR_VW <= d; x += HR_VW) hr_vstore(dst + x, hr_vload_bf16(src + 2 * x));
        if (x < d) hr_vstore(dst + x, hr_vload_bf16_n(src + 2 * x, d - x));
        break;
    case HR_Q8_0: /* d is a multiple of 32 (hr_problem_validate) */
        for (; x < d; x += HR_QBLOCK, src += 2 + HR_QBLOCK) {
            const hr_vf sc = hr_vset1_f16(src);
            for (int i = 0; i < HR_QBLOCK; i += HR_VW) hr_vstore(dst + x + i, hr_vload_q8_0(src, i, sc));
        }
        break;
    case HR_Q4_0:
        for (; x < d; x += HR_QBLOCK, src += 2 + HR_QBLOCK / 2) {
            const hr_vf sc = hr_vset1_f16(src);
            for (int i = 0; i < HR_QBLOCK; i += HR_VW) hr_vstore(dst + x + i, hr_vload_q4_0(src, i, sc));
        }
        break;
    default: break;
    }
}

/* Prefetches every line of a row of rb bytes into L2. */
DECODE_INLINE void prefetch_row(const unsigned char *row, size_t rb)
{
    for (size_t o = 0; o < rb; o += 64) __builtin_prefetch(row + o, 0, 2);
    __builtin_prefetch(row + rb - 1, 0, 2);
}

/* Rows [j0, j0+n) of KV head g (batch b) of view x into buf, prefetching rows
 * [jpf, jpf+npf) of view y meanwhile, one row per row converted. */
DECODE_INLINE void block_to_f32(const dctx *c, hr_dtype t, hr_xcview x, int b, int g, int j0, int n,
                                float *buf, hr_xcview y, int jpf, int npf)
{
    const unsigned char *src = hr_xcrow(x, b, g, j0), *pf = hr_xcrow(y, b, g, jpf);
    for (int j = 0; j < n; j++) {
        if (j < npf) prefetch_row(pf + j * y.sn, c->rb);
        row_to_f32(t, src + j * x.sn, buf + (size_t)j * c->dp, c->d);
    }
    for (int j = n; j < npf; j++) prefetch_row(pf + j * y.sn, c->rb);
}

/* attend_block for a cache stored in t: the conversion is inlined per type. */
DECODE_INLINE void block_kv(const dctx *c, hr_dtype t, int b, int g, int jb, int n, const int *end,
                            const float *q, float *s, float *buf, dstate st, int nv, int n2, int jpf_v,
                            int jpf_k)
{
    block_to_f32(c, t, c->k, b, g, jb, n, buf, c->v, jpf_v, nv);
    block_scores(c, q, buf, c->dp, NULL, 0, n, s, 0);
    block_softmax_rows(c, jb, n, end, s, st);
    block_to_f32(c, t, c->v, b, g, jb, n, buf, c->k, jpf_k, n2);
    block_pv(c, s, buf, c->dp, NULL, 0, 0, n, st.acc);
}

void hr_decode_block_kv(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                        float *s, float *buf, dstate st, int nv, int n2, int jpf_v, int jpf_k)
{
    switch (c->kt) {
    case HR_F16: block_kv(c, HR_F16, b, g, jb, n, end, q, s, buf, st, nv, n2, jpf_v, jpf_k); break;
    case HR_BF16: block_kv(c, HR_BF16, b, g, jb, n, end, q, s, buf, st, nv, n2, jpf_v, jpf_k); break;
    case HR_Q8_0: block_kv(c, HR_Q8_0, b, g, jb, n, end, q, s, buf, st, nv, n2, jpf_v, jpf_k); break;
    case HR_Q4_0: block_kv(c, HR_Q4_0, b, g, jb, n, end, q, s, buf, st, nv, n2, jpf_v, jpf_k); break;
    default: break;
    }
}

/* The conversion each type takes on this build's vector path. */
#if defined(HR_VEC_AVX512)
#define CVT_HALF "vcvtph2ps"
#define CVT_INT "vpmovsxbd+vcvtdq2ps"
#elif defined(HR_VEC_AVX2) && defined(__F16C__)
#define CVT_HALF "f16c vcvtph2ps"
#define CVT_INT "vpmovsxbd+vcvtdq2ps"
#else
#define CVT_HALF "scalar convert"
#define CVT_INT "scalar convert"
#endif

const char *hr_decode_path(const hr_problem *p)
{
    static const char *const paths[HR_NDTYPES] = {
        [HR_F32] = HR_VEC_ISA " fp32",
        [HR_F16] = HR_VEC_ISA " f16 " CVT_HALF " to L1, fp32 FMA",
        [HR_BF16] = HR_VEC_ISA " bf16 shift to L1, fp32 FMA",
        [HR_Q8_0] = HR_VEC_ISA " q8_0 " CVT_INT " to L1, fp32 FMA",
        [HR_Q4_0] = HR_VEC_ISA " q4_0 nibble unpack to L1, fp32 FMA",
    };
    return p->kv_dtype < HR_NDTYPES && paths[p->kv_dtype] ? paths[p->kv_dtype] : HR_VEC_ISA;
}

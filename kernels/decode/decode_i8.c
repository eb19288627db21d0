/* decode_i8.c — flash-decoding's block step for q8_0/q4_0 caches by int8 dot products: Q quantized to q8_0 once per head, scores by vpdpbusd (AVX512-VNNI or AVX-VNNI), P·V by vpdpbusd on P·dv quantized per 64 keys (AVX-512) or 32 (AVX2), to u8 on q8_0 blocks whose V scales are >= 0, else s8. */
/*
 * As llama.cpp does for its quantized caches: the group's scaled query rows are
 * quantized to q8_0 per 32-value block once per piece (hr_decode_i8_quant: d = amax/127,
 * q = round(x/d), the scale kept in fp32 as dq = d log2 e), and a key's score, in log2
 * units for block_softmax (decode_block.h), is
 *     s = sum_b dq_b dk_b (sum_{c in b} q_c k_c)
 * with the inner sum an exact int32 dot product. vpdpbusd multiplies unsigned by signed
 * bytes: K goes unsigned (q8_0 k + 128, one vpxor per K vector shared by the R rows;
 * q4_0's nibbles as they are, k + 8) and the offset comes out as off·sum_b(q), an int32
 * per row and block computed with the quantization (the accumulator's initial value).
 * (abs/sign instead would cost a vpsignb per row and K vector; AVX-512 has no zmm one.)
 *
 * Scores, HR_VW keys at a time (scores_keys): per 32-value block the keys' blocks are
 * transposed in registers so that lane L holds key L, then per query row 8 vpdpbusd
 * against broadcast Q dwords, one vcvtdq2ps and one FMA by dk·dq (dk for 16 keys: one
 * load and vcvtph2ps from scales_block's layout): no horizontal sum per key. The V block
 * scales of the same keys are converted there too. scales_block, a scalar pass over the
 * block's K and V rows first, lays every scale out by block and key (it also makes the
 * first touch of V's lines; before it, two vpgatherdd per q block and 16 keys did both).
 *
 * P·V, int8 (HR_HAVE_I8PV, both levels): pv_quant and pv_s8 in decode_i8pv.h, its ops
 * per key in that header; it beats the fp32 P·V by about a fifth at both levels
 * (perf-log 0200). HEADROOM_DECODE_PV=fp32 takes the fp32 P·V (tests, A/B): P times each
 * key's V block scales (pv_prep), a V vector vpmovsxbd + vcvtdq2ps (q4_0 vpmovzxbd once
 * per 16 bytes + vpand/vpsrld, its -8 once per block and row), 32 FMAs per key (64 on
 * AVX2).
 *
 * The step is compute-bound: no phase takes more than a quarter of its time, each near its
 * op count (perf-log 0201). The one cost the cache's layout imposes (llama.cpp's blocks,
 * scale beside quants) is reading the scales: scales_block, a scalar pass over the block's
 * K and V rows before the scores, lays every K and V scale out as one dword per key and
 * block (hr_vload_f16_pair: one vpermw and two vcvtph2ps per HR_VW keys and block), read
 * 16 at a time long after the stores, where vpgatherdd per q block cost up to a tenth of
 * the step (perf-log 0203).
 *
 * Prefetches: the next block's V is prefetched by the scores, stepped per q block (at q8_0
 * 8.5 lines a step), not per HR_VW keys (34 lines at once: the K loads behind the burst
 * wait for fill buffers); the next block's K by P·V; prefetcht1; K/V rows as one span,
 * each line once (decode_block.h pf_rows). q4_0 takes the scores' V prefetch too: a decode
 * step's cache comes from memory in use, only a benchmark repeating one call finds it in
 * L3 (perf-log 0202).
 *
 * The softmax runs in log2 units (block_softmax: Q's block scales carry log2 e, so the
 * scores come out as s log2 e at no cost, and exp(s - m) = 2^(s' - m') by hr_vexp2, 10
 * ops a vector where hr_vexp takes 22; m stored only when it moves, so m' does not drift),
 * as its own phase: folded into pv_quant it was slower (perf-log 0204).
 * Each phase is an out-of-line function per type (I8_PHASES: inlined into one, GCC spills
 * in their loops); the avx512 scores take 32 keys a step (scores_keys2: each Q broadcast
 * serves two key vectors); the scores' 16 K rows are addressed from 2 or 4 bases and 1,
 * 3, 5, 7 strides (vec_int8.h's hr_vi_row8: GCC otherwise spills 16 offsets); q4_0 takes
 * 512 keys a block and q8_0 128 (its K and V rows, 34 KiB, stay in L1 between the passes)
 * (perf-log 0205).
 * The compute roof: with P·V int8 both dots are vpdpbusd, so the path names "P·V
 * vpdpbusd" and hr_roof_for_path (harness/measure) places it against the VNNI roof
 * (2048 int8 multiply-adds per key and KV head); it counts no transposes, quantization
 * or softmax (AVX2: the AVX-VNNI roof). With HEADROOM_DECODE_PV=fp32 the path names "P·V
 * FMA" and keeps the series roof (HR_ROOF_SERIES: 1024 ops at the VNNI roof plus 1024 at
 * the FMA roof).
 *
 * Accuracy: Q's quantization moves a score by at most sum_b amax_b/254 · sum_{c in b}
 * |k_c|; the weights' rounding moves O_c by at most sum_j min(c_gb/2, |P_j dv_jb|)
 * |v_jc| (normalized by l): oracle.c turns both into O's tolerance, the second keyed on
 * the path's "P·dv s8 per G keys" (G 64 on AVX-512, 32 on AVX2: decode_i8pv.h's GK), or
 * "P·dv u8 per G keys" (q8_0: c_gb = max/255 where the block step's V scales are >= 0,
 * decode_i8pv.h's header; the oracle takes that only where none of the head's is < 0).
 * HEADROOM_DECODE_PATH=convert takes decode_kv.c's conversion path instead (tests, A/B).
 * No AMX-INT8 scores (tdpbsud on the tiles' q blocks as B, qx's rows as A would give
 * these scores bit for bit): the unpacking, scales and tails alone cost what the vpdpbusd
 * scores do (perf-log 0206).
 */
/*
 * The vpmaddubsw copy: the Makefile compiles this source again as decode_i8e.o with
 * HR_I8_EMU_COPY, so the two never drift; at a level with AVX2 it defines HR_I8_EMU and
 * names its table hr_decode_i8_emu (decode_block.h), elsewhere that table's why_not refuses. vec_int8.h then spells each
 * vpdpbusd as vpmaddubsw (u8 x s8 pairs into saturating int16) + vpmaddwd by ones +
 * vpaddd, 3 ops where AVX-VNNI takes 1, exact while a pair's sum stays within int16:
 * q4_0's nibbles (0-15) against Q's or the weights' s8 reach 2 * 15 * 127 = 3810 (the
 * int8 P·V's high nibbles are shifted down for it, not kept as 16 v as with VNNI). q8_0's
 * K + 128 (up to 255) would saturate, so here q8_0 keeps K and V signed and takes the
 * sign trick (vec_int8_avx2.h, HR_I8_SK; below).
 * decode takes this instance only where decode_i8.c's is off (no AVX-VNNI), at the
 * avx2 level, or where HEADROOM_DECODE_PATH=emu forces it (tests): decode_path.c's row
 * emu; elsewhere its table's why_not refuses. For q4_0 it beats the conversion path, and its
 * int8 P·V beats the fp32 one (perf-log 0236). The rows' path names vpmaddubsw, not
 * vpdpbusd, so they sit under that triple's own roof (avx2_maddubs, `headroom roofline`;
 * with P·V by FMA in series with avx2's FMA).
 * q8_0 takes llama.cpp's sign trick: K and V kept signed (no + 128, no offset
 * correction), |K| once per vector (vpabsb) and per row and vector vpsignb of Q's (or the
 * weights') broadcast by K's (V's) signs, then vpmaddubsw + vpmaddwd + vpaddd: 4 ops a
 * dot where AVX-VNNI takes 1, exact (|k| <= 128, |q| <= 127: pairs up to 32512). On rows
 * it does not pay (the dots alone take what the conversion path's FMAs take); with the
 * cache in 16-key tiles (no K or V transposes, no scales pass) it does, and it is the
 * default there: scores by the sign trick (|K| once per key vector for every row: 4 ops
 * a dot and 1 per vector), P·V by u8 weights within 127 against V as stored (3 ops: a
 * pair reaches 2 x 127 x 128 = 32512), or, where a block's V scale is negative (a cache
 * quantized elsewhere), s8 weights by the sign trick on |V| (perf-log 0236, 0075).
 */
#if defined(HR_I8_EMU_COPY)
#include "vec.h"
#if defined(HR_VEC_AVX2) && defined(__F16C__) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define HR_I8_EMU 1
#else
#define HR_I8_EMU_OFF 1
#endif
#endif

#if defined(HR_I8_EMU_OFF) /* no vpmaddubsw step at this level */
#include "decode_block.h"

static const char *off(void) { return "only the avx2 level has the vpmaddubsw step"; }
const hr_decode_i8_step HR_I8_STEP = {.why_not = off};
#else

#include <stdlib.h>
#include <string.h>

#define HR_DECODE_PF_SPAN 1 /* decode_block.h's pf_step walks a span of rows by address */
#include "decode_block.h"
#include "decode_i8pv.h"
#include "decode_i8sc.h" /* I8_FN, the ablation (di8_skip), qrow_f, the scores */
#include "vec_int8.h"

#if defined(HR_HAVE_I8DOT)

#define PB (XG * HR_VW / HR_QBLOCK) /* q blocks per P·V group: 2 (AVX-512), 1 (AVX2) */
_Static_assert(XG * HR_VW % HR_QBLOCK == 0, "a P·V group is whole q blocks");

/* P·V by int8 dot products (HR_HAVE_I8PV: AVX-512 and AVX2 builds) unless HEADROOM_DECODE_PV=fp32
 * (the fp32 P·V kept for A/B and the tests). */
static int pv_int8_on(void)
{
#if defined(HR_HAVE_I8PV)
    return hr_decode_pv_env() != 1;
#else
    return 0;
#endif
}

/* The vpmaddubsw copy wherever the avx2 level runs (chosen after the vpdpbusd instance,
 * which takes an AVX-VNNI CPU); the vpdpbusd one where the CPU has VNNI. */
static const char *i8_why_not(void)
{
#if defined(HR_I8_EMU)
    return NULL;
#else
    static int cpu = -1; /* a benign race: every thread stores the same value */
    if (cpu < 0) cpu = hr_cpu_i8dot();
    return cpu ? NULL : "this build level or CPU has no VNNI (vpdpbusd)";
#endif
}

static size_t i8_qf(const dctx *c) { return round16((size_t)c->R * qrow_f(c)); }
static size_t i8_sf(const dctx *c)
{
    const size_t nb = (size_t)c->d / HR_QBLOCK;
    return round16((size_t)c->R * nb * c->kbp) + round16(nb * c->kbp) + round16((size_t)c->R * nb) +
           3 * round16((size_t)c->R * nb * ngrp(c)) + round16(nb * c->kbp); /* the last: scales_block's pairs */
}

/* Where block_i8 keeps its buffers inside the scores block s, after the R kbp scores (the
 * layout i8_sf sizes): pp (P·dv, or the int8 P·V's weights as bytes), sv (V block scales),
 * corr, cg, co and ci (per row, block and group: c, the offset correction and 1 / c), kvs
 * (the K and V scale pairs). The phase harness (studies/cputime/i8phases.c) takes the same. */
typedef struct {
    float *pp, *sv, *corr, *cg, *ci;
    int32_t *co;
    uint32_t *kvs;
} i8_bufs;
static i8_bufs i8_carve(const dctx *c, float *s)
{
    const size_t nb = (size_t)c->d / HR_QBLOCK, R = (size_t)c->R, kbp = (size_t)c->kbp;
    i8_bufs u;
    u.pp = s + round16(R * kbp);
    u.sv = u.pp + round16(R * nb * kbp);
    u.corr = u.sv + round16(nb * kbp);
    u.cg = u.corr + round16(R * nb);
    u.co = (int32_t *)(u.cg + round16(R * nb * ngrp(c)));
    u.ci = u.cg + 2 * round16(R * nb * ngrp(c));
    u.kvs = (uint32_t *)(u.cg + 3 * round16(R * nb * ngrp(c)));
    return u;
}

static const char *i8_path(hr_dtype t)
{
#if HR_I8_SK /* q8_0 signed, by the sign trick; P·V's weights within 127 (vec_int8_avx2.h) */
#define I8_Q8 " q8_0 (|K| by Q with K's signs), Q as q8_0, P·V "
#define I8_Q8W " (P·dv s8 per " GK_S " keys)"
#else
#define I8_Q8 " q8_0 (K+128), Q as q8_0, P·V "
#define I8_Q8W " (P·dv u8 per " GK_S " keys, s8 where a V scale < 0)"
#endif
    if (pv_int8_on())
        return t == HR_Q8_0 ? HR_VEC_ISA " " HR_I8_ISA " " HR_I8_DOT I8_Q8 HR_I8_DOT I8_Q8W
                            : HR_VEC_ISA " " HR_I8_ISA " " HR_I8_DOT " q4_0 nibbles, Q as q8_0, P·V " HR_I8_DOT " (P·dv s8 per " GK_S " keys)";
    return t == HR_Q8_0 ? HR_VEC_ISA " " HR_I8_ISA " " HR_I8_DOT I8_Q8 "FMA"
                        : HR_VEC_ISA " " HR_I8_ISA " " HR_I8_DOT " q4_0 nibbles, Q as q8_0, P·V FMA";
#undef I8_Q8
#undef I8_Q8W
}

static void i8_quant(const dctx *c, const float *q, float *qx)
{
    const int nb = c->d / HR_QBLOCK, off = I8_OFFSET(c->kt == HR_Q4_0);
    for (int r = 0; r < c->R; r++) {
        const float *x = q + (size_t)r * c->dp;
        float *row = qx + (size_t)r * qrow_f(c), *dq = row + c->d / 4;
        signed char *qi = (signed char *)row;
        int32_t *corr = (int32_t *)(dq + nb);
        for (int b = 0; b < nb; b++) {
            const float *xb = x + b * HR_QBLOCK;
            float amax = 0;
            for (int i = 0; i < HR_QBLOCK; i++) amax = fabsf(xb[i]) > amax ? fabsf(xb[i]) : amax;
            const float id = amax > 0 ? 127.0f / amax : 0.0f;
            int sum = 0;
            for (int i = 0; i < HR_QBLOCK; i++) { /* nearest (even at ties): |x - dq v| <= dq/2 */
                int v = (int)nearbyintf(xb[i] * id);
                v = v > 127 ? 127 : v < -127 ? -127 : v;
                qi[b * HR_QBLOCK + i] = (signed char)v;
                sum += v;
            }
            dq[b] = amax / 127.0f * 1.44269504088896341f; /* scores in log2 units (block_softmax) */
            corr[b] = -off * sum;
        }
    }
}


/* pp[(r nb + b) kbp + j] = P_rj dv_jb for keys [0, n) (dv_jb = sv[b kbp + j], the
 * scale of V row j's block b), and corr[r nb + b] = off · sum_j pp (q4_0's -8). */
I8_FN void pv_prep(const dctx *c, int q4, const float *s, const float *sv, int n, float *pp, float *corr)
{
    const int nb = c->d / HR_QBLOCK, kbp = c->kbp, nf = n / HR_VW * HR_VW;
    for (int r = 0; r < c->R; r++)
        for (int b = 0; b < nb; b++) {
            const float *sr = s + (size_t)r * kbp, *svb = sv + (size_t)b * kbp;
            float *out = pp + ((size_t)r * nb + b) * kbp;
            hr_vf vs = hr_vzero();
            for (int j = 0; j < nf; j += HR_VW) {
                const hr_vf x = hr_vmul(hr_vload(sr + j), hr_vload(svb + j));
                hr_vstore(out + j, x);
                vs = hr_vadd(vs, x);
            }
            float sum = hr_vreduce_add(vs);
            for (int j = nf; j < n; j++) sum += out[j] = sr[j] * svb[j];
            corr[(size_t)r * nb + b] = q4 ? 8.0f * sum : 0.0f;
        }
}

/* acc[r][x .. x + nx HR_VW) += sum_j pp[r][block][j] v_j for rows [r0, r0 + nr), less
 * the block's correction; pq (may be NULL) stepped once per key. */
I8_FN void pv_tile_i8(const dctx *c, int q4, const float *pp, const float *corr, const unsigned char *v0,
                      ptrdiff_t vsn, int n, int x, int nx, int r0, int nr, float *acc, pf_seq *pq AB_P)
{
    const int nb = c->d / HR_QBLOCK, kbp = c->kbp;
    const size_t bb = QBYTES(q4);
    hr_vf a[RT][XG];
    for (int r = 0; r < RT; r++)
        for (int g = 0; g < XG; g++)
            a[r][g] = r < nr && g < nx ? hr_vload(acc + (size_t)(r0 + r) * c->dp + x + g * HR_VW) : hr_vzero();
    for (int j = 0; j < n; j++) {
        if (pq) pf_step(pq);
        const unsigned char *vr = v0 + j * vsn;
        hr_vf v[XG];
        hr_vi zx[XG]; /* q4_0: the bytes of vector g, zero-extended, for both nibbles */
        for (int g = 0; g < XG; g++) {
            /* x is a multiple of XG HR_VW, itself of 32 (PB >= 1): a group starts on a
             * block boundary, so w is a constant and the high nibbles' vector (w >= 16)
             * finds its bytes' zero-extension 16 values back in the same group: one
             * vpmovzxbd per 16 bytes, not one per vector. */
            const int b = x / HR_QBLOCK + g * HR_VW / HR_QBLOCK, w = g * HR_VW % HR_QBLOCK;
            const unsigned char *blk = vr + (size_t)b * bb + 2;
            if (q4 && g < nx && w < 16) zx[g] = hr_vi_load_u8(blk + w);
            v[g] = di8_skip(32)   ? hr_vset1(1.0f)
                   : g >= nx      ? hr_vzero()
                   : !q4          ? hr_vload_i8(blk + w)
                   : w < 16       ? hr_vcvt_u4(zx[g], 0)
                                  : hr_vcvt_u4(zx[g - 16 / HR_VW], 1);
        }
        for (int r = 0; r < RT; r++) {
            if (r >= nr) break;
            /* one broadcast per row and block, in a register for the block's vectors:
             * folded into each FMA as {1to16} operands, they were 2 loads per FMA pair
             * and the loads (3 ports, with the V rows' and the spills') bound this loop */
            const float *pr = pp + ((size_t)(r0 + r) * nb + (size_t)(x / HR_QBLOCK)) * kbp + j;
            hr_vf pb[PB];
            for (int i = 0; i < PB; i++) pb[i] = i == 0 || x / HR_QBLOCK + i < nb ? hr_vset1(pr[(size_t)i * kbp]) : hr_vzero();
            for (int g = 0; g < XG; g++) a[r][g] = hr_vfma(pb[g * HR_VW / HR_QBLOCK], v[g], a[r][g]);
        }
    }
    for (int r = 0; r < nr; r++)
        for (int g = 0; g < nx; g++) {
            const int b = (x + g * HR_VW) / HR_QBLOCK;
            hr_vf o = a[r][g];
            if (q4) o = hr_vsub(o, hr_vset1(corr[(size_t)(r0 + r) * nb + b]));
            hr_vstore(acc + (size_t)(r0 + r) * c->dp + x + g * HR_VW, o);
        }
}

I8_FN void pv_i8(const dctx *c, int q4, const float *pp, const float *corr, const unsigned char *v0, ptrdiff_t vsn,
                 int n, float *acc, const unsigned char *pf, ptrdiff_t psn, int n2 AB_P)
{
    const int nvec = c->d / HR_VW; /* d is a multiple of 32 */
    pf_seq pq = pf_rows(c, pf, psn, n2, (nvec + XG - 1) / XG * n);
    for (int x0 = 0; x0 < nvec; x0 += XG) {
        const int nx = nvec - x0 < XG ? nvec - x0 : XG, x = x0 * HR_VW;
        for (int r0 = 0; r0 < c->R; r0 += RT) {
            const int nr = c->R - r0 < RT ? c->R - r0 : RT;
            /* &pq or NULL, never a pointer chosen at run time: so pq stays in registers
             * (through memory, its fields were a chain of store-to-load forwards per key) */
            if (nx == XG && nr == RT) {
                if (r0 == 0) pv_tile_i8(c, q4, pp, corr, v0, vsn, n, x, XG, 0, RT, acc, &pq AB_A);
                else pv_tile_i8(c, q4, pp, corr, v0, vsn, n, x, XG, r0, RT, acc, NULL AB_A);
            } else if (r0 == 0) pv_tile_i8(c, q4, pp, corr, v0, vsn, n, x, nx, 0, nr, acc, &pq AB_A);
            else pv_tile_i8(c, q4, pp, corr, v0, vsn, n, x, nx, r0, nr, acc, NULL AB_A);
        }
    }
}

/* Each phase of the block step is its own function per type (q4 a constant in each):
 * inlined into one, GCC shared its registers among them and spilled in the loops. */
#define I8_OWN static __attribute__((noinline)) HR_I8_TARGET
#define I8_PHASES(T, Q4)                                                                                            \
    I8_OWN void scores_##T(const dctx *c, const float *qx, const unsigned char *k0, ptrdiff_t ksn, int n, float *s,  \
                           const unsigned char *v0, ptrdiff_t vsn, float *sv, uint32_t *kvs, const unsigned char *pf, \
                           ptrdiff_t psn, int nv AB_P)                                                                \
    {                                                                                                                 \
        scores_i8(c, Q4, qx, k0, ksn, n, s, v0, vsn, sv, kvs, pf, psn, nv AB_A);                                      \
    }
I8_PHASES(q4, 1)
I8_PHASES(q8, 0)
#if defined(HR_HAVE_I8PV)
/* pv_s8 per type, on rows or (TILED) on a cache in tiles */
#define I8_PV_S8(NAME, Q4, U8, TILED)                                                                                 \
    I8_OWN void NAME(const dctx *c, const signed char *w, const float *cg, const int32_t *co, const unsigned char *v0, \
                     ptrdiff_t vsn, int n, float *acc, const unsigned char *pf, ptrdiff_t psn, int n2)                 \
    {                                                                                                                 \
        pv_s8(c, Q4, U8, TILED, w, cg, co, v0, vsn, n, acc, pf, psn, n2);                                             \
    }
#define I8_PV_PHASES(T, Q4, U8)                                                                                       \
    I8_OWN void pv_quant_##T(const dctx *c, const float *s, const float *sv, int n, signed char *w, float *cg,        \
                             int32_t *co, float *ci)                                                                  \
    {                                                                                                                 \
        pv_quant(c, Q4, U8, s, sv, n, w, cg, co, ci);                                                                 \
    }                                                                                                                 \
    I8_PV_S8(pv_s8_##T, Q4, U8, 0)
I8_PV_PHASES(q4, 1, 0)
I8_PV_PHASES(q8, 0, 0)
/* q8u: q8_0 where a block's V scales all are >= 0 (sv_nonneg says): u8 weights, V signed
 * (under HR_I8_SK the weights within 127: decode_i8pv.h's PVQ_L) */
I8_PV_PHASES(q8u, 0, 1)
/* a q8_0 / q4_0 cache in tiles (HR_KV_TILE): the scores and P·V per type */
I8_PV_S8(pv_s8_q4t, 1, 0, 1)
I8_PV_S8(pv_s8_q8t, 0, 0, 1)
I8_PV_S8(pv_s8_q8ut, 0, 1, 1)
I8_OWN void scores_q4t(const dctx *c, const float *qx, const unsigned char *kt, int n, float *s,
                       const unsigned char *vt, float *sv, const unsigned char *pf, ptrdiff_t psn, int nv)
{
    scores_tiles(c, 1, 0, qx, kt, n, s, vt, sv, pf, psn, nv);
}
I8_OWN void scores_q8t(const dctx *c, const float *qx, const unsigned char *kt, int n, float *s,
                       const unsigned char *vt, float *sv, const unsigned char *pf, ptrdiff_t psn, int nv)
{
    scores_tiles(c, 0, 0, qx, kt, n, s, vt, sv, pf, psn, nv);
}
/* a paged block of several pages in tiles (dctx pk, pv: decode.c attend_paged): its own
 * copies, so the contiguous ones keep their code */
I8_PV_S8(pv_s8_q4p, 1, 0, 2)
I8_PV_S8(pv_s8_q8p, 0, 0, 2)
I8_PV_S8(pv_s8_q8up, 0, 1, 2)
I8_OWN void scores_q4p(const dctx *c, const float *qx, const unsigned char *kt, int n, float *s,
                       const unsigned char *vt, float *sv, const unsigned char *pf, ptrdiff_t psn, int nv)
{
    scores_tiles(c, 1, 1, qx, kt, n, s, vt, sv, pf, psn, nv);
}
I8_OWN void scores_q8p(const dctx *c, const float *qx, const unsigned char *kt, int n, float *s,
                       const unsigned char *vt, float *sv, const unsigned char *pf, ptrdiff_t psn, int nv)
{
    scores_tiles(c, 0, 1, qx, kt, n, s, vt, sv, pf, psn, nv);
}
/* The int8 P·V's two phases for a block step: q4_0's, q8_0's, or q8_0's with u8 weights
 * where every V scale of the block's n keys, laid out in sv by the scores, is >= 0
 * (sv_nonneg; sv NULL: not laid out, s8). block_i8 and the phase harness take it from here. */
typedef struct {
    void (*quant)(const dctx *, const float *, const float *, int, signed char *, float *, int32_t *, float *);
    void (*s8)(const dctx *, const signed char *, const float *, const int32_t *, const unsigned char *, ptrdiff_t, int,
               float *, const unsigned char *, ptrdiff_t, int);
} i8_pv;
HR_I8_TARGET static i8_pv i8_pv_pick(const dctx *c, int q4, const float *sv, int n)
{
    if (c->k.tile && c->pk) {
        if (q4) return (i8_pv){pv_quant_q4, pv_s8_q4p};
        return sv && sv_nonneg(c, q4, sv, n) ? (i8_pv){pv_quant_q8u, pv_s8_q8up} : (i8_pv){pv_quant_q8, pv_s8_q8p};
    }
    if (c->k.tile) {
        if (q4) return (i8_pv){pv_quant_q4, pv_s8_q4t};
        return sv && sv_nonneg(c, q4, sv, n) ? (i8_pv){pv_quant_q8u, pv_s8_q8ut} : (i8_pv){pv_quant_q8, pv_s8_q8t};
    }
    if (!q4 && sv && sv_nonneg(c, q4, sv, n)) return (i8_pv){pv_quant_q8u, pv_s8_q8u};
    return q4 ? (i8_pv){pv_quant_q4, pv_s8_q4} : (i8_pv){pv_quant_q8, pv_s8_q8};
}
#endif
I8_OWN void softmax_i8(const dctx *c, int g, int jb, int n, const int *end, float *s, dstate st)
{
    block_softmax_rows(c, 1, g, jb, n, end, s, st); /* wide: the max over 128-512 keys in four chains */
}

I8_FN void block_i8(const dctx *c, int q4, int b, int g, int jb, int n, const int *end, const float *q, float *s,
                    dstate st, int nv, int n2, int jpf_v, int jpf_k AB_P)
{
    const unsigned char *k0 = hr_xcrow(c->k, b, g, 0), *v0 = hr_xcrow(c->v, b, g, 0);
    const float *qx = q + round16((size_t)c->R * c->dp);
    const i8_bufs u = i8_carve(c, s);
    float *pp = u.pp, *sv = u.sv, *corr = u.corr;
    uint32_t *kvs = u.kvs;
    if (di8_skip(64)) nv = n2 = 0;
    if (c->k.tile && c->pk) /* a paged block: its tiles through dctx pk, pv (decode.c attend_paged) */
        (q4 ? scores_q4p : scores_q8p)(c, qx, NULL, n, s, NULL, sv, NULL, 0, 0);
    else if (c->k.tile) /* jb, jpf_v a whole tile's first key (decode.c) */
        (q4 ? scores_q4t : scores_q8t)(c, qx, k0 + jb * c->k.sn, n, s, v0 + jb * c->v.sn, sv,
                                       v0 + (ptrdiff_t)jpf_v * c->v.sn, c->v.sn, nv);
    else
        (q4 ? scores_q4 : scores_q8)(c, qx, k0 + jb * c->k.sn, c->k.sn, n, s, v0 + jb * c->v.sn, c->v.sn, sv, kvs,
                                     v0 + (ptrdiff_t)jpf_v * c->v.sn, c->v.sn, nv AB_A);
    if (!di8_skip(8)) softmax_i8(c, g, jb, n, end, s, st);
#if defined(HR_HAVE_I8PV)
    if (c->i8 == 2) {
        signed char *w = (signed char *)pp; /* R nb kbp bytes in pp's R nb kbp floats */
        float *cg = u.cg;
        int32_t *co = u.co;
        const i8_pv pv = i8_pv_pick(c, q4, di8_skip(128) ? NULL : sv, n);
        if (!di8_skip(4)) pv.quant(c, s, sv, n, w, cg, co, u.ci);
        if (!di8_skip(16)) pv.s8(c, w, cg, co, v0 + jb * c->v.sn, c->v.sn, n, st.acc, k0 + (ptrdiff_t)jpf_k * c->k.sn, c->k.sn, n2);
        return;
    }
#endif
    if (!di8_skip(4)) pv_prep(c, q4, s, sv, n, pp, corr);
    if (!di8_skip(16)) pv_i8(c, q4, pp, corr, v0 + jb * c->v.sn, c->v.sn, n, st.acc, k0 + (ptrdiff_t)jpf_k * c->k.sn, c->k.sn, n2 AB_A);
}

HR_I8_TARGET static void i8_block(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                                  float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k)
{
#ifdef HR_DI8_ABLATE
    const int ab = di8_bits();
#endif
    if (c->kt == HR_Q4_0) block_i8(c, 1, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k AB_A);
    else block_i8(c, 0, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k AB_A);
}

#else /* no int8 dot products on this build: the conversion path everywhere */

static const char *i8_why_not(void) { return "this build level or CPU has no VNNI (vpdpbusd)"; }
#endif

/* The copies name their instances (HR_I8_STEP: hr_decode_i8_emu, hr_decode_i8_vnni_l1, hr_decode_i8_emu_l1) */
#ifndef HR_I8_STEP
#define HR_I8_STEP hr_decode_i8_vnni
#endif
#if defined(HR_HAVE_I8DOT)
const hr_decode_i8_step HR_I8_STEP = {i8_why_not, pv_int8_on, i8_qf, i8_sf, i8_quant, i8_block, i8_path};
#else
const hr_decode_i8_step HR_I8_STEP = {.why_not = i8_why_not};
#endif
#endif /* HR_I8_EMU_OFF */

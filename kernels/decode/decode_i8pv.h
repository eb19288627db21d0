/* decode_i8pv.h — decode_i8.c's int8 P·V (AVX-512 VNNI and AVX2 AVX-VNNI): P·dv quantized to s8 per 64 / 32 keys, or u8 on a q8_0 block with every V scale >= 0 (pv_quant), and V by vpdpbusd, 4 keys per dword (pv_tile_s8, pv_s8); static inline, included by decode_i8.c only. */
#ifndef HR_DECODE_I8PV_H
#define HR_DECODE_I8PV_H
/*
 * P·V, int8 (HR_HAVE_I8PV: AVX-512 VNNI, AVX2 with AVX-VNNI): O_c += sum_j (P_j dv_jb) v_jc
 * becomes, per row r, q block b and group g of GK = 4 vectors of keys (64 / 32), O_c += c_gb sum_{j in g} w_jb v_jc with
 * w = round(P_j dv_jb / c_gb) in s8, c_gb = max_g |P_j dv_jb| / 127 (pv_quant: a scale
 * per group, so a long flat context keeps its small weights). V is the unsigned side
 * (q8_0 v + 128, q4_0 the nibble) and the offset off·sum_g w is the group's initial
 * accumulator; V sits 4 keys per dword by an in-register transpose of 4 keys' blocks
 * (hr_vi_vt_q8/q4, two blocks per vector set), shared by 4 rows; the accumulators'
 * d order is permuted within 128-bit lanes and the fp32 tile is kept in that order
 * (hr_vf_tr4 once per tile and block step). Ops per key and KV head (H32/8 d128, R 4):
 *   V transposes  q8_0 8 (vinserti64x4 loads, vpxor, 4 unpacks per 2 keys and pair),
 *                 q4_0 8 (masked vbroadcasti32x4, unpacks, vpand: the high nibbles
 *                 kept in place as 16 v, so no vpsrlvw; 16x the offset and c/16 for them)
 *   vpdpbusd 8, weight vectors 2 (a broadcast and a masked broadcast per row, 4 keys,
 *   pair), flush 1 (vcvtdq2ps + FMA per accumulator and 64 keys), quantization ~8
 *   (~5.5 per row, block and 16 keys: P·dv, 3/4 vrangeps for abs and max, scale,
 *   vcvtps2dq, a quarter of the 4-op pack of 4 vectors to bytes, hr_vi_store4_i8, and
 *   of one vpdpbusd by ones on the packed bytes for the weight sum; per row, block and
 *   4 groups of 64 keys the maxima and weight sums reduced together, hr_vf_max4 /
 *   hr_vi_add4, ~30 with the scales: ~2 per key, where a reduction per group took 4)
 * ~27 / ~27 ops where fp32 P·V took 48 / 52 (+2 pv_prep): 32 FMAs + 8 vpmovsxbd +
 * 8 vcvtdq2ps (q4_0 + vpand/vpsrld). The P·V loop is near its ops (GCC spills one V
 * vector and the row pointers; the 16 accumulators by name and vpdpbusd in place, else
 * GCC 12 keeps them in memory). The quantization reduces four groups at once, takes abs
 * and max by vrangeps (max |a|, |b| in one op) and, on AVX-512, the weight sum by one
 * vpdpbusd of the packed bytes by ones (AVX2 keeps its vpaddd: no gain there); q4_0's V
 * nibbles take one vpand (perf-log 0220). All of these give the same values (the max and
 * sum exact; the 16 v lanes exact below 2^24).
 *
 * AVX2 (16 ymm): the same functions on 8 lanes through vec_int8.h's ymm forms. A tile is
 * 2 rows by one q block (8 accumulators, 4 V vectors, a weight vector, a mask; 4 rows
 * would need 16 accumulators), so R 4 takes two tiles per block and transposes V twice;
 * a group is 32 keys (pv_quant's 4 vectors; the path says "per 32 keys", the oracle's
 * term follows). q8_0 and q4_0 leave the transposes in the same order (lane h of vector
 * i: d = 16 h + 4 i + p), put back by 4 vperm2f128 per row and block (hr_vf_tile_*).
 * Ops per key and KV head (H32/8 d128, R 4): V transposes q8_0 24 (4 loads, 4 vpxor, 8
 * unpacks per 4 keys, tile and block), q4_0 28 (vbroadcasti128 loads, 8 unpacks,
 * 4 vpand; the high nibbles in place as on AVX-512); vpdpbusd 16; weight broadcasts 4; flush ~4 (vcvtdq2ps + FMA per
 * accumulator and 32 keys, the fp32 tile spilled); quantization ~20 (8 lanes: twice
 * AVX-512's per-element ops, and its 4-group reductions per 128 keys): ~64 / ~72 ops
 * where the fp32 P·V took ~128 / ~136 + 6 (pv_prep; its 2 x 4 tiles convert each V
 * vector twice). The V transposes do not bind this loop: reloading the first tile's
 * transposes from L1 for the second gains nothing, nor do batched divisions (perf-log
 * 0221).
 *
 * What binds the AVX-512 tile: not its 16 vpdpbusd per 4 keys but the other zmm ops
 * (unpacks, vpxord, inserts, merge-masked broadcasts), each ~1 cycle; a layout without
 * them would win at most ~1 ns per key before its own costs (perf-log 0222).
 *
 * u8 weights (q8_0, both levels; the U8 / u8 parameter below): P is never negative, nor
 * is a q8_0 V scale from llama.cpp's or this project's quantizer (d = amax / 127), so
 * where every V scale of a block step is >= 0 (decode_i8sc.h's sv_nonneg, a vector max
 * over the laid-out scales after the scores) w = round(P dv / c) with c = max / 255 goes
 * to u8 and V stays signed as stored: vpdpbusd's operands swap (the weights the unsigned
 * side), the 4 vpxord per 4 keys and pair, the weight sums (a vpdpbusd by ones per 4
 * vectors, hr_vi_add4) and the offset corrections (a vpmulld, their stores, the
 * accumulators' loads) go, and each weight has one more bit. A block with a negative
 * scale (a cache quantized elsewhere) takes the s8 step; the path says both ("P·dv u8 per
 * G keys, s8 where a V scale < 0") and the oracle takes c = max / 255 only where no V
 * scale of the head is negative. q4_0's scales are signed (d = max / -8), so it keeps s8.
 * The u8 weights make pv_quant and pv_s8 cheaper at both levels (perf-log 0223).
 *
 * pv_quant runs in two passes over the block step (pv_quant_groups' comment) and each call
 * over every row of a block's groups (the dv vectors loaded once): one pass per call ran
 * at its chain's latency (perf-log 0223); outputs bit-identical.
 */
#include <stdint.h>

#include "decode_block.h"
#include "vec_int8.h"

#if defined(HR_HAVE_I8DOT)
#define QBYTES(q4) ((q4) ? 2 + HR_QBLOCK / 2 : 2 + HR_QBLOCK) /* a stored q4_0 / q8_0 block */
/* What vpdpbusd's unsigned side adds to a stored value, taken out by the corrections:
 * q4_0's nibbles hold v + 8; q8_0's K and V go + 128, but under HR_I8_SK stay signed (the
 * sign trick). The K side (i8_quant) and the V side (pv_quant) alike. */
#define I8_OFFSET(q4) ((q4) ? 8 : HR_I8_SK ? 0 : 128)
/* keys per int8 P·V weight group (one scale per row, q block and group): 4 vectors, so
 * that pv_quant holds a group in 4 registers (64 on AVX-512, 32 on AVX2); the path says
 * it ("P·dv s8 per GK keys") and the oracle's weight term follows it */
#if HR_VW == 16
#define GK 64
#define GK_S "64"
#else
#define GK 32
#define GK_S "32"
#endif
_Static_assert(GK == 4 * HR_VW, "pv_quant holds a whole group in 4 vectors");
/* Groups of a block step's keys per row and q block (int8 P·V), with one spare. */
static inline size_t ngrp(const dctx *c) { return (size_t)(c->kbp + GK - 1) / GK + 1; }
#endif

#if defined(HR_HAVE_I8PV)
/* A group whose largest weight x is below 2^-64 (P a denormal from hr_vexp2, or a tiny
 * fp16 scale) would overflow 127 / amax to inf, and 0 · inf is NaN, which vcvtps2dq
 * turns into INT_MIN (UBSan: the weight sum overflows): such a group's x and amax are
 * first multiplied by 2^64, exactly, so w is what exact arithmetic gives. */
static inline float pv_prescale(float amax) { return amax > 0 && amax < 0x1p-64f ? 0x1p64f : 1.0f; }

/* NG (4, 2 or 1, a constant) whole groups of GK keys from key g0 of block b's V scales
 * svb, for every row (R, row r's scores s + r kbp, its weights, c, 1 / c and corrections
 * rw and rc on from wb, cgb, cib, cob), as pv_quant's comment says, in two passes over the
 * block step (PASS, a constant): pass 0 each row's maxima reduced together (hr_vf_max4:
 * absent groups' lanes are zero and unused), c and 1 / c by xmm ops into cg and ci; pass 1
 * the weights, from x computed again and 1 / c, and (s8) the sums reduced together
 * (hr_vi_add4) into the corrections. The V scales' vectors are loaded once for all rows.
 * One pass per row and call ran at its chain's latency (load, multiply, 2 vrangeps, the
 * reduction, vdivps, a permute, multiply, convert, packs, store: ~85 cycles a call where
 * its ~130 ops issue in ~35); split, the calls overlap (perf-log 0223). A tiny maximum takes
 * the group-by-group path in pass 0 for its row and marks it done (ci's first slot -1,
 * where 1 / c is never negative). */
HR_I8_INLINE void pv_quant_groups(int PASS, int NG, int PAIR, int U8, int R, const float *s, const float *svb, int g0,
                                  signed char *wb, float *cgb, float *cib, int32_t *cob, size_t rw, size_t rc, int kbp,
                                  int ng, int off)
{
    /* slot k: group k of the block, or (PAIR, NG 4) group k & 1 of block k >> 1 (the next
     * block's V scales and weights kbp on, its c and correction ng on) */
#define PVQ_G(k) (PAIR ? ((k) & 1) : (k))
#define PVQ_L (U8 && !HR_I8_SK ? 255.0f : 127.0f) /* the weights' largest level (HR_I8_SK: a vpmaddubsw pair within int16) */
#define PVQ_B(k) (PAIR ? ((k) >> 1) : 0)
#define PVQ_S(k) (PVQ_B(k) * ng + PVQ_G(k)) /* slot k's c, 1 / c and correction */
#define PVQ_X(k, i) hr_vmul(hr_vload(sr + g0 + PVQ_G(k) * GK + (i) * HR_VW), dv[k][i])
    hr_vf dv[4][4];
    for (int k = 0; k < NG; k++)
        for (int i = 0; i < 4; i++) dv[k][i] = hr_vload(svb + (size_t)PVQ_B(k) * kbp + g0 + PVQ_G(k) * GK + i * HR_VW);
    for (int r = 0; r < R; r++) {
        const float *sr = s + (size_t)r * kbp;
        signed char *wr = wb + r * rw;
        float *cgr = cgb + r * rc, *cir = cib + r * rc;
        int32_t *cor = cob + r * rc;
        if (PASS == 1) {
            if (cir[0] < 0) continue; /* pass 0 did the whole row */
            hr_vi ws[4];
            for (int k = 0; k < 4; k++) {
                if (k >= NG) {
                    ws[k] = hr_vi_zero();
                    continue;
                }
                const hr_vf id = hr_vset1(cir[PVQ_S(k)]);
                hr_vi wi[4];
                for (int i = 0; i < 4; i++) wi[i] = hr_vi_round(hr_vmul(PVQ_X(k, i), id));
                signed char *wg = wr + (size_t)PVQ_B(k) * kbp + g0 + PVQ_G(k) * GK;
                const hr_vi packed = hr_vi_store4_i8(wg, wi, U8);
                if (!U8) ws[k] = hr_vi_sum4(packed, wi);
            }
            if (U8) continue; /* no offset, no correction */
            const hr_xi4 co4 = hr_xi4_mul(hr_vi_add4(ws), -off);
            if (NG == 4 && !PAIR) hr_xi4_store(cor, co4);
            else {
                int32_t ov[4];
                hr_xi4_store(ov, co4);
                for (int k = 0; k < NG; k++) cor[PVQ_S(k)] = ov[k];
            }
            continue;
        }
        hr_vf m[4];
        for (int k = 0; k < 4; k++)
            m[k] = k >= NG ? hr_vzero()
                           : hr_vf_maxabs(hr_vf_maxabs(PVQ_X(k, 0), PVQ_X(k, 1)), hr_vf_maxabs(PVQ_X(k, 2), PVQ_X(k, 3)));
        const hr_x4 am = hr_vf_max4(m);
        if (__builtin_expect(hr_x4_tiny(am, 0x1p-64f) != 0, 0)) {
            /* a tiny maximum somewhere: pv_prescale's exact path, group by group, the
             * whole row here (its own copy of pass 1: folded into the main loop as a
             * per-group branch, pv_quant was slower: perf-log 0223) */
            float amax[4];
            hr_x4_store(amax, am);
            hr_vi ws[4];
            for (int k = 0; k < 4; k++) {
                if (k >= NG) {
                    ws[k] = hr_vi_zero();
                    continue;
                }
                const float sc = pv_prescale(amax[k]);
                const hr_vf id = hr_vset1(amax[k] > 0 ? PVQ_L / (amax[k] * sc) : 0.0f);
                hr_vi wi[4];
                for (int i = 0; i < 4; i++) {
                    hr_vf x = PVQ_X(k, i);
                    if (sc != 1.0f) x = hr_vmul(x, hr_vset1(sc));
                    wi[i] = hr_vi_round(hr_vmul(x, id));
                }
                signed char *wg = wr + (size_t)PVQ_B(k) * kbp + g0 + PVQ_G(k) * GK;
                const hr_vi packed = hr_vi_store4_i8(wg, wi, U8);
                ws[k] = U8 ? hr_vi_zero() : hr_vi_sum4(packed, wi);
                cgr[PVQ_S(k)] = amax[k] / PVQ_L;
            }
            cir[0] = -1.0f;
            if (U8) continue;
            int32_t sum[4];
            hr_xi4_store(sum, hr_vi_add4(ws));
            for (int k = 0; k < NG; k++) cor[PVQ_S(k)] = -off * sum[k];
            continue;
        }
        /* PVQ_L / amax for the 4 groups by one vdivps (0 where amax is 0), c by another */
        const hr_x4 id4 = hr_x4_rdiv(PVQ_L, am), c4 = hr_x4_div(am, PVQ_L);
        if (NG == 4 && !PAIR) {
            hr_x4_store(cgr, c4);
            hr_x4_store(cir, id4);
        } else {
            float cv[4], iv[4];
            hr_x4_store(cv, c4);
            hr_x4_store(iv, id4);
            for (int k = 0; k < NG; k++) cgr[PVQ_S(k)] = cv[k], cir[PVQ_S(k)] = iv[k];
        }
    }
#undef PVQ_G
#undef PVQ_B
#undef PVQ_L
#undef PVQ_S
#undef PVQ_X
}

/* pv_quant's last short group (keys g0 .. n, fewer than GK) by a general loop, and the
 * weights of keys n .. n rounded up to 4 zeroed. */
HR_I8_INLINE void pv_quant_tail(int u8, const float *sr, const float *svb, int g0, int n, signed char *wr, float *cgr,
                                int32_t *cor, int off)
{
    if (g0 < n) { /* the last short group */
        const int ge = n, gf = g0 + (ge - g0) / HR_VW * HR_VW;
        hr_vf vm = hr_vzero();
        for (int j = g0; j < gf; j += HR_VW) vm = hr_vmax(vm, hr_vabs(hr_vmul(hr_vload(sr + j), hr_vload(svb + j))));
        float amax = hr_vreduce_max(vm);
        for (int j = gf; j < ge; j++) amax = fabsf(sr[j] * svb[j]) > amax ? fabsf(sr[j] * svb[j]) : amax;
        const float lv = u8 && !HR_I8_SK ? 255.0f : 127.0f, sc = pv_prescale(amax), id = amax > 0 ? lv / (amax * sc) : 0.0f;
        hr_vi vs = hr_vi_zero();
        for (int j = g0; j < gf; j += HR_VW) {
            hr_vf x = hr_vmul(hr_vload(sr + j), hr_vload(svb + j));
            if (sc != 1.0f) x = hr_vmul(x, hr_vset1(sc));
            const hr_vi xi = hr_vi_round(hr_vmul(x, hr_vset1(id)));
            hr_vi_store_i8(wr + j, xi, u8);
            vs = hr_vi_add(vs, xi);
        }
        int sum = hr_vi_reduce_add(vs);
        for (int j = gf; j < ge; j++) {
            const int wj = (int)nearbyintf(sr[j] * svb[j] * sc * id);
            ((unsigned char *)wr)[j] = (unsigned char)wj; /* s8 as its two's complement byte */
            sum += wj;
        }
        cgr[0] = amax / lv;
        if (!u8) cor[0] = -off * sum;
    }
    for (int j = n; j < (n + 3) / 4 * 4; j++) wr[j] = 0;
}

/* P·dv quantized to s8 per row r, q block b and group of GK keys (the int8 P·V):
 * x_j = P_rj dv_jb, c = max_g |x_j| / 127, w_j = round(x_j / c) into
 * w[(r nb + b) kbp + j] (keys n .. n rounded up to 4 get 0), c into cg[(r nb + b) ng +
 * grp] and -off·sum_g w_j into co[same] (off 128 for q8_0's V + 128, 8 for q4_0's
 * nibbles): vpdpbusd's offset taken out as the accumulator's initial value. Whole
 * groups go 4 at a time, then 2, then 1 (pv_quant_groups: the general loop below for all
 * of a 128-key block's groups was slower), and where a row and block has exactly 2, two
 * blocks' go together (q8_0's 128-key blocks at AVX-512) (perf-log 0223); a last short
 * group takes the general loop. */
HR_I8_INLINE void pv_quant(const dctx *c, int q4, int u8, const float *s, const float *sv, int n, signed char *w,
                           float *cg, int32_t *co, float *ci)
{
    const int nb = c->d / HR_QBLOCK, kbp = c->kbp, ng = (int)ngrp(c), off = I8_OFFSET(q4);
    /* exactly 2 whole groups a row and block (128-key blocks at AVX-512): blocks b and
     * b + 1 in one pv_quant_groups, so its reductions are not half empty */
    const int pair = n / GK == 2 && nb % 2 == 0;
    const size_t rw = (size_t)nb * kbp, rc = (size_t)nb * ng;
#define PVQ_CALL(PASS, NG, PAIR, g0, grp) \
    pv_quant_groups(PASS, NG, PAIR, u8, c->R, s, svb, g0, wb, cgb + (grp), cib + (grp), cob + (grp), rw, rc, kbp, ng, off)
#define PVQ_BLOCKS(PASS)                                                                                      \
    for (int b = 0; b < nb; b++) {                                                                            \
        const float *svb = sv + (size_t)b * kbp;                                                              \
        signed char *wb = w + (size_t)b * kbp;                                                                \
        float *cgb = cg + (size_t)b * ng, *cib = ci + (size_t)b * ng;                                         \
        int32_t *cob = co + (size_t)b * ng;                                                                   \
        int g0 = 0, grp = 0;                                                                                  \
        if (pair) {                                                                                           \
            if (b % 2 == 0) PVQ_CALL(PASS, 4, 1, 0, 0);                                                       \
            g0 = 2 * GK, grp = 2;                                                                             \
        }                                                                                                     \
        for (; n - g0 >= 4 * GK; g0 += 4 * GK, grp += 4) PVQ_CALL(PASS, 4, 0, g0, grp);                       \
        if (n - g0 >= 2 * GK) PVQ_CALL(PASS, 2, 0, g0, grp), g0 += 2 * GK, grp += 2;                         \
        if (n - g0 >= GK) PVQ_CALL(PASS, 1, 0, g0, grp), g0 += GK, grp++;                                     \
        if (PASS == 1)                                                                                        \
            for (int r = 0; r < c->R; r++)                                                                    \
                pv_quant_tail(u8, s + (size_t)r * kbp, svb, g0, n, wb + r * rw, cgb + r * rc + grp, cob + r * rc + grp, off); \
    }
    PVQ_BLOCKS(0)
    PVQ_BLOCKS(1)
#undef PVQ_BLOCKS
#undef PVQ_CALL
}

/* The accumulators of a tile by name (rows r, vectors i): GCC 12 keeps an array of
 * them, indexed before unrolling, in memory across the key loop (a load and a store per
 * vpdpbusd). X(r, i) for each. A tile is PV_RT rows by PV_NB q blocks (4 vectors):
 * AVX-512 4 rows of two blocks (16 zmm of 32), AVX2 2 rows of one block (8 ymm of 16,
 * with the 4 V vectors, a weight vector and a mask constant). */
#if HR_VW == 16
#define PV_RT 4
#define PV_NB 2
#define PV_ACC(X) X(0, 0) X(0, 1) X(0, 2) X(0, 3) X(1, 0) X(1, 1) X(1, 2) X(1, 3) \
                  X(2, 0) X(2, 1) X(2, 2) X(2, 3) X(3, 0) X(3, 1) X(3, 2) X(3, 3)
#define PV_ROWS(jj) PV_ROW(0, jj) PV_ROW(1, jj) PV_ROW(2, jj) PV_ROW(3, jj)
#else
#define PV_RT 2
#define PV_NB 1
#define PV_ACC(X) X(0, 0) X(0, 1) X(0, 2) X(0, 3) X(1, 0) X(1, 1) X(1, 2) X(1, 3)
#define PV_ROWS(jj) PV_ROW(0, jj) PV_ROW(1, jj)
#endif
#define PV_DECL(r, i) hr_vi a##r##i;
#define PV_INIT(r, i) a##r##i = z[r];
#define PV_FLUSH(r, i) \
    if (r < nr) ot[r][i] = hr_vfma(hr_vi_cvt(a##r##i), cv[r], ot[r][i]);
/* u8: the weights unsigned, V signed (vpdpbusd's operands the other way round); q8_0's
 * s8 weights under HR_I8_SK (V signed): the sign trick on |V| (ua) */
#if HR_I8_SK
#define PV_DOT(acc, v, wv) (u8 ? hr_vi_dot_ip(acc, wv, u[v]) : !q4 ? (void)(*(acc) = hr_vi_dot_sk(*(acc), ua[v], u[v], wv)) : hr_vi_dot_ip(acc, u[v], wv))
#define PV_ABS for (int i_ = 0; i_ < 4 && !q4 && !u8; i_++) ua[i_] = hr_vi_abs8(u[i_]);
#else
#define PV_DOT(acc, v, wv) (u8 ? hr_vi_dot_ip(acc, wv, u[v]) : hr_vi_dot_ip(acc, u[v], wv))
#define PV_ABS (void)ua;
#endif
#define PV_ROW(r, jj)                                               \
    if (r < nr) {                                                   \
        const hr_vi wv = hr_vi_set2(wj0 + r * ws, wj1 + r * ws, q4); \
        PV_DOT(&a##r##0, 0, wv);                                    \
        PV_DOT(&a##r##1, 1, wv);                                    \
        PV_DOT(&a##r##2, 2, wv);                                    \
        PV_DOT(&a##r##3, 3, wv);                                    \
    }
/* 4 keys (V blocks at k[t], the second block o1 bytes on) into the accumulators of nr
 * rows: one transpose, then per row one weight vector and 4 vpdpbusd. */
#define PV_QUAD(k, jj)                       \
    do {                                     \
        hr_vi u[4], ua[4];                   \
        if (q4) hr_vi_vt_q4(k, o1, u);       \
        else hr_vi_vt_q8(k, o1, u8 || HR_I8_SK, u); \
        PV_ABS                               \
        PV_ROWS(jj)                          \
    } while (0)
/* the same from a V tile: the quad of keys jj .. jj + 3 */
#define PV_QUAD_T(jj)                                                                                  \
    do {                                                                                               \
        hr_vi u[4], ua[4];                                                                             \
        const unsigned char *tp = (tiled == 2 ? c->pv[(jj) / HR_KV_TILE] : v0) + (size_t)((jj) / HR_KV_TILE) * tb + \
                                  tq + qs * (((jj) % HR_KV_TILE) / 4);                                 \
        if (q4) hr_vi_vt_q4t(tp, lone, u);                                                             \
        else hr_vi_vt_q8t(tp, lone, u8 || HR_I8_SK, u);                                                \
        PV_ABS                                                                                         \
        PV_ROWS(jj)                                                                                    \
    } while (0)

/* acc[r][32 b .. 32 b2 + 32) += sum over keys of c_g w_j v_j for rows [r0, r0 + nr),
 * nr <= PV_RT, q blocks b and b2 (b2 == b: one block, the second half discarded; AVX2
 * always one): per group, 4 PV_RT int32 accumulators start at the offset correction, 4 keys at a time take one V
 * transpose and 4 vpdpbusd per row, and the group's flush is one vcvtdq2ps and one FMA
 * by its scales per accumulator into the fp32 tile ot (kept in the transposes' d order,
 * hr_vf_tr4, and put back in d order at the end). pq (may be NULL): stepped per 4 keys. */
HR_I8_INLINE void pv_tile_s8(const dctx *c, int q4, int u8, int tiled, const signed char *w, const float *cg,
                             const int32_t *co, const unsigned char *v0, ptrdiff_t vsn, int n, int b, int b2, int r0,
                             int nr, float *acc, pf_seq *pq)
{
    const int nb = c->d / HR_QBLOCK, kbp = c->kbp, ng = (int)ngrp(c);
    const size_t bb = QBYTES(q4);
    hr_vf ot[PV_RT][4];
    for (int r = 0; r < nr; r++) hr_vf_tile_load(acc + (size_t)(r0 + r) * c->dp, b, b2, q4, ot[r]);
    const ptrdiff_t o1 = (ptrdiff_t)(b2 - b) * (ptrdiff_t)bb;
    /* the rows' weights of blocks b and b2: row r0's and a row stride, so a 4-key step
     * addresses all 8 from two pointers and the stride (8 pointers were spilled and
     * reloaded every step) */
    const signed char *w0 = w + ((size_t)r0 * nb + b) * kbp;
    const ptrdiff_t ws = (ptrdiff_t)nb * kbp, w1 = (ptrdiff_t)(b2 - b) * kbp;
    const unsigned char *vb = v0 + (size_t)b * bb + 2;
    /* tiled (v0 the block's first tile): a tile's bytes, the offset of block b's first quad
     * in a tile and the bytes from one quad to the next (headroom.h hr_kv_tile_offset: a
     * pair of blocks' 4 quads take 32 (bb - 2) bytes, block 2P + 1's rows (bb - 2) on from
     * 2P's; a lone last block's half as many); at the avx512 level b is even, and lone
     * where b2 == b */
    const int lone = b % 2 == 0 && b + 1 == nb;
    const size_t qp = 4 * (bb - 2), tb = (size_t)HR_KV_TILE * c->rb;
    const size_t tq = 32 * (size_t)nb + 8 * qp * (size_t)(b / 2) + (lone ? 0 : (bb - 2) * (size_t)(b % 2));
    const size_t qs = lone ? qp : 2 * qp;
    (void)tb, (void)tq, (void)qs;
    for (int g0 = 0, grp = 0; g0 < n; g0 += GK, grp++) {
        const int ge = n - g0 < GK ? n : g0 + GK, gf = g0 + (ge - g0) / 4 * 4;
        PV_ACC(PV_DECL)
        hr_vi z[PV_RT];
        for (int r = 0; r < PV_RT; r++) {
            const int rr = r < nr ? r0 + r : r0;
            if (u8) { /* V signed: no offset to take out */
                z[r] = hr_vi_zero();
                continue;
            }
            z[r] = hr_vi_set2(co + ((size_t)rr * nb + b) * ng + grp, co + ((size_t)rr * nb + b2) * ng + grp, q4);
            if (q4) z[r] = hr_vi_q4_hz(z[r]); /* the high nibbles come as 16 v */
        }
        PV_ACC(PV_INIT)
        for (int j = g0; j < gf; j += 4) {
            if (pq) pf_step_s(pq, tiled == 2 ? PF_GROUPS : HR_DECODE_PF_SPAN);
            const unsigned char *k[4] = {vb + j * vsn, vb + (j + 1) * vsn, vb + (j + 2) * vsn, vb + (j + 3) * vsn};
            const signed char *wj0 = w0 + j, *wj1 = wj0 + w1;
            if (tiled) {
                PV_QUAD_T(j);
                continue;
            }
            PV_QUAD(k, j);
        }
        if (gf < ge) { /* the last 1-3 keys: key n - 1 repeated, its weight 0 */
            if (pq) pf_step_s(pq, tiled == 2 ? PF_GROUPS : HR_DECODE_PF_SPAN);
            const signed char *wj0 = w0 + gf, *wj1 = wj0 + w1;
            if (tiled) /* the quad's keys past n: the tile's next keys or its zero padding, weight 0 */
                PV_QUAD_T(gf);
            else {
                const unsigned char *k[4];
                for (int t = 0; t < 4; t++) k[t] = vb + (ptrdiff_t)(gf + t < n ? gf + t : n - 1) * vsn;
                PV_QUAD(k, gf);
            }
        }
        hr_vf cv[PV_RT];
        for (int r = 0; r < PV_RT; r++) {
            const size_t ix = ((size_t)(r < nr ? r0 + r : r0) * nb) * ng + grp;
            cv[r] = hr_vset2f(cg[ix + (size_t)b * ng], cg[ix + (size_t)b2 * ng], q4);
            if (q4) cv[r] = hr_vf_q4_hc(cv[r]);
        }
        PV_ACC(PV_FLUSH)
    }
    for (int r = 0; r < nr; r++) hr_vf_tile_store(acc + (size_t)(r0 + r) * c->dp, b, b2, q4, ot[r]);
}

HR_I8_INLINE void pv_s8(const dctx *c, int q4, int u8, int tiled, const signed char *w, const float *cg,
                        const int32_t *co, const unsigned char *v0, ptrdiff_t vsn, int n, float *acc,
                        const unsigned char *pf, ptrdiff_t psn, int n2)
{
    const int nb = c->d / HR_QBLOCK;
    const int steps = (nb + PV_NB - 1) / PV_NB * ((n + 3) / 4);
    pf_seq pq = tiled == 2 ? pf_groups(c, c->pfk, c->npfk, steps) : pf_rows(c, pf, psn, n2, steps);
    for (int b = 0; b < nb; b += PV_NB) {
        const int b2 = PV_NB > 1 && b + 1 < nb ? b + 1 : b;
        for (int r0 = 0; r0 < c->R; r0 += PV_RT) {
            const int nr = c->R - r0 < PV_RT ? c->R - r0 : PV_RT;
            if (r0 == 0 && nr == PV_RT) pv_tile_s8(c, q4, u8, tiled, w, cg, co, v0, vsn, n, b, b2, 0, PV_RT, acc, &pq);
            else if (r0 == 0) pv_tile_s8(c, q4, u8, tiled, w, cg, co, v0, vsn, n, b, b2, 0, nr, acc, &pq);
            else if (nr == PV_RT) pv_tile_s8(c, q4, u8, tiled, w, cg, co, v0, vsn, n, b, b2, r0, PV_RT, acc, NULL);
            else pv_tile_s8(c, q4, u8, tiled, w, cg, co, v0, vsn, n, b, b2, r0, nr, acc, NULL);
        }
    }
}
#endif

#endif

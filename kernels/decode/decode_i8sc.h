/* decode_i8sc.h — decode_i8.c's scores for q8_0/q4_0 caches by int8 dot products: the K and V block scales laid out by key (scales_block), K transposed a lane per key and vpdpbusd against broadcast Q dwords (scores_keys, scores_keys2, scores_i8); static inline, included by decode_i8.c only. */
#ifndef HR_DECODE_I8SC_H
#define HR_DECODE_I8SC_H

#include <stdint.h>
#include <string.h>

#include "decode_block.h"
#include "decode_i8pv.h"
#include "vec_int8.h"

#if defined(HR_HAVE_I8DOT)

#define I8_FN static inline __attribute__((always_inline)) HR_I8_TARGET

/* Attribution where no hardware counter can be read (as flash.c's HR_FT_ABLATE): a
 * -DHR_DI8_ABLATE build reads HR_DI8_ABLATE=BITS and skips 1 the scores' vpdpbusd, 2 the
 * K transposes (each key's block still loaded; on q4_0 its scores then leave the nibble
 * range and that variant's time means nothing), 4 pv_prep, 8 the softmax, 16 P·V (and
 * its K prefetch), 32 P·V's V loads and conversions (a constant V), 64 the prefetches,
 * 128 the V scales' store (sv), 256 the K scales' use (dk a constant; the pair load
 * serves both, so it goes only with both bits), both also scales_block (before it, the
 * V and K scale gathers). Its results are wrong by design; without the flag di8_skip is
 * 0 and compiles away. */
#ifdef HR_DI8_ABLATE
/* The bits read once per block step and passed down as a parameter (AB_P, AB_A) into the
 * inlined phases: a register, so the tests cost the variants nothing measurable. */
static int di8_bits(void)
{
    static int bits = -1; /* a benign race: every thread stores the same value */
    if (bits < 0) bits = getenv("HR_DI8_ABLATE") ? atoi(getenv("HR_DI8_ABLATE")) : 0;
    return bits;
}
#define AB_P , int ab
#define AB_A , ab
#define AB_NONE , 0 /* a caller without the bits (the tiled scores): nothing skipped */
#define di8_skip(bit) (ab & (bit))
#else
#define AB_P
#define AB_A
#define AB_NONE
#define di8_skip(bit) 0
#endif

/* Per query row, qrow_f floats: the d q8_0 values (int8, in order), the fp32 scale of
 * each block, the int32 correction -off·sum(q) of each block. */
static size_t qrow_f(const dctx *c) { return (size_t)c->d / 4 + 2 * (size_t)(c->d / HR_QBLOCK); }

/* The K and V block scales of keys [0, n) as stored (fp16), side by side into kvs[b kbp
 * + j] (K's in the low half, V's in the high: one store for both) by scalar loads, up
 * to the next multiple of HR_VW (past n: key n - 1's), so the scores read them HR_VW at
 * a time with one load (hr_vload_f16_pair). They were two vpgatherdd per q block of
 * every HR_VW keys, a large share of q4_0's time from memory (perf-log 0203). scales_rows
 * takes nb as a constant (scales_block's switch), so a key's 2 nb loads and nb stores
 * come without a loop around them (the loop over b, with a store per scale, added ~20
 * instructions a key). */
I8_FN void scales_rows(int nb, size_t bb, int kbp, const unsigned char *k0, ptrdiff_t ksn,
                       const unsigned char *v0, ptrdiff_t vsn, int n, int np, uint32_t *kvs)
{
    for (int j = 0; j < np; j++) {
        const int jj = j < n ? j : n - 1;
        const unsigned char *kr = k0 + jj * ksn, *vr = v0 + jj * vsn;
        for (int b = 0; b < nb; b++) {
            uint16_t k, v;
            memcpy(&k, kr + b * bb, 2);
            memcpy(&v, vr + b * bb, 2);
            kvs[(size_t)b * kbp + j] = k | (uint32_t)v << 16;
        }
    }
}

I8_FN void scales_block(const dctx *c, int q4, const unsigned char *k0, ptrdiff_t ksn, const unsigned char *v0,
                        ptrdiff_t vsn, int n, uint32_t *kvs)
{
    const int nb = c->d / HR_QBLOCK, kbp = c->kbp, np = (n + HR_VW - 1) / HR_VW * HR_VW;
    const size_t bb = QBYTES(q4);
#if HR_VW == 16
    /* q4_0 at d 128 by vectors (vec_int8.h's hr_vi_q4_scales: 2 loads, a permute and ~1.5
     * other ops a key where this pass takes 8 loads, 4 stores and ~10 other instructions;
     * q8_0's 136-byte rows need two loads each that way, and it was slower: perf-log 0205) */
    if (q4 && nb == 4) {
        hr_vi_q4_scales(k0, ksn, v0, vsn, n, np, kvs, (size_t)kbp);
        return;
    }
#endif
    switch (nb) {
    case 2: scales_rows(2, bb, kbp, k0, ksn, v0, vsn, n, np, kvs); break;
    case 4: scales_rows(4, bb, kbp, k0, ksn, v0, vsn, n, np, kvs); break;
    case 8: scales_rows(8, bb, kbp, k0, ksn, v0, vsn, n, np, kvs); break;
    default: scales_rows(nb, bb, kbp, k0, ksn, v0, vsn, n, np, kvs);
    }
}

/* 1 where every V scale of keys [0, n) laid out in sv (scores_keys') is >= 0: q8_0's
 * int8 P·V may then take u8 weights against V signed (pv_quant, pv_s8), as this
 * project's and llama.cpp's q8_0 quantizers always give (d = amax / 127). decode_i8.c's
 * i8_pv_pick asks, after the scores: a vector max of -dv over the block's scales, ~2
 * ops per 16 keys and block, costs the scores nothing, where an OR of the pairs in
 * scales_block's scalar pass was slower (perf-log 0223). q4_0's
 * scales are signed (d = max / -8): 0 there. */
I8_FN int sv_nonneg(const dctx *c, int q4, const float *sv, int n)
{
    if (q4) return 0;
    const int nb = c->d / HR_QBLOCK, np = (n + HR_VW - 1) / HR_VW * HR_VW;
    hr_vf m0 = hr_vzero(), m1 = hr_vzero();
    for (int b = 0; b < nb; b++) {
        const float *p = sv + (size_t)b * c->kbp;
        int j = 0;
        for (; j + 2 * HR_VW <= np; j += 2 * HR_VW)
            m0 = hr_vmax(m0, hr_vsub(hr_vzero(), hr_vload(p + j))), m1 = hr_vmax(m1, hr_vsub(hr_vzero(), hr_vload(p + j + HR_VW)));
        if (j < np) m0 = hr_vmax(m0, hr_vsub(hr_vzero(), hr_vload(p + j)));
    }
    return !(hr_vreduce_max(hr_vmax(m0, m1)) > 0);
}

/* The rows' scores of q block b for one key vector (ka) or two (two: kc, HR_VW keys on):
 * per row two chains of four vpdpbusd each against broadcast Q dwords shared by both,
 * one conversion and one FMA by dk·dq (dk2·dq), the partial sums through s between blocks.
 * q8_0 under HR_I8_SK (K signed): the sign trick's dots, |K| taken once for all rows. */
#if HR_I8_SK
#define SC_DOT(acc, u, k, q) (sk ? hr_vi_dot_sk(acc, u, k, q) : hr_vi_dot(acc, k, q))
#else
#define SC_DOT(acc, u, k, q) hr_vi_dot(acc, k, q)
#endif
I8_FN void scores_rows2(const dctx *c, int q4, int two, const float *qx, int b, const hr_vi *ka, const hr_vi *kc,
                        hr_vf dk, hr_vf dk2, float *s AB_P)
{
    const int nb = c->d / HR_QBLOCK, R = c->R, d4 = c->d / 4, sk = HR_I8_SK && !q4;
    const size_t qf = qrow_f(c), kbp = (size_t)c->kbp;
    hr_vi ua[8], uc[8]; /* sk: |K| */
#if HR_I8_SK
    for (int i = 0; i < 8 && sk; i++) {
        ua[i] = hr_vi_abs8(ka[i]);
        if (two) uc[i] = hr_vi_abs8(kc[i]);
    }
#endif
    (void)ua, (void)uc, (void)sk;
    for (int r = 0; r < R; r++) {
        const float *row = qx + (size_t)r * qf;
        const unsigned char *qb = (const unsigned char *)row + b * HR_QBLOCK;
        const hr_vi x00 = hr_vi_set1(row + d4 + nb + b);
        hr_vi x0 = x00, x1 = hr_vi_zero(), y0 = x00, y1 = hr_vi_zero();
        for (int i = 0; i < 8 && !di8_skip(1); i += 2) {
            const hr_vi q0 = hr_vi_set1(qb + 4 * i), q1 = hr_vi_set1(qb + 4 * i + 4);
            x0 = SC_DOT(x0, ua[i], ka[i], q0);
            if (two) y0 = SC_DOT(y0, uc[i], kc[i], q0);
            x1 = SC_DOT(x1, ua[i + 1], ka[i + 1], q1);
            if (two) y1 = SC_DOT(y1, uc[i + 1], kc[i + 1], q1);
        }
        const hr_vf dq = hr_vset1(row[d4 + b]);
        float *sr = s + r * kbp;
        const hr_vf xi = hr_vi_cvt(hr_vi_add(x0, x1));
        hr_vstore(sr, b ? hr_vfma(xi, hr_vmul(dk, dq), hr_vload(sr)) : hr_vmul(xi, hr_vmul(dk, dq)));
        if (two) {
            const hr_vf yi = hr_vi_cvt(hr_vi_add(y0, y1));
            hr_vstore(sr + HR_VW, b ? hr_vfma(yi, hr_vmul(dk2, dq), hr_vload(sr + HR_VW)) : hr_vmul(yi, hr_vmul(dk2, dq)));
        }
    }
}
#undef SC_DOT

/* Scores of keys [0, nk) at kb (stride ksn), nk <= HR_VW, for every query row into
 * s[r kbp + lane], and the V block scales of the same keys (kvs: scales_block's, at
 * the first key) into sv[b kbp + lane] for pv_prep, as fp32: per block, K transposed (a
 * lane per key), then per row two chains of four vpdpbusd against broadcast dwords of Q,
 * one conversion and one FMA by the block scales. Lanes past nk repeat key nk - 1 (kbp is
 * a multiple of HR_VW: they land in the padding). Each row's partial sum goes through s
 * between blocks (L1, forwarded). pq: the next block's V prefetch, stepped once per q
 * block (a few lines at a time). */
I8_FN void scores_keys(const dctx *c, int q4, const float *qx, const unsigned char *kb, ptrdiff_t ksn, int nk,
                       float *s, const uint32_t *kvs, float *sv, pf_seq *pq AB_P)
{
    const int nb = c->d / HR_QBLOCK;
    const size_t bb = QBYTES(q4), kbp = (size_t)c->kbp;
    for (int b = 0; b < nb; b++) {
        const unsigned char *blk = kb + b * bb;
        pf_step(pq);
        hr_vi kt[8];
        if (di8_skip(2))
            for (int i = 0; i < 8; i++)
                kt[i] = hr_vi_add(hr_vi_set1(blk + 2 + 2 * i * ksn), hr_vi_set1(blk + 2 + (2 * i + 1) * ksn));
        else if (q4) hr_vi_kt_q4(blk + 2, ksn, nk, kt);
        else hr_vi_kt_q8(blk + 2, ksn, nk, kt);
        hr_vf dk = hr_vset1(0x1p-7f), dv;
        if (!(di8_skip(128) && di8_skip(256))) {
            hr_vload_f16_pair(kvs + b * kbp, &dk, &dv);
            if (di8_skip(256)) dk = hr_vset1(0x1p-7f);
            if (!di8_skip(128)) hr_vstore(sv + b * kbp, dv);
        }
        scores_rows2(c, q4, 0, qx, b, kt, kt, dk, dk, s AB_A);
    }
}

/* scores_keys for 2 HR_VW keys: the first HR_VW all present, nk2 (1..HR_VW) of the
 * second; each broadcast of Q serves both key vectors (scores_rows2: half scores_keys' broadcasts a
 * key: vector loads issue 2 a cycle and bound that loop: perf-log 0205). */
I8_FN void scores_keys2(const dctx *c, int q4, const float *qx, const unsigned char *kb, ptrdiff_t ksn, int nk2,
                        float *s, const uint32_t *kvs, float *sv, pf_seq *pq AB_P)
{
    const int nb = c->d / HR_QBLOCK;
    const size_t bb = QBYTES(q4), kbp = (size_t)c->kbp;
    const unsigned char *kb2 = kb + HR_VW * ksn;
    for (int b = 0; b < nb; b++) {
        const unsigned char *blk = kb + b * bb, *blk2 = kb2 + b * bb;
        pf_step(pq);
        pf_step(pq);
        hr_vi ka[8], kc[8];
        if (q4) {
            hr_vi_kt_q4(blk + 2, ksn, HR_VW, ka);
            hr_vi_kt_q4(blk2 + 2, ksn, nk2, kc);
        } else {
            hr_vi_kt_q8(blk + 2, ksn, HR_VW, ka);
            hr_vi_kt_q8(blk2 + 2, ksn, nk2, kc);
        }
        hr_vf dk, dv, dk2, dv2;
        hr_vload_f16_pair(kvs + b * kbp, &dk, &dv);
        hr_vload_f16_pair(kvs + b * kbp + HR_VW, &dk2, &dv2);
        hr_vstore(sv + b * kbp, dv);
        hr_vstore(sv + b * kbp + HR_VW, dv2);
        scores_rows2(c, q4, 1, qx, b, ka, kc, dk, dk2, s AB_A);
    }
}

/* The scores and V scales of a q8_0 / q4_0 cache in tiles (HR_KV_TILE, headroom.h): keys
 * [0, n) from the tile at kt (V's at vt, tiles HR_KV_TILE rows apart), two vectors of
 * HR_VW keys a step as scores_keys2 (at the avx512 level two tiles, at the avx2 level the
 * two halves of one), then one. A vector's K of a block is plain loads already lane by key
 * (no inserts, no transposes), its K and V scales one load each (no scales_block pass).
 * Lanes past n read the tile's next keys or its zero padding and land in s's padding. */
typedef struct {
    const unsigned char *k, *v; /* the vector's K and V tile */
    int o;                      /* its first key's slot in them (0, or HR_VW at the avx2 level) */
} tile_vec;
/* paged (a constant): the block's tiles from its group bases (dctx pk, pv), kt and vt unused */
I8_FN tile_vec tile_at(const dctx *c, int paged, const unsigned char *kt, const unsigned char *vt, int j)
{
    const size_t t = (size_t)(j / HR_KV_TILE) * HR_KV_TILE * c->rb;
    if (paged) return (tile_vec){c->pk[j / HR_KV_TILE] + t, c->pv[j / HR_KV_TILE] + t, j % HR_KV_TILE};
    return (tile_vec){kt + t, vt + t, j % HR_KV_TILE};
}
/* pf_step for a paged block's prefetch (pf_groups) or the rows' */
#define PF_STEP_P(paged, pq) pf_step_s(pq, (paged) ? PF_GROUPS : HR_DECODE_PF_SPAN)
I8_FN void scores_tile_step(const dctx *c, int q4, int two, int paged, const float *qx, tile_vec x, tile_vec y,
                            float *s, float *sv, pf_seq *pq)
{
    const int nb = c->d / HR_QBLOCK;
    const size_t kbp = (size_t)c->kbp, bt = HR_KV_TILE * QBYTES(q4); /* a block's bytes in a tile */
    for (int b = 0; b < nb; b++) {
        PF_STEP_P(paged, pq);
        if (two) PF_STEP_P(paged, pq);
        hr_vi ka[8], kc[8];
        const unsigned char *kb = x.k + bt * b, *kb2 = y.k + bt * b; /* the block's scales, then its data */
        if (q4) hr_vi_kt_q4t(kb + 32 + 4 * x.o, ka);
        else hr_vi_kt_q8t(kb + 32 + 4 * x.o, ka);
        if (two && q4) hr_vi_kt_q4t(kb2 + 32 + 4 * y.o, kc);
        else if (two) hr_vi_kt_q8t(kb2 + 32 + 4 * y.o, kc);
        const hr_vf dk = hr_vload_f16(kb + 2 * x.o), dk2 = two ? hr_vload_f16(kb2 + 2 * y.o) : dk;
        hr_vstore(sv + b * kbp, hr_vload_f16(x.v + 32 * b + 2 * x.o));
        if (two) hr_vstore(sv + b * kbp + HR_VW, hr_vload_f16(y.v + 32 * b + 2 * y.o));
        scores_rows2(c, q4, two, qx, b, ka, kc, dk, dk2, s AB_NONE);
    }
}

/* paged (a constant): a paged block of several pages (dctx pk, pv, pfv; kt, vt, pf unused) */
I8_FN void scores_tiles(const dctx *c, int q4, int paged, const float *qx, const unsigned char *kt, int n, float *s,
                        const unsigned char *vt, float *sv, const unsigned char *pf, ptrdiff_t psn, int nv)
{
    const int steps = c->d / HR_QBLOCK * ((n + HR_VW - 1) / HR_VW);
    pf_seq pq = paged ? pf_groups(c, c->pfv, c->npfv, steps) : pf_rows(c, pf, psn, nv, steps);
    int j = 0;
    for (; n - j > HR_VW; j += 2 * HR_VW)
        scores_tile_step(c, q4, 1, paged, qx, tile_at(c, paged, kt, vt, j), tile_at(c, paged, kt, vt, j + HR_VW),
                         s + j, sv + j, &pq);
    if (j < n)
        scores_tile_step(c, q4, 0, paged, qx, tile_at(c, paged, kt, vt, j), tile_at(c, paged, kt, vt, j), s + j,
                         sv + j, &pq);
}

I8_FN void scores_i8(const dctx *c, int q4, const float *qx, const unsigned char *k0, ptrdiff_t ksn, int n,
                     float *s, const unsigned char *v0, ptrdiff_t vsn, float *sv, uint32_t *kvs,
                     const unsigned char *pf, ptrdiff_t psn, int nv AB_P)
{
    /* stepped per q block of every HR_VW keys: at q8_0 34 lines per 16 keys came as one
     * burst (the K loads behind it waiting for fill buffers), now 8.5 lines at a time */
    pf_seq pq = pf_rows(c, pf, psn, nv, c->d / HR_QBLOCK * ((n + HR_VW - 1) / HR_VW));
    if (!(di8_skip(128) && di8_skip(256))) scales_block(c, q4, k0, ksn, v0, vsn, n, kvs);
    int j0 = 0;
    if (HR_VW >= 16 && !di8_skip(1) && !di8_skip(2) && !di8_skip(128) && !di8_skip(256))
        for (; n - j0 > HR_VW; j0 += 2 * HR_VW) {
            if (n - j0 >= 2 * HR_VW) scores_keys2(c, q4, qx, k0 + j0 * ksn, ksn, HR_VW, s + j0, kvs + j0, sv + j0, &pq AB_A);
            else scores_keys2(c, q4, qx, k0 + j0 * ksn, ksn, n - j0 - HR_VW, s + j0, kvs + j0, sv + j0, &pq AB_A);
        }
    for (int j = j0; j < n; j += HR_VW) {
        if (n - j >= HR_VW) scores_keys(c, q4, qx, k0 + j * ksn, ksn, HR_VW, s + j, kvs + j, sv + j, &pq AB_A);
        else scores_keys(c, q4, qx, k0 + j * ksn, ksn, n - j, s + j, kvs + j, sv + j, &pq AB_A);
    }
}
#endif

#endif

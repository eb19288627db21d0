/* decode_kvh.h — decode_kv.c's block step at the avx2 level: 4-row tiles for every stored type, key and vector triples (12 accumulators) for f32/f16/bf16 (included by decode_kv.c only). */
#ifndef HR_DECODE_KVH_H
#define HR_DECODE_KVH_H
/* Every type at the avx2 level: decode_kv.c's generic tiles take RT = 2 rows, so at R = 4
 * every K and V vector was converted twice, and the conversions share the FMA ports
 * (q8_0/q4_0's tiles: decode_kvq.h, included below). These take all HT = 4 rows of a
 * tile so each vector is converted once; the scores step the V prefetch every PF_X
 * vectors of d (f32: PFXT), and P·V its K prefetch once per HPF_KEYS keys (a step per key, its state
 * kept in memory, made P·V's loop a chain through the stack; f32: HKT). The AVX-512 level
 * keeps the generic tiles: at its roof already, and the fine steps cost it in cache (decode.c,
 * "Prefetch spread").
 * Tiles of 12 accumulators. Two 256-bit FMA pipes of latency 4 need 8 independent sums in
 * flight; the 4 x 2 tiles had exactly 8, so every late operand (a V line from L2, a
 * conversion) stalled both pipes. So the scores take key triples (scores_tile_h3: 12
 * accumulators, 3 K vectors, a query vector: the 16 registers; pairs for a block's last
 * keys) and P·V vector triples (pv_tile_h, xw 3: rows outer, so a weight is broadcast
 * once per key and row; d128 is 3+3+3+3+2+2 vectors, 6 walks of the key block where
 * pairs took 8). f32 takes these tiles too (its RT = 2 tiles likewise had 8
 * accumulators). bf16 keeps its even/odd pair tiles: triples, with or without even/odd,
 * did not pay for it (perf-log 0235). P·V's key loop still issues ~37 instructions a
 * key for 12 FMAs that take 6 cycles; unrolling its groups gained as much as the code's
 * layout moves, so it is not done (perf-log 0235). */
#define HT 4
#define HPF_KEYS 4
/* f32 (rows of 8 lines at d128, twice f16's) steps its prefetches twice as often in the
 * scores and every key in P·V: the same spread of lines per step as its former 2-row
 * tiles had; f16's steps were slower for it from DRAM, and every key and every vector in
 * both slower again (perf-log 0235). */
#define PFXT(t) ((t) == HR_F32 ? 2 : PF_X)
#define HKT(t) ((t) == HR_F32 ? 1 : HPF_KEYS)

/* The scores of a 4-row tile's nk <= 2 keys (acc[r][u]: row r0 + r, key j + u) reduced
 * into s, two rows' key pairs per hr_vreduce_add4. */
DECODE_INLINE void scores_store_h(const dctx *c, hr_vf acc[HT][2], int nk, int r0, int nr, float *s, int j)
{
    for (int r = 0; r < nr; r++) {
        float *sr = s + (size_t)(r0 + r) * c->kbp + j;
        if (nk == 2 && r + 1 < nr) { /* two rows' key pairs per hr_vreduce_add4 */
            float o[4];
            hr_vreduce_add4(acc[r][0], acc[r][1], acc[r + 1][0], acc[r + 1][1], o);
            sr[0] = o[0], sr[1] = o[1], sr[c->kbp] = o[2], sr[c->kbp + 1] = o[3];
            r++;
        } else
            for (int u = 0; u < nk; u++) sr[u] = hr_vreduce_add(acc[r][u]);
    }
}

#include "decode_kvq.h"

/* Scores (f16/bf16; q8_0/q4_0 take scores_tile_q) of nk <= 2 keys (rows k[0], k[1];
 * k[1] = k[0] when nk is 1) for query rows [r0, r0 + nr), nr <= HT; wfull as scores_tile's. eo (bf16, decode_bf16_eo): 16 values
 * a step in even/odd order, q stored in that order. */
DECODE_INLINE void scores_tile_h(const dctx *c, hr_dtype t, const float *q, const unsigned char *const *k,
                                 int nk, int r0, int nr, int wfull, float *s, int j, pf_seq *pq, int eo)
{
    const hr_vf z = hr_vzero();
    hr_vf acc[HT][2];
    for (int r = 0; r < HT; r++) acc[r][0] = acc[r][1] = z;
    for (int x = 0; x < c->d; x += eo ? 2 * HR_VW : HR_VW) {
        if (x % (PFXT(t) * HR_VW) == 0) pf_step_s(pq, KV_SPAN(t));
        if (eo) {
            hr_vf k0e, k0o, k1e, k1o;
            hr_vload_bf16_eo(k[0] + 2 * x, &k0e, &k0o);
            hr_vload_bf16_eo(k[1] + 2 * x, &k1e, &k1o);
            for (int r = 0; r < HT; r++) {
                if (r >= nr) break;
                const float *qr = q + (size_t)(r0 + r) * c->dp + x;
                const hr_vf qe = hr_vload(qr), qo = hr_vload(qr + HR_VW);
                acc[r][0] = hr_vfma(qe, k0e, acc[r][0]);
                acc[r][1] = hr_vfma(qe, k1e, acc[r][1]);
                acc[r][0] = hr_vfma(qo, k0o, acc[r][0]);
                acc[r][1] = hr_vfma(qo, k1o, acc[r][1]);
            }
            continue;
        }
        const int w = wfull ? wfull : c->d - x < HR_VW ? c->d - x : HR_VW;
        const hr_vf k0 = kv_vec(t, k[0], x, w, z), k1 = nk > 1 ? kv_vec(t, k[1], x, w, z) : z;
        for (int r = 0; r < HT; r++) {
            if (r >= nr) break;
            const hr_vf qv = hr_vload(q + (size_t)(r0 + r) * c->dp + x); /* zero padded */
            acc[r][0] = hr_vfma(qv, k0, acc[r][0]);
            acc[r][1] = hr_vfma(qv, k1, acc[r][1]);
        }
    }
    scores_store_h(c, acc, nk, r0, nr, s, j);
}

/* Scores of 3 keys (rows k[0..2]) for the 4 query rows [r0, r0 + 4), d a multiple of
 * HR_VW, f32/f16/bf16 not eo: 12 accumulators, 3 K vectors and a query vector, all 16
 * registers (the pair tile's 8 accumulators are one FMA latency's worth on two pipes:
 * no slack). The rows as pointers, the prefetch stepped once per PFXT(t) vectors. */
DECODE_INLINE void scores_tile_h3(const dctx *c, hr_dtype t, const float *q, const unsigned char *const *k,
                                  int r0, float *s, int j, pf_seq *pq)
{
    const hr_vf z = hr_vzero();
    hr_vf acc[HT][3];
    const float *qr[HT];
    for (int r = 0; r < HT; r++) {
        acc[r][0] = acc[r][1] = acc[r][2] = z;
        qr[r] = q + (size_t)(r0 + r) * c->dp;
    }
    for (int x0 = 0; x0 < c->d; x0 += PFXT(t) * HR_VW) {
        pf_step_s(pq, KV_SPAN(t));
        const int xe = c->d - x0 < PFXT(t) * HR_VW ? c->d : x0 + PFXT(t) * HR_VW;
        for (int x = x0; x < xe; x += HR_VW) {
            const hr_vf k0 = kv_vec(t, k[0], x, HR_VW, z), k1 = kv_vec(t, k[1], x, HR_VW, z),
                        k2 = kv_vec(t, k[2], x, HR_VW, z);
            for (int r = 0; r < HT; r++) {
                const hr_vf qv = hr_vload(qr[r] + x);
                acc[r][0] = hr_vfma(qv, k0, acc[r][0]);
                acc[r][1] = hr_vfma(qv, k1, acc[r][1]);
                acc[r][2] = hr_vfma(qv, k2, acc[r][2]);
            }
        }
    }
    for (int u = 0; u < 3; u++) {
        float o[4];
        hr_vreduce_add4(acc[0][u], acc[1][u], acc[2][u], acc[3][u], o);
        for (int r = 0; r < HT; r++) s[(size_t)(r0 + r) * c->kbp + j + u] = o[r];
    }
}

/* scores_kv for every type at AVX2: key triples or pairs, the prefetch stepped in the tiles. */
DECODE_INLINE void scores_kv_h(const dctx *c, hr_dtype t, const float *q, const unsigned char *k0,
                               ptrdiff_t ksn, int n, float *s, const unsigned char *pf, ptrdiff_t psn, int nv)
{
    const int per2 = (c->R + HT - 1) / HT * ((c->d + PFXT(t) * HR_VW - 1) / (PFXT(t) * HR_VW));
    const bool eo = t == HR_BF16 && decode_bf16_eo(c);
    /* f32/f16/bf16 (not eo) with whole tiles take key triples while 3 keys remain */
    const bool tri = (t == HR_F16 || t == HR_BF16 || t == HR_F32) && !eo && c->d % HR_VW == 0 && c->R % HT == 0;
    pf_seq pq = pf_rows_s(c, pf, psn, nv, (tri ? (n + 2) / 3 : (n + 1) / 2) * per2, KV_SPAN(t));
    int j = 0;
    if (tri)
        for (; j + 3 <= n; j += 3) {
            const unsigned char *k[3] = {k0 + j * ksn, k0 + (j + 1) * ksn, k0 + (j + 2) * ksn};
            for (int r0 = 0; r0 < c->R; r0 += HT) scores_tile_h3(c, t, q, k, r0, s, j, &pq);
        }
    for (; j < n; j += 2) {
        const int nk = n - j < 2 ? n - j : 2;
        const unsigned char *k[2] = {k0 + j * ksn, k0 + (j + nk - 1) * ksn};
        for (int r0 = 0; r0 < c->R; r0 += HT) {
            const int nr = c->R - r0 < HT ? c->R - r0 : HT;
            if (t == HR_Q8_0 || t == HR_Q4_0) { /* d a multiple of HR_QBLOCK */
                if (nk == 2 && nr == HT) scores_tile_q(c, t, q, k, 2, r0, HT, s, j, &pq);
                else scores_tile_q(c, t, q, k, nk, r0, nr, s, j, &pq);
            } else if (eo && nk == 2 && nr == HT) scores_tile_h(c, t, q, k, 2, r0, HT, HR_VW, s, j, &pq, 1);
            else if (eo) scores_tile_h(c, t, q, k, nk, r0, nr, HR_VW, s, j, &pq, 1);
            else if (nk == 2 && nr == HT && c->d % HR_VW == 0) scores_tile_h(c, t, q, k, 2, r0, HT, HR_VW, s, j, &pq, 0);
            else scores_tile_h(c, t, q, k, nk, r0, nr, 0, s, j, &pq, 0);
        }
    }
}

/* pv_tile for f16/bf16 at AVX2: rows [r0, r0 + nr) (nr <= HT) by nx <= xw vectors of d
 * from x (xw 2 or 3, a constant), w the width of the last; the prefetch stepped once per
 * HPF_KEYS keys. xw 3: 12 accumulators, 3 V vectors and a weight, all 16 registers,
 * rows outer so each weight is broadcast once per key. eo (bf16, decode_bf16_eo; xw and
 * nx 2, w HR_VW): the 16 values held even/odd, the accumulators split after their load
 * and merged back before their store (once per tile of a block). */
DECODE_INLINE void pv_tile_h(const dctx *c, hr_dtype t, const float *s, const unsigned char *v0, ptrdiff_t vsn,
                             int n, int x, int xw, int nx, int w, int r0, int nr, float *acc, pf_seq *pq, int eo)
{
    const hr_vf z = hr_vzero();
    hr_vf a[HT][3];
    const float *sr[HT];
    for (int r = 0; r < HT; r++) {
        sr[r] = s + (size_t)(r0 + (r < nr ? r : 0)) * c->kbp;
        for (int g = 0; g < xw; g++)
            a[r][g] = r < nr && g < nx ? hr_vload(acc + (size_t)(r0 + r) * c->dp + x + g * HR_VW) : z;
        if (eo) hr_vsplit_eo(a[r][0], a[r][1], &a[r][0], &a[r][1]);
    }
    for (int j0 = 0; j0 < n; j0 += HKT(t)) {
        pf_step_s(pq, KV_SPAN(t));
        const int je = n - j0 < HKT(t) ? n : j0 + HKT(t);
        for (int j = j0; j < je; j++) {
            const unsigned char *vr = v0 + j * vsn;
            hr_vf v[3];
            if (eo) hr_vload_bf16_eo(vr + 2 * x, &v[0], &v[1]);
            else
                for (int g = 0; g < xw; g++)
                    v[g] = g < nx ? kv_vec(t, vr, x + g * HR_VW, g == nx - 1 ? w : HR_VW, z) : z;
            for (int r = 0; r < HT; r++) {
                if (r >= nr) break;
                const hr_vf pr = hr_vset1(sr[r][j]);
                for (int g = 0; g < xw; g++) a[r][g] = hr_vfma(pr, v[g], a[r][g]);
            }
        }
    }
    for (int r = 0; r < nr; r++) {
        if (eo) hr_vmerge_eo(a[r][0], a[r][1], &a[r][0], &a[r][1]);
        for (int g = 0; g < nx; g++) hr_vstore(acc + (size_t)(r0 + r) * c->dp + x + g * HR_VW, a[r][g]);
    }
}

/* pv_kv for f16/bf16 at AVX2: vector triples of d (pairs for eo and the last four of a
 * multiple of 3 plus one), the K prefetch stepped in every tile. */
/* P·V's tile width with left vectors of d to go: 3 while more than 4 remain, then 2
 * (4 = 2 + 2, 2, 1); even/odd tiles always 2. */
static inline int pv_width(bool eo, int left) { return !eo && left > 4 ? 3 : 2; }

DECODE_INLINE void pv_kv_h(const dctx *c, hr_dtype t, const float *s, const unsigned char *v0, ptrdiff_t vsn,
                           int n, float *acc, const unsigned char *pf, ptrdiff_t psn, int n2)
{
    const int d = c->d, nvec = (d + HR_VW - 1) / HR_VW;
    const bool eo = t == HR_BF16 && decode_bf16_eo(c); /* nvec even: every nx is 2 */
    int ntile = 0;
    for (int x0 = 0; x0 < nvec; ntile++) x0 += pv_width(eo, nvec - x0);
    const int tiles = ntile * ((c->R + HT - 1) / HT);
    pf_seq pq = pf_rows_s(c, pf, psn, n2, tiles * ((n + HKT(t) - 1) / HKT(t)), KV_SPAN(t));
    for (int x0 = 0; x0 < nvec;) {
        const int xw = pv_width(eo, nvec - x0);
        const int nx = nvec - x0 < xw ? nvec - x0 : xw, x = x0 * HR_VW;
        const int w = x + nx * HR_VW > d ? d - (x + (nx - 1) * HR_VW) : HR_VW;
        for (int r0 = 0; r0 < c->R; r0 += HT) {
            const int nr = c->R - r0 < HT ? c->R - r0 : HT;
            if (eo && nr == HT) pv_tile_h(c, t, s, v0, vsn, n, x, 2, 2, HR_VW, r0, HT, acc, &pq, 1);
            else if (eo) pv_tile_h(c, t, s, v0, vsn, n, x, 2, 2, HR_VW, r0, nr, acc, &pq, 1);
            else if (xw == 3 && nr == HT) pv_tile_h(c, t, s, v0, vsn, n, x, 3, 3, HR_VW, r0, HT, acc, &pq, 0);
            else if (nx == 2 && w == HR_VW && nr == HT) pv_tile_h(c, t, s, v0, vsn, n, x, 2, 2, HR_VW, r0, HT, acc, &pq, 0);
            else if (xw == 3) pv_tile_h(c, t, s, v0, vsn, n, x, 3, nx, w, r0, nr, acc, &pq, 0);
            else pv_tile_h(c, t, s, v0, vsn, n, x, 2, nx, w, r0, nr, acc, &pq, 0);
        }
        x0 += xw;
    }
}

#endif

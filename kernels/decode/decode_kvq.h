/* decode_kvq.h — q8_0/q4_0 on decode_kv.c's conversion path at the avx2 level: 4-row tiles a q block at a time, V's block scales folded into P (included by decode_kv.c only). */
/*
 * scores_tile_h walks d a vector at a time and finds each vector's block (x / 32, its
 * scale's reload) in the loop: ~45 instructions per 8 FMAs, the q rows' pointers spilled
 * to the stack. Here a tile walks d a q block at a time: the two keys' scales loaded
 * once, the block's HR_QBLOCK / HR_VW vectors unrolled at constant offsets from the
 * block and the q rows. Each vector is converted once (vec.h's exact q8_0/q4_0 loads,
 * the scale applied per vector: folding it into per-block partial sums would take 8
 * more accumulators and as many multiplies at R = 4) and used by the tile's 4 rows.
 * Key triples as decode_kvh.h's (12 accumulators, the 3 scales as the vmulps' memory
 * operands, GCC spilling two accumulators) did not pay: the conversions' 3 ops per
 * vector, not the FMAs' latency, bind this tile (perf-log 0237).
 */
#ifndef HR_DECODE_KVQ_H
#define HR_DECODE_KVQ_H

/* HR_VW values [i, i + HR_VW) of the block at blk, sc its scale broadcast. */
DECODE_INLINE hr_vf kvq_vec(hr_dtype t, const unsigned char *blk, int i, hr_vf sc)
{
    return t == HR_Q8_0 ? hr_vload_q8_0(blk, i, sc) : hr_vload_q4_0(blk, i, sc);
}

/* scores_tile_h for q8_0/q4_0 (d a multiple of HR_QBLOCK): nk <= 2 keys (k[1] = k[0]
 * when nk is 1), rows [r0, r0 + nr), nr <= HT; the prefetch stepped once per block
 * (HR_QBLOCK = PF_X HR_VW: the count scores_kv_h hands pf_rows). */
DECODE_INLINE void scores_tile_q(const dctx *c, hr_dtype t, const float *q, const unsigned char *const *k,
                                 int nk, int r0, int nr, float *s, int j, pf_seq *pq)
{
    const hr_vf z = hr_vzero();
    const size_t bb = kv_block_bytes(t);
    hr_vf acc[HT][2];
    const float *qr[HT];
    for (int r = 0; r < HT; r++) {
        acc[r][0] = acc[r][1] = z;
        qr[r] = q + (size_t)(r0 + (r < nr ? r : 0)) * c->dp;
    }
    const unsigned char *b0 = k[0], *b1 = k[1];
    for (int x = 0; x < c->d; x += HR_QBLOCK, b0 += bb, b1 += bb) {
        pf_step(pq);
        const hr_vf s0 = hr_vset1_f16(b0), s1 = nk > 1 ? hr_vset1_f16(b1) : z;
        for (int i = 0; i < HR_QBLOCK; i += HR_VW) {
            const hr_vf k0 = kvq_vec(t, b0, i, s0), k1 = nk > 1 ? kvq_vec(t, b1, i, s1) : z;
            for (int r = 0; r < HT; r++) {
                if (r >= nr) break;
                const hr_vf qv = hr_vload(qr[r] + x + i);
                acc[r][0] = hr_vfma(qv, k0, acc[r][0]);
                acc[r][1] = hr_vfma(qv, k1, acc[r][1]);
            }
        }
    }
    scores_store_h(c, acc, nk, r0, nr, s, j);
}

/* P·V with the V block scales folded into P: ps[r][jj] = p[r][j0 + jj] times the scale
 * of V row j0 + jj's block, built per q block, row tile and chunk of KVQ_CH keys (8
 * scales a vcvtph2ps, a multiply per row and 8 keys), then the block's vector pairs
 * accumulate ps times the unscaled integer values: the two vmulps and the scale's
 * broadcast per key and vector pair that pv_tile_h takes are gone. One rounding moves
 * (p sc rounded where V's v sc was): the same size, within the oracle's fp32 terms. */
#define KVQ_CH 64

/* ps[r][jj] for rows [r0, r0 + nr) and keys [j0, j0 + m) of s, vb the first row's
 * block (stride vsn). Lanes past m take scale 0 (no V row read past the block's). */
DECODE_INLINE void kvq_scale_p(const dctx *c, const float *s, const unsigned char *vb, ptrdiff_t vsn, int j0,
                               int m, int r0, int nr, float ps[HT][KVQ_CH])
{
    for (int jj = 0; jj < m; jj += HR_VW) {
        uint16_t h[HR_VW] = {0};
        const int w = m - jj < HR_VW ? m - jj : HR_VW;
        if (w == HR_VW) /* whole: no test per lane (that made gcc merge the lanes through the stack) */
            for (int l = 0; l < HR_VW; l++) memcpy(&h[l], vb + (jj + l) * vsn, 2);
        else
            for (int l = 0; l < w; l++) memcpy(&h[l], vb + (jj + l) * vsn, 2);
        const hr_vf sc = hr_vload_f16(h);
        for (int r = 0; r < HT; r++) {
            if (r >= nr) break;
            /* kbp is a multiple of HR_VW: a vector from j0 + jj < n stays in the row */
            const float *sr = s + (size_t)(r0 + r) * c->kbp + j0 + jj;
            hr_vstore(ps[r] + jj, hr_vmul(hr_vload(sr), sc));
        }
    }
}

/* For g 0 and 1: the HR_VW accumulators at acc[r0 + r] + x + g gap += sum_j ps[r][j]
 * times values i + g gap on of V_j's block (at vb + j vsn, unscaled), keys [0, m); the
 * prefetch stepped per HPF_KEYS. */
DECODE_INLINE void pv_tile_q(const dctx *c, hr_dtype t, float ps[HT][KVQ_CH], const unsigned char *vb,
                             ptrdiff_t vsn, int m, int x, int i, int gap, int r0, int nr, float *acc, pf_seq *pq)
{
    const hr_vf one = hr_vset1(1.0f); /* x 1 is exact: the loads' multiply folds away */
    hr_vf a[HT][2];
    for (int r = 0; r < HT; r++)
        for (int g = 0; g < 2; g++)
            a[r][g] = r < nr ? hr_vload(acc + (size_t)(r0 + r) * c->dp + x + g * gap) : hr_vzero();
    for (int j0 = 0; j0 < m; j0 += HPF_KEYS) {
        pf_step(pq);
        const int je = m - j0 < HPF_KEYS ? m : j0 + HPF_KEYS;
        for (int j = j0; j < je; j++) {
            const unsigned char *vr = vb + j * vsn;
            const hr_vf va = kvq_vec(t, vr, i, one), vv = kvq_vec(t, vr, i + gap, one);
            for (int r = 0; r < HT; r++) {
                if (r >= nr) break;
                const hr_vf pr = hr_vset1(ps[r][j]);
                a[r][0] = hr_vfma(pr, va, a[r][0]);
                a[r][1] = hr_vfma(pr, vv, a[r][1]);
            }
        }
    }
    for (int r = 0; r < nr; r++)
        for (int g = 0; g < 2; g++) hr_vstore(acc + (size_t)(r0 + r) * c->dp + x + g * gap, a[r][g]);
}

/* pv_kv_h for q8_0/q4_0: per q block, row tile and chunk of keys, the scaled weights,
 * then the block's vector pairs; the K prefetch stepped as pv_kv_h's (chunks are whole
 * multiples of HPF_KEYS, so the same count). */
DECODE_INLINE void pv_kv_q(const dctx *c, hr_dtype t, const float *s, const unsigned char *v0, ptrdiff_t vsn,
                           int n, float *acc, const unsigned char *pf, ptrdiff_t psn, int n2)
{
    const int nb = c->d / HR_QBLOCK, tiles = nb * (HR_QBLOCK / (2 * HR_VW)) * ((c->R + HT - 1) / HT);
    const size_t bb = kv_block_bytes(t);
    pf_seq pq = pf_rows(c, pf, psn, n2, tiles * ((n + HPF_KEYS - 1) / HPF_KEYS));
    float ps[HT][KVQ_CH];
    for (int b = 0; b < nb; b++)
        for (int r0 = 0; r0 < c->R; r0 += HT) {
            const int nr = c->R - r0 < HT ? c->R - r0 : HT;
            for (int j0 = 0; j0 < n; j0 += KVQ_CH) {
                const int m = n - j0 < KVQ_CH ? n - j0 : KVQ_CH;
                const unsigned char *vb = v0 + j0 * vsn + b * bb;
                if (nr == HT) kvq_scale_p(c, s, vb, vsn, j0, m, r0, HT, ps);
                else kvq_scale_p(c, s, vb, vsn, j0, m, r0, nr, ps);
                /* q4_0 pairs values i and i + 16 (one 8 bytes' low and high nibbles: one
                 * vpmovzxbd per key for both: perf-log 0237), q8_0
                 * i and i + 8 */
                const int q4 = t == HR_Q4_0, gap = q4 ? HR_QBLOCK / 2 : HR_VW;
                for (int v = 0; v < HR_QBLOCK / (2 * HR_VW); v++) {
                    const int i = q4 ? v * HR_VW : 2 * v * HR_VW;
                    if (nr == HT) pv_tile_q(c, t, ps, vb, vsn, m, b * HR_QBLOCK + i, i, gap, r0, HT, acc, &pq);
                    else pv_tile_q(c, t, ps, vb, vsn, m, b * HR_QBLOCK + i, i, gap, r0, nr, acc, &pq);
                }
            }
        }
}

#endif

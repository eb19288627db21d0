/* decode_kvq.h — q8_0/q4_0 scores in 4-row tiles a block at a time at the avx2 level (decode_kv.c's conversion path; included by it only). */
/*
 * scores_tile_h walks d a vector at a time and finds each vector's block (x / 32, its
 * scale's reload) in the loop: ~45 instructions per 8 FMAs, the q rows' pointers spilled
 * to the stack. Here a tile walks d a q block at a time: the two keys' scales loaded
 * once, the block's HR_QBLOCK / HR_VW vectors unrolled at constant offsets from the
 * block and the q rows. Each vector is converted once (vec.h's exact q8_0/q4_0 loads,
 * the scale applied per vector: folding it into per-block partial sums would take 8
 * more accumulators and as many multiplies at R = 4) and used by the tile's 4 rows.
 */
#ifndef HR_DECODE_KVQ_H
#define HR_DECODE_KVQ_H

/* Bytes of one q8_0 / q4_0 block: its fp16 scale, then the quants. */
DECODE_INLINE size_t kvq_block_bytes(hr_dtype t) { return t == HR_Q8_0 ? 2 + HR_QBLOCK : 2 + HR_QBLOCK / 2; }

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
    const size_t bb = kvq_block_bytes(t);
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

#endif

/* decode_bf16.c — flash-decoding's block step for a bf16 cache on AVX512-BF16: scores by vdpbf16ps on Q in bf16 (fp32 FMAs on K read even/odd for an exact Q), P·V by vdpbf16ps on key pairs with P rounded to bf16. */
/*
 * decode.c's walks with this block step where the cache is bf16, d a multiple of 32 and
 * the CPU has AVX512-BF16 (an avx512 build; vec_bf16.h checks at run time).
 * HEADROOM_DECODE_PATH=convert takes decode_kv.c's conversion path instead (tests, A/B),
 * and so does an Intel CPU by default (its vdpbf16ps at half its FMAs' rate:
 * decode_path.c's row bf16dot); HEADROOM_DECODE_PATH=bf16dot takes this step wherever it
 * can run.
 *
 *   scores  4 query rows x 4 keys of fp32 FMAs, as decode_kv.c's tile, but each 64-byte
 *           load of a K row gives 32 values as two fp32 vectors, even and odd (vec_eo.h:
 *           vpslld, vpandd), the query rows stored in that order (attend_init): 2 ops per
 *           32 values where vpmovzxwd + vpslld take 4. The products are of the values
 *           given, exactly as on the conversion path (fp32 logits, fp32 sums).
 *   P·V     vdpbf16ps adds to each fp32 lane a pair of bf16 products: keys j, j+1 of one
 *           d index. Two V rows' 32 values interleave by vpunpcklwd / vpunpckhwd (lane
 *           4l + i of the low one is d 8l + i, of the high one d 8l + 4 + i), each row's
 *           pair (P_j, P_j+1) is one broadcast dword, and the accumulators are permuted
 *           into that order when a tile loads them and back when it stores them (once per
 *           block of 256 keys). A tile is 4 rows x 64 values of d: 16 accumulators.
 *   P       the block's weights rounded to bf16 (vcvtne2ps2bf16, nearest even) after the
 *           softmax; l sums the unrounded ones.
 *   bf16 Q  (dtype bf16, c->bfq) the query rows kept in bf16 as given, unscaled: the
 *           scores by vdpbf16ps too (scores_tile_q), one per 32 values of a row and key
 *           on K as stored, where the fp32 rows take two FMAs and the even/odd split; the
 *           block's sums times the scale (log2 e included) afterwards, one vmulps per 16
 *           scores and row. Per key and KV head 16 vdpbf16ps for the scores where an fp32
 *           Q takes 32 FMAs + 8 split ops; both tiles' sums by one tree (tile_sums).
 *           It is faster than an fp32 Q in cache and from memory (perf-log 0229).
 *  Q as bf16 (an f32 or f16 Q, unless HEADROOM_DECODE_Q=exact: hr_decode_bf16_q) the rows
 *           rounded to bf16 (nearest even) by attend_init, unscaled, and scored as a bf16
 *           Q's, as llama.cpp rounds Q to the type of K's dot product (ggml's vec_dot_type).
 *           The oracle holds it to the output of the rounded Q (oracle.c's query term: the
 *           path names "Q as bf16"). Faster than HEADROOM_DECODE_Q=exact by a sixth or
 *           so (perf-log 0229).
 *
 * Budget per key and KV head at H32/8 d128 (R = 4 rows), zmm ops, against the conversion
 * path's: scores 32 FMAs + 8 conversion ops (16 on the conversion path); P·V 16
 * vdpbf16ps + 4 shuffles + 2 broadcasts (32 FMAs + 16 conversion ops there). ~62 FP-pipe
 * ops where the conversion path takes ~96: at one thread the step does not hide
 * under the stream, so fewer ops per byte read paid here (how a core's loads, prefetches
 * and FMAs interleave: scripts/read-with-fmas.c).
 *
 * Against the conversion path the step is about a fifth faster in cache and from memory,
 * and 256-key blocks are as good as any (perf-log 0229). An AMX version of this step
 * (S^T = K Q^T on tiles, K tile-loaded as stored) was correct but slower than the
 * conversion path from L3: its time sat on the K tile loads and tdpbf16ps chains, not
 * the tile work (perf-log 0230).
 *
 * Accuracy: the scores are the conversion path's (fp32 FMAs on exact values; a bf16 Q's
 * products exact too, summed in fp32 by vdpbf16ps, then one rounding by the scale). P·V's
 * products are exact and summed in fp32, the one extra rounding P to bf16, which the
 * oracle's P·V term allows for a bf16 cache (oracle.c, hr_tol_pv: 2u Σ P |V| with u 2^-8).
 * vdpbf16ps flushes denormal weights (below 2^-126 of the row's largest) to zero.
 */
#include <stdlib.h>
#include <string.h>

#include "decode_block.h"
#include "vec_bf16.h"
#include "vec_eo.h"

/* bf16 weights per row of P: the block's keys padded to 32. */
static inline size_t pb_stride(const dctx *c) { return ((size_t)c->kbp + 31) & ~(size_t)31; }

#if !defined(HR_DECODE_PF_COPY) /* the L1 copy (decode_bf16_l1.o): the block step alone */
size_t hr_decode_bf16_sf(const dctx *c) { return round16((size_t)c->R * pb_stride(c) / 2); }

/* HEADROOM_DECODE_Q=exact: the scores from Q's values as given (a bf16 cache's fp32 FMA
 * scores, decode_bf16.c); unset or auto: Q rounded to K's type where a dot product
 * instruction takes it, as llama.cpp does. */
int hr_decode_q_env(void) /* 1 exact, 0 auto or unset, -1 anything else */
{
    const char *e = getenv("HEADROOM_DECODE_Q");
    return !e || !*e || !strcmp(e, "auto") ? 0 : !strcmp(e, "exact") ? 1 : -1;
}
#endif

#if defined(HR_HAVE_BF16DOT)

#define BRT 4 /* query rows per tile */

#if !defined(HR_DECODE_PF_COPY)
/* Where this level and CPU have vdpbf16ps (decode_path.c's row bf16dot chooses it only where
 * the CPU runs it at its FMAs' rate: AMD's Zen 4 and Zen 5, not an Intel core, whose zmm
 * vdpbf16ps runs at half that: there the 32 vdpbf16ps per key and KV head (H32/8 d128) take
 * 64 cycles where the conversion path's 64 FMAs take 32, and the conversion path is faster
 * (perf-log 0230)). */
const char *hr_decode_bf16_why_not(void)
{
    static int cpu = -1; /* a benign race: every thread stores the same value */
    if (cpu < 0) cpu = hr_cpu_bf16();
    return cpu ? NULL : "this build level or CPU has no AVX512-BF16 (vdpbf16ps)";
}

int hr_decode_bf16_q(hr_dtype qt) { return qt == HR_BF16 || hr_decode_q_env() != 1; }

const char *hr_decode_bf16_path(const hr_problem *p)
{
    if (p->dtype == HR_BF16) return HR_VEC_ISA " bf16 Q and K, scores and P·V vdpbf16ps (P in bf16)";
    return hr_decode_bf16_q(p->dtype)
               ? HR_VEC_ISA " bf16 K, Q as bf16 (nearest even), scores and P·V vdpbf16ps (P in bf16)"
               : HR_VEC_ISA " bf16 even/odd in registers, fp32 FMA scores, P·V vdpbf16ps (P in bf16)";
}
#endif

/* A score tile's sums into s (row stride kbp, keys from j): a whole 4 x 4 tile by one
 * tree (hr_vreduce_add16; four hr_vreduce_add4 took ~20 uops per key, as many as a bf16
 * Q's dot products), faster here; in decode_kv.c's tile the same tree was even
 * (perf-log 0229, 0213). */
HR_BF16_INLINE void tile_sums(const dctx *c, hr_vf acc[BRT][4], int nk, int r0, int nr, float *s, int j)
{
    if (nk == 4 && nr == BRT) {
        hr_vreduce_add16(&acc[0][0], s + (size_t)r0 * c->kbp + j, (size_t)c->kbp);
        return;
    }
    for (int r = 0; r < nr; r++) {
        float *sr = s + (size_t)(r0 + r) * c->kbp + j;
        if (nk == 4) hr_vreduce_add4(acc[r][0], acc[r][1], acc[r][2], acc[r][3], sr);
        else
            for (int u = 0; u < nk; u++) sr[u] = hr_vreduce_add(acc[r][u]);
    }
}

/* Scores of nk <= 4 keys (rows k[u]; k[u] = k[0] past nk) for query rows [r0, r0 + nr),
 * nr <= BRT; q in even/odd order, d a multiple of 32. */
HR_BF16_INLINE void scores_tile(const dctx *c, const float *q, const unsigned char *const *k, int nk, int r0,
                                int nr, float *s, int j, pf_seq *pq)
{
    hr_vf acc[BRT][4];
    for (int r = 0; r < BRT; r++)
        for (int u = 0; u < 4; u++) acc[r][u] = hr_vzero();
    for (int x = 0; x < c->d; x += 2 * HR_VW) {
        pf_step(pq);
        hr_vf e[4], o[4];
        for (int u = 0; u < 4; u++) hr_vload_bf16_eo(k[u] + 2 * x, &e[u], &o[u]);
        for (int r = 0; r < BRT; r++) {
            if (r >= nr) break;
            const float *qr = q + (size_t)(r0 + r) * c->dp + x;
            hr_vf qe = hr_vload(qr), qo = hr_vload(qr + HR_VW);
            /* In registers: folded into each FMA, a q vector was loaded once per key (a
             * load per FMA, the scores' bound at one load of 64 bytes a cycle). */
            __asm__("" : "+v"(qe), "+v"(qo));
            for (int u = 0; u < 4; u++) acc[r][u] = hr_vfma(qe, e[u], acc[r][u]);
            for (int u = 0; u < 4; u++) acc[r][u] = hr_vfma(qo, o[u], acc[r][u]);
        }
    }
    tile_sums(c, acc, nk, r0, nr, s, j);
}

/* As scores_tile for bf16 query rows (bfq), kept as given in d order, dp bf16 values
 * apart: one vdpbf16ps per 32 values of a row and key, where the fp32 rows take two
 * FMAs and K's even/odd split. The sums are of exact products in fp32; scores() scales
 * them. */
HR_BF16_INLINE void scores_tile_q(const dctx *c, const uint16_t *q, const unsigned char *const *k, int nk, int r0,
                                  int nr, float *s, int j, pf_seq *pq)
{
    hr_vf acc[BRT][4];
    for (int r = 0; r < BRT; r++)
        for (int u = 0; u < 4; u++) acc[r][u] = hr_vzero();
    for (int x = 0; x < c->d; x += 2 * HR_VW) {
        pf_step(pq);
        hr_vbf kx[4];
        for (int u = 0; u < 4; u++) kx[u] = hr_vbf_load(k[u] + 2 * x);
        for (int r = 0; r < BRT; r++) {
            if (r >= nr) break;
            hr_vbf qr = hr_vbf_load(q + (size_t)(r0 + r) * c->dp + x);
            __asm__("" : "+v"(qr)); /* in a register across the 4 keys, as scores_tile's */
            for (int u = 0; u < 4; u++) acc[r][u] = hr_vdot_bf16(acc[r][u], qr, kx[u]);
        }
    }
    tile_sums(c, acc, nk, r0, nr, s, j);
}

/* scores_tile_q over the whole 4 x 4 tiles of keys [0, n / 4 * 4) (R a multiple of BRT),
 * the 16 sums by hr_vsum16's tree with levels 2-4 of a tile's sums run beside the next
 * tile's k steps (decode_kv.c's scores_kv_p: there the tile's end cost f16 ~4 cycles a
 * key); pq stepped every k step of every tile. Returns the keys scored. Faster in cache,
 * the same where memory-bound (perf-log 0229). */
HR_BF16_INLINE int scores_q_p(const dctx *c, const uint16_t *q, const unsigned char *k0, ptrdiff_t ksn, int n,
                              float *s, pf_seq *pq)
{
    const int nst = c->d / (2 * HR_VW), n4 = n / 4 * 4;
    const size_t kbp = (size_t)c->kbp, dp = (size_t)c->dp;
    hr_vf w[8] = {hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero()};
    float *pend = NULL;
    for (int j = 0; j < n4; j += 4) {
        const unsigned char *kp = k0 + (ptrdiff_t)j * ksn;
        for (int r0 = 0; r0 < c->R; r0 += BRT) {
            hr_vf acc[BRT * 4];
            for (int i = 0; i < BRT * 4; i++) acc[i] = hr_vzero();
            /* a k step (32 values of d); a local macro, as decode_kv.c's SP_STEP */
#define SQ_STEP(st)                                                                         \
    do {                                                                                    \
        const int x = (st) * 2 * HR_VW;                                                     \
        pf_step(pq);                                                                        \
        hr_vbf kx[4];                                                                       \
        for (int u = 0; u < 4; u++) kx[u] = hr_vbf_load(kp + u * ksn + 2 * x);              \
        for (int r = 0; r < BRT; r++) {                                                     \
            hr_vbf qr = hr_vbf_load(q + (size_t)(r0 + r) * dp + x);                         \
            __asm__("" : "+v"(qr));                                                         \
            for (int u = 0; u < 4; u++) acc[4 * r + u] = hr_vdot_bf16(acc[4 * r + u], qr, kx[u]); \
        }                                                                                   \
    } while (0)
#pragma GCC unroll 7
            for (int st = 0; st < 7; st++) {
                if (st < nst) SQ_STEP(st);
                if (pend) hr_vsum16_step(w, st, pend, kbp);
            }
            for (int st = 7; st < nst; st++) SQ_STEP(st);
#undef SQ_STEP
            hr_vsum16_start(acc, w);
            pend = s + (size_t)r0 * kbp + j;
        }
    }
    if (pend)
        for (int k = 0; k < 7; k++) hr_vsum16_step(w, k, pend, kbp);
    return n4;
}

/* Scores of keys [0, n) of the rows k0 + j * ksn, the rows [0, nv) of pf prefetched a
 * few lines per k step (32 values of d) of every row tile meanwhile, as decode_kv.c's
 * scores_kv (the tail and fp32-Q tiles too, every k step), not once per 4 keys (16
 * lines at once, slower: perf-log 0229). With
 * bfq, the block's sums times the scale (log2 e included) afterwards: a vector op per
 * 16 scores and row, where scaling in the tiles took one per 4. */
HR_BF16_INLINE void scores(const dctx *c, const float *q, const unsigned char *k0, ptrdiff_t ksn, int n, float *s,
                           const unsigned char *pf, ptrdiff_t psn, int nv)
{
    pf_seq pq = pf_rows(c, pf, psn, nv, (n + 3) / 4 * pf_tile_steps(c, BRT, 2 * HR_VW));
    const int j0 = c->bfq && c->R % BRT == 0 ? scores_q_p(c, (const uint16_t *)q, k0, ksn, n, s, &pq) : 0;
    for (int j = j0; j < n; j += 4) {
        const int nk = n - j < 4 ? n - j : 4;
        const unsigned char *k[4];
        for (int u = 0; u < 4; u++) k[u] = k0 + (j + (u < nk ? u : 0)) * ksn;
        for (int r0 = 0; r0 < c->R; r0 += BRT) {
            const int nr = c->R - r0 < BRT ? c->R - r0 : BRT;
            if (c->bfq) {
                const uint16_t *qb = (const uint16_t *)q;
                if (nk == 4 && nr == BRT) scores_tile_q(c, qb, k, 4, r0, BRT, s, j, &pq);
                else scores_tile_q(c, qb, k, nk, r0, nr, s, j, &pq);
            } else if (nk == 4 && nr == BRT) scores_tile(c, q, k, 4, r0, BRT, s, j, &pq); /* constants: registers */
            else scores_tile(c, q, k, nk, r0, nr, s, j, &pq);
        }
    }
    if (c->bfq) {
        const hr_vf sc = hr_vset1(c->scale);
        for (int r = 0; r < c->R; r++)
            for (int j = 0; j < n; j += HR_VW) { /* past n: the row's padding to kbp */
                float *sr = s + (size_t)r * c->kbp + j;
                hr_vstore(sr, hr_vmul(hr_vload(sr), sc));
            }
    }
}

/* The weights of row sr's keys [0, n) rounded to bf16 into pb, zero from n to the next
 * multiple of 32 (an odd n's last pair weighs its missing key 0). */
HR_BF16_INLINE void weights_bf16(const float *sr, uint16_t *pb, int n)
{
    for (int j = 0; j < n; j += 2 * HR_VW) hr_vstore_bf16x2_n(pb + j, sr + j, n - j);
}

/* One key pair's step of pv_tile: rows v1 and v2 (NULL: zeros) interleaved, each row's
 * pair of weights at pb (row stride ps) broadcast. */
HR_BF16_INLINE void pv_pair(hr_vf a[][4], const uint16_t *pb, size_t ps, const unsigned char *v1,
                            const unsigned char *v2, int x, int nc, int r0, int nr)
{
    hr_vbf w[4];
    for (int h = 0; h < 2; h++) {
        if (h >= nc) break;
        const hr_vbf x1 = hr_vbf_load(v1 + 2 * (x + 32 * h));
        const hr_vbf x2 = v2 ? hr_vbf_load(v2 + 2 * (x + 32 * h)) : hr_vbf_zero();
        hr_vbf_interleave(x1, x2, &w[2 * h], &w[2 * h + 1]);
    }
    for (int r = 0; r < BRT; r++) {
        if (r >= nr) break;
        const hr_vbf pr = hr_vbf_pair1(pb + (size_t)(r0 + r) * ps);
        for (int i = 0; i < 2 * nc; i++) a[r][i] = hr_vdot_bf16(a[r][i], pr, w[i]);
    }
}

/* acc[r][x .. x + 32 nc) += sum_j P[r][j] V_j for rows [r0, r0 + nr), nc <= 2 chunks of
 * 32 values, keys [0, n) of the rows v0 + j * vsn by pairs; pq stepped once a pair. */
HR_BF16_INLINE void pv_tile(const dctx *c, const uint16_t *pb, const unsigned char *v0, ptrdiff_t vsn, int n,
                            int x, int nc, int r0, int nr, float *acc, pf_seq *pq)
{
    const size_t ps = pb_stride(c);
    hr_vf a[BRT][4];
    for (int r = 0; r < BRT; r++)
        for (int h = 0; h < 2; h++) {
            if (r >= nr || h >= nc) {
                a[r][2 * h] = a[r][2 * h + 1] = hr_vzero();
                continue;
            }
            const float *ar = acc + (size_t)(r0 + r) * c->dp + x + 32 * h;
            hr_vbf_to_pair_order(hr_vload(ar), hr_vload(ar + HR_VW), &a[r][2 * h], &a[r][2 * h + 1]);
        }
    const unsigned char *v1 = v0;
    int j = 0;
    for (; j + 1 < n; j += 2, v1 += 2 * vsn) {
        if (pq) pf_step(pq);
        pv_pair(a, pb + j, ps, v1, v1 + vsn, x, nc, r0, nr);
    }
    if (j < n) { /* an odd n's last key, paired with a weight of 0 and a zero row */
        if (pq) pf_step(pq);
        pv_pair(a, pb + j, ps, v1, NULL, x, nc, r0, nr);
    }
    for (int r = 0; r < nr; r++)
        for (int h = 0; h < nc; h++) {
            float *ar = acc + (size_t)(r0 + r) * c->dp + x + 32 * h;
            hr_vf A, B;
            hr_vbf_from_pair_order(a[r][2 * h], a[r][2 * h + 1], &A, &B);
            hr_vstore(ar, A);
            hr_vstore(ar + HR_VW, B);
        }
}

/* P·V of keys [0, n) into acc, the rows [0, n2) of pf prefetched meanwhile (stepped in
 * the first row tile, once per key pair). */
HR_BF16_INLINE void pv(const dctx *c, const uint16_t *pb, const unsigned char *v0, ptrdiff_t vsn, int n, float *acc,
                       const unsigned char *pf, ptrdiff_t psn, int n2)
{
    const int passes = (c->d + 63) / 64;
    pf_seq pq = pf_rows(c, pf, psn, n2, passes * ((n + 1) / 2));
    for (int x = 0; x < c->d; x += 64) {
        const int nc = c->d - x >= 64 ? 2 : 1;
        for (int r0 = 0; r0 < c->R; r0 += BRT) {
            const int nr = c->R - r0 < BRT ? c->R - r0 : BRT;
            pf_seq *pp = r0 == 0 ? &pq : NULL;
            if (nc == 2 && nr == BRT) pv_tile(c, pb, v0, vsn, n, x, 2, r0, BRT, acc, pp);
            else pv_tile(c, pb, v0, vsn, n, x, nc, r0, nr, acc, pp);
        }
    }
}

HR_BF16_TARGET void hr_decode_block_bf16(const dctx *c, int b, int g, int jb, int n, const int *end,
                                         const float *q, float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k)
{
    const unsigned char *k0 = hr_xcrow(c->k, b, g, 0), *v0 = hr_xcrow(c->v, b, g, 0);
    scores(c, q, k0 + jb * c->k.sn, c->k.sn, n, s, v0 + (ptrdiff_t)jpf_v * c->v.sn, c->v.sn, nv);
    block_softmax_rows(c, 0, g, jb, n, end, s, st); /* log2 units: q (bfq: scores()'s scale) carries log2 e */
    uint16_t *pb = (uint16_t *)(s + round16((size_t)c->R * c->kbp));
    for (int r = 0; r < c->R; r++) weights_bf16(s + (size_t)r * c->kbp, pb + (size_t)r * pb_stride(c), n);
    pv(c, pb, v0 + jb * c->v.sn, c->v.sn, n, st.acc, k0 + (ptrdiff_t)jpf_k * c->k.sn, c->k.sn, n2);
}

#elif !defined(HR_DECODE_PF_COPY) /* no AVX512-BF16 code at this build level: decode_kv.c's conversion path */

const char *hr_decode_bf16_why_not(void) { return "this build level or CPU has no AVX512-BF16 (vdpbf16ps)"; }

int hr_decode_bf16_q(hr_dtype qt)
{
    (void)qt;
    return 0;
}

const char *hr_decode_bf16_path(const hr_problem *p)
{
    (void)p;
    return HR_VEC_ISA;
}

#endif

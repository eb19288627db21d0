/* decode_kv.c — flash-decoding's block step for every stored K/V type (f32, f16, bf16, q8_0, q4_0): register tiles, K and V rows converted in registers, scored and summed in fp32. */
/*
 * The walks, splits and merges are decode.c's; this file is its block step
 * (attend_block), compiled once per stored type so each conversion is inlined:
 *
 *   K rows -> RT query rows x 4 keys of fp32 FMAs (each K vector converted once, used by
 *             RT rows) -> scores; online softmax (decode_block.h)
 *   V rows -> RT rows x XG vectors of d (each V vector converted once per row tile)
 *             -> P·V into the fp32 accumulators
 *
 * Every type at the avx2 level takes tiles of 4 rows (scores_kv_h, pv_kv_h below): AVX2's
 * RT = 2 converted each K and V vector twice at R = 4, and its step did not hide under
 * the stream; f32, f16 and bf16 (not even/odd) score key triples and sum P·V
 * in vector triples (12 accumulators). q8_0/q4_0 on this path at avx2 (q8_0 on AVX2
 * CPUs without VNNI, q4_0 too where no int8 step runs) take 4-row tiles too (decode_kvq.h): scores a q block at a time, P·V
 * with V's block scales folded into P. bf16 there, d a multiple of 16, reads 16 values
 * a load split even/odd (vec_eo.h: vpslld + vpand, no port 5 shuffle), the query rows
 * stored in that order (attend_init) and P·V's accumulators split per tile.
 * f16 and bf16 step a 256-key block as two of 128 keys (block_kv_sub: V's block stays
 * in L1).
 *
 * f32 takes it too: the former per-row fp32 step reloaded K for every query row of the
 * group and reduced a row's four keys alone, and was slower (perf-log 0212). The
 * conversions are vec.h's "reduced-precision loads": exact, so the kernel sees the very
 * values hr_dtype_load_row gives the oracle, and its own error is fp32 accumulation only
 * (tests/test_decode_kv.c).
 *
 * Budget per key and KV head at H32/8 d128, Nq 1 (R = 4 query rows per KV head),
 * AVX-512 on a core with one zmm FMA per cycle (two 256-bit FMA pipes):
 *   bytes read    K + V: f32 1024, f16/bf16 512, q8_0 272, q4_0 144
 *   FMAs          scores R*d + P·V R*d = 1024 multiply-adds = 64 zmm FMAs
 *   conversion    2 rows of d/16 = 8 vectors each: f16 vcvtph2ps; bf16 vpmovzxwd +
 *                 vpslld; q8_0 vpmovsxbd + vcvtdq2ps + vmulps; q4_0 vpmovzxbd + vpand or
 *                 vpsrld + vpsubd + vcvtdq2ps + vmulps. The 16 vmulps of the block types
 *                 share the FMA pipes: 80 FMA-pipe cycles per key against 64.
 *   softmax       R exps per key, amortized over the block
 * At the avx2 level (8 lanes, two 256-bit FMA pipes) the same 1024 multiply-adds are 128
 * ymm FMAs; q8_0 there (decode_kvq.h) adds per key 16 K vectors of vpmovsxbd (port 5)
 * + vcvtdq2ps + vmulps, 16 V vectors of vpmovsxbd + vcvtdq2ps (the scale folded into P:
 * a vcvtph2ps per 8 keys and block, a vmulps per 8 keys, block and 4 rows): ~178 FMA-pipe
 * ops, 1.39x the FMAs (q4_0: + a vpand or vpsrld and a vpsubd per K and V vector, V's
 * low and high nibbles from one vpmovzxbd), where
 * the 2-row tiles took ~256 (each vector converted and scaled twice).
 * The compute roof is therefore the FMA ceiling over 2048 FLOPs per key and KV head
 * (f32, f16, bf16) or over 2560 FMA-pipe FLOPs (q8_0, q4_0). With the cache in L2, P·V
 * runs at the roof and the scores above it; every type is compute-bound on one core
 * below ~35 GB/s of triad (perf-log 0213).
 *
 * Prefetch: V rows of the next block during the scores and K rows of the block after
 * next during P·V, every line of a row in address order (the rows of a head are
 * contiguous in BHND), a few lines per step (pf_step: a running remainder; with two
 * divisions per key step and a fifth line prefetched per 256-byte row it was much
 * slower: perf-log 0214); the scores step it every few vectors of d in every row tile
 * (f32 in P·V too; decode.c, "Prefetch spread"); the interleaved (BNHD) walk
 * prefetches whole rows of heads itself and passes none.
 *
 * q8_0/q4_0 on a CPU with VNNI take decode_i8.c's block step (int8 scores and int8 P·V:
 * AVX512-VNNI at the avx512 level, AVX-VNNI at avx2); q4_0 at avx2 without AVX-VNNI
 * takes its int8 scores by vpmaddubsw + vpmaddwd and fp32 P·V (decode_i8.c's decode_i8e copy);
 * HEADROOM_DECODE_PATH=convert keeps them here. fp32 reads its cache at about the STREAM
 * triad or above (a read-only stream beats the triad's 12 B per element); f16 and bf16
 * reach 1.5-1.9x fp32's tokens/s; q8_0 and q4_0 are compute-bound, and the int8 path
 * beats the conversion path on both (perf-log 0212).
 * What binds it: decode_i8.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_vendor.h"
#include "decode_block.h"
#include "vec_eo.h"

/* The prefetch walk of a step of type t (a constant in each copy): f16 and bf16 rows back
 * to back as one span, aligned too (decode_block.h, pf_rows_s); the others as before. */
#define KV_SPAN(t) ((t) == HR_F16 || (t) == HR_BF16 ? PF_ALIGNED : HR_DECODE_PF_SPAN)

#define PV_BLOCK_ALIGNED (XG * HR_VW % HR_QBLOCK == 0)
/* f32's scores step the V prefetch once every PF_X vectors of d in each row tile: 4
 * lines a step at H32/8 d128 on both levels (a line per vector at AVX2 costs its own
 * ops in cache and gains nothing from memory: perf-log 0208). */
#if HR_VW >= 16
#define PF_X 1
#else
#define PF_X 4
#endif

/* The scale of the q8_0 / q4_0 block holding value x, broadcast (f16, bf16: unused). */
/* Bytes of one q8_0 / q4_0 block: its fp16 scale, then the quants. */
DECODE_INLINE size_t kv_block_bytes(hr_dtype t) { return t == HR_Q8_0 ? 2 + HR_QBLOCK : 2 + HR_QBLOCK / 2; }

DECODE_INLINE hr_vf kv_scale(hr_dtype t, const unsigned char *row, int x)
{
    if (t == HR_Q8_0) return hr_vset1_f16(row + (size_t)(x / HR_QBLOCK) * kv_block_bytes(HR_Q8_0));
    if (t == HR_Q4_0) return hr_vset1_f16(row + (size_t)(x / HR_QBLOCK) * kv_block_bytes(HR_Q4_0));
    return hr_vzero();
}

/* Values [x, x + w) of a stored row of type t as fp32 (w <= HR_VW; w < HR_VW only for
 * f16/bf16 tails, the lanes past w are 0). x is a multiple of HR_VW; sc is
 * kv_scale(t, row, x), loaded once per block by the callers. */
DECODE_INLINE hr_vf kv_vec(hr_dtype t, const unsigned char *row, int x, int w, hr_vf sc)
{
    switch (t) {
    case HR_F32: return w == HR_VW ? hr_vload((const float *)row + x) : hr_vload_n((const float *)row + x, w);
    case HR_F16: return w == HR_VW ? hr_vload_f16(row + 2 * x) : hr_vload_f16_n(row + 2 * x, w);
    case HR_BF16: return w == HR_VW ? hr_vload_bf16(row + 2 * x) : hr_vload_bf16_n(row + 2 * x, w);
    case HR_Q8_0: return hr_vload_q8_0(row + (size_t)(x / HR_QBLOCK) * (2 + HR_QBLOCK), x % HR_QBLOCK, sc);
    case HR_Q4_0: return hr_vload_q4_0(row + (size_t)(x / HR_QBLOCK) * (2 + HR_QBLOCK / 2), x % HR_QBLOCK, sc);
    default: return hr_vzero();
    }
}

/* Scores of nk <= 4 keys (rows k[u]) for query rows [r0, r0 + nr), nr <= RT: each K
 * vector is converted once and used by every row of the tile. wfull = HR_VW says d has
 * no tail (a constant then), 0 that the last vector may be partial. */
DECODE_INLINE void scores_tile(const dctx *c, hr_dtype t, const float *q, const unsigned char *const *k,
                               int nk, int r0, int nr, int wfull, float *s, int j, pf_seq *pq)
{
    hr_vf acc[RT][4], sc[4];
    for (int r = 0; r < RT; r++)
        for (int u = 0; u < 4; u++) acc[r][u] = sc[u] = hr_vzero();
    for (int x = 0; x < c->d; x += HR_VW) {
        const int w = wfull ? wfull : c->d - x < HR_VW ? c->d - x : HR_VW;
        if (x % (PF_X * HR_VW) == 0) pf_step_s(pq, KV_SPAN(t));
        if (x % HR_QBLOCK == 0)
            for (int u = 0; u < 4; u++) sc[u] = u < nk ? kv_scale(t, k[u], x) : hr_vzero();
        hr_vf kv[4];
        for (int u = 0; u < 4; u++) kv[u] = u < nk ? kv_vec(t, k[u], x, w, sc[u]) : hr_vzero();
        for (int r = 0; r < RT; r++) {
            if (r >= nr) break;
            hr_vf qv = hr_vload(q + (size_t)(r0 + r) * c->dp + x); /* zero padded */
#if HR_VW >= 16
            /* In a register: folded into each FMA, q was loaded once per key (a load per
             * FMA, on a core with one 64-byte load a cycle; decode_bf16.c). AVX2's 16
             * registers hold no more. */
            __asm__("" : "+v"(qv));
#endif
            for (int u = 0; u < 4; u++) acc[r][u] = hr_vfma(qv, kv[u], acc[r][u]);
        }
    }
    /* Four hr_vreduce_add4: decode_bf16.c's tiles take one tree for all 16 sums
     * (tile_sums), which here was even; a helper shared with that file changed this
     * one's code and made f32 slower, so each keeps its own (perf-log 0213). */
    for (int r = 0; r < nr; r++) {
        float *sr = s + (size_t)(r0 + r) * c->kbp + j;
        if (nk == 4) hr_vreduce_add4(acc[r][0], acc[r][1], acc[r][2], acc[r][3], sr);
        else
            for (int u = 0; u < nk; u++) sr[u] = hr_vreduce_add(acc[r][u]);
    }
}

#if defined(HR_VEC_AVX512)
/* f16/bf16 (f32 can, but stays on scores_tile: the figures at block_kv) in whole 4 x 4
 * tiles (R a multiple of RT, d of HR_VW): scores_tile's FMAs, the 16 sums by one tree
 * (hr_vsum16) whose levels 2-4 run in the next tile's first 7 k steps, so the tile's end
 * is not a chain of shuffles and adds before the next tile's FMAs (four hr_vreduce_add4
 * there were ~4 of f16's 10 cycles a key over its FMAs). Keys [0, n / 4 * 4); returns
 * that count. pq is stepped as scores_kv does: every vector of d in every row tile.
 * d is c->d (a constant at scores_kv's calls where it can be), the query rows dp = d.
 * K in 16-key d-major tiles (no sums at all) is faster in L1 but not from L3, and
 * gained a few percent in the kernel: not kept (perf-log 0213). */
DECODE_INLINE int scores_kv_p(const dctx *c, hr_dtype t, const float *q, const unsigned char *k0, ptrdiff_t ksn,
                              int n, float *s, pf_seq *pq, int d)
{
    const int nst = d / HR_VW, n4 = n / 4 * 4;
    const size_t kbp = (size_t)c->kbp, dp = (size_t)d; /* the query rows' stride: d here */
    hr_vf w[8] = {hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero(), hr_vzero()};
    float *pend = NULL;
    for (int j = 0; j < n4; j += 4) {
        const unsigned char *kp = k0 + (ptrdiff_t)j * ksn;
        for (int r0 = 0; r0 < c->R; r0 += RT) {
            const float *qr = q + (size_t)r0 * dp;
            hr_vf a[4 * RT];
            for (int i = 0; i < 4 * RT; i++) a[i] = hr_vzero();
            /* a k step; a local macro: as an always_inline function taking a[] GCC's code
             * moved and f16 was slower (perf-log 0213) */
#define SP_STEP(st)                                                                            \
    do {                                                                                       \
        const int x = (st) * HR_VW;                                                            \
        pf_step_s(pq, KV_SPAN(t));                                                             \
        hr_vf kv[4];                                                                           \
        for (int u = 0; u < 4; u++) kv[u] = kv_vec(t, kp + u * ksn, x, HR_VW, hr_vzero());     \
        for (int r = 0; r < RT; r++) {                                                         \
            hr_vf qv = hr_vload(qr + r * dp + x);                                              \
            __asm__("" : "+v"(qv));                                                            \
            for (int u = 0; u < 4; u++) a[4 * r + u] = hr_vfma(qv, kv[u], a[4 * r + u]);       \
        }                                                                                      \
    } while (0)
#pragma GCC unroll 7
            for (int st = 0; st < 7; st++) {
                if (st < nst) SP_STEP(st);
                if (pend) hr_vsum16_step(w, st, pend, kbp);
            }
            for (int st = 7; st < nst; st++) SP_STEP(st);
#undef SP_STEP
            hr_vsum16_start(a, w);
            pend = s + (size_t)r0 * kbp + j;
        }
    }
    if (pend)
        for (int k = 0; k < 7; k++) hr_vsum16_step(w, k, pend, kbp);
    return n4;
}
#endif

/* Scores of keys [jb, jb + n) of the rows k0 + j * ksn for every query row, prefetching
 * rows [0, nv) of pf (stride psn) meanwhile, stepped every PF_X vectors of d in every row
 * tile (f32: 32 V lines per 4 keys at d128, 4 a step; f16 16, 2 a step): a burst per 4
 * keys kept the K loads behind it waiting for miss buffers (decode.c, "Prefetch
 * spread"). f16 takes it too, where it stepped once per 4 keys (16 lines at once):
 * faster (perf-log 0214). */
DECODE_INLINE void scores_kv(const dctx *c, hr_dtype t, const float *q, const unsigned char *k0,
                             ptrdiff_t ksn, int n, float *s, const unsigned char *pf, ptrdiff_t psn, int nv)
{
    pf_seq pq = pf_rows_s(c, pf, psn, nv, (n + 3) / 4 * pf_tile_steps(c, RT, PF_X * HR_VW), KV_SPAN(t));
    int j0 = 0;
#if defined(HR_VEC_AVX512)
    if ((t == HR_F16 || t == HR_BF16) && c->R % RT == 0 && c->d % HR_VW == 0 && c->dp == c->d) {
        /* Rows back to back (BHND) at d 64, 128 and 256: d, the K row stride and the
         * query rows' (dp = d) as constants, the K and q addresses immediate offsets
         * from one base each. With them at run time GCC kept them on the stack, a
         * reload per 4 FMAs (perf-log 0215). */
        const bool cst = ksn == (ptrdiff_t)(2 * c->d);
        if (cst && c->d == 128) j0 = scores_kv_p(c, t, q, k0, 256, n, s, &pq, 128);
        else if (cst && c->d == 64) j0 = scores_kv_p(c, t, q, k0, 128, n, s, &pq, 64);
        else if (cst && c->d == 256) j0 = scores_kv_p(c, t, q, k0, 512, n, s, &pq, 256);
        else j0 = scores_kv_p(c, t, q, k0, ksn, n, s, &pq, c->d);
    }
#endif
    for (int j = j0; j < n; j += 4) {
        const int nk = n - j < 4 ? n - j : 4;
        const unsigned char *k[4];
        for (int u = 0; u < 4; u++) k[u] = k0 + (j + (u < nk ? u : 0)) * ksn;
        for (int r0 = 0; r0 < c->R; r0 += RT) {
            const int nr = c->R - r0 < RT ? c->R - r0 : RT;
            /* Whole tiles with constant sizes, so the accumulators live in registers. */
            if (nk == 4 && nr == RT && c->d % HR_VW == 0) scores_tile(c, t, q, k, 4, r0, RT, HR_VW, s, j, &pq);
            else scores_tile(c, t, q, k, nk, r0, nr, 0, s, j, &pq);
        }
    }
}

/* acc[r][x .. x + nx*HR_VW) += sum_j p[r][j] V_j for rows [r0, r0 + nr): the V
 * vectors of a key are converted once per row tile. w is the width of the last
 * vector (f16/bf16 tails). pq (may be NULL) is the prefetch sequence, stepped once per
 * key. */
DECODE_INLINE void pv_tile(const dctx *c, hr_dtype t, const float *s, const unsigned char *v0, ptrdiff_t vsn,
                           int n, int x, int nx, int w, int r0, int nr, float *acc, pf_seq *pq)
{
    hr_vf a[RT][XG];
    for (int r = 0; r < RT; r++)
        for (int g = 0; g < XG; g++)
            a[r][g] = r < nr && g < nx ? hr_vload(acc + (size_t)(r0 + r) * c->dp + x + g * HR_VW) : hr_vzero();
    for (int j = 0; j < n; j++) {
        if (pq) pf_step_s(pq, KV_SPAN(t));
        const unsigned char *vr = v0 + j * vsn;
        hr_vf v[XG], sc[XG];
        for (int g = 0; g < XG; g++) {
            /* Groups start on a block boundary (XG * HR_VW a multiple of 32, the
             * vector builds): one scale per block. */
            const bool first = !PV_BLOCK_ALIGNED || g * HR_VW % HR_QBLOCK == 0;
            sc[g] = !first ? sc[g - 1] : g < nx ? kv_scale(t, vr, x + g * HR_VW) : hr_vzero();
            v[g] = g < nx ? kv_vec(t, vr, x + g * HR_VW, g == nx - 1 ? w : HR_VW, sc[g]) : hr_vzero();
        }
        for (int r = 0; r < RT; r++) {
            if (r >= nr) break;
            const hr_vf pr = hr_vset1(s[(size_t)(r0 + r) * c->kbp + j]);
            for (int g = 0; g < XG; g++) a[r][g] = hr_vfma(pr, v[g], a[r][g]);
        }
    }
    for (int r = 0; r < nr; r++)
        for (int g = 0; g < nx; g++) hr_vstore(acc + (size_t)(r0 + r) * c->dp + x + g * HR_VW, a[r][g]);
}

/* P·V of keys [0, n) of the rows v0 + j * vsn into acc, prefetching rows [0, n2) of pf
 * first (they are the block after next: the loads have this whole phase to land). */
DECODE_INLINE void pv_kv(const dctx *c, hr_dtype t, const float *s, const unsigned char *v0, ptrdiff_t vsn,
                         int n, float *acc, const unsigned char *pf, ptrdiff_t psn, int n2)
{
    const int d = c->d, nvec = (d + HR_VW - 1) / HR_VW;
    const bool fine = t == HR_F32; /* f32: stepped in every row tile, else the first */
    const int tiles = fine ? (c->R + RT - 1) / RT : 1;
    pf_seq pq = pf_rows_s(c, pf, psn, n2, (nvec + XG - 1) / XG * tiles * n, KV_SPAN(t));
    for (int x0 = 0; x0 < nvec; x0 += XG) {
        const int nx = nvec - x0 < XG ? nvec - x0 : XG, x = x0 * HR_VW;
        const int w = x + nx * HR_VW > d ? d - (x + (nx - 1) * HR_VW) : HR_VW;
        for (int r0 = 0; r0 < c->R; r0 += RT) {
            const int nr = c->R - r0 < RT ? c->R - r0 : RT;
            pf_seq *pp = fine || r0 == 0 ? &pq : NULL;
            if (nx == XG && w == HR_VW && nr == RT) pv_tile(c, t, s, v0, vsn, n, x, XG, HR_VW, r0, RT, acc, pp);
            else pv_tile(c, t, s, v0, vsn, n, x, nx, w, r0, nr, acc, pp);
        }
    }
}

#if defined(HR_VEC_AVX2)
#include "decode_kvh.h" /* the avx2 level's tiles */
#endif

/* attend_block for a cache stored in t: the conversion is inlined per type. */
/* A scratch build with -DHR_DKV_ABLATE reads HR_DKV_ABLATE=BITS and skips 1 the scores,
 * 2 the softmax, 4 P·V (with their prefetches; every level and type), to
 * attribute the step's time (its results are wrong by design; without the flag the bits
 * are 0 and the tests compile away). It shows f16's scores and P·V each above their FMA
 * count; the scores' excess is the 4-key tile's start and end (four hr_vreduce_add4),
 * not the conversion nor the K lines' trip from L2: hence scores_kv_p for f16 and bf16,
 * the 16 sums by one tree inside the next tile's k steps. f32 stays on scores_tile,
 * whose target (the triad) it meets; P·V keeps 4 vbroadcastss per key, since {1to16}
 * FMA operands are 4x the loads (perf-log 0213). */
#ifdef HR_DKV_ABLATE
static int dkv_bits(void)
{
    static int bits = -1; /* a benign race: every thread stores the same value */
    if (bits < 0) bits = getenv("HR_DKV_ABLATE") ? atoi(getenv("HR_DKV_ABLATE")) : 0;
    return bits;
}
#else
#define dkv_bits() 0
#endif

DECODE_INLINE void block_kv(const dctx *c, hr_dtype t, int b, int g, int jb, int n, const int *end,
                            const float *q, float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k)
{
    const unsigned char *k0 = hr_xcrow(c->k, b, g, 0), *v0 = hr_xcrow(c->v, b, g, 0);
    const int ab = dkv_bits();
#if defined(HR_VEC_AVX2) /* every type takes the 4-row tiles (f32 too: 12 accumulators) */
    if (!(ab & 1)) scores_kv_h(c, t, q, k0 + jb * c->k.sn, c->k.sn, n, s, v0 + (ptrdiff_t)jpf_v * c->v.sn, c->v.sn, nv);
    if (!(ab & 2)) block_softmax_rows(c, 0, g, jb, n, end, s, st); /* q carries log2 e (ctx_init) */
    if (ab & 4) return;
    if (t == HR_Q8_0 || t == HR_Q4_0)
        pv_kv_q(c, t, s, v0 + jb * c->v.sn, c->v.sn, n, st.acc, k0 + (ptrdiff_t)jpf_k * c->k.sn, c->k.sn, n2);
    else pv_kv_h(c, t, s, v0 + jb * c->v.sn, c->v.sn, n, st.acc, k0 + (ptrdiff_t)jpf_k * c->k.sn, c->k.sn, n2);
#else
    if (!(ab & 1)) scores_kv(c, t, q, k0 + jb * c->k.sn, c->k.sn, n, s, v0 + (ptrdiff_t)jpf_v * c->v.sn, c->v.sn, nv);
    if (!(ab & 2)) block_softmax_rows(c, 0, g, jb, n, end, s, st); /* q carries log2 e (ctx_init) */
    if (!(ab & 4)) pv_kv(c, t, s, v0 + jb * c->v.sn, c->v.sn, n, st.acc, k0 + (ptrdiff_t)jpf_k * c->k.sn, c->k.sn, n2);
#endif
}

/* An out-of-line instance NAME of the block step STEP for type T (hr_decode_block_kv's
 * arguments). */
#define DKV_OWN(NAME, STEP, T)                                                                                 \
    static __attribute__((noinline)) void NAME(const dctx *c, int b, int g, int jb, int n, const int *end,    \
                                               const float *q, float *s, dstate st, int nv, int n2, int jpf_v, \
                                               int jpf_k)                                                      \
    {                                                                                                          \
        STEP(c, T, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k);                                          \
    }

#if defined(HR_VEC_AVX2)
/* q8_0/q4_0 at avx2 out of line: inlined beside the other types, pv_kv_q's weights on
 * the stack and its registers made f32, f16 and bf16 slower (same code, their frame and
 * allocation changed; perf-log 0216). */
DKV_OWN(block_kv_q8, block_kv, HR_Q8_0)
DKV_OWN(block_kv_q4, block_kv, HR_Q4_0)
#endif

#if defined(HR_VEC_AVX2)
/* f16/bf16 at the avx2 level step a block in sub-blocks of HSUB keys, prefetching as a
 * walk with HSUB-key blocks would: V of the next sub-block during the scores, K of the
 * one after it during P·V, both within this block and the next (the K of the block
 * after next that the caller passes falls to the next block's own sub-blocks). A V
 * block of 256 keys (64 KiB at d128) outgrows L1 and P·V's 8 tiles read it 8 times from
 * L2; 128 keys fit. The decode.c default (DECODE_BLOCK_KV_TYPED) stays 256 for the
 * other types and levels (but an Intel core's avx512 level past the L2s: decode_tune.c
 * typed_block): at avx2 the int8 path is slower with 128. Sub-blocks of 128 keys are
 * faster for f16/bf16 from memory; 64 or 32 are slower, and the avx512 level gains
 * nothing from them (perf-log 0216). */
#define HSUB 128
static inline int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
DECODE_INLINE void block_kv_sub(const dctx *c, hr_dtype t, int b, int g, int jb, int n, const int *end,
                                const float *q, float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k)
{
    if (n <= HSUB) {
        block_kv(c, t, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k);
        return;
    }
    /* Keys [jb, lim) may be prefetched: this block and the next (none when the caller
     * passes none: the interleaved walk prefetches itself). */
    const int lim = nv > 0 ? jpf_v + nv : jb + n;
    for (int o = 0; o < n; o += HSUB) {
        const int s0 = jb + o, m = n - o < HSUB ? n - o : HSUB;
        const int v0 = s0 + m, mv = clampi(lim - v0, 0, HSUB), k0 = v0 + mv, mk = clampi(lim - k0, 0, HSUB);
        block_kv(c, t, b, g, s0, m, end, q, s, st, mv, mk, v0, k0);
    }
}
/* Out of line as q8_0/q4_0's below: inlined, the sub-block loops made f32 slower (its
 * code unchanged; perf-log 0216). */
DKV_OWN(block_kv_f16, block_kv_sub, HR_F16)
DKV_OWN(block_kv_bf16, block_kv_sub, HR_BF16)
#endif

void hr_decode_block_kv(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                        float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k)
{
    switch (c->kt) {
    case HR_F32: block_kv(c, HR_F32, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
#if defined(HR_VEC_AVX2)
    case HR_F16: block_kv_f16(c, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
    case HR_BF16: block_kv_bf16(c, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
    case HR_Q8_0: block_kv_q8(c, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
    case HR_Q4_0: block_kv_q4(c, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
#else
    case HR_F16: block_kv(c, HR_F16, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
    case HR_BF16: block_kv(c, HR_BF16, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
    case HR_Q8_0: block_kv(c, HR_Q8_0, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
    case HR_Q4_0: block_kv(c, HR_Q4_0, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k); break;
#endif
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

#if !defined(HR_DECODE_PF_COPY) /* the L1 copy (decode_kv_l1.o): the block step alone */
int hr_decode_pf_env(void)
{
    const char *e = getenv("HEADROOM_DECODE_PF");
    return !e || !*e || !strcmp(e, "auto") ? 2 : !strcmp(e, "l1") ? 1 : !strcmp(e, "l2") ? 0 : -1;
}

/* The env read per call (tests switch it), the CPU once. auto: the avx512 and avx2
 * levels on a Zen 5 (decode_block.h), never the decode_i8e copy. */
int hr_decode_pf_l1(const hr_decode_step *st)
{
    static int cpu = -1; /* a benign race: every thread stores the same value */
    const int e = hr_decode_pf_env();
    if (e != 2) return e == 1;
    if (st->i8 == &hr_decode_i8_emu) return 0;
    if (cpu < 0) cpu = HR_VW >= 8 && hr_cpu_amd_family() == 0x1a; /* Zen 5 */
    return cpu;
}

const char *hr_decode_kv_path(const hr_problem *p)
{
    static const char *const paths[HR_NDTYPES] = {
        [HR_F32] = HR_VEC_ISA " fp32",
        [HR_F16] = HR_VEC_ISA " f16 " CVT_HALF " in registers, fp32 FMA",
        [HR_BF16] = HR_VEC_ISA " bf16 shift in registers, fp32 FMA",
        [HR_Q8_0] = HR_VEC_ISA " q8_0 " CVT_INT " in registers, fp32 FMA",
        [HR_Q4_0] = HR_VEC_ISA " q4_0 nibble unpack in registers, fp32 FMA",
    };
    return p->kv_dtype < HR_NDTYPES && paths[p->kv_dtype] ? paths[p->kv_dtype] : HR_VEC_ISA;
}
#endif

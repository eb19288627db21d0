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
 * the stream (issue 14); f32, f16 and bf16 (not even/odd) score key triples and sum P·V
 * in vector triples (12 accumulators). q8_0/q4_0 on this path at avx2 (q8_0 on AVX2
 * CPUs without VNNI, q4_0 too where no int8 step runs) take 4-row tiles too (decode_kvq.h): scores a q block at a time, P·V
 * with V's block scales folded into P. bf16 there, d a multiple of 16, reads 16 values
 * a load split even/odd (vec_eo.h: vpslld + vpand, no port 5 shuffle), the query rows
 * stored in that order (attend_init) and P·V's accumulators split per tile.
 * f16 and bf16 step a 256-key block as two of 128 keys (block_kv_sub: V's block stays
 * in L1).
 *
 * f32 takes it too: against the former per-row fp32 step (K reloaded for every query row
 * of the group, a row's four keys reduced alone) it is 5-8% faster at H32/8 L16384 d128
 * on one Zen 4 core (CPU time, decode.c). The conversions are vec.h's "reduced-precision
 * loads": exact, so the kernel sees the very values hr_dtype_load_row gives the oracle,
 * and its own error is fp32 accumulation only (tests/test_decode_kv.c).
 *
 * Budget per key and KV head at H32/8 d128, Nq 1 (R = 4 query rows per KV head),
 * AVX-512, Zen 4 (one zmm FMA per cycle: two 256-bit FMA pipes):
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
 * (f32, f16, bf16) or over 2560 FMA-pipe FLOPs (q8_0, q4_0): at 118 GFLOP/s, 17.3 and
 * 21.7 ns. Measured at L128 (all in L2), one core: scores ~11 ns, P·V ~8 ns (f16), so
 * P·V runs at the roof and the scores ~30% above it. Every type is compute-bound on one
 * core below ~35 GB/s of triad; see decode.c for the figures at L16384.
 *
 * Prefetch: V rows of the next block during the scores and K rows of the block after
 * next during P·V, every line of a row in address order (the rows of a head are
 * contiguous in BHND), a few lines per step (pf_step: a running remainder; with two
 * divisions per key step and a fifth line prefetched per 256-byte row, f16 at L16384
 * took 38% longer, q8_0 22%); the scores step it every few vectors of d in every row
 * tile (f32 in P·V too; decode.c, "Prefetch spread": -8 to -15% at AVX2); the
 * interleaved (BNHD) walk prefetches whole rows of heads itself and passes none.
 *
 * q8_0/q4_0 on a CPU with VNNI take decode_i8.c's block step (int8 scores and int8 P·V:
 * AVX512-VNNI at the avx512 level, AVX-VNNI at avx2); q4_0 at avx2 without AVX-VNNI
 * takes its int8 scores by vpmaddubsw + vpmaddwd and fp32 P·V (decode_i8e.c);
 * HEADROOM_DECODE_PATH=convert keeps them here ("cvt" below). Measured on an SPR-class
 * Xeon (2 vCPUs, ~3.9 GHz; another session timing and testing on the same two cores
 * between rounds), decode H32/8 d128 Nq 1 BHND: 3 rounds, each under one exclusive
 * lock: `headroom roofline --threads 1,2 --reps 5`, every row below once (`headroom run
 * --kernel decode --heads 32 --kv-heads 8 --seq 1 --seq-kv L --d-head 128 --threads T
 * --kv-dtype X --reps 5 --no-probe`, types alternating), the roofline again; medians over
 * the rounds, the ceilings the median of the rooflines' bests (16.0 / 30.6 GB/s triad,
 * 829 GOP/s avx512_vnni and 237 GFLOP/s avx512 at one thread), load 1.1-1.5. GB/s
 * counts the stored bytes (scales included); /roof: the int8 path against its compute
 * roof, the VNNI and FMA roofs in series (decode_i8.c):
 *                 1 thread                                 2 threads
 *                 ms   tok/s  GB/s /triad x f32 /roof      ms   tok/s  GB/s /triad x f32 /roof
 *   f32      L4096   1.388   721  24.2  1.51  1.00        0.688  1453  48.8  1.60  1.00
 *   bf16     L4096   0.947  1056  17.7  1.11  1.47        0.471  2121  35.6  1.16  1.46
 *   f16      L4096   0.908  1102  18.5  1.15  1.53        0.454  2203  37.0  1.21  1.52
 *   q8_0     L4096   0.967  1034   9.2  0.58  1.43 0.19   0.519  1927  17.2  0.56  1.33 0.18
 *   q4_0     L4096   0.960  1042   4.9  0.31  1.45 0.19   0.500  2002   9.4  0.31  1.38 0.18
 *   q8_0 cvt L4096   1.118   895   8.0  0.50  1.24        0.566  1766  15.7  0.52  1.22
 *   q4_0 cvt L4096   1.130   885   4.2  0.26  1.23        0.605  1654   7.8  0.26  1.14
 *   f32      L16384  6.830   146  19.7  1.23  1.00        3.176   315  42.3  1.38  1.00
 *   bf16     L16384  3.818   262  17.6  1.10  1.79        2.028   493  33.1  1.08  1.57
 *   f16      L16384  3.666   273  18.3  1.14  1.86        1.906   525  35.2  1.15  1.67
 *   q8_0     L16384  3.946   253   9.0  0.56  1.73 0.18   2.115   473  16.9  0.55  1.50 0.17
 *   q4_0     L16384  3.761   266   5.0  0.31  1.82 0.19   2.001   500   9.4  0.31  1.59 0.18
 *   q8_0 cvt L16384  4.272   234   8.3  0.52  1.60        2.297   435  15.5  0.51  1.38
 *   q4_0 cvt L16384  4.484   223   4.2  0.26  1.52        2.347   426   8.0  0.26  1.35
 * fp32 reads its 134 MB at L16384 at 1.23 / 1.38 of the STREAM triad (1 / 2 threads;
 * the triad counts 12 B per element, a read-only stream beats it; L4096's 34 MB fit
 * the 480 MiB L3 this VM reports): issue 14's >= 0.85 holds here. f16 and bf16 at 1.1-1.2 of it, 1.5-1.9x fp32's tokens/s. q8_0 and q4_0
 * miss the 3x and 4.5x: compute-bound at 0.17-0.19 of the series roof; the int8 path
 * takes 8-14% less time than the conversion path on q8_0, 15-17% on q4_0
 * (`headroom ab` of the build before it, conversion only, against this one, L16384,
 * 9 ABBA pairs: q8_0 -7.8% / -6.4% at 1 / 2 threads, q4_0 -15.7% / -13.7%; f32, f16
 * and bf16 same or noise, no regression). The q8_0/q4_0 rows above are from before
 * decode_i8.c scored 16 keys per vector (-19% / -21% at L16384, one thread; README's
 * table has the rows after it, the one-span prefetch and the int8 P·V).
 * What binds it: decode_i8.c.
 */
#include <stdio.h>
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
 * lines a step at H32/8 d128 on both levels (a line per vector at AVX2 cost in-cache
 * L256 3-8% of time and gained nothing at L16384: the step's own ops). */
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
             * FMA, at Zen 4's one 64-byte load a cycle; decode_bf16.c). AVX2's 16
             * registers hold no more. */
            __asm__("" : "+v"(qv));
#endif
            for (int u = 0; u < 4; u++) acc[r][u] = hr_vfma(qv, kv[u], acc[r][u]);
        }
    }
    /* Four hr_vreduce_add4: decode_bf16.c's tiles take one tree for all 16 sums
     * (tile_sums), which here was even (f32 -1.5 / -2.1%, f16 +2.5 / +1.7% at one
     * thread, `headroom ab`, 15 pairs, Zen 4); a helper shared with that file changed
     * this one's code and cost f32 4-15%, so each keeps its own. */
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
 * K in 16-key d-major tiles (no sums at all) was timed against this: -19% in L1, -4% in
 * L2, +17% from L3 alone (scripts/cputime/f16kt.c); in the kernel, rows were 3.3-3.8%
 * faster at L16384, T1 and T2 (README, "AMX for the int8 scores, and f16 keys in tiles").
 * Not kept. */
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
            /* a k step; a local macro: as an always_inline function taking a[] it measured
             * f16 +3.1 / +4.7% at one thread (`headroom ab`, 21 pairs: GCC's code moved) */
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
 * spread"). f16 took it too on 2026-11-28, where it had stepped once per 4 keys (16
 * lines at once): `headroom ab`, H32/8 d128, L4096 / L16384, Zen 4, 21 ABBA pairs: T1
 * -7.6 / -7.5% (significant), T2 -7.8 / -2.6% (noise); in 15 pairs before, T2 -11.1 /
 * -11.8% (significant), T1 -4.3 / -1.3% (noise, same). */
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
         * reload per 4 FMAs (SPR-class Xeon, H32/8, 3 interleaved rounds, one / two
         * threads: d 128 f16 L256 -7.6%, L4096 -1.8%, L16384 -3.4 / -2.4%, bf16 L16384
         * -4.6 / -5.5%; d 256 L8192 f16 -4.0%, bf16 -7.5% at two; d 64 L32768 -2.6%). */
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
#include "decode_kvh.h" /* the avx2 level's tiles (issue 14) */
#endif

/* attend_block for a cache stored in t: the conversion is inlined per type. */
/* A scratch build with -DHR_DKV_ABLATE reads HR_DKV_ABLATE=BITS and skips 1 the scores,
 * 2 the softmax, 4 P·V (with their prefetches; every level and type), to
 * attribute the step's time (its results are wrong by design; without the flag the bits
 * are 0 and the tests compile away). f16 at H32/8 d128 L1024, one Zen 4 thread
 * (2026-11-27, 3 rounds): 25.5 ns per key and KV head in all, 12.5 without the scores,
 * 13.8 without P·V, 24.0 without the softmax: scores ~13 ns and P·V ~11.7 where their 32
 * FMAs each take 8.7 at the 117.6 GFLOP/s roof; the scores' hr_vreduce_add4 ~1.3 of it
 * (stored unreduced: 23.5-24.2). Not the K lines' trip from L2: K blocks of 32 keys (in
 * L1) scored as fast as 256, and prefetcht0 of K 4-16 keys ahead cost 2-3 ns. At the
 * avx2 level (an avx2 ablation build, the same Zen 4 in a slow phase, 2 rounds): 32-43 ns
 * in all, ~18.3 without the scores, ~17.5 without P·V: each phase ~15-17 ns where its 64
 * ymm FMAs take 8.7, ~1.8x (AVX-512's 1.35-1.5x); P·V's 4 x 2 tile broadcasts a weight
 * per 2 FMAs and walks the keys d/16 times. Tried on
 * P·V (`headroom ab`, 15 pairs, L4096 / L16384, one and two threads): the row offsets as
 * pointers and the prefetch stepped per 4 keys (gcc had kept the offsets in xmm, a vmovq
 * per broadcast, and pf_seq's remainder in memory): f16 -0.8 to +0.5% (same), f32 +27.5%
 * at L4096 one thread (a regression); the weights as the FMAs' own {1to16} operands in
 * place of 4 vbroadcastss per key (a bare 4 x 4 tile 5-8% faster for it): f16 -1.4 to
 * -1.6% at one thread, same; P·V in chunks of 32, 64 or 128 keys so the chunk's V rows
 * stay in L1 for the second half of d (3 interleaved rounds, L1024): 26.3-27.0, 25.6-27.8
 * and 25.5-26.0 ns against 25.8, none faster.
 * In a scratch harness (2026-11-28: this file included, scores_kv and pv_kv called on
 * 128 keys in L1 or L2, R 4 d128, TSC scaled to the 3.67 GHz core clock) the AVX-512
 * scores take 42-44 cycles a key for f16, 44-47 for f32 and bf16, against 32 for the
 * FMAs; P·V 37 (f16), 33 (f32), 36-37 (bf16). An asm copy of the scores' k step (4 K
 * loads or vcvtph2ps from memory, 4 q loads, 16 FMAs) runs at 16 cycles, the FMAs' own:
 * the excess is per 4-key tile (~45 cycles of 128+), not per step and not the
 * conversion. The four hr_vreduce_add4 are ~4 cycles a key of it (their sums replaced by
 * 3 vaddps: 39-40); the k loop unrolled 8: the same. What is left (~7 a key) is the
 * tile's start and end. Hence scores_kv_p (f16, bf16): the 16 sums by one tree whose
 * levels 2-4 run inside the next tile's k steps: in the harness f16 36.2, f32 33.4,
 * bf16 36-40 cycles a key. In the kernel (`headroom ab` of c36b107 against it, the
 * dkv3 sweep: H32/8 d128, f32/f16/bf16, L4096 / L16384, T1 / T2, 21 ABBA pairs): f16
 * T1 -3.4 / -4.7% (significant), T2 -2.8 / -8.3% (noise); bf16 (vdpbf16ps on this
 * CPU, code unchanged) same. With f32 on it too, four runs (21, 31, 41, 21 pairs):
 * L4096 T1 -7.6, -6.5, -4.8, -0.6%, L16384 T1 +16.9 (significant), -0.4, -2.0, +5.6%
 * (in a run without it f32 read -5.7% at L16384 T1, its code unchanged: it moves with
 * the layout by that much). f32 stays on scores_tile, whose target (the triad) it meets. The HR_DKV_ABLATE builds at L1024 T1
 * (2 rounds): f16 25.3-26.0 -> 23.4-23.5 ns per key and KV head, the scores 13.2 -> 11.8.
 * P·V's f16 excess is its vcvtph2ps beside 4 vbroadcastss per 16 FMAs (an asm loop: 17.3
 * cycles, 15.9 with the weights as {1to16} FMA operands; pv_tile so in the harness 35
 * against 37 a key), but in the kernel those operands were slower again (`headroom ab`,
 * 21 pairs: f16 T1 +4.0 / +5.4% at L4096 / L16384, f32 +5.8% at L16384): 4x the loads. */
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
    if (!(ab & 2)) block_softmax_rows(c, 0, jb, n, end, s, st); /* q carries log2 e (ctx_init) */
    if (ab & 4) return;
    if (t == HR_Q8_0 || t == HR_Q4_0)
        pv_kv_q(c, t, s, v0 + jb * c->v.sn, c->v.sn, n, st.acc, k0 + (ptrdiff_t)jpf_k * c->k.sn, c->k.sn, n2);
    else pv_kv_h(c, t, s, v0 + jb * c->v.sn, c->v.sn, n, st.acc, k0 + (ptrdiff_t)jpf_k * c->k.sn, c->k.sn, n2);
#else
    if (!(ab & 1)) scores_kv(c, t, q, k0 + jb * c->k.sn, c->k.sn, n, s, v0 + (ptrdiff_t)jpf_v * c->v.sn, c->v.sn, nv);
    if (!(ab & 2)) block_softmax_rows(c, 0, jb, n, end, s, st); /* q carries log2 e (ctx_init) */
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
 * the stack and its registers made f32, f16 and bf16 8-13% slower (same code, their
 * frame and allocation changed; `headroom ab`, T1 L1024 and L16384). */
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
 * typed_block): at avx2 the int8 path took 3% longer with 128. H32/8 d128
 * T1, `headroom ab` 11 pairs, block_kv 256 -> 128: L16384 f16 -20%, bf16 -15%
 * (a slow phase: base 6.3 ms), L4096 0 to -2%, T2 -1 to -6% (noise). Smaller, f16 T1
 * (2026-11-28, 2-3 interleaved rounds): HSUB 64 +5-8%, 32 +7-20% at L1024 and L16384;
 * 128-key sub-blocks at the avx512 level no faster than its 256-key blocks. */
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
/* Out of line as q8_0/q4_0's below: inlined, the sub-block loops made f32 at L4096 T1
 * 3.6% slower (its code unchanged; `headroom ab`, 11 pairs). */
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
 * levels on a Zen 5 (decode_block.h). decode_i8e.c's instance has no L1 copy. */
int hr_decode_pf_l1(hr_dtype t)
{
    static int cpu = -1; /* a benign race: every thread stores the same value */
    const int e = hr_decode_pf_env();
    if (hr_decode_i8_pick(t) == &hr_decode_i8_emu || !e) return 0;
    if (e == 1) return 1;
    if (cpu < 0) cpu = HR_VW >= 8 && hr_cpu_amd_family() == 0x1a; /* Zen 5 */
    return cpu;
}

static const char *path_of_type(const hr_problem *p)
{
    const hr_decode_i8_step *i8s = hr_decode_i8_pick(p->kv_dtype);
    const char *i8 = i8s ? i8s->path(p->kv_dtype) : NULL,
               *bfd = hr_decode_bf16_path(p->dtype, p->kv_dtype, p->d_head);
    if (i8) return i8;
    if (bfd) return bfd;
    static const char *const paths[HR_NDTYPES] = {
        [HR_F32] = HR_VEC_ISA " fp32",
        [HR_F16] = HR_VEC_ISA " f16 " CVT_HALF " in registers, fp32 FMA",
        [HR_BF16] = HR_VEC_ISA " bf16 shift in registers, fp32 FMA",
        [HR_Q8_0] = HR_VEC_ISA " q8_0 " CVT_INT " in registers, fp32 FMA",
        [HR_Q4_0] = HR_VEC_ISA " q4_0 nibble unpack in registers, fp32 FMA",
    };
    return p->kv_dtype < HR_NDTYPES && paths[p->kv_dtype] ? paths[p->kv_dtype] : HR_VEC_ISA;
}

/* The type's path, with ", prefetch into L1" where the block steps prefetch there: one
 * composed string per path (each a string constant, a handful), made on first use. */
const char *hr_decode_path(const hr_problem *p)
{
    const char *base = path_of_type(p);
    if (!hr_decode_pf_l1(p->kv_dtype)) return base;
    static struct {
        const char *base;
        char s[200];
    } memo[32];
    for (int i = 0; i < 32; i++) {
        if (!memo[i].base) {
            snprintf(memo[i].s, sizeof memo[i].s, "%s, prefetch into L1", base);
            memo[i].base = base;
        }
        if (memo[i].base == base) return memo[i].s;
    }
    return base;
}
#endif

/* decode_block.h — flash-decoding's shared context, state and online-softmax step (decode.c's walks, decode_kv.c's block step). */
#ifndef HR_DECODE_BLOCK_H
#define HR_DECODE_BLOCK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "vec.h"
#include "vec_tanh.h" /* hr_vsoftcap */

/* A span walked by address: decode_i8.c's steps (q8_0/q4_0 rows back to back, 4 prefetches
 * a key at q8_0) define it 1 before including this; elsewhere the row walk alone, so the
 * fp32 steps' code stays as it was (the span's test in their loops costs f32: perf-log
 * 0226).
 * decode_kv.c's f16/bf16 steps take pf_rows_s / pf_step_s with PF_ALIGNED (their type a
 * constant in each copy, so f32's code keeps no test). */
#ifndef HR_DECODE_PF_SPAN
#define HR_DECODE_PF_SPAN 0
#endif

#define DECODE_MAX_Q 16      /* query rows per head this kernel accepts            */
/* The block steps are inlined into every per-type copy of decode_kv.c's block step. */
#define DECODE_INLINE static inline __attribute__((always_inline))
#define DECODE_BLOCK_KV 64   /* default keys per block (K, V blocks of 32 KiB at d 128) */
/* An fp32 cache streamed from DRAM (past the last-level cache) by few rows per group
 * (R <= DECODE_STREAM_MAX_R: memory-bound): at the avx512 level blocks of at most this
 * many bytes of K rows, 16 keys at d 128 (decode_tune.c; perf-log 0232). */
#define DECODE_STREAM_BLOCK_BYTES 8192
#define DECODE_STREAM_MAX_R 4
#define DECODE_STREAM_KEYS_AVX2 128 /* the same case at the avx2 level: keys per block */
/* The same case where the block steps prefetch into L1 (hr_decode_pf_l1: an AMD family 1Ah CPU) at
 * the avx512 level: this many bytes of K rows (128 keys at d 128), at most
 * DECODE_STREAM_KEYS_MAX keys; at the avx2 level, on any CPU, the cap on
 * DECODE_STREAM_KEYS_AVX2 (decode_tune.c) */
#define DECODE_STREAM_BLOCK_BYTES_L1 65536
#define DECODE_STREAM_KEYS_MAX 256
/* A typed cache's default: its per-block work (softmax, rescale, tile set-up) is paid
 * per key block while the rows are 2-7x smaller, so it takes longer blocks (perf-log
 * 0228). */
#define DECODE_BLOCK_KV_TYPED 256
/* A typed cache on an Intel core at the avx512 level past the threads' L2s: at most this
 * many bytes of K rows a block, f16 and bf16 on the conversion step (16 to
 * DECODE_BLOCK_KV_TYPED keys; q8_0 in tiles keeps its d 128 block's bytes, 34 KiB;
 * decode_tune.c, perf-log 0233). */
#define DECODE_TYPED_BLOCK_BYTES 32768
#define DECODE_BLOCK_KV_Q4 512 /* q4_0 on the int8 path (decode_tune.c) */
#define DECODE_BLOCK_KV_Q8 128 /* q8_0 there, read in rows (HEADROOM_DECODE_KV=rows)   */
#define DECODE_BLOCK_KV_Q8T 256 /* q8_0 there, read in 16-key tiles (the default)     */

/* Register tiles of the block steps (decode_kv.c, decode_i8.c): RT query rows by 4 keys
 * in the scores (RT x 4 accumulators), RT rows by XG vectors of d in P·V (RT x XG
 * accumulators): 21 of AVX-512's 32 registers (the generic level likewise; decode_kv.c's
 * avx2 level takes decode_kvh.h's tiles). */
#if HR_VW >= 16
#define RT 4
#else
#define RT 2
#endif
#define XG 4

static inline size_t round16(size_t n) { return (n + 15) & ~(size_t)15; } /* floats -> 64 B */

/* Everything a thread needs to know about the call. */
typedef struct {
    const hr_problem *p;
    const hr_args *a;
    int G, R, d, dp, kb, kbp; /* group, rows per group, d, d padded, block, block padded */
    float scale;
    size_t slot_f;            /* floats of one partial state {m[R], l[R], acc[R][dp]}  */
    size_t thread_f;          /* floats of one thread's workspace                      */
    int hs;                   /* KV heads attended side by side: Hkv when the heads of
                               * one key are adjacent in memory (BNHD), else 1           */
    hr_dtype kt;              /* the stored K/V type (p->kv_dtype)                      */
    size_t rb;                /* bytes of one stored K or V row                          */
    hr_xcview k, v;           /* K and V as stored, strides in bytes (f32 too)           */
    int bfd;                  /* a bf16 cache's P·V by vdpbf16ps (decode_bf16.c)         */
    int bfq;                  /* with bfd, the scores by vdpbf16ps too, on the query rows
                               * in bf16: as given (dtype bf16) or rounded (Q as bf16) */
    int i8;                   /* q8_0/q4_0 scored by int8 dot products; 2: P·V by int8
                               * dot products too (i8s->pv8)                              */
    const struct hr_decode_i8_step *i8s; /* with i8, the instance (hr_decode_pick)      */
    size_t qf;                /* floats of one head's query block: the scaled fp32 rows
                               * (round16(R dp)), then Q quantized for i8 (i8s->qf) */
    size_t sf;                /* floats of the scores block: round16(R kbp), then i8's
                               * P times the V scales (i8s->sf) or bfd's P in
                               * bf16 (hr_decode_bf16_sf)                                  */
    int pf_l1;                /* the block step's copy that prefetches into L1
                               * (hr_decode_pf_l1; attend_block, c->i8s)                  */
    /* p's variants (headroom.h), applied to every path's scores in log2 units before the
     * softmax (block_variants); all 0 when p is plain. */
    int var;                  /* DECODE_VAR_* bits of the variants p has                  */
    int shift;                /* Nkv - Nq: query row i's diagonal key i' = i + shift      */
    float cap2, inv_cap2;     /* the soft cap c log2 e and its inverse                    */
    const float *slope2;      /* ALiBi's slope of each query head times log2 e (workspace) */
    int beg[DECODE_MAX_Q];    /* the window's first key of each query row i (0: none)     */
    int jlo, nv;              /* the keys any row sees, [jlo, jlo + nv): what the threads
                               * split (jlo a tile's first key where K/V are in tiles)    */
    /* A paged cache's block in one step (decode.c attend_paged; NULL: contiguous, or
     * the piece walk): per group of DECODE_GROUP keys of the block (groups of absolute
     * keys, so none crosses a page), a base from which row j of the block (0 its first
     * key jb) is pk[(j + pgo) / DECODE_GROUP] + j sn, an address computed as an integer
     * (decode_row); pfk, pfv the real first rows of the groups the step prefetches
     * (npfk, npfv of them, read whole: pf_groups). */
    const unsigned char *const *pk, *const *pv, *const *pfk, *const *pfv;
    int pgo, npfk, npfv;
} dctx;

#define DECODE_GROUP 16 /* HR_PAGE_MIN and HR_KV_TILE: a group or tile never crosses a page */

/* Row j of a paged block from its group bases (dctx pk, pv). */
static inline const unsigned char *decode_row(const unsigned char *const *base, int o, int j, ptrdiff_t sn)
{
    return (const unsigned char *)((uintptr_t)base[(j + o) / DECODE_GROUP] + (uintptr_t)((ptrdiff_t)j * sn));
}

enum { DECODE_VAR_WINDOW = 1, DECODE_VAR_CAP = 2, DECODE_VAR_ALIBI = 4 };

/* bf16 at the avx2 level, d a multiple of 16, and decode_bf16.c's path (d a multiple of
 * 32): K (at avx2 V too) read 2 HR_VW values at a time in even/odd order
 * (hr_vload_bf16_eo), and attend_init stores the query rows in that order to match (each
 * 2 HR_VW values: the HR_VW even, then the HR_VW odd); the accumulators stay in d order
 * in memory. */
static inline int decode_bf16_eo(const dctx *c)
{
#if defined(HR_VEC_AVX2)
    return c->kt == HR_BF16 && c->d % (2 * HR_VW) == 0;
#else
    return c->bfd && !c->bfq;
#endif
}

/* The partial state stored in a slot. */
typedef struct {
    float *m, *l, *acc;
} dstate;

/* Query row r of the group is head g*G + r / Nq, row r % Nq. */
static inline int row_head(const dctx *c, int g, int r) { return g * c->G + r / c->p->seq_q; }
static inline int row_i(const dctx *c, int r) { return r % c->p->seq_q; }

/* The exp pass of the online-softmax step of one row, mx the max of its visible scores:
 * sr[j] = exp(s - m) for the vectors [j0, ve) (every lane of them, the masked ones -inf:
 * exactly 0) and the scalars [ve, vis), 0 elsewhere in [0, n); m, l and acc updated as
 * block_softmax says. */
DECODE_INLINE void block_exp(const dctx *c, float *sr, int n, int j0, int ve, int vis, float mx, float *m, float *l,
                             float *acc)
{
    const float log2e = 1.44269504088896341f, ln2 = 0.693147180559945309f;
    const float ms = *m * log2e; /* -inf stays -inf */
    const float mnew = ms > mx ? ms : mx;
    /* m = -inf means no key seen yet: l and acc are 0, nothing to rescale. */
    /* hr_expf_poly(0) is exactly 1, so a row whose m does not move is not rescaled. */
    const float alpha = *m == -INFINITY ? 0.0f : hr_expf_poly((ms - mnew) * ln2);
    hr_vf vm = hr_vset1(mnew), vsum = hr_vzero();
    for (int j = j0; j < ve; j += HR_VW) {
        const hr_vf e = hr_vexp2(hr_vsub(hr_vload(sr + j), vm));
        hr_vstore(sr + j, e);
        vsum = hr_vadd(vsum, e);
    }
    float sum = hr_vreduce_add(vsum);
    for (int j = ve; j < vis; j++) {
        sr[j] = hr_expf_poly((sr[j] - mnew) * ln2);
        sum += sr[j];
    }
    memset(sr, 0, (size_t)j0 * sizeof *sr);
    for (int j = ve > vis ? ve : vis; j < n; j++) sr[j] = 0.0f;
    *l = *l * alpha + sum;
    if (mnew != ms) *m = mnew * ln2;
    if (alpha != 1.0f) {
        hr_vf va = hr_vset1(alpha);
        for (int x = 0; x < c->dp; x += HR_VW) hr_vstore(acc + x, hr_vmul(hr_vload(acc + x), va));
    }
}

/* Online-softmax step of one row over the block's first vis scores (the rest are
 * masked), the scores in log2 units (s log2 e: the query rows or, on the int8 path, Q's
 * block scales carry the factor), so exp(s - m) = 2^(s' - m') by hr_vexp2 (10 ops a
 * vector where hr_vexp takes 22): afterwards m is the max over every visible key seen
 * so far, l the sum of exp(s - m) over them, acc rescaled to the new m, and sr holds
 * exp(s - m) with zeros for masked keys. m stays in natural units in the state (decode.c
 * merges by expf) and is rewritten only when it moves, so m' = m log2 e does not drift. */
DECODE_INLINE void block_softmax(const dctx *c, int wide, float *sr, int n, int vis, float *m, float *l, float *acc)
{
    if (vis <= 0) {
        memset(sr, 0, (size_t)n * sizeof *sr);
        return;
    }
    const int vfull = vis / HR_VW * HR_VW;
    hr_vf vmx = hr_vset1(-INFINITY);
    int j0 = 0;
    if (wide) {
        /* long blocks (the int8 step's 128-512 keys): four max chains, not one vmaxps
         * chain of n / 16 at its latency (perf-log 0228); the fp32 path's 8-32-key
         * blocks keep one */
        hr_vf m1 = vmx, m2 = vmx, m3 = vmx;
        for (; j0 + 4 * HR_VW <= vfull; j0 += 4 * HR_VW) {
            vmx = hr_vmax(vmx, hr_vload(sr + j0));
            m1 = hr_vmax(m1, hr_vload(sr + j0 + HR_VW));
            m2 = hr_vmax(m2, hr_vload(sr + j0 + 2 * HR_VW));
            m3 = hr_vmax(m3, hr_vload(sr + j0 + 3 * HR_VW));
        }
        vmx = hr_vmax(hr_vmax(vmx, m1), hr_vmax(m2, m3));
    }
    for (int j = j0; j < vfull; j += HR_VW) vmx = hr_vmax(vmx, hr_vload(sr + j));
    float mx = hr_vreduce_max(vmx);
    for (int j = vfull; j < vis; j++) mx = sr[j] > mx ? sr[j] : mx;
    block_exp(c, sr, n, 0, vfull, vis, mx, m, l, acc);
}

/* block_variants' pass over the vectors of keys [lo, vis) of a row's scores sr (jb the
 * block's first key): each vector loaded, capped and biased (hr_vscore_variants, cap_on
 * and bias_on constants in each copy, so the loop has no test), its lanes outside [lo,
 * vis) set to -inf (the first vector's by an add from a mask table, the last one's by a
 * masked load, so no NaN of the padding gets through), stored and taken into the max
 * (two chains, and two key-offset vectors stepping 2 HR_VW, so no chain of one add a
 * vector bounds the loop). Returns the max. Without cap or bias (a window alone) only
 * the two end vectors are stored. */
DECODE_INLINE float block_max_var(const dctx *c, int g, int r, int jb, int lo, int vis, float *sr, int cap_on,
                                  int bias_on)
{
#define NI_ (-INFINITY)
    static const float iota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    /* from head_m + 16 - k lanes < k are -inf, from tail_m + 16 - k lanes >= k */
    static const float head_m[32] = {NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_};
    static const float tail_m[32] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_, NI_};
#undef NI_
    const int i = row_i(c, r), j0 = lo / HR_VW * HR_VW;
    const hr_vf cap = hr_vset1(c->cap2), icap = hr_vset1(c->inv_cap2), step2 = hr_vset1(2.0f * HR_VW);
    const hr_vf nm = hr_vset1(bias_on ? -c->slope2[row_head(c, g, r)] : 0.0f);
    /* the keys' offsets from the diagonal, j - i': exact in fp32 (|j - i'| < 2^24) */
    hr_vf dj = hr_vadd(hr_vload(iota), hr_vset1((float)(jb + j0 - i - c->shift)));
    int j = j0, t = vis - j;
    hr_vf x = t < HR_VW ? hr_vload_n(sr + j, t) : hr_vload(sr + j);
    x = hr_vadd(hr_vscore_variants(x, cap_on, cap, icap, bias_on, nm, dj), hr_vload(head_m + 16 - (lo - j)));
    if (t < HR_VW) x = hr_vadd(x, hr_vload(tail_m + 16 - t));
    hr_vstore(sr + j, x);
    hr_vf m0 = x, m1 = hr_vset1(-INFINITY);
    j += HR_VW;
    dj = hr_vadd(dj, hr_vset1((float)HR_VW));
    hr_vf dj1 = hr_vadd(dj, hr_vset1((float)HR_VW));
    for (; j + 2 * HR_VW <= vis; j += 2 * HR_VW, dj = hr_vadd(dj, step2), dj1 = hr_vadd(dj1, step2)) {
        const hr_vf x0 = hr_vscore_variants(hr_vload(sr + j), cap_on, cap, icap, bias_on, nm, dj);
        const hr_vf x1 = hr_vscore_variants(hr_vload(sr + j + HR_VW), cap_on, cap, icap, bias_on, nm, dj1);
        if (cap_on || bias_on) {
            hr_vstore(sr + j, x0);
            hr_vstore(sr + j + HR_VW, x1);
        }
        m0 = hr_vmax(m0, x0);
        m1 = hr_vmax(m1, x1);
    }
    if (j + HR_VW <= vis) {
        x = hr_vscore_variants(hr_vload(sr + j), cap_on, cap, icap, bias_on, nm, dj);
        if (cap_on || bias_on) hr_vstore(sr + j, x);
        m0 = hr_vmax(m0, x);
        j += HR_VW;
        dj = dj1;
    }
    if (j < vis) {
        t = vis - j;
        x = hr_vadd(hr_vscore_variants(hr_vload_n(sr + j, t), cap_on, cap, icap, bias_on, nm, dj),
                    hr_vload(tail_m + 16 - t));
        hr_vstore(sr + j, x);
        m1 = hr_vmax(m1, x);
    }
    return hr_vreduce_max(hr_vmax(m0, m1));
}

/* block_softmax on row r (of KV head g's group) with p's variants over the block's
 * scores sr of keys [jb, jb + vis), in log2 units: the soft cap c2 tanh(s / c2) with
 * c2 = c log2 e (the same cap in the scaled units), then ALiBi's bias -m log2 e |i' -
 * j|, then the window: keys before the row's first one masked (exp2 gives them exactly
 * 0), a block wholly before it none visible. The variants go into the max pass
 * (block_max_var: one load and one store a vector, where a pass of their own before it
 * took a load and a store more and the max pass a load: perf-log 0530), and the exp
 * pass starts at the vector of the row's first visible key. The int8 paths' scores are
 * dequantized by then, so every path takes the same step. */
DECODE_INLINE void block_variants(const dctx *c, int g, int r, int jb, int n, int vis, float *sr, float *m, float *l,
                                  float *acc)
{
    int lo = c->beg[row_i(c, r)] - jb;
    lo = lo < 0 ? 0 : lo;
    if (lo >= vis) {
        block_softmax(c, 0, sr, n, 0, m, l, acc);
        return;
    }
    float mx;
    switch (c->var & (DECODE_VAR_CAP | DECODE_VAR_ALIBI)) {
    case 0: mx = block_max_var(c, g, r, jb, lo, vis, sr, 0, 0); break;
    case DECODE_VAR_CAP: mx = block_max_var(c, g, r, jb, lo, vis, sr, 1, 0); break;
    case DECODE_VAR_ALIBI: mx = block_max_var(c, g, r, jb, lo, vis, sr, 0, 1); break;
    default: mx = block_max_var(c, g, r, jb, lo, vis, sr, 1, 1);
    }
    block_exp(c, sr, n, lo / HR_VW * HR_VW, (vis + HR_VW - 1) / HR_VW * HR_VW, vis, mx, m, l, acc);
}

/* The online-softmax step of every row of KV head g's group over keys [jb, jb+n), end[i]
 * the causal end of query row i, the scores in log2 units (block_softmax), with p's
 * variants where it has any (block_variants). */
DECODE_INLINE void block_softmax_rows(const dctx *c, int wide, int g, int jb, int n, const int *end, float *s,
                                      dstate st)
{
    for (int r = 0; r < c->R; r++) {
        int vis = end[row_i(c, r)] - jb;
        vis = vis < 0 ? 0 : vis > n ? n : vis;
        float *sr = s + (size_t)r * c->kbp;
        if (c->var) block_variants(c, g, r, jb, n, vis, sr, &st.m[r], &st.l[r], st.acc + (size_t)r * c->dp);
        else block_softmax(c, wide, sr, n, vis, &st.m[r], &st.l[r], st.acc + (size_t)r * c->dp);
    }
}

/* The lines of rows [0, nrows) of pf (stride psn, rb bytes each) in address order,
 * handed out over `steps` calls of pf_step, a few per call, so the misses stay spread
 * (a burst stalls on the miss buffers, decode_block.h): after call i, floor(lines * i /
 * steps) lines are issued (a running remainder, no division in the loop). lpr lines per
 * row, the last one of an unaligned row at its last byte. */
typedef struct {
    const unsigned char *row; /* the row of the next line                          */
    ptrdiff_t psn;
    size_t rb;
    int lpr, col;             /* lines per row, the next line's index in its row    */
    int lines, steps, rem;    /* lines in all, calls in all, remainder * steps       */
    int span;                 /* one span: row the next line's address, 64-aligned      */
    const unsigned char *const *tab; /* PF_GROUPS: the next group's first row           */
} pf_seq;

/* span: 0 the row walk alone, 1 unaligned rows back to back as one span, PF_ALIGNED any
 * rows back to back (aligned ones too) */
#define PF_ALIGNED 2
/* pf_step_s's walk of a paged block's groups (pf_groups), a constant in the paged steps */
#define PF_GROUPS 3
DECODE_INLINE pf_seq pf_rows_s(const dctx *c, const unsigned char *pf, ptrdiff_t psn, int nrows, int steps, int span)
{
    /* Unaligned rows back to back (BHND, psn = rb) are one span: each line once. Row by
     * row, their lines were shared with the neighbours' (q4_0's 72-byte rows: 3
     * prefetches per 72 bytes, each line ~2.7 times; q8_0's 136: ~1.9 times). Aligned
     * fp32 rows keep the row walk: the same lines in the same order, yet as one span
     * fp32 was slower (not understood). f16 and bf16 take the span aligned too
     * (PF_ALIGNED): the row walk's ~11 instructions a line against the span's 4, 4 lines
     * a key at d 128, cost them more than the span (perf-log 0226). */
    const bool whole = (c->rb % 64 || span == PF_ALIGNED) && psn == (ptrdiff_t)c->rb && nrows > 0;
    const size_t rb = whole ? c->rb * (size_t)nrows : c->rb;
    if (span && rb != c->rb) { /* a span: its lines exactly, walked by address (pf_step's first loop) */
        const uintptr_t a = (uintptr_t)pf & ~(uintptr_t)63, e = ((uintptr_t)pf + rb - 1) | 63;
        return (pf_seq){(const unsigned char *)a, psn, rb, 0, 0, (int)((e + 1 - a) / 64), steps > 0 ? steps : 1, 0, 1, NULL};
    }
    const int rows = rb == c->rb ? nrows : 1, lpr = (int)((rb + 63) / 64) + (rb % 64 != 0);
    return (pf_seq){pf, psn, rb, lpr, 0, rows * lpr, steps > 0 ? steps : 1, 0, 0, NULL};
}
/* A paged block's prefetch (span PF_GROUPS): the ng groups whose first rows tab holds, each
 * DECODE_GROUP rows back to back (sn = rb: decode.c passes none otherwise), its lines in
 * address order, a group's whole lines even where the block starts or ends inside it. */
DECODE_INLINE pf_seq pf_groups(const dctx *c, const unsigned char *const *tab, int ng, int steps)
{
    const int lpr = (int)((DECODE_GROUP * c->rb + 63) / 64);
    return (pf_seq){ng > 0 ? tab[0] : NULL, 0, c->rb, lpr, 0, ng * lpr, steps > 0 ? steps : 1, 0, 0, tab};
}
DECODE_INLINE pf_seq pf_rows(const dctx *c, const unsigned char *pf, ptrdiff_t psn, int nrows, int steps)
{
    return pf_rows_s(c, pf, psn, nrows, steps, HR_DECODE_PF_SPAN);
}

/* pf_step's calls per 4 keys of a scores pass whose row tiles of rt rows each step it
 * once per xs values of d (decode_kv.c's and decode_bf16.c's scores). */
DECODE_INLINE int pf_tile_steps(const dctx *c, int rt, int xs) { return (c->R + rt - 1) / rt * ((c->d + xs - 1) / xs); }

/* prefetcht1 into L2; the block steps' _l1 copies (Makefile VARIANTS) define 3, prefetcht0 into L1 */
#ifndef HR_DECODE_PF_HINT
#define HR_DECODE_PF_HINT 2
#endif

DECODE_INLINE void pf_step_s(pf_seq *q, int span)
{
    if (span == PF_GROUPS) {
        for (q->rem += q->lines; q->rem >= q->steps; q->rem -= q->steps) {
            __builtin_prefetch(*q->tab + (size_t)q->col * 64, 0, HR_DECODE_PF_HINT);
            if (++q->col == q->lpr) {
                q->col = 0;
                q->tab++;
            }
        }
        return;
    }
    if (span && q->span) { /* 4 instructions a line, where the row walk's took 11 (perf-log 0226) */
        for (q->rem += q->lines; q->rem >= q->steps; q->rem -= q->steps, q->row += 64)
            __builtin_prefetch(q->row, 0, HR_DECODE_PF_HINT);
        return;
    }
    for (q->rem += q->lines; q->rem >= q->steps; q->rem -= q->steps) {
        const size_t off = (size_t)q->col * 64;
        __builtin_prefetch(q->row + (off < q->rb ? off : q->rb - 1), 0, HR_DECODE_PF_HINT);
        if (++q->col == q->lpr) {
            q->col = 0;
            q->row += q->psn;
        }
    }
}
DECODE_INLINE void pf_step(pf_seq *q) { pf_step_s(q, HR_DECODE_PF_SPAN); }

/* decode_kv.c: one key block [jb, jb+n) of KV head g (batch b) from a K/V cache stored
 * in c->kt (not f32) into st, as attend_block does for f32, with K and V converted to
 * fp32 in registers. Prefetch arguments as attend_block's. */
void hr_decode_block_kv_l1(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                           float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k);
void hr_decode_block_kv(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                        float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k);
/* An int8 block step for q8_0/q4_0 caches, one table per instance of decode_i8.c's
 * source: hr_decode_i8_vnni (vpdpbusd: AVX512-VNNI at the avx512 level, AVX-VNNI at
 * avx2) and hr_decode_i8_emu (the decode_i8e copy of decode_i8.c: AVX2 without AVX-VNNI, vpdpbusd spelled as
 * vpmaddubsw + vpmaddwd, q8_0 by the sign trick; on other levels only .why_not).
 *   why_not   NULL where this build level and CPU run it, else why not (decode_path.c's
 *             rows int8 and emu)
 *   pv8       1 where P·V is int8 too (unless HEADROOM_DECODE_PV=fp32)
 *   qf, sf    the floats it adds to a head's query block and to the scores block
 *   quant     the scaled query rows q of c's group quantized to q8_0 into qx
 *   block     hr_decode_block_kv's step by int8 scores, q the query block
 *   path      its name for t */
typedef struct hr_decode_i8_step {
    const char *(*why_not)(void);
    int (*pv8)(void);
    size_t (*qf)(const dctx *c);
    size_t (*sf)(const dctx *c);
    void (*quant)(const dctx *c, const float *q, float *qx);
    void (*block)(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q, float *s, dstate st,
                  int nv, int n2, int jpf_v, int jpf_k);
    const char *(*path)(hr_dtype t);
} hr_decode_i8_step;
extern const hr_decode_i8_step hr_decode_i8_vnni, hr_decode_i8_emu, hr_decode_i8_vnni_l1, hr_decode_i8_emu_l1;
/* decode_path.c: decode's paths (int8, emu, bf16dot, convert) in one table per kind of
 * cache, sharing HEADROOM_DECODE_PATH (path.h). The step of a path: the int8 instance it
 * scores by (NULL: none), and whether it is decode_bf16.c's. */
typedef struct {
    const hr_decode_i8_step *i8;
    int bf16;
} hr_decode_step;
const hr_decode_step *hr_decode_pick(const hr_problem *p); /* the path p runs on, once per call */
const char *hr_decode_why_not(const hr_problem *p);        /* why not as HEADROOM_DECODE_PATH forces */
/* HEADROOM_DECODE_PV, a knob of the int8 paths: 1 fp32, 0 int8 or unset, -1 anything else */
static inline int hr_decode_pv_env(void)
{
    const char *e = getenv("HEADROOM_DECODE_PV");
    return !e || !*e || !strcmp(e, "int8") ? 0 : !strcmp(e, "fp32") ? 1 : -1;
}
/* decode_bf16.c: a bf16 cache on a CPU with AVX512-BF16 (avx512 builds): scores by
 * vdpbf16ps on Q in bf16 (or, HEADROOM_DECODE_Q=exact, fp32 FMAs on K read even/odd),
 * P·V by vdpbf16ps on key pairs with P rounded to bf16.
 * hr_decode_bf16_why_not: NULL where this build level and CPU run it (decode_path.c's row
 * bf16dot: d a multiple of 32, and by default not an Intel CPU, whose vdpbf16ps runs at
 * half its FMAs' rate);
 * hr_decode_bf16_sf the floats it adds to the scores block (P in bf16);
 * hr_decode_block_bf16 hr_decode_block_kv's step on it (defined where HR_HAVE_BF16DOT); hr_decode_bf16_path its name
 * for p (bf16 Q: the scores by vdpbf16ps too). */
const char *hr_decode_bf16_why_not(void);
size_t hr_decode_bf16_sf(const dctx *c);
void hr_decode_block_bf16_l1(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                             float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k);
void hr_decode_block_bf16(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                          float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k);
const char *hr_decode_bf16_path(const hr_problem *p);
/* Whether that path scores by vdpbf16ps on Q in bf16: a bf16 Q as given, or an f32/f16
 * Q rounded to bf16 (nearest even) unless HEADROOM_DECODE_Q=exact (hr_decode_q_env),
 * as llama.cpp rounds Q to the type of K's dot product. */
int hr_decode_bf16_q(hr_dtype qt);
int hr_decode_q_env(void); /* HEADROOM_DECODE_Q: 1 exact, 0 auto or unset, -1 anything else */
/* decode_kv.c: the conversion path's name for p's types (decode_path.c's row convert). */
const char *hr_decode_kv_path(const hr_problem *p);

/* Where the block steps' prefetches (pf_step) put the next block's K and V lines:
 * HEADROOM_DECODE_PF=l1 (prefetcht0) or l2 (prefetcht1); unset or auto, L1 at the
 * avx512 and avx2 levels on an AMD family 1Ah CPU (Zen 5), else L2: prefetcht0 pays
 * there at both levels and costs on the other CPUs measured (perf-log 0227). The hint
 * is an instruction's constant: a branch on it in pf_step costs q4_0 more than L1 gains,
 * so each block step is compiled twice: the Makefile builds decode_kv.c, decode_bf16.c
 * and decode_i8.c (both its copies) again as the _l1 copies (VARIANTS). The vpmaddubsw
 * step (decode_i8e) prefetches into L1 only where asked: auto is unmeasured there and
 * keeps L2. decode.c's BNHD walk (attend_heads) fills L2 with a whole block of every
 * head ahead: prefetcht1 always. */
int hr_decode_pf_l1(const hr_decode_step *s); /* for a path's step: auto is 0 on the decode_i8e copy's instance */
int hr_decode_pf_env(void); /* 1 l1, 0 l2, 2 auto or unset, -1 anything else (refused) */
/* decode_path.c: the path decode takes on p on this build ("avx512 fp32", ...): its row's
 * roof, with ", prefetch into L1" where the block steps prefetch there. */
const char *hr_decode_path(const hr_problem *p);
/* decode_tune.c: the default keys per block for p on machine m (decode's resolve), and
 * HR_KV_TILE where decode reads p's q4_0 cache in tiles under tune t (its kv_tile), else 0 */
int hr_decode_default_block(const hr_problem *p, const hr_machine *m, int threads);
int hr_decode_kv_tile(const hr_problem *p, const hr_tune *t);
/* HEADROOM_DECODE_KV: 0 unset or auto (tiles where they run), 1 rows (never ask), -1 else */
int hr_decode_kv_env(void);

#endif

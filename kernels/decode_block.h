/* decode_block.h — flash-decoding's per-block steps (scores, online softmax, P·V) on fp32 rows, shared by decode.c and decode_kv.c. */
#ifndef HR_DECODE_BLOCK_H
#define HR_DECODE_BLOCK_H

#include <math.h>
#include <string.h>

#include "headroom.h"
#include "vec.h"

#define DECODE_MAX_Q 16      /* query rows per head this kernel accepts            */
/* The block steps are inlined into both walks (one head, interleaved heads): with two
 * callers gcc stopped inlining them and one-core decode lost ~8% (measured). */
#define DECODE_INLINE static inline __attribute__((always_inline))
#define DECODE_BLOCK_KV 64   /* default keys per block (K, V blocks of 32 KiB at d 128) */
/* A typed cache's default: its per-block work (softmax, rescale, tile set-up) is paid
 * per key block while the rows are 2-7x smaller; H8 L1024 d128 f16 at 1 thread, keys
 * per block 32/64/128/256: 23/25/26/28 M keys/s (interleaved, a loaded machine). */
#define DECODE_BLOCK_KV_TYPED 256
#define DECODE_ROWS 4        /* query rows per register tile in P·V                 */

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
} dctx;

/* The partial state stored in a slot. */
typedef struct {
    float *m, *l, *acc;
} dstate;

/* Query row r of the group is head g*G + r / Nq, row r % Nq. */
static inline int row_head(const dctx *c, int g, int r) { return g * c->G + r / c->p->seq_q; }
static inline int row_i(const dctx *c, int r) { return r % c->p->seq_q; }

static inline float dot_tail(const float *q, const float *k, int x, int d)
{
    /* q is zero padded; k may end at d. */
    return hr_vreduce_add(hr_vmul(hr_vload(q + x), hr_vload_n(k + x, d - x)));
}

/* Scores of keys [jb, jb+n) for every row into s (row stride kbp): s = q_r · k_j
 * (q already carries the scale). Four keys at a time so their loads and FMA chains are
 * independent. Meanwhile the first nv V rows of the next block (v0) are prefetched into
 * L2: a block ahead, not the current one, and into L2 rather than L1, each measured
 * faster on DRAM-resident caches (+18% and +50% single-thread); the hardware prefetcher
 * alone reaches only ~45% of the triad. */
DECODE_INLINE void block_scores(const dctx *c, const float *q, const float *k0, ptrdiff_t sn,
                         const float *v0, ptrdiff_t vsn, int n, float *s, int nv)
{
    const int d = c->d, R = c->R, dfull = d / HR_VW * HR_VW;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        const float *k[4] = {k0 + j * sn, k0 + (j + 1) * sn, k0 + (j + 2) * sn,
                             k0 + (j + 3) * sn};
        for (int u = 0; u < 4; u++)
            if (j + u < nv) for (int x = 0; x < d; x += 16) __builtin_prefetch(v0 + (j + u) * vsn + x, 0, 2);
        for (int r = 0; r < R; r++) {
            const float *qr = q + (size_t)r * c->dp;
            hr_vf a0 = hr_vzero(), a1 = hr_vzero(), a2 = hr_vzero(), a3 = hr_vzero();
            int x = 0;
            for (; x < dfull; x += HR_VW) {
                hr_vf qv = hr_vload(qr + x);
                a0 = hr_vfma(qv, hr_vload(k[0] + x), a0);
                a1 = hr_vfma(qv, hr_vload(k[1] + x), a1);
                a2 = hr_vfma(qv, hr_vload(k[2] + x), a2);
                a3 = hr_vfma(qv, hr_vload(k[3] + x), a3);
            }
            float *sr = s + (size_t)r * c->kbp + j;
            hr_vreduce_add4(a0, a1, a2, a3, sr);
            if (x < d)
                for (int u = 0; u < 4; u++) sr[u] += dot_tail(qr, k[u], x, d);
        }
    }
    for (; j < n; j++) {
        const float *kj = k0 + j * sn;
        if (j < nv) for (int x = 0; x < d; x += 16) __builtin_prefetch(v0 + j * vsn + x, 0, 2);
        for (int r = 0; r < R; r++) {
            const float *qr = q + (size_t)r * c->dp;
            hr_vf a = hr_vzero();
            int x = 0;
            for (; x < dfull; x += HR_VW) a = hr_vfma(hr_vload(qr + x), hr_vload(kj + x), a);
            float t = hr_vreduce_add(a);
            if (x < d) t += dot_tail(qr, kj, x, d);
            s[(size_t)r * c->kbp + j] = t;
        }
    }
}

/* Online-softmax step of one row over the block's first vis scores (the rest are
 * masked): afterwards m is the max over every visible key seen so far, l the sum of
 * exp(s - m) over them, acc rescaled to the new m, and sr holds exp(s - m) with zeros
 * for masked keys. */
DECODE_INLINE void block_softmax(const dctx *c, float *sr, int n, int vis, float *m, float *l,
                          float *acc)
{
    if (vis <= 0) {
        memset(sr, 0, (size_t)n * sizeof *sr);
        return;
    }
    const int vfull = vis / HR_VW * HR_VW;
    hr_vf vmx = hr_vset1(-INFINITY);
    for (int j = 0; j < vfull; j += HR_VW) vmx = hr_vmax(vmx, hr_vload(sr + j));
    float mx = hr_vreduce_max(vmx);
    for (int j = vfull; j < vis; j++) mx = sr[j] > mx ? sr[j] : mx;
    float mnew = *m > mx ? *m : mx;
    /* m = -inf means no key seen yet: l and acc are 0, nothing to rescale. */
    float alpha = *m == -INFINITY ? 0.0f : hr_expf_poly(*m - mnew);
    hr_vf vm = hr_vset1(mnew), vsum = hr_vzero();
    for (int j = 0; j < vfull; j += HR_VW) {
        hr_vf e = hr_vexp(hr_vsub(hr_vload(sr + j), vm));
        hr_vstore(sr + j, e);
        vsum = hr_vadd(vsum, e);
    }
    float sum = hr_vreduce_add(vsum);
    for (int j = vfull; j < vis; j++) {
        sr[j] = hr_expf_poly(sr[j] - mnew);
        sum += sr[j];
    }
    for (int j = vis; j < n; j++) sr[j] = 0.0f;
    *l = *l * alpha + sum;
    *m = mnew;
    if (alpha != 1.0f) {
        hr_vf va = hr_vset1(alpha);
        for (int x = 0; x < c->dp; x += HR_VW) hr_vstore(acc + x, hr_vmul(hr_vload(acc + x), va));
    }
}

/* acc[r] += sum_j p[r][j] * V_j for the block's n keys, DECODE_ROWS rows per register
 * tile, one vector of d at a time (V loaded once per tile). Meanwhile the first nnext K
 * rows of the block after next (knext) are prefetched into L2, one line per key step
 * rather than in a burst (a burst stalls on the miss buffers: ~10% slower measured on
 * L2-resident data), so memory stays busy while this phase computes. The lines go in
 * address order (line l of the block at step l of the passes), not column by column
 * as the passes read V: the L2 stream prefetcher follows ascending lines and runs
 * ahead of them, a 512-byte stride it does not. Measured at H32/8 L16384 d128, against
 * the concurrent bandwidth probe, interleaved: 1 thread 0.60 -> 0.84, 2 threads
 * 0.63-0.80 -> 0.84-1.0 (a plain read loop here: ~27 GB/s per core in address order,
 * ~10-14 GB/s in decode's 4-row and column orders). */
DECODE_INLINE void block_pv(const dctx *c, const float *s, const float *v0, ptrdiff_t sn,
                     const float *knext, ptrdiff_t ksn, int nnext, int n, float *acc)
{
    const int d = c->d, R = c->R, dp = c->dp, kbp = c->kbp, lpr = (d + 15) / 16;
    for (int x = 0; x < d; x += HR_VW) {
        const int w = d - x < HR_VW ? d - x : HR_VW;
        const int npf = x % 16 == 0 ? nnext : 0; /* nnext lines per 64-byte column pass */
        const int pass = x / 16;
        int r = 0;
        for (; r + DECODE_ROWS <= R; r += DECODE_ROWS) {
            float *a = acc + (size_t)r * dp + x;
            const float *p = s + (size_t)r * kbp;
            hr_vf a0 = hr_vload(a), a1 = hr_vload(a + dp), a2 = hr_vload(a + 2 * dp),
                  a3 = hr_vload(a + 3 * dp);
            for (int j = 0; j < n; j++) {
                if (r == 0 && j < npf) {
                    const int line = pass * nnext + j; /* in address order over the block */
                    __builtin_prefetch(knext + line / lpr * ksn + line % lpr * 16, 0, 2);
                }
                hr_vf v = w == HR_VW ? hr_vload(v0 + j * sn + x) : hr_vload_n(v0 + j * sn + x, w);
                a0 = hr_vfma(hr_vset1(p[j]), v, a0);
                a1 = hr_vfma(hr_vset1(p[kbp + j]), v, a1);
                a2 = hr_vfma(hr_vset1(p[2 * kbp + j]), v, a2);
                a3 = hr_vfma(hr_vset1(p[3 * kbp + j]), v, a3);
            }
            hr_vstore(a, a0);
            hr_vstore(a + dp, a1);
            hr_vstore(a + 2 * dp, a2);
            hr_vstore(a + 3 * dp, a3);
        }
        for (; r < R; r++) {
            float *a = acc + (size_t)r * dp + x;
            const float *p = s + (size_t)r * kbp;
            hr_vf a0 = hr_vload(a);
            for (int j = 0; j < n; j++) {
                if (r == 0 && j < npf) {
                    const int line = pass * nnext + j; /* in address order over the block */
                    __builtin_prefetch(knext + line / lpr * ksn + line % lpr * 16, 0, 2);
                }
                hr_vf v = w == HR_VW ? hr_vload(v0 + j * sn + x) : hr_vload_n(v0 + j * sn + x, w);
                a0 = hr_vfma(hr_vset1(p[j]), v, a0);
            }
            hr_vstore(a, a0);
        }
    }
}
/* The online-softmax step of every row of the group over keys [jb, jb+n), end[i] the
 * causal end of query row i. */
DECODE_INLINE void block_softmax_rows(const dctx *c, int jb, int n, const int *end, float *s, dstate st)
{
    for (int r = 0; r < c->R; r++) {
        int vis = end[row_i(c, r)] - jb;
        vis = vis < 0 ? 0 : vis > n ? n : vis;
        block_softmax(c, s + (size_t)r * c->kbp, n, vis, &st.m[r], &st.l[r], st.acc + (size_t)r * c->dp);
    }
}

/* decode_kv.c: one key block [jb, jb+n) of KV head g (batch b) from a K/V cache stored
 * in c->kt (not f32) into st, as attend_block does for f32, with K and V converted to
 * fp32 in registers. Prefetch arguments as attend_block's. */
void hr_decode_block_kv(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                        float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k);
/* The path decode takes on p on this build ("avx512 f16c convert", ...). */
const char *hr_decode_path(const hr_problem *p);

#endif

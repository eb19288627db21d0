/* flash_bf16.c — flash's (and gqa's) bf16dot path: vdpbf16ps over bf16 Q, K, V with fp32 accumulation. */

/* The same FlashAttention-2 row stack as flash.c (flash_tile.h: the online softmax, its
 * invariants, causal skipping, prefetch), with the two products on AVX512-BF16's
 * vdpbf16ps, which adds to each of 16 fp32 lanes the dot product of a pair of bf16:
 *   S = Q Kᵀ  lanes are keys, pairs run along d: kt holds the K tile as
 *            kt[d/2][Bkv] 32-bit words, word (kp, j) = (K[j][2kp], K[j][2kp+1]) -- the
 *            fp32 path's transpose applied to the pairs as 32-bit elements -- and a row of
 *            Q supplies (Q[2kp], Q[2kp+1]) broadcast to every lane.
 *   O += P V lanes are columns of d, pairs run along keys: vp holds the V tile as
 *            vp[Bkv/2][dp] pairs (V[2jp][c], V[2jp+1][c]), P row r supplies
 *            (P[2jp], P[2jp+1]) broadcast. P is rounded to bf16 (nearest even) as the
 *            softmax writes it, in place over the fp32 scores it was computed from.
 * Q stays as given (a scaled Q would be rounded again); the scores are raw dot products
 * and the softmax computes exp2(s * c - m) with one FMA, c = scale * log2 e > 0, m the
 * running max in those units. Odd d: Q and K pairs padded with a zero; odd key counts:
 * a zero V row, whose P is 0 anyway (masked). l sums the unrounded P.
 * Accuracy: products of bf16 are exact in fp32, the sums fp32 (as the fp32 kernel's); P
 * rounded to bf16 is the one extra rounding, which the oracle's P·V term allows
 * (harness/base/oracle.c, docs/explanation/oracle.md). f16 inputs take the conversion path:
 * f16 -> bf16 would round K and V by 2^-8, 8x f16's own rounding, which no tolerance
 * here covers.
 *
 * What limits it (per 16 scores of one row, d the head dim):
 *   products  vdpbf16ps zmm = 16 lanes x 2 bf16 multiply-adds = 64 FLOP, one per cycle
 *             (the bf16 roof `headroom roofline` measures, 2x the fp32 FMA's 32 FLOP).
 *             S takes d/2 of them (one per d-pair), P·V 8 key pairs x d/16 column vectors
 *             = d/2: d instructions per 16 scores, 64 at d 64, 128 at d 128 -- half the
 *             fp32 kernel's 2d FMAs for the same FLOPs. (Where vdpbf16ps runs at half
 *             the fp32 FMA's rate this path would be slower than fp32; on a CPU with AMX,
 *             flash_amx.c takes bf16.)
 *   loads     per k step 4 zmm of kt + 6 pair broadcasts for 24 vdpbf16ps (0.42 per
 *             instruction, as fp32); P·V the same per key pair. The 6 x 64 fp32 O tile is
 *             loaded and stored once per key tile (48 memory ops per 768 instructions).
 *   softmax   the same vector ops as fp32 against half the product instructions, so it
 *             weighs twice as much: fma(s, c, -m), exp2 (vreduceps, 3 FMAs of a degree-3
 *             polynomial, scalef: vec_softmax.h's hr_vexp2_bf16, 2 ops fewer than the
 *             degree-4 hr_vexp2_fin: perf-log 0225), half a vcvtne2ps2bf16 and half a store, add
 *             into l: ~8 FP ops (the max comes from the S kernel's epilogue, softmax_row).
 *             Per row and tile the lazy rescale costs a mul and a compare instead of a
 *             horizontal max (8 shuffles/max) and the O rescale. Ceiling by count
 *             d / (d + 8): 89% of the bf16 roof at d 64, 94% at d 128. The exp pass of
 *             micro-tile t runs inside t - 1's P·V loop (pv_exp: a unit of two vectors
 *             every second key pair), so its reduce, scalef, convert and adds issue
 *             beside the vdpbf16ps stream (perf-log 0225); S of t first, the scores of
 *             t and the weights of t - 1 in two halves of w->s.
 *   packing   K: a 16 x 16 32-bit transpose per 16 keys x 32 d (64 shuffles), V: per key
 *             pair and 16 columns two widening loads, a shift and an or: ~Bkv*d/4 ops per
 *             tile against Bq*Bkv*d/32 instructions, 8/Bq = 4% at Bq 192.
 *   conversions  none on the inputs (bf16 is used as stored); P to bf16 (counted above);
 *             O is fp32 until hr_ft_store_x rounds it once per row.
 *   So ~84% (d 64) and ~89% (d 128) of the roof by count before loop overheads; the
 *   path reaches about 0.8 of the bf16 roof, 1.9x fp32 (perf-log 0224, 0225). Bkv 128
 *   instead of 64 gains nothing worth a tile of its own, so the tiles stay flash.c's. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flash_bf16_exp.h"
#include "flash_tile.h"
#include "headroom.h"
#include "vec.h"
#include "vec_bf16.h"
#include "vec_softmax.h"

const char *hr_ft_bf16_why_not(void)
{
#if defined(HR_HAVE_BF16DOT)
    return hr_cpu_bf16() ? NULL : "the CPU has no AVX512-BF16 (cpuid)";
#else
    return "the " HR_VEC_ISA " level has no AVX512-BF16 code (only avx512 builds compile it)";
#endif
}

#if defined(HR_HAVE_BF16DOT)

#define MR 6
#define NV 4
#define VW 16 /* fp32 lanes = bf16 pairs per vector */
#define HR_FT_SLACK 8.0f

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* ---- micro-kernels ---------------------------------------------------------------- */

/* C[mr][nv*VW] = (add ? C : 0) + sum over n pairs of A's bf16 pair x B's row of pairs:
 * a rows lda bf16 apart (pair k at a + 2k), b rows ldb bytes apart (VW pairs = 64 bytes
 * a vector), c rows ldc floats. S = Q Kᵀ (raw dot products) is (dh, q, kt) with add 0,
 * O += P V is (np, p, vp) with add 1; add is a constant in every instance. S's also
 * keeps its rows' lane maxima: mx[r][i] = max(mx[r][i], C[r][v*VW + i] over v) (mx NULL
 * in P·V's, a constant too). pv_exp, P·V of a full micro-tile (MR rows, NV vectors), also
 * runs the next micro-tile's exp passes (jobs, NULL elsewhere), a unit of two vectors
 * every second key pair, so that their reduce, scalef, convert and adds issue beside the
 * vdpbf16ps stream rather than as a phase of their own (their FMAs still take the dot
 * pipes' slots); those the key pairs leave run after. */
HR_BF16_INLINE void dot_body(int mr, int nv, int n, const uint16_t *a, int lda, const char *b,
                             ptrdiff_t ldb, float *c, int ldc, int add, float *mx, const sm_job *jobs, int nj,
                             hr_vf cv)
{
    hr_vf acc[MR][NV];
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) acc[r][v] = add ? hr_vload(c + r * ldc + v * VW) : hr_vzero();
    int ji = 0, jc = 0;
    hr_vf mneg = hr_vset1(jobs && nj ? jobs[0].mneg : 0.0f), sum = hr_vzero(), sum2 = hr_vzero();
    for (int k = 0; k < n; k++) {
        hr_vbf bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) bv[v] = hr_vbf_load(b + k * ldb + v * 64);
#pragma GCC unroll 8
        for (int r = 0; r < mr; r++) {
            hr_vbf ab = hr_vbf_pair1(a + r * lda + 2 * k);
#pragma GCC unroll 4
            for (int v = 0; v < nv; v++) acc[r][v] = hr_vdot_bf16(acc[r][v], ab, bv[v]);
        }
        if (jobs && k & 1 && ji < nj) { /* pv_exp's: a unit of the next micro-tile's exp passes */
            exp_unit(&jobs[ji], jc, cv, mneg, &sum, &sum2);
            if ((jc += 2 * VW) >= jobs[ji].n) {
                exp_done(&jobs[ji], sum, sum2);
                sum = sum2 = hr_vzero(), jc = 0;
                if (++ji < nj) mneg = hr_vset1(jobs[ji].mneg);
            }
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) hr_vstore(c + r * ldc + v * VW, acc[r][v]);
    if (jobs) { /* the jobs the key pairs left: the one half done, then the rest */
        if (ji < nj && jc) {
            for (; jc < jobs[ji].n; jc += 2 * VW) exp_unit(&jobs[ji], jc, cv, mneg, &sum, &sum2);
            exp_done(&jobs[ji++], sum, sum2);
        }
        for (; ji < nj; ji++) exp_job(&jobs[ji], cv);
    }
    if (mx)
#pragma GCC unroll 8
        for (int r = 0; r < mr; r++) {
            hr_vf m = hr_vload(mx + r * VW);
#pragma GCC unroll 4
            for (int v = 0; v < nv; v++) m = hr_vmax(m, acc[r][v]);
            hr_vstore(mx + r * VW, m);
        }
}
/* One instance per (rows, width), as in flash.c: NV vectors ("w") and one ("n"). */
#define QK_PARAMS int dh, const uint16_t *q, int ldq, const uint32_t *kt, int ldk, float *s, int lds, float *mx
#define QK_ARGS dh, q, ldq, (const char *)kt, (ptrdiff_t)ldk * 4, s, lds /* kt rows ldk words apart */
#define PV_PARAMS int np, const uint16_t *p, int ldp, const uint16_t *vp, int ldv, float *o, int ldo
#define PV_ARGS np, p, ldp, (const char *)vp, (ptrdiff_t)ldv * 2, o, ldo /* vp rows ldv bf16 apart */
typedef void qk_fn(QK_PARAMS);
typedef void pv_fn(PV_PARAMS);
#define INSTANCES(m)                                                                    \
    static HR_BF16_TARGET void qk##m##w(QK_PARAMS) { dot_body(m, NV, QK_ARGS, 0, mx, NULL, 0, hr_vzero()); }   \
    static HR_BF16_TARGET void qk##m##n(QK_PARAMS) { dot_body(m, 1, QK_ARGS, 0, mx, NULL, 0, hr_vzero()); }    \
    static HR_BF16_TARGET void pv##m##w(PV_PARAMS) { dot_body(m, NV, PV_ARGS, 1, NULL, NULL, 0, hr_vzero()); } \
    static HR_BF16_TARGET void pv##m##n(PV_PARAMS) { dot_body(m, 1, PV_ARGS, 1, NULL, NULL, 0, hr_vzero()); }
INSTANCES(1)
INSTANCES(2)
INSTANCES(3)
INSTANCES(4)
INSTANCES(5)
INSTANCES(6)
static qk_fn *const qk_wide[MR + 1] = {NULL, qk1w, qk2w, qk3w, qk4w, qk5w, qk6w};
static qk_fn *const qk_one[MR + 1] = {NULL, qk1n, qk2n, qk3n, qk4n, qk5n, qk6n};
static pv_fn *const pv_wide[MR + 1] = {NULL, pv1w, pv2w, pv3w, pv4w, pv5w, pv6w};
static pv_fn *const pv_one[MR + 1] = {NULL, pv1n, pv2n, pv3n, pv4n, pv5n, pv6n};
static HR_BF16_TARGET void pv_exp(PV_PARAMS, const sm_job *jobs, int nj, hr_vf cv)
{
    dot_body(MR, NV, PV_ARGS, 1, NULL, jobs, nj, cv);
}

/* ---- the row stack in bf16 ---------------------------------------------------------- */

/* Q rows are kept as bf16, dq = d rounded up to even values apart, in w->q's space. */
static int dq_of(const hr_ft_ws *w) { return (w->d + 1) & ~1; }

HR_BF16_TARGET void hr_ft_dot_load_q(hr_ft_ws *w, int r, const void *q_row, float qscale, int end_r)
{
    const int d = w->d, dq = dq_of(w);
    uint16_t *q = (uint16_t *)w->q + (size_t)r * dq;
    for (int c = 0; c < d; c += 2 * VW) { /* in registers: a libc call a row cost more (perf-log 0225) */
        const int n = d - c < 2 * VW ? d - c : 2 * VW;
        hr_vbf_store_n(q + c, hr_vbf_load_n((const uint16_t *)q_row + c, n), n);
    }
    if (dq > d) q[d] = 0;
    float *o = w->o + (size_t)r * w->dp;
    for (int c = 0; c < w->dp; c += VW) hr_vstore(o + c, hr_vzero());
    w->m[r] = -INFINITY;
    hr_vstore(w->l + (size_t)r * VW, hr_vzero());
    w->end[r] = end_r;
    w->qscale = qscale;
}

/* d floats x (readable up to the next multiple of VW: an O row of w->dp) rounded to bf16
 * into row as hr_dtype_store_row rounds them, in registers (its scalar call per value
 * cost more: perf-log 0225). */
HR_BF16_TARGET void hr_ft_dot_round_bf16(const float *x, void *row, int d)
{
    for (int c = 0; c < d; c += VW) hr_vstore_bf16_exact_n((uint16_t *)row + c, hr_vload(x + c), d - c);
}

/* kt word (kp, c0 + j) = pair kp of K row j, for the nk keys from k (a run of a tile:
 * hr_ft_kv_run). Whole 16 x 16 word blocks go through vec.h's transpose (bits moved,
 * never interpreted) when the rows hold whole 32-bit words. */
static HR_BF16_TARGET void pack_k_run(hr_ft_ws *w, const char *k, ptrdiff_t k_sn, int c0, int nk)
{
    const int d = w->d, dh = dq_of(w) / 2, ld = w->bkvp;
    uint32_t *kt = (uint32_t *)w->kt + c0;
    const int words = d % 2 == 0 && k_sn % 4 == 0 && (uintptr_t)k % 4 == 0;
    int j = 0;
    if (words)
        for (; j + VW <= nk; j += VW) {
            int kp = 0;
            for (; kp + VW <= dh; kp += VW)
                hr_vtranspose((const float *)(k + j * k_sn) + kp, k_sn / 4,
                              (float *)(kt + (ptrdiff_t)kp * ld + j), ld);
            for (int jj = j; jj < j + VW; jj++)
                for (int k2 = kp; k2 < dh; k2++) memcpy(kt + (ptrdiff_t)k2 * ld + jj, k + jj * k_sn + 4 * k2, 4);
        }
    for (; j < nk; j++) {
        const uint16_t *src = (const uint16_t *)(k + j * k_sn);
        for (int kp = 0; kp < dh; kp++) {
            const uint32_t hi = 2 * kp + 1 < d ? src[2 * kp + 1] : 0;
            kt[(ptrdiff_t)kp * ld + j] = src[2 * kp] | hi << 16;
        }
    }
}

/* The tile of keys [j0, j0 + nk) of kv, run by run (one run unless paged); columns up to
 * the next multiple of VW are zero. */
HR_BF16_TARGET void hr_ft_bf16_pack_k(hr_ft_ws *w, const hr_ft_kv *kv, int j0, int nk)
{
    const int dh = dq_of(w) / 2, ld = w->bkvp, nkp = ceil_div(nk, VW) * VW;
    for (int c = 0; c < nk;) {
        const int n = hr_ft_kv_run(kv, j0 + c, nk - c);
        pack_k_run(w, hr_ft_kv_k(kv, j0 + c), kv->k_sn, c, n);
        c += n;
    }
    uint32_t *kt = (uint32_t *)w->kt;
    if (nkp > nk)
        for (int kp = 0; kp < dh; kp++) memset(kt + (ptrdiff_t)kp * ld + nk, 0, (size_t)(nkp - nk) * 4);
}

/* vp pair row jp, column c = (V[j0 + 2jp][c], V[j0 + 2jp + 1][c]); a missing odd row and
 * the columns from d to dp are zero. A pair's two rows are found one by one: paged, they
 * may lie in two pages (a tile need not start on an even key of a page). */
HR_BF16_TARGET void hr_ft_bf16_pack_v(hr_ft_ws *w, const hr_ft_kv *kv, int j0, int nk)
{
    const int d = w->d, dp = w->dp;
    uint16_t *vp = (uint16_t *)w->vp;
    for (int jp = 0; jp < ceil_div(nk, 2); jp++) {
        const char *a = hr_ft_kv_v(kv, j0 + 2 * jp), *b = NULL;
        if (2 * jp + 1 < nk) b = kv->table ? hr_ft_kv_v(kv, j0 + 2 * jp + 1) : a + kv->v_sn;
        uint16_t *dst = vp + (ptrdiff_t)jp * 2 * dp;
        for (int c = 0; c < dp; c += VW) {
            const int n = d - c >= VW ? VW : d > c ? d - c : 0; /* amx: dp may pass d by 16 */
            hr_vbf_store(dst + 2 * c, hr_vbf_zip_n(a + 2 * c, b ? b + 2 * c : NULL, n));
        }
    }
}

/* The online-softmax step of row r (flash.c's softmax_row) on raw scores s, ncols a
 * multiple of VW, keys at or past cut masked; leaves P in bf16 over the start of s.
 * smax: the lane maxima of the row's scores, kept by the S kernel's epilogue (24 vmaxps
 * a call, off the vdpbf16ps pipes); a row whose every column is a visible key takes it
 * instead of a load and max pass over s (a large share of the step: perf-log 0225).
 * In a row with masked columns (the causal diagonal, a tile's padding) smax includes
 * scores of keys the row must not see: an upper bound of its visible ones. Where it
 * stays within the running m + SLACK, m stays, so the bound is all the row needs; else
 * (a row's first tile, or a masked score far above the visible ones) the row takes the
 * pass, since m set from the bound could sit far enough above the visible scores to
 * flush their weights to 0. */
HR_BF16_INLINE int softmax_row(hr_ft_ws *w, int r, float *s, int ncols, int cut, const float *smax, sm_job *job)
{
    uint16_t *p = (uint16_t *)s;
    if (cut <= 0) {
        memset(p, 0, (size_t)ncols * sizeof(uint16_t));
        return 0;
    }
    /* Lazy rescaling: the running max m moves only when a score passes it by more than
     * HR_FT_SLACK (log2 units), so the weights stay <= 2^SLACK (fp32 sums have room to
     * spare) and the row's horizontal max and the O rescale are skipped on most tiles;
     * l and O keep using the same m, so o / l is unchanged. */
    float m_old = w->m[r];
    hr_vf mx = hr_vload(smax);
    if (cut < ncols) {
        /* Masked: a finite score that still gives 0 after the scaling (hr_vexp2_bf16
         * takes no -inf) for any scale c up to 10^30. */
        const float masked = -1e30f / (w->qscale > 1 ? w->qscale : 1);
        for (int c = cut; c < ncols; c++) s[c] = masked;
        /* smax bounds the visible scores from above: where it stays within m + SLACK, m
         * stays and the visible ones need no max of their own */
        if (m_old == -INFINITY || hr_vgt_any(hr_vmul(mx, hr_vset1(w->qscale)), m_old + HR_FT_SLACK)) {
            mx = hr_vset1(masked);
            for (int c = 0; c < ncols; c += VW) mx = hr_vmax(mx, hr_vload(s + c));
        }
    }
    const hr_vf mxs = hr_vmul(mx, hr_vset1(w->qscale));
    if (m_old == -INFINITY || hr_vgt_any(mxs, m_old + HR_FT_SLACK)) {
        const float m_new = hr_vreduce_max(mxs);
        if (m_old != -INFINITY) {
            hr_vf av = hr_vset1(exp2f(m_old - m_new));
            float *o = w->o + (size_t)r * w->dp;
            for (int c = 0; c < w->dp; c += VW) hr_vstore(o + c, hr_vmul(hr_vload(o + c), av));
            float *l = w->l + (size_t)r * VW;
            hr_vstore(l, hr_vmul(hr_vload(l), av));
        }
        w->m[r] = m_old = m_new;
    }
    *job = (sm_job){s, p, w->l + (size_t)r * VW, -m_old, ncols};
    return 1;
}

/* A micro-tile's P·V (rows r0 .. r0 + mr, np key pairs of P at p), with the next one's
 * exp jobs in its first NV vectors of d where the tile is full, else before it; with no
 * tile (p NULL: the first of a K/V tile) the jobs alone. */
typedef struct {
    int r0, mr, np;
    const uint16_t *p;
} pv_tile;
static HR_BF16_TARGET void pv_run(hr_ft_ws *w, pv_tile t, const sm_job *jobs, int nj, hr_vf cv)
{
    const int dp = w->dp, ld = w->bkvp;
    const uint16_t *vp = (const uint16_t *)w->vp;
    float *o = w->o + (size_t)t.r0 * dp;
    int c = 0;
    if (t.p && t.mr == MR && dp >= NV * VW) {
        pv_exp(t.np, t.p, 2 * ld, vp, 2 * dp, o, dp, jobs, nj, cv);
        c = NV * VW;
    } else
        for (int i = 0; i < nj; i++) exp_job(&jobs[i], cv);
    if (!t.p) return;
    for (; c + NV * VW <= dp; c += NV * VW) pv_wide[t.mr](t.np, t.p, 2 * ld, vp + 2 * c, 2 * dp, o + c, dp);
    for (; c < dp; c += VW) pv_one[t.mr](t.np, t.p, 2 * ld, vp + 2 * c, 2 * dp, o + c, dp);
}

/* Per K/V tile, micro-tile t's S, then its softmax up to the exp passes, then t - 1's
 * P·V with t's exp passes inside it (pv_run); the scores of t and the weights of t - 1 in
 * two halves of w->s. */
HR_BF16_TARGET void hr_ft_dot_attend(hr_ft_ws *w, int rows, const hr_ft_kv *kv)
{
    const int d = w->d, ld = w->bkvp, dq = dq_of(w);
    const size_t rb = (size_t)d * sizeof(uint16_t);
    const uint32_t *kt = (const uint32_t *)w->kt;
    const uint16_t *q16 = (const uint16_t *)w->q;
    const hr_vf cv = hr_vset1(w->qscale);
    int stop = 0;
    for (int r = 0; r < rows; r++)
        if (w->end[r] > stop) stop = w->end[r];
    for (int j0 = 0; j0 < stop; j0 += w->bkv) {
        const int nk = stop - j0 < w->bkv ? stop - j0 : w->bkv;
        hr_ft_bf16_pack_k(w, kv, j0, nk);
        hr_ft_bf16_pack_v(w, kv, j0, nk);
        const int nmt = ceil_div(rows, MR);
        pv_tile prev = {0, 0, 0, NULL};
        int half = 0;
        for (int r0 = 0; r0 < rows; r0 += MR) {
            const int mr = rows - r0 < MR ? rows - r0 : MR;
            const int lim = hr_ft_block_keys(w, r0, mr, r0 / MR, nmt, j0, nk, stop, kv, rb);
            if (lim <= 0) continue;
            const int nvec = ceil_div(lim, VW);
            const uint16_t *q = q16 + (size_t)r0 * dq;
            float *sb = w->s + (size_t)half * MR * ld, smax[MR * VW] __attribute__((aligned(64)));
            for (int r = 0; r < mr; r++) hr_vstore(smax + r * VW, hr_vset1(-INFINITY));
            int c = 0;
            for (; c + NV <= nvec; c += NV) qk_wide[mr](dq / 2, q, dq, kt + c * VW, ld, sb + c * VW, ld, smax);
            for (; c < nvec; c++) qk_one[mr](dq / 2, q, dq, kt + c * VW, ld, sb + c * VW, ld, smax);
            sm_job jobs[MR];
            int nj = 0;
            for (int r = 0; r < mr; r++) {
                const int cut = w->end[r0 + r] - j0;
                nj += softmax_row(w, r0 + r, sb + r * ld, nvec * VW, cut < nk ? cut : nk, smax + r * VW, &jobs[nj]);
            }
            pv_run(w, prev, jobs, nj, cv);
            /* Key pairs up to lim: an odd lim's partner has P = 0 in every row. */
            prev = (pv_tile){r0, mr, ceil_div(lim, 2), (const uint16_t *)sb};
            half ^= 1;
        }
        if (prev.p) pv_run(w, prev, NULL, 0, cv);
    }
}

#else /* no AVX512-BF16 code in this build: hr_ft_dot_ok is 0, these are never called */

void hr_ft_dot_load_q(hr_ft_ws *w, int r, const void *q_row, float qscale, int end_r) { abort(); }
void hr_ft_dot_attend(hr_ft_ws *w, int rows, const hr_ft_kv *kv) { abort(); }
void hr_ft_bf16_pack_k(hr_ft_ws *w, const hr_ft_kv *kv, int j0, int nk) { abort(); }
void hr_ft_dot_round_bf16(const float *x, void *row, int d) { abort(); }
void hr_ft_bf16_pack_v(hr_ft_ws *w, const hr_ft_kv *kv, int j0, int nk) { abort(); }

#endif

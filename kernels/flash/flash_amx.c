/* flash_amx.c — flash's (and gqa's) amx path: tdpbf16ps tiles for Q·Kᵀ and P·V over bf16 Q, K, V; the choice among the bf16 paths. */

/* The same FlashAttention-2 row stack as flash.c and flash_bf16.c (flash_tile.h), with
 * both products on AMX tiles (vec_amx.h's hr_amx_block32: a 2 x 2 block of 16 x 16 fp32
 * accumulator tiles, 32 rows x 32 columns, fed 32 bf16 of the reduction per step):
 *   S = Q Kᵀ  A = 32 rows of Q (bf16 as given, d zero-padded to a multiple of 32), B =
 *            flash_bf16.c's kt[d/2][Bkv] pair words, which is already AMX's B layout
 *            (a row per d pair, 16 keys x 4 bytes = 64 bytes per tile row); tiles stored
 *            to the score rows s[32][Bkv].
 *   softmax  softmax_block, one call for the block's 32 rows on the stored scores
 *            (AVX-512 fp32, flash_bf16.c's online step and lazy rescale without its max
 *            pass, degree-3 exp2, P rounded to bf16 two vectors at a time into its own
 *            buffer p[32][Bkv]).
 *   O += P V  A = 32 rows of P (bf16, 32 keys per step), B = flash_bf16.c's vp pair rows
 *            (16 key pairs x 16 columns x 4 bytes), C = 32 x 32 of O loaded from and
 *            stored back to the fp32 stack once per K/V tile and column pair of tiles.
 * Padding: d to 32 (Q columns zeroed when loaded, kt rows past d/2 zeroed once when the
 * slab is laid out), keys to 32 (scores past the tile's end are masked by the softmax;
 * V pair rows past it zeroed, as P = 0 times a stale V could be 0 * inf), the stack to
 * 32 rows (rows past it get P = 0; their S and O are never read). The slab is laid out
 * again for these shapes (hr_ft_set_path); each call of hr_ft_amx_attend loads the tile
 * configuration on its thread and releases it at the end.
 * Accuracy: tdpbf16ps multiplies bf16 exactly and adds in fp32 with round-to-nearest-even,
 * denormal inputs read as zero and denormal sums flushed (Intel SDM, TDPBF16PS), as
 * vdpbf16ps does; P rounded to bf16 is the one extra rounding (its exp2's 7.5e-5 ahead of
 * it keeps each weight within u + 2e of the true one, inside the 2u the oracle's bf16
 * tolerance allows: harness/base/oracle.c), so that tolerance holds as for bf16dot.
 *
 * What limits it (one core; per block of 32 rows x 32 keys, D = d
 * rounded up to 32; 2 x 32 x 32 x D multiply-adds = 4096 D FLOP):
 *   tiles     S: D/32 steps x 4 tdpbf16ps, P·V: D/32 column pairs x 4: D/4 instructions
 *             of 16384 FLOP, one per 16 cycles: 4D cycles (256 at d 64, 512 at d 128) at
 *             the AMX roof (`headroom roofline`, amx_bf16: about 16x the avx512 FMA's
 *             rate on one core). Tile loads: 4 per 4 tdpbf16ps (the A and B
 *             operands, 1 KiB each: 16 lines, ~8 cycles of L1 load ports each), S stored
 *             4 tiles per block, O loaded and stored 4 + 4 tiles per 32 columns and Bkv
 *             keys: the amx path's Bkv is 128 (hr_ft_path_block_kv), so O moves half as
 *             often as at flash.c's 64 (perf-log 0231).
 *   softmax  per 32 scores 15 AVX-512 ops on p0/p5: 2 fma(s, c, -m) with the loads folded
 *             in, 2 x (vreduceps, 3 FMA, vscalef) for the exp2 (vec_softmax.h's
 *             hr_vexp2_bf16: 2^floor(x) is scalef's own floor, so no rounded copy of x),
 *             one vcvtne2ps2bf16 for both vectors + one store, 2 adds into l: ~7.5 per 16
 *             scores against the row softmax's ~12 (a max pass, a round and a sub more, a
 *             degree-4 polynomial, one convert and store per vector): ~250 cycles per 32 x
 *             32 block, ~4 per row and tile of fixed work (end, cut, m, the lane test, l).
 *             The max pass is gone where the row has a running m: the weights are computed
 *             against it, and a lane sum above 2^SLACK (a weight above it, or inf) makes
 *             the row take its tile max and, if that passes m + SLACK, rescale O and l and
 *             redo the row from its scores (kept, P has its own buffer): on random inputs
 *             only on a row's first tile; the battery's `large` logits take it often (the
 *             check covers it). It is faster than the row softmax on every shape. The
 *             vector units and the tile unit still do not overlap: two software
 *             pipelines with two score buffers were slower with the row softmax (not
 *             retried since) (perf-log 0231).
 *   packing  K and V as flash_bf16.c (pair transposes, zips): ~Bkv*d/4 vector ops per K/V
 *             tile, shared by Bq/32 row blocks: the amx path's own default Bq (up to 512,
 *             hr_ft_path_block_q; fp32's 192 is slower, most at d 128: perf-log 0231).
 *   With the row softmax the softmax took as many cycles as the tile code, which itself
 *   ran well below the roof's rate (the loads and stores above): perf-log 0231.
 *
 * The path runs at 4.2-4.7x fp32's speed on the six standard shapes, about a fifth of
 * the AMX roof (perf-log 0231). */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_bf16_exp.h"
#include "flash_tile.h"
#include "headroom.h"
#include "vec.h"
#include "vec_amx.h"
#include "vec_bf16.h"
#include "vec_softmax.h"

/* NULL where this level, CPU and OS run the amx path, else why not. */
const char *hr_ft_amx_why_not(void)
{
#if defined(HR_HAVE_AMX)
    const char *no = hr_ft_bf16_why_not(); /* the softmax is flash_bf16.c's */
    return no ? no : hr_amx_why_not();
#else
    return "the " HR_VEC_ISA " level has no AMX code (only avx512 builds compile it)";
#endif
}

#if defined(HR_HAVE_AMX)

#define T 32 /* rows, keys and d of a 2 x 2 tile block */

static size_t up(size_t a, size_t b) { return (a + b - 1) / b * b; }

/* The amx layout of a slab: q [R][D] bf16, o [R][D], m [R], l [R][16], end [R],
 * kt [D/2][K] pair words, vp [K/2][D] pairs, s [T][K] fp32 scores and right after them
 * p [T][K] bf16 P (amx_p); R, D, K: rows, d, Bkv up to 32. */
typedef struct {
    size_t q, o, m, l, end, kt, vp, s, total;
} amx_layout;

static amx_layout layout(int rows_cap, int block_kv, int d)
{
    const size_t R = up((size_t)rows_cap, T), D = up((size_t)d, T), K = up((size_t)block_kv, T);
    amx_layout a;
    size_t at = 0;
    a.q = at, at += up(R * D * 2, 64);
    a.o = at, at += up(R * D * 4, 64);
    a.m = at, at += up(R * 4, 64);
    a.l = at, at += up(R * 16 * 4, 64);
    a.end = at, at += up(R * sizeof(int), 64);
    a.kt = at, at += up(D / 2 * K * 4, 64);
    a.vp = at, at += up(K / 2 * D * 4, 64);
    a.s = at, at += (size_t)T * K * 4 + (size_t)T * K * 2; /* s, then P (amx_p) */
    a.total = at;
    return a;
}

size_t hr_ft_amx_slab_bytes(int rows_cap, int block_kv, int d) { return layout(rows_cap, block_kv, d).total; }

/* The slab starts at w->q (hr_ft_bind puts q first); zeroed once, so the padding rows
 * of kt, Q and O hold zeros, never stale bits. */
void hr_ft_amx_bind(hr_ft_ws *w)
{
    const amx_layout a = layout(w->rows_cap, w->bkv, w->d);
    char *base = (char *)w->q;
    memset(base, 0, a.total);
    w->dp = (int)up((size_t)w->d, T);
    w->bkvp = (int)up((size_t)w->bkv, T);
    w->o = (float *)(base + a.o);
    w->m = (float *)(base + a.m);
    w->l = (float *)(base + a.l);
    w->end = (int *)(base + a.end);
    w->kt = (float *)(base + a.kt);
    w->vp = (float *)(base + a.vp);
    w->s = (float *)(base + a.s);
}

void hr_ft_amx_load_q(hr_ft_ws *w, int r, const void *q_row, float qscale, int end_r)
{
    const int D = w->dp;
    uint16_t *q = (uint16_t *)w->q + (size_t)r * D;
    memcpy(q, q_row, (size_t)w->d * sizeof(uint16_t));
    memset(q + w->d, 0, (size_t)(D - w->d) * sizeof(uint16_t));
    memset(w->o + (size_t)r * D, 0, (size_t)D * sizeof(float));
    w->m[r] = -INFINITY;
    memset(w->l + (size_t)r * 16, 0, 16 * sizeof(float));
    w->end[r] = end_r;
    w->qscale = qscale;
}

/* S[32][nc] of rows r0.. = Q . kt, raw dot products, into s (rows K floats apart). */
static HR_AMX_TARGET void scores(const hr_ft_ws *w, int r0, int nc)
{
    const size_t D = (size_t)w->dp, K = (size_t)w->bkvp;
    const char *q = (const char *)((const uint16_t *)w->q + (size_t)r0 * D);
    for (int c = 0; c < nc; c += T)
        hr_amx_block32(1, (int)(D / T), q, D * 2, T * 2, (const char *)(w->kt + c), K * 4, 16 * K * 4,
                       w->s + c, K * 4);
}

/* P [T][K] bf16, right after the scores (layout). */
static uint16_t *amx_p(const hr_ft_ws *w) { return (uint16_t *)(w->s + (size_t)T * w->bkvp); }

/* O[32][D] of rows r0.. += P[32][nc] . vp (P rows K*2 bytes apart). */
static HR_AMX_TARGET void pv(hr_ft_ws *w, int r0, int nc)
{
    const size_t D = (size_t)w->dp, K = (size_t)w->bkvp;
    const uint16_t *vp = (const uint16_t *)w->vp;
    for (size_t c = 0; c < D; c += T)
        hr_amx_block32(0, nc / T, (const char *)amx_p(w), K * 2, T * 2, (const char *)(vp + 2 * c), D * 4,
                       16 * D * 4, w->o + (size_t)r0 * D + c, D * 4);
}

/* ---- the softmax of a 32-row block ------------------------------------------------- */

#define SLACK 8.0f /* flash_bf16.c's HR_FT_SLACK: weights stay <= 2^SLACK */

/* The largest of n (a multiple of 32) scores, scaled to log2 units. */
static HR_BF16_TARGET float row_max(const float *s, int n, float qscale, float masked)
{
    hr_vf a = hr_vset1(masked), b = a;
    for (int c = 0; c < n; c += T) a = hr_vmax(a, hr_vload(s + c)), b = hr_vmax(b, hr_vload(s + c + 16));
    return hr_vreduce_max(hr_vmax(a, b)) * qscale;
}

/* The online-softmax step (flash_bf16.c's softmax_row, same m, l and O
 * invariants and lazy rescale) of the block's 32 rows r0.. over the key tile at j0 (nk
 * keys, nc scores a row, a multiple of 32), P to amx_p. Unlike it, no pass for the max
 * where the row has one: the weights are computed against the running m, and only when
 * a lane of their sum passes 2^SLACK (some weight did, or inf: a score rose by more than
 * the slack) is the tile's max taken, and, if it passes m + SLACK, O and l rescaled and
 * the row redone (its scores are intact: P goes to its own buffer). A row's first tile
 * (m = -inf) takes the max first, as before. Rows past mr get P = 0. */
static HR_BF16_TARGET void softmax_block(hr_ft_ws *w, int r0, int mr, int nc, int j0, int nk)
{
    const int K = w->bkvp;
    const float qs = w->qscale, big = 1 << (int)SLACK;
    /* Masked: a finite score that still gives 0 after the scaling for any qscale. */
    const float masked = -1e30f / (qs > 1 ? qs : 1);
    uint16_t *p0 = amx_p(w);
    for (int r = 0; r < T; r++) {
        float *s = w->s + (size_t)r * K;
        uint16_t *p = p0 + (size_t)r * K;
        int cut = r < mr ? w->end[r0 + r] - j0 : 0;
        if (cut > nk) cut = nk;
        if (cut <= 0) {
            memset(p, 0, (size_t)nc * sizeof(uint16_t));
            continue;
        }
        for (int c = cut; c < nc; c++) s[c] = masked;
        float *m = w->m + r0 + r, *l = w->l + (size_t)(r0 + r) * 16;
        if (*m == -INFINITY) *m = row_max(s, nc, qs, masked);
        hr_vf sum = exp_row(s, p, nc, qs, *m);
        if (hr_vgt_any(sum, big)) {
            const float t = row_max(s, nc, qs, masked);
            if (t > *m + SLACK) {
                const hr_vf av = hr_vset1(exp2f(*m - t));
                float *o = w->o + (size_t)(r0 + r) * w->dp;
                for (int c = 0; c < w->dp; c += 16) hr_vstore(o + c, hr_vmul(hr_vload(o + c), av));
                hr_vstore(l, hr_vmul(hr_vload(l), av));
                *m = t;
                sum = exp_row(s, p, nc, qs, t);
            }
        }
        hr_vstore(l, hr_vadd(hr_vload(l), sum));
    }
}

HR_AMX_TARGET void hr_ft_amx_attend(hr_ft_ws *w, int rows, const hr_ft_kv *kv)
{
    const int d = w->d, D = w->dp;
    const size_t rb = (size_t)d * sizeof(uint16_t);
    hr_amx_cfg cfg;
    hr_amx_cfg_all(&cfg);
    hr_amx_load(&cfg);
    int stop = 0;
    for (int r = 0; r < rows; r++)
        if (w->end[r] > stop) stop = w->end[r];
    const int nmt = (rows + T - 1) / T;
    for (int j0 = 0; j0 < stop; j0 += w->bkv) {
        const int nk = stop - j0 < w->bkv ? stop - j0 : w->bkv, nkp = (int)up((size_t)nk, T);
        hr_ft_bf16_pack_k(w, kv, j0, nk); /* through the block table where paged */
        hr_ft_bf16_pack_v(w, kv, j0, nk);
        const int pairs = (nk + 1) / 2;
        memset((uint16_t *)w->vp + (size_t)pairs * 2 * D, 0, (size_t)(nkp / 2 - pairs) * 4 * D);
        for (int r0 = 0; r0 < rows; r0 += T) {
            const int mr = rows - r0 < T ? rows - r0 : T;
            const int lim = hr_ft_block_keys(w, r0, mr, r0 / T, nmt, j0, nk, stop, kv, rb);
            if (lim <= 0) continue;
            const int nc = (int)up((size_t)lim, T);
            scores(w, r0, nc);
            softmax_block(w, r0, mr, nc, j0, nk);
            pv(w, r0, nc);
        }
    }
    hr_amx_release();
}

#else /* no AMX code in this level: hr_ft_dot_ok never gives HR_FT_AMX here */

size_t hr_ft_amx_slab_bytes(int rows_cap, int block_kv, int d) { return 0; }
void hr_ft_amx_bind(hr_ft_ws *w) { abort(); }
void hr_ft_amx_load_q(hr_ft_ws *w, int r, const void *q_row, float qscale, int end_r) { abort(); }
void hr_ft_amx_attend(hr_ft_ws *w, int rows, const hr_ft_kv *kv) { abort(); }

#endif

/* flash.c — FlashAttention-2-style online-softmax attention: K/V tiles, register-blocked micro-kernels, OpenMP. */

/* Algorithm: T. Dao, "FlashAttention-2: Faster Attention with Better Parallelism and Work
 * Partitioning", 2023 (arXiv:2307.08691), forward pass, adapted to a CPU core.
 *
 * A work item is a block of Bq query rows of one head (gqa.c: of a whole GQA group,
 * stacked). It streams the keys in tiles of Bkv; the N x N scores never exist, only a
 * MR x Bkv micro-tile of them. Per tile:
 *   pack   K tile transposed into kt[d][Bkv] (keys along the vector lanes) and V tile
 *          into vp[Bkv][dp] (contiguous rows, zero-padded to the vector width). Packing
 *          once per tile per work item costs d*Bkv moves against Bq*Bkv*d FMAs, and it
 *          removes the 4 KiB row stride of the BNHD layout (every row on one L1 set).
 *   S      = Q kt for MR rows: an MR x NV-vector register tile (AVX-512: 6 x 4 zmm =
 *          24 accumulators); per step k: NV loads of kt + MR broadcasts of Q for
 *          MR*NV FMAs, (6+4)/24 = 0.42 loads per FMA.
 *   mask   causal, arithmetic: key j is visible to row i iff j < end_i
 *          (hr_causal_end), so a score at or past end_i becomes -inf; tiles past the
 *          block's last visible key are never visited, and a micro-tile whose rows see
 *          none of the tile's keys is skipped.
 *   softmax  Q was multiplied once by scale*log2(e), so s is in log2 units and
 *          p = exp2(s - m) (vec_softmax.h's hr_vexp2_fin: on AVX-512 a 4-FMA polynomial
 *          plus roundscale and scalef). Invariant after each tile: m_i <= 8 + the max of
 *          row i's visible scores so far, l_i = sum exp2(s - m_i), o_i = sum exp2(s -
 *          m_i) v_j (unnormalized). m_i moves (and l_i, o_i are rescaled by exp2(m_old -
 *          m_new)) only when a score passes it by more than 8 (lazy rescale). The step
 *          runs per chunk of one register tile's keys (FT_CHUNK: AVX-512 64, AVX2 16),
 *          on S's registers (qk_exp) for every chunk all MR rows see whole (all but the
 *          causal diagonal's last chunks and short micro-tiles): the same operations
 *          either way, so a row's bits do not depend on its stacking.
 *   O     += P vp for MR rows: an MR x 4-vector tile of O (64 columns) per pass,
 *          loaded and stored once per tile; per key, 4 loads of vp + MR broadcasts of P.
 *          Micro-tiles go in groups of FT_GROUP = 4 (24 rows): S and softmax for each,
 *          then P vp for each, so kt and vp each pass through L1 once per group.
 *   end   o_i / l_i; a row with no visible key is exactly 0.
 *
 * What limits it (AVX-512, per 16 scores of one row, d = 64): QK and PV are
 * 2 * 16 * 64 / 16 = 128 vector FMAs; the softmax is ~13 vector ops (max, sub, exp2:
 * max+roundscale+sub+6 FMA+scalef, sum, store) that use the same two FP pipes, so the
 * ceiling is ~128/141 = 91% of FMA peak at d = 64 and ~95% at d = 128, before the
 * packing (~2*d*Bkv moves per tile, ~1% at Bq = 192) and the per-tile O load/store.
 * With a 6x4 tile the loads (0.42/FMA) stay under two loads per cycle, and the
 * working set per micro-tile (kt + vp: 2 * d * Bkv * 4 B = 128 KiB at d = 64, 256 KiB at
 * d = 128 with the default 256 keys) lives in L2, so the kernel is FMA-bound by
 * arithmetic: about 90% of the roof on the six standard shapes (perf-log 0219).
 *
 * What limits it (AVX-512 on an Intel core, by count and by ablation): both zmm FMA ports (p0, p5)
 * also run every other zmm op, so softmax, K transposes (p5 shuffles) and rescales take
 * FMA slots.
 *   softmax  per 16 scores of a row ~10 ops (max, sub, roundscale, sub, 4 FMAs, scalef,
 *            sum; a compare per row and tile for the lazy rescale; -1e30 masks need no
 *            clamp) against 2d FMAs: 93% at d 64, 96% at 128 by count. On S's registers
 *            (qk_exp) it also drops the two passes over S in L1.
 *   packing  64 p5 shuffles per 16 x 16 block, ~1% at Bq 384 by count.
 *   caches   kt + vp is 64 KiB at d 128, over L1: micro-tiles go in groups of 4 (FT_GROUP),
 *            so each streams once per 24 rows. Q stays row-major: packed k-major per
 *            micro-tile (one short run per step's broadcasts) it costs d scalar stores
 *            per row and did not pay.
 *   left     by ablation (HR_FT_ABLATE below) Q Kt and P V run at about 0.9 of the roof
 *            and the softmax's share is ~0.95, so this design tops out near 82-85% before
 *            the K/V stream: more needs fewer K/V passes per FMA, not a leaner step. None
 *            of the leaner steps tried (exp2 by vreduceps, unrolled loops, other
 *            prefetches, FT_GROUP 2 or 8, other tiles) passed the noise (perf-log 0217).
 *
 * What limits it (AVX2 + FMA, 16 ymm; make ISA=avx2, standing for AVX2-only CPUs):
 *   FMAs     QK + PV per 8 scores of a row: 2 * 8 * d / 8 = 2d ymm FMAs (128 at d 64).
 *   softmax  on S's registers (qk_exp), per 16-key chunk (FT_CHUNK) of a row: max,
 *            compare + movemask (the lazy rescale, rarely taken), broadcast m; per 8
 *            scores sub, exp2 (vec_softmax.h: clamp, shifter add, 2 subs, mul + 4 FMAs,
 *            degree 4 by Estrin, shift, mul), store p, add into the chunk's sum; l load,
 *            add, store: ~35 ops per 16 scores against 4d = 256 FMAs at d 64, 19 of them
 *            on Intel's p0/p1 only (the adds may take p5); with round, cvt and degree 5
 *            it was ~39, 25 on p0/p1. In registers S no longer goes to L1 and back
 *            twice (load + max, load + sub + exp2 + store per 8) (perf-log 0218). The
 *            per-chunk max moves m more often than a per-64 one; a move also rescales
 *            the row's earlier weights of the tile (in s, not yet in o).
 *   loads    6 x 2 tile: per k 2 ymm of kt + 6 broadcasts for 12 FMAs, 0.67 per FMA (AVX-512
 *            0.42), 1.33 per cycle, under the 2-3 loads per cycle of current x86 cores.
 *   registers  12 accumulators + 2 loaded + 1 broadcast = 15 of 16. 4 x 3 needs d and Bkv
 *            in multiples of 24; 8 x 1 1.1 loads per FMA; 3 x 4 17 registers. After the
 *            k loop the softmax's temporaries push accumulators and the exp2 constants
 *            to the stack (objdump of qk_exp: 78 ymm moves to or from it in the whole
 *            function, 153 with the degree-5 exp2), none in the k loop; they use the
 *            load/store ports, not p0/p1.
 *   caches   kt + vp 2*d*Bkv*4 B: 32 KiB at d 64 (L1), 64 KiB at d 128 (L2); the Q + O
 *            stack 2*Bq*d*4 B (512 KiB to 2 MiB of L2): Bq from hr_machine's L2 (below).
 *   packing  K by 8 x 8 register transposes (element by element it cost more than
 *            three times as much), V copied, the next tile prefetched.
 *   The avx2 level reaches about 0.8 of its FMA roof; the rest is in the micro-kernels.
 *   Q packed k-major, exp2 by Horner, S stored and reloaded for the softmax: none paid
 *   (perf-log 0218).
 *
 * Element types (--dtype / --kv-dtype f32, bf16, f16, any pair; --kv-dtype defaults to
 * --dtype): Q, K, V read and O written in their stored types (flash_tile.h's _x forms).
 *   amx      bf16 Q and K/V on a CPU with AMX (and the OS's grant) in an AVX-512 build:
 *            tdpbf16ps tiles for both products, the bf16dot softmax between them
 *            (flash_amx.c, its budget there).
 *   bf16dot  bf16 Q and K/V on a CPU with AVX512-BF16 but no AMX, AVX-512 build: vdpbf16ps,
 *            fp32 accumulation, P rounded to bf16 (flash_bf16.c: its budget).
 *   convert  everything else, and every pair in ISA=avx2 / generic builds (which stand for
 *            machines without the instruction), or forced (HEADROOM_FLASH_PATH, flash_tile.h): K and
 *            V tiles converted to fp32 while packed (K rows into vp, then the transpose),
 *            Q when loaded, O rounded once when stored; the fp32 micro-kernels as above,
 *            so the kernel's own error is the fp32 kernel's (tests/test_flash_typed.c
 *            checks the bits). The conversions cost ~d*Bkv per tile against Bq*Bkv*d FMAs.
 *   f16 takes the conversion path even where vdpbf16ps runs: f16 -> bf16 would round K
 *   and V by 2^-8, eight times f16's own 2^-11, outside f16's tolerance (docs/explanation/oracle.md).
 *
 * Variants (headroom.h's window, softcap, alibi; the convert path): each row carries its
 * window begin, key position i' and ALiBi slope; the key loop starts at the stack's first
 * visible key, micro-tiles whose windows begin past a tile skip it, partly covered ones
 * mask like the causal edge; the soft cap and ALiBi go on S's registers (qk_exp_var) or in
 * softmax_tile, one function for both (vec_tanh.h's hr_vscore_variants): soft cap 0.91, ALiBi
 * 0.90 of plain at d 128 (perf-log 0495).
 *
 * Threads: one parallel region per call; items (b, h, q-block) are handed out
 * dynamically, heaviest first (for causal the last query blocks see the most keys), so
 * the two long tails do not land on one thread. Every row's result is independent of
 * which thread computed it. Workspace: one slab per thread, O(Bq * (d + Bkv)), bounded
 * whatever N (a short N may get a smaller even block, hr_ft_even_blocks). */

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "flash_micro.h"
#include "flash_tile.h"
#include "headroom.h"
#include "vec.h"
#include "vec_softmax.h"
#include "vec_tanh.h"

/* Micro-tiles per group: the group's S = Q Kt (and softmax) run one after the other,
 * then its O += P V, so kt and vp each stream through L1 once per group, not once per
 * micro-tile (the budget's "caches"). */
#ifndef FT_GROUP
#define FT_GROUP 4
#endif

static int ceil_div(int a, int b) { return (a + b - 1) / b; }
static int round_up(int a, int m) { return ceil_div(a, m) * m; }
static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

/* ---- the row stack ---------------------------------------------------------------- */

int hr_ft_mr(void) { return MR; }

#define BQ_FLOOR 192 /* hr_ft_default_rows shrinks a stack no further */
#define FT_ITEMS 4   /* work items per thread it keeps (dynamic schedule, heaviest first) */

int hr_ft_default_rows(int n, int cap, int group, int mult, long units, int threads)
{
    const long want = (long)FT_ITEMS * (threads > 0 ? threads : 1);
    const int fl = round_up(ceil_div(BQ_FLOOR, group), mult), floor = cap < fl ? cap : fl;
    int bq = cap;
    if (units * ceil_div(n, cap) < want && cap > floor) {
        const long nb = (want + units - 1) / units; /* query blocks per unit */
        bq = nb >= n ? 1 : ceil_div(n, (int)nb);
        bq = bq > cap ? cap : bq < floor ? floor : bq;
    }
    return hr_ft_even_blocks(n, bq, mult);
}

size_t hr_ft_slab_bytes(int rows_cap, int block_kv, int d)
{
    size_t dp = (size_t)round_up(d, HR_VW), bkvp = (size_t)round_up(block_kv, HR_VW), rc = (size_t)rows_cap;
    size_t f = sizeof(float), amx = hr_ft_amx_slab_bytes(rows_cap, block_kv, d), own = align64(rc * d * f) +
           align64(rc * dp * f) + align64(rc * f) + align64(rc * HR_VW * f) + align64(rc * sizeof(int)) +
           align64((size_t)d * bkvp * f) + align64(bkvp * dp * f) + align64((size_t)FT_GROUP * MR * bkvp * f) +
           3 * align64(rc * sizeof(int));
    return own > amx ? own : amx; /* the amx path lays the slab out its own way */
}

void hr_ft_bind(hr_ft_ws *w, void *slab, int rows_cap, int block_kv, int d)
{
    w->d = d;
    w->dp = round_up(d, HR_VW);
    w->bkv = block_kv;
    w->bkvp = round_up(block_kv, HR_VW);
    w->rows_cap = rows_cap;
    size_t rc = (size_t)rows_cap, f = sizeof(float);
    char *p = slab;
    w->q = (float *)p, p += align64(rc * (size_t)d * f);
    w->o = (float *)p, p += align64(rc * (size_t)w->dp * f);
    w->m = (float *)p, p += align64(rc * f);
    w->l = (float *)p, p += align64(rc * HR_VW * f);
    w->end = (int *)p, p += align64(rc * sizeof(int));
    w->kt = (float *)p, p += align64((size_t)d * (size_t)w->bkvp * f);
    w->vp = (float *)p, p += align64((size_t)w->bkvp * (size_t)w->dp * f);
    w->s = (float *)p, p += align64((size_t)FT_GROUP * MR * (size_t)w->bkvp * f);
    w->beg = (int *)p, p += align64(rc * sizeof(int));
    w->pos = (int *)p, p += align64(rc * sizeof(int));
    w->slope = (float *)p;
    w->var = 0;
    w->cap2 = 0;
    w->dot = 0;
    w->step = NULL;
    w->qscale = 1;
}

void hr_ft_load_q(hr_ft_ws *w, int r, const float *q_row, float qscale, int end_r)
{
    float *q = w->q + (size_t)r * w->d, *o = w->o + (size_t)r * w->dp;
    for (int k = 0; k < w->d; k++) q[k] = q_row[k] * qscale;
    memset(o, 0, (size_t)w->dp * sizeof(float));
    w->m[r] = -INFINITY;
    hr_vstore(w->l + (size_t)r * HR_VW, hr_vzero());
    w->end[r] = end_r;
    w->beg[r] = 0;
    w->pos[r] = 0;
    w->slope[r] = 0;
}

/* A bf16 or f16 row of n values as fp32 (exact). */
static void load_row16(hr_dtype t, const void *src, float *dst, int n)
{
    const char *x = src;
    const int full = n / HR_VW * HR_VW;
    if (t == HR_BF16) {
        for (int c = 0; c < full; c += HR_VW) hr_vstore(dst + c, hr_vload_bf16(x + 2 * c));
        if (full < n) hr_vstore_n(dst + full, hr_vload_bf16_n(x + 2 * full, n - full), n - full);
    } else {
        for (int c = 0; c < full; c += HR_VW) hr_vstore(dst + c, hr_vload_f16(x + 2 * c));
        if (full < n) hr_vstore_n(dst + full, hr_vload_f16_n(x + 2 * full, n - full), n - full);
    }
}

void hr_ft_load_qx(hr_ft_ws *w, int r, const void *q_row, hr_dtype qt, float qscale, int end_r)
{
    if (w->dot) {
        w->step->load_q(w, r, q_row, qscale, end_r);
        return;
    }
    if (qt == HR_F32) {
        hr_ft_load_q(w, r, q_row, qscale, end_r);
        return;
    }
    float *q = w->q + (size_t)r * w->d;
    load_row16(qt, q_row, q, w->d);
    hr_ft_load_q(w, r, q, qscale, end_r); /* in place */
}

/* kt[kk][c0 + j] = K[j][kk] for the nk keys from k (one run of a tile: hr_ft_kv_run). On
 * AVX-512 and AVX2 whole 16 x 16 / 8 x 8 blocks go through the register transpose (AVX2:
 * 24 shuffles per 64 floats instead of 64 strided scalar stores: perf-log 0218); the
 * portable path copies element by element. pad_k then zeroes the key columns from the
 * tile's nk up to the next vector boundary (their scores are computed, then masked). */
static void pack_k(hr_ft_ws *w, const float *k, ptrdiff_t k_sn, int c0, int nk)
{
    const int d = w->d, ld = w->bkvp;
    float *kt = w->kt + c0;
    int j = 0;
#if defined(HR_VEC_AVX512) || defined(HR_VEC_AVX2)
    for (; j + HR_VW <= nk; j += HR_VW) {
        int kk = 0;
        for (; kk + HR_VW <= d; kk += HR_VW)
            hr_vtranspose(k + j * k_sn + kk, k_sn, kt + (ptrdiff_t)kk * ld + j, ld);
        for (int jj = j; jj < j + HR_VW; jj++)
            for (int k2 = kk; k2 < d; k2++) kt[(ptrdiff_t)k2 * ld + jj] = k[jj * k_sn + k2];
    }
#endif
    for (; j < nk; j++) {
        const float *src = k + j * k_sn;
        for (int kk = 0; kk < d; kk++) kt[(ptrdiff_t)kk * ld + j] = src[kk];
    }
}

static void pad_k(hr_ft_ws *w, int nk)
{
    const int nkp = round_up(nk, HR_VW);
    if (nkp > nk)
        for (int kk = 0; kk < w->d; kk++)
            memset(w->kt + (ptrdiff_t)kk * w->bkvp + nk, 0, (size_t)(nkp - nk) * sizeof(float));
}

/* vp[c0 + j] = V[j], padded with zeros from d to dp. */
static void pack_v(hr_ft_ws *w, const float *v, ptrdiff_t v_sn, int c0, int nk)
{
    const int d = w->d, dp = w->dp, full = d / HR_VW * HR_VW;
    for (int j = 0; j < nk; j++) {
        const float *src = v + j * v_sn;
        float *dst = w->vp + (ptrdiff_t)(c0 + j) * dp;
        for (int c = 0; c < full; c += HR_VW) hr_vstore(dst + c, hr_vload(src + c));
        if (full < dp) hr_vstore(dst + full, hr_vload_n(src + full, d - full));
    }
}

/* The online-softmax step of a micro-tile from column c0 (a multiple of FT_CHUNK: the
 * chunks before ran in qk_exp): rows r0 .. r0+mr-1 of the stack, their scores in s (rows
 * bkvp apart, ncols columns, a multiple of the vector width); row r's keys at or past
 * cut_r = min(end_r - j0, nk) are masked (-1e30: finite, and its exp2 is exactly 0, so
 * the exp2 needs no clamp). Leaves p in s. Per row and chunk flash_micro.h's
 * ft_row_chunk, as qk_exp: the same bits whichever path a row's micro-tile took. */
#define FT_MASKED (-1e30f)
/* The variants on a row's scores s[c0, ncols) (log2 units; key j0 + c): vec_tanh.h's
 * hr_vscore_variants, as qk_exp_var applies them in registers. */
static void variants_row(const hr_ft_ws *w, int r, float *s, int c0, int ncols, int j0)
{
    const hr_vf cap = hr_vset1(w->cap2), inv = hr_vset1(w->cap2 > 0 ? 1.0f / w->cap2 : 0), lane = hr_vload(ft_iota);
    const hr_vf neg_m = hr_vset1(-w->slope[r]);
    for (int c = c0; c < ncols; c += HR_VW)
        hr_vstore(s + c, hr_vscore_variants(hr_vload(s + c), w->cap2 > 0, cap, inv, w->slope[r] > 0, neg_m,
                                            hr_vadd(hr_vset1((float)(j0 + c - w->pos[r])), lane)));
}

static void softmax_tile(hr_ft_ws *w, float *sb, int r0, int mr, int c0, int ncols, int nk, int j0)
{
    for (int r = r0; r < r0 + mr; r++) {
        float *s = sb + (ptrdiff_t)(r - r0) * w->bkvp;
        int cut = w->end[r] - j0;
        if (cut > nk) cut = nk;
        const int lo = w->beg[r] - j0; /* keys before it are outside the row's window */
        if (cut <= 0 || lo >= cut) { /* the tile is wholly outside the row's keys: p = 0, state unchanged */
            memset(s, 0, (size_t)ncols * sizeof(float));
            continue;
        }
        if (w->var) variants_row(w, r, s, c0, ncols, j0);
        for (int c = c0; c < lo; c++) s[c] = FT_MASKED;
        for (int c = cut > c0 ? cut : c0; c < ncols; c++) s[c] = FT_MASKED;
        for (int c = c0; c < ncols; c += FT_CHUNK) {
            const int nv = ncols - c < FT_CHUNK ? (ncols - c) / HR_VW : NV;
            hr_vf x[NV];
            for (int v = 0; v < NV; v++) x[v] = v < nv ? hr_vload(s + c + v * HR_VW) : hr_vzero();
            ft_row_chunk(nv, x, s, c, w->m + r, w->l + (size_t)r * HR_VW, w->o + (size_t)r * w->dp, w->dp);
        }
    }
}

/* The tile of keys [j0, j0 + nk) of kv packed, run by run (one run unless paged). The
 * conversion path's: a bf16/f16 K tile converted row by row into vp (free until pack_vx,
 * dp floats a row), then transposed like an fp32 one; a V tile converted straight into vp
 * (its zero padding to dp included). */
static void pack_kx(hr_ft_ws *w, hr_dtype t, const hr_ft_kv *kv, int j0, int nk)
{
    for (int c = 0; c < nk;) {
        const int n = hr_ft_kv_run(kv, j0 + c, nk - c);
        const char *k = hr_ft_kv_k(kv, j0 + c);
        if (t == HR_F32) pack_k(w, (const float *)k, kv->k_sn / (ptrdiff_t)sizeof(float), c, n);
        else
            for (int j = 0; j < n; j++) load_row16(t, k + j * kv->k_sn, w->vp + (ptrdiff_t)(c + j) * w->dp, w->d);
        c += n;
    }
    if (t != HR_F32) pack_k(w, w->vp, w->dp, 0, nk);
    pad_k(w, nk);
}

static void pack_vx(hr_ft_ws *w, hr_dtype t, const hr_ft_kv *kv, int j0, int nk)
{
    for (int c = 0; c < nk;) {
        const int n = hr_ft_kv_run(kv, j0 + c, nk - c);
        const char *v = hr_ft_kv_v(kv, j0 + c);
        if (t == HR_F32) pack_v(w, (const float *)v, kv->v_sn / (ptrdiff_t)sizeof(float), c, n);
        else
            for (int j = 0; j < n; j++) {
                float *dst = w->vp + (ptrdiff_t)(c + j) * w->dp;
                load_row16(t, v + j * kv->v_sn, dst, w->d);
                if (w->dp > w->d) memset(dst + w->d, 0, (size_t)(w->dp - w->d) * sizeof(float));
            }
        c += n;
    }
}

void hr_ft_attend_x(hr_ft_ws *w, int rows, hr_dtype kt, const hr_ft_kv *kv)
{
    if (w->dot) {
        w->step->attend(w, rows, kv);
        return;
    }
    const int d = w->d, dp = w->dp, ld = w->bkvp;
    const size_t rb = hr_dtype_row_bytes(kt, d);
    int stop = 0, start = INT_MAX; /* the keys some row sees: [start, stop) */
    for (int r = 0; r < rows; r++) {
        if (w->end[r] > stop) stop = w->end[r];
        if (w->end[r] > w->beg[r] && w->beg[r] < start) start = w->beg[r];
    }
    for (int j0 = start; j0 < stop; j0 += w->bkv) {
        const int nk = stop - j0 < w->bkv ? stop - j0 : w->bkv;
        if (!ft_skip(4) || j0 == 0) {
            pack_kx(w, kt, kv, j0, nk);
            pack_vx(w, kt, kv, j0, nk);
        }
        const int nmt = ceil_div(rows, MR);
        for (int g0 = 0; g0 < rows; g0 += FT_GROUP * MR) {
            int gr0[FT_GROUP], gmr[FT_GROUP], glim[FT_GROUP], ng = 0;
            for (int r0 = g0; r0 < rows && r0 < g0 + FT_GROUP * MR; r0 += MR) {
                const int mr = rows - r0 < MR ? rows - r0 : MR;
                const int lim = hr_ft_block_keys(w, r0, mr, r0 / MR, nmt, j0, nk, stop, kv, rb);
                if (lim <= 0) continue;
                int first = nk, last = 0; /* the earliest and latest window begin of the rows */
                for (int r = r0; r < r0 + mr; r++) {
                    first = w->beg[r] - j0 < first ? w->beg[r] - j0 : first;
                    last = w->beg[r] - j0 > last ? w->beg[r] - j0 : last;
                }
                if (first >= lim) continue; /* every row's window starts past this tile */
                const int nvec = ceil_div(lim, HR_VW);
                const float *q = w->q + (size_t)(ft_skip(16) ? 0 : r0) * d;
                float *sb = w->s + (ptrdiff_t)ng * MR * ld;
                int seen = nk; /* the fewest of this tile's keys a row sees */
                for (int r = r0; r < r0 + mr; r++) seen = w->end[r] - j0 < seen ? w->end[r] - j0 : seen;
                /* chunks every row sees whole go through qk_exp; the rest (causal
                 * diagonal, tails, short micro-tiles) S to L1, then softmax_tile */
                /* a row whose window begins inside the tile takes softmax_tile throughout */
                const int nx = last <= 0 && mr == MR && seen > 0 && !ft_skip(1) ? seen / FT_CHUNK : 0;
                for (int x = 0; x < nx; x++) {
                    float *m = w->m + r0, *l = w->l + (size_t)r0 * HR_VW, *o = w->o + (size_t)r0 * dp;
                    if (w->var && (w->cap2 > 0 || w->slope[r0] > 0)) {
                        const ft_var va = {w->cap2, w->cap2 > 0 ? 1.0f / w->cap2 : 0, w->slope + r0, w->pos + r0,
                                           j0 + x * FT_CHUNK};
                        qk_exp_var(d, q, w->kt + x * FT_CHUNK, ld, sb, ld, x * FT_CHUNK, m, l, o, dp, &va);
                    } else {
                        qk_exp(d, q, w->kt + x * FT_CHUNK, ld, sb, ld, x * FT_CHUNK, m, l, o, dp);
                    }
                }
                if (nx * FT_CHUNK < nvec * HR_VW) {
                    int c = nx * NV;
                    for (; c + NV <= nvec; c += NV) qk_wide[mr](d, q, d, w->kt + c * HR_VW, ld, sb + c * HR_VW, ld);
                    for (; c < nvec; c++) qk_one[mr](d, q, d, w->kt + c * HR_VW, ld, sb + c * HR_VW, ld);
                    /* Columns past nk are padding up to the vector width (zero K, so score 0):
                     * they are masked like keys past the causal end. */
                    if (!ft_skip(1)) softmax_tile(w, sb, r0, mr, nx * FT_CHUNK, nvec * HR_VW, nk, j0);
                }
                gr0[ng] = r0, gmr[ng] = mr, glim[ng++] = lim;
            }
            for (int i = 0; i < ng && !ft_skip(2); i++) {
                const float *p = w->s + (ptrdiff_t)i * MR * ld;
                float *o = w->o + (size_t)(ft_skip(16) ? 0 : gr0[i]) * dp;
                int cv = 0;
                for (; cv + NV * HR_VW <= dp; cv += NV * HR_VW)
                    pv_wide[gmr[i]](glim[i], p, ld, w->vp + cv, dp, o + cv, dp);
                for (; cv < dp; cv += HR_VW) pv_one[gmr[i]](glim[i], p, ld, w->vp + cv, dp, o + cv, dp);
            }
        }
    }
}

void hr_ft_store(const hr_ft_ws *w, int r, float *o_row)
{
    const int d = w->d, full = d / HR_VW * HR_VW;
    const float l = hr_vreduce_add(hr_vload(w->l + (size_t)r * HR_VW));
    if (w->end[r] == 0 || !(l > 0.0f)) {
        memset(o_row, 0, (size_t)d * sizeof(float));
        return;
    }
    const float *o = w->o + (size_t)r * w->dp;
    const hr_vf inv = hr_vset1(1.0f / l);
    for (int c = 0; c < full; c += HR_VW) hr_vstore(o_row + c, hr_vmul(hr_vload(o + c), inv));
    if (full < d) hr_vstore_n(o_row + full, hr_vmul(hr_vload(o + full), inv), d - full);
}

void hr_ft_store_x(hr_ft_ws *w, int r, hr_dtype ot, void *o_row)
{
    if (ot == HR_F32) {
        hr_ft_store(w, r, o_row);
        return;
    }
    float *o = w->o + (size_t)r * w->dp; /* normalized in place, then rounded once */
    hr_ft_store(w, r, o);
    if (ot == HR_BF16 && w->dot) /* the dot paths' CPUs have AVX-512 */
        hr_ft_dot_round_bf16(o, o_row, w->d);
    else
        hr_dtype_store_row(ot, o, o_row, w->d);
}

/* ---- the flash kernel --------------------------------------------------------------- */

static int threads_of(const hr_tune *t) { return t->threads > 0 ? t->threads : omp_get_max_threads(); }

/* Every valid problem (any d, N, causal or not, Hkv dividing Hq) but a forced bf16 path this CPU lacks. */
static const char *flash_applicable(const hr_problem *p) { return hr_ft_why_not(p); }

int hr_ft_even_blocks(int n, int cap, int mult)
{
    const int nb = ceil_div(n, cap), bq = round_up(ceil_div(n, nb), mult);
    return bq < cap ? bq : cap;
}

static void flash_resolve(const hr_problem *p, const hr_machine *m, hr_tune *t)
{
    if (t->block_q <= 0)
        t->block_q = hr_ft_default_rows(p->seq_q, hr_ft_path_block_q(p, m), 1, 12, (long)p->batch * p->heads,
                                        threads_of(t));
    if (t->block_kv <= 0) t->block_kv = hr_ft_path_block_kv(p, m);
}

static size_t flash_workspace(const hr_problem *p, const hr_tune *t)
{
    return (size_t)threads_of(t) * hr_ft_slab_bytes(t->block_q, t->block_kv, p->d_head);
}

static int flash_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    const int bq = t->block_q, nqb = ceil_div(p->seq_q, bq), group = hr_group(p);
    const long nbh = (long)p->batch * p->heads, items = nbh * nqb;
    const float qscale = hr_problem_scale(p) * 1.44269504088896341f;
    const size_t slab = hr_ft_slab_bytes(bq, t->block_kv, p->d_head);
    const int dot = hr_ft_dot_ok(p);
#pragma omp parallel num_threads(threads_of(t))
    {
        hr_ft_ws w;
        hr_ft_bind(&w, (char *)ws + (size_t)omp_get_thread_num() * slab, bq, t->block_kv,
                   p->d_head);
        hr_ft_set_path(&w, dot);
#pragma omp for schedule(dynamic, 1)
        for (long it = 0; it < items; it++) {
            /* Heaviest first: under causal masking the last query blocks see most keys. */
            const int qb = nqb - 1 - (int)(it / nbh), b = (int)(it % nbh / p->heads),
                      h = (int)(it % p->heads), g = h / group;
            const int i0 = qb * bq, rows = p->seq_q - i0 < bq ? p->seq_q - i0 : bq;
            hr_ft_load_head(&w, 0, p, a, b, h, i0, rows, qscale);
            hr_ft_attend_head(&w, rows, p, a, b, g);
            hr_ft_store_head(&w, 0, p, a, b, h, i0, rows);
        }
    }
    return HR_OK;
}

const hr_kernel hr_kernel_flash = {
    .name = "flash",
    .summary = "FlashAttention-2 online softmax: K/V tiles, register-blocked, causal skipping",
    .caps = HR_CAP_CAUSAL | HR_CAP_THREADED | HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV | HR_CAP_WINDOW |
            HR_CAP_SOFTCAP | HR_CAP_ALIBI | HR_CAP_PAGED,
    .traffic = HR_TRAFFIC_KV_PER_HEAD,
    .applicable = flash_applicable,
    .resolve = flash_resolve,
    .workspace_bytes = flash_workspace,
    .run = flash_run,
    .dtypes = HR_FT_TYPES,
    .kv_dtypes = HR_FT_TYPES,
    .path = hr_ft_path,
};

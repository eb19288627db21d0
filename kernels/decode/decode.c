/* decode.c — flash-decoding: a few query rows against a long KV cache, the cache split across threads and merged by log-sum-exp. */
/*
 * Algorithm (Dao et al., "Flash-Decoding for long-context inference", 2023; the online
 * softmax of Milakov & Gimelshein, 2018):
 *
 *   The work is the sequence of "segments" (b, g) for every batch b and KV head g, each
 *   the Nkv keys of that head laid end to end: S = B * Hkv * Nkv keys in all. Thread t
 *   of T takes the contiguous key range [S*t/T, S*(t+1)/T). When B*Hkv >= T that mostly
 *   hands out whole heads; when it is smaller (one sequence, few KV heads, long cache)
 *   it splits each head's cache length across threads, which is the point of
 *   flash-decoding. Every piece (a segment cut by a thread range) is attended by one
 *   thread for all R = G * Nq query rows of the group (G = Hq / Hkv query heads share
 *   KV head g), so each K and V row is read from memory exactly once per call.
 *
 *   A piece keeps, per query row r, the running state of the online softmax over the
 *   keys seen so far:  m_r = max of the scaled scores,  l_r = sum exp(s - m_r),
 *   acc_r = sum exp(s - m_r) * V  (unnormalized). A key block of the piece first
 *   computes its scores for all rows (K block read once), then updates m, rescales l
 *   and acc by exp(m_old - m_new), and adds P * V (V block read once).
 *
 *   A piece that covers its whole segment is normalized and written straight to O.
 *   Only the first and last piece of a thread range can be partial; their states go to
 *   the thread's two partial slots in the workspace. After one barrier, the thread
 *   whose range holds the first key of a split segment merges the pieces by
 *   log-sum-exp:  M = max_k m_k,  L = sum_k l_k e^(m_k - M),  O = sum_k acc_k e^(m_k - M) / L.
 *   A row that sees no key (causal, Nq > Nkv) keeps m = -inf, l = 0 and is written as 0.
 *
 *   When the K and V rows of one key lie side by side for all KV heads (BNHD), a segment
 *   is (b) and covers every KV head: the thread walks a key block for head 0, 1, ... in
 *   turn, keeping a state per head, so memory is read row of heads after row of heads
 *   (see attend_heads); splits and merges are the same, per head.
 *
 * Every stored type (kv_dtype f32, f16, bf16, q8_0, q4_0: a->k/v or a->xk/xv) takes the
 * same walks with decode_kv.c's block step, register tiles that convert K and V in
 * registers (q8_0/q4_0 on a VNNI CPU: decode_i8.c's int8 scores instead; bf16 on an
 * AVX512-BF16 CPU: decode_bf16.c's vdpbf16ps P·V, and its scores too for a bf16 Q); Q
 * and O in f32, bf16 or f16 (dtype): Q read as stored (attend_init), each O row computed
 * in fp32 and rounded into its type (o_store); every sum stays fp32.
 * decode_block.h holds the shared context, state and online-softmax step.
 *
 * Arithmetic, per key and KV head at H32/8 d128 Nq 1 (R = 4 query rows share each K
 * and V row; the cache is read once per call whatever R):
 *   bytes   K + V rows: f32 1024, f16/bf16 512, q8_0 272 (34 B per 32), q4_0 144 (18)
 *   FLOPs   4 R d = 2048 (scores 2Rd, P·V 2Rd): 64 zmm FMAs, + 16 vmulps of dequant
 *           on the same pipes for q8_0/q4_0 (decode_kv.c)
 *   so AI   f32 2, f16/bf16 4, q8_0 7.5, q4_0 14 FLOP/B, against a server core's balance
 *           of about 4 (its FMA roof over its triad bandwidth): f32 is memory-bound,
 *           f16/bf16 sit at the balance, q8_0/q4_0 are bound by the fp32 FMA pipes.
 *   So the FMA roof caps any type at about 2x fp32's tokens/s at the triad (q8_0/q4_0,
 *   with their vmulps, less): more for q8_0/q4_0 needs int8 dot products (decode_i8.c).
 * The register tiles reach 0.9 of the triad for f32 and about 0.6 of the FMA roof for
 * the typed caches; prefetching further ahead, other block sizes and a 4x4
 * transpose reduction of the scores do not pay (perf-log 0207).
 * q8_0/q4_0 where the CPU has VNNI: int8 scores and P·V, decode_i8.c. It adds Q's
 * quantization to the kernel's error, which the oracle's tolerance on a block cache
 * carries exactly (oracle.c).
 *
 * Prefetch spread (decode_kv.c): the scores step the next block's V prefetch every PF_X
 * vectors of d, 4 lines a step, not a burst of 32 lines per 4 keys (the K loads behind it
 * wait for miss buffers), and P·V steps its K prefetch in every row tile, not only the
 * first of AVX2's two: so the avx2 step's compute hides under the stream (perf-log
 * 0208). f16/bf16 at the avx512 level keep one step per 4 keys: in cache the finer steps
 * cost more than they spread.
 *
 * f16/bf16 at the avx2 level (decode_kv.c, scores_kv_h / pv_kv_h, AVX2 builds only):
 * tiles of all 4 rows, scores 4 rows x 2 keys and P·V 4 rows x 2 vectors, so each K and V
 * vector is converted once, not once per row tile; P·V steps its K prefetch once per 4
 * keys (per key, the step's state went through the stack in a loop-carried chain)
 * (perf-log 0209).
 *
 * bf16 even/odd at the avx2 level (d a multiple of 16, decode_bf16_eo): 16 values a
 * 256-bit load as 8 dwords, even = dword << 16, odd = dword & 0xffff0000 (vec_eo.h), two
 * p01 ops per 16 values and no shuffle; the scores take q rows stored in that order
 * (attend_init: no per-step permute), P·V splits its accumulators after the tile's load
 * and merges them before its store (once per tile and block; st.acc and the merges stay
 * in d order). It gains where the stream and the step overlap, not in cache (perf-log
 * 0210).
 *
 * Causal masking is bottom-right aligned: row i sees keys j < hr_causal_end(p, i).
 *
 * A ragged batch (decode_batch.c, through decode_run.h) takes the same pieces, slots and
 * merge over sequences of their own lengths: segments (sequence, KV head) end to end,
 * thread t's range the t-th of T equal-cost ranges (a key of a sequence costs its query
 * rows), every sequence's context sized to the largest so one thread's slots never
 * overlap, and one barrier before the merges.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "headroom.h"
#include "vec.h"
#include "vec_bf16.h" /* HR_HAVE_BF16DOT */

#include "decode_block.h"
#include "decode_run.h"

#define DECODE_MAX_HEADS 256 /* KV heads interleaved at most (BNHD); more: per head  */
/* Interleaved (BNHD) key blocks hold at most this many floats of K over all heads:
 * 64 KiB, 16 keys at Hkv 8, d 128: 16-key blocks came closest to the bandwidth probe
 * (perf-log 0211). */
#define DECODE_HEADS_BLOCK_F 16384

/* Per-thread workspace, in floats, each part 64-byte aligned:
 *   q [R][dp]   the group's query rows times the softmax scale, zero padded (int8
 *               path: then the rows quantized to q8_0, i8s->qf)
 *   s [R][kbp]  one key block's scores, then its probabilities (int8 path: then P
 *               times the V block scales, i8s->sf)
 *   w           a partial state for whole pieces
 *   slot 0, 1   partial states of the thread's first and last piece */
/* Head-interleaved when the K and V rows of one key lie side by side for all KV heads
 * (BNHD: head stride d, row stride Hkv*d). Walking one head's keys there jumps a whole
 * row of heads per key, a page-sized stride the L2 stream prefetcher does not follow
 * (decode ran at ~10 GB/s per core); walking a key block for every head in turn reads
 * each row of heads once, in address order. */
static int heads_side_by_side(const dctx *c)
{
    if (c->p->kv_heads < 2) return 0;
    const ptrdiff_t rb = (ptrdiff_t)c->rb, H = c->p->kv_heads;
    return c->k.sh == rb && c->v.sh == rb && c->k.sn >= rb * H && c->v.sn >= rb * H;
}

static bool paged_blocks(const dctx *c);

/* A paged cache whose blocks hold every KV head's P rows back to back (sh = P sn, sb =
 * Hkv sh, sn = rb, the same for K and V): a page's K is then one span for all heads, and
 * its V another, which attend_page_heads reads in address order. Walked one head at a
 * time (attend_pages), each head's part of a page is a short run of its own between
 * jumps to other blocks, and that cost more than the step's fixed cost per page (perf-log
 * 0550). The int8 step on tiles keeps its blocks of several pages (attend_paged) and
 * takes the heads in turn a block at a time, so head g + 1's part of each page, right
 * after head g's, is read next (perf-log 0590). */
static int page_heads(const dctx *c)
{
    const ptrdiff_t rb = (ptrdiff_t)c->rb, P = c->p->page_size, H = c->p->kv_heads;
    if (H < 2) return 0;
    return c->k.sn == rb && c->v.sn == rb && c->k.sh == P * rb && c->v.sh == P * rb && c->k.sb == H * P * rb &&
           c->v.sb == H * P * rb;
}

/* K and V as stored, strides in bytes: the f32 views scaled, or the typed ones. */
static hr_xcview bytes_view(hr_cview v)
{
    const ptrdiff_t f = (ptrdiff_t)sizeof(float);
    return (hr_xcview){v.p, v.sb * f, v.sh * f, v.sn * f, 0};
}

/* Heads whose q block and states the workspace holds: Hkv (or 1), whichever walk runs. */
static int hmax(const dctx *c) { return c->p->kv_heads > 1 ? c->p->kv_heads : 1; }

/* p's variants in log2 units (decode_block.h's block_variants) and the keys any row
 * sees: [min window begin, max causal end), which the threads split (decode_run). */
static void variants_init(dctx *c, const hr_problem *p)
{
    const float log2e = 1.44269504088896341f;
    c->var = (p->window > 0 ? DECODE_VAR_WINDOW : 0) | (p->softcap > 0 ? DECODE_VAR_CAP : 0) |
             (p->alibi > 0 ? DECODE_VAR_ALIBI : 0);
    c->shift = p->seq_kv - p->seq_q;
    c->cap2 = p->softcap > 0 ? p->softcap * log2e : 0.0f;
    c->inv_cap2 = p->softcap > 0 ? 1.0f / c->cap2 : 0.0f;
    int lo = p->seq_kv, hi = 0;
    for (int i = 0; i < p->seq_q && i < DECODE_MAX_Q; i++) {
        const int b = hr_window_begin(p, i), e = hr_causal_end(p, i);
        c->beg[i] = b;
        lo = b < lo ? b : lo;
        hi = e > hi ? e : hi;
    }
    c->jlo = lo < hi ? lo : 0;
    c->nv = lo < hi ? hi - lo : p->seq_kv;
}

/* Floats of the workspace's shared tail: ALiBi's slope of each query head, in log2
 * units (filled by decode_run, read by every thread's block_variants). */
static size_t slopes_f(const hr_problem *p) { return p->alibi > 0 ? round16((size_t)p->heads) : 0; }

void hr_dec_ctx_init(dctx *c, const hr_problem *p, const hr_tune *t, const hr_args *a)
{
    c->p = p;
    c->a = a;
    c->G = hr_group(p);
    c->R = c->G * p->seq_q;
    c->d = p->d_head;
    c->dp = (int)(((size_t)p->d_head + HR_VW - 1) / HR_VW * HR_VW);
    c->kb = t->block_kv < p->seq_kv ? t->block_kv : p->seq_kv;
    c->kbp = (int)(((size_t)c->kb + HR_VW - 1) / HR_VW * HR_VW);
    c->scale = hr_problem_scale(p);
    c->kt = p->kv_dtype;
    c->rb = hr_dtype_row_bytes(c->kt, c->d);
    c->pk = c->pv = c->pfk = c->pfv = NULL; /* contiguous, or the piece walk (attend_paged sets them) */
    c->pgo = c->npfk = c->npfv = 0;
    variants_init(c, p);
    if (a) {
        c->k = c->kt == HR_F32 ? bytes_view(a->k) : a->xk;
        c->v = c->kt == HR_F32 ? bytes_view(a->v) : a->xv;
    }
    /* q8_0/q4_0 with int8 dot products (decode_i8.c): Q quantized after the fp32 rows,
     * P times the V scales after the scores. */
    const hr_decode_step *path = hr_decode_pick(p); /* decode_path.c's table, once per call */
    c->i8s = path->i8;
    c->i8 = c->i8s ? 1 + c->i8s->pv8() : 0;
    c->bfd = path->bf16; /* P in bf16 after the scores */
    c->pf_l1 = hr_decode_pf_l1(path); /* the block step's copy that prefetches into L1 */
    if (c->pf_l1 && c->i8) c->i8s = c->i8s == &hr_decode_i8_emu ? &hr_decode_i8_emu_l1 : &hr_decode_i8_vnni_l1;
    c->bfq = c->bfd && hr_decode_bf16_q(p->dtype); /* and Q·K by vdpbf16ps on Q in bf16 */
    /* Scores in log2 units, so the softmax takes exp2 (block_softmax); the int8
     * path's Q block scales carry the factor instead (decode_i8.c), bfq's scores take
     * it after the dot products (decode_bf16.c). */
    if (!c->i8) c->scale *= 1.44269504088896341f;
    c->qf = round16((size_t)c->R * c->dp) + (c->i8 ? c->i8s->qf(c) : 0);
    c->sf = round16((size_t)c->R * c->kbp) + (c->i8 ? c->i8s->sf(c) : 0) + (c->bfd ? hr_decode_bf16_sf(c) : 0);
    c->slot_f = round16(2 * (size_t)c->R) + round16((size_t)c->R * c->dp);
    /* The workspace is sized for the interleaved walk, which needs the most (a q block
     * and three states per KV head): workspace_bytes passes no views (a = NULL), so it
     * cannot know the layout. */
    c->hs = a && (p->page_size ? page_heads(c) : heads_side_by_side(c)) && p->kv_heads <= DECODE_MAX_HEADS
                ? p->kv_heads
                : 1;
    c->thread_f = (size_t)hmax(c) * c->qf + c->sf + 3 * (size_t)hmax(c) * c->slot_f;
    /* Interleaved, a block spans every head: at most DECODE_HEADS_BLOCK_F floats of K
     * rows (and as many of V), so the block being read and the next one being
     * prefetched both stay in L2. block_kv remains the upper bound. */
    if (c->hs > 1 && !p->page_size) {
        int cap = (int)(DECODE_HEADS_BLOCK_F * sizeof(float) / ((long)c->hs * c->rb));
        cap = cap < 8 ? 8 : cap;
        if (c->kb > cap) {
            c->kb = cap;
            c->kbp = (int)(((size_t)c->kb + HR_VW - 1) / HR_VW * HR_VW);
        }
    }
}


static dstate slot_at(const dctx *c, float *base)
{
    size_t R2 = round16(2 * (size_t)c->R);
    return (dstate){base, base + c->R, base + R2};
}


/* Scales the group's query rows of KV head g (batch b) into q and clears the state.
 * Q is read in its stored type (a bf16 or f16 Q's values converted exactly); bfq keeps
 * bf16 rows as they are, unscaled, dp bf16 values apart. */
static void attend_init(const dctx *c, int b, int g, float *q, dstate st)
{
    const int d = c->d;
    const hr_dtype qt = c->p->dtype;
    for (int r = 0; r < c->R; r++) {
        const int h = row_head(c, g, r), i = row_i(c, r);
        float *dst = q + (size_t)r * c->dp;
        if (c->bfq && qt == HR_BF16) /* d % 32 == 0: dp = d */
            memcpy((uint16_t *)q + (size_t)r * c->dp, hr_xcrow(c->a->xq, b, h, i), (size_t)d * sizeof(uint16_t));
        else {
            if (qt == HR_F32) memcpy(dst, hr_crow(c->a->q, b, h, i), (size_t)d * sizeof *dst);
            else hr_dtype_load_row(qt, hr_xcrow(c->a->xq, b, h, i), dst, d);
            if (c->bfq) { /* Q as bf16: each value rounded to nearest even, unscaled */
                uint16_t *qb = (uint16_t *)q + (size_t)r * c->dp;
                for (int x = 0; x < d; x++) qb[x] = hr_f32_to_bf16(dst[x]); /* in place: qb[x] is below dst[x] */
            } else if (decode_bf16_eo(c)) /* K's even/odd order (decode_block.h); dp = d */
                for (int x = 0; x < d; x += 2 * HR_VW) {
                    float t[2 * HR_VW];
                    memcpy(t, dst + x, sizeof t);
                    for (int u = 0; u < HR_VW; u++) {
                        dst[x + u] = t[2 * u] * c->scale;
                        dst[x + HR_VW + u] = t[2 * u + 1] * c->scale;
                    }
                }
            else {
                for (int x = 0; x < d; x++) dst[x] *= c->scale;
                for (int x = d; x < c->dp; x++) dst[x] = 0.0f;
            }
        }
        st.m[r] = -INFINITY;
        st.l[r] = 0.0f;
        memset(st.acc + (size_t)r * c->dp, 0, (size_t)c->dp * sizeof(float));
    }
    if (c->i8) c->i8s->quant(c, q, q + round16((size_t)c->R * c->dp));
}

/* One key block [jb, jb+n) of KV head g into st: scores, online softmax, P·V, in
 * decode_kv.c's register tiles for every stored type (f32 too). The prefetch arguments
 * (V of the next block during the scores, K of the block after next during P·V) may be
 * empty (nv, n2 = 0). */
DECODE_INLINE void attend_block(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q,
                         float *s, dstate st, int nv, int n2, int jpf_v, int jpf_k)
{
    if (c->i8) c->i8s->block(c, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k);
#if defined(HR_HAVE_BF16DOT) /* else bfd is 0 and decode_bf16.c has no block step */
    else if (c->bfd)
        (c->pf_l1 ? hr_decode_block_bf16_l1 : hr_decode_block_bf16)(c, b, g, jb, n, end, q, s, st, nv, n2, jpf_v,
                                                                    jpf_k);
#endif
    else
        (c->pf_l1 ? hr_decode_block_kv_l1 : hr_decode_block_kv)(c, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k);
}

/* A paged cache (p->page_size P; headroom.h hr_kv_page_row): key block [jb, jb+n) in
 * pieces that never cross a page, each stepped by attend_block on a copy of the context
 * whose K and V views (sb 0) start where its page's rows do, so the step's own
 * addressing (row jb + i at jb + i rows past the head's base) lands in the page; the
 * base is that of row 0 of a page at the piece's page start, an address computed as an
 * integer and perhaps outside the pool, never read. The prefetches (V of the next piece,
 * K of the one after) name their pages' rows in the piece's frame: a block's stride is
 * whole rows (sb a multiple of sn, the same for K and V), else the step prefetches
 * nothing. Contiguous: attend_block itself. */
static int imin3(int x, int y, int z) { return x < y ? (x < z ? x : z) : (y < z ? y : z); }

static long page_frame_row(const dctx *c, int b, int pg, int x)
{
    const int P = c->p->page_size;
    const int32_t *tab = c->a->block_table + (ptrdiff_t)b * c->a->table_stride;
    return (long)(tab[x / P] - tab[pg / P]) * (long)(c->k.sb / c->k.sn) + x % P + pg - pg % P;
}

static void attend_pages(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q, float *s,
                         dstate st, int j1)
{
    const int P = c->p->page_size;
    const bool pf = c->k.sb % c->k.sn == 0 && c->v.sb % c->v.sn == 0 && c->k.sb / c->k.sn == c->v.sb / c->v.sn;
    for (int s0 = jb; s0 < jb + n;) {
        const int m = (jb + n < s0 - s0 % P + P ? jb + n : s0 - s0 % P + P) - s0;
        const int v0 = s0 + m, mv = imin3(j1 - v0, P - v0 % P, c->kb);
        const int k0 = v0 + mv, mk = imin3(j1 - k0, P - k0 % P, c->kb);
        dctx cc = *c;
        const ptrdiff_t bk = hr_kv_page_row(c->p, c->a, c->k.sb, 0, c->k.sn, b, 0, s0 - s0 % P);
        const ptrdiff_t bv = hr_kv_page_row(c->p, c->a, c->v.sb, 0, c->v.sn, b, 0, s0 - s0 % P);
        cc.k.p = (const void *)((uintptr_t)c->k.p + (uintptr_t)bk - (uintptr_t)((s0 - s0 % P) * c->k.sn));
        cc.v.p = (const void *)((uintptr_t)c->v.p + (uintptr_t)bv - (uintptr_t)((s0 - s0 % P) * c->v.sn));
        cc.k.sb = cc.v.sb = 0;
        const long fv = mv > 0 && pf ? page_frame_row(c, b, s0, v0) : 0, fk = mk > 0 && pf ? page_frame_row(c, b, s0, k0) : 0;
        const bool ok = fv == (int)fv && fk == (int)fk;
        attend_block(&cc, b, g, s0, m, end, q, s, st, pf && ok && mv > 0 ? mv : 0, pf && ok && mk > 0 ? mk : 0,
                     (int)fv, (int)fk);
        s0 += m;
    }
}

/* A paged block in one step: the int8 step on tiles (q8_0/q4_0, int8 P·V) takes a block
 * of several pages (dctx pk, pv), its fixed cost paid once per block, not once per page
 * (faster than the piece walk at P 16 and 64, perf-log 0500). The fp32 register
 * tiles so (row bases per 16 keys) were slower than the piece walk, so the other steps
 * walk pages (attend_page_heads, or attend_pages for one head). At most
 * DECODE_PAGED_GROUPS groups a block (blocks of up to 1008 keys; longer ones take the
 * piece walk). */
#define DECODE_PAGED_GROUPS 64
static bool paged_blocks(const dctx *c)
{
    return c->kb <= DECODE_PAGED_GROUPS * DECODE_GROUP - DECODE_GROUP && c->i8 == 2 && c->k.tile == HR_KV_TILE;
}

/* The groups (DECODE_GROUP absolute keys) holding keys [j0, j0 + n) of (b, g) in view v:
 * their first rows' addresses (re) or the bases decode_row takes (vt: row j of the
 * block, 0 its key j0, at vt[(j + j0 % DECODE_GROUP) / DECODE_GROUP] + j sn). Returns
 * their count. */
static int page_groups(const dctx *c, hr_xcview v, int b, int g, int j0, int n, const unsigned char **vt,
                       const unsigned char **re)
{
    const int a0 = j0 - j0 % DECODE_GROUP, ng = n > 0 ? (j0 + n - 1 - a0) / DECODE_GROUP + 1 : 0;
    for (int i = 0; i < ng; i++) {
        const int key = a0 + DECODE_GROUP * i;
        const uintptr_t r = (uintptr_t)v.p + (uintptr_t)hr_kv_page_row(c->p, c->a, v.sb, v.sh, v.sn, b, g, key);
        if (re) re[i] = (const unsigned char *)r;
        if (vt) vt[i] = (const unsigned char *)(r - (uintptr_t)((ptrdiff_t)(key - j0) * v.sn));
    }
    return ng;
}

/* Key block [jb, jb+n) of KV head g of a paged cache in one call of the block step, its
 * rows through per-group bases (page_groups), the prefetches (V of nv keys at jpf_v of
 * head gv during the scores; K of n2 keys at jpf_k of head gk during P·V: what the walk
 * reads next) through their groups' first rows, as the contiguous walk prefetches (none
 * where a group's rows are not back to back). */
static void attend_paged(const dctx *c, int b, int g, int jb, int n, const int *end, const float *q, float *s,
                         dstate st, int nv, int n2, int jpf_v, int jpf_k, int gv, int gk)
{
    const unsigned char *pk[DECODE_PAGED_GROUPS], *pv[DECODE_PAGED_GROUPS];
    const unsigned char *fk[DECODE_PAGED_GROUPS], *fv[DECODE_PAGED_GROUPS];
    const bool pf = c->k.sn == (ptrdiff_t)c->rb && c->v.sn == (ptrdiff_t)c->rb;
    dctx cc = *c;
    page_groups(c, c->k, b, g, jb, n, pk, NULL);
    page_groups(c, c->v, b, g, jb, n, pv, NULL);
    cc.npfv = pf ? page_groups(c, c->v, b, gv, jpf_v, nv, NULL, fv) : 0;
    cc.npfk = pf ? page_groups(c, c->k, b, gk, jpf_k, n2, NULL, fk) : 0;
    cc.pk = pk;
    cc.pv = pv;
    cc.pfk = fk;
    cc.pfv = fv;
    cc.pgo = jb % DECODE_GROUP;
    attend_block(&cc, b, g, jb, n, end, q, s, st, nv, n2, jpf_v, jpf_k);
}

/* The causal ends of the query rows and the last key any row of a group sees. */
static int causal_ends(const dctx *c, int *end)
{
    int jmax = 0;
    for (int i = 0; i < c->p->seq_q; i++) {
        end[i] = hr_causal_end(c->p, i);
        jmax = end[i] > jmax ? end[i] : jmax;
    }
    return jmax;
}

/* Attends keys [j0, j1) of KV head g of batch b for the group's rows into st (state
 * initialized here). q and s are this thread's scratch. */
void hr_dec_attend(const dctx *c, int b, int g, int j0, int j1, float *q, float *s, dstate st)
{
    int end[DECODE_MAX_Q];
    const int jmax = causal_ends(c, end); /* keys at or past it are seen by no row */
    if (j1 > jmax) j1 = jmax;
    attend_init(c, b, g, q, st);
    for (int jb = j0; jb < j1; jb += c->kb) {
        const int n = j1 - jb < c->kb ? j1 - jb : c->kb;
        const int nnext = j1 - (jb + n) < c->kb ? j1 - (jb + n) : c->kb;
        /* Prefetch distance: V of the next block during the scores, K of the block
         * after next during P·V (the next block's K was prefetched a step earlier). */
        const int jn = jb + n, n2 = j1 - (jn + nnext) < c->kb ? j1 - (jn + nnext) : c->kb;
        if (c->p->page_size && paged_blocks(c)) attend_paged(c, b, g, jb, n, end, q, s, st, nnext, n2, jn, jn + nnext, g, g);
        else if (c->p->page_size) attend_pages(c, b, g, jb, n, end, q, s, st, j1);
        else attend_block(c, b, g, jb, n, end, q, s, st, nnext, n2, jn, jn + nnext);
    }
}

/* A paged cache's blocks of every head (page_heads): keys [j0, j1) of batch b for every
 * KV head in address order, page by page, in a page head 0's keys, then head 1's, ...,
 * in key blocks of at most kb, states st[g]. Each step runs on its page's frame
 * (attend_pages' base, sb 0) and prefetches what the walk reads next, as the contiguous
 * walk does: V of the next block during the scores, K of the block after it during P·V,
 * named in the step's frame (head g + 1's row j is row j + P there: sh = P sn).
 * The int8 step on tiles (paged_blocks) keeps its blocks of several pages: block by
 * block, head 0's, then head 1's, ..., each prefetching the next head's block (the next
 * block's after the last head). */
typedef struct {
    int g, jb, n; /* head, first key, keys (0: past the walk's end) */
} page_item;

static page_item page_next(const dctx *c, int j0, int j1, page_item x)
{
    const int P = c->p->page_size, ps = x.jb - x.jb % P, pe = ps + P < j1 ? ps + P : j1;
    page_item y = x;
    if (x.n == 0) return x;
    if (x.jb + x.n < pe) y.jb = x.jb + x.n; /* the head's next block in the page */
    else if (x.g + 1 < c->hs) {             /* the next head's first block in the page */
        y.g = x.g + 1;
        y.jb = ps > j0 ? ps : j0;
    } else { /* the next page's head 0 */
        y.g = 0;
        y.jb = pe;
    }
    const int e = y.jb - y.jb % P + P < j1 ? y.jb - y.jb % P + P : j1;
    y.n = y.jb < j1 ? (e - y.jb < c->kb ? e - y.jb : c->kb) : 0;
    return y;
}

/* Item y's first row in x's frame (page_frame_row, then y's head): its keys in *n, 0
 * where y is empty or its row is out of an int. */
static int page_item_row(const dctx *c, int b, page_item x, page_item y, int *n)
{
    const long r = y.n ? page_frame_row(c, b, x.jb, y.jb) + (long)(y.g - x.g) * c->p->page_size : 0;
    *n = r == (int)r ? y.n : 0;
    return *n ? (int)r : 0;
}

static void attend_page_heads(const dctx *c, int b, int j0, int j1, float *const *q, float *s, const dstate *st)
{
    int end[DECODE_MAX_Q];
    const int jmax = causal_ends(c, end), P = c->p->page_size, H = c->hs;
    if (j1 > jmax) j1 = jmax;
    for (int g = 0; g < c->hs; g++) attend_init(c, b, g, q[g], st[g]);
    if (j0 >= j1) return;
    if (paged_blocks(c)) {
        for (int jb = j0; jb < j1; jb += c->kb) {
            const int n = j1 - jb < c->kb ? j1 - jb : c->kb, jn = jb + n, nn = j1 - jn < c->kb ? j1 - jn : c->kb;
            for (int g = 0; g < H; g++) {
                /* V of the next item, K of the one after: (g + 1, jb) and (g + 2, jb), or the next block's */
                const int gv = g + 1 < H ? g + 1 : 0, jv = g + 1 < H ? jb : jn, nv = g + 1 < H ? n : nn;
                const int gk = g + 2 < H ? g + 2 : (g + 2) - H, jk = g + 2 < H ? jb : jn, nk = g + 2 < H ? n : nn;
                attend_paged(c, b, g, jb, n, end, q[g], s, st[g], nv, nk, jv, jk, gv, gk);
            }
        }
        return;
    }
    page_item x = {0, j0, imin3(j1 - j0, c->kb, P - j0 % P)};
    dctx cc = *c;
    cc.k.sb = cc.v.sb = 0;
    for (int pg = -1; x.n > 0; x = page_next(c, j0, j1, x)) {
        if (x.jb / P != pg) { /* a new page: the frame's base */
            pg = x.jb / P;
            const int ps = pg * P;
            cc.k.p = (const void *)((uintptr_t)c->k.p + (uintptr_t)hr_kv_page_row(c->p, c->a, c->k.sb, 0, c->k.sn, b, 0, ps) -
                                    (uintptr_t)(ps * c->k.sn));
            cc.v.p = (const void *)((uintptr_t)c->v.p + (uintptr_t)hr_kv_page_row(c->p, c->a, c->v.sb, 0, c->v.sn, b, 0, ps) -
                                    (uintptr_t)(ps * c->v.sn));
        }
        const page_item y = page_next(c, j0, j1, x), z = page_next(c, j0, j1, y);
        int nv, n2;
        const int fv = page_item_row(c, b, x, y, &nv), fk = page_item_row(c, b, x, z, &n2);
        attend_block(&cc, b, x.g, x.jb, x.n, end, q[x.g], s, st[x.g], nv, n2, fv, fk);
    }
}

/* Interleaved heads (BNHD): keys [j0, j1) of batch b for every KV head, a key block at a
 * time for head 0, 1, ... in turn, states st[g]. The next block's rows of all heads are
 * prefetched into L2 in address order, a share before each head's block. */
static void attend_heads(const dctx *c, int b, int j0, int j1, float *const *q, float *s, const dstate *st)
{
    int end[DECODE_MAX_Q];
    const int jmax = causal_ends(c, end), H = c->hs;
    if (j1 > jmax) j1 = jmax;
    for (int g = 0; g < H; g++) attend_init(c, b, g, q[g], st[g]);
    /* one key's rows of all heads: from head 0's row to the end of head H-1's, in lines */
    const int kline = (int)(((H - 1) * c->k.sh + (ptrdiff_t)c->rb + 63) / 64);
    const int vline = (int)(((H - 1) * c->v.sh + (ptrdiff_t)c->rb + 63) / 64);
    for (int jb = j0; jb < j1; jb += c->kb) {
        const int n = j1 - jb < c->kb ? j1 - jb : c->kb, jn = jb + n;
        const int nnext = j1 - jn < c->kb ? j1 - jn : c->kb, lines = nnext * (kline + vline);
        for (int g = 0; g < H; g++) {
            for (int i = lines * g / H; i < lines * (g + 1) / H; i++) {
                const int kv = i >= nnext * kline, li = kv ? i - nnext * kline : i, per = kv ? vline : kline;
                const char *row = hr_xcrow(kv ? c->v : c->k, b, 0, jn + li / per);
                __builtin_prefetch(row + (li % per) * 64, 0, 2);
            }
            attend_block(c, b, g, jb, n, end, q[g], s, st[g], 0, 0, 0, 0);
        }
    }
}

/* Where O row r of the group is computed: the f32 row itself, or buf (d floats) for a
 * bf16 or f16 O, which o_store then rounds into the stored row (nearest even). */
static float *o_row(const dctx *c, int b, int g, int r, float *buf)
{
    return c->p->dtype == HR_F32 ? hr_row(c->a->o, b, row_head(c, g, r), row_i(c, r)) : buf;
}

static void o_store(const dctx *c, int b, int g, int r, const float *buf)
{
    if (c->p->dtype != HR_F32)
        hr_dtype_store_row(c->p->dtype, buf, hr_xrow(c->a->xo, b, row_head(c, g, r), row_i(c, r)), c->d);
}

/* O rows of the group from a whole piece's state: acc / l, or 0 where no key was seen. */
void hr_dec_write_rows(const dctx *c, int b, int g, const dstate *st)
{
    float buf[HR_MAX_DHEAD];
    for (int r = 0; r < c->R; r++) {
        float *o = o_row(c, b, g, r, buf);
        const float *acc = st->acc + (size_t)r * c->dp;
        float inv = st->l[r] > 0.0f ? 1.0f / st->l[r] : 0.0f;
        for (int x = 0; x < c->d; x++) o[x] = acc[x] * inv;
        o_store(c, b, g, r, o);
    }
}

/* Thread t's range [lo, hi) of the S units split among T threads; with a cache in tiles
 * (HR_KV_TILE) each cut moved down to a tile's first key of its segment of N keys, so
 * every piece and block starts a tile (the cuts stay in order, a range may be empty). */
static long long range_lo(const dctx *c, long long S, int t, int T)
{
    const long long x = S * t / T, N = c->nv;
    return c->k.tile ? x - x % N % c->k.tile : x;
}

/* Thread u's workspace, in floats, each part 64-byte aligned: one key block's scores
 * (R x kbp), the query block of each of up to hmax heads (q[g], R x dp), then per head
 * a whole-piece state and two partial states (slot k = -1, 0, 1). hmax is Hkv (or 1). */
float *hr_dec_thread_s(const dctx *c, void *ws, int u) { return (float *)ws + (size_t)u * c->thread_f; }
float *hr_dec_thread_q(const dctx *c, void *ws, int u, int g)
{
    return hr_dec_thread_s(c, ws, u) + c->sf + (size_t)g * c->qf;
}
dstate hr_dec_thread_slot(const dctx *c, void *ws, int u, int k, int g)
{
    return slot_at(c, hr_dec_thread_q(c, ws, u, hmax(c)) + ((size_t)(1 + k) * (size_t)hmax(c) + (size_t)g) * c->slot_f);
}

static long long cut_lo(const dcuts *x, int u) { return x->cut ? x->cut[u] : range_lo(x->c, x->S, u, x->T); }

/* Writes the group's O rows from the log-sum-exp merge of piece `mine` and slot (0, gs)
 * of threads [u0, u1) with a nonempty range:  M = max m_k,  L = sum l_k e^(m_k - M),
 * O = sum acc_k e^(m_k - M) / L; rows where every m_k = -inf saw no key and are 0. */
void hr_dec_merge_rows(const dctx *c, void *ws, int b, int g, int gs, dstate mine, int u0, int u1,
                       const dcuts *x)
{
    float buf[HR_MAX_DHEAD];
    for (int r = 0; r < c->R; r++) {
        float M = mine.m[r];
        for (int u = u0; u < u1; u++)
            if (cut_lo(x, u) < cut_lo(x, u + 1)) {
                float mu = hr_dec_thread_slot(c, ws, u, 0, gs).m[r];
                M = mu > M ? mu : M;
            }
        float *o = o_row(c, b, g, r, buf);
        if (M == -INFINITY) {
            memset(o, 0, (size_t)c->d * sizeof *o);
            o_store(c, b, g, r, o);
            continue;
        }
        float e = expf(mine.m[r] - M), L = mine.l[r] * e; /* exp(-inf) = 0 */
        const float *acc = mine.acc + (size_t)r * c->dp;
        for (int x2 = 0; x2 < c->d; x2++) o[x2] = acc[x2] * e;
        for (int u = u0; u < u1; u++) {
            if (cut_lo(x, u) == cut_lo(x, u + 1)) continue;
            dstate su = hr_dec_thread_slot(c, ws, u, 0, gs);
            float eu = expf(su.m[r] - M);
            L += su.l[r] * eu;
            const float *au = su.acc + (size_t)r * c->dp;
            for (int x2 = 0; x2 < c->d; x2++) o[x2] += au[x2] * eu;
        }
        const float inv = 1.0f / L;
        for (int x2 = 0; x2 < c->d; x2++) o[x2] *= inv;
        o_store(c, b, g, r, o);
    }
}

static const char *decode_applicable(const hr_problem *p)
{
    if (p->seq_q > DECODE_MAX_Q) return "decode takes at most 16 query rows per head (Nq <= 16)";
    if (hr_decode_q_env() < 0) return "HEADROOM_DECODE_Q must be auto or exact";
    if (hr_decode_pf_env() < 0) return "HEADROOM_DECODE_PF must be auto, l1 or l2";
    if (hr_decode_kv_env() < 0) return "HEADROOM_DECODE_KV must be auto or rows";
    if (hr_decode_pv_env() < 0) return "HEADROOM_DECODE_PV must be int8 or fp32";
    return hr_decode_why_not(p); /* HEADROOM_DECODE_PATH: decode_path.c's table */
}

static void decode_resolve(const hr_problem *p, const hr_machine *m, hr_tune *t)
{
    if (t->threads <= 0) t->threads = omp_get_max_threads();
    if (t->block_kv <= 0) t->block_kv = hr_decode_default_block(p, m, t->threads);
    t->block_q = 0; /* not used: every query row of a group is in one block */
}

static size_t decode_workspace(const hr_problem *p, const hr_tune *t)
{
    dctx c;
    hr_dec_ctx_init(&c, p, t, NULL);
    return (c.thread_f * (size_t)(t->threads > 0 ? t->threads : 1) + slopes_f(p)) * sizeof(float);
}

/* The work is a sequence of segments of N keys each, split evenly among the threads:
 * one segment per (b, g) when each head is walked alone (c->hs = 1), one per batch b
 * covering every KV head when heads are interleaved (c->hs = Hkv). A piece (a segment
 * cut by a thread's range) that covers its whole segment is written straight to O;
 * partial pieces go to the thread's slots and are merged after one barrier by the
 * thread holding the segment's first key. */
static int decode_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    dctx c;
    hr_dec_ctx_init(&c, p, t, a);
    /* tiles: only the int8 step with int8 P·V reads them, and only blocks that start one */
    if ((c.k.tile || c.v.tile) &&
        !(c.k.tile == HR_KV_TILE && c.v.tile == HR_KV_TILE && c.i8 == 2 && (c.kb % HR_KV_TILE == 0 || c.kb == p->seq_kv)))
        return hr_fail("decode: K/V in %d-key tiles, but this problem, build level, CPU or environment reads rows "
                       "(only the int8 step with int8 P·V takes tiles)", HR_KV_TILE);
    const int maxthreads = t->threads > 0 ? t->threads : 1;
    if (c.var & DECODE_VAR_ALIBI) {
        float *sl = (float *)ws + c.thread_f * (size_t)maxthreads;
        for (int h = 0; h < p->heads; h++) sl[h] = hr_alibi_slope(p, h) * 1.44269504088896341f;
        c.slope2 = sl;
    }
    /* A segment is the keys some row sees, [jlo, jlo + nv): a window's keys before every
     * row's first one are no thread's work (in tiles, jlo is moved down to a tile's
     * first key, so the cuts stay on tiles). */
    if (c.k.tile) {
        const int back = c.jlo % c.k.tile;
        c.jlo -= back;
        c.nv += back;
    }
    const int HS = c.hs, nseg_h = HS > 1 ? 1 : p->kv_heads, J = c.jlo; /* segments per batch */
    const long long N = c.nv, S = (long long)p->batch * nseg_h * N;
#pragma omp parallel num_threads(maxthreads)
    {
        const int T = omp_get_num_threads(), tid = omp_get_thread_num();
        float *q[DECODE_MAX_HEADS], *s = hr_dec_thread_s(&c, ws, tid);
        dstate whole[DECODE_MAX_HEADS], slot[2][DECODE_MAX_HEADS];
        for (int g = 0; g < HS; g++) {
            q[g] = hr_dec_thread_q(&c, ws, tid, g);
            whole[g] = hr_dec_thread_slot(&c, ws, tid, -1, g);
            slot[0][g] = hr_dec_thread_slot(&c, ws, tid, 0, g);
            slot[1][g] = hr_dec_thread_slot(&c, ws, tid, 1, g);
        }
        const dcuts cuts = {&c, S, T, NULL};
        const long long lo = range_lo(&c, S, tid, T), hi = range_lo(&c, S, tid + 1, T);
        /* Pieces of this thread's range, segment by segment. */
        for (long long seg = lo / N; lo < hi && seg <= (hi - 1) / N; seg++) {
            const long long s0 = seg * N;
            const int j0 = (int)((lo > s0 ? lo : s0) - s0);
            const int j1 = (int)((hi < s0 + N ? hi : s0 + N) - s0);
            const int b = (int)(seg / nseg_h), g0 = (int)(seg % nseg_h);
            const bool full = j0 == 0 && j1 == N;
            const dstate *st = full ? whole : slot[seg == lo / N ? 0 : 1];
            if (HS > 1 && p->page_size) attend_page_heads(&c, b, J + j0, J + j1, q, s, st);
            else if (HS > 1) attend_heads(&c, b, J + j0, J + j1, q, s, st);
            else hr_dec_attend(&c, b, g0, J + j0, J + j1, q[0], s, st[0]);
            if (full)
                for (int g = 0; g < HS; g++) hr_dec_write_rows(&c, b, HS > 1 ? g : g0, &st[g]);
        }
        /* When every thread boundary falls between segments (B*Hkv a multiple of T,
         * the usual case with many heads) nothing was split: no barrier, no merge. */
        bool split = false;
        for (int u = 1; u < T && !split; u++) split = range_lo(&c, S, u, T) % N != 0;
        if (split) {
#pragma omp barrier
        }
        /* Merge: the thread holding the first key of a segment that runs past its
         * range combines its last piece with slot 0 of every later thread whose
         * (nonempty) range starts inside the segment. */
        const long long seg = lo < hi ? (hi - 1) / N : -1, s0 = seg * N;
        if (split && seg >= 0 && s0 >= lo && s0 + N > hi) {
            int uend = tid + 1;
            while (uend < T && range_lo(&c, S, uend, T) < s0 + N) uend++;
            const int b = (int)(seg / nseg_h), g0 = (int)(seg % nseg_h);
            for (int g = 0; g < HS; g++)
                hr_dec_merge_rows(&c, ws, b, HS > 1 ? g : g0, g, slot[seg == lo / N ? 0 : 1][g], tid + 1, uend, &cuts);
        }
    }
    return HR_OK;
}

const hr_kernel hr_kernel_decode = {
    .name = "decode",
    .summary = "flash-decoding: Nq <= 16 rows vs a long KV cache, cache split across threads, LSE merge",
    .caps = HR_CAP_DECODE | HR_CAP_GQA | HR_CAP_CAUSAL | HR_CAP_THREADED | HR_CAP_BLOCK_KV | HR_CAP_WINDOW |
            HR_CAP_SOFTCAP | HR_CAP_ALIBI | HR_CAP_PAGED,
    .traffic = HR_TRAFFIC_KV_PER_GROUP,
    .applicable = decode_applicable,
    .resolve = decode_resolve,
    .workspace_bytes = decode_workspace,
    .run = decode_run,
    .dtypes = 1u << HR_F32 | 1u << HR_F16 | 1u << HR_BF16,
    .kv_dtypes = 1u << HR_F32 | 1u << HR_F16 | 1u << HR_BF16 | 1u << HR_Q8_0 | 1u << HR_Q4_0,
    .path = hr_decode_path,
    .kv_tile = hr_decode_kv_tile,
};

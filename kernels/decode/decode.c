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
    c->hs = a && hr_dec_heads_walk(c) && p->kv_heads <= DECODE_MAX_HEADS
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
            if (HS > 1) hr_dec_attend_heads(&c, b, J + j0, J + j1, q, s, st);
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

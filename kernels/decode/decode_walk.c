/* decode_walk.c — decode's walks of a key range through the block steps: one head's keys, every head's keys in turn (BNHD rows of heads, or a paged cache's pages), and the paged pieces and blocks between. */
/*
 * decode.c splits the cache over threads and merges the pieces; the walks here take one
 * thread's range [j0, j1) of a segment through attend_block, the block step of the
 * stored type (decode_kv.c, decode_i8.c, decode_bf16.c), with the prefetch distance of
 * the contiguous walk: V of the next block during the scores, K of the block after it
 * during P·V. Which walk a call takes is hr_dec_heads_walk's choice at context set-up.
 */
#include <stdint.h>
#include <string.h>

#include "headroom.h"
#include "vec.h"
#include "vec_bf16.h" /* HR_HAVE_BF16DOT */

#include "decode_block.h"
#include "decode_run.h"

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
 * block's after the last head). A block inside one page (P >= the block) runs the
 * contiguous step on its page's frame instead: through the group bases it was 10% slower
 * than contiguous even with the sequence in one page, on its frame 3-5% faster (perf-log
 * 0620, 0630). */
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

/* cc's K and V views (sb 0) on the frame of the page starting at key ps of batch b: row
 * ps + i of a head at i rows past its base in the page (attend_pages' frame). */
static void page_frame(const dctx *c, int b, int ps, dctx *cc)
{
    cc->k.p = (const void *)((uintptr_t)c->k.p + (uintptr_t)hr_kv_page_row(c->p, c->a, c->k.sb, 0, c->k.sn, b, 0, ps) -
                             (uintptr_t)(ps * c->k.sn));
    cc->v.p = (const void *)((uintptr_t)c->v.p + (uintptr_t)hr_kv_page_row(c->p, c->a, c->v.sb, 0, c->v.sn, b, 0, ps) -
                             (uintptr_t)(ps * c->v.sn));
}

static void attend_page_heads(const dctx *c, int b, int j0, int j1, float *const *q, float *s, const dstate *st)
{
    int end[DECODE_MAX_Q];
    const int jmax = causal_ends(c, end), P = c->p->page_size, H = c->hs;
    if (j1 > jmax) j1 = jmax;
    for (int g = 0; g < c->hs; g++) attend_init(c, b, g, q[g], st[g]);
    if (j0 >= j1) return;
    dctx cc = *c;
    cc.k.sb = cc.v.sb = 0;
    if (paged_blocks(c)) {
        const bool pf = c->k.sb % c->k.sn == 0 && c->v.sb % c->v.sn == 0 && c->k.sb / c->k.sn == c->v.sb / c->v.sn;
        for (int jb = j0; jb < j1; jb += c->kb) {
            const int n = j1 - jb < c->kb ? j1 - jb : c->kb, jn = jb + n, nn = j1 - jn < c->kb ? j1 - jn : c->kb;
            const bool one = pf && jb / P == (jb + n - 1) / P; /* the block in one page: its frame */
            if (one) page_frame(c, b, jb - jb % P, &cc);
            for (int g = 0; g < H; g++) {
                /* V of the next item, K of the one after: (g + 1, jb) and (g + 2, jb), or the next block's */
                const int gv = g + 1 < H ? g + 1 : 0, jv = g + 1 < H ? jb : jn, nv = g + 1 < H ? n : nn;
                const int gk = g + 2 < H ? g + 2 : (g + 2) - H, jk = g + 2 < H ? jb : jn, nk = g + 2 < H ? n : nn;
                if (!one) {
                    attend_paged(c, b, g, jb, n, end, q[g], s, st[g], nv, nk, jv, jk, gv, gk);
                    continue;
                }
                int mv, mk;
                const int fv = page_item_row(c, b, (page_item){g, jb, n}, (page_item){gv, jv, nv}, &mv);
                const int fk = page_item_row(c, b, (page_item){g, jb, n}, (page_item){gk, jk, nk}, &mk);
                attend_block(&cc, b, g, jb, n, end, q[g], s, st[g], mv, mk, fv, fk);
            }
        }
        return;
    }
    page_item x = {0, j0, imin3(j1 - j0, c->kb, P - j0 % P)};
    for (int pg = -1; x.n > 0; x = page_next(c, j0, j1, x)) {
        if (x.jb / P != pg) { /* a new page: the frame's base */
            pg = x.jb / P;
            page_frame(c, b, pg * P, &cc);
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

int hr_dec_heads_walk(const dctx *c) { return c->p->page_size ? page_heads(c) : heads_side_by_side(c); }

void hr_dec_attend_heads(const dctx *c, int b, int j0, int j1, float *const *q, float *s, const dstate *st)
{
    if (c->p->page_size) attend_page_heads(c, b, j0, j1, q, s, st);
    else attend_heads(c, b, j0, j1, q, s, st);
}

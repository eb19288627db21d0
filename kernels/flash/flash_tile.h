/* flash_tile.h — the online-softmax tile machinery flash.c implements and gqa.c reuses. */
#ifndef HR_FLASH_TILE_H
#define HR_FLASH_TILE_H

#include <stddef.h>
#include <stdint.h>

#include "headroom.h"

/* A "row stack" is a set of query rows that attend to the same K/V head: the rows of one
 * query block of one head (flash) or the same block of every head of a GQA group stacked
 * on top of each other (gqa). Each row carries its own causal limit, so the machinery
 * never needs to know which head a row came from.
 *
 * Use per work item (one thread's slab, no allocation):
 *   hr_ft_bind(&w, slab, rows_cap, block_kv, d)   once per call, per thread
 *   hr_ft_load_q(&w, r, q_row, qscale, end_r)     for r in [0, rows)
 *   hr_ft_attend_x(&w, rows, kt, &kv)             streams K/V tiles over [0, max end)
 *   hr_ft_store(&w, r, o_row)                     writes O row r (0 where no key visible)
 *
 * Typed operands (--dtype/--kv-dtype f32, bf16, f16): hr_ft_load_qx, hr_ft_attend_x and
 * hr_ft_store_x take rows of any of them (hr_ft_kv: byte strides). Two paths (hr_ft_path):
 *   convert  K and V tiles converted to fp32 while they are packed (Q when it is loaded,
 *            O when it is stored), then the fp32 micro-kernels: exact conversions, so the
 *            kernel's error is that of the fp32 kernel. Every build, every type pair.
 *   bf16dot  Q, K, V all bf16 on a CPU with AVX512-BF16 (an AVX-512 build): vdpbf16ps
 *            with fp32 accumulation, P rounded to bf16 (flash_bf16.c).
 *   amx      Q, K, V all bf16 on a CPU with AMX-BF16 and AVX512-BF16 whose OS grants the
 *            tile state (an AVX-512 build): tdpbf16ps tiles for both products, the same
 *            softmax as bf16dot (flash_amx.c). Lays the slab out again (32-row tiles).
 * hr_ft_set_path(&w, hr_ft_dot_ok(p)) after hr_ft_bind takes the path p gets.
 *
 * A paged cache (headroom.h's page_size, block_table): every path packs each K/V tile
 * before it computes on it, so the packing is the one place that reads the cache, and it
 * reads a tile in runs of keys that share a page (hr_ft_kv_run), each run by the same
 * strided code as a contiguous tile (which is one run). The packed tile, and every bit
 * after it, is then the contiguous cache's; tiles need not divide P nor start on a page.
 */

/* The K and V rows a stack reads: those of one KV head of one sequence. Contiguous
 * (table NULL): key j's rows at k + j k_sn and v + j v_sn (bytes). Paged
 * (hr_kv_page_row's rule): at k + table[j / page] k_sb + (j % page) k_sn (v alike), k and
 * v then the head's rows in block 0 of the pool and table the sequence's row of the block
 * table. hr_ft_kv_of builds it from a call's operands. */
typedef struct {
    const char *k, *v;
    ptrdiff_t k_sn, v_sn; /* bytes between consecutive keys (of a page) */
    ptrdiff_t k_sb, v_sb; /* paged: bytes between blocks of the pool    */
    const int32_t *table; /* paged: the sequence's blocks; NULL: contiguous */
    int page;             /* paged: P keys a block                       */
} hr_ft_kv;
static inline const char *hr_ft_kv_k(const hr_ft_kv *s, int j)
{
    if (!s->table) return s->k + j * s->k_sn;
    return s->k + s->table[j / s->page] * s->k_sb + (j % s->page) * s->k_sn;
}
static inline const char *hr_ft_kv_v(const hr_ft_kv *s, int j)
{
    if (!s->table) return s->v + j * s->v_sn;
    return s->v + s->table[j / s->page] * s->v_sb + (j % s->page) * s->v_sn;
}
/* How many of the n keys from j lie in j's page (all n when contiguous): a run the
 * strided code may read from hr_ft_kv_k(s, j) on. */
static inline int hr_ft_kv_run(const hr_ft_kv *s, int j, int n)
{
    if (!s->table) return n;
    const int left = s->page - j % s->page;
    return n < left ? n : left;
}
typedef struct {
    int d, dp;       /* head dimension; padded to a multiple of the vector width */
    int bkv, bkvp;   /* keys per K/V tile; padded likewise                      */
    int rows_cap;    /* capacity of the row stack                              */
    float *q;        /* [rows_cap][d]   Q * scale * log2(e)                     */
    float *o;        /* [rows_cap][dp]  unnormalized running output             */
    float *m;        /* [rows_cap]      running row max (log2 units), -inf at start;
                      * bf16dot: at most 8 below it (lazy rescale, flash_bf16.c)  */
    float *l;        /* [rows_cap][VW]  running row sum of exp2(s - m), by lane     */
    int *end;        /* [rows_cap]      keys [beg, end) are visible to the row   */
    int *beg;        /* [rows_cap]      the row's window begin (0 without one)   */
    int *pos;        /* [rows_cap]      the row's key position i' (ALiBi)        */
    float *slope;    /* [rows_cap]      its head's ALiBi slope times log2 e      */
    int var;         /* the variants' step runs (softmax_tile): a window begin,
                      * a soft cap or ALiBi in some row (hr_ft_load_head)           */
    float cap2;      /* soft cap times log2 e (0: none)                          */
    float *kt;       /* [d][bkvp]       K tile, transposed (keys along vectors)  */
    float *vp;       /* [bkvp][dp]      V tile, zero-padded columns              */
    float *s;        /* [MR][bkvp] scores, then probabilities, of a micro-tile */
    int dot;         /* HR_FT_BF16DOT, HR_FT_AMX: q, kt, vp hold bf16 (flash_bf16.c);
                      * amx: d, Bkv and the stack padded to 32 (flash_amx.c)         */
    float qscale;    /* bf16dot: scale * log2 e, applied to the scores, not to Q  */
    const struct hr_ft_step *step; /* with dot, its path's step (hr_ft_set_path)      */
} hr_ft_ws;

/* A bf16 path's step (flash_path.c's table): a Q row into the stack, the stack through
 * the K/V tiles, and its own layout of the slab (NULL: hr_ft_bind's). */
typedef struct hr_ft_step {
    int dot; /* HR_FT_CONVERT, HR_FT_BF16DOT, HR_FT_AMX: w->dot */
    void (*load_q)(hr_ft_ws *w, int r, const void *q_row, float qscale, int end_r);
    void (*attend)(hr_ft_ws *w, int rows, const hr_ft_kv *kv);
    void (*bind)(hr_ft_ws *w);
} hr_ft_step;

/* Ablation where no hardware counter can be read (the Intel budget): a -DHR_FT_ABLATE build
 * reads HR_FT_ABLATE=BITS and skips 1 softmax, 2 O += P V, 4 packing after a stack's first
 * tile, 8 the next tile's prefetch, 16 each micro-tile's own Q and O (the first's, L1-hot).
 * Its results are wrong by design; without the flag ft_skip is 0 and compiles away. */
#ifdef HR_FT_ABLATE
#include <stdlib.h>
static inline int ft_skip(int bit)
{
    static int bits = -1; /* a benign race: every thread stores the same value */
    if (bits < 0) bits = getenv("HR_FT_ABLATE") ? atoi(getenv("HR_FT_ABLATE")) : 0;
    return bits & bit;
}
#else
#define ft_skip(bit) 0
#endif


/* Bytes of one thread's slab for a stack of rows_cap rows (a multiple of 64). */
size_t hr_ft_slab_bytes(int rows_cap, int block_kv, int d);
/* Lays the slab (64-byte aligned, hr_ft_slab_bytes long) out into w. */
void hr_ft_bind(hr_ft_ws *w, void *slab, int rows_cap, int block_kv, int d);
/* Row r of the stack: copies q_row * qscale (qscale = softmax scale * log2 e), resets
 * the running state, and records the causal limit end_r (0..Nkv), window begin 0 and no
 * ALiBi (hr_ft_load_head sets a variant problem's). */
void hr_ft_load_q(hr_ft_ws *w, int r, const float *q_row, float qscale, int end_r);
/* Writes O row r = o / l (d floats); all zeros when the row saw no key. */
void hr_ft_store(const hr_ft_ws *w, int r, float *o_row);

/* The typed forms: q_row of type qt, K and V rows of type kt, O row of type ot; f32
 * takes the fp32 code as above. With w->dot set, qt and kt must be bf16 and the Q row is
 * kept as given (the scores are scaled instead). hr_ft_attend_x runs the online softmax
 * of rows [0, rows) over the keys some row sees: for every K/V tile of kv it packs it
 * once, then for every micro-tile of rows computes S and updates m, l, O. */
void hr_ft_load_qx(hr_ft_ws *w, int r, const void *q_row, hr_dtype qt, float qscale, int end_r);
void hr_ft_attend_x(hr_ft_ws *w, int rows, hr_dtype kt, const hr_ft_kv *kv);
void hr_ft_store_x(hr_ft_ws *w, int r, hr_dtype ot, void *o_row);

/* The paths of bf16 Q and K/V (flash_path.c's table chooses, flash_bf16.c and flash_amx.c run):
 * hr_ft_dot_ok: the path p takes on this CPU and build: HR_FT_AMX where the CPU has AMX
 * (and the OS grants it), else HR_FT_BF16DOT where it has AVX512-BF16, else HR_FT_CONVERT
 * (always for other type pairs); HEADROOM_FLASH_PATH=convert|bf16dot|amx forces one for
 * bf16/bf16 problems. hr_ft_why_not: NULL, or why p cannot run as forced (a value not
 * among the three, or a path this CPU or build level lacks): flash's and gqa's
 * `applicable`, so the kernel is refused with the reason, never run on another path.
 * hr_ft_path: the path's name for hr_kernel.path. */
#define HR_FT_TYPES (1u << HR_F32 | 1u << HR_BF16 | 1u << HR_F16) /* Q/O and K/V alike */
enum { HR_FT_CONVERT = 0, HR_FT_BF16DOT = 1, HR_FT_AMX = 2 };
int hr_ft_dot_ok(const hr_problem *p);
const char *hr_ft_why_not(const hr_problem *p);
const char *hr_ft_path(const hr_problem *p);
/* Sets w's path (hr_ft_dot_ok's value): its step, its layout of the slab. */
void hr_ft_set_path(hr_ft_ws *w, int path);
/* flash_amx.c's parts: whether this level, CPU and OS run it (NULL) or why not, and its
 * layout of the slab bound to w (the slab zeroed). */
const char *hr_ft_amx_why_not(void);
void hr_ft_amx_bind(hr_ft_ws *w);
/* Bytes the amx path lays a slab out in (0 where this level has no AMX code): the slab is
 * the larger of the two (hr_ft_slab_bytes). */
size_t hr_ft_amx_slab_bytes(int rows_cap, int block_kv, int d);
void hr_ft_dot_load_q(hr_ft_ws *w, int r, const void *q_row, float qscale, int end_r);
void hr_ft_dot_attend(hr_ft_ws *w, int rows, const hr_ft_kv *kv);
/* d floats (readable up to the next multiple of 16) rounded to a bf16 row as
 * hr_dtype_store_row rounds them (the same bits), in registers: hr_ft_store_x's for the
 * dot paths (their CPUs have AVX-512). */
void hr_ft_dot_round_bf16(const float *x, void *row, int d);
/* flash_bf16.c's parts: whether this CPU and level run vdpbf16ps (NULL) or why not, and
 * the K and V tile of keys [j0, j0 + nk) of kv packed as pairs (w->bkvp, w->dp as laid
 * out), both shared with the amx path (bf16dot's online-softmax step is its own; the amx
 * path has its own too, a 32-row block at a time). */
const char *hr_ft_bf16_why_not(void);
void hr_ft_bf16_pack_k(hr_ft_ws *w, const hr_ft_kv *kv, int j0, int nk);
void hr_ft_bf16_pack_v(hr_ft_ws *w, const hr_ft_kv *kv, int j0, int nk);
void hr_ft_amx_load_q(hr_ft_ws *w, int r, const void *q_row, float qscale, int end_r);
void hr_ft_amx_attend(hr_ft_ws *w, int rows, const hr_ft_kv *kv);

/* Inline where the tile loops call them: out of line in their own file, flash and gqa ran
 * 4-9% slower (perf-log 0300). */
#ifndef HR_FT_PF
#define HR_FT_PF 3
#endif
/* Prefetches rows [a, b) of rb bytes each, sn bytes apart, from base (every line). */
static inline void hr_ft_prefetch(const void *base, ptrdiff_t sn, int a, int b, size_t rb)
{
    for (int j = a; j < b; j++) {
        const char *row = (const char *)base + j * sn;
        const char *line = (const char *)((uintptr_t)row & ~(uintptr_t)63);
        for (; line < row + rb; line += 64) __builtin_prefetch(line, 0, HR_FT_PF);
    }
}
/* The start of row block mt of nmt (stack rows r0 .. r0 + mr - 1) in the key tile at j0
 * (nk keys; the stack's keys end at stop): prefetches the block's share of the next
 * tile's K and V rows of kv (rb bytes each, run by run where paged) and returns how many
 * of this tile's keys its rows see (at most nk; <= 0: none, skip the block). One for the
 * fp32, bf16dot and amx paths. */
static inline int hr_ft_block_keys(const hr_ft_ws *w, int r0, int mr, int mt, int nmt, int j0, int nk, int stop,
                                   const hr_ft_kv *kv, size_t rb)
{
    const int jn = j0 + w->bkv, nk_next = stop - jn < w->bkv ? stop - jn : w->bkv;
    if (nk_next > 0 && !ft_skip(8)) { /* the next tile's rows, spread over this tile's row blocks */
        const int a = (int)((long)mt * nk_next / nmt), b = (int)((long)(mt + 1) * nk_next / nmt);
        for (int j = jn + a; j < jn + b;) {
            const int n = hr_ft_kv_run(kv, j, jn + b - j);
            hr_ft_prefetch(hr_ft_kv_k(kv, j), kv->k_sn, 0, n, rb);
            hr_ft_prefetch(hr_ft_kv_v(kv, j), kv->v_sn, 0, n, rb);
            j += n;
        }
    }
    int lim = 0;
    for (int r = 0; r < mr; r++)
        if (w->end[r0 + r] - j0 > lim) lim = w->end[r0 + r] - j0;
    return lim < nk ? lim : nk;
}

/* A row of Q or O, and K/V head g, in the stored types of p (byte strides). */
static inline const void *hr_ft_q(const hr_problem *p, const hr_args *a, int b, int h, int i)
{
    return p->dtype == HR_F32 ? (const void *)hr_crow(a->q, b, h, i) : hr_xcrow(a->xq, b, h, i);
}
static inline void *hr_ft_o(const hr_problem *p, const hr_args *a, int b, int h, int i)
{
    return p->dtype == HR_F32 ? (void *)hr_row(a->o, b, h, i) : hr_xrow(a->xo, b, h, i);
}
/* Rows i0 .. i0 + rows of query head h of p into the stack from row r_off (each with its
 * causal end), and back out to O. Each asks for the row HR_FT_AHEAD rows on first: a
 * work item's Q and O rows start cold, and their loads and stores waited on L3
 * (perf-log 0238). */
#define HR_FT_AHEAD 8 /* rows: 1-2 KiB ahead at d 64 */
static inline void hr_ft_load_head(hr_ft_ws *w, int r_off, const hr_problem *p, const hr_args *a, int b, int h,
                                   int i0, int rows, float qscale)
{
    const size_t rb = hr_dtype_row_bytes(p->dtype, p->d_head);
    for (int r = 0; r < rows; r++) {
        if (r + HR_FT_AHEAD < rows) hr_ft_prefetch(hr_ft_q(p, a, b, h, i0 + r + HR_FT_AHEAD), 0, 0, 1, rb);
        hr_ft_load_qx(w, r_off + r, hr_ft_q(p, a, b, h, i0 + r), p->dtype, qscale, hr_causal_end(p, i0 + r));
    }
    if (hr_problem_plain(p)) return;
    const float slope = hr_alibi_slope(p, h) * 1.44269504088896341f;
    for (int r = 0; r < rows; r++) { /* the variants (the convert path's softmax_tile) */
        w->beg[r_off + r] = hr_window_begin(p, i0 + r);
        w->pos[r_off + r] = i0 + r + p->seq_kv - p->seq_q;
        w->slope[r_off + r] = slope;
    }
    w->var = 1;
    w->cap2 = p->softcap * 1.44269504088896341f;
}
static inline void hr_ft_store_head(hr_ft_ws *w, int r_off, const hr_problem *p, const hr_args *a, int b, int h,
                                    int i0, int rows)
{
    const size_t rb = hr_dtype_row_bytes(p->dtype, p->d_head);
    for (int r = 0; r < rows; r++) {
        if (r + HR_FT_AHEAD < rows) hr_ft_prefetch(hr_ft_o(p, a, b, h, i0 + r + HR_FT_AHEAD), 0, 0, 1, rb);
        hr_ft_store_x(w, r_off + r, p->dtype, hr_ft_o(p, a, b, h, i0 + r));
    }
}
/* KV head g of sequence b of p's cache under a, in its stored type (byte strides),
 * through the block table where p is paged. */
static inline hr_ft_kv hr_ft_kv_of(const hr_problem *p, const hr_args *a, int b, int g)
{
    const bool f32 = p->kv_dtype == HR_F32, paged = p->page_size > 0 && a->block_table;
    const ptrdiff_t e = f32 ? (ptrdiff_t)sizeof(float) : 1; /* the views' unit, in bytes */
    const char *k = f32 ? (const char *)a->k.p : (const char *)a->xk.p;
    const char *v = f32 ? (const char *)a->v.p : (const char *)a->xv.p;
    const ptrdiff_t ksb = f32 ? a->k.sb : a->xk.sb, ksh = f32 ? a->k.sh : a->xk.sh, ksn = f32 ? a->k.sn : a->xk.sn;
    const ptrdiff_t vsb = f32 ? a->v.sb : a->xv.sb, vsh = f32 ? a->v.sh : a->xv.sh, vsn = f32 ? a->v.sn : a->xv.sn;
    if (!paged)
        return (hr_ft_kv){k + (b * ksb + g * ksh) * e, v + (b * vsb + g * vsh) * e, ksn * e, vsn * e, 0, 0, NULL, 0};
    return (hr_ft_kv){k + g * ksh * e, v + g * vsh * e, ksn * e, vsn * e, ksb * e, vsb * e,
                      a->block_table + (ptrdiff_t)b * a->table_stride, p->page_size};
}
static inline void hr_ft_attend_head(hr_ft_ws *w, int rows, const hr_problem *p, const hr_args *a,
                                     int b, int g)
{
    const hr_ft_kv kv = hr_ft_kv_of(p, a, b, g);
    hr_ft_attend_x(w, rows, p->kv_dtype, &kv);
}

/* Rows per micro-tile; default tiles for this machine's caches (m may be NULL or its
 * sizes 0: 32 KiB L1d, 1 MiB L2 assumed; chosen in flash.c, explained there). */
int hr_ft_mr(void);
int hr_ft_default_block_q(const hr_machine *m, int d);
int hr_ft_default_block_kv(const hr_machine *m, int d);
/* The default Bq (flash; gqa: the whole stack) of the path p takes: the amx path's own
 * (flash_amx.c: a larger stack amortizes its packing), else hr_ft_default_block_q. */
int hr_ft_path_block_q(const hr_problem *p, const hr_machine *m);
/* The default Bkv of the path p takes: the amx path's own (flash_amx.c), else
 * hr_ft_default_block_kv. */
int hr_ft_path_block_kv(const hr_problem *p, const hr_machine *m);
/* The query block for n rows: the fewest blocks of at most cap rows, made even (a multiple
 * of mult, never above cap): 512 rows at cap 384 are 2 x 256, not 384 + 128, so no
 * item is a short one with the whole tile packing of a long one (same block count, so
 * the same packing work; the two threads' shares even out). */
int hr_ft_even_blocks(int n, int cap, int mult);
/* The default query block (rows of one head) for n rows: cap, the path's stack shared by
 * group heads (gqa; flash 1) and made a multiple of mult, or less where it would leave
 * the threads fewer than a few of the units (batch x heads, gqa: x KV heads) x blocks
 * items each, never below 192 rows of stack (flash.c); then made even (hr_ft_even_blocks). */
int hr_ft_default_rows(int n, int cap, int group, int mult, long units, int threads);

#endif

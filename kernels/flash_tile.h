/* flash_tile.h — the online-softmax tile machinery flash.c implements and gqa.c reuses. */
#ifndef HR_FLASH_TILE_H
#define HR_FLASH_TILE_H

#include <stddef.h>

/* A "row stack" is a set of query rows that attend to the same K/V head: the rows of one
 * query block of one head (flash) or the same block of every head of a GQA group stacked
 * on top of each other (gqa). Each row carries its own causal limit, so the machinery
 * never needs to know which head a row came from.
 *
 * Use per work item (one thread's slab, no allocation):
 *   hr_ft_bind(&w, slab, rows_cap, block_kv, d)   once per call, per thread
 *   hr_ft_load_q(&w, r, q_row, qscale, end_r)     for r in [0, rows)
 *   hr_ft_attend(&w, rows, k, k_sn, v, v_sn)      streams K/V tiles over [0, max end)
 *   hr_ft_store(&w, r, o_row)                     writes O row r (0 where no key visible)
 */
typedef struct {
    int d, dp;       /* head dimension; padded to a multiple of the vector width */
    int bkv, bkvp;   /* keys per K/V tile; padded likewise                      */
    int rows_cap;    /* capacity of the row stack                              */
    float *q;        /* [rows_cap][d]   Q * scale * log2(e)                     */
    float *o;        /* [rows_cap][dp]  unnormalized running output             */
    float *m;        /* [rows_cap]      running row max (log2 units), -inf at start */
    float *l;        /* [rows_cap][VW]  running row sum of exp2(s - m), by lane     */
    int *end;        /* [rows_cap]      keys [0, end) are visible to the row     */
    float *kt;       /* [d][bkvp]       K tile, transposed (keys along vectors)  */
    float *vp;       /* [bkvp][dp]      V tile, zero-padded columns              */
    float *s;        /* [MR][bkvp] scores, then probabilities, of a micro-tile */
} hr_ft_ws;

/* Bytes of one thread's slab for a stack of rows_cap rows (a multiple of 64). */
size_t hr_ft_slab_bytes(int rows_cap, int block_kv, int d);
/* Lays the slab (64-byte aligned, hr_ft_slab_bytes long) out into w. */
void hr_ft_bind(hr_ft_ws *w, void *slab, int rows_cap, int block_kv, int d);
/* Row r of the stack: copies q_row * qscale (qscale = softmax scale * log2 e), resets
 * the running state, and records the causal limit end_r (0..Nkv). */
void hr_ft_load_q(hr_ft_ws *w, int r, const float *q_row, float qscale, int end_r);
/* Runs the online softmax of rows [0, rows) over keys [0, max end): for every K/V tile,
 * packs it once, then for every micro-tile of rows computes S, updates m, l, O. k and v
 * point at key row 0 of the head; k_sn, v_sn are row strides in elements. */
void hr_ft_attend(hr_ft_ws *w, int rows, const float *k, ptrdiff_t k_sn, const float *v,
                  ptrdiff_t v_sn);
/* Writes O row r = o / l (d floats); all zeros when the row saw no key. */
void hr_ft_store(const hr_ft_ws *w, int r, float *o_row);

/* Rows per micro-tile; default tiles (chosen in flash.c, explained there). */
int hr_ft_mr(void);
int hr_ft_default_block_q(int d);
int hr_ft_default_block_kv(int d);

#endif

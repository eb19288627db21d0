/* kvcache.h — a per-layer KV cache: [B][Hkv][capacity][d] K and V, appended token by token, read through views. */
#ifndef HR_KVCACHE_H
#define HR_KVCACHE_H

#include <stdint.h>

#include "headroom.h"

/* Each layer holds K and V, each [B][Hkv][capacity][d] fp32 in one allocation. Layer l
 * has its own length (rows 0..length-1 of every head are valid), so a model step can
 * append layer by layer. The views returned read the valid rows in place: row stride
 * d, head stride capacity * d, so a kernel takes them with seq_kv = the layer's length
 * and nothing is copied. */
typedef struct {
    int layers, batch, kv_heads, d_head;
    int capacity;   /* rows per head                      */
    int *length;    /* [layers] valid rows per head       */
    hr_dtype dtype; /* the stored type (HR_F32: mem, else xmem) */
    size_t row_bytes; /* bytes of one stored row (hr_dtype_row_bytes) */
    float *mem;     /* f32: layers x {K, V} x [B][Hkv][capacity][d] */
    unsigned char *xmem; /* another type: the same rows of row_bytes each */
    size_t bytes;   /* bytes of mem or xmem               */
    int stride;     /* rows a head's storage takes: capacity, q8_0/q4_0's rounded up to whole tiles */
    int tile;       /* 0: rows; HR_KV_TILE: q8_0/q4_0 in tiles (hr_kvcache_set_tile) */
    /* Paged (hr_kvcache_init_paged; page 0: contiguous): mem/xmem is a pool of nblocks
     * blocks, K's then V's, each page rows of every KV head ([block][Hkv][page][d]);
     * every (layer, sequence) has its own row of the block table, the blocks holding its
     * rows 0, page, 2 page, ... (-1 where none is yet). An append that crosses a page
     * boundary takes a block from the free list, whose order the seed shuffles, so a
     * sequence's blocks lie apart as a serving engine's allocator leaves them;
     * hr_kvcache_drop gives a layer's blocks back. */
    int page, nblocks;
    int tstride;    /* table entries a sequence: ceil(capacity / page)    */
    int32_t *table; /* [layers][batch][tstride]                           */
    int32_t *freel; /* the free blocks; the next taken is freel[nfree - 1] */
    int nfree;
    long blocks_peak, allocs; /* most blocks held at once; blocks taken in all */
} hr_kvcache;

/* Bytes of a KV cache of `tokens` rows per head stored as type t, scales included
 * (counts.c's formula with hr_dtype_bytes: f32 4, f16/bf16 2, q8_0 34/32, q4_0 18/32 per
 * value), or -1 when t cannot store a row of d_head values (q8_0/q4_0: d_head not a
 * multiple of 32, the block llama.cpp quantizes along d). */
double hr_kv_bytes_of(int layers, int batch, int kv_heads, int d_head, long tokens, hr_dtype t);
/* Tokens per head a cache allocates for a batch of sequences of lengths len[0..n): paged
 * (page > 0, vLLM's PagedAttention), whole blocks of page tokens, sum ceil(len / page)
 * page; contiguous (page 0), every sequence sized for the longest, n max(len). The
 * waste is what exceeds sum len. */
double hr_kv_alloc_tokens(const long *len, int n, int page);
/* Bytes hr_kvcache_init would allocate for the tensors (2 * layers * B * Hkv * cap * d * 4). */
double hr_kvcache_bytes(int layers, int batch, int kv_heads, int d_head, long capacity);
/* The same for a cache stored in type t (rows of hr_dtype_row_bytes(t, d), scales
 * included); 0 when d is not a multiple of t's block. */
double hr_kvcache_bytes_of(hr_dtype t, int layers, int batch, int kv_heads, int d_head, long capacity);
/* Allocates an empty cache (64-byte aligned, zeroed). Sizes must be >= 1 and within
 * headroom.h's limits, and the total must fit max_bytes (0: no budget). On error returns
 * HR_EUSAGE with a message naming the flag and allocates nothing. */
int hr_kvcache_init(hr_kvcache *c, int layers, int batch, int kv_heads, int d_head,
                    long capacity, double max_bytes);
/* The same, stored in type t (--kv-dtype): appends store every row in t
 * (hr_dtype_store_row); a block type needs d a multiple of its block. A typed cache has
 * no fp32 rows: hr_kvcache_k/v give empty views (p NULL), hr_kvcache_xk/xv the rows,
 * and hr_kvcache_extend is refused. */
int hr_kvcache_init_typed(hr_kvcache *c, hr_dtype t, int layers, int batch, int kv_heads,
                          int d_head, long capacity, double max_bytes);
/* A paged cache of the same rows (the fields above): a pool of nblocks blocks of page
 * keys (a power of two in [HR_PAGE_MIN, HR_PAGE_MAX], the kernels' rule), every block
 * free, the free list shuffled by seed. The views are the pool's (sb a block's stride);
 * hr_kvcache_table gives the block table a kernel reads them through. HR_EUSAGE naming
 * the flag on a bad size; hr_kvcache_extend is refused (a row's place is the table's). */
int hr_kvcache_init_paged(hr_kvcache *c, hr_dtype t, int layers, int batch, int kv_heads, int d_head,
                          long capacity, int page, int nblocks, uint64_t seed, double max_bytes);
void hr_kvcache_free(hr_kvcache *c);
/* Layer l's block table (hr_args.block_table: [batch][tstride]); NULL when contiguous. */
const int32_t *hr_kvcache_table(const hr_kvcache *c, int layer);
/* Blocks held now (taken from the pool and not given back). */
long hr_kvcache_blocks_used(const hr_kvcache *c);
/* Empties layer l (length 0); paged, its blocks go back to the free list. */
void hr_kvcache_drop(hr_kvcache *c, int layer);

/* Writes T new rows per (b, g) of layer l from k_new, v_new ([B][Hkv][T][d] views, any
 * strides) at rows [length, length + T) and advances that layer's length; paged, into
 * their pages, a block taken for each page begun. On error (layer out of range, T < 1,
 * length + T > capacity, or the pool out of blocks) returns HR_EUSAGE with a message
 * and changes nothing. */
int hr_kvcache_append(hr_kvcache *c, int layer, hr_cview k_new, hr_cview v_new, int T);
/* Like append, but hands back writable views of the T new rows so the caller fills them
 * in place (no staging copy); the layer's length is advanced. Same errors. */
int hr_kvcache_extend(hr_kvcache *c, int layer, int T, hr_view *k_new, hr_view *v_new);
/* Views of layer l's K and V ([B][Hkv][length][d] valid rows, head stride capacity*d). */
hr_cview hr_kvcache_k(const hr_kvcache *c, int layer);
hr_cview hr_kvcache_v(const hr_kvcache *c, int layer);
/* A typed cache's rows of layer l (strides in bytes; p NULL for an f32 cache). */
hr_xcview hr_kvcache_xk(const hr_kvcache *c, int layer);
hr_xcview hr_kvcache_xv(const hr_kvcache *c, int layer);
/* Stores a q8_0/q4_0 cache in tiles of HR_KV_TILE keys (headroom.h hr_kv_tile_offset) from
 * now on, for a kernel that asks (hr_kernel_kv_tile); the views then say so (tile). Only
 * while every layer is empty: HR_EUSAGE with a message otherwise, or for another type. */
int hr_kvcache_set_tile(hr_kvcache *c, int tile);
/* Drops every layer's rows (length 0); the storage stays. */
void hr_kvcache_reset(hr_kvcache *c);

#endif

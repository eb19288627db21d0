/* kvcache.c — the KV cache: allocation with a budget, appends checked against capacity, zero-copy views. */
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "guard.h"
#include "inputs.h"
#include "kvcache.h"

double hr_kv_bytes_of(int layers, int batch, int kv_heads, int d_head, long tokens, hr_dtype t)
{
    if ((unsigned)t >= HR_NDTYPES || d_head < 1 || d_head % hr_dtype_block(t)) return -1;
    return hr_kv_cache_bytes(layers, batch, kv_heads, d_head, tokens, hr_dtype_bytes(t));
}

double hr_kv_alloc_tokens(const long *len, int n, int page)
{
    double t = 0;
    long mx = 0;
    for (int i = 0; i < n; i++) {
        t += page > 0 ? (double)((len[i] + page - 1) / page) * page : 0;
        mx = len[i] > mx ? len[i] : mx;
    }
    return page > 0 ? t : (double)n * mx;
}

double hr_kvcache_bytes(int layers, int batch, int kv_heads, int d_head, long capacity)
{
    return hr_kvcache_bytes_of(HR_F32, layers, batch, kv_heads, d_head, capacity);
}

double hr_kvcache_bytes_of(hr_dtype t, int layers, int batch, int kv_heads, int d_head, long capacity)
{
    if (d_head % hr_dtype_block(t)) return 0;
    return 2.0 * layers * batch * kv_heads * (double)capacity * (double)hr_dtype_row_bytes(t, d_head);
}

int hr_kvcache_init(hr_kvcache *c, int layers, int batch, int kv_heads, int d_head,
                    long capacity, double max_bytes)
{
    return hr_kvcache_init_typed(c, HR_F32, layers, batch, kv_heads, d_head, capacity, max_bytes);
}

int hr_kvcache_init_typed(hr_kvcache *c, hr_dtype t, int layers, int batch, int kv_heads,
                          int d_head, long capacity, double max_bytes)
{
    memset(c, 0, sizeof *c);
    if ((unsigned)t >= HR_NDTYPES) return hr_fail("--kv-dtype: unknown element type %d", (int)t);
    if (layers < 1 || layers > 4096)
        return hr_fail("--layers: must be in [1, 4096], got %d", layers);
    if (batch < 1 || batch > HR_MAX_BATCH)
        return hr_fail("--batch: must be in [1, %d], got %d", HR_MAX_BATCH, batch);
    if (kv_heads < 1 || kv_heads > HR_MAX_HEADS)
        return hr_fail("--kv-heads: must be in [1, %d], got %d", HR_MAX_HEADS, kv_heads);
    if (d_head < 1 || d_head > HR_MAX_DHEAD)
        return hr_fail("--d-head: must be in [1, %d], got %d", HR_MAX_DHEAD, d_head);
    if (capacity < 1 || capacity > HR_MAX_SEQ)
        return hr_fail("KV cache capacity (prompt + tokens) must be in [1, %d], got %ld",
                       HR_MAX_SEQ, capacity);
    if (d_head % hr_dtype_block(t))
        return hr_fail("--kv-dtype: %s stores blocks of %d values along d; --d-head %d is not a multiple",
                       hr_dtype_names[t], hr_dtype_block(t), d_head);
    /* q8_0, q4_0: each head's rows rounded up to whole tiles, so the cache may take them */
    const long stride = hr_kv_tiles(t) ? hr_kv_tile_keys(capacity) : capacity;
    double bytes = hr_kvcache_bytes_of(t, layers, batch, kv_heads, d_head, stride);
    if (bytes > (double)PTRDIFF_MAX / 2)
        return hr_fail("KV cache of %.3g bytes overflows", bytes);
    if (max_bytes > 0 && bytes > max_bytes)
        return hr_fail("KV cache needs %.2f GiB, over the memory budget of %.2f GiB "
                       "(--max-mem)", bytes / 1073741824.0, max_bytes / 1073741824.0);
    void *mem = hr_galloc((size_t)bytes, "the KV cache");
    c->length = calloc((size_t)layers, sizeof *c->length);
    if (!mem || !c->length) {
        hr_gfree(mem);
        free(c->length);
        memset(c, 0, sizeof *c);
        return hr_fail("out of memory allocating a KV cache of %.2f GiB", bytes / 1073741824.0);
    }
    /* Touch every page now, so first-touch faults are not timed later. */
    memset(mem, 0, (size_t)bytes);
    if (t == HR_F32) c->mem = mem;
    else c->xmem = mem;
    c->dtype = t;
    c->row_bytes = hr_dtype_row_bytes(t, d_head);
    c->layers = layers;
    c->batch = batch;
    c->kv_heads = kv_heads;
    c->d_head = d_head;
    c->capacity = (int)capacity;
    c->stride = (int)stride;
    c->bytes = (size_t)bytes;
    return HR_OK;
}

int hr_kvcache_set_tile(hr_kvcache *c, int tile)
{
    if (tile && (tile != HR_KV_TILE || !hr_kv_tiles(c->dtype)))
        return hr_fail("KV cache: tiles of %d keys are for q8_0 and q4_0 (of %d keys), not %s", tile, HR_KV_TILE,
                       hr_dtype_names[c->dtype]);
    for (int l = 0; l < c->layers; l++)
        if (c->length[l]) return hr_fail("KV cache: layer %d holds rows; tiles are set on an empty cache", l);
    c->tile = tile;
    return HR_OK;
}

int hr_kvcache_init_paged(hr_kvcache *c, hr_dtype t, int layers, int batch, int kv_heads, int d_head,
                          long capacity, int page, int nblocks, uint64_t seed, double max_bytes)
{
    memset(c, 0, sizeof *c);
    int st = hr_page_size_check(page);
    if (st) return st;
    if (nblocks < 1) return hr_fail("--page-size: a pool of %d blocks holds nothing", nblocks);
    /* the pool as a contiguous cache of one layer, one sequence and nblocks pages of rows;
     * a block of page rows is whole tiles (HR_KV_TILE divides HR_PAGE_MIN) */
    st = hr_kvcache_init_typed(c, t, 1, 1, kv_heads, d_head, (long)nblocks * page, max_bytes);
    if (st) return st;
    if (capacity < 1 || capacity > HR_MAX_SEQ) {
        hr_kvcache_free(c);
        return hr_fail("KV cache capacity (prompt + tokens) must be in [1, %d], got %ld", HR_MAX_SEQ, capacity);
    }
    const int tstride = (int)((capacity + page - 1) / page);
    free(c->length);
    c->length = calloc((size_t)layers, sizeof *c->length);
    c->table = malloc(sizeof *c->table * (size_t)layers * batch * tstride);
    c->freel = malloc(sizeof *c->freel * (size_t)nblocks);
    if (!c->length || !c->table || !c->freel) {
        free(c->table);
        free(c->freel);
        c->table = c->freel = NULL;
        hr_kvcache_free(c);
        return hr_fail("out of memory for the block table of %d blocks", nblocks);
    }
    for (long i = 0; i < (long)layers * batch * tstride; i++) c->table[i] = -1;
    /* the free list shuffled (Fisher-Yates): consecutive takes land apart in the pool */
    for (int i = 0; i < nblocks; i++) c->freel[i] = i;
    hr_rng g;
    hr_rng_seed(&g, seed ^ 0x5eed9a9edu);
    for (int i = nblocks - 1; i > 0; i--) {
        const int j = (int)(hr_rng_next(&g) % (uint64_t)(i + 1));
        const int32_t x = c->freel[i];
        c->freel[i] = c->freel[j], c->freel[j] = x;
    }
    c->nfree = nblocks;
    c->layers = layers;
    c->batch = batch;
    c->capacity = (int)capacity;
    c->page = page;
    c->nblocks = nblocks;
    c->tstride = tstride;
    return HR_OK;
}

void hr_kvcache_free(hr_kvcache *c)
{
    hr_gfree(c->mem);
    hr_gfree(c->xmem);
    free(c->length);
    free(c->table);
    free(c->freel);
    memset(c, 0, sizeof *c);
}

const int32_t *hr_kvcache_table(const hr_kvcache *c, int layer)
{
    return c->page ? c->table + (ptrdiff_t)layer * c->batch * c->tstride : NULL;
}

long hr_kvcache_blocks_used(const hr_kvcache *c) { return c->nblocks - c->nfree; }

void hr_kvcache_drop(hr_kvcache *c, int layer)
{
    if (c->page) {
        int32_t *t = c->table + (ptrdiff_t)layer * c->batch * c->tstride;
        for (int i = 0; i < c->batch * c->tstride; i++)
            if (t[i] >= 0) c->freel[c->nfree++] = t[i], t[i] = -1;
    }
    c->length[layer] = 0;
}

void hr_kvcache_reset(hr_kvcache *c)
{
    for (int l = 0; l < c->layers; l++) hr_kvcache_drop(c, l);
}

/* Layer l's K (which 0) or V (which 1) as a writable view of the whole capacity. */
static hr_view layer_view(const hr_kvcache *c, int layer, int which)
{
    if (!c->mem) return (hr_view){NULL, 0, 0, 0}; /* a typed cache has no fp32 rows */
    if (c->page) { /* the pool: a block's stride, K's blocks then V's */
        const ptrdiff_t sh = (ptrdiff_t)c->page * c->d_head, sb = c->kv_heads * sh;
        return (hr_view){c->mem + which * c->nblocks * sb, sb, sh, c->d_head};
    }
    const ptrdiff_t sn = c->d_head, sh = (ptrdiff_t)c->capacity * sn,
                    sb = (ptrdiff_t)c->kv_heads * sh;
    float *base = c->mem + ((ptrdiff_t)layer * 2 + which) * c->batch * sb;
    return (hr_view){base, sb, sh, sn};
}

hr_cview hr_kvcache_k(const hr_kvcache *c, int layer) { return hr_cv(layer_view(c, layer, 0)); }
hr_cview hr_kvcache_v(const hr_kvcache *c, int layer) { return hr_cv(layer_view(c, layer, 1)); }

/* Layer l's typed K (which 0) or V (1) over the whole capacity. */
static hr_xview layer_xview(const hr_kvcache *c, int layer, int which)
{
    if (!c->xmem) return (hr_xview){NULL, 0, 0, 0};
    if (c->page) {
        const ptrdiff_t sn = (ptrdiff_t)c->row_bytes, sh = (ptrdiff_t)c->page * sn, sb = c->kv_heads * sh;
        return (hr_xview){c->xmem + which * c->nblocks * sb, sb, sh, sn};
    }
    const ptrdiff_t sn = (ptrdiff_t)c->row_bytes, sh = (ptrdiff_t)c->stride * sn,
                    sb = (ptrdiff_t)c->kv_heads * sh;
    return (hr_xview){c->xmem + ((ptrdiff_t)layer * 2 + which) * c->batch * sb, sb, sh, sn};
}

static hr_xcview layer_xcview(const hr_kvcache *c, int layer, int which)
{
    hr_xcview x = hr_xcv(layer_xview(c, layer, which));
    x.tile = c->tile;
    return x;
}
hr_xcview hr_kvcache_xk(const hr_kvcache *c, int layer) { return layer_xcview(c, layer, 0); }
hr_xcview hr_kvcache_xv(const hr_kvcache *c, int layer) { return layer_xcview(c, layer, 1); }

/* Where row n of (b, g) of layer l lies in a view of strides sb, sh, sn: through the
 * layer's block table where the cache is paged (headroom.h's one rule). */
static ptrdiff_t row_off(const hr_kvcache *c, int layer, ptrdiff_t sb, ptrdiff_t sh, ptrdiff_t sn, int b, int g, int n)
{
    const hr_problem p = {.page_size = c->page};
    const hr_args a = {.block_table = hr_kvcache_table(c, layer), .table_stride = c->tstride};
    return hr_kv_page_row(&p, &a, sb, sh, sn, b, g, n);
}

/* Stores row n of (b, g) of layer l's typed view x from the fp32 values f: in place, or
 * into its tile (which: K 0, V 1; a tile lies inside its page). */
static void store_key(const hr_kvcache *c, int layer, hr_xview x, int which, int b, int g, int n, const float *f)
{
    if (!c->tile) {
        hr_dtype_store_row(c->dtype, f, (char *)x.p + row_off(c, layer, x.sb, x.sh, x.sn, b, g, n), c->d_head);
        return;
    }
    unsigned char row[HR_MAX_DHEAD / HR_QBLOCK * (2 + HR_QBLOCK)];
    hr_dtype_store_row(c->dtype, f, row, c->d_head);
    hr_kv_tile_put(c->dtype, which, row, (char *)x.p + row_off(c, layer, x.sb, x.sh, x.sn, b, g, n - n % c->tile),
                   n % c->tile, c->d_head);
}

/* Paged: the blocks rows [n0, n0 + T) of layer l begin, taken from the free list, all or
 * none (HR_EUSAGE when the pool has too few). */
static int take_blocks(hr_kvcache *c, int layer, int n0, int T)
{
    if (!c->page) return HR_OK;
    int32_t *t = c->table + (ptrdiff_t)layer * c->batch * c->tstride;
    const int p0 = n0 / c->page, p1 = (n0 + T - 1) / c->page;
    long need = 0;
    for (int b = 0; b < c->batch; b++)
        for (int i = p0; i <= p1; i++) need += t[b * c->tstride + i] < 0;
    if (need > c->nfree)
        return hr_fail("KV cache: the pool of %d blocks has %d free, %ld needed", c->nblocks, c->nfree, need);
    for (int b = 0; b < c->batch; b++)
        for (int i = p0; i <= p1; i++)
            if (t[b * c->tstride + i] < 0) t[b * c->tstride + i] = c->freel[--c->nfree];
    c->allocs += need;
    if (hr_kvcache_blocks_used(c) > c->blocks_peak) c->blocks_peak = hr_kvcache_blocks_used(c);
    return HR_OK;
}

static int check_room(const hr_kvcache *c, int layer, int T)
{
    if (layer < 0 || layer >= c->layers)
        return hr_fail("KV cache: layer %d out of range [0, %d)", layer, c->layers);
    if (T < 1) return hr_fail("KV cache: append of %d tokens (must be >= 1)", T);
    if ((long)c->length[layer] + T > c->capacity)
        return hr_fail("KV cache: layer %d holds %d of %d tokens, no room for %d more", layer,
                       c->length[layer], c->capacity, T);
    return HR_OK;
}

int hr_kvcache_extend(hr_kvcache *c, int layer, int T, hr_view *k_new, hr_view *v_new)
{
    if (!c->mem) return hr_fail("KV cache: a %s cache has no fp32 rows to fill in place (append instead)",
                                hr_dtype_names[c->dtype]);
    if (c->page) return hr_fail("KV cache: a paged cache's rows lie in their pages (append instead)");
    int st = check_room(c, layer, T);
    if (st) return st;
    hr_view k = layer_view(c, layer, 0), v = layer_view(c, layer, 1);
    const ptrdiff_t off = (ptrdiff_t)c->length[layer] * k.sn;
    k.p += off;
    v.p += off;
    *k_new = k;
    *v_new = v;
    c->length[layer] += T;
    return HR_OK;
}

int hr_kvcache_append(hr_kvcache *c, int layer, hr_cview k_new, hr_cview v_new, int T)
{
    const int n0 = c->length[layer];
    if (c->xmem || c->page) {
        int st = check_room(c, layer, T);
        if (!st) st = take_blocks(c, layer, n0, T);
        if (st) return st;
    }
    if (c->xmem) { /* stored in its type: each new row converted (quantized) as it comes */
        const hr_xview k = layer_xview(c, layer, 0), v = layer_xview(c, layer, 1);
        for (int b = 0; b < c->batch; b++)
            for (int g = 0; g < c->kv_heads; g++)
                for (int t = 0; t < T; t++) {
                    store_key(c, layer, k, 0, b, g, n0 + t, hr_crow(k_new, b, g, t));
                    store_key(c, layer, v, 1, b, g, n0 + t, hr_crow(v_new, b, g, t));
                }
        c->length[layer] += T;
        return HR_OK;
    }
    if (c->page) { /* fp32 rows into their pages */
        const hr_view k = layer_view(c, layer, 0), v = layer_view(c, layer, 1);
        const size_t row = (size_t)c->d_head * sizeof(float);
        for (int b = 0; b < c->batch; b++)
            for (int g = 0; g < c->kv_heads; g++)
                for (int t = 0; t < T; t++) {
                    memcpy(k.p + row_off(c, layer, k.sb, k.sh, k.sn, b, g, n0 + t), hr_crow(k_new, b, g, t), row);
                    memcpy(v.p + row_off(c, layer, v.sb, v.sh, v.sn, b, g, n0 + t), hr_crow(v_new, b, g, t), row);
                }
        c->length[layer] += T;
        return HR_OK;
    }
    hr_view k, v;
    int st = hr_kvcache_extend(c, layer, T, &k, &v);
    if (st) return st;
    const size_t row = (size_t)c->d_head * sizeof(float);
    for (int b = 0; b < c->batch; b++)
        for (int g = 0; g < c->kv_heads; g++)
            for (int t = 0; t < T; t++) {
                memcpy(hr_row(k, b, g, t), hr_crow(k_new, b, g, t), row);
                memcpy(hr_row(v, b, g, t), hr_crow(v_new, b, g, t), row);
            }
    return HR_OK;
}

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

void hr_kvcache_free(hr_kvcache *c)
{
    hr_gfree(c->mem);
    hr_gfree(c->xmem);
    free(c->length);
    memset(c, 0, sizeof *c);
}

void hr_kvcache_reset(hr_kvcache *c)
{
    for (int l = 0; l < c->layers; l++) c->length[l] = 0;
}

/* Layer l's K (which 0) or V (which 1) as a writable view of the whole capacity. */
static hr_view layer_view(const hr_kvcache *c, int layer, int which)
{
    if (!c->mem) return (hr_view){NULL, 0, 0, 0}; /* a typed cache has no fp32 rows */
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

/* Stores row n of (b, g) of the typed view x from the fp32 values f: in place, or into
 * its tile (which: K 0, V 1). */
static void store_key(const hr_kvcache *c, hr_xview x, int which, int b, int g, int n, const float *f)
{
    if (!c->tile) {
        hr_dtype_store_row(c->dtype, f, hr_xrow(x, b, g, n), c->d_head);
        return;
    }
    unsigned char row[HR_MAX_DHEAD / HR_QBLOCK * (2 + HR_QBLOCK)];
    hr_dtype_store_row(c->dtype, f, row, c->d_head);
    hr_kv_tile_put(c->dtype, which, row, hr_xrow(x, b, g, n - n % c->tile), n % c->tile, c->d_head);
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
    if (c->xmem) { /* stored in its type: each new row converted (quantized) as it comes */
        int st = check_room(c, layer, T);
        if (st) return st;
        const hr_xview k = layer_xview(c, layer, 0), v = layer_xview(c, layer, 1);
        const int n0 = c->length[layer];
        for (int b = 0; b < c->batch; b++)
            for (int g = 0; g < c->kv_heads; g++)
                for (int t = 0; t < T; t++) {
                    store_key(c, k, 0, b, g, n0 + t, hr_crow(k_new, b, g, t));
                    store_key(c, v, 1, b, g, n0 + t, hr_crow(v_new, b, g, t));
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

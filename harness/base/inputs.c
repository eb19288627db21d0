/* inputs.c — deterministic inputs: xoshiro256** (Blackman & Vigna) and the distributions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "guard.h"
#include "inputs.h"

const char *const hr_dist_names[] = {"normal", "uniform", "large", NULL};

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void hr_rng_seed(hr_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

uint64_t hr_rng_next(hr_rng *r)
{
    uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double hr_rng_uniform(hr_rng *r) { return (double)(hr_rng_next(r) >> 11) * 0x1.0p-53; }

double hr_rng_normal(hr_rng *r)
{
    /* Box-Muller; u1 in (0, 1] so log is finite. */
    double u1 = 1.0 - hr_rng_uniform(r), u2 = hr_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* hr_fill into the rows of a K/V view of p's cache under a (through its block table where p
 * is paged; pp NULL: v's own rows), in the same logical order, so paging moves no value. */
static void fill_rows(hr_view v, const hr_problem *pp, const hr_args *a, int batch, int heads, int rows, int d,
                      hr_dist dist, uint64_t seed, int stream)
{
    hr_rng r;
    hr_rng_seed(&r, seed * 0x100000001b3ull + (uint64_t)stream * 0x9e3779b97f4a7c15ull + 1);
    /* large: q·k/sqrt(d) ~ N(0, s^4); s = 120 gives logits of magnitude ~1.4e4. */
    const double amp = (dist == HR_DIST_LARGE && stream < 2) ? 120.0 : 1.0;
    for (int b = 0; b < batch; b++)
        for (int h = 0; h < heads; h++)
            for (int n = 0; n < rows; n++) {
                float *row = pp ? v.p + hr_kv_page_row(pp, a, v.sb, v.sh, v.sn, b, h, n) : hr_row(v, b, h, n);
                for (int c = 0; c < d; c++) {
                    double x = dist == HR_DIST_UNIFORM ? 2.0 * hr_rng_uniform(&r) - 1.0
                                                       : hr_rng_normal(&r);
                    row[c] = (float)(amp * x);
                }
            }
}

void hr_fill(hr_view v, int batch, int heads, int rows, int d, hr_dist dist, uint64_t seed,
             int stream)
{
    fill_rows(v, NULL, NULL, batch, heads, rows, d, dist, seed, stream);
}

void *hr_alloc(size_t bytes)
{
    /* From 2 MiB up: 2 MiB aligned and marked for transparent huge pages, so every
     * large buffer (tensors, KV cache, triad arrays) sees the same TLB behaviour; a
     * decode step streaming the cache is much slower with 4 KiB pages (perf-log 0244). */
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge) {
        size_t n = (bytes + huge - 1) / huge * huge;
        void *p = aligned_alloc(huge, n);
#ifdef MADV_HUGEPAGE
        if (p) madvise(p, n, MADV_HUGEPAGE); /* advice only: failure changes nothing */
#endif
        return p;
    }
    size_t n = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, n ? n : 64);
}

/* Rows of the K (and of the V) cache per KV head: B Nkv, or paged the pool's B ceil(Nkv / P)
 * blocks of P keys (each sequence's last block part empty). */
static size_t kv_rows(const hr_problem *p)
{
    if (p->page_size <= 0) return (size_t)p->batch * p->seq_kv;
    return (size_t)p->batch * (size_t)((p->seq_kv + p->page_size - 1) / p->page_size) * p->page_size;
}

/* Typed bytes of Q and O (each) and of K and V (each); 0 for f32 tensors. */
static size_t typed_q_bytes(const hr_problem *p)
{
    if (p->dtype == HR_F32) return 0;
    return (size_t)p->batch * p->heads * p->seq_q * hr_dtype_row_bytes(p->dtype, p->d_head);
}

static size_t typed_kv_bytes(const hr_problem *p)
{
    if (p->kv_dtype == HR_F32) return 0;
    return kv_rows(p) * p->kv_heads * hr_dtype_row_bytes(p->kv_dtype, p->d_head);
}

/* Bytes of the K (and of the V) cache in tiles of HR_KV_TILE keys (q8_0, q4_0), each
 * head's keys rounded up to whole tiles; 0 for other types. */
static size_t tiled_kv_bytes(const hr_problem *p)
{
    if (!hr_kv_tiles(p->kv_dtype)) return 0;
    if (p->page_size > 0) return kv_rows(p) * p->kv_heads * hr_dtype_row_bytes(p->kv_dtype, p->d_head);
    return (size_t)p->batch * p->kv_heads * (size_t)hr_kv_tile_keys(p->seq_kv) * hr_dtype_row_bytes(p->kv_dtype, p->d_head);
}

double hr_tensors_bytes(const hr_problem *p)
{
    const double table = p->page_size > 0 ? 4.0 * (double)kv_rows(p) / p->page_size : 0;
    return table + 4.0 * p->d_head * ((double)p->batch * p->heads * p->seq_q * 2 +
                                      (double)kv_rows(p) * p->kv_heads * 2) +
           2.0 * (double)typed_q_bytes(p) + 2.0 * (double)typed_kv_bytes(p) + 2.0 * (double)tiled_kv_bytes(p);
}

/* One more guarded buffer of t (named as a report names it), one of a set of set bytes
 * that shares huge pages as one allocation of them would (hr_galloc_set); NULL when out of
 * memory. */
static void *part(hr_tensors *t, size_t bytes, size_t set, const char *name, bool input)
{
    int i = 0;
    while (i < HR_TENSOR_BUFS && t->buf[i]) i++;
    if (i == HR_TENSOR_BUFS) return NULL;
    t->input[i] = input;
    return t->buf[i] = hr_galloc_set(bytes, name, set);
}

/* The tiled copies of the K and V rows (q8_0, q4_0): per batch and KV head, keys in tiles of
 * HR_KV_TILE (headroom.h hr_kv_tile_put), the padding past the last key zero. */
static int tiled_setup(hr_tensors *t, const hr_problem *p)
{
    const size_t tb = tiled_kv_bytes(p);
    if (!tb) return HR_OK;
    char *tkv[2] = {part(t, tb, 2 * tb, "K", true), part(t, tb, 2 * tb, "V", true)};
    if (!tkv[0] || !tkv[1]) return hr_fail("cannot allocate %.1f MiB for the tiled K/V cache", 2.0 * tb / 1048576.0);
    t->tmem = tkv[0];
    memset(tkv[0], 0, tb);
    memset(tkv[1], 0, tb);
    const int B = p->batch, G = p->kv_heads, d = p->d_head, L = p->seq_kv;
    const int keys = (int)hr_kv_tile_keys(L);
    const size_t rb = hr_dtype_row_bytes(p->kv_dtype, d);
    /* paged: the pool's blocks again, each P keys of every head, whole tiles (16 | P) */
    const int P = p->page_size, nblk = P > 0 ? (int)(kv_rows(p) / (size_t)P) : 0;
    for (int v = 0; v < 2; v++) {
        hr_xview x = P > 0 ? hr_xview_dense(tkv[v], HR_LAYOUT_BHND, nblk, G, P, rb)
                           : hr_xview_dense(tkv[v], HR_LAYOUT_BHND, B, G, keys, rb);
        const hr_xcview rows = v ? t->args.xv : t->args.xk;
        for (int b = 0; b < B; b++)
            for (int h = 0; h < G; h++)
                for (int n = 0; n < L; n++)
                    hr_kv_tile_put(p->kv_dtype, v, hr_kv_xcrow(p, &t->args, rows, b, h, n),
                                   (char *)x.p + hr_kv_page_row(p, &t->args, x.sb, x.sh, x.sn, b, h, n - n % HR_KV_TILE),
                                   n % HR_KV_TILE, d);
        (v ? &t->xvt : &t->xkt)[0] = (hr_xcview){x.p, x.sb, x.sh, x.sn, HR_KV_TILE};
    }
    return HR_OK;
}

const hr_args *hr_tensors_args(const hr_tensors *t, const hr_problem *p, const hr_kernel *k, const hr_tune *tu,
                               hr_args *buf)
{
    if (!t->tmem || hr_kernel_kv_tile(k, p, tu) != HR_KV_TILE) return &t->args;
    *buf = t->args;
    buf->xk = t->xkt;
    buf->xv = t->xvt;
    return buf;
}

/* Stores the fp32 rows of f into the typed tensor x (type t), then loads them back into
 * f: f then holds the values x represents. */
static void store_load(hr_view f, hr_xview x, hr_dtype t, int batch, int heads, int rows, int d)
{
    for (int b = 0; b < batch; b++)
        for (int h = 0; h < heads; h++)
            for (int n = 0; n < rows; n++) {
                hr_dtype_store_row(t, hr_row(f, b, h, n), hr_xrow(x, b, h, n), d);
                hr_dtype_load_row(t, hr_xrow(x, b, h, n), hr_row(f, b, h, n), d);
            }
}

/* store_load for the K or V cache of p under a: through the block table where p is paged. */
static void store_load_kv(const hr_problem *p, const hr_args *a, hr_view f, hr_xview x)
{
    if (p->page_size <= 0) {
        store_load(f, x, p->kv_dtype, p->batch, p->kv_heads, p->seq_kv, p->d_head);
        return;
    }
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->kv_heads; h++)
            for (int n = 0; n < p->seq_kv; n++) {
                float *fr = f.p + hr_kv_page_row(p, a, f.sb, f.sh, f.sn, b, h, n);
                char *xr = (char *)x.p + hr_kv_page_row(p, a, x.sb, x.sh, x.sn, b, h, n);
                hr_dtype_store_row(p->kv_dtype, fr, xr, p->d_head);
                hr_dtype_load_row(p->kv_dtype, xr, fr, p->d_head);
            }
}

/* The typed tensors, each a buffer of its own: stores the fp32 inputs into them and sets
 * the args. HR_EUSAGE when one cannot be allocated. */
static int typed_setup(hr_tensors *t, const hr_problem *p, hr_layout layout)
{
    const int B = p->batch, H = p->heads, G = p->kv_heads;
    const size_t nq = typed_q_bytes(p), nk = typed_kv_bytes(p), set = 2 * nq + 2 * nk;
    if (p->dtype != HR_F32) {
        const size_t rb = hr_dtype_row_bytes(p->dtype, p->d_head);
        char *q = part(t, nq, set, "Q", true), *o = part(t, nq, set, "O", false);
        if (!q || !o) return HR_EUSAGE;
        t->xmem = q;
        hr_xview xq = hr_xview_dense(q, layout, B, H, p->seq_q, rb);
        t->args.xo = hr_xview_dense(o, layout, B, H, p->seq_q, rb);
        t->args.xq = hr_xcv(xq);
        store_load(t->q, xq, p->dtype, B, H, p->seq_q, p->d_head);
        memset(o, 0, nq);
    }
    if (p->kv_dtype != HR_F32) {
        const size_t rb = hr_dtype_row_bytes(p->kv_dtype, p->d_head);
        char *k = part(t, nk, set, "K", true), *v = part(t, nk, set, "V", true);
        if (!k || !v) return HR_EUSAGE;
        if (!t->xmem) t->xmem = k;
        /* paged: the pool of blocks (kv_blocks), in the layout inside each block */
        const int nb = p->page_size > 0 ? (int)(kv_rows(p) / (size_t)p->page_size) : B;
        const int rows = p->page_size > 0 ? p->page_size : p->seq_kv;
        memset(k, 0, nk);
        memset(v, 0, nk);
        hr_xview xk = hr_xview_dense(k, layout, nb, G, rows, rb);
        hr_xview xv = hr_xview_dense(v, layout, nb, G, rows, rb);
        t->args.xk = hr_xcv(xk);
        t->args.xv = hr_xcv(xv);
        store_load_kv(p, &t->args, t->k, xk);
        store_load_kv(p, &t->args, t->v, xv);
    }
    return HR_OK;
}

/* A paged cache's block table: the nblk blocks of the pool in an order shuffled by the seed
 * (Fisher-Yates), so consecutive pages of a sequence lie apart as a serving engine's
 * allocator leaves them; sequence b's pages are entries [b stride, (b + 1) stride). */
static int page_table(hr_tensors *t, const hr_problem *p, int nblk, uint64_t seed)
{
    int32_t *tab = part(t, (size_t)nblk * sizeof(int32_t), (size_t)nblk * sizeof(int32_t), "block table", true);
    if (!tab) return HR_EUSAGE;
    hr_rng r;
    hr_rng_seed(&r, seed * 0x100000001b3ull + 0x5ca1ab1eull);
    for (int i = 0; i < nblk; i++) tab[i] = i;
    for (int i = nblk - 1; i > 0; i--) {
        const int j = (int)(hr_rng_next(&r) % (uint64_t)(i + 1)), x = tab[i];
        tab[i] = tab[j];
        tab[j] = x;
    }
    t->args.block_table = tab;
    t->args.table_stride = (p->seq_kv + p->page_size - 1) / p->page_size;
    return HR_OK;
}

int hr_tensors_alloc(hr_tensors *t, const hr_problem *p, hr_layout layout, hr_dist dist,
                     uint64_t seed)
{
    memset(t, 0, sizeof *t);
    size_t nq = (size_t)p->batch * p->heads * p->seq_q * p->d_head;
    size_t nk = kv_rows(p) * p->kv_heads * p->d_head;
    t->bytes = (size_t)hr_tensors_bytes(p);
    const size_t set = (2 * nq + 2 * nk) * sizeof(float); /* one allocation before the guards */
    float *q = part(t, nq * sizeof(float), set, "Q", true), *k = part(t, nk * sizeof(float), set, "K", true),
          *v = part(t, nk * sizeof(float), set, "V", true), *o = part(t, nq * sizeof(float), set, "O", false);
    t->mem = q;
    if (!q || !k || !v || !o) {
        hr_tensors_free(t);
        return hr_fail("cannot allocate %.1f MiB for Q, K, V and O", t->bytes / 1048576.0);
    }
    t->q = hr_view_dense(q, layout, p->batch, p->heads, p->seq_q, p->d_head);
    const int P = p->page_size, nblk = P > 0 ? (int)(kv_rows(p) / (size_t)P) : p->batch;
    t->k = hr_view_dense(k, layout, nblk, p->kv_heads, P > 0 ? P : p->seq_kv, p->d_head);
    t->v = hr_view_dense(v, layout, nblk, p->kv_heads, P > 0 ? P : p->seq_kv, p->d_head);
    if (P > 0 && page_table(t, p, nblk, seed)) {
        hr_tensors_free(t);
        return hr_fail("cannot allocate the block table of %d blocks", nblk);
    }
    t->args.o = hr_view_dense(o, layout, p->batch, p->heads, p->seq_q, p->d_head);
    t->args.q = hr_cv(t->q);
    t->args.k = hr_cv(t->k);
    t->args.v = hr_cv(t->v);
    hr_fill(t->q, p->batch, p->heads, p->seq_q, p->d_head, dist, seed, 0);
    if (P > 0) { /* the rows past each sequence's last key stay 0 */
        memset(k, 0, nk * sizeof(float));
        memset(v, 0, nk * sizeof(float));
    }
    fill_rows(t->k, p, &t->args, p->batch, p->kv_heads, p->seq_kv, p->d_head, dist, seed, 1);
    fill_rows(t->v, p, &t->args, p->batch, p->kv_heads, p->seq_kv, p->d_head, dist, seed, 2);
    memset(o, 0, nq * sizeof(float));
    if (typed_setup(t, p, layout)) {
        hr_tensors_free(t);
        return hr_fail("cannot allocate %.1f MiB for Q, K, V and O", t->bytes / 1048576.0);
    }
    if (t->xmem && tiled_setup(t, p)) {
        hr_tensors_free(t);
        return HR_EUSAGE;
    }
    return HR_OK;
}

void hr_tensors_output(const hr_problem *p, const hr_args *a)
{
    if (p->dtype == HR_F32) return;
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++)
                hr_dtype_load_row(p->dtype, hr_xrow(a->xo, b, h, i), hr_row(a->o, b, h, i), p->d_head);
}

void hr_tensors_poison(const hr_problem *p, const hr_args *a, float x)
{
    const int d = p->d_head;
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++) {
                float *o = hr_row(a->o, b, h, i);
                for (int c = 0; c < d; c++) o[c] = x;
                if (p->dtype != HR_F32) hr_dtype_store_row(p->dtype, o, hr_xrow(a->xo, b, h, i), d);
            }
}

void hr_tensors_free(hr_tensors *t)
{
    for (int i = 0; i < HR_TENSOR_BUFS; i++) {
        hr_gfree(t->buf[i]);
        t->buf[i] = NULL;
    }
    t->mem = NULL;
    t->xmem = NULL;
    t->tmem = NULL;
}

void hr_tensors_lock(const hr_tensors *t, bool ro)
{
    for (int i = 0; i < HR_TENSOR_BUFS; i++)
        if (t->buf[i] && t->input[i]) hr_gprotect(t->buf[i], ro);
}

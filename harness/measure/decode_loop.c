/* decode_loop.c — token-by-token generation over a growing KV cache, each step one
 * repetition of the timer (decode_loop.h says what is simulated). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "counts.h"
#include "decode_loop.h"
#include "files.h"
#include "guard.h"
#include "layer.h"
#include "kvcache.h"
#include "stats.h"
#include "threads.h"
#include "timer.h"

#define POOL 8 /* distinct new-token rows, cycled */

/* The loop's state: the cache, the pool of new rows, the step's problem and operands. */
typedef struct {
    const hr_decode_spec *s;
    hr_decode_result *r;
    hr_kvcache cache;
    float *pool, *o;      /* guarded buffers: the pool ("Q") and O                    */
    hr_view kp, vp, qp;   /* [B][H][POOL][d] new-token K, V, Q rows                   */
    float *q_orig;        /* typed Q: the pool's Q rows before rounding (qp holds them
                           * as stored)                                              */
    unsigned char *xpool, *xo; /* typed Q: [B][H][POOL] rows in dtype; O [B][H][1]    */
    hr_xview xqp;
    void *ws;
    size_t ws_bytes;
    hr_problem p;         /* one step's problem; seq_kv is set per layer              */
    hr_args args;
    int step, st;         /* the step being run; the first error (HR_OK: none)        */
} loop;

/* The view of row `slot` of a dense [B][H][POOL][d] pool as a one-row tensor. */
static hr_cview pool_row(hr_view pool, int slot)
{
    return (hr_cview){pool.p + slot * pool.sn, pool.sb, pool.sh, pool.sn};
}

/* Points the operands at layer l's cache and the pool's row slot. */
static void operands(loop *L, int l, int slot)
{
    L->p.seq_kv = L->cache.length[l];
    L->p.window = hr_layer_window(L->s->window, L->s->window_every, l);
    L->args.q = pool_row(L->qp, slot);
    L->args.k = hr_kvcache_k(&L->cache, l);
    L->args.v = hr_kvcache_v(&L->cache, l);
    L->args.xk = hr_kvcache_xk(&L->cache, l);
    L->args.xv = hr_kvcache_xv(&L->cache, l);
    L->args.block_table = hr_kvcache_table(&L->cache, l);
    L->args.table_stride = L->cache.tstride;
    if (L->xpool) {
        const hr_xview x = L->xqp;
        L->args.xq = (hr_xcview){(const char *)x.p + slot * x.sn, x.sb, x.sh, x.sn, 0};
    }
}

/* One call of the kernel, named to the guards (a fault in it is reported by name). */
static int krun(loop *L)
{
    hr_guard_kernel(L->s->kernel->name);
    int st = hr_kernel_run(L->s->kernel, &L->p, &L->r->tune, &L->args, L->ws);
    hr_guard_kernel(NULL);
    return st;
}

/* One step over every layer: append the token's K/V, run the kernel. The timer times
 * the whole call; the kernel calls are timed inside it. Records an error in L->st. */
static void step(void *ctx)
{
    loop *L = ctx;
    const hr_kernel *k = L->s->kernel;
    const int slot = L->step % POOL;
    double ta = 0, by = 0;
    for (int l = 0; l < L->s->layers && !L->st; l++) {
        if ((L->st = hr_kvcache_append(&L->cache, l, pool_row(L->kp, slot), pool_row(L->vp, slot), 1)))
            return;
        operands(L, l, slot);
        if (hr_kernel_workspace(k, &L->p, &L->r->tune) > L->ws_bytes) {
            L->st = hr_fail("--kernel: %s needs more workspace at %d keys than at the full cache",
                            k->name, L->p.seq_kv);
            return;
        }
        double t1 = hr_now();
        if ((L->st = krun(L))) return;
        ta += hr_now() - t1;
        /* the bytes any kernel must read (K/V of the cache once, Q and O), as the
         * roofline counts them: a kernel that re-reads K/V per query head does not read
         * its cache faster for it */
        by += hr_bound_bytes(&L->p, hr_kernel_bytes(k, &L->p, &L->r->tune));
    }
    L->r->attn[L->step] = ta;
    L->r->bytes[L->step] = by;
}

/* Validates, sizes the workspace at the full cache and checks the budget. */
static int setup(const hr_decode_spec *s, loop *L)
{
    const long capacity = (long)s->prompt + s->tokens;
    if (capacity > HR_MAX_SEQ)
        return hr_fail("--tokens: prompt + tokens = %ld exceeds %d", capacity, HR_MAX_SEQ);
    L->p = (hr_problem){s->batch, s->heads, s->kv_heads, 1, (int)capacity, s->d_head, true, 0, s->dtype, s->kv_dtype,
                        s->window, s->softcap, s->alibi, s->page_size};
    const int P = s->page_size;
    if (P >= HR_PAGE_MIN && P <= HR_PAGE_MAX && !(P & (P - 1)) && P > capacity) /* run's rule, in this command's words */
        return hr_fail("--page-size: %d keys a block is over the cache (prompt + tokens = %ld)", P, capacity);
    int st = hr_kernel_validate(s->kernel, &L->p); /* with the window if any layer has it */
    if (st) return st;
    L->r->tune = hr_kernel_tune(s->kernel, &L->p, &s->tune);
    if ((st = hr_threads_check(L->r->tune.threads, "--threads"))) return st;
    hr_threads_used(L->r->tune.threads);
    L->ws_bytes = hr_kernel_workspace(s->kernel, &L->p, &L->r->tune);
    /* paged: a pool of the blocks every (layer, sequence) takes by the end, none spare */
    const int nblk = P > 0 ? s->layers * s->batch * (int)((capacity + P - 1) / P) : 0;
    L->r->cache_bytes = P > 0 ? hr_kvcache_bytes_of(s->kv_dtype, 1, 1, s->kv_heads, s->d_head, (long)nblk * P)
                              : hr_kvcache_bytes_of(s->kv_dtype, s->layers, s->batch, s->kv_heads, s->d_head, capacity);
    /* Beside the cache: the pools (f32, the original Q, the typed Q and O), and, for a
     * typed cache, one layer's prompt in fp32 while it is stored, or with --check the
     * layer's K/V dequantized and original (four fp32 copies). */
    const double kv32 = 4.0 * s->batch * s->kv_heads * (double)capacity * s->d_head;
    const double need = L->r->cache_bytes + (double)L->ws_bytes +
                        4.0 * s->batch * (2.0 * s->kv_heads + 3.0 * s->heads) * POOL * s->d_head +
                        (double)hr_dtype_row_bytes(s->dtype, s->d_head) * s->batch * s->heads * (POOL + 1) +
                        (s->kv_dtype != HR_F32 ? (s->check ? 4 : 2) * kv32 : s->check && s->dtype != HR_F32 ? 2 * kv32 : 0) +
                        (P > 0 && s->check && s->kv_dtype != HR_F32 ? 2 * 4.0 * nblk * P * s->kv_heads * s->d_head : 0);
    const double budget = hr_mem_budget(s->max_mem);
    if (need > budget)
        return hr_fail("--max-mem: the KV cache and buffers need %.2f GiB, over the budget of "
                       "%.2f GiB", need / 1073741824.0, budget / 1073741824.0);
    if ((st = P > 0 ? hr_kvcache_init_paged(&L->cache, s->kv_dtype, s->layers, s->batch, s->kv_heads, s->d_head,
                                            capacity, P, nblk, s->seed, 0)
                    : hr_kvcache_init_typed(&L->cache, s->kv_dtype, s->layers, s->batch, s->kv_heads, s->d_head,
                                            capacity, 0)))
        return st;
    /* a kernel that reads a q8_0/q4_0 cache faster in tiles gets it stored so, as run does */
    const int tile = hr_kernel_kv_tile(s->kernel, &L->p, &L->r->tune);
    if (tile && (st = hr_kvcache_set_tile(&L->cache, tile))) return st;
    char path[512];
    hr_copy_text(L->r->path, sizeof L->r->path, hr_kernel_path_kv(s->kernel, &L->p, tile, path, sizeof path));
    return HR_OK;
}

/* The pool of new rows and the prompt, filled from the seed. */
static int fill(loop *L)
{
    const hr_decode_spec *s = L->s;
    const int B = s->batch, G = s->kv_heads, H = s->heads, d = s->d_head;
    const size_t pool = sizeof(float) * (size_t)B * POOL * d * (2 * G + H), ob = sizeof(float) * (size_t)B * H * d;
    L->pool = hr_galloc_set(pool, "Q", pool + ob); /* one allocation before the guards */
    L->o = hr_galloc_set(ob, "O", pool + ob);
    L->ws = hr_galloc(L->ws_bytes, "workspace");
    const size_t n = 3 * (size_t)s->tokens;
    L->r->step = malloc(n * sizeof *L->r->step);
    if (!L->pool || !L->o || !L->ws || !L->r->step) return hr_fail("out of memory");
    memset(L->r->step, 0, n * sizeof *L->r->step);
    L->r->attn = L->r->step + s->tokens;
    L->r->bytes = L->r->attn + s->tokens;
    L->kp = hr_view_dense(L->pool, HR_LAYOUT_BHND, B, G, POOL, d);
    L->vp = hr_view_dense(L->kp.p + (size_t)B * G * POOL * d, HR_LAYOUT_BHND, B, G, POOL, d);
    L->qp = hr_view_dense(L->vp.p + (size_t)B * G * POOL * d, HR_LAYOUT_BHND, B, H, POOL, d);
    L->args.o = hr_view_dense(L->o, HR_LAYOUT_BHND, B, H, 1, d);
    const uint64_t pool_seed = s->seed ^ 0x9e3779b97f4a7c15u;
    hr_fill(L->kp, B, G, POOL, d, s->dist, pool_seed, 1);
    hr_fill(L->vp, B, G, POOL, d, s->dist, pool_seed, 2);
    hr_fill(L->qp, B, H, POOL, d, s->dist, pool_seed, 0);
    if (s->dtype != HR_F32) { /* Q stored in dtype; the f32 pool then holds what it stores */
        const size_t rb = hr_dtype_row_bytes(s->dtype, d), nq = (size_t)B * H * POOL * d;
        L->q_orig = malloc(nq * sizeof(float));
        L->xpool = hr_galloc(rb * (size_t)B * H * POOL, "Q");
        L->xo = hr_galloc(rb * (size_t)B * H, "O");
        if (!L->q_orig || !L->xpool || !L->xo) return hr_fail("out of memory");
        memcpy(L->q_orig, L->qp.p, nq * sizeof(float));
        L->xqp = hr_xview_dense(L->xpool, HR_LAYOUT_BHND, B, H, POOL, rb);
        L->args.xo = hr_xview_dense(L->xo, HR_LAYOUT_BHND, B, H, 1, rb);
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                for (int j = 0; j < POOL; j++) {
                    hr_dtype_store_row(s->dtype, hr_row(L->qp, b, h, j), hr_xrow(L->xqp, b, h, j), d);
                    hr_dtype_load_row(s->dtype, hr_xrow(L->xqp, b, h, j), hr_row(L->qp, b, h, j), d);
                }
    }
    /* The prompt, a different seed per layer: written in place, or for a typed or paged
     * cache drawn into fp32 and appended (stored in its type, into its pages). */
    float *tmp = NULL;
    if ((s->kv_dtype != HR_F32 || s->page_size) && s->prompt > 0 &&
        !(tmp = malloc(2 * sizeof(float) * (size_t)B * G * s->prompt * d)))
        return hr_fail("out of memory");
    for (int l = 0; l < s->layers && s->prompt > 0; l++) {
        hr_view kn, vn;
        int st = HR_OK;
        if (tmp) {
            kn = hr_view_dense(tmp, HR_LAYOUT_BHND, B, G, s->prompt, d);
            vn = hr_view_dense(tmp + (size_t)B * G * s->prompt * d, HR_LAYOUT_BHND, B, G, s->prompt, d);
        } else if ((st = hr_kvcache_extend(&L->cache, l, s->prompt, &kn, &vn))) {
            return st;
        }
        hr_fill(kn, B, G, s->prompt, d, s->dist, s->seed + 7919u * (uint64_t)l, 1);
        hr_fill(vn, B, G, s->prompt, d, s->dist, s->seed + 7919u * (uint64_t)l, 2);
        if (tmp && (st = hr_kvcache_append(&L->cache, l, hr_cv(kn), hr_cv(vn), s->prompt))) {
            free(tmp);
            return st;
        }
    }
    free(tmp);
    return HR_OK;
}

/* Layer l's K (which 0) or V (1), [B][Hkv][length][d] fp32 into dst: dequantized from
 * a typed cache (orig false; paged, in the pool's shape and through the block table, as
 * the oracle reads it beside the typed rows), or the original values (orig true: the
 * prompt drawn again from its seed, then the pool rows the steps appended, step t's
 * from slot t % POOL). Needs operands(L, l, ...) first. */
static hr_cview layer_f32(const loop *L, int l, int which, bool orig, float *dst)
{
    const hr_decode_spec *s = L->s;
    const int B = s->batch, G = s->kv_heads, d = s->d_head, len = L->cache.length[l], P = L->cache.page;
    hr_view v = hr_view_dense(dst, HR_LAYOUT_BHND, B, G, len, d);
    if (!orig) {
        if (P > 0) v = (hr_view){dst, (ptrdiff_t)G * P * d, (ptrdiff_t)P * d, d};
        const hr_xcview x = which ? hr_kvcache_xv(&L->cache, l) : hr_kvcache_xk(&L->cache, l);
        for (int b = 0; b < B; b++)
            for (int g = 0; g < G; g++)
                for (int n = 0; n < len; n++) {
                    unsigned char row[HR_MAX_DHEAD / HR_QBLOCK * (2 + HR_QBLOCK)];
                    float *f = v.p + hr_kv_page_row(&L->p, &L->args, v.sb, v.sh, v.sn, b, g, n);
                    hr_dtype_load_row(s->kv_dtype, hr_kv_key_row(&L->p, &L->args, x, which, b, g, n, row), f, d);
                }
        return hr_cv(v);
    }
    if (s->prompt > 0) hr_fill(v, B, G, s->prompt, d, s->dist, s->seed + 7919u * (uint64_t)l, 1 + which);
    const hr_view pool = which ? L->vp : L->kp;
    for (int t = 0; s->prompt + t < len; t++)
        for (int b = 0; b < B; b++)
            for (int g = 0; g < G; g++)
                memcpy(hr_row(v, b, g, s->prompt + t), hr_row(pool, b, g, t % POOL), sizeof(float) * (size_t)d);
    return hr_cv(v);
}

/* The last step again, layer by layer, each compared with the oracle; keeps the worst.
 * Reduced types: the oracle reads the cache dequantized (what the kernel was given), and
 * the format's error (the oracle on the original rows) is kept beside it. */
static void check(loop *L)
{
    const hr_decode_spec *s = L->s;
    const bool typed = s->dtype != HR_F32 || s->kv_dtype != HR_F32;
    const size_t n = (size_t)s->batch * s->kv_heads * L->cache.capacity * s->d_head;
    /* the dequantized copies: paged, each the pool's size (the rows where their blocks are) */
    const size_t np = L->cache.page ? (size_t)L->cache.nblocks * L->cache.page * s->kv_heads * s->d_head : n;
    float *tmp = NULL;
    if (typed && !(tmp = malloc((2 * n + 2 * np) * sizeof(float)))) {
        L->st = hr_fail("--check: out of memory for the oracle's copy of the cache");
        return;
    }
    hr_check worst = {0}, fworst = {0};
    const int slot = (s->tokens - 1) % POOL;
    for (int l = 0; l < s->layers; l++) {
        operands(L, l, slot);
        if (s->kv_dtype != HR_F32) {
            L->args.k = layer_f32(L, l, 0, false, tmp);
            L->args.v = layer_f32(L, l, 1, false, tmp + np);
        }
        if ((L->st = krun(L))) break;
        hr_tensors_output(&L->p, &L->args);
        hr_check c = hr_oracle_check_q(&L->p, &L->args, 0, hr_path_quant(hr_kernel_path(s->kernel, &L->p)));
        if (l == 0 || c.verdict > worst.verdict ||
            (c.verdict == worst.verdict && c.max_rel_err > worst.max_rel_err))
            worst = c;
        if (!typed) continue;
        hr_args a = L->args;
        hr_problem p32 = L->p;
        p32.dtype = p32.kv_dtype = HR_F32;
        if (s->kv_dtype != HR_F32) { /* the original rows, dense: no table to read them through */
            a.k = layer_f32(L, l, 0, true, tmp + 2 * np);
            a.v = layer_f32(L, l, 1, true, tmp + 2 * np + n);
            p32.page_size = 0;
            a.block_table = NULL;
        }
        if (L->q_orig) {
            const hr_view qo = hr_view_dense(L->q_orig, HR_LAYOUT_BHND, s->batch, s->heads, POOL, s->d_head);
            a.q = pool_row(qo, slot);
        }
        hr_check f = hr_oracle_check(&p32, &a, 0);
        if (l == 0 || f.max_rel_err > fworst.max_rel_err) fworst = f;
    }
    free(tmp);
    L->r->checked = true;
    L->r->check = worst;
    L->r->format_checked = typed;
    L->r->format = fworst;
}

int hr_decode_loop(const hr_decode_spec *s, hr_decode_result *out)
{
    memset(out, 0, sizeof *out);
    out->prompt = s->prompt;
    out->tokens = s->tokens;
    loop L = {.s = s, .r = out};
    int st = setup(s, &L);
    if (st) return st;
    if ((st = fill(&L))) goto done;
    /* Warm-up: one untimed call per layer on the prompt (threads started, code paged). */
    for (int l = 0; l < s->layers && s->prompt > 0; l++) {
        operands(&L, l, 0);
        if ((st = krun(&L))) goto done;
    }
    const hr_timer_opts one = {.reps = 1};
    for (L.step = 0; L.step < s->tokens && !L.st; L.step++)
        out->step[L.step] = hr_time_rep(step, &L, &one, 1, L.step, NULL);
    hr_guard_verify(s->kernel->name); /* the canaries, after the timed steps */
    if ((st = L.st)) goto done;
    for (int i = 0; i < s->tokens; i++) {
        out->seconds += out->step[i];
        out->attn_seconds += out->attn[i];
        out->total_bytes += out->bytes[i];
    }
    if (s->page_size > 0) { /* the pool's blocks against kvcache --page-size's model */
        long len[HR_MAX_BATCH];
        for (int b = 0; b < s->batch; b++) len[b] = L.cache.length[0];
        const double tok = hr_kv_bytes_of(s->layers, 1, s->kv_heads, s->d_head, 1, s->kv_dtype);
        out->blocks = hr_kvcache_blocks_used(&L.cache);
        out->blocks_peak = L.cache.blocks_peak;
        out->pool_blocks = L.cache.nblocks;
        out->used_bytes = tok * s->batch * L.cache.length[0];
        out->alloc_bytes = tok * hr_kv_alloc_tokens(len, s->batch, s->page_size);
    }
    if (s->check) {
        check(&L);
        st = L.st;
    }
    hr_guard_verify(s->kernel->name);
done:
    hr_gfree(L.ws);
    hr_gfree(L.pool);
    hr_gfree(L.o);
    free(L.q_orig);
    hr_gfree(L.xpool);
    hr_gfree(L.xo);
    hr_kvcache_free(&L.cache);
    if (st) hr_decode_free(out);
    return st;
}

void hr_decode_ranges(const hr_decode_result *r, int n, hr_decode_range *rows)
{
    for (int i = 0; i < n; i++) {
        const int a = (int)((long)r->tokens * i / n), b = (int)((long)r->tokens * (i + 1) / n);
        hr_decode_range *o = &rows[i];
        double st = 0, at = 0, by = 0;
        for (int s = a; s < b; s++) st += r->step[s], at += r->attn[s], by += r->bytes[s];
        hr_summary sum;
        hr_summarize(r->step + a, b - a, &sum);
        o->step_med = sum.median;
        o->step_min = sum.min;
        o->attn_med = hr_median(r->attn + a, (size_t)(b - a));
        o->first = a;
        o->last = b - 1;
        o->len0 = r->prompt + a + 1;
        o->len1 = r->prompt + b;
        o->tokens_per_s = st > 0 ? (b - a) / st : 0;
        o->kv_gbps = at > 0 ? by / at * 1e-9 : 0;
    }
}

void hr_decode_free(hr_decode_result *r)
{
    free(r->step);
    r->step = r->attn = r->bytes = NULL;
}

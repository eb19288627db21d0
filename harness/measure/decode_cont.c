/* decode_cont.c — continuous batching over a fused ragged decode batch (decode_cont.h
 * says what is simulated). */
#include "decode_cont.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "counts.h"
#include "guard.h"
#include "kvcache.h"
#include "stats.h"
#include "threads.h"
#include "timer.h"

#define POOL 8 /* distinct new-token rows, cycled */

/* One sequence: when it arrives (in steps), its lengths, and what happened to it. */
typedef struct {
    long arrive, admit;
    int prompt, out, made;
    double t_first, t_last; /* the clock at the start of its first step, the end of its last */
} req;

/* The simulation's state: the requests, one cache layer per slot, the pools of new-token
 * rows, each slot's O and the step's batch. */
typedef struct {
    const hr_cont_spec *s;
    hr_cont_result *r;
    const hr_kernel *k;
    hr_tune tune;
    req *q;
    int *slot_req;           /* [max_batch] the request in a slot, -1: free */
    hr_kvcache cache;
    float *pool, *o, *tmp;   /* K, V, Q pools; [max_batch][H][d] O; a prompt or the check's copies */
    float *ptmp;             /* paged typed --check: K and V dequantized in the pool's shape */
    hr_view kp, vp, qp;
    hr_problem *ps;
    hr_tune *tus;
    hr_args *as;
    hr_decode_seq *seq;
    int *seq_slot;
    void *ws;
    size_t ws_bytes;
} cont;

static hr_cview pool_row(hr_view pool, int j) { return (hr_cview){pool.p + j * pool.sn, pool.sb, pool.sh, pool.sn}; }

static int validate(const hr_cont_spec *s)
{
    if (s->max_batch < 1 || s->max_batch > HR_RAGGED_MAX) return hr_fail("--max-batch: must be 1..%d", HR_RAGGED_MAX);
    if (s->requests < 1) return hr_fail("--requests: must be at least 1");
    if (!(s->arrival >= 0) || s->arrival > 1e6) return hr_fail("--arrival: must be 0 (all at once) or a positive rate");
    if (s->len_min < 1 || s->len_max < s->len_min)
        return hr_fail("--len-min/--len-max: need 1 <= min <= max (got %d, %d)", s->len_min, s->len_max);
    if (s->out_min < 1 || s->out_max < s->out_min)
        return hr_fail("--out-min/--out-max: need 1 <= min <= max (got %d, %d)", s->out_min, s->out_max);
    if ((long)s->len_max + s->out_max > HR_MAX_SEQ)
        return hr_fail("--len-max: with --out-max, %ld keys exceed %d", (long)s->len_max + s->out_max, HR_MAX_SEQ);
    return HR_OK;
}

/* Draws the requests (seeded) and sizes a slot's cache for the longest. */
static int draw(cont *C)
{
    const hr_cont_spec *s = C->s;
    if (!(C->q = calloc((size_t)s->requests, sizeof *C->q))) return hr_fail("out of memory");
    hr_rng g;
    hr_rng_seed(&g, s->seed);
    double t = 0;
    C->r->capacity = 1;
    for (int i = 0; i < s->requests; i++) {
        if (s->arrival > 0) t += -log(1 - hr_rng_uniform(&g)) / s->arrival;
        C->q[i].arrive = (long)t;
        C->q[i].prompt = hr_ragged_len(&g, s->dist, s->len_min, s->len_max);
        C->q[i].out = hr_ragged_out_len(&g, s->out_min, s->out_max);
        const int cap = C->q[i].prompt + C->q[i].out;
        C->r->capacity = cap > C->r->capacity ? cap : C->r->capacity;
    }
    return HR_OK;
}

static int setup(cont *C)
{
    const hr_cont_spec *s = C->s;
    const int B = s->max_batch, G = s->kv_heads, H = s->heads, d = s->d_head, cap = C->r->capacity;
    const int P = s->page_size, nblk = P > 0 ? B * ((cap + P - 1) / P) : 0;
    if (P >= HR_PAGE_MIN && P <= HR_PAGE_MAX && !(P & (P - 1)) && P > cap) /* run's rule, in this command's words */
        return hr_fail("--page-size: %d keys a block is over the longest sequence (%d keys)", P, cap);
    hr_problem p = {1, H, G, 1, cap, d, true, 0, HR_F32, s->kv_dtype, 0, 0, 0, P};
    int st = hr_kernel_validate(C->k, &p);
    if (st) return st;
    C->tune = hr_kernel_tune(C->k, &p, &(hr_tune){0, 0, s->threads});
    if ((st = hr_threads_check(C->tune.threads, "--threads"))) return st;
    hr_threads_used(C->tune.threads);
    C->r->threads = C->tune.threads;
    C->r->cache_bytes = P > 0 ? hr_kvcache_bytes_of(s->kv_dtype, 1, 1, G, d, (long)nblk * P)
                              : hr_kvcache_bytes_of(s->kv_dtype, B, 1, G, d, cap);
    const double rows32 = 4.0 * G * (double)cap * d; /* one slot's K in fp32 */
    const double ptmp = P > 0 && s->check && s->kv_dtype != HR_F32 ? 2 * 4.0 * nblk * P * G * d : 0;
    const double need = C->r->cache_bytes + 4.0 * (2.0 * G + H) * POOL * d + 4.0 * B * H * d + 4 * rows32 + ptmp;
    const double budget = hr_mem_budget(s->max_mem);
    if (need > budget)
        return hr_fail("--max-mem: %d slots of %d keys and buffers need %.2f GiB, over the budget of %.2f GiB", B, cap,
                       need / 1073741824.0, budget / 1073741824.0);
    if ((st = P > 0 ? hr_kvcache_init_paged(&C->cache, s->kv_dtype, B, 1, G, d, cap, P, nblk, s->seed, 0)
                    : hr_kvcache_init_typed(&C->cache, s->kv_dtype, B, 1, G, d, cap, 0)))
        return st;
    C->r->pool_blocks = nblk;
    if (ptmp > 0 && !(C->ptmp = malloc((size_t)ptmp))) return hr_fail("out of memory");
    const int tile = hr_kernel_kv_tile(C->k, &p, &C->tune);
    if (tile && (st = hr_kvcache_set_tile(&C->cache, tile))) return st;
    const size_t pool = (size_t)(2 * G + H) * POOL * d;
    C->pool = malloc(pool * sizeof(float));
    C->o = malloc((size_t)B * H * d * sizeof(float));
    C->tmp = malloc((size_t)(4 * rows32));
    C->slot_req = malloc((size_t)B * sizeof *C->slot_req);
    C->ps = calloc((size_t)B, sizeof *C->ps);
    C->tus = calloc((size_t)B, sizeof *C->tus);
    C->as = calloc((size_t)B, sizeof *C->as);
    C->seq = calloc((size_t)B, sizeof *C->seq);
    C->seq_slot = calloc((size_t)B, sizeof *C->seq_slot);
    if (!C->pool || !C->o || !C->tmp || !C->slot_req || !C->ps || !C->tus || !C->as || !C->seq || !C->seq_slot)
        return hr_fail("out of memory");
    for (int j = 0; j < B; j++) C->slot_req[j] = -1;
    C->kp = hr_view_dense(C->pool, HR_LAYOUT_BHND, 1, G, POOL, d);
    C->vp = hr_view_dense(C->kp.p + (size_t)G * POOL * d, HR_LAYOUT_BHND, 1, G, POOL, d);
    C->qp = hr_view_dense(C->vp.p + (size_t)G * POOL * d, HR_LAYOUT_BHND, 1, H, POOL, d);
    const uint64_t ps = s->seed ^ 0x9e3779b97f4a7c15u;
    hr_fill(C->kp, 1, G, POOL, d, HR_DIST_NORMAL, ps, 1);
    hr_fill(C->vp, 1, G, POOL, d, HR_DIST_NORMAL, ps, 2);
    hr_fill(C->qp, 1, H, POOL, d, HR_DIST_NORMAL, ps, 0);
    return HR_OK;
}

/* Request i into free slot j: its prompt drawn (seed by request) and written untimed. */
static int admit(cont *C, int i, int j)
{
    const hr_cont_spec *s = C->s;
    const int G = s->kv_heads, d = s->d_head, n = C->q[i].prompt;
    hr_kvcache_drop(&C->cache, j); /* empty already: the slot's last sequence gave its blocks back */
    hr_view kn = hr_view_dense(C->tmp, HR_LAYOUT_BHND, 1, G, n, d);
    hr_view vn = hr_view_dense(C->tmp + (size_t)G * n * d, HR_LAYOUT_BHND, 1, G, n, d);
    hr_fill(kn, 1, G, n, d, HR_DIST_NORMAL, s->seed + 7919u * (uint64_t)(i + 1), 1);
    hr_fill(vn, 1, G, n, d, HR_DIST_NORMAL, s->seed + 7919u * (uint64_t)(i + 1), 2);
    C->slot_req[j] = i;
    return hr_kvcache_append(&C->cache, j, hr_cv(kn), hr_cv(vn), n);
}

/* Slot j's K (which 0) or V (1) in fp32 into dst, dequantized where it is stored in
 * another type: what the kernel was given, for the oracle (p and a: the slot's problem
 * and operands; paged, in the pool's shape, read through the block table). */
static hr_cview slot_f32(const cont *C, int j, int which, float *dst, const hr_problem *p, const hr_args *a)
{
    const hr_cont_spec *s = C->s;
    const int G = s->kv_heads, d = s->d_head, len = C->cache.length[j], P = C->cache.page;
    if (s->kv_dtype == HR_F32) return which ? hr_kvcache_v(&C->cache, j) : hr_kvcache_k(&C->cache, j);
    hr_view v = P > 0 ? (hr_view){dst, (ptrdiff_t)G * P * d, (ptrdiff_t)P * d, d} : hr_view_dense(dst, HR_LAYOUT_BHND, 1, G, len, d);
    const hr_xcview x = which ? hr_kvcache_xv(&C->cache, j) : hr_kvcache_xk(&C->cache, j);
    for (int g = 0; g < G; g++)
        for (int t = 0; t < len; t++) {
            unsigned char row[HR_MAX_DHEAD / HR_QBLOCK * (2 + HR_QBLOCK)];
            hr_dtype_load_row(s->kv_dtype, hr_kv_key_row(p, a, x, which, 0, g, t, row),
                              v.p + hr_kv_page_row(p, a, v.sb, v.sh, v.sn, 0, g, t), d);
        }
    return hr_cv(v);
}

/* The step's n sequences against the oracle; keeps the worst. */
static void check_step(cont *C, int n)
{
    const size_t half = C->ptmp ? (size_t)C->cache.nblocks * C->cache.page * C->s->kv_heads * C->s->d_head
                                : (size_t)C->s->kv_heads * C->r->capacity * C->s->d_head;
    float *tmp = C->ptmp ? C->ptmp : C->tmp;
    hr_check worst = {0};
    for (int x = 0; x < n; x++) {
        hr_args a = C->as[x];
        a.k = slot_f32(C, C->seq_slot[x], 0, tmp, &C->ps[x], &a);
        a.v = slot_f32(C, C->seq_slot[x], 1, tmp + half, &C->ps[x], &a);
        hr_check c = hr_oracle_check_q(&C->ps[x], &a, 0, hr_path_quant(hr_kernel_path(C->k, &C->ps[x])));
        if (x == 0 || c.verdict > worst.verdict || (c.verdict == worst.verdict && c.max_rel_err > worst.max_rel_err))
            worst = c;
    }
    C->r->checked = true;
    C->r->check_batch = n;
    C->r->check = worst;
}

/* The step's batch: every occupied slot, its cache one row longer than now (the row the
 * step appends), the query the pool's row j. */
static int gather(cont *C, long step)
{
    const hr_cont_spec *s = C->s;
    const int H = s->heads, d = s->d_head, j = (int)(step % POOL);
    int n = 0;
    for (int sl = 0; sl < s->max_batch; sl++) {
        if (C->slot_req[sl] < 0) continue;
        hr_problem *p = &C->ps[n];
        *p = (hr_problem){1, H, s->kv_heads, 1, C->cache.length[sl] + 1, d, true, 0, HR_F32, s->kv_dtype, 0, 0, 0,
                          s->page_size};
        C->tus[n] = hr_kernel_tune(C->k, p, &C->tune);
        hr_args *a = &C->as[n];
        memset(a, 0, sizeof *a);
        a->q = pool_row(C->qp, j);
        a->k = hr_kvcache_k(&C->cache, sl);
        a->v = hr_kvcache_v(&C->cache, sl);
        a->xk = hr_kvcache_xk(&C->cache, sl);
        a->xv = hr_kvcache_xv(&C->cache, sl);
        a->block_table = hr_kvcache_table(&C->cache, sl); /* the step's append fills its new entry */
        a->table_stride = C->cache.tstride;
        a->o = hr_view_dense(C->o + (size_t)sl * H * d, HR_LAYOUT_BHND, 1, H, 1, d);
        C->seq[n] = (hr_decode_seq){p, &C->tus[n], a};
        C->seq_slot[n++] = sl;
    }
    return n;
}

static int run(cont *C)
{
    const hr_cont_spec *s = C->s;
    hr_cont_result *r = C->r;
    const int target = s->requests < s->max_batch ? s->requests : s->max_batch;
    int next = 0, done = 0, st;
    double clock = 0, occ = 0;
    for (long step = 0; done < s->requests; step++) {
        for (int sl = 0; sl < s->max_batch && next < s->requests && C->q[next].arrive <= step; sl++)
            if (C->slot_req[sl] < 0) {
                C->q[next].admit = step;
                if ((st = admit(C, next++, sl))) return st;
            }
        const int n = gather(C, step);
        if (s->page_size > 0) { /* the blocks the live sequences need after this step's append */
            long need = 0;
            for (int x = 0; x < n; x++) need += (C->ps[x].seq_kv + s->page_size - 1) / s->page_size;
            r->need_peak = need > r->need_peak ? need : r->need_peak;
        }
        if (n == 0) { /* nothing to decode until the next arrival: no time passes */
            step = C->q[next].arrive - 1;
            continue;
        }
        const size_t w = hr_ragged_fused_workspace(C->seq, n, C->tune.threads);
        if (w > C->ws_bytes) {
            free(C->ws);
            if (!(C->ws = aligned_alloc(64, (w + 63) / 64 * 64))) return hr_fail("out of memory for the workspace");
            C->ws_bytes = (w + 63) / 64 * 64;
        }
        const int j = (int)(step % POOL);
        st = HR_OK;
        hr_guard_kernel(C->k->name);
        const double t0 = hr_now();
        for (int x = 0; x < n && !st; x++)
            st = hr_kvcache_append(&C->cache, C->seq_slot[x], pool_row(C->kp, j), pool_row(C->vp, j), 1);
        if (!st) st = hr_ragged_fused(C->seq, n, C->tune.threads, C->ws);
        const double dt = hr_now() - t0;
        hr_guard_kernel(NULL);
        if (st) return st;
        if (s->check && !r->checked && n == target) check_step(C, n);
        r->steps++;
        r->tokens += n;
        occ += n;
        for (int x = 0; x < n; x++) r->bytes += hr_min_bytes(&C->ps[x]);
        for (int x = 0; x < n; x++) {
            req *q = &C->q[C->slot_req[C->seq_slot[x]]];
            if (q->made++ == 0) q->t_first = clock;
            if (q->made == q->out) {
                q->t_last = clock + dt;
                C->slot_req[C->seq_slot[x]] = -1;
                hr_kvcache_drop(&C->cache, C->seq_slot[x]); /* its blocks back to the pool */
                done++;
            }
        }
        clock += dt;
    }
    r->blocks_peak = C->cache.blocks_peak;
    r->allocs = C->cache.allocs;
    r->blocks_end = hr_kvcache_blocks_used(&C->cache);
    r->seconds = clock;
    r->tokens_per_s = clock > 0 ? r->tokens / clock : 0;
    r->occupancy = r->steps ? occ / ((double)r->steps * s->max_batch) : 0;
    double *v = malloc(2 * (size_t)s->requests * sizeof *v);
    if (!v) return hr_fail("out of memory");
    for (int i = 0; i < s->requests; i++) {
        v[i] = C->q[i].out / (C->q[i].t_last - C->q[i].t_first);
        v[s->requests + i] = (double)(C->q[i].admit - C->q[i].arrive);
    }
    r->seq_tps_median = hr_median(v, (size_t)s->requests);
    r->seq_tps_p90 = hr_quantile(v, (size_t)s->requests, 0.9);
    r->wait_median = hr_median(v + s->requests, (size_t)s->requests);
    free(v);
    return HR_OK;
}

int hr_decode_cont(const hr_cont_spec *s, hr_cont_result *out)
{
    memset(out, 0, sizeof *out);
    cont C = {.s = s, .r = out, .k = hr_kernel_find("decode")};
    int st = validate(s);
    if (!st) st = draw(&C);
    if (!st) st = setup(&C);
    if (!st) st = run(&C);
    free(C.q); free(C.slot_req); free(C.pool); free(C.o); free(C.tmp); free(C.ptmp);
    free(C.ps); free(C.tus); free(C.as); free(C.seq); free(C.seq_slot); free(C.ws);
    hr_kvcache_free(&C.cache);
    return st;
}

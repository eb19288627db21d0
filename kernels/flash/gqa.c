/* gqa.c — GQA/MQA-aware flash attention: the query heads sharing a KV head attend as one row stack. */

/* The same online softmax as flash.c (Dao 2023, FlashAttention-2) and the same tile
 * machinery (flash_tile.h), with one change of work unit: an item is one query block
 * [i0, i0 + Bq) of every head of a GQA group g, i.e. heads g*G .. g*G + G-1 with
 * G = Hq / Hkv. Their G*Bq rows are stacked (row r = head g*G + r / rows, query
 * i0 + r % rows) and each K/V tile is packed once for the whole stack, so K/V is read
 * from memory once per KV head instead of once per query head: the traffic drops by G.
 * A row's causal limit depends only on its query index, so the stack is masked row by
 * row exactly like flash. With Hkv = Hq (G = 1) this is flash with the same blocks.
 *
 * Bq here is per head; the default keeps the stack near flash's Bq rows (at least one
 * micro-tile per head), so the slab per thread stays O(G * Bq * (d + Bkv)),
 * bounded whatever N (hr_ft_even_blocks may give a short N a smaller block). */

#include <omp.h>

#include "flash_tile.h"
#include "headroom.h"

static int ceil_div(int a, int b) { return (a + b - 1) / b; }
static int threads_of(const hr_tune *t) { return t->threads > 0 ? t->threads : omp_get_max_threads(); }

static const char *gqa_applicable(const hr_problem *p) { return hr_ft_why_not(p); }

static void gqa_resolve(const hr_problem *p, const hr_machine *m, hr_tune *t)
{
    if (t->block_q <= 0) {
        const int mr = hr_ft_mr(), g = hr_group(p);
        const int per_head = ceil_div(ceil_div(hr_ft_path_block_q(p, m), g), mr) * mr;
        t->block_q = hr_ft_default_rows(p->seq_q, per_head, g, mr, (long)p->batch * p->kv_heads, threads_of(t));
    }
    if (t->block_kv <= 0) t->block_kv = hr_ft_path_block_kv(p, m);
}

static size_t gqa_workspace(const hr_problem *p, const hr_tune *t)
{
    return (size_t)threads_of(t) *
           hr_ft_slab_bytes(hr_group(p) * t->block_q, t->block_kv, p->d_head);
}

static int gqa_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    const int bq = t->block_q, nqb = ceil_div(p->seq_q, bq), group = hr_group(p);
    const long nbg = (long)p->batch * p->kv_heads, items = nbg * nqb;
    const float qscale = hr_problem_scale(p) * 1.44269504088896341f;
    const size_t slab = hr_ft_slab_bytes(group * bq, t->block_kv, p->d_head);
    const int dot = hr_ft_dot_ok(p);
#pragma omp parallel num_threads(threads_of(t))
    {
        hr_ft_ws w;
        hr_ft_bind(&w, (char *)ws + (size_t)omp_get_thread_num() * slab, group * bq,
                   t->block_kv, p->d_head);
        hr_ft_set_path(&w, dot);
#pragma omp for schedule(dynamic, 1)
        for (long it = 0; it < items; it++) {
            /* Heaviest first, as in flash: the last query blocks see the most keys. */
            const int qb = nqb - 1 - (int)(it / nbg), b = (int)(it % nbg / p->kv_heads),
                      g = (int)(it % p->kv_heads);
            const int i0 = qb * bq, rows = p->seq_q - i0 < bq ? p->seq_q - i0 : bq;
            for (int hh = 0; hh < group; hh++) hr_ft_load_head(&w, hh * rows, p, a, b, g * group + hh, i0, rows, qscale);
            hr_ft_attend_head(&w, group * rows, p, a, b, g);
            for (int hh = 0; hh < group; hh++) hr_ft_store_head(&w, hh * rows, p, a, b, g * group + hh, i0, rows);
        }
    }
    return HR_OK;
}

const hr_kernel hr_kernel_gqa = {
    .name = "gqa",
    .summary = "flash with each GQA group's query heads stacked: one K/V tile pass per KV head",
    .caps = HR_CAP_CAUSAL | HR_CAP_GQA | HR_CAP_THREADED | HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV | HR_CAP_WINDOW |
            HR_CAP_SOFTCAP | HR_CAP_ALIBI | HR_CAP_PAGED,
    .traffic = HR_TRAFFIC_KV_PER_GROUP,
    .applicable = gqa_applicable,
    .resolve = gqa_resolve,
    .workspace_bytes = gqa_workspace,
    .run = gqa_run,
    .dtypes = HR_FT_TYPES,
    .kv_dtypes = HR_FT_TYPES,
    .path = hr_ft_path,
};

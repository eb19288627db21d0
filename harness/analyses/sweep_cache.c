/* sweep_cache.c — the memory of interleaved sweep points within a budget.
 *
 * The points of one shape (problem and layout) read one set of tensors, made when a
 * point of the shape first needs it and freed when the shape's last point is done; each
 * open point holds its workspace. Before a point opens or runs a repetition, the shapes'
 * tensors and points' workspaces used longest ago are given back (hr_bench_park) until
 * its own fit within the budget; a point given back takes memory again when its turn
 * comes (hr_bench_unpark), its shape's tensors regenerated from the seed, so with the
 * same values. One point alone always fits: expansion skipped larger ones. A sweep that
 * fits makes every shape's tensors once; one that does not pays for the regeneration
 * between repetitions, never inside a timed one. */
#include <stdlib.h>
#include <string.h>

#include "sweep_cache.h"

/* ---- least recently used first ------------------------------------------------------ */

static void lru_drop(hr_sweep_cache *m, int it)
{
    if (!m->in[it]) return;
    if (m->prev[it] >= 0) m->next[m->prev[it]] = m->next[it];
    else m->head = m->next[it];
    if (m->next[it] >= 0) m->prev[m->next[it]] = m->prev[it];
    else m->tail = m->prev[it];
    m->in[it] = false;
}

static void lru_touch(hr_sweep_cache *m, int it)
{
    lru_drop(m, it);
    m->prev[it] = m->tail, m->next[it] = -1;
    if (m->tail >= 0) m->next[m->tail] = it;
    else m->head = it;
    m->tail = it;
    m->in[it] = true;
}

/* ---- giving memory back and taking it ------------------------------------------------ */

static void park(hr_sweep_cache *m, int i)
{
    hr_sweep_slot *p = &m->sl[i];
    if (!p->open || p->parked) return;
    hr_bench_park(&p->ses);
    p->parked = true;
    m->used -= p->ws;
    lru_drop(m, m->nshape + i);
}

/* Gives back shape k's tensors, parking its slots first (they read the tensors). */
static void evict(hr_sweep_cache *m, int k)
{
    hr_sweep_shape *h = &m->sh[k];
    for (int j = 0; j < h->n; j++) park(m, m->by_shape[h->first + j]);
    lru_drop(m, k);
    if (!h->t.mem) return;
    hr_tensors_free(&h->t);
    m->used -= hr_tensors_bytes(&h->pt->prob);
}

/* Gives back what was used longest ago, never shape k or slot i, until need more bytes
 * fit (or nothing else is left). */
static void make_room(hr_sweep_cache *m, double need, int k, int i)
{
    while (m->used + need > m->budget) {
        int it = m->head;
        while (it >= 0 && (it == k || it == m->nshape + i)) it = m->next[it];
        if (it < 0) return;
        if (it < m->nshape) evict(m, it);
        else park(m, it - m->nshape);
    }
}

/* Slot i's shape's tensors resident and, for an open slot, its workspace; ws: the
 * workspace bytes of a slot about to open. */
static int resident(hr_sweep_cache *m, int i, double ws)
{
    hr_sweep_slot *p = &m->sl[i];
    hr_sweep_shape *h = &m->sh[p->shape];
    const double bytes = h->t.mem ? 0 : hr_tensors_bytes(&h->pt->prob);
    int st;
    make_room(m, bytes + (!p->open || p->parked ? ws : 0), p->shape, i);
    if (!h->t.mem) {
        if ((st = hr_tensors_alloc(&h->t, &h->pt->prob, h->pt->layout, m->dist, m->seed))) return st;
        m->used += bytes;
        m->regenerated += h->made;
        h->made = true;
    }
    lru_touch(m, p->shape);
    if (p->open && p->parked) {
        if ((st = hr_bench_unpark(&p->ses, &h->t))) return st;
        p->parked = false;
        m->used += p->ws;
    }
    if (p->open) lru_touch(m, m->nshape + i);
    return HR_OK;
}

/* ---- slots ------------------------------------------------------------------------------ */

int hr_sweep_cache_open(hr_sweep_cache *m, int i)
{
    hr_sweep_slot *p = &m->sl[i];
    const hr_sweep_point *pt = p->pt;
    const hr_tune t = hr_kernel_tune(pt->kernel, &pt->prob, &pt->tune);
    int st = resident(m, i, (double)hr_kernel_workspace(pt->kernel, &pt->prob, &t));
    if (!st) st = hr_bench_open(pt->kernel, &p->spec, &m->sh[p->shape].t, &p->ses, &p->res);
    if (st) {
        hr_sweep_cache_retire(m, i);
        return st;
    }
    p->open = true;
    p->ws = p->res.workspace_bytes;
    m->used += p->ws;
    lru_touch(m, m->nshape + i);
    return HR_OK;
}

int hr_sweep_cache_ready(hr_sweep_cache *m, int i) { return resident(m, i, m->sl[i].ws); }

void hr_sweep_cache_retire(hr_sweep_cache *m, int i)
{
    hr_sweep_slot *p = &m->sl[i];
    hr_sweep_shape *h = &m->sh[p->shape];
    if (p->open && !p->parked) m->used -= p->ws;
    if (p->open) hr_bench_abandon(&p->ses);
    p->open = false;
    lru_drop(m, m->nshape + i);
    if (--h->left == 0) evict(m, p->shape);
}

int hr_sweep_cache_close(hr_sweep_cache *m, int i, int reps)
{
    hr_sweep_slot *p = &m->sl[i];
    const int st = hr_bench_close(&p->ses, reps); /* frees the workspace */
    m->used -= p->ws;
    p->open = false;
    hr_sweep_cache_retire(m, i);
    return st;
}

/* ---- the cache --------------------------------------------------------------------------- */

/* Compares two points' shapes: problem (element types included: the tensors hold the
 * dequantized values), then layout. The variants are left out: points that differ only in
 * window, soft cap or ALiBi read the same inputs. */
static int shape_cmp(const hr_sweep_point *u, const hr_sweep_point *v)
{
    const hr_problem *x = &u->prob, *y = &v->prob;
    const double d[] = {x->batch - y->batch, x->heads - y->heads, x->kv_heads - y->kv_heads,
                        x->seq_q - y->seq_q, x->seq_kv - y->seq_kv, x->d_head - y->d_head,
                        x->causal - y->causal, (double)x->scale - y->scale, (double)u->layout - v->layout,
                        (double)x->dtype - y->dtype, (double)x->kv_dtype - y->kv_dtype};
    for (size_t j = 0; j < sizeof d / sizeof d[0]; j++)
        if (d[j]) return d[j] < 0 ? -1 : 1;
    return 0;
}

typedef struct {
    const hr_sweep_point *pt;
    int i; /* its slot */
} member;

/* By shape, then by slot. */
static int by_shape(const void *a, const void *b)
{
    const member *x = a, *y = b;
    const int c = shape_cmp(x->pt, y->pt);
    return c ? c : x->i - y->i;
}

int hr_sweep_cache_init(hr_sweep_cache *m, hr_sweep_point *pts, const int *idx, int n, double budget,
                        hr_dist dist, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->n = n, m->budget = budget, m->dist = dist, m->seed = seed;
    m->head = m->tail = -1;
    m->sl = calloc((size_t)n + 1, sizeof *m->sl);
    m->sh = calloc((size_t)n + 1, sizeof *m->sh);
    m->by_shape = calloc((size_t)n + 1, sizeof *m->by_shape);
    m->prev = calloc(2 * (size_t)n + 1, sizeof *m->prev);
    m->next = calloc(2 * (size_t)n + 1, sizeof *m->next);
    m->in = calloc(2 * (size_t)n + 1, sizeof *m->in);
    member *mb = calloc((size_t)n + 1, sizeof *mb);
    if (!m->sl || !m->sh || !m->by_shape || !m->prev || !m->next || !m->in || !mb) {
        free(mb);
        return hr_fail("out of memory");
    }
    for (int i = 0; i < n; i++) {
        m->sl[i].pt = &pts[idx[i]], m->sl[i].seq = idx[i];
        mb[i] = (member){&pts[idx[i]], i};
    }
    qsort(mb, (size_t)n, sizeof *mb, by_shape);
    for (int j = 0; j < n; j++) {
        if (!j || shape_cmp(mb[j - 1].pt, mb[j].pt)) m->sh[m->nshape++] = (hr_sweep_shape){.pt = mb[j].pt, .first = j};
        hr_sweep_shape *h = &m->sh[m->nshape - 1];
        h->n++, h->left++;
        m->sl[mb[j].i].shape = m->nshape - 1;
        m->by_shape[j] = mb[j].i;
    }
    free(mb);
    return HR_OK;
}

void hr_sweep_cache_free(hr_sweep_cache *m)
{
    for (int i = 0; m->sl && i < m->n; i++)
        if (m->sl[i].open) hr_bench_abandon(&m->sl[i].ses);
    for (int k = 0; m->sh && k < m->nshape; k++) hr_tensors_free(&m->sh[k].t);
    free(m->sl);
    free(m->sh);
    free(m->by_shape);
    free(m->prev);
    free(m->next);
    free(m->in);
    memset(m, 0, sizeof *m);
}

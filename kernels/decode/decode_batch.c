/* decode_batch.c — decode's ragged batch: every sequence's KV heads end to end, cut into
 * equal-cost ranges over one parallel region, pieces merged by log-sum-exp (decode.c's
 * pieces, decode_run.h; the interface decode_batch.h). */
#include <omp.h>

#include "decode_batch.h"
#include "decode_run.h"

/* The batch's workspace: a context per sequence, the key and cost offsets of each
 * sequence's heads laid end to end (koff, coff: n + 1 each), the threads' range starts
 * (cut: threads + 1), then every thread's workspace at the largest sequence's size. */
typedef struct {
    dctx *c;
    long long *koff, *coff, *cut;
    float *thr;
    int n, H;
    size_t qf, sf, slot_f, thread_f; /* the largest sequence's (batch_layout) */
} dbatch;

static size_t up64(size_t b) { return (b + 63) / 64 * 64; }

/* Every sequence's thread workspace takes the same parts at the largest sequence's
 * sizes (qf, sf, slot_f), so one thread's pieces of different sequences never overlap
 * and a merging thread finds another's slot where that thread put it. */
static size_t batch_layout(const hr_decode_seq *s, int n, int threads, void *ws, dbatch *x)
{
    size_t qf = 0, sf = 0, slf = 0;
    for (int i = 0; i < n; i++) {
        dctx c;
        hr_dec_ctx_init(&c, s[i].p, s[i].t, NULL);
        qf = c.qf > qf ? c.qf : qf;
        sf = c.sf > sf ? c.sf : sf;
        slf = c.slot_f > slf ? c.slot_f : slf;
    }
    const size_t H = n ? (size_t)s[0].p->kv_heads : 1, tf = H * qf + sf + 3 * H * slf;
    const size_t oc = up64((size_t)n * sizeof(dctx)), ok = oc + up64((size_t)(n + 1) * sizeof(long long));
    const size_t ocost = ok + up64((size_t)(n + 1) * sizeof(long long));
    const size_t ocut = ocost + up64((size_t)(threads + 1) * sizeof(long long));
    if (x) {
        char *w = ws;
        *x = (dbatch){(dctx *)w, (long long *)(w + oc), (long long *)(w + ok), (long long *)(w + ocost),
                      (float *)(w + ocut), n, (int)H, qf, sf, slf, tf};
    }
    return ocut + tf * sizeof(float) * (size_t)threads;
}

size_t hr_decode_batch_workspace_lv(const hr_decode_seq *s, int n, int threads)
{
    return batch_layout(s, n, threads > 0 ? threads : 1, NULL, NULL);
}

/* The last sequence whose first key (off = koff or coff) is at or before pos. */
static int batch_seq(const long long *off, int n, long long pos)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const int m = (lo + hi + 1) / 2;
        if (off[m] <= pos) lo = m;
        else hi = m - 1;
    }
    return lo;
}

/* Where thread u of T starts: the key of the batch at cost C u / T, within its sequence
 * at key (cost / rows), moved down to a tile's first key of its head where the cache is
 * in tiles; in order, as every cut lies in its sequence's span. */
static long long batch_cut(const dbatch *x, int u, int T)
{
    const long long C = x->coff[x->n];
    if (u >= T) return x->koff[x->n];
    const long long cost = C / T * u + C % T * u / T;
    const int i = batch_seq(x->coff, x->n, cost);
    const dctx *c = &x->c[i];
    const long long N = c->p->seq_kv, k = (cost - x->coff[i]) / c->p->seq_q, j = k % N;
    return x->koff[i] + k - (c->k.tile ? j % c->k.tile : 0);
}

int hr_decode_batch_lv(const hr_decode_seq *s, int n, int threads, void *ws)
{
    if (n < 1) return HR_OK;
    dbatch x;
    const int maxthreads = threads > 0 ? threads : 1;
    batch_layout(s, n, maxthreads, ws, &x);
    x.koff[0] = x.coff[0] = 0;
    for (int i = 0; i < n; i++) {
        dctx *c = &x.c[i];
        hr_dec_ctx_init(c, s[i].p, s[i].t, s[i].a);
        c->qf = x.qf;
        c->sf = x.sf;
        c->slot_f = x.slot_f;
        c->thread_f = x.thread_f;
        c->hs = 1; /* one head at a time: the pieces are (sequence, KV head, key range) */
        if ((c->k.tile || c->v.tile) && !(c->k.tile == HR_KV_TILE && c->v.tile == HR_KV_TILE && c->i8 == 2 &&
                                          (c->kb % HR_KV_TILE == 0 || c->kb == c->p->seq_kv)))
            return hr_fail("decode: sequence %d's K/V in %d-key tiles, but its path reads rows", i + 1, HR_KV_TILE);
        const long long keys = (long long)x.H * c->p->seq_kv;
        x.koff[i + 1] = x.koff[i] + keys;
        x.coff[i + 1] = x.coff[i] + keys * c->p->seq_q;
    }
#pragma omp parallel num_threads(maxthreads)
    {
        const int T = omp_get_num_threads(), tid = omp_get_thread_num();
        x.cut[tid] = batch_cut(&x, tid, T);
        if (tid == 0) x.cut[T] = batch_cut(&x, T, T);
#pragma omp barrier
        const long long lo = x.cut[tid], hi = x.cut[tid + 1];
        int i = batch_seq(x.koff, n, lo), first = 1;
        const dcuts cuts = {NULL, 0, T, x.cut};
        /* Pieces of this range, head by head of sequence after sequence; a whole head is
         * written at once, the first piece goes to slot 0 and the last to slot 1. */
        for (long long s0 = 0; lo < hi && i < n; i++) {
            const dctx *c = &x.c[i];
            const long long N = c->p->seq_kv;
            for (int g = (int)((lo > x.koff[i] ? lo - x.koff[i] : 0) / N); g < x.H; g++, first = 0) {
                s0 = x.koff[i] + g * N;
                if (s0 >= hi) break;
                const int j0 = (int)(lo > s0 ? lo - s0 : 0), j1 = (int)(hi < s0 + N ? hi - s0 : N);
                const bool full = j0 == 0 && j1 == N;
                const dstate st = hr_dec_thread_slot(c, x.thr, tid, full ? -1 : first ? 0 : 1, 0);
                hr_dec_attend(c, 0, g, j0, j1, hr_dec_thread_q(c, x.thr, tid, 0), hr_dec_thread_s(c, x.thr, tid), st);
                if (full) hr_dec_write_rows(c, 0, g, &st);
            }
            if (s0 >= hi) break;
        }
#pragma omp barrier
        /* Merge: the thread holding the first key of a head that runs past its range. */
        if (lo < hi) {
            const int im = batch_seq(x.koff, n, hi - 1);
            const dctx *c = &x.c[im];
            const long long N = c->p->seq_kv, g = (hi - 1 - x.koff[im]) / N, s0 = x.koff[im] + g * N;
            if (s0 >= lo && s0 + N > hi) {
                int uend = tid + 1;
                while (uend < T && x.cut[uend] < s0 + N) uend++;
                hr_dec_merge_rows(c, x.thr, 0, (int)g, 0, hr_dec_thread_slot(c, x.thr, tid, s0 == lo ? 0 : 1, 0),
                           tid + 1, uend, &cuts);
            }
        }
    }
    return HR_OK;
}


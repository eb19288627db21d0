/* blocked.c — cache-blocked scalar attention: block_q query rows x block_kv key tiles, 1 thread.
 *
 * The same three phases as naive (scores, row softmax, P·V) reordered for the caches:
 * a tile of block_q query rows is processed at a time, so only a block_q x Nkv block of
 * scores is materialized (in L2 by default) instead of a head's Nq x Nkv; within it the
 * keys go in tiles of block_kv rows, small enough that the K (then V) tile stays in L1
 * while every query row of the tile reuses it. The dot products run four keys at a time
 * (four independent accumulators), which hides the add latency a single sum is bound
 * by; each key's sum is still taken in the order c = 0..d-1, as in naive.
 *
 * Defaults: block_kv = L1d / (8 d) (a K or V tile takes half of L1d), block_q such that the
 * score block, the output accumulator and the Q tile take half of L2; the cache sizes
 * are resolve's hr_machine (32 KiB and 1 MiB when unknown).
 * Plain C with no vector code of its own: the compiler may vectorize the P·V row update
 * (no reduction is reordered). */
#include <math.h>

#include "headroom.h"

#define BLK_MAX_Q 256
#define BLK_MAX_KV 1024

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static void blocked_resolve(const hr_problem *p, const hr_machine *m, hr_tune *t)
{
    size_t l1 = m->l1d ? m->l1d : 32768, l2 = m->l2 ? m->l2 : 1u << 20;
    if (t->block_kv <= 0) {
        size_t kv = l1 / (8 * (size_t)p->d_head) / 8 * 8;
        t->block_kv = kv < 8 ? 8 : kv > BLK_MAX_KV ? BLK_MAX_KV : (int)kv;
    }
    if (t->block_q <= 0) {
        size_t q = l2 / 2 / (sizeof(float) * ((size_t)p->seq_kv + 2 * (size_t)p->d_head));
        t->block_q = q < 1 ? 1 : q > BLK_MAX_Q ? BLK_MAX_Q : (int)q;
    }
}

/* The workspace: scores [bq][lds], output accumulator [bq][d], row sums [bq], each slice
 * a multiple of 64 bytes, with bq = min(block_q, Nq). */
typedef struct {
    int bq;
    size_t lds, s_len, acc_len, l_len;
} blk_layout;

static blk_layout blocked_layout(const hr_problem *p, const hr_tune *t)
{
    blk_layout L;
    L.bq = t->block_q < p->seq_q ? t->block_q : p->seq_q;
    L.lds = round_up((size_t)p->seq_kv, 16);
    L.s_len = (size_t)L.bq * L.lds;
    L.acc_len = round_up((size_t)L.bq * (size_t)p->d_head, 16);
    L.l_len = round_up((size_t)L.bq, 16);
    return L;
}

static size_t blocked_workspace(const hr_problem *p, const hr_tune *t)
{
    blk_layout L = blocked_layout(p, t);
    return (L.s_len + L.acc_len + L.l_len) * sizeof(float);
}

/* S[r][j0, j1) = scale · <q_i, k_j> for the keys of the tile row i sees. */
static void tile_scores(const hr_problem *p, const hr_args *a, int b, int h, int g, int i0,
                        int i1, int j0, int j1, float scale, float *S, size_t lds)
{
    const int d = p->d_head;
    for (int i = i0; i < i1; i++) {
        const float *restrict q = hr_crow(a->q, b, h, i);
        float *restrict s = S + (size_t)(i - i0) * lds;
        const int e = hr_causal_end(p, i) < j1 ? hr_causal_end(p, i) : j1;
        int j = j0;
        for (; j + 4 <= e; j += 4) {
            const float *k0 = hr_crow(a->k, b, g, j), *k1 = hr_crow(a->k, b, g, j + 1);
            const float *k2 = hr_crow(a->k, b, g, j + 2), *k3 = hr_crow(a->k, b, g, j + 3);
            float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (int c = 0; c < d; c++) {
                s0 += q[c] * k0[c];
                s1 += q[c] * k1[c];
                s2 += q[c] * k2[c];
                s3 += q[c] * k3[c];
            }
            s[j] = s0 * scale, s[j + 1] = s1 * scale, s[j + 2] = s2 * scale;
            s[j + 3] = s3 * scale;
        }
        for (; j < e; j++) {
            const float *k0 = hr_crow(a->k, b, g, j);
            float s0 = 0;
            for (int c = 0; c < d; c++) s0 += q[c] * k0[c];
            s[j] = s0 * scale;
        }
    }
}

static int blocked_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    const int Nq = p->seq_q, d = p->d_head, group = hr_group(p), bkv = t->block_kv;
    const float scale = hr_problem_scale(p);
    const blk_layout L = blocked_layout(p, t);
    float *S = ws, *acc = S + L.s_len, *lsum = acc + L.acc_len;

    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++) {
            const int g = h / group;
            for (int i0 = 0; i0 < Nq; i0 += L.bq) {
                const int i1 = i0 + L.bq < Nq ? i0 + L.bq : Nq;
                /* Keys [0, emax) are visible to some row of the tile (ends grow with i). */
                const int emax = hr_causal_end(p, i1 - 1);
                for (int j0 = 0; j0 < emax; j0 += bkv) {
                    const int j1 = j0 + bkv < emax ? j0 + bkv : emax;
                    tile_scores(p, a, b, h, g, i0, i1, j0, j1, scale, S, L.lds);
                }
                /* Row softmax numerators exp(s - max) in place; lsum = their sum. */
                for (int i = i0; i < i1; i++) {
                    float *s = S + (size_t)(i - i0) * L.lds, m = -INFINITY, sum = 0;
                    const int e = hr_causal_end(p, i);
                    for (int j = 0; j < e; j++) m = s[j] > m ? s[j] : m;
                    for (int j = 0; j < e; j++) {
                        s[j] = expf(s[j] - m);
                        sum += s[j];
                    }
                    lsum[i - i0] = sum;
                }
                /* acc = P·V, the V tile reused by every row of the query tile. */
                for (size_t x = 0; x < (size_t)(i1 - i0) * (size_t)d; x++) acc[x] = 0;
                for (int j0 = 0; j0 < emax; j0 += bkv) {
                    const int j1 = j0 + bkv < emax ? j0 + bkv : emax;
                    for (int i = i0; i < i1; i++) {
                        const float *s = S + (size_t)(i - i0) * L.lds;
                        float *restrict o = acc + (size_t)(i - i0) * d;
                        const int e = hr_causal_end(p, i) < j1 ? hr_causal_end(p, i) : j1;
                        for (int j = j0; j < e; j++) {
                            const float *restrict v = hr_crow(a->v, b, g, j);
                            const float pj = s[j];
                            for (int c = 0; c < d; c++) o[c] += pj * v[c];
                        }
                    }
                }
                /* O = acc / sum; a row that sees no key (sum 0) is all zeros. */
                for (int i = i0; i < i1; i++) {
                    float *o = hr_row(a->o, b, h, i);
                    const float *src = acc + (size_t)(i - i0) * d, sum = lsum[i - i0];
                    const float inv = sum > 0 ? 1.0f / sum : 0.0f;
                    for (int c = 0; c < d; c++) o[c] = sum > 0 ? src[c] * inv : 0.0f;
                }
            }
        }
    return HR_OK;
}

const hr_kernel hr_kernel_blocked = {
    .name = "blocked",
    .summary = "cache-blocked scalar C: block_q x Nkv score block, block_kv key tiles; 1 thread",
    .caps = HR_CAP_CAUSAL | HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV,
    .traffic = HR_TRAFFIC_KV_PER_HEAD,
    .resolve = blocked_resolve,
    .workspace_bytes = blocked_workspace,
    .run = blocked_run,
};

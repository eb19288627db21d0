/* naive.c — textbook attention: materialize one head's Nq x Nkv scores, softmax, P·V.
 *
 * The reference kernel: straightforward loops in the order one writes the math, single
 * threaded. Its working memory is the whole score matrix of a head, which is what
 * makes it the memory story of the suite (Nq·Nkv·4 bytes; 1 GiB at N = 16384). */
#include <math.h>

#include "headroom.h"
#include "ref_softmax.h"

static size_t naive_workspace(const hr_problem *p, const hr_tune *t)
{
    (void)t;
    return (size_t)p->seq_q * (size_t)p->seq_kv * sizeof(float);
}

static int naive_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    (void)t;
    const int Nq = p->seq_q, Nk = p->seq_kv, d = p->d_head, group = hr_group(p);
    const float scale = hr_problem_scale(p);
    float *S = ws;
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++) {
            const int g = h / group;
            const float slope = hr_alibi_slope(p, h);
            /* S = scale · Q Kᵀ over the visible keys [begin, end) of each row, then the
             * variants' soft cap and bias. */
            for (int i = 0; i < Nq; i++) {
                const float *q = hr_crow(a->q, b, h, i);
                const int end = hr_causal_end(p, i);
                float *s = S + (size_t)i * Nk;
                for (int j = hr_window_begin(p, i); j < end; j++) {
                    const float *k = hr_crow(a->k, b, g, j);
                    float acc = 0;
                    for (int c = 0; c < d; c++) acc += q[c] * k[c];
                    s[j] = hr_score_variants(p, slope, i, j, acc * scale);
                }
            }
            /* Row softmax, max-subtracted so large logits cannot overflow. */
            for (int i = 0; i < Nq; i++) {
                const int end = hr_causal_end(p, i), beg = hr_window_begin(p, i);
                float *s = S + (size_t)i * Nk;
                const float sum = hr_ref_exp_row(s + beg, end - beg);
                for (int j = beg; j < end; j++) s[j] /= sum;
            }
            /* O = P · V; a row with no visible key stays zero. */
            for (int i = 0; i < Nq; i++) {
                const int end = hr_causal_end(p, i);
                const float *s = S + (size_t)i * Nk;
                float *o = hr_row(a->o, b, h, i);
                for (int c = 0; c < d; c++) o[c] = 0;
                for (int j = hr_window_begin(p, i); j < end; j++) {
                    const float *v = hr_crow(a->v, b, g, j);
                    for (int c = 0; c < d; c++) o[c] += s[j] * v[c];
                }
            }
        }
    return HR_OK;
}

const hr_kernel hr_kernel_naive = {
    .name = "naive",
    .summary = "textbook loops; materializes each head's Nq x Nkv scores; 1 thread",
    .caps = HR_CAP_CAUSAL | HR_CAP_WINDOW | HR_CAP_SOFTCAP | HR_CAP_ALIBI,
    .traffic = HR_TRAFFIC_SCORES,
    .workspace_bytes = naive_workspace,
    .run = naive_run,
};

/* decode_run.h — decode.c's and decode_walk.c's pieces of one call, shared with the ragged batch (decode_batch.c):
 * the context, the threads' workspace parts, a key range through the block steps, the
 * rows written from one piece or merged by log-sum-exp from several. */
#ifndef HR_DECODE_RUN_H
#define HR_DECODE_RUN_H

#include "decode_block.h"

/* Where each thread's range starts: decode_run's even split of S units over T threads
 * (range_lo), or the cuts of a ragged batch (cut[0..T], hr_decode_batch_lv). */
typedef struct {
    const dctx *c;
    long long S;
    int T;
    const long long *cut;
} dcuts;

/* c for p, t (a: the operands; NULL sizes the parts only). */
void hr_dec_ctx_init(dctx *c, const hr_problem *p, const hr_tune *t, const hr_args *a);
/* Thread u's scores block, its query rows of KV head g, and its state slot k (0, 1: the
 * first and last piece; -1: the whole-piece state) of group slot g. */
float *hr_dec_thread_s(const dctx *c, void *ws, int u);
float *hr_dec_thread_q(const dctx *c, void *ws, int u, int g);
dstate hr_dec_thread_slot(const dctx *c, void *ws, int u, int k, int g);
/* decode_walk.c. Keys [j0, j1) of (b, KV head g) into st, q the group's rows (loaded
 * here), s scratch. */
void hr_dec_attend(const dctx *c, int b, int g, int j0, int j1, float *q, float *s, dstate st);
/* Whether c's cache is walked every KV head in turn (BNHD rows of heads side by side, or a
 * paged pool whose pages hold every head's rows back to back); the caller also bounds Hkv. */
int hr_dec_heads_walk(const dctx *c);
/* Keys [j0, j1) of batch b for every KV head (c->hs of them) into st[g], q[g] the heads'
 * rows (loaded here): the paged or the BNHD walk, by c's cache. */
void hr_dec_attend_heads(const dctx *c, int b, int j0, int j1, float *const *q, float *s, const dstate *st);
/* The group's O rows from a state that saw all its keys. */
void hr_dec_write_rows(const dctx *c, int b, int g, const dstate *st);
/* The group's O rows from the merge of `mine` and slot (0, gs) of threads [u0, u1). */
void hr_dec_merge_rows(const dctx *c, void *ws, int b, int g, int gs, dstate mine, int u0, int u1,
                       const dcuts *x);

#endif

/* decode_batch.h — decode's ragged batch: many sequences, each with its own cache, in one
 * parallel region whose threads split the batch's work by cost (decode.c). */
#ifndef HR_DECODE_BATCH_H
#define HR_DECODE_BATCH_H

#include "headroom.h"

/* One sequence of a ragged batch: its problem (batch 1; heads, KV heads, d and types the
 * same for every sequence of a batch), its tunables (resolved for the decode kernel,
 * hr_kernel_tune) and its operands (tiled where the decode kernel asks). */
typedef struct {
    const hr_problem *p;
    const hr_tune *t;
    const hr_args *a;
} hr_decode_seq;

/* Bytes of workspace hr_decode_batch_lv needs for s[0..n) at `threads` threads. */
size_t hr_decode_batch_workspace_lv(const hr_decode_seq *s, int n, int threads);
/* Computes the O of every sequence of s[0..n) in one parallel region of `threads`
 * threads. The work is every sequence's KV heads laid end to end, each head's keys
 * costing the sequence's query rows apiece (keys x rows x heads); thread t takes the
 * t-th of T equal-cost ranges of it, cut at any key (at a tile's first where the cache is
 * in tiles), so a short sequence shares a thread with others and a long one spreads over
 * several. Pieces of a head cut by a range are merged by log-sum-exp after one barrier,
 * as decode's own splits are. ws has hr_decode_batch_workspace_lv bytes, 64-byte
 * aligned. Returns HR_OK, or HR_EUSAGE with a message where a sequence's tiles do not fit
 * its path (decode's own rule). */
int hr_decode_batch_lv(const hr_decode_seq *s, int n, int threads, void *ws);

#endif

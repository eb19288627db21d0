/* ragged.h — a ragged decode batch: B sequences, each with its own cache length and query
 * rows, given as lists or drawn from a seeded distribution, run fused (one cost-balanced
 * call, decode_batch.h) or one after another in cost order, and each sequence checked
 * against the oracle. */
#ifndef HR_RAGGED_H
#define HR_RAGGED_H

#include <stdint.h>

#include "check.h"
#include "decode_batch.h"

#define HR_RAGGED_MAX 4096

typedef struct {
    int n;                     /* sequences in the batch                      */
    int len[HR_RAGGED_MAX];    /* cache length (keys) of each sequence        */
    int rows[HR_RAGGED_MAX];   /* query rows (1; 2-8 for speculative decoding) */
} hr_ragged;

/* Distributions of cache lengths in [lo, hi]: uniform; zipf (P(L) proportional to 1/L,
 * drawn by the inverse of its continuous CDF, L = lo·(hi/lo)^u: many short caches, few
 * long ones); chat (the context of real chat conversations: a lognormal, ragged.c says
 * where its numbers come from), clamped to [lo, hi]. */
typedef enum { HR_RAGGED_UNIFORM, HR_RAGGED_ZIPF, HR_RAGGED_CHAT } hr_ragged_dist;
extern const char *const hr_ragged_dist_names[]; /* "uniform", "zipf", "chat", NULL */
/* How a batch runs: fused, one call of decode's batch entry whose threads split the
 * batch's work by cost; serial, sequence after sequence in cost order, each with every
 * thread (decode's own split of its cache). */
typedef enum { HR_RAGGED_FUSED, HR_RAGGED_SERIAL } hr_ragged_schedule;
extern const char *const hr_ragged_schedule_names[]; /* "fused", "serial", NULL */

/* Fills r from comma lists of B entries ("1024,32768"); rows NULL or "" gives 1 a
 * sequence, one entry applies to all. Returns 0, or -1 with err naming the flag and the
 * rule ("--lens: entry 2 (\"0\") is not a positive integer"). */
int hr_ragged_parse(hr_ragged *r, int batch, const char *lens, const char *rows, char *err, size_t len);
/* Parses "uniform", "zipf" or "chat"; -1 for any other name. */
int hr_ragged_dist_of(const char *name);
/* One cache length drawn from dist in [lo, hi] (1 <= lo <= hi). */
int hr_ragged_len(hr_rng *g, hr_ragged_dist dist, int lo, int hi);
/* One output length (tokens a chat reply generates) in [lo, hi]: the lognormal of chat
 * replies (ragged.c). */
int hr_ragged_out_len(hr_rng *g, int lo, int hi);
/* Fills r with B lengths drawn from dist in [lo, hi] and rows drawn uniformly in
 * [1, rows_max], deterministic by seed. Returns 0, or -1 with err naming the rule
 * (--batch in 1..HR_RAGGED_MAX, --len-min 1 <= lo <= hi, --rows-max 1..8). */
int hr_ragged_draw(hr_ragged *r, int batch, hr_ragged_dist dist, int lo, int hi, int rows_max,
                   uint64_t seed, char *err, size_t len);
/* Sequence i's problem: batch 1, rows query rows, causal (bottom-right within the
 * sequence), the heads, d and types of `base`. */
hr_problem hr_ragged_problem(const hr_ragged *r, int i, const hr_problem *base);
/* The sequences' indices in order of cost (keys × rows), largest first, ties by index:
 * the work list a thread pool takes from. */
void hr_ragged_order(const hr_ragged *r, int *order);
/* Checks kernel k on every sequence of r (shapes from base, tunables t) against the
 * oracle, run as sched runs them (fused: one batch call, then every sequence's O);
 * returns the worst verdict, -1 if k refuses a sequence (or fused is asked of a kernel
 * other than decode), HR_CHECK_ERROR on a failed run; *bad gets the first sequence that
 * failed (or -1). */
int hr_ragged_check(const hr_kernel *k, const hr_ragged *r, const hr_problem *base, const hr_tune *t,
                    uint64_t seed, hr_ragged_schedule sched, int *bad);
/* NULL when sched can run kernel k, else why not (fused runs only decode). */
const char *hr_ragged_why_not(const hr_kernel *k, hr_ragged_schedule sched);
/* One fused call of the running ISA level's decode batch (decode_batch.h) and its
 * workspace bytes. */
size_t hr_ragged_fused_workspace(const hr_decode_seq *s, int n, int threads);
int hr_ragged_fused(const hr_decode_seq *s, int n, int threads, void *ws);

/* A timed ragged batch: seconds for the whole batch (median of reps, stats.c), each
 * sequence's seconds (serial: the median of its reps; fused: 0, the sequences share the
 * call), and the bytes every kernel must read (counts.c's hr_min_bytes summed over the
 * sequences). */
typedef struct {
    double seconds;
    double bytes;
    double seq_seconds[HR_RAGGED_MAX];
} hr_ragged_time;
/* Times kernel k over r as sched runs it (fused: one call per repetition; serial:
 * sequences in cost order, each with all of t's threads). Inputs and workspaces are
 * allocated before timing. Returns 0, or HR_EUSAGE with a message naming the flag. */
int hr_ragged_run(const hr_kernel *k, const hr_ragged *r, const hr_problem *base, const hr_tune *t,
                  int reps, hr_ragged_schedule sched, hr_ragged_time *out);
#endif

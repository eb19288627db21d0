/* tune.h — searching a kernel's tunables for one shape: oracle-checked, noise-robust. */
#ifndef HR_TUNE_H
#define HR_TUNE_H

#include <stdio.h>

#include "inputs.h"
#include "oracle.h"

typedef enum { HR_TUNE_COORD = 0, HR_TUNE_BANDIT = 1 } hr_tune_strategy;
extern const char *const hr_tune_strategy_names[]; /* "coord", "bandit", NULL */

typedef struct {
    hr_problem prob;
    hr_layout layout;
    hr_dist dist;
    uint64_t seed;
    hr_tune fixed;        /* nonzero fields are held at that value, not searched       */
    double budget;        /* seconds for everything, final comparison included (> 0)   */
    hr_tune_strategy strategy;
    int rounds;           /* interleaved rounds per comparison (odd, >= 3)             */
    double margin;        /* a candidate wins only when faster by more than this (0.03) */
    double min_time;      /* seconds per timed sample (calls are repeated up to it)    */
    double max_mem;       /* bytes (0: half of RAM)                                    */
    FILE *log;            /* one line per step (NULL: silent)                          */
} hr_tune_spec;

#define HR_TUNE_MAX_CANDS 512

/* One evaluated configuration. */
typedef struct {
    hr_tune tune;        /* resolved                                                    */
    int verdict;         /* HR_CHECK_* of its oracle check; -1: not checked (budget)    */
    double max_rel_err;
    int timed;           /* compared against the best so far (coord) / ranked (bandit)  */
    double ratio;        /* coord: median t(best)/t(this) over the rounds (>1: faster)  */
    int wins, rounds;    /* rounds in which it was faster by more than the margin       */
    bool adopted;        /* became the best                                            */
    bool skipped_mem;    /* over the memory budget: neither checked nor timed          */
} hr_tune_cand;

typedef struct {
    hr_tune def, best;          /* resolved defaults and the winner                    */
    int final_rounds;
    double def_gflops, best_gflops; /* median GFLOP/s of each in the final interleaved run */
    double speedup;             /* median over final rounds of t(default) / t(best)     */
    int nchecked, nrejected, ntimed, passes;
    bool budget_spent;          /* the search stopped on the budget, not convergence   */
    double elapsed;             /* seconds                                              */
    int ncands;
    hr_tune_cand cands[HR_TUNE_MAX_CANDS]; /* in the order they were evaluated          */
} hr_tune_result;

/* The values the search tries for each tunable of k on p: block sizes are powers of two
 * and 3·2^k multiples of the vector width in [8, 512], no larger than the next power of
 * two of the dimension they block, plus the kernel's default; threads 1..CPUs (powers
 * of two and CPUs beyond 8). Returns the count written to v (at most max). */
int hr_tune_values(const hr_kernel *k, const hr_problem *p, unsigned cap, int def, int *v, int max);

/* Searches k's declared, unfixed tunables for s->prob. Every candidate is run once and
 * compared with the fp64 oracle (rows sampled on large shapes) before it is timed; a
 * candidate whose verdict is worse than the defaults' is rejected and never chosen.
 * Candidates are compared with the best so far by interleaved timings (ABBA order,
 * s->rounds rounds) and win only when faster by more than s->margin in the median of
 * the per-round ratios and in a majority of rounds. Finally defaults and winner are
 * timed interleaved once more for the reported speed-up. Returns HR_OK; HR_EFAIL when
 * the defaults themselves fail the oracle; HR_EUSAGE for an invalid or inapplicable
 * shape, no tunables, or memory (message in hr_errmsg). */
int hr_tune_run(const hr_kernel *k, const hr_tune_spec *s, hr_tune_result *out);

/* "bq=64 bkv=128 T2" with only the fields k reads. */
void hr_tune_str(const hr_kernel *k, const hr_tune *t, char *buf, size_t len);

#endif

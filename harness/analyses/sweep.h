/* sweep.h — runs a sweep: a config's cartesian product (sweep_points.h) measured into a results directory (sweep_store.h). */
#ifndef HR_SWEEP_H
#define HR_SWEEP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"
#include "config.h"
#include "results.h"
#include "sweep_points.h"
#include "sweep_shard.h"

typedef struct {
    const char *out_dir;    /* NULL: results/<machine>/<stamp>-<config>            */
    const char *resume_dir; /* reuse this directory, skipping measured points       */
    const char *filter;     /* comma list of kernels (NULL: all of the config's)    */
    int reps;               /* > 0: overrides the config                            */
    double min_time;        /* >= 0: overrides the config (< 0: keep)               */
    double max_mem;         /* > 0: overrides the config                            */
    bool check, dry_run;
    bool aggregates_only;   /* results.json holds aggregate rows only               */
    int probe_flag;         /* 0: the config's probe; 1: --probe (auto); 2: --no-probe */
    bool phase_filter;      /* --phase-filter (or the config's phase_filter)          */
    int interleave_flag;    /* 0: the config's; 1: --interleave; 2: --no-interleave   */
    bool progress_tty;      /* draw a progress bar (stderr is a terminal)           */
    hr_shard shard;         /* n > 0: measure only shard k of n (sweep_shard.h); with
                             * resume_dir, n == 0 takes the directory's shard.json    */
    bool quiet;             /* warnings only into results.json's context, not stderr */
    bool in_process;        /* measure in this process, not in a worker (--in-process) */
    double timeout;         /* > 0: seconds a step of a point may take in its worker;
                             * 0: hr_sweep_point_limit's default                      */
    bool retry_failed;      /* with resume_dir: measure the points failed in their
                             * worker again                                           */
    FILE *table;            /* gets the shape x kernel table at the end (NULL: none) */
    volatile sig_atomic_t *stop; /* set by a signal handler: finish up and return 130 */
    char dir[1024];         /* out: the results directory used                      */
} hr_sweep_opts;

/* Runs the sweep; at the end summary.md and index.html (summary.h) go into the results
 * directory and the shape x kernel table to o->table. Returns 0; 1 when a point failed its oracle check; 2 on bad input
 * (message in hr_errmsg); 4 (HR_EWORKER) when a point failed in its worker (a signal, an
 * exit, the time limit; the other points measured); 130 when *o->stop was raised (every
 * finished row is kept). */
int hr_sweep_run(const hr_sweep_config *c, hr_sweep_opts *o);

/* The order of repetition round `round` over n interleaved points: order[0..n) becomes
 * a permutation of 0..n-1 shuffled (Fisher-Yates) by a PRNG seeded from seed and round,
 * so the same seed gives the same rounds. */
void hr_sweep_round_order(uint64_t seed, int round, int *order, int n);

#endif

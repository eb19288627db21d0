/* timer.h — wall-clock timing: warm-up, calibrated iterations, the one repetition loop
 * (bench.c and decode_loop.c time through it; hr_summary comes from stats.h). */
#ifndef HR_TIMER_H
#define HR_TIMER_H

#include <signal.h>
#include <stdbool.h>

#include "stats.h"

#define HR_MAX_REPS 1024

/* Monotonic wall-clock seconds (CLOCK_MONOTONIC). Wall time, not CPU time: the kernels
 * are multi-threaded. */
double hr_now(void);
/* The smallest nonzero step hr_now() can show, measured (seconds). */
double hr_timer_resolution(void);
/* CPU seconds this process has used, all its threads (CLOCK_PROCESS_CPUTIME_ID). Around
 * a repetition, divided by its wall time, it shows how many CPUs the process really had:
 * below the thread count when the host steals time or the threads are oversubscribed. */
double hr_cpu_now(void);

typedef struct {
    int reps;        /* repetitions (>= 1, <= HR_MAX_REPS)                         */
    double min_time; /* each repetition runs >= this many seconds (iterations calibrated) */
    double warmup;   /* seconds of untimed calls first (at least one call)        */
    bool cold;       /* flush the caches before every repetition                   */
    /* Optional hooks run around every timed repetition, outside its timing. */
    void (*before_rep)(void *hook_ctx, int rep);
    void (*after_rep)(void *hook_ctx, int rep);
    void *hook_ctx;
    /* Optional: when *stop becomes nonzero (a signal handler sets it), hr_time returns
     * after the current batch of calls with out->aborted set; the timing is then partial. */
    const volatile sig_atomic_t *stop;
} hr_timer_opts;

typedef struct {
    long iters;                 /* calls per repetition                         */
    int reps;
    double rep_time[HR_MAX_REPS]; /* seconds per call, one entry per repetition  */
    double rep_cpu[HR_MAX_REPS];  /* process CPU seconds per call (hr_cpu_now around the
                                   * same timed calls); 0: not measured (older rows)   */
    hr_summary s;               /* over rep_time (without excluded repetitions)   */
    bool aborted;               /* opts.stop was raised: reps holds those completed */
    /* Per-repetition concurrent-ceiling probes (phase.h); probe_kind 0: not probed.
     * probe_before/after[r]: the probe just before and just after repetition r, FMA
     * (kind 1) the slowest thread's GFLOP/s, bandwidth (kind 2) the team's triad GB/s. */
    int probe_kind;
    double probe_before[HR_MAX_REPS], probe_after[HR_MAX_REPS];
    /* Phase detection (hr_phase_mark): phase_change[r] when the two probes of r differ
     * by more than phase_threshold (relative); with phase_filter those repetitions are
     * left out of s (nexcluded of them; 0 when that would leave none). */
    double phase_threshold;
    bool phase_filter;
    unsigned char phase_change[HR_MAX_REPS];
    int nphase, nexcluded;
} hr_timing;

/* hr_time in steps, for callers that add to a repetition (bench.c: probes around it) or
 * interleave the repetitions of several kernels (sweep.c). Calibrate: warm-up and
 * calibration, returns the calls per repetition. Rep: one repetition (cache flush if
 * cold, before_rep, the timed calls, after_rep), returns seconds per call and, when cpu
 * is not NULL, the process CPU seconds per call of the same calls into *cpu. Reps: the
 * repetitions 0..reps-1 (reps clamped to [1, HR_MAX_REPS]) into out->rep_time, out->rep_cpu and
 * out->reps, stopping before a repetition once *o->stop is raised (out->aborted); the
 * other fields of out are left as they are (no statistics). */
long hr_time_calibrate(void (*fn)(void *), void *ctx, const hr_timer_opts *o);
double hr_time_rep(void (*fn)(void *), void *ctx, const hr_timer_opts *o, long iters, int rep, double *cpu);
void hr_time_reps(void (*fn)(void *), void *ctx, const hr_timer_opts *o, long iters, hr_timing *out);
/* Times fn(ctx): clears out, calibrates, runs the repetitions, summarizes them into
 * out->s. fn must do the whole unit of work each call. */
void hr_time(void (*fn)(void *), void *ctx, const hr_timer_opts *o, hr_timing *out);
/* Evicts the caches by streaming over a buffer larger than the last-level cache. */
void hr_flush_caches(void);

#endif

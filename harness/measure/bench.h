/* bench.h — measuring one kernel on one shape: budget, allocation, check, timing. */
#ifndef HR_BENCH_H
#define HR_BENCH_H

#include "inputs.h"
#include "phase.h"
#include "proc.h"
#include "result.h"

typedef struct {
    hr_problem prob;
    hr_layout layout;
    hr_tune tune;            /* 0 fields: the kernel's defaults                    */
    const char *tune_source; /* "default", "flag", "wisdom"                        */
    hr_dist dist;
    uint64_t seed;
    hr_timer_opts timer;
    bool check;              /* compare with the oracle before timing              */
    double max_mem;          /* bytes: refuse shapes whose memory exceeds this     */
    const char *save_dir;    /* write q/k/v/o .npy here after the run (NULL: no)   */
    hr_probe_kind probe;     /* probe around each repetition (0: none; phase.h)    */
    double phase_threshold;  /* phase-change threshold (0: HR_PHASE_THRESHOLD)     */
    bool phase_filter;       /* leave flagged repetitions out of the statistics     */
} hr_bench_spec;

/* The memory budget in bytes: max_mem when > 0 (--max-mem, a config's max_mem), else
 * half of physical memory. Every budget check goes through this. */
double hr_mem_budget(double max_mem);
/* Bytes a run of k on p needs: tensors (fp32 and, for reduced types, the typed ones) +
 * workspace; with --check the original fp32 inputs (hr_format_check_bytes) add to it. */
double hr_bench_bytes(const hr_kernel *k, const hr_problem *p, const hr_tune *t);
/* Validates, checks applicability and the budget, allocates, optionally checks against
 * the oracle, times, and fills out (counts, workspace, timing, GBps counter). Returns
 * HR_OK; HR_EFAIL when the check failed (out->check says how; not timed); HR_EUSAGE
 * (message in hr_errmsg) when the shape is invalid, not applicable or over budget. */
int hr_bench_run(const hr_kernel *k, const hr_bench_spec *s, hr_result *out);
/* hr_bench_run in a worker process of its own (proc.h) within timeout seconds (<= 0:
 * 60): its statuses, or HR_EWORKER when the worker crashed, exited or ran past the limit
 * (w->reason, w->status say how). */
int hr_bench_run_worker(const hr_kernel *k, const hr_bench_spec *s, hr_result *out, double timeout, hr_proc *w);

/* hr_bench_run in three steps, so a caller can interleave the repetitions of several
 * kernels (sweep.c): open (everything up to and including warm-up and calibration),
 * one repetition at a time, close (statistics, counters, free). The session must not
 * move between open and close. shared: tensors of the same shape, layout, dist and seed
 * to use instead of allocating (NULL: allocate). Open returns as hr_bench_run; after a
 * failed open there is nothing to close. */
typedef struct {
    const hr_kernel *k;
    const hr_bench_spec *spec;
    hr_result *out;
    hr_timer_opts timer;      /* spec->timer with hooks that add the probes and markers */
    hr_tensors own;           /* allocated when not shared                          */
    hr_args targs;            /* the tensors' args with a tiled cache (hr_tensors_args) */
    const hr_args *args;      /* the tensors' args, or targs                        */
    void *ws;
    long iters;
    double plant;             /* HEADROOM_PLANT_DELAY (test only), 0: none           */
    hr_phase_probe probe;
    double probe_time;        /* seconds spent in the probes so far                 */
    char region[256];         /* likwid region name                                 */
    char failed[320];         /* non-empty: a call of the kernel failed (a plugin's
                               * run), the message; open and close then fail with it */
} hr_bench_session;
int hr_bench_open(const hr_kernel *k, const hr_bench_spec *s, const hr_tensors *shared,
                  hr_bench_session *b, hr_result *out);
/* Repetition rep (0-based, in order): one untimed call first when rewarm (another
 * kernel ran since), then the timer's repetition (hr_time_rep) with the probe before and
 * after it. */
void hr_bench_rep(hr_bench_session *b, int rep, bool rewarm);
/* Closes after reps repetitions: summary, phase flags, counters; saves tensors when the
 * spec says so. Returns HR_OK or an error of the save. */
int hr_bench_close(hr_bench_session *b, int reps);
/* The counters that follow from timing.s.median: GBps (of the problem's compulsory
 * bytes, hr_bound_bytes) and AI. hr_bench_close sets them; a caller that adds
 * repetitions to a result (ab's rounds) summarizes again and calls this. */
void hr_bench_rates(hr_result *out);
/* Closes without a result (an interrupted interleaved round). */
void hr_bench_abandon(hr_bench_session *b);
/* Between repetitions a session can give its memory back and take it again, so a sweep
 * interleaving more points than fit at once stays within its budget: park frees the
 * workspace (and tensors the session allocated itself); unpark allocates the workspace
 * again (touched, so no page faults are timed) and reads from shared, tensors of the
 * same shape, layout, dist and seed (hence the same values) that the caller may have
 * made anew. The calibration and the repetitions so far are kept. unpark: HR_OK, or
 * HR_EUSAGE (no memory; the session stays parked). */
void hr_bench_park(hr_bench_session *b);
int hr_bench_unpark(hr_bench_session *b, const hr_tensors *shared);
/* Appends warnings about this result and the environment (CV > 5%, more threads than
 * CPUs, frequency scaling, coarse timer) to w[*n] (each at most 200 chars). */
void hr_bench_warnings(const hr_result *r, char (*w)[200], int max, int *n);
/* Appends "WHAT: T threads on C allowed CPUs (BY): oversubscribed" when threads exceed the
 * CPUs this process may run on (cpus.h; BY: what limits them): the
 * one wording of the warning (run, sweep rows, layer, decode-loop). */
void hr_threads_warning(const char *what, int threads, char (*w)[200], int max, int *n);

/* Warnings about the environment: frequency scaling on, a coarse timer. */
void hr_env_warnings(char (*w)[200], int max, int *n);

#endif

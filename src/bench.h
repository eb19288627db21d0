/* bench.h — measuring one kernel on one shape: budget, allocation, check, timing. */
#ifndef HR_BENCH_H
#define HR_BENCH_H

#include "inputs.h"
#include "results.h"

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
} hr_bench_spec;

/* Default memory budget: half of physical memory. */
double hr_default_max_mem(void);
/* Bytes a run of k on p needs: tensors + workspace (+ nothing else). */
double hr_bench_bytes(const hr_kernel *k, const hr_problem *p, const hr_tune *t);
/* Validates, checks applicability and the budget, allocates, optionally checks against
 * the oracle, times, and fills out (counts, workspace, timing, GBps counter). Returns
 * HR_OK; HR_EFAIL when the check failed (out->check says how; not timed); HR_EUSAGE
 * (message in hr_errmsg) when the shape is invalid, not applicable or over budget. */
int hr_bench_run(const hr_kernel *k, const hr_bench_spec *s, hr_result *out);
/* Appends warnings about this result and the environment (CV > 5%, more threads than
 * CPUs, frequency scaling, coarse timer) to w[*n] (each at most 200 chars). */
void hr_bench_warnings(const hr_result *r, char (*w)[200], int max, int *n);

/* Warnings about the environment: frequency scaling on, a coarse timer. */
void hr_env_warnings(char (*w)[200], int max, int *n);

#endif

/* sweep.h — sweeps: the cartesian product of a config, measured point by point into a results directory. */
#ifndef HR_SWEEP_H
#define HR_SWEEP_H

#include <signal.h>

#include "bench.h"
#include "config.h"
#include "results.h"

/* One point of the product. */
typedef struct {
    const hr_kernel *kernel;
    hr_problem prob;
    hr_layout layout;
    hr_tune tune;     /* as requested (0: the kernel's default); block sizes a kernel
                       * does not read are 0                                        */
    int pass;         /* 1..passes                                                  */
    int d_model;      /* layer mode                                                 */
    int gemm;         /* layer mode: the projections' hr_gemm_backend                */
    int threads;      /* the config's threads (layer mode: the GEMMs'; 0: all CPUs)  */
    const char *tune_source; /* "default", "flag", "wisdom" or "flag+wisdom"         */
    char name[256];   /* hr_result_name of the point (resolved tunables), with
                       * /bqQ/bkvK when the config varies block sizes and /passP when
                       * passes > 1, so the names in one results.json are distinct  */
    bool named;       /* name carries such a suffix: the row's label is set to it   */
    char key[320];    /* name + block sizes + pass: what --resume matches on         */
    char skip[320];   /* non-empty: why the point is not measured                    */
} hr_sweep_point;

/* Expands the product in order (pass, batch, heads|d_model, kv_heads, d_head, seq,
 * seq_kv, causal, layout, threads, block_q, block_kv, kernel innermost, so kernels are
 * compared side by side in time). Points whose resolved tunables equal an earlier
 * point's (threads of an unthreaded kernel, say) are dropped and counted in *ndup.
 * filter: NULL or a comma list of kernel names to keep. A point that cannot run (invalid
 * shape, kernel not applicable, over max_mem bytes, 0: half of RAM) gets a skip reason.
 * *pts is malloc'ed. Returns HR_OK, or HR_EUSAGE for an unknown kernel in filter. */
int hr_sweep_expand(const hr_sweep_config *c, const char *filter, double max_mem,
                    hr_sweep_point **pts, int *n, int *ndup);

/* sweep_layer.c. Merges wisdom into pt->tune when c->wisdom (fields the config set win)
 * and sets pt->tune_source. HR_OK, or HR_EUSAGE when the wisdom file is corrupt. */
int hr_sweep_point_wisdom(const hr_sweep_config *c, hr_sweep_point *pt);
/* Layer mode: names the point ("layer/<kernel>/<gemm>/B/N/D/H/G/d/causal|full/T"), its
 * resume key (that of its "total" row) and the skip reason, if any. */
void hr_sweep_layer_finish(const hr_sweep_config *c, hr_sweep_point *pt, double max_mem);
/* Layer mode: measures the point with hr_layer_bench (timer, check, seed and budget from
 * spec) and fills rows[0..HR_NPHASES] with one result per phase (hr_phase_names) and the
 * total, each named "<point name>/<phase>". Returns hr_layer_bench's status. */
int hr_sweep_layer_run(const hr_sweep_point *pt, const hr_bench_spec *spec, hr_result *rows, int *nrows);
/* stop_after_crossover: when an earlier row of pt's series (same name but N, same pass)
 * at a smaller N had core time > projection time, writes why pt is skipped to buf and
 * returns it; else NULL. */
const char *hr_sweep_layer_past(const hr_sweep_point *pt, const hr_result *res, int nres, char *buf, size_t len);
/* After a layer sweep: crossover.csv and crossover_table.csv (the columns of headroom
 * crossover) in dir, from the layer phase rows among res. HR_OK, or HR_EUSAGE when a
 * file cannot be written. */
int hr_sweep_layer_crossover(const hr_result *res, int nres, const char *dir);

/* The resume key of a result measured in pass `pass`. */
void hr_sweep_key(const hr_result *r, int pass, char *buf, size_t len);


typedef struct {
    const char *out_dir;    /* NULL: results/<machine>/<stamp>-<config>            */
    const char *resume_dir; /* reuse this directory, skipping measured points       */
    const char *filter;     /* comma list of kernels (NULL: all of the config's)    */
    int reps;               /* > 0: overrides the config                            */
    double min_time;        /* >= 0: overrides the config (< 0: keep)               */
    double max_mem;         /* > 0: overrides the config                            */
    bool check, dry_run;
    int probe_flag;         /* 0: the config's probe; 1: --probe (auto); 2: --no-probe */
    bool phase_filter;      /* --phase-filter (or the config's phase_filter)          */
    int interleave_flag;    /* 0: the config's; 1: --interleave; 2: --no-interleave   */
    bool progress_tty;      /* draw a progress bar (stderr is a terminal)           */
    volatile sig_atomic_t *stop; /* set by a signal handler: finish up and return 130 */
    char dir[1024];         /* out: the results directory used                      */
} hr_sweep_opts;

/* Runs the sweep. Returns 0; 1 when a point failed its oracle check; 2 on bad input
 * (message in hr_errmsg); 130 when *o->stop was raised (every finished row is kept). */
int hr_sweep_run(const hr_sweep_config *c, hr_sweep_opts *o);

#endif

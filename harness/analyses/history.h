/* history.h — headroom history: many runs of one machine ordered by commit date, a trend
 * per benchmark, change points judged against the runs before, and a trend chart. */
#ifndef HR_HISTORY_H
#define HR_HISTORY_H

#include <stdbool.h>
#include <stdio.h>

#include "gbread.h"
#include "stats.h"

/* One run: a results file and what its context says about it. */
typedef struct {
    char path[4096];      /* its results.json (real path)                              */
    char commit[64];      /* context git_commit ("unknown" when absent)                */
    char when[48];        /* the date it is ordered by: git_commit_time, else date     */
    bool by_commit;       /* when is the commit's date (not the run's)                 */
    double t, t_run;      /* when and the run's date, seconds since the epoch (0: none) */
    char machine[96];     /* context machine ("unknown")                               */
    int threads;          /* context omp_max_threads (-1: absent)                      */
    hr_bench_file f;
} hr_hist_run;

/* One benchmark in one run. */
typedef struct {
    int run;              /* index into hr_history.runs                                */
    int n;                /* repetitions (1: a median aggregate)                       */
    const double *t;      /* their real_time in ns (the reader's array)                */
    double median, spread;/* median real_time (ns) and 1.4826 MAD / median (fraction)  */
    double gflops;        /* median GFLOP/s (NAN without a FLOP count)                 */
    double frac_roof;     /* gflops / attainable_gflops (NAN without a roof)           */
    /* Against the runs before it (hr_hist_opts.window of them): */
    bool judged;          /* there was at least one run before                          */
    double base;          /* median of their medians (ns)                              */
    double change_pct;    /* 100 (median / base - 1): + is slower                      */
    double band_pct;      /* the magnitude it had to pass: max(k x spread, threshold)  */
    hr_mwu_result test;   /* its repetitions against theirs pooled (method NONE: < 2)  */
    int flag;             /* +1 a slower change point, -1 faster, 0 none               */
} hr_hist_point;

/* One benchmark's series over the runs that have it, oldest first. */
typedef struct {
    const char *name;     /* points into the first run holding it                      */
    int npts;
    hr_hist_point *pts;
} hr_hist_series;

typedef struct {
    double k;             /* MAD multiplier of the band (default 3)                    */
    double threshold_pct; /* smallest change that counts (default 5)                   */
    double alpha;         /* U test level (default 0.05)                               */
    int window;           /* runs before a point it is judged against (default 8)      */
    bool mix;             /* allow several machines or thread counts in the series     */
    const char *filter;   /* POSIX extended regex on benchmark names, or NULL          */
} hr_hist_opts;

typedef struct {
    hr_hist_opts opts;
    int nruns;
    hr_hist_run *runs;    /* ordered by (when, run date, path)                         */
    int ncommits;         /* distinct commits among them                                */
    int nseries;
    hr_hist_series *series; /* in order of first appearance in the ordered runs        */
    int newest_slower, newest_faster; /* flags of the newest run's points             */
    int mixed;            /* --mix let them differ: 1 machines, 2 thread counts (bits)  */
} hr_history;

/* Reads every results file under paths[0..n): a results.json, a results directory holding
 * one, or a results root whose subdirectories hold them (symbolic links such as latest/
 * are not followed, so no run is read twice). Orders the runs by their commit's date
 * (context git_commit_time; a run without one by its own date), then by the run's date;
 * builds a series per benchmark and judges every point against the window of runs before
 * it (docs/how-to/ci-gate.md): a change point when |median / base - 1| is beyond
 * max(k x 1.4826 MAD of the base runs' medians / base, threshold) and, where both sides
 * have 2 or more repetitions, the U test of its repetitions against the base runs'
 * pooled gives p < alpha. HR_EUSAGE with one line: no results found, a file that cannot
 * be read, fewer than 2 runs, runs of several machines or thread counts without mix, a
 * bad filter, nothing left after it. */
int hr_history_load(const char *const *paths, int n, const hr_hist_opts *o, hr_history *h);
void hr_history_free(hr_history *h);
/* Seconds since the epoch of an ISO 8601 date-time ("2026-11-24T22:27:35+00:00", "...+0000",
 * "...Z", fractions of a second ignored); 0 when s is not one. */
double hr_iso_time(const char *s);

/* The table: per benchmark, one line per run (commit, date, median, spread, GFLOP/s,
 * fraction of the roof, change against the runs before, p, flag), then a summary. */
void hr_history_print(FILE *f, const hr_history *h);

/* The trend chart: out/history.dat (per kernel, per run, the geometric mean of GFLOP/s and
 * of the fraction of the roof over the kernel's benchmarks present in every run) and
 * out/history.png/.svg by plots/history.gp. Returns 1 drawn, 0 skipped (*why says why:
 * no gnuplot, no benchmark in every run), -1 failed (*why). */
int hr_history_plot(const hr_history *h, const char *out, char *why, size_t whylen);

#endif

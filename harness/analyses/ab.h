/* ab.h — interleaved A/B runs: two headroom builds measure a config's points pair by pair (ABBA), judged on the paired ratios. */
#ifndef HR_AB_H
#define HR_AB_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "result.h"

/* The line protocol between the driver (`headroom ab`) and a worker (`headroom ab-worker
 * CONFIG`), one JSON object per line. The worker first writes a hello:
 *   {"ab_protocol": 1, "build_id": "...", "isa": "...", "points": [{"name": N, "skip": WHY}]}
 * (the config's points in sweep order; skip is "" for a point it can run), then answers
 * each command of the driver with one line:
 *   open K      prepare point K (allocate, check when the config says so, warm up,
 *               calibrate)                          -> {"ok": true, "iters": N}
 *   rep K J     repetition J of point K, one untimed call first (the other build ran
 *               since)                              -> {"t": seconds per call}
 *   close K     statistics of the repetitions       -> {"result": hr_result_to_json}
 *   quit        exits 0
 * and {"error": "one line"} when a command fails. Diagnostics go to stderr only. */
#define HR_AB_PROTOCOL 1

/* The worker's options: the config and the overrides both sides get alike. */
typedef struct {
    const char *config;
    int reps;           /* repetitions the driver will ask for (bounds the timing)  */
    double min_time;    /* < 0: the config's                                        */
    int seed;           /* < 0: the config's                                        */
    const char *filter; /* comma list of kernels, or NULL                           */
    int via;            /* 0: each point's own session here; 1: through a sweep's
                         * point memory in this process (sweep_worker.h, --in-process);
                         * 2: the same in a sweep's worker process: ab-worker --via,
                         * for an A/A of the two ways a sweep measures               */
} hr_ab_worker_opts;

/* Serves the protocol on in/out until quit or end of input. HR_OK, or HR_EUSAGE when the
 * config cannot be read or expanded (the message is also written as an error line). */
int hr_ab_worker(const hr_ab_worker_opts *o, FILE *in, FILE *out);

typedef struct {
    const char *base_bin, *new_bin; /* executables (or wrapper scripts) run as BIN ab-worker ... */
    hr_ab_worker_opts worker;
    int rounds;         /* >= 1: worker pairs started afresh, each measuring every point
                         * in worker.reps pairs; > 1 judges the rounds (hr_ab_judge_logs
                         * on each round's median log ratio), not the pairs             */
    hr_cmp_opts judge;  /* threshold, alpha, correction (metric and shift unused)   */
    double timeout;     /* seconds a worker may take to answer (HEADROOM_AB_TIMEOUT) */
    const char *out_dir;/* base.json, new.json, ab.json there (NULL: none)          */
    const volatile sig_atomic_t *stop; /* set by a signal: stop, kill the workers    */
} hr_ab_opts;

/* One run: both workers started (once a round), points measured pair by pair, results
 * judged. base/new hold every round's repetitions of a point. */
typedef struct {
    hr_cmp cmp;         /* the paired verdicts, printed by compare's printers         */
    char base_build[32], new_build[32];
    char title[160];    /* the report's title, cmp.title points here                    */
    int npoints;
    hr_result *base, *new_; /* per judged point, in config order (npoints of them)   */
    int nskipped;
    char (*skipped)[320];/* "name: why" of points not measured                         */
} hr_ab_result;

/* Runs the A/B comparison. HR_OK with *r filled (free with hr_ab_free); HR_EUSAGE with a
 * one-line message when a binary cannot be started, is not a headroom worker, the two
 * disagree on the points, a worker dies or does not answer within the timeout, or the
 * output directory cannot be written; 130 when stopped by a signal. The workers are
 * killed on every path. */
int hr_ab_run(const hr_ab_opts *o, hr_ab_result *r);
void hr_ab_free(hr_ab_result *r);

/* Judges one point from its paired times (seconds per call, base[j] and new_[j] taken
 * next to each other): estimate 100 (exp(median log(new/base)) - 1), Wilcoxon
 * signed-rank p on the log ratios. Fills row's medians, deltas, test fields (p in
 * test.p); the verdict is set later, after the correction over all points. */
void hr_ab_judge_point(const double *base, const double *new_, int n, hr_cmp_row *row);
/* The same from n log ratios d (log(new / base) of a pair, or the median of a round's
 * pairs) and the two sides' median seconds per call: estimate 100 (exp(median d) - 1),
 * Wilcoxon signed-rank p over the n values, n_base = n_new = n. */
void hr_ab_judge_logs(const double *d, int n, double base_s, double new_s, hr_cmp_row *row);

#endif

/* compare.h — regression check of a results file against a baseline (headroom compare). */
#ifndef HR_COMPARE_H
#define HR_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "stats.h"
#include "verdict.h"

/* The per-repetition counter --metric normalized judges on (higher is better). */
#define HR_CMP_FRAC_COUNTER "frac_of_ceiling"
/* hr_bench.probe_kind of a benchmark whose samples name different probes. */
#define HR_BENCH_PROBE_MIXED (-1)

/* One benchmark of a results file: the samples of every repetition. */
typedef struct {
    char *name;         /* run_name (or name): the key rows are matched on          */
    int n;              /* samples: iteration rows, or 1 for a median aggregate      */
    double *time_ns;    /* real_time of each sample in ns (NAN where absent)         */
    double *frac;       /* frac_of_ceiling of each sample (NAN where absent)         */
    /* The concurrent-ceiling probe of each sample (phase.h): probe_gflops for the FMA
     * probe, probe_gbs for the bandwidth probe (NAN where absent), and its kind. */
    double *probe;
    int probe_kind;     /* HR_PROBE_OFF, HR_PROBE_FMA or HR_PROBE_BW (phase.h), or
                         * HR_BENCH_PROBE_MIXED when the samples differ               */
    bool from_aggregate;/* the file holds only aggregates: its median stands in      */
    int first;          /* index of its first row in the file (keeps file order)     */
} hr_bench;

/* A Google Benchmark-schema results file (headroom's or Google Benchmark's own). */
typedef struct {
    char *path;
    cJSON *context;     /* the "context" object, or NULL                             */
    int nbench;
    hr_bench *bench;    /* in order of first appearance                              */
    int nerrored;       /* rows with error_occurred, skipped                         */
    int nexcluded;      /* iteration rows with "excluded": true (left out of the
                         * result's statistics by --phase-filter), skipped            */
} hr_bench_file;

/* Parses text as a results file; path names it in messages. Rows are grouped by
 * run_name (name when absent); "iteration" rows give samples, "aggregate" rows are
 * ignored unless a benchmark has no iteration row, when its "median" aggregate is its
 * one sample. Unknown fields are ignored. On error returns HR_EUSAGE with a one-line
 * message naming path (hr_errmsg) and leaves *f empty. */
int hr_bench_file_parse(const char *text, size_t len, const char *path, hr_bench_file *f);
/* Reads and parses the file at path (at most 1 GiB). Errors as hr_bench_file_parse. */
int hr_bench_file_load(const char *path, hr_bench_file *f);
void hr_bench_file_free(hr_bench_file *f);

typedef enum { HR_METRIC_TIME = 0, HR_METRIC_NORMALIZED = 1 } hr_cmp_metric;
extern const char *const hr_cmp_metric_names[]; /* "time", "normalized", NULL */

typedef struct {
    double threshold_pct; /* a change smaller than this is "same"                   */
    double alpha;         /* family-wise (holm) or false-discovery (bh) level        */
    hr_cmp_metric metric;
    const char *filter;   /* POSIX extended regex on the benchmark name, or NULL    */
    hr_padj correction;   /* of the rows' p-values as one family (default holm)     */
    bool no_shift;        /* judge rows as measured, without the common shift       */
} hr_cmp_opts;

/* compare's exit status when the file cannot be judged: machine and code cannot be
 * separated (verdict.h). 0 is no regression, 1 (HR_EFAIL) a regression, 2 bad input. */
#define HR_CMP_UNDECIDED 3


/* One matched benchmark. */
typedef struct {
    const char *name;     /* points into the base file                               */
    int n_base, n_new;    /* samples on each side                                    */
    double base, new_;    /* medians as measured: ns (time) or fraction of the ceiling */
    double delta_pct;     /* as measured: 100 (new / base - 1)                       */
    double adj_delta_pct; /* judged: relative to the shift taken out, 100 (new e^-s / base - 1) */
    double probe_pct;     /* 100 (probe new / probe base - 1) of the row's medians; NAN
                           * without the same probe in both files                    */
    bool tested;          /* both sides have >= 2 samples: the U test ran            */
    bool can_reach;       /* the test could give p < alpha at these sample sizes     */
    hr_mwu_result test;   /* valid when tested; on the new samples x e^-s            */
    double p_adj;         /* test.p corrected over the tested rows (opts.correction) */
    hr_verdict verdict;
} hr_cmp_row;

#define HR_CMP_MAX_WARN 16

typedef struct {
    hr_cmp_opts opts;
    const char *base_path, *new_path;
    int nrows;
    hr_cmp_row *rows;     /* in base-file order                                       */
    double geomean_delta_pct; /* 100 (geomean(new / base) - 1) over rows              */
    int count[4];         /* rows per hr_verdict                                       */
    int n_untested;       /* rows judged on the threshold alone                        */
    int n_only_base, n_only_new; /* benchmarks (passing --filter) without a partner   */
    const char **only_base, **only_new; /* their names (point into the files)          */
    int n_mismatch;       /* normalized: rows left out, probed differently in the files */
    const char **mismatch;
    int n_tested;         /* the family the p-values are corrected over               */
    hr_shift shift;       /* the common shift and what was taken out                  */
    hr_verdict common;    /* the code's share of it (hr_shift_code_verdict)           */
    char shift_note[512]; /* hr_shift_describe's sentence                             */
    const char *title;    /* the report's first words; NULL: "headroom compare"        */
    const char *test;     /* the per-row test; NULL: "two-sided Mann-Whitney U"        */
    int nwarn;
    char warn[HR_CMP_MAX_WARN][384]; /* one line each, without "warning: "             */
} hr_cmp;

/* Matches base and new by name, estimates the common shift (verdict.h) and judges every
 * pair relative to it: beyond the threshold and adjusted p < alpha is a REGRESSION or
 * IMPROVEMENT. Returns HR_OK; HR_EUSAGE with a message naming the file for a bad
 * --filter, a missing or non-positive value of the metric, or no matching rows. *out is
 * filled on HR_OK; free it with hr_cmp_free. */
int hr_compare(const hr_bench_file *base, const hr_bench_file *nw, const hr_cmp_opts *o,
               hr_cmp *out);
void hr_cmp_free(hr_cmp *c);
/* compare's exit status for c: HR_CMP_UNDECIDED, HR_EFAIL (a regression) or HR_OK. */
int hr_cmp_status(const hr_cmp *c);

/* The report: an aligned table, a GitHub-flavoured markdown table, or JSON. */
void hr_cmp_print_table(FILE *f, const hr_cmp *c);
void hr_cmp_print_markdown(FILE *f, const hr_cmp *c);
cJSON *hr_cmp_json(const hr_cmp *c);

#endif

/* compare.h — regression check of a results file against a baseline (headroom compare). */
#ifndef HR_COMPARE_H
#define HR_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "gbread.h"
#include "stats.h"
#include "verdict.h"

/* The per-repetition counter --metric normalized judges on (higher is better). */
#define HR_CMP_FRAC_COUNTER HR_GB_FRAC_COUNTER
typedef enum { HR_METRIC_TIME = 0, HR_METRIC_NORMALIZED = 1 } hr_cmp_metric;
extern const char *const hr_cmp_metric_names[]; /* "time", "normalized", NULL */

typedef struct {
    double threshold_pct; /* a change smaller than this is "same"                   */
    double alpha;         /* family-wise (holm) or false-discovery (bh) level        */
    hr_cmp_metric metric;
    const char *filter;   /* POSIX extended regex on the benchmark name, or NULL    */
    hr_padj correction;   /* of the rows' p-values as one family (default holm)     */
    bool no_shift;        /* judge rows as measured, without the common shift       */
    bool p_asymptotic;    /* compare.py's p and geomean too (docs/how-to/ci-gate.md) */
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
    double p_asym;        /* opts.p_asymptotic and tested: the normal-approximation U
                           * test on the samples as measured (no shift, no correction):
                           * compare.py's time p-value (hr_mwu_asymptotic); else NAN   */
    hr_verdict verdict;
    double att_base, att_new; /* % of attainable_path_gflops at the median time; NAN: none */
    const char *bound_by;     /* the new row's bound_by ("" none; points into the file)  */
} hr_cmp_row;

#define HR_CMP_MAX_WARN 16

typedef struct {
    hr_cmp_opts opts;
    const char *base_path, *new_path;
    int nrows;
    hr_cmp_row *rows;     /* in base-file order                                       */
    double geomean_delta_pct; /* 100 (geomean(new / base) - 1) over rows              */
    /* compare.py's OVERALL_GEOMEAN (metric time): 100 (geomean of every sample of new /
     * geomean of every sample of base - 1), matched or not; NAN for normalized.     */
    double gbench_geomean_delta_pct;
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
/* One row's verdict from its adjusted delta and corrected p (the rule compare and ab share):
 * same within the threshold, noise when tested and p_adj >= alpha, else REGRESSION or
 * IMPROVEMENT by the direction that is worse for the metric. */
hr_verdict hr_cmp_verdict(const hr_cmp_row *r, const hr_cmp_opts *o);
/* compare's exit status for c: HR_CMP_UNDECIDED, HR_EFAIL (a regression) or HR_OK. */
int hr_cmp_status(const hr_cmp *c);

/* The report: an aligned table, a GitHub-flavoured markdown table, or JSON. */
void hr_cmp_print_table(FILE *f, const hr_cmp *c);
void hr_cmp_print_markdown(FILE *f, const hr_cmp *c);
cJSON *hr_cmp_json(const hr_cmp *c);

#endif

/* cmd_compare.c — headroom compare: a results file against a baseline; exit 1 on a regression,
 * 3 when machine and code cannot be separated. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "files.h"
#include "headroom.h"

static const char synopsis[] =
    "compare BASE NEW [options]\n\n"
    "Matches the benchmarks of two results files (headroom's or Google Benchmark's JSON) by\n"
    "name and judges each: REGRESSION when worse by more than --threshold and a two-sided\n"
    "Mann-Whitney U test over the repetitions, corrected over all tested rows as one family\n"
    "(--correction), gives p < --alpha; IMPROVEMENT likewise; otherwise same (within the\n"
    "threshold) or noise (beyond it, not significant). Rows without repetitions are judged\n"
    "on the threshold alone.\n\n"
    "The machine's shift: with 6 or more rows, the common shift c (median over rows of\n"
    "log(new/base)) is taken out before rows are judged (new samples x e^-s) when it is the\n"
    "machine's: s = c when the probes (probe_gflops/probe_gbs) moved within threshold/2 of\n"
    "it, or without probes when |c| <= threshold; otherwise s = the probes' shift and the\n"
    "rest is the code's. The file is undecided (exit 3) when the rows scatter around c by\n"
    "more than the threshold (median absolute deviation), when |c| > threshold and no\n"
    "probes attribute it, or when the probes moved beyond the threshold and the rows did\n"
    "not follow. --no-shift judges rows as measured.\n\n"
    "Exit status: 0 no regression, 1 at least one regression, 2 unusable input,\n"
    "3 cannot separate machine from code (no verdict: rerun, or compare interleaved runs).";

static const char *const formats[] = {"table", "markdown", "json", NULL};

int cmd_compare(int argc, char **argv)
{
    hr_cmp_opts o = {.threshold_pct = 5, .alpha = 0.05, .metric = HR_METRIC_TIME};
    int metric = HR_METRIC_TIME, correction = HR_PADJ_HOLM;
    hr_format format = HR_FMT_TABLE;
    const hr_opt opts[] = {
        {"--threshold", HR_OPT_DOUBLE, &o.threshold_pct, 0, 1000, NULL, "PCT",
         "smallest change (%) of the median that counts (default 5)"},
        {"--alpha", HR_OPT_DOUBLE, &o.alpha, 1e-12, 1, NULL, "A",
         "significance level over all rows after the correction (default 0.05)"},
        {"--correction", HR_OPT_ENUM, &correction, 0, 0, hr_padj_names, NULL,
         "of the rows' p-values: holm (family-wise error), bh (Benjamini-Hochberg false "
         "discovery rate), none (alpha per row) (default holm)"},
        {"--no-shift", HR_OPT_FLAG, &o.no_shift, 0, 0, NULL, NULL,
         "do not estimate or take out the machine's common shift"},
        {"--p-asymptotic", HR_OPT_FLAG, &o.p_asymptotic, 0, 0, NULL, NULL,
         "also print compare.py's p (normal-approximation U test, as measured, uncorrected) "
         "and its geomean (ratio of the files' geomeans over every repetition)"},
        {"--metric", HR_OPT_ENUM, &metric, 0, 0, hr_cmp_metric_names, NULL,
         "judge real_time, or the " HR_CMP_FRAC_COUNTER " counter (default time)"},
        {"--filter", HR_OPT_STR, &o.filter, 0, 0, NULL, "REGEX",
         "compare only benchmarks whose name matches (POSIX extended regex)"},
        {"--format", HR_OPT_FORMAT, &format, 0, 0, formats, NULL,
         "report as an aligned table, markdown (CI comment) or JSON (default table)"},
        {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
    };
    char *pos[2];
    int npos = 0;
    int st = hr_parse(argc, argv, opts, synopsis, pos, 2, &npos);
    if (st < 0) return 0;
    if (st == HR_OK && npos != 2)
        st = hr_fail("expected two results files, BASE and NEW (got %d)", npos);
    if (st) {
        fprintf(stderr, "headroom compare: %s\n", hr_errmsg());
        return HR_EUSAGE;
    }
    o.metric = (hr_cmp_metric)metric;
    o.correction = (hr_padj)correction;

    hr_bench_file base, nw;
    if ((st = hr_bench_file_load(pos[0], &base))) {
        fprintf(stderr, "headroom compare: %s\n", hr_errmsg());
        return HR_EUSAGE;
    }
    if ((st = hr_bench_file_load(pos[1], &nw))) {
        fprintf(stderr, "headroom compare: %s\n", hr_errmsg());
        hr_bench_file_free(&base);
        return HR_EUSAGE;
    }
    hr_cmp c;
    st = hr_compare(&base, &nw, &o, &c);
    if (st) {
        fprintf(stderr, "headroom compare: %s\n", hr_errmsg());
    } else {
        for (int i = 0; i < c.nwarn; i++)
            fprintf(stderr, "headroom compare: warning: %s\n", c.warn[i]);
        if (format == HR_FMT_TABLE) {
            hr_cmp_print_table(stdout, &c);
        } else if (format == HR_FMT_MARKDOWN) {
            hr_cmp_print_markdown(stdout, &c);
        } else {
            cJSON *j = hr_cmp_json(&c);
            char *text = j ? hr_json_text(j, 1) : NULL;
            if (text) {
                printf("%s\n", text);
            } else {
                st = HR_EUSAGE;
                fprintf(stderr, "headroom compare: out of memory\n");
            }
            free(text);
            cJSON_Delete(j);
        }
        if (!st) st = hr_cmp_status(&c);
        hr_cmp_free(&c);
    }
    hr_bench_file_free(&nw);
    hr_bench_file_free(&base);
    return st;
}

/* cmd_export.c — headroom export: a results file as the JSON a CI benchmark tracker reads, on stdout. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "export.h"
#include "files.h"
#include "headroom.h"

static const char synopsis[] =
    "export RESULTS --to github-action-benchmark|bencher [--metric gflops|time]\n\n"
    "Writes RESULTS (a results directory or its results.json, headroom's or Google Benchmark's)\n"
    "to stdout as the input of a benchmark tracker, one entry per benchmark (its row name)\n"
    "holding the median over its repetitions:\n"
    "  github-action-benchmark  a JSON array of {name, unit, value, range, extra} for the\n"
    "                           action's customBiggerIsBetter (--metric gflops, GFLOP/s) or\n"
    "                           customSmallerIsBetter (--metric time, ns) tool\n"
    "  bencher                  Bencher Metric Format {name: {measure: {value, lower_value,\n"
    "                           upper_value}}}, measure gflops or latency (ns), the bounds\n"
    "                           the smallest and largest repetition\n"
    "Exit status: 0 written, 2 unusable input (one line on stderr).";

int cmd_export(int argc, char **argv)
{
    int to = -1, metric = HR_EXPORT_GFLOPS;
    const hr_opt opts[] = {
        {"--to", HR_OPT_ENUM, &to, 0, 0, hr_export_to_names, NULL, "the tracker's format (required)"},
        {"--metric", HR_OPT_ENUM, &metric, 0, 0, hr_export_metric_names, NULL,
         "GFLOP/s (bigger is better) or real time in ns (smaller is better) (default gflops)"},
        {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
    };
    char *pos[1];
    int npos = 0;
    int st = hr_parse(argc, argv, opts, synopsis, pos, 1, &npos);
    if (st < 0) return HR_OK;
    if (!st && npos != 1) st = hr_fail("RESULTS: expected one results directory or results file (got %d)", npos);
    if (!st && to < 0) st = hr_fail("--to: required (github-action-benchmark or bencher)");
    hr_bench_file f = {0};
    if (!st) st = hr_bench_file_load(pos[0], &f);
    cJSON *doc = st ? NULL : hr_export(&f, (hr_export_to)to, (hr_export_metric)metric);
    if (!st && !doc) st = HR_EUSAGE;
    char *text = doc ? hr_json_text(doc, 1) : NULL;
    if (doc && !text) st = hr_fail("out of memory");
    if (text && (printf("%s\n", text) < 0 || fflush(stdout))) st = hr_fail("cannot write to stdout");
    if (st) fprintf(stderr, "headroom export: %s\n", hr_errmsg());
    free(text);
    cJSON_Delete(doc);
    hr_bench_file_free(&f);
    return st;
}

/* fuzz_results.c — libFuzzer target: the results-file readers of compare
 * (hr_bench_file_parse, then hr_compare of the file against itself and its reports) and
 * of report (hr_report_add, then its markdown and CSV) on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "headroom.h"
#include "memfile.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w"))) return 0;

    /* compare: parse from memory (the length is given; no NUL needed). */
    hr_bench_file f;
    int st = hr_bench_file_parse((const char *)data, size, "fuzz.json", &f);
    if (st != HR_OK && st != HR_EUSAGE) abort();
    if (st == HR_EUSAGE && !hr_errmsg()[0]) abort();
    if (st == HR_OK) {
        for (int i = 0; i < f.nbench; i++)
            if (!f.bench[i].name || f.bench[i].n < 1) abort();
        hr_cmp_opts o = {.threshold_pct = 5, .alpha = 0.05, .metric = HR_METRIC_TIME};
        for (int m = 0; m < 2; m++) {
            o.metric = (hr_cmp_metric)m;
            hr_cmp c;
            if (hr_compare(&f, &f, &o, &c) == HR_OK) {
                hr_cmp_print_table(sink, &c);
                hr_cmp_print_markdown(sink, &c);
                cJSON_Delete(hr_cmp_json(&c));
                hr_cmp_free(&c);
            }
        }
    }
    hr_bench_file_free(&f);

    /* report: reads from a path. */
    char path[64];
    if (hr_memfile(data, size, path, sizeof path)) return 0;
    hr_report r;
    memset(&r, 0, sizeof r);
    if (hr_report_add(&r, path) == HR_OK) {
        hr_report_markdown(&r, sink, NULL);
        hr_report_csv(&r, sink);
    } else if (!hr_errmsg()[0]) {
        abort();
    }
    hr_report_free(&r);
    return 0;
}

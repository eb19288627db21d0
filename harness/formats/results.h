/* results.h — the one results writer: Google Benchmark-schema JSON, CSV, tables. */
#ifndef HR_RESULTS_H
#define HR_RESULTS_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "result.h"

/* Appends this result's rows to a "benchmarks" array: one "iteration" row per
 * repetition, then "aggregate" rows median, mean, stddev, cv (as Google Benchmark
 * writes with --benchmark_repetitions); aggregates_only: the aggregate rows alone (as
 * --benchmark_report_aggregates_only). */
void hr_result_json_rows(const hr_result *r, cJSON *benchmarks, bool aggregates_only);
/* A single summary object (median figures) for --format json of one run. */
cJSON *hr_result_json_summary(const hr_result *r);

/* A result as one JSON object (a sweep's rows.jsonl line) holding everything its rows are
 * built from. */
cJSON *hr_result_to_json(const hr_result *r);
/* Rebuilds a result from hr_result_to_json's object. HR_EUSAGE on a malformed object or
 * a kernel not in this binary. */
int hr_result_from_json(const cJSON *o, hr_result *r);

/* CSV: a header and one row per result (median figures; counters as extra columns
 * in the order of hr_csv_counter_names). */
void hr_csv_header(FILE *f);
void hr_csv_row(FILE *f, const hr_result *r);
extern const char *const hr_csv_counter_names[];

/* A human table: header and one row per result. */
void hr_table_header(FILE *f);
void hr_table_row(FILE *f, const hr_result *r);


#endif

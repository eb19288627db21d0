/* results.h — the one results writer: Google Benchmark-schema JSON, CSV, tables. */
#ifndef HR_RESULTS_H
#define HR_RESULTS_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "headroom.h"
#include "oracle.h"
#include "timer.h"

#define HR_MAX_COUNTERS 24

/* A named number attached to a result row ("GFLOPS", "ceiling_gflops", ...). */
typedef struct {
    const char *name;
    double value;
} hr_counter;

/* One measured kernel x shape. */
typedef struct {
    const hr_kernel *kernel;
    hr_problem prob;
    hr_layout layout;
    hr_tune tune;          /* resolved parameters that ran                           */
    const char *tune_source; /* "default", "flag" or "wisdom"                        */
    double flops;          /* from counts.c                                          */
    double bytes;          /* from counts.c (the kernel's traffic model)             */
    double workspace_bytes;
    hr_timing timing;
    bool checked;          /* the oracle comparison ran                               */
    hr_check check;
    int ncounters;         /* extra counters (roofline, probes, ...)                   */
    hr_counter counters[HR_MAX_COUNTERS];
    /* Non-empty: the row's benchmark name, for rows of a composite benchmark that the
     * kernel x shape name cannot tell apart (one phase of a full layer:
     * "layer/flash/blas/B1/N1024/D512/H8/G8/d64/full/T2/core", see hr_layer_name).
     * Empty: the kernel x shape name below. */
    char label[256];
} hr_result;

/* Sets counter name to value (adds it, or replaces an existing one). */
void hr_result_set(hr_result *r, const char *name, double value);
/* Benchmark name shared by every row of this result, the key compare matches on:
 * r->label when set, else "flash/B1/H16/G16/N2048/M2048/d64/causal/bhnd/T2". */
void hr_result_name(const hr_result *r, char *buf, size_t len);
/* Median GFLOP/s (flops / median time). */
double hr_result_gflops(const hr_result *r);

/* The "context" object: machine, caches, ISA, compiler, flags, OpenMP, git, date,
 * plus any warnings given. Caller owns it. */
cJSON *hr_context_json(const char *const *warnings, int nwarnings);
/* Appends this result's rows to a "benchmarks" array: one "iteration" row per
 * repetition, then "aggregate" rows median, mean, stddev, cv (as Google Benchmark
 * writes with --benchmark_repetitions). */
void hr_result_json_rows(const hr_result *r, cJSON *benchmarks);
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

/* Writes text to path atomically (temp file in the same directory + rename), making
 * the directory first if needed. */
int hr_write_atomic(const char *path, const char *text);
/* Writes doc, indented and ending in a newline, to path atomically. */
int hr_write_json_atomic(const char *path, const cJSON *doc);
/* mkdir -p. */
int hr_mkdirs(const char *path);

#endif

/* gbread.h — the one reader of Google Benchmark-schema results files: compare, report, plot and ab read through it. */
#ifndef HR_GBREAD_H
#define HR_GBREAD_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* The document of a results file: valid JSON, a top-level object with a "benchmarks"
 * array. NULL with a one-line message naming path: empty, truncated ("JSON ends before
 * its closing brackets"), invalid JSON (line, column), another top level, no array.
 * Caller owns the tree. */
cJSON *hr_gb_parse(const char *text, size_t len, const char *path);
/* The results file of path: path/results.json when path is a directory (a results
 * directory), else path itself; buf (len bytes) holds the joined name. Every reader of
 * results goes through it, so each takes a results directory or its results.json. */
const char *hr_results_file(const char *path, char *buf, size_t len);
/* Reads path (a results file, or a directory holding results.json) through hr_read_file (a regular file, at most HR_CAP_RESULTS, no NUL) and
 * parses it as hr_gb_parse. */
cJSON *hr_gb_load(const char *path);
/* A row's real_time in ns by its time_unit (ns, us, ms, s); NAN and HR_OK without
 * real_time. HR_EUSAGE naming path and the benchmark: real_time not a number, no
 * time_unit, a unit not in that list. */
int hr_gb_time_ns(const cJSON *row, const char *path, const char *name, double *ns);

/* The per-repetition counter --metric normalized judges on (higher is better). */
#define HR_GB_FRAC_COUNTER "frac_of_ceiling"
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
    /* FLOPs of one call: the row's "flops", else its GFLOPS rate times its real_time
     * (Google Benchmark's rate counters); NAN when neither. GFLOP/s of a sample is
     * flops / time_ns. */
    double flops;
    double roof_gflops; /* attainable_gflops (the roofline bound), NAN where absent   */
    double att_gflops;  /* attainable_path_gflops (min of three), NAN where absent    */
    char bound_by[8];   /* which of the three binds it ("matmul", ...), "" absent     */
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
/* Reads (hr_read_file, at most HR_CAP_RESULTS) and parses the file at path (or
 * path/results.json when path is a directory). Errors as
 * hr_bench_file_parse. */
int hr_bench_file_load(const char *path, hr_bench_file *f);
void hr_bench_file_free(hr_bench_file *f);

#endif

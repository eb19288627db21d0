/* export.h — a results file as the input of a CI benchmark tracker (headroom export):
 * github-action-benchmark's custom JSON and Bencher's Metric Format. */
#ifndef HR_EXPORT_H
#define HR_EXPORT_H

#include <cjson/cJSON.h>

#include "gbread.h"

typedef enum { HR_EXPORT_GAB = 0, HR_EXPORT_BENCHER = 1 } hr_export_to;
extern const char *const hr_export_to_names[]; /* "github-action-benchmark", "bencher", NULL */

typedef enum { HR_EXPORT_GFLOPS = 0, HR_EXPORT_TIME = 1 } hr_export_metric;
extern const char *const hr_export_metric_names[]; /* "gflops", "time", NULL */

/* One entry per benchmark of f (its run_name, unique in the file), in file order. The
 * value is the median over its repetitions (or its median aggregate when the file has
 * no repetition rows): real_time in ns (time), or flops / real_time in GFLOP/s (gflops,
 * the median of the per-repetition rates).
 *   github-action-benchmark: a JSON array of {name, unit ("GFLOP/s" | "ns"), value,
 *     range ("± R", R = 1.4826 x the median absolute deviation, with 2 or more
 *     repetitions), extra (repetitions, min, max)}: the input of the action's
 *     customBiggerIsBetter (gflops) or customSmallerIsBetter (time) tool.
 *   bencher: a JSON object {name: {measure: {value, lower_value, upper_value}}} with
 *     measure "gflops" or "latency" (Bencher's built-in, ns), lower/upper the smallest
 *     and largest repetition.
 * Returns the document (caller owns it), or NULL with a one-line message naming the file
 * and the benchmark: no real_time, a non-positive time, or no FLOP count (gflops). */
cJSON *hr_export(const hr_bench_file *f, hr_export_to to, hr_export_metric m);

#endif

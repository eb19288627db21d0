/* export.c — a results file as github-action-benchmark's custom JSON or Bencher's Metric Format: one entry per benchmark, its median. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "export.h"
#include "headroom.h"
#include "stats.h"

const char *const hr_export_to_names[] = {"github-action-benchmark", "bencher", NULL};
const char *const hr_export_metric_names[] = {"gflops", "time", NULL};

/* The values of benchmark b in the metric: v[0..n) (time in ns, or GFLOP/s). Returns n,
 * or -1 with a message. */
static int values(const hr_bench_file *f, const hr_bench *b, hr_export_metric m, double *v)
{
    if (m == HR_EXPORT_GFLOPS && !(b->flops > 0))
        return hr_fail("%s: benchmark '%s': no FLOP count (flops or GFLOPS) for --metric gflops; "
                       "use --metric time", f->path, b->name), -1;
    for (int i = 0; i < b->n; i++) {
        double t = b->time_ns[i];
        if (isnan(t)) return hr_fail("%s: benchmark '%s': no real_time", f->path, b->name), -1;
        if (!(t > 0) || isinf(t))
            return hr_fail("%s: benchmark '%s': real_time must be a positive number, got %g", f->path, b->name, t), -1;
        v[i] = m == HR_EXPORT_TIME ? t : b->flops / t; /* FLOP per ns = GFLOP/s */
    }
    return b->n;
}

cJSON *hr_export(const hr_bench_file *f, hr_export_to to, hr_export_metric m)
{
    cJSON *doc = to == HR_EXPORT_GAB ? cJSON_CreateArray() : cJSON_CreateObject();
    if (!doc) return hr_fail("out of memory"), NULL;
    const char *unit = m == HR_EXPORT_TIME ? "ns" : "GFLOP/s";
    const char *measure = m == HR_EXPORT_TIME ? "latency" : "gflops";
    for (int i = 0; i < f->nbench; i++) {
        const hr_bench *b = &f->bench[i];
        double *v = malloc((size_t)b->n * sizeof *v);
        int n = v ? values(f, b, m, v) : (hr_fail("out of memory"), -1);
        if (n < 0) {
            free(v);
            cJSON_Delete(doc);
            return NULL;
        }
        double med = hr_median(v, (size_t)n), lo = v[0], hi = v[0];
        for (int k = 1; k < n; k++) lo = fmin(lo, v[k]), hi = fmax(hi, v[k]);
        double spread = n > 1 ? 1.4826 * hr_mad(v, (size_t)n, med) : NAN;
        free(v);
        cJSON *e = cJSON_CreateObject();
        if (to == HR_EXPORT_GAB) {
            char buf[160];
            cJSON_AddStringToObject(e, "name", b->name);
            cJSON_AddStringToObject(e, "unit", unit);
            cJSON_AddNumberToObject(e, "value", med);
            if (!isnan(spread)) {
                snprintf(buf, sizeof buf, "\u00b1 %.4g", spread);
                cJSON_AddStringToObject(e, "range", buf);
            }
            if (b->from_aggregate)
                snprintf(buf, sizeof buf, "median aggregate (no repetition rows in the file)");
            else
                snprintf(buf, sizeof buf, "median of %d repetitions\nmin: %.6g %s\nmax: %.6g %s", n, lo, unit, hi, unit);
            cJSON_AddStringToObject(e, "extra", buf);
            cJSON_AddItemToArray(doc, e);
        } else {
            cJSON *mv = cJSON_AddObjectToObject(e, measure);
            cJSON_AddNumberToObject(mv, "value", med);
            cJSON_AddNumberToObject(mv, "lower_value", lo);
            cJSON_AddNumberToObject(mv, "upper_value", hi);
            cJSON_AddItemToObject(doc, b->name, e);
        }
    }
    return doc;
}

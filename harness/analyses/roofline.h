/* roofline.h — the machine's measured ceilings (FMA and dot-product peaks, triad bandwidth, exp rate) and the roofline bound per result row. */
#ifndef HR_ROOFLINE_H
#define HR_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "ceilings.h"
#include "result.h"

/* How to measure. */
typedef struct {
    const int *threads; /* thread counts to measure, in any order (duplicates dropped) */
    int nthreads;
    int reps;           /* repetitions per figure (a discarded warm-up runs first)   */
    double min_time;    /* each repetition runs at least this long (seconds)         */
    double triad_bytes; /* total of the three triad arrays; 0: max(256 MiB, 4 x L3)  */
    bool quick;         /* recorded in the file                                       */
    /* Called after each thread count, for progress (may be NULL). */
    void (*progress)(void *ctx, const hr_ceiling_row *row);
    void *progress_ctx;
} hr_roofline_opts;

/* Measures the ceilings into c. On error (no memory for the triad arrays) returns
 * HR_EUSAGE with a message. */
int hr_roofline_measure(const hr_roofline_opts *o, hr_ceilings *c);

/* Sets the roofline counters on a result row, for the roof of its own type (hr_roof_of:
 * the instruction its kernel's path runs on the row's dtype/kv_dtype; the FMA of the
 * build's ISA unless the path names a dot product) and the row's thread count
 * r->tune.threads:
 *   ceiling_threads    the measured thread count the ceilings come from
 *   ceiling_gflops     that compute roof  ceiling_gbs   triad bandwidth
 *   AI                 r->flops / r->bytes (FLOP per byte, bytes from counts.c)
 *   attainable_gflops  min(ceiling_gflops, AI * ceiling_gbs)
 *   pct_of_roofline    median GFLOP/s / attainable_gflops * 100
 * Counters whose inputs are missing (no ceilings, no bytes, not timed, a roof the file
 * lacks: a dot roof of an old file, AMX) are not set. */
void hr_roofline_attach(hr_result *r, const hr_ceilings *c);

#endif

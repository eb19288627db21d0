/* roofline.h — the machine's measured ceilings (FMA and dot-product peaks, triad bandwidth, exp rate, softmax steps) and the roofline bound per result row. */
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
    int curve_steps;    /* bandwidth curve points per octave; 0: 4 (quick: 2)          */
    /* Called after each thread count, for progress (may be NULL). */
    void (*progress)(void *ctx, const hr_ceiling_row *row);
    void *progress_ctx;
} hr_roofline_opts;

/* Measures the ceilings into c. On error (no memory for the triad arrays) returns
 * HR_EUSAGE with a message. */
int hr_roofline_measure(const hr_roofline_opts *o, hr_ceilings *c);

/* Per-thread working set, in bytes, of the cache roof of level (HR_CACHE_*) for a team of
 * `threads`: half the level's size (L3: half over the team threads sharing one). */
double hr_cache_ws_bytes(int level, int threads);
/* Measures the cache roofs (load and triad at every level) of a team of `threads` into
 * row->cache: reps repetitions of at least min_time seconds each, after a calibration
 * pass and a discarded warm-up. On error (no memory) returns HR_EUSAGE with a message. */
int hr_cache_roofs_measure(int threads, int reps, double min_time, hr_ceiling_row *row);

/* The curve's largest working set, the team's bytes: four times the reported last
 * level (all its instances), at least 64 MiB, at most 2 GiB. */
double hr_curve_top_bytes(void);
/* Measures the bandwidth curve of a team of `threads` into row->curve: load and triad
 * GB/s at per_octave working sets an octave from 4 KiB a thread up to top bytes in all,
 * each the best of reps repetitions of at least min_time seconds; then reads the cache
 * levels off the triad curve (hr_curve_levels) into row->levels and row->beyond_gbs,
 * and the curve's one-line note, if any, into note. On error (no memory) HR_EUSAGE. */
int hr_curve_measure(int threads, int reps, double min_time, int per_octave, double top, hr_ceiling_row *row,
                     char *note, size_t notelen);

/* Sets the roofline counters on a result row, for the roof of its own type (hr_roof_of:
 * the instruction its kernel's path runs on the row's dtype/kv_dtype; the FMA of the
 * build's ISA unless the path names a dot product) and the row's thread count
 * r->tune.threads:
 *   ceiling_threads    the measured thread count the ceilings come from
 *   ceiling_gflops     that compute roof  ceiling_gbs   triad bandwidth
 *   AI                 r->flops per compulsory byte (hr_bound_bytes of counts.c: Q, K, V,
 *                      O once, the same for every kernel of the problem, as GBps;
 *                      r->bytes, the kernel's own traffic, stays in `bytes`)
 *   attainable_gflops  min(ceiling_gflops, AI * ceiling_gbs)
 *   pct_of_roofline    median GFLOP/s / attainable_gflops * 100
 * and, where the file has cache roofs and the row a working set (hr_working_set_bytes of
 * counts.c: Q, K, V, O as stored plus the kernel's workspace), the cache-level bound:
 *   r->bound_level     the level the working set fits (hr_ceiling_level_of: the levels
 *                      measured off the bandwidth curve, else the topology's): "L1",
 *                      "L2", "L3", "DRAM"; "compute" when AI * that level's bandwidth
 *                      reaches the compute roof
 *   level_measured     1 when that level came from the curve, 0 from the topology
 *   level_gbs          that level's triad GB/s (DRAM: ceiling_gbs)
 *   attainable_level_gflops  min(ceiling_gflops, AI * level_gbs)
 *   pct_of_level_roof  median GFLOP/s / attainable_level_gflops * 100
 * and, where the file has softmax ceilings (ceilings.h hr_softmax_for: the row's step),
 * the attainable rate of its path, min of three (hr_attainable3):
 *   r->softmax_step, softmax_gscores, softmax_gflops (x hr_flops_per_score: 4 d)
 *   attainable_path_gflops  min(ceiling_gflops, softmax_gflops, AI * level_gbs; AI *
 *                      ceiling_gbs without cache roofs); r->bound_by "matmul",
 *                      "softmax" or "memory"; pct_of_attainable
 * Counters whose inputs are missing (no ceilings, no bytes, not timed, a roof the file
 * lacks: a dot roof of an old file, AMX) are not set. */
void hr_roofline_attach(hr_result *r, const hr_ceilings *c);

#endif

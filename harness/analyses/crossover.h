/* crossover.h — where the attention core's N² cost overtakes the layer's projections: measuring N*, interpolating it, its two CSVs. */
#ifndef HR_CROSSOVER_H
#define HR_CROSSOVER_H

#include <stdio.h>

#include "layer.h"

/* One measured N of a series: medians of QKV + output projection and of the core. */
typedef struct {
    int n;
    double proj_s, core_s, proj_gflops, core_gflops;
} hr_xpoint;

/* What one series (kernel x d_model, and whatever else the caller holds fixed) gave. */
typedef struct {
    char kernel[96];  /* the series' name in the CSVs: a kernel, or kernel/qualifiers     */
    int d_model;
    double n_star;    /* measured N*; NaN when not bracketed (note says why)             */
    double n_flops;   /* N* by FLOPs (hr_layer_flops_crossover)                           */
    double core_gflops, proj_gflops; /* the phases' rates at N*, interpolated like it     */
    char note[96];
} hr_crossing;

/* crossover.csv: the header (columns kernel,d_model,N,proj_s,core_s,proj_gflops,
 * core_gflops) and one row. */
void hr_crossover_csv_header(FILE *f);
void hr_crossover_csv_row(FILE *f, const char *kernel, int d_model, const hr_xpoint *p);
/* N* between lo (core not slower) and hi (core slower): log(core_s / proj_s) is
 * interpolated linearly in log N (exact when both rates are constant); the rates at N*
 * likewise. Sets x->n_star, core_gflops, proj_gflops. */
void hr_crossover_interp(const hr_xpoint *lo, const hr_xpoint *hi, hr_crossing *x);
/* A whole series sorted by N: the first N where the core is slower and the N before it
 * bracket N*; otherwise x->note says which side it lies on. n_flops is not touched. */
void hr_crossover_series(const hr_xpoint *pts, int n, hr_crossing *x);
/* Writes crossover_table.csv (columns kernel,d_model,n_star_measured,n_star_flops,ratio,
 * core_gflops,proj_gflops,note) atomically to path and, when print is not NULL, the same
 * as a text table. HR_OK or HR_EUSAGE (cannot write). */
int hr_crossover_table_write(const char *path, const hr_crossing *xs, int n, FILE *print);

/* What every point of a measured crossover shares. */
typedef struct {
    hr_layer_spec base; /* batch, d_head, causal, gemm, threads, tune, seed, timer, max_mem;
                         * kernel, d_model, heads and seq are set per point           */
    double budget;      /* bytes: an N whose layer needs more ends the series         */
    FILE *csv;          /* every measured point is appended (crossover.csv) and flushed */
    FILE *log;          /* one line per measured point (NULL: silent)                 */
} hr_crossover_spec;

/* Measures N* of kernel k at d_model (heads = kv_heads = d_model / d_head): N doubles
 * from seq_min until the core is slower than the projections or seq_max (or the budget)
 * is passed; refine bisection steps (geometric midpoints, multiples of 8) narrow the
 * bracket; N* is interpolated (hr_crossover_interp). Fills x (a note says why there is
 * no N*). Returns HR_OK, or the status of hr_layer_bench for a point that failed. */
int hr_crossover_measure(const hr_crossover_spec *s, const hr_kernel *k, int d_model, int seq_min,
                         int seq_max, int refine, hr_crossing *x);

#endif

/* report.h — merging results from several machines into one comparison: tables, charts. */
#ifndef HR_REPORT_H
#define HR_REPORT_H

#include <stdio.h>

#define HR_REPORT_MAX_MACHINES 16

/* One results file: where it came from (its context block). */
typedef struct {
    char label[128];     /* column title: the machine key, made unique        */
    char machine[96];
    char cpu_model[128];
    char isa[16];
    char date[40];
    int cpus;
    char path[1200];     /* the results.json read                              */
    char version[40];    /* headroom_version and git_commit of the build        */
    char commit[48];
    char load[40];       /* load_avg when the run started: "1.02 0.88 0.75"     */
    char plugins[600];   /* the plugins loaded: "LIBRARY VERSION (FILE), ..."   */
    /* Rows whose bound_level's cache level came from the bandwidth curve
     * (level_measured 1) and from the topology (0: a ceilings file without it). */
    int levels_measured, levels_topology;
} hr_report_machine;

/* One kernel x shape x threads of one machine: the median over its rows. */
typedef struct {
    int machine, shape;
    char kernel[32];
    int threads;
    double gflops;        /* median GFLOP/s                                    */
    double pct_roofline;  /* % of the machine's roofline bound (NAN: unknown) */
    double ceiling_gflops;/* the machine's FMA ceiling (NAN: unknown)         */
    double time_ns;       /* median real_time (NAN: unknown)                   */
    double pct_attainable;/* % of min(matmul, softmax, memory) (NAN: unknown)  */
    char bound_by[8];     /* which of the three binds ("": unknown)           */
    char peer[80];        /* a plugin's kernel: "LIBRARY VERSION"; "" built-in */
} hr_report_cell;

typedef struct {
    int batch, heads, kv_heads, seq_q, seq_kv, d_head, causal;
    char layout[8];
    char dtype[8], kv_dtype[8]; /* element types; "f32" for rows of files before them */
    int window;                 /* the variants (0: none, and in files before them)   */
    float softcap, alibi;
} hr_report_shape;

typedef struct {
    hr_report_machine machines[HR_REPORT_MAX_MACHINES];
    int nmachines;
    hr_report_shape *shapes;
    int nshapes, cap_shapes;
    hr_report_cell *cells;
    int ncells, cap_cells;
    int rel;             /* --relative-to: the reference machine's index + 1 (0: none) */
} hr_report;

/* Adds the results at path: a results.json, or a directory holding one (a sweep's
 * results/<machine>/<stamp>-<config>/). GFLOP/s per kernel x shape x threads is the
 * median of its "median" aggregate rows, or of its iteration rows when a file has no
 * aggregates. Returns HR_OK or HR_EUSAGE (message names the file). */
int hr_report_add(hr_report *r, const char *path);
void hr_report_free(hr_report *r);
/* Makes the machine named `name` (its column title, else its machine key: the first file
 * of that machine) the reference of the ratio columns. HR_EUSAGE naming the machines
 * there are when none is called that. */
int hr_report_relative_to(hr_report *r, const char *name);
/* The ratio of machine m's cell to the reference machine's on shape s (GFLOP/s over
 * GFLOP/s of the cells hr_report_pick shows); NAN without a reference or a cell. */
double hr_report_ratio(const hr_report *r, int s, int m, const char *kernel);

/* "B1 H16/16 N2048x2048 d64 causal" (+ " bnhd"). */
void hr_report_shape_str(const hr_report_shape *s, char *buf, size_t len);

/* The cell shown for kernel on shape s of machine m: the one with the most threads (the
 * whole machine), NULL when that machine has none. */
const hr_report_cell *hr_report_pick(const hr_report *r, int s, int m, const char *kernel);
/* Kernel names present on shape s, in registry order; returns the count. */
int hr_report_kernels(const hr_report *r, int s, const char **names, int max);

/* A markdown document: the machines, then per shape a table (rows kernels, columns
 * machines, each cell with its thread count; with a reference, one ratio column per other
 * machine). images: per shape i, "shape-<i+1>.svg" is linked when images[i] is set. */
void hr_report_markdown(const hr_report *r, FILE *f, const int *images);
/* One CSV row per machine x shape x kernel shown in the tables (ratio_to_ref: the
 * ratio to the reference machine, empty without one). */
void hr_report_csv(const hr_report *r, FILE *f);
/* Writes shape-<i>.dat per shape into out_dir and renders shape-<i>.png and .svg with
 * gnuplot (program $HEADROOM_GNUPLOT or "gnuplot") running script. images[i] is set
 * for each shape rendered. Returns the number rendered; -1 when gnuplot cannot be run
 * (why: a one-line reason). */
int hr_report_charts(const hr_report *r, const char *out_dir, const char *script, int *images,
                     char *why, size_t whylen);

#endif

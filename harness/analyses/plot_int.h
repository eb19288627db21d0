/* plot_int.h — what the plot files share: CSV by header name, series and the .dat writer, the loaded inputs, the chart builders. */
#ifndef HR_PLOT_INT_H
#define HR_PLOT_INT_H

#include <stdio.h>

#include "ceilings.h"

/* ---- CSV by header name (plot_data.c) ------------------------------------------------ */

#define PL_MAXF 64

typedef struct {
    char *f[PL_MAXF];
    int n;
} pl_row;

typedef struct {
    char *text;            /* the file; fields point into it */
    pl_row head;
    pl_row *rows;
    int nrows;
} pl_csv;

/* Reads a CSV with a header line through hr_read_file. Repeated header lines (files
 * appended by several runs) and blank lines are skipped; a field may be double-quoted
 * (no escaped quotes inside). Returns 1 when read, 0 when the file does not exist, and
 * -HR_EUSAGE with a message naming the file when it exists but cannot be read or has no
 * header. */
int pl_csv_load(const char *path, pl_csv *c);
void pl_csv_free(pl_csv *c);
/* The index of column name, -1 when absent. */
int pl_col(const pl_csv *c, const char *name);
/* The number in column i of r; NaN when the column is absent, empty or not a number. */
double pl_num(const pl_row *r, int i);
/* The text in column i of r; "" when absent. */
const char *pl_str(const pl_row *r, int i);
/* HR_OK, or HR_EUSAGE naming the first of the NULL-terminated columns that c lacks. */
int pl_need(const pl_csv *c, const char *path, const char *const *names);

/* ---- series and the chart's data file (plot_data.c) ------------------------------------ */

#define PL_MAXS 96

typedef struct {
    char title[160];
    int n, cap;
    double (*p)[3];        /* x, y, z (z: a third column some charts use) */
} pl_series;

typedef struct {
    pl_series s[PL_MAXS];
    int n;
} pl_set;

/* The series titled t (created empty when new), or NULL when PL_MAXS are in use. */
pl_series *pl_get(pl_set *S, const char *t);
/* Adds (x, y, z) to s; ignored when s is NULL or x or y is not finite. */
void pl_add(pl_series *s, double x, double y, double z);
/* Drops the last series of S (one that turned out empty). */
void pl_drop_last(pl_set *S);
void pl_set_free(pl_set *S);
/* qsort order of points: by x, then y. */
int pl_by_x_then_y(const void *a, const void *b);
/* Sorts s by x; points with the same x collapse to one with their median y (hr_median). */
void pl_tidy(pl_series *s);

/* One chart being built: its data file in memory, the gnuplot variables, or why it is
 * skipped. */
typedef struct {
    FILE *dat;             /* the .dat text (open_memstream)                          */
    int points;            /* finite points written: none means nothing to draw       */
    char vars[16384];      /* -e assignments after the common ones                    */
    char why[256];         /* non-empty: skipped, this is why                         */
} pl_chart;

/* Marks c skipped with a reason. */
void pl_skip(pl_chart *c, const char *why);
/* Writes one point "x y z" (%.9g) to c's data; counts it when x and y are finite. */
void pl_point(pl_chart *c, double x, double y, double z);
/* Writes s as one block, tidied (a lone "NaN NaN NaN" when empty or NULL, so block
 * numbers stay fixed). */
void pl_block(pl_chart *c, pl_series *s);
/* Appends "title" as one gnuplot word (quotes stripped) to a list; "" draws no key entry. */
void pl_words(char *list, size_t len, const char *t);
/* Appends the number v to a space-separated list. */
void pl_ints(char *list, size_t len, int v);

/* ---- the sweep's rows (plot_data.c) ---------------------------------------------------- */

typedef struct {
    char kernel[40], layout[8];
    char types[48];        /* element types when not all f32: "bf16", "kv=q8_0", "bf16/kv=q4_0",
                            * then the variants, "bf16/w4096/cap50" (a series of their own) */
    char peer[72];         /* a plugin's kernel: " (peer LIBRARY VERSION)"; "" for built-ins */
    int batch, heads, kv_heads, seq_q, seq_kv, d_head, causal, threads;
    double gflops, ai, ws, t_med;
    int window;            /* the variants (0 when off; absent columns: the plain problem) */
    double softcap, alibi;
    int page_size;         /* a paged KV cache's keys a block (0: contiguous or absent)   */
    char dt[8], kv[8];     /* dtype and kv_dtype ("f32" where absent)                      */
} pl_srow;

typedef struct {
    pl_srow *r;
    int n;
    char shape[96];        /* the base shape: the most frequent prefill shape */
    int b, h, g, d;
    char layout[8];
} pl_sweep;

/* Reads a sweep's results.csv (rows cut short by an interrupted sweep are left out) and
 * finds its base shape. HR_OK (S->n == 0 when the file does not exist), or HR_EUSAGE
 * with a message naming the file: unreadable, no header, a needed column missing. */
int pl_sweep_load(const char *path, pl_sweep *S);
/* Whether r has the base shape with Nq = Nkv and no variant (window, softcap, alibi: the
 * window chart draws those). */
int pl_in_base(const pl_sweep *S, const pl_srow *r);
/* Distinct kernel names in row order (at most max); base_only: base-shape rows only. */
int pl_kernels(const pl_sweep *S, int base_only, const char **names, int max);
/* " (peer LIBRARY VERSION)" for a plugin's kernel (its rows carry plugin_library), ""
 * for a built-in one: what every chart appends to a series title, so peers stand out. */
const char *pl_peer_of(const pl_sweep *S, const char *kernel);
/* The largest thread count of kernel's base-shape rows. */
int pl_max_threads(const pl_sweep *S, const char *kernel);

/* "machine, date" (and the build's ISA) from a file's context block (`what` names the
 * kind in messages). Returns 1 when the
 * file has a context with a machine, 0 when it has none or does not exist, -1 (message
 * naming the file) when it exists but cannot be read as one JSON document; isa (may be
 * NULL) is filled only when empty. */
int pl_context(const char *path, const char *what, char *who, size_t len, char *isa, size_t isalen);

/* ---- the inputs and the charts --------------------------------------------------------- */

/* The inputs, as bits: a chart names those it can draw from. */
enum { PL_SWEEP = 1, PL_CEILINGS = 2, PL_CROSSOVER = 4, PL_KVCACHE = 8, PL_DECODE = 16 };

typedef struct {
    pl_sweep S;
    hr_ceilings C;
    char isa[32];                  /* the sweep's build ISA (context), "" unknown  */
    pl_csv cross, table, kv, dec;  /* the CSVs read                                */
    int have_table;                /* crossover_table.csv was read                 */
    const char *cross_path, *kv_path, *dec_path;
} pl_inputs;

/* The builders: each writes c's data and variables, or marks it skipped. */
void pl_roofline(const pl_inputs *in, pl_chart *c);   /* plot_sweep.c */
void pl_kernels_chart(const pl_inputs *in, pl_chart *c);
void pl_workspace(const pl_inputs *in, pl_chart *c);
void pl_scaling(const pl_inputs *in, pl_chart *c);
void pl_crossover(const pl_inputs *in, pl_chart *c);  /* plot_model.c */
void pl_kvcache(const pl_inputs *in, pl_chart *c);
void pl_decode(const pl_inputs *in, pl_chart *c);
/* The KV-cache story, from decode-loop --format csv rows run with --kv-dtype. Columns it
 * reads (by name): kv_dtype (f32, f16, bf16, q8_0, q4_0), kernel, threads, heads,
 * kv_heads, d_head, layers, batch, cache_last, tokens_per_s; optional kv_bytes (the
 * whole cache at cache_last: every layer, K and V, scales included; computed from the
 * shape when absent) and format_max_rel (the format's error: the fp64 oracle on the
 * original fp32 inputs against the output). */
void pl_kvstory(const pl_inputs *in, pl_chart *c);
/* The bandwidth curve of the ceilings (plot_curve.c): GB/s over the working set per thread
 * count, the knees marked, the reported cache sizes dotted; skipped for ceilings without one. */
void pl_cachecurve(const pl_inputs *in, pl_chart *c);
/* The window chart (plot_variants.c): median time against N per kernel and sliding window
 * (the dense causal rows beside them), log-log: a window flattens the N² curve to N·W.
 * Skipped for a sweep without windowed rows. */
void pl_window(const pl_inputs *in, pl_chart *c);
/* The paged chart (plot_variants.c): decode rows (one query) that differ only in
 * page_size, tokens/s (batch / median time) against P per kernel, KV type and thread
 * count, the contiguous row's tokens/s beside each point (z) for a dashed reference.
 * Skipped for a results set without such pairs. */
void pl_paged(const pl_inputs *in, pl_chart *c);

#endif

/* plot.h — `headroom plot`: gnuplot charts (PNG + SVG) of a results directory.
 *
 * The C side reads every input (CSV by header name, the ceilings file through
 * hr_ceilings_load, the context block for the titles), chooses what each chart shows and
 * writes one small gnuplot data file per chart (series as blocks separated by two blank
 * lines, sorted by x; repeated x of a series, e.g. sweep passes, collapse to their median).
 * gnuplot then draws plots/<chart>.gp once per format with paths, titles and ranges passed
 * by -e. The .gp scripts only draw; the .dat files stay beside the images, so a chart can
 * be redrawn or restyled by hand. */
#ifndef HR_PLOT_H
#define HR_PLOT_H

#include <limits.h>

/* What to plot. dir: a sweep directory (results/<machine>/<stamp>-<config>) or
 * results/<machine> (its latest/). The inputs are found in dir unless a field names them:
 *   results.csv    dir/results.csv, else dir/latest/results.csv (the sweep)
 *   results.json   beside results.csv (machine, date and ISA for the titles)
 *   ceilings.json  dir/ceilings.json, else beside the sweep's directory
 *   crossover.csv  dir/crossover.csv (crossover may name its directory), with
 *                  crossover_table.csv beside it
 *   kvcache.csv, decode.csv  in dir
 * A file a field names must exist; a file found missing only skips the charts it feeds. */
typedef struct {
    const char *dir;
    const char *out;       /* output directory; NULL: <sweep directory>/plots     */
    const char *ceilings, *crossover, *kvcache, *decode;
    const char *label;     /* titles' "machine, date"; NULL: from the context     */
} hr_plot_opts;

typedef enum { HR_CHART_DRAWN, HR_CHART_SKIPPED, HR_CHART_FAILED } hr_chart_state;

/* What became of one chart. */
typedef struct {
    const char *name;          /* "roofline", "kernels", ...                          */
    hr_chart_state state;
    char why[2 * PATH_MAX + 256]; /* skipped or failed: the one-line reason         */
    char excerpt[4096];        /* failed in gnuplot: its log's first 20 lines         */
} hr_plot_chart;

#define HR_PLOT_NCHARTS 11

typedef struct {
    char out[PATH_MAX + 32];   /* the output directory                                */
    char sweep_dir[PATH_MAX];  /* the directory of the sweep's results.csv            */
    hr_plot_chart charts[HR_PLOT_NCHARTS]; /* in drawing order                       */
    int ncharts, drawn, failed;
} hr_plot_report;

/* Draws every chart its inputs allow into the output directory (made if needed): a chart
 * without data is skipped with a reason; one gnuplot fails on is kept as failed with its
 * messages. Returns HR_OK when the charts were tried (*r says how each went), else
 * HR_EUSAGE with a one-line message: dir is not a directory, a named file is missing, a
 * results.csv or ceilings file cannot be read, gnuplot or plots/roofline.gp is not found,
 * a path or label holds a quote, the output directory cannot be made. */
int hr_plot(const hr_plot_opts *o, hr_plot_report *r);

#endif

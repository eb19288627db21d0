/* site.h — headroom site: a static site (HTML, one folder, nothing fetched from the network)
 * over many results sets: an overview, a page per machine, per results set, per benchmark
 * (history), machine against machine and the peers; charts drawn in the browser by Chart.js. */
#ifndef HR_SITE_H
#define HR_SITE_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "sysinfo.h"

/* The results schema this reader knows: a context "schema_version" other than this is refused
 * (a file without the field is version 1, the rule of base/sysinfo.h). */
#define HR_SITE_SCHEMA HR_RESULTS_SCHEMA
/* Chart.js as Debian's libjs-chart.js installs it (HEADROOM_CHARTJS overrides). */
#define HR_SITE_CHARTJS "/usr/share/javascript/chart.js/chart.min.js"

/* One benchmark of a results set: the median over its repetitions and its row's fields. */
typedef struct {
    char name[320], kernel[64], shape[200], peer[80], bound[24], kv_dtype[16];
    int threads, seq_q, seq_kv;
    double gflops, ms, ai, roof, ceiling, pct, bytes; /* NAN where the file lacks the figure */
} hr_site_row;

/* One results set (a results.json). */
typedef struct {
    char path[4096], dir[4096];     /* the file read and the directory holding it      */
    char machine[96], cpu[128], isa[16], commit[64], when[48], date[48], config[128];
    char slug[200];                 /* its page: r-<slug>.html                          */
    double t;                       /* commit date (else run date), seconds since epoch  */
    int threads;
    hr_site_row *rows;
    int nrows;
} hr_site_run;

/* One point of `headroom ab --out DIR` (DIR/ab.json, its verdicts; DIR/base.json and
 * new.json, the paired repetitions its interval is drawn from). */
typedef struct {
    char name[320], verdict[16];
    double base_ms, new_ms;         /* the medians of the two builds                     */
    double ratio, lo, hi, level;    /* new ÷ base time, its interval (NAN: none), coverage */
    double p_adj;
    int n;                          /* the test's units: rounds (or pairs of one round)   */
} hr_site_abrow;

typedef struct {
    char dir[4096], machine[96], title[200], test[120];
    double alpha;                   /* the interval's coverage is 1 - alpha or more       */
    hr_site_abrow *rows;
    int nrows;
} hr_site_ab;

/* A `headroom crossover --out DIR` of a machine (DIR/crossover.csv, the points measured;
 * DIR/crossover_table.csv, N* per series); the machine is the folder holding DIR, as
 * results/<machine>/crossover-<stamp> names it. */
typedef struct {
    char series[128];               /* "kernel d_model D"                                */
    int n;
    double proj_s, core_s;
} hr_site_xpt;

typedef struct {
    char series[128], note[96];
    double n_star, n_flops;
} hr_site_xrow;

typedef struct {
    char dir[4096], machine[96];
    hr_site_xpt *pts;
    hr_site_xrow *tab;
    int npts, ntab;
} hr_site_cross;

typedef struct {
    hr_site_run *runs;              /* ordered by machine, then t, then path             */
    int nruns, cap;
    hr_site_ab *abs;                /* in the order found                                 */
    hr_site_cross *xs;
    int nabs, nxs;
} hr_site;

/* Reads every results set under paths[0..n): a results.json, a results directory holding
 * one, or a root whose subdirectories (two levels: results/<machine>/<run>) hold them;
 * likewise the directories of `headroom ab --out` (ab.json) and `headroom crossover --out`
 * (crossover.csv); symbolic links are not followed. HR_EUSAGE with one line naming the
 * file: unreadable, not JSON, not a results file, not headroom's (no kernel field), another
 * schema_version, an ab.json without its rows, a crossover.csv without its columns, or
 * nothing found under a path. */
int hr_site_load(hr_site *s, const char *const *paths, int n);
void hr_site_free(hr_site *s);

/* Writes the site of s into out: a temp directory beside it, renamed over out at the end
 * (an out that exists must be a directory a previous site wrote, or empty), so nothing is
 * half-written. chartjs: the file to inline (NULL: no charts, tables only). HR_EUSAGE with
 * one line: out is a file, out inside an input or an input inside out, a write error. */
int hr_site_write(const hr_site *s, const char *out, const char *chartjs);

/* One page of the site in f: title, the page's data (tables, charts, facts; read by the
 * page's script), the navigation ([label, href] pairs), Chart.js's text (NULL: tables only),
 * how the assets come: inline (a page standing alone, such as a sweep's index.html) or from
 * assets/ beside it, and HTML put after the drawn part (NULL: none). HR_OK or HR_EUSAGE. */
int hr_site_page(FILE *f, const char *title, const cJSON *data, const cJSON *nav, const char *chartjs_text,
                 bool inline_assets, const char *extra_html);
/* Chart.js's text for pages (HEADROOM_CHARTJS, else HR_SITE_CHARTJS), or NULL when absent. */
char *hr_site_chartjs(void);
/* The page data of one results set (its rows table, roofline chart, images beside it). */
cJSON *hr_site_run_data(const hr_site_run *r, const char *img_prefix, const char *img_dir);

/* ---- what site.c, site_pages.c and summary.c build pages with ---- */
/* A number, or null where v is not finite. */
void hr_site_num(cJSON *o, const char *k, double v);
/* A column {key, label, num, digits (-1: by magnitude)} appended to cols. */
cJSON *hr_site_col(cJSON *cols, const char *key, const char *label, int num, int digits);
/* A column as hr_site_col takes it, for tables of columns. */
typedef struct {
    const char *key, *label;
    int num, digits;
} hr_site_colspec;
void hr_site_cols(cJSON *cols, const hr_site_colspec *spec, int n); /* hr_site_col of each */
#define HR_SITE_COLS(cols, spec) hr_site_cols(cols, spec, (int)(sizeof spec / sizeof *spec))
/* A table over data[src] (its columns: the array returned). */
cJSON *hr_site_table(cJSON *data, const char *id, const char *title, const char *src);
/* A chart of data[src]: x against y, a series per group; logs: 1 x, 2 y logarithmic; a
 * click on a point shows its row in the table of that id. */
cJSON *hr_site_chart(cJSON *data, const char *id, const char *title, const char *src, const char *x, const char *y,
                     const char *group, int logs, const char *table);
void hr_site_fact(cJSON *data, const char *k, const char *v);
/* The tooltip: n triples {label, key, unit}. */
void hr_site_tip(cJSON *chart, const char *const *tips, int n);
void hr_site_ceilings(const hr_site_row *rows, int n, double *peak, double *bw);
/* The rows as data[key], their table and charts (roofline, per kernel, the KV story). */
void hr_site_rows(cJSON *data, const hr_site_row *rows, int n, const char *key, const char *title);
/* Links to the gnuplot PNG/SVG files of dir (and dir/plots), as prefix + name; each copied
 * into copy_to first when it is not NULL. */
void hr_site_images(cJSON *data, const char *dir, const char *prefix, const char *copy_to);
/* The A/B directory dir (holding ab.json) and the crossover directory dir (holding
 * crossover.csv) into s (site_more.c); HR_OK or HR_EUSAGE with one line. */
int hr_site_add_ab(hr_site *s, const char *dir);
int hr_site_add_cross(hr_site *s, const char *dir);
/* The A/B verdicts on the benchmark `name` as data["ab"] and its table; 0 when none. */
int hr_site_ab_data(cJSON *data, const hr_site *s, const char *name);
/* A machine's crossover (its chart of core ÷ projection time against N and the N* table)
 * as data["crossover"], data["nstar"]; nothing when s holds none for it. */
void hr_site_cross_data(cJSON *data, const hr_site *s, const char *machine);
/* Every page of s into the directory dir (site_pages.c). */
int hr_site_pages(const hr_site *s, const char *dir, const char *chartjs);

/* The template files embedded at build time (site_assets.c), NUL-terminated. */
extern const char hr_site_css[], hr_site_js[];

#endif

/* cmd_report.c — `headroom report`: results of several machines side by side (markdown or
 * CSV tables per shape, gnuplot bar charts). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "paths.h"
#include "cli.h"
#include "commands.h"
#include "gnuplot.h"
#include "report.h"
#include "report_peers.h"
#include "results.h"

static const char *const formats[] = {"markdown", "csv", "table", NULL};

int cmd_report(int argc, char **argv)
{
    char def_out[1024];
    snprintf(def_out, sizeof def_out, "%s/report", hr_results_root());
    const char *out = def_out;
    hr_format format = HR_FMT_MARKDOWN;
    bool no_charts = false, peers = false;
    const char *rel = NULL;
    const hr_opt opts[] = {
        {"--out", HR_OPT_STR, &out, 0, 0, NULL, "DIR", "write report.md, report.csv and the charts here ($HEADROOM_RESULTS or results, /report)"},
        {"--format", HR_OPT_FORMAT, &format, 0, 0, formats, NULL, "what to print on stdout (markdown; table only with --peers)"},
        {"--no-charts", HR_OPT_FLAG, &no_charts, 0, 0, NULL, NULL, "tables only, do not run gnuplot"},
        {"--peers", HR_OPT_FLAG, &peers, 0, 0, NULL, NULL, "print the peer / headroom table (plugin kernels' time over the fastest built-in's) and write peers.md"},
        {"--relative-to", HR_OPT_STR, &rel, 0, 0, NULL, "MACHINE", "add a ratio column: each machine's GFLOP/s over MACHINE's (a column title or machine key)"},
        {NULL},
    };
    const char *syn = "report RESULTS... [--out DIR] [--format markdown|csv|table] [--relative-to MACHINE] [--peers]\n"
                      "  RESULTS: a results.json, or a directory holding one "
                      "(results/<machine>/<stamp>-<config>)";
    char *pos[HR_REPORT_MAX_MACHINES + 1];
    int npos = 0;
    hr_report r = {0};
    int *images = NULL;
    int st = hr_parse(argc, argv, opts, syn, pos, HR_REPORT_MAX_MACHINES + 1, &npos);
    if (st < 0) return HR_OK;
    if (st) goto err;
    if (npos == 0) {
        st = hr_fail("give at least one results directory or results.json");
        goto err;
    }
    if (npos > HR_REPORT_MAX_MACHINES) {
        st = hr_fail("at most %d results files", HR_REPORT_MAX_MACHINES);
        goto err;
    }
    if (format == HR_FMT_TABLE && !peers) {
        st = hr_fail("--format table: only with --peers (the report itself is markdown or csv)");
        goto err;
    }
    for (int i = 0; i < npos; i++)
        if ((st = hr_report_add(&r, pos[i]))) goto err;
    if (peers && !hr_report_has_peers(&r)) {
        st = hr_fail("--peers: no plugin kernel's rows in these results (run the sweep with --plugin FILE.so or "
                     "HEADROOM_PLUGIN_PATH)");
        goto err;
    }
    if (rel && (st = hr_report_relative_to(&r, rel))) goto err;
    if ((st = hr_mkdirs(out))) goto err;
    images = calloc((size_t)r.nshapes + 1, sizeof *images);
    if (!images) {
        st = hr_fail("out of memory");
        goto err;
    }
    int ncharts = 0;
    if (!no_charts) {
        char script[PATH_MAX + 32], why[256];
        if (!hr_plot_script("report.gp", script, sizeof script)) {
            fprintf(stderr, "headroom report: notice: plots/report.gp not found (set HEADROOM_PLOTS); "
                            "no charts, the tables are still written\n");
        } else if ((ncharts = hr_report_charts(&r, out, script, images, why, sizeof why)) < 0) {
            fprintf(stderr, "headroom report: notice: no charts: %s; the tables are still written\n", why);
            memset(images, 0, sizeof *images * (size_t)r.nshapes);
            ncharts = 0;
        }
    }
    /* The files, then the chosen format on stdout. */
    char path[4096];
    const char *names[] = {"report.md", "report.csv", "peers.md"};
    const hr_format shown[] = {HR_FMT_MARKDOWN, HR_FMT_CSV, HR_FMT_MARKDOWN};
    for (int i = 0; i < (peers ? 3 : 2); i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) {
            st = hr_fail("out of memory");
            goto err;
        }
        if (i == 0) hr_report_markdown(&r, f, images), hr_report_peers_markdown(&r, f, "##");
        else if (i == 1) hr_report_csv(&r, f);
        else hr_report_peers_markdown(&r, f, "###");
        fclose(f);
        snprintf(path, sizeof path, "%s/%s", out, names[i]);
        st = hr_write_atomic(path, buf);
        /* stdout: the report in the format asked, or with --peers the peer table */
        if (!st && !peers && shown[i] == format) fputs(buf, stdout);
        if (!st && peers && i == 2 && format == HR_FMT_MARKDOWN) fputs(buf + (buf[0] == '\n'), stdout);
        free(buf);
        if (st) goto err;
    }
    if (peers && format == HR_FMT_TABLE) hr_report_peers_text(&r, stdout);
    if (peers && format == HR_FMT_CSV) hr_report_peers_csv(&r, stdout);
    fprintf(stderr, "headroom report: %d machine%s, %d shape%s: wrote %s/report.md, %s/report.csv%s%s",
            r.nmachines, r.nmachines == 1 ? "" : "s", r.nshapes, r.nshapes == 1 ? "" : "s", out, out,
            peers ? ", peers.md in " : "", peers ? out : "");
    if (ncharts) fprintf(stderr, " and %d chart%s (shape-N.png, .svg)", ncharts, ncharts == 1 ? "" : "s");
    fprintf(stderr, "\n");
    free(images);
    hr_report_free(&r);
    return HR_OK;
err:
    fprintf(stderr, "headroom report: %s\n", hr_errmsg());
    free(images);
    hr_report_free(&r);
    return st;
}

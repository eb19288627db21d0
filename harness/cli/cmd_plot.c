/* cmd_plot.c — `headroom plot DIR`: gnuplot charts (PNG + SVG) from a results directory (analyses/plot). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "headroom.h"
#include "plot.h"
#include "summary.h"

/* Prints what became of each chart: drawn and skipped on stdout, failed on stderr with
 * gnuplot's first messages indented. */
static void print_charts(const hr_plot_report *r)
{
    for (int i = 0; i < r->ncharts; i++) {
        const hr_plot_chart *c = &r->charts[i];
        if (c->state == HR_CHART_DRAWN) printf("wrote %s/%s.png and .svg\n", r->out, c->name);
        else if (c->state == HR_CHART_SKIPPED) printf("skipped %s: %s\n", c->name, c->why);
        else {
            fflush(stdout);
            fprintf(stderr, "headroom plot: %s\n", c->why);
            for (const char *s = c->excerpt; *s;) {
                int n = (int)strcspn(s, "\n");
                fprintf(stderr, "  %.*s\n", n, s);
                s += n + (s[n] != 0);
            }
        }
    }
    fflush(stdout);
}

int cmd_plot(int argc, char **argv)
{
    hr_plot_opts o = {0};
    const hr_opt opts[] = {
        {"--out", HR_OPT_STR, &o.out, 0, 0, NULL, "DIR", "write the charts (PNG, SVG) and their .dat files here (DIR/plots)"},
        {"--ceilings", HR_OPT_STR, &o.ceilings, 0, 0, NULL, "FILE", "roofline ceilings (DIR/ceilings.json, else beside the sweep directory)"},
        {"--crossover", HR_OPT_STR, &o.crossover, 0, 0, NULL, "PATH", "crossover.csv or the directory holding it (DIR/crossover.csv)"},
        {"--kvcache", HR_OPT_STR, &o.kvcache, 0, 0, NULL, "FILE", "headroom kvcache --format csv output (DIR/kvcache.csv)"},
        {"--decode", HR_OPT_STR, &o.decode, 0, 0, NULL, "FILE", "headroom decode-loop --format csv output (DIR/decode.csv)"},
        {"--label", HR_OPT_STR, &o.label, 0, 0, NULL, "TEXT", "machine and date for the titles (from the results' context)"},
        {NULL},
    };
    const char *syn = "plot DIR [--out OUTDIR] [--ceilings FILE] [--crossover PATH] [--kvcache FILE] [--decode FILE]\n"
                      "  DIR: a sweep directory (results/<machine>/<stamp>-<config>) or results/<machine>\n"
                      "  (its latest/). Charts: roofline, kernels, workspace, scaling, crossover, kvcache,\n"
                      "  decode, kvstory (decode-loop --kv-dtype rows), cachecurve (roofline's bandwidth curve),\n"
                      "  window (causal rows of a sliding-window sweep against dense causal),\n"
                      "  paged (decode rows that differ only in page_size: tokens/s against P, contiguous dashed);\n"
                      "  each drawn when its inputs exist. gnuplot: $HEADROOM_GNUPLOT or gnuplot;\n"
                      "  scripts: $HEADROOM_PLOTS, plots/ beside the binary, or <prefix>/share/headroom/plots.";
    char *pos[2];
    int npos = 0;
    hr_plot_report *r = NULL;
    int st = hr_parse(argc, argv, opts, syn, pos, 2, &npos);
    if (st < 0) return HR_OK;
    if (st) goto err;
    if (npos != 1) {
        st = hr_fail(npos ? "give one results directory" : "give a results directory (see --help)");
        goto err;
    }
    o.dir = pos[0];
    if (!(r = malloc(sizeof *r))) {
        st = hr_fail("out of memory");
        goto err;
    }
    if ((st = hr_plot(&o, r))) goto err;
    print_charts(r);
    if (r->failed) st = hr_fail("%d chart(s) could not be drawn", r->failed);
    else if (!r->drawn)
        st = hr_fail("%s: nothing to plot (no results.csv, ceilings.json, crossover.csv, kvcache.csv or decode.csv)", o.dir);
    /* The sweep's index.html again, now with the charts inline (where a sweep wrote one). */
    char ix[PATH_MAX + 32];
    snprintf(ix, sizeof ix, "%s/index.html", r->sweep_dir);
    if (!st && !access(ix, W_OK)) {
        if (hr_summary_write(r->sweep_dir, r->out, NULL))
            fprintf(stderr, "headroom plot: note: index.html not rewritten: %s\n", hr_errmsg());
        else printf("wrote %s with the charts inline\n", ix);
    }
    if (!st) printf("%d chart(s) in %s\n", r->drawn, r->out);
    if (st) goto err;
    free(r);
    return HR_OK;
err:
    free(r);
    fprintf(stderr, "headroom plot: %s\n", hr_errmsg());
    return st;
}

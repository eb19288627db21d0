/* cmd_site.c — headroom site: a static site over many results sets (any machines, commits, configs). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "headroom.h"
#include "site.h"

static const char synopsis[] =
    "site RESULTS... --out DIR [--no-charts]\n\n"
    "Writes one static site into DIR from every results set under RESULTS... (results.json\n"
    "files, results directories, or results roots such as results/ or results/<machine>,\n"
    "two levels deep; symbolic links such as latest/ are not followed): an overview\n"
    "(machines x kernels: best GFLOP/s, median % of roof, what binds), a page per machine\n"
    "(ceilings, a roofline whose points name their row, GFLOP/s per kernel, the KV story\n"
    "where decode rows exist: step time against cache length, bytes per token against\n"
    "steps per second; the crossover where a `headroom crossover --out` directory sits\n"
    "beside its results), a page per results set (its gnuplot PNG/SVG copied and linked), a\n"
    "page per benchmark with its history across commits (the change points and verdicts of\n"
    "`headroom history`, per machine) and the verdicts of any `headroom ab --out` directory\n"
    "that measured it (ratio, its interval, verdict), machine against machine (the newest set\n"
    "of each machine, as `headroom report`) and the peers where plugin rows exist. Every\n"
    "table sorts and filters; light and dark themes; it opens from file:// and any static\n"
    "host, and fetches nothing. Charts are drawn in the browser by Chart.js, inlined from\n"
    "Debian's libjs-chart.js ($HEADROOM_CHARTJS overrides the file); without it the site\n"
    "has tables only, with a one-line notice. DIR is written whole or not at all: a temp\n"
    "directory beside it, renamed into place; an existing DIR must be empty or a site\n"
    "headroom wrote.\n\n"
    "Exit status: 0 written; 2 unusable input (a results file that cannot be read, is not\n"
    "headroom's, or of another schema_version; an ab.json without its rows, a crossover.csv\n"
    "without its columns; DIR a file, inside an input or holding one).";

int cmd_site(int argc, char **argv)
{
    const char *out = NULL;
    bool no_charts = false;
    const hr_opt opts[] = {
        {"--out", HR_OPT_STR, &out, 0, 0, NULL, "DIR", "the site's directory (required)"},
        {"--no-charts", HR_OPT_FLAG, &no_charts, 0, 0, NULL, NULL, "tables only: do not inline Chart.js"},
        {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
    };
    enum { MAXIN = 4096 };
    static char *pos[MAXIN];
    int npos = 0;
    int st = hr_parse(argc, argv, opts, synopsis, pos, MAXIN, &npos);
    if (st < 0) return HR_OK;
    if (!st && npos == 0) st = hr_fail("RESULTS: expected one or more results directories, files or roots");
    if (!st && !out) st = hr_fail("--out: required (the site's directory)");
    const char *chartjs = getenv("HEADROOM_CHARTJS");
    if (!chartjs || !*chartjs) chartjs = HR_SITE_CHARTJS;
    if (!st && !no_charts && access(chartjs, R_OK)) {
        fprintf(stderr, "headroom site: notice: %s not found (apt-get install libjs-chart.js): tables only, no charts\n", chartjs);
        no_charts = true;
    }
    hr_site s = {0};
    if (!st) st = hr_site_load(&s, (const char *const *)pos, npos);
    if (!st) st = hr_site_write(&s, out, no_charts ? NULL : chartjs);
    if (st) fprintf(stderr, "headroom site: %s\n", hr_errmsg());
    else printf("site: %s/index.html (%d results sets)\n", out, s.nruns);
    hr_site_free(&s);
    return st ? HR_EUSAGE : HR_OK;
}

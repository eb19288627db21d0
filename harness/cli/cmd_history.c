/* cmd_history.c — headroom history: runs of one machine ordered by commit date; the trend table, change points, a chart; --check gates CI on the newest run. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "headroom.h"
#include "history.h"

static const char synopsis[] =
    "history DIR... [--check] [--out DIR] [--no-plot] [options]\n\n"
    "Reads every run under DIR... (results directories, results.json files, or a results\n"
    "root such as results/<machine>, whose subdirectories are the runs), orders the runs by\n"
    "their commit's date (the context's git_commit_time, else the run's date), and prints a\n"
    "table per benchmark: median real time and spread (1.4826 MAD / median) per run, GFLOP/s,\n"
    "fraction of the roof, and the change against the runs before it (base: median of their\n"
    "medians over --window runs). A point is a change point when the change is beyond\n"
    "max(--k x 1.4826 MAD of the base medians, --threshold) and a Mann-Whitney U test of\n"
    "its repetitions against the base runs' repetitions pooled gives p < --alpha (where\n"
    "both sides have 2 or more). Draws OUT/history.png and .svg (GFLOP/s and fraction of\n"
    "the roof per kernel over the runs). Runs of different machines or thread counts are\n"
    "refused unless --mix.\n\n"
    "Exit status: 0; 1 with --check when the newest run is a slower change point of any\n"
    "benchmark; 2 unusable input.";

static bool is_dir(const char *p)
{
    struct stat sb;
    return !stat(p, &sb) && S_ISDIR(sb.st_mode);
}

int cmd_history(int argc, char **argv)
{
    hr_hist_opts o = {.k = 3, .threshold_pct = 5, .alpha = 0.05, .window = 8};
    bool check = false, no_plot = false;
    const char *out = NULL;
    const hr_opt opts[] = {
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL, "exit 1 when the newest run is a slower change point"},
        {"--k", HR_OPT_DOUBLE, &o.k, 0, 100, NULL, "K", "band: K x 1.4826 MAD of the base runs' medians (default 3)"},
        {"--threshold", HR_OPT_DOUBLE, &o.threshold_pct, 0, 1000, NULL, "PCT",
         "smallest change (%) that counts (default 5)"},
        {"--alpha", HR_OPT_DOUBLE, &o.alpha, 1e-12, 1, NULL, "A", "U test level (default 0.05)"},
        {"--window", HR_OPT_INT, &o.window, 1, 1000, NULL, "N", "runs before a point it is judged against (default 8)"},
        {"--mix", HR_OPT_FLAG, &o.mix, 0, 0, NULL, NULL, "allow runs of several machines or thread counts"},
        {"--filter", HR_OPT_STR, &o.filter, 0, 0, NULL, "REGEX", "only benchmarks whose name matches (POSIX extended)"},
        {"--out", HR_OPT_STR, &out, 0, 0, NULL, "DIR", "where the chart goes (default: DIR/history, the first DIR)"},
        {"--no-plot", HR_OPT_FLAG, &no_plot, 0, 0, NULL, NULL, "print the table only"},
        {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
    };
    enum { MAXDIRS = 256 };
    char *pos[MAXDIRS];
    int npos = 0;
    int st = hr_parse(argc, argv, opts, synopsis, pos, MAXDIRS, &npos);
    if (st < 0) return HR_OK;
    if (!st && npos == 0) st = hr_fail("DIR: expected one or more results directories or a results root");
    hr_history h;
    if (!st) st = hr_history_load((const char *const *)pos, npos, &o, &h);
    if (st) {
        fprintf(stderr, "headroom history: %s\n", hr_errmsg());
        return HR_EUSAGE;
    }
    hr_history_print(stdout, &h);
    if (!no_plot) {
        char dir[1100], why[1200];
        if (out) snprintf(dir, sizeof dir, "%s", out);
        else if (is_dir(pos[0])) snprintf(dir, sizeof dir, "%s/history", pos[0]);
        else snprintf(dir, sizeof dir, "%.*shistory", strrchr(pos[0], '/') ? (int)(strrchr(pos[0], '/') - pos[0] + 1) : 0, pos[0]);
        int drawn = hr_history_plot(&h, dir, why, sizeof why);
        if (drawn > 0) printf("chart: %s/history.png, %s/history.svg\n", dir, dir);
        else fprintf(stderr, "headroom history: %s: no chart: %s\n", drawn < 0 ? "warning" : "note", why);
    }
    st = check && h.newest_slower ? HR_EFAIL : HR_OK;
    if (fflush(stdout)) st = hr_fail("cannot write to stdout"), fprintf(stderr, "headroom history: %s\n", hr_errmsg());
    hr_history_free(&h);
    return st;
}

/* cmd_sweep.c — `headroom sweep`: measure a config's cartesian product into a results directory. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "sweep.h"
#include "wisdom.h"

static volatile sig_atomic_t stop_flag;

/* The first SIGINT/SIGTERM asks the sweep to stop after writing what it has; the
 * handler resets itself, so a second one kills the process. */
static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* The config copy kept in a results directory (the one *.ini file there). */
static int find_config(const char *dir, char *buf, size_t len)
{
    DIR *d = opendir(dir);
    if (!d) return hr_fail("--resume: cannot open %s", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".ini")) {
            snprintf(buf, len, "%s/%s", dir, e->d_name);
            n++;
        }
    }
    closedir(d);
    if (n != 1) return hr_fail("--resume: %s holds %d config copies (*.ini); name the CONFIG", dir, n);
    return HR_OK;
}

int cmd_sweep(int argc, char **argv)
{
    const char *out = NULL, *resume = NULL, *filter = NULL, *wisdom = NULL;
    bool no_wisdom = false;
    int reps = 0;
    double min_time = -1, max_mem = 0;
    bool check = false, dry = false, probe = false, no_probe = false, phase_filter = false;
    bool interleave = false, no_interleave = false;
    const hr_opt opts[] = {
        {"--out", HR_OPT_STR, &out, 0, 0, NULL, "DIR", "results directory (results/<machine>/<stamp>-<config>)"},
        {"--resume", HR_OPT_STR, &resume, 0, 0, NULL, "DIR", "continue an interrupted sweep in DIR, skipping measured points"},
        {"--reps", HR_OPT_INT, &reps, 1, HR_MAX_REPS, NULL, "R", "timed repetitions per point (config; 9)"},
        {"--min-time", HR_OPT_DOUBLE, &min_time, 0, 3600, NULL, "SEC", "minimum seconds per repetition (config; 0.05)"},
        {"--max-mem", HR_OPT_BYTES, &max_mem, 1, 1e18, NULL, "BYTES", "memory budget; bigger points are skipped (half of RAM)"},
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL, "check every point against the oracle before timing"},
        {"--dry-run", HR_OPT_FLAG, &dry, 0, 0, NULL, NULL, "list the points and skips, measure nothing"},
        {"--filter", HR_OPT_STR, &filter, 0, 0, NULL, "K1,K2", "only these kernels (comma list)"},
        {"--wisdom", HR_OPT_STR, &wisdom, 0, 0, NULL, "FILE", "tuned parameters ($HEADROOM_WISDOM or results/<machine>/wisdom.json)"},
        {"--no-wisdom", HR_OPT_FLAG, &no_wisdom, 0, 0, NULL, NULL, "ignore wisdom: the config's tunables, else kernel defaults"},
        {"--probe", HR_OPT_FLAG, &probe, 0, 0, NULL, NULL, "probe the concurrent ceiling around every repetition (config; on)"},
        {"--no-probe", HR_OPT_FLAG, &no_probe, 0, 0, NULL, NULL, "no probes: no frac_of_ceiling, no phase flags"},
        {"--phase-filter", HR_OPT_FLAG, &phase_filter, 0, 0, NULL, NULL, "leave repetitions that changed phase out of the medians"},
        {"--interleave", HR_OPT_FLAG, &interleave, 0, 0, NULL, NULL, "spread the repetitions of a shape's points over shuffled rounds (config; on)"},
        {"--no-interleave", HR_OPT_FLAG, &no_interleave, 0, 0, NULL, NULL, "measure point after point"},
        {NULL},
    };
    const char *syn = "sweep CONFIG [--out DIR] [--resume DIR] [--reps R] [--min-time S] [--max-mem BYTES] "
                      "[--check] [--dry-run] [--filter KERNELS]\n\n"
                      "Measures every point of CONFIG's cartesian product (see configs/*.ini) into\n"
                      "results.json (Google Benchmark schema), results.csv, rows.jsonl and a copy of the\n"
                      "config. Ctrl-C keeps every finished row (exit 130); --resume DIR continues.";
    char *pos[1];
    int npos = 0;
    int st = hr_parse(argc, argv, opts, syn, pos, 1, &npos);
    if (st < 0) return HR_OK;
    char cfgpath[1100];
    if (!st && npos == 0) {
        if (resume) st = find_config(resume, cfgpath, sizeof cfgpath);
        else st = hr_fail("CONFIG: required (e.g. configs/default.ini)");
    } else if (!st) {
        snprintf(cfgpath, sizeof cfgpath, "%s", pos[0]);
    }
    if (!st && probe && no_probe) st = hr_fail("--probe: not with --no-probe");
    if (!st && interleave && no_interleave) st = hr_fail("--interleave: not with --no-interleave");
    if (!st && out && resume) st = hr_fail("--out: not with --resume (the results go to the resumed directory)");
    static hr_sweep_config cfg;
    if (!st) st = hr_config_load(cfgpath, &cfg);
    cfg.wisdom = !no_wisdom;
    cfg.wisdom_path = wisdom;
    if (!st && cfg.wisdom) { /* a corrupt wisdom file is bad input, found before anything runs */
        const hr_problem p = {1, 1, 1, 1, 1, 1, false, 0};
        if (hr_wisdom_find(wisdom, cfg.kernels[0] ? cfg.kernels[0] : hr_kernels[0], &p, 0, NULL) < 0) st = HR_EUSAGE;
    }
    if (st) {
        fprintf(stderr, "headroom sweep: %s\n", hr_errmsg());
        return st;
    }
    hr_sweep_opts o = {.out_dir = out, .resume_dir = resume, .filter = filter, .reps = reps,
                       .min_time = min_time, .max_mem = max_mem, .check = check, .dry_run = dry,
                       .probe_flag = probe ? 1 : no_probe ? 2 : 0, .phase_filter = phase_filter,
                       .interleave_flag = interleave ? 1 : no_interleave ? 2 : 0,
                       .progress_tty = isatty(2), .stop = &stop_flag};
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    st = hr_sweep_run(&cfg, &o);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (st == HR_EUSAGE) fprintf(stderr, "headroom sweep: %s\n", hr_errmsg());
    return st;
}

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
    const char *out = NULL, *resume = NULL, *filter = NULL, *shard = NULL;
    hr_timing_flags tf;
    hr_probe_flags pf;
    hr_dtype_flags types;
    hr_dtype_flags_init(&types, "Q/K/V/O type for every point (the config's dtype)",
                        "K/V type for every point (the config's kv_dtype, else --dtype)");
    hr_wisdom_flags wf;
    hr_timing_flags_init(&tf, HR_TF_REPS | HR_TF_MIN_TIME);
    tf.reps = 0, tf.min_time = -1; /* unset: the config's */
    hr_opt_help(tf.opts, "--reps", "timed repetitions per point (config; 9)");
    hr_opt_help(tf.opts, "--min-time", "minimum seconds per repetition (config; 0.05)");
    hr_probe_flags_init(&pf, 0);
    hr_opt_help(pf.opts, "--probe", "probe the concurrent ceiling around every repetition (config; on)");
    hr_wisdom_flags_init(&wf, true);
    hr_opt_help(wf.opts, "--no-wisdom", "ignore wisdom: the config's tunables, else kernel defaults");
    double max_mem = 0;
    bool check = false, dry = false, aggs = false, quiet = false;
    bool interleave = false, no_interleave = false, retry = false;
    hr_worker_flags wk;
    hr_worker_flags_init(&wk, "60 per step of a point, or 20 times its estimated cost where more");
    const hr_opt opts[] = {
        {"--out", HR_OPT_STR, &out, 0, 0, NULL, "DIR", "results directory (results/<machine>/<stamp>-<config>)"},
        {"--resume", HR_OPT_STR, &resume, 0, 0, NULL, "DIR", "continue an interrupted sweep in DIR from the next repetition of each unfinished point"},
        {"timing", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL},
        {"--max-mem", HR_OPT_BYTES, &max_mem, 1, 1e18, NULL, "BYTES", "memory budget; bigger points are skipped (half of RAM)"},
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL, "check every point against the oracle before timing"},
        {"--dry-run", HR_OPT_FLAG, &dry, 0, 0, NULL, NULL, "list the points and skips, measure nothing"},
        {"--aggregates-only", HR_OPT_FLAG, &aggs, 0, 0, NULL, NULL, "results.json without per-repetition rows (as --benchmark_report_aggregates_only; rows.jsonl keeps them)"},
        {"--filter", HR_OPT_STR, &filter, 0, 0, NULL, "K1,K2", "only these kernels (comma list)"},
        {"--shard", HR_OPT_STR, &shard, 0, 0, NULL, "K/N|slurm", "only shard K of N (1 <= K <= N), split by estimated cost; slurm: K and N of this job array task"},
        {"types", HR_OPT_GROUP, types.opts, 0, 0, NULL, NULL, NULL},
        {"wisdom", HR_OPT_GROUP, wf.opts, 0, 0, NULL, NULL, NULL},
        {"probes", HR_OPT_GROUP, pf.opts, 0, 0, NULL, NULL, NULL},
        {"--interleave", HR_OPT_FLAG, &interleave, 0, 0, NULL, NULL, "spread the repetitions of a shape's points over shuffled rounds (config; on)"},
        {"--no-interleave", HR_OPT_FLAG, &no_interleave, 0, 0, NULL, NULL, "measure point after point"},
        {"--quiet", HR_OPT_FLAG, &quiet, 0, 0, NULL, NULL, "warnings only into results.json's context, not stderr"},
        {"workers", HR_OPT_GROUP, wk.opts, 0, 0, NULL, NULL, NULL},
        {"--retry-failed", HR_OPT_FLAG, &retry, 0, 0, NULL, NULL, "with --resume: measure the points that failed in their worker again"},
        HR_PLUGIN_OPT,
        {NULL},
    };
    const char *syn = "sweep CONFIG [--out DIR] [--resume DIR] [--reps R] [--min-time S] [--max-mem BYTES] "
                      "[--check] [--dry-run] [--filter KERNELS] [--aggregates-only] [--shard K/N|slurm]\n\n"
                      "Measures every point of CONFIG's cartesian product (see configs/*.ini) into\n"
                      "results.json (Google Benchmark schema), results.csv, rows.jsonl and a copy of the\n"
                      "config, then summary.md and index.html, and prints a shape x kernel table\n"
                      "(GFLOP/s, % of roof). Every repetition is journaled (reps.jsonl) as it finishes: Ctrl-C\n"
                      "(exit 130) or a kill keeps all of them; --resume DIR continues.\n"
                      "Points are measured in a worker process: a kernel that crashes, exits or runs\n"
                      "past --timeout fails its point only (recorded with the reason; exit 4).\n"
                      "--shard K/N measures a deterministic 1/N of the points (balanced by estimated\n"
                      "cost) and writes shard.json beside them; `headroom merge` joins the shards.\n"
                      "--shard slurm takes K and N from SLURM_ARRAY_TASK_ID/_MIN/_COUNT (never implicit).";
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
    if (!st) st = hr_probe_flags_check(&pf);
    hr_shard sh = {0, 0};
    if (!st && shard) st = hr_shard_parse(shard, &sh);
    if (!st && interleave && no_interleave) st = hr_fail("--interleave: not with --no-interleave");
    if (!st && out && resume) st = hr_fail("--out: not with --resume (the results go to the resumed directory)");
    if (!st && retry && !resume) st = hr_fail("--retry-failed: only with --resume DIR (a new sweep has no failed points)");
    static hr_sweep_config cfg;
    if (!st) st = hr_config_load(cfgpath, &cfg);
    /* --dtype / --kv-dtype replace the config's dtype and kv_dtype lists. */
    if (!st && (types.dtype >= 0 || types.kv_dtype >= 0)) {
        hr_problem tp = {0};
        hr_dtype_flags_apply(&types, &tp);
        cfg.ndtype = cfg.nkv_dtype = 1;
        cfg.dtype[0] = tp.dtype;
        cfg.kv_dtype[0] = tp.kv_dtype;
    }
    cfg.wisdom = !wf.off;
    cfg.wisdom_path = wf.path;
    if (!st && cfg.wisdom) { /* a corrupt wisdom file is bad input, found before anything runs */
        const hr_problem p = {1, 1, 1, 1, 1, 1, false, 0, HR_F32, HR_F32, 0, 0, 0, 0};
        if (hr_wisdom_find(wf.path, cfg.kernels[0] ? cfg.kernels[0] : hr_kernels[0], &p, 0, NULL) < 0) st = HR_EUSAGE;
    }
    if (st) {
        fprintf(stderr, "headroom sweep: %s\n", hr_errmsg());
        return st;
    }
    hr_sweep_opts o = {.out_dir = out, .resume_dir = resume, .filter = filter, .reps = tf.reps,
                       .min_time = tf.min_time, .max_mem = max_mem, .check = check, .dry_run = dry, .aggregates_only = aggs,
                       .probe_flag = pf.probe ? 1 : pf.no_probe ? 2 : 0, .phase_filter = pf.filter,
                       .interleave_flag = interleave ? 1 : no_interleave ? 2 : 0,
                       .progress_tty = isatty(2), .shard = sh, .quiet = quiet, .table = stdout, .stop = &stop_flag,
                       .in_process = wk.in_process, .timeout = wk.timeout, .retry_failed = retry};
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

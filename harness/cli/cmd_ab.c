/* cmd_ab.c — `headroom ab BASE NEW CONFIG`: two builds measured interleaved pair by pair, judged on the paired ratios; and the hidden `ab-worker`. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "ab.h"
#include "cli.h"
#include "commands.h"
#include "files.h"

static const char synopsis[] =
    "ab BASE_BINARY NEW_BINARY CONFIG [options]\n\n"
    "The strongest verdict when both builds are at hand (a pull request against its base):\n"
    "each binary runs as a worker (BIN ab-worker CONFIG). In each of --rounds rounds (12)\n"
    "both workers are started afresh (which one first alternates), every point of the\n"
    "config is prepared on both and measured in --reps pairs (3) of repetitions taken next\n"
    "to each other in ABBA order, so both builds see the same phases of the machine. Per\n"
    "point, a round's value is the median over its pairs of log(new/base); the estimate is\n"
    "exp(median over the rounds) - 1 and the test a two-sided Wilcoxon signed-rank test of\n"
    "the rounds' values, corrected over all points (--correction). Rounds, not pairs, are\n"
    "the test's unit because a process carries a difference of its own (where its memory\n"
    "landed: 2-8% on in-cache points of a VM) that its pairs cannot average out. --rounds 1\n"
    "tests the pairs of one worker each (give it --reps 15 or more). REGRESSION when slower\n"
    "by more than --threshold with corrected p < --alpha; IMPROVEMENT likewise; else same\n"
    "or noise. Both builds run the config's tunables (no wisdom) without probes. A binary\n"
    "may be a wrapper script that execs headroom with its arguments.\n\n"
    "Exit status: 0 no regression, 1 at least one regression, 2 unusable input (a binary\n"
    "that cannot run or is not a headroom of this protocol, configs that expand differently,\n"
    "a worker that dies or does not answer within HEADROOM_AB_TIMEOUT seconds, default 300).";

static const char *const formats[] = {"table", "markdown", "json", NULL};

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

int cmd_ab(int argc, char **argv)
{
    hr_ab_opts o = {.worker = {.reps = 3, .min_time = -1, .seed = -1}, .rounds = 12,
                    .judge = {.threshold_pct = 2, .alpha = 0.05, .metric = HR_METRIC_TIME},
                    .timeout = 300, .stop = &stop_flag};
    int correction = HR_PADJ_HOLM;
    hr_format format = HR_FMT_TABLE;
    const hr_opt opts[] = {
        {"--reps", HR_OPT_INT, &o.worker.reps, 2, HR_MAX_REPS, NULL, "R", "pairs of repetitions per point and round (default 3)"},
        {"--rounds", HR_OPT_INT, &o.rounds, 1, 100, NULL, "K",
         "fresh worker pairs, each measuring every point in --reps pairs; K > 1 tests the rounds (default 12)"},
        {"--min-time", HR_OPT_DOUBLE, &o.worker.min_time, 0, 3600, NULL, "SEC", "minimum seconds per repetition (config's)"},
        {"--seed", HR_OPT_INT, &o.worker.seed, 0, 2147483647, NULL, "S", "input seed (config's)"},
        {"--filter", HR_OPT_STR, &o.worker.filter, 0, 0, NULL, "K,K", "only these kernels of the config"},
        {"--threshold", HR_OPT_DOUBLE, &o.judge.threshold_pct, 0, 1000, NULL, "PCT",
         "smallest paired change (%) that counts (default 2)"},
        {"--alpha", HR_OPT_DOUBLE, &o.judge.alpha, 1e-12, 1, NULL, "A", "significance level after the correction (default 0.05)"},
        {"--correction", HR_OPT_ENUM, &correction, 0, 0, hr_padj_names, NULL, "holm, bh or none over the points (default holm)"},
        {"--out", HR_OPT_STR, &o.out_dir, 0, 0, NULL, "DIR", "write base.json, new.json (results) and ab.json (verdicts) there"},
        HR_FORMAT_OPT(&format, formats),
        {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
    };
    char *pos[3];
    int npos = 0;
    int st = hr_parse(argc, argv, opts, synopsis, pos, 3, &npos);
    if (st < 0) return 0;
    if (st == HR_OK && npos != 3) st = hr_fail("expected BASE_BINARY NEW_BINARY CONFIG (got %d arguments)", npos);
    if (!st && (long)o.rounds * o.worker.reps > HR_MAX_REPS)
        st = hr_fail("--rounds x --reps: at most %d repetitions a point (got %d x %d)", HR_MAX_REPS, o.rounds, o.worker.reps);
    const char *t = getenv("HEADROOM_AB_TIMEOUT");
    if (!st && t && !((o.timeout = atof(t)) > 0))
        st = hr_fail("HEADROOM_AB_TIMEOUT: expected seconds > 0, got '%s'", t);
    if (st) {
        fprintf(stderr, "headroom ab: %s\n", hr_errmsg());
        return HR_EUSAGE;
    }
    o.base_bin = pos[0], o.new_bin = pos[1], o.worker.config = pos[2];
    o.judge.correction = (hr_padj)correction;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    hr_ab_result r;
    st = hr_ab_run(&o, &r);
    if (st) {
        fprintf(stderr, "headroom ab: %s\n", hr_errmsg());
        hr_ab_free(&r);
        return st;
    }
    for (int i = 0; i < r.cmp.nwarn; i++) fprintf(stderr, "headroom ab: warning: %s\n", r.cmp.warn[i]);
    if (format == HR_FMT_TABLE) hr_cmp_print_table(stdout, &r.cmp);
    else if (format == HR_FMT_MARKDOWN) hr_cmp_print_markdown(stdout, &r.cmp);
    else {
        cJSON *j = hr_cmp_json(&r.cmp);
        char *text = j ? hr_json_text(j, 1) : NULL;
        if (text) printf("%s\n", text);
        else st = hr_fail("out of memory");
        free(text);
        cJSON_Delete(j);
    }
    if (!st) st = hr_cmp_status(&r.cmp);
    hr_ab_free(&r);
    return st; /* main checks stdout: a lost report is exit 2 with its one line */
}

static const char *const via_names[] = {"direct", "in-process", "worker", NULL};

int cmd_ab_worker(int argc, char **argv)
{
    hr_ab_worker_opts o = {.reps = 15, .min_time = -1, .seed = -1};
    const hr_opt opts[] = {
        {"--reps", HR_OPT_INT, &o.reps, 1, HR_MAX_REPS, NULL, "R", "repetitions the driver asks for"},
        {"--min-time", HR_OPT_DOUBLE, &o.min_time, 0, 3600, NULL, "SEC", "minimum seconds per repetition (config's)"},
        {"--seed", HR_OPT_INT, &o.seed, 0, 2147483647, NULL, "S", "input seed (config's)"},
        {"--filter", HR_OPT_STR, &o.filter, 0, 0, NULL, "K,K", "only these kernels"},
        {"--via", HR_OPT_ENUM, &o.via, 0, 0, via_names, NULL, "measure as: direct, a sweep in-process, a sweep's worker (direct)"},
        {NULL, 0, NULL, 0, 0, NULL, NULL, NULL},
    };
    char *pos[1];
    int npos = 0;
    int st = hr_parse(argc, argv, opts, "ab-worker CONFIG [options]   (spoken to by headroom ab)", pos, 1, &npos);
    if (st < 0) return 0;
    if (st == HR_OK && npos != 1) st = hr_fail("expected CONFIG");
    if (st) {
        fprintf(stderr, "headroom ab-worker: %s\n", hr_errmsg());
        return HR_EUSAGE;
    }
    o.config = pos[0];
    /* An error here was replied on stdout ({"error": ...}), which ab prints as its one
     * line; saying it on the shared stderr too would make three. */
    return hr_ab_worker(&o, stdin, stdout);
}

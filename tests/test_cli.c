/* test_cli.c — the option tables: flag groups spliced into a command, their members,
 * defaults and rewording, the --format enum over a command's subset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inputs.h"
#include "t.h"

/* Parses the words of line (at most 15) as a command's arguments against opts. */
static int parse(const hr_opt *opts, const char *line)
{
    static char buf[512];
    char *argv[16] = {"cmd"};
    int argc = 1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 16; w = strtok(NULL, " ")) argv[argc++] = w;
    return hr_parse(argc, argv, opts, "cmd", NULL, 0, NULL);
}

/* The --help text of opts. */
static void usage(const hr_opt *opts, char *buf, size_t len)
{
    FILE *f = fmemopen(buf, len, "w");
    hr_usage(f, "cmd", opts);
    fclose(f);
}

HR_TEST(cli_timing_group_members_and_defaults)
{
    hr_timing_flags tf;
    hr_timing_flags_init(&tf, HR_TF_ALL);
    CHECK(tf.reps == 9 && tf.min_time == 0.05 && tf.warmup == 0.1 && !tf.cold && tf.seed == 1);
    const hr_opt all[] = {{"t", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL}, {NULL}};
    CHECK(parse(all, "--reps 3 --min-time=0.5 --warmup 0 --cold --seed 7 --dist uniform") == HR_OK);
    hr_timer_opts o = hr_timing_flags_timer(&tf);
    CHECK(o.reps == 3 && o.min_time == 0.5 && o.warmup == 0 && o.cold && tf.seed == 7);
    CHECK(tf.dist == HR_DIST_UNIFORM && !o.before_rep && !o.stop);
    CHECK(parse(all, "--reps 0") == HR_EUSAGE && strstr(hr_errmsg(), "--reps: must be in [1, 1024]"));

    /* A command that takes some members, with its own default and help. */
    hr_timing_flags_init(&tf, HR_TF_MIN_TIME | HR_TF_SEED);
    tf.min_time = 0.02;
    hr_opt_help(tf.opts, "--min-time", "seconds per timed sample (0.02)")->hi = 60;
    const hr_opt some[] = {{"t", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL}, {NULL}};
    CHECK(parse(some, "--reps 3") == HR_EUSAGE && strstr(hr_errmsg(), "unknown option '--reps'"));
    CHECK(parse(some, "--min-time 61") == HR_EUSAGE && strstr(hr_errmsg(), "[0, 60]"));
    CHECK(parse(some, "--seed 2") == HR_OK && tf.seed == 2 && tf.min_time == 0.02);
    char text[2048];
    usage(some, text, sizeof text);
    CHECK(strstr(text, "--min-time SEC") && strstr(text, "seconds per timed sample (0.02)"));
    CHECK(strstr(text, "--seed S") && !strstr(text, "--warmup") && !strstr(text, "--dist"));
    /* --help lists the members in the group's order. */
    CHECK(strstr(text, "--min-time") < strstr(text, "--seed"));
}

HR_TEST(cli_probe_and_wisdom_groups)
{
    hr_probe_flags pf;
    hr_probe_flags_init(&pf, HR_PF_ALL);
    const hr_opt p[] = {{"p", HR_OPT_GROUP, pf.opts, 0, 0, NULL, NULL, NULL}, {NULL}};
    CHECK(pf.kind == HR_PROBE_AUTO && pf.pct == 10 && hr_probe_flags_kind(&pf) == HR_PROBE_AUTO);
    CHECK(parse(p, "--probe-kind bw --phase-threshold 25 --phase-filter") == HR_OK);
    CHECK(hr_probe_flags_check(&pf) == HR_OK && hr_probe_flags_kind(&pf) == HR_PROBE_BW && pf.pct == 25);
    CHECK(parse(p, "--no-probe") == HR_OK && hr_probe_flags_check(&pf) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "--phase-filter: needs the probes"));
    hr_probe_flags_init(&pf, HR_PF_ALL);
    CHECK(parse(p, "--probe --no-probe") == HR_OK && hr_probe_flags_check(&pf) == HR_EUSAGE);
    CHECK(strstr(hr_errmsg(), "--probe: not with --no-probe"));
    hr_probe_flags_init(&pf, HR_PF_ALL);
    CHECK(parse(p, "--probe-kind none") == HR_OK && hr_probe_flags_check(&pf) == HR_EUSAGE);
    hr_probe_flags_init(&pf, HR_PF_ALL);
    CHECK(parse(p, "--no-probe") == HR_OK && hr_probe_flags_kind(&pf) == HR_PROBE_OFF);
    /* Without the optional members (sweep). */
    hr_probe_flags_init(&pf, 0);
    CHECK(parse(p, "--probe-kind fma") == HR_EUSAGE && parse(p, "--phase-threshold 5") == HR_EUSAGE);
    CHECK(parse(p, "--probe --phase-filter") == HR_OK && pf.probe && pf.filter);

    hr_wisdom_flags wf;
    hr_wisdom_flags_init(&wf, false);
    const hr_opt w[] = {{"w", HR_OPT_GROUP, wf.opts, 0, 0, NULL, NULL, NULL}, {NULL}};
    CHECK(parse(w, "--no-wisdom") == HR_EUSAGE);
    CHECK(parse(w, "--wisdom /tmp/x.json") == HR_OK && !strcmp(wf.path, "/tmp/x.json") && !wf.off);
    hr_wisdom_flags_init(&wf, true);
    CHECK(!wf.path && parse(w, "--no-wisdom") == HR_OK && wf.off);
}

HR_TEST(cli_format_enum_over_a_subset)
{
    static const char *const some[] = {"table", "json", NULL};
    hr_format f = HR_FMT_TABLE;
    const hr_opt o[] = {HR_FORMAT_OPT(&f, some), {NULL}};
    CHECK(parse(o, "--format json") == HR_OK && f == HR_FMT_JSON);
    CHECK(parse(o, "--format table") == HR_OK && f == HR_FMT_TABLE);
    CHECK(parse(o, "--format csv") == HR_EUSAGE && f == HR_FMT_TABLE);
    CHECK(strstr(hr_errmsg(), "--format: expected one of table|json, got 'csv'"));
    static const char *const md[] = {"markdown", "csv", NULL};
    CHECK(parse((hr_opt[]){HR_FORMAT_OPT(&f, md), {NULL}}, "--format=markdown") == HR_OK);
    CHECK(f == HR_FMT_MARKDOWN && !strcmp(hr_format_names[f], "markdown"));
    char text[1024];
    usage(o, text, sizeof text);
    CHECK(strstr(text, "--format table|json") && strstr(text, "output format (table)"));
}

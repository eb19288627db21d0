/* commands.h — the subcommands of main's table; each in harness/cli/cmd_<name>.c. */
#ifndef HR_COMMANDS_H
#define HR_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/* One row of main's command table; summary NULL: not listed (ab-worker). */
typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} hr_command;

/* Writes the reference of the commands cmds[0..n) as one JSON document on f: each command's
 * name, summary, synopsis and option table (groups nested as the tables splice them), taken
 * from the tables through hr_parse_sink; global is main's table of global options.
 * scripts/gen-docs.py renders it as docs/reference/cli.md and docs/headroom.1. Returns HR_OK,
 * or HR_EUSAGE naming a command that never reached hr_parse. */
int hr_reference(FILE *f, const hr_command *cmds, size_t n, const hr_opt *global);

int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_site(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_kvcache(int argc, char **argv);
int cmd_layer(int argc, char **argv);
int cmd_crossover(int argc, char **argv);
int cmd_decode_batch(int argc, char **argv);
int cmd_decode_loop(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_version(int argc, char **argv);

int cmd_ab(int argc, char **argv);
int cmd_ab_worker(int argc, char **argv);

#endif

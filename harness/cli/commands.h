/* commands.h — the subcommands of main's table; each in harness/cli/cmd_<name>.c. */
#ifndef HR_COMMANDS_H
#define HR_COMMANDS_H

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
int cmd_roofline(int argc, char **argv);
int cmd_kvcache(int argc, char **argv);
int cmd_layer(int argc, char **argv);
int cmd_crossover(int argc, char **argv);
int cmd_decode_loop(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_version(int argc, char **argv);

int cmd_ab(int argc, char **argv);
int cmd_ab_worker(int argc, char **argv);

#endif

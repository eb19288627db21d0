/* main.c — the headroom binary: dispatches to a subcommand from one table. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "headroom.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
    {"list", cmd_list, "list the kernels built into this binary"},
    {"run", cmd_run, "time one kernel on one shape (optionally checked and saved)"},
    {"check", cmd_check, "check kernels against the fp64 oracle over a battery of shapes"},
    {"roofline", cmd_roofline, "measure the machine's ceilings: FMA peak, triad bandwidth, exp"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: headroom COMMAND [options]   (headroom COMMAND --help for details)\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return HR_EUSAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return HR_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "headroom: unknown command '%s' (see headroom --help)\n", argv[1]);
    return HR_EUSAGE;
}

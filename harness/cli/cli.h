/* cli.h — option tables for the subcommands: parsing, validation, --help. */
#ifndef HR_CLI_H
#define HR_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "headroom.h"

typedef enum {
    HR_OPT_INT,    /* int*, range [lo, hi]                                  */
    HR_OPT_DOUBLE, /* double*, range [lo, hi]                               */
    HR_OPT_STR,    /* const char **                                         */
    HR_OPT_FLAG,   /* bool*, no argument                                    */
    HR_OPT_ENUM,   /* int*, index into choices (NULL-terminated)            */
    HR_OPT_BYTES,  /* double*, a size with optional K/M/G/T suffix (binary)  */
    HR_OPT_GROUP,  /* const hr_opt*: another table spliced in here (name unused) */
    HR_OPT_KERNEL, /* const hr_kernel **: a kernel of the registry by name           */
} hr_opt_kind;

typedef struct {
    const char *name; /* "--seq"                                      */
    hr_opt_kind kind;
    void *dst;
    double lo, hi;               /* numeric range (inclusive)                 */
    const char *const *choices;  /* HR_OPT_ENUM                               */
    const char *metavar;         /* "N"                                       */
    const char *help;            /* one line                                  */
} hr_opt;

/* Parses argv[1..argc) (argv[0] is the subcommand name) against opts, a table ended by
 * an entry with name NULL. Positional arguments are stored in pos[0..*npos) (at most
 * maxpos). Accepts "--flag value" and "--flag=value". Returns HR_OK; HR_EUSAGE with a
 * one-line message naming the flag (hr_errmsg) on bad input; or -1 after printing the
 * usage for --help (the caller then exits 0). synopsis is the usage line. */
int hr_parse(int argc, char **argv, const hr_opt *opts, const char *synopsis, char **pos,
             int maxpos, int *npos);
/* Prints "usage: headroom SYNOPSIS" and the options table. */
void hr_usage(FILE *f, const char *synopsis, const hr_opt *opts);

/* The shape flags every command that takes one shape shares (run, tune): --batch
 * --heads --kv-heads --seq --seq-kv --d-head --scale --causal --layout. Splice
 * f->opts into a table with {"shape", HR_OPT_GROUP, f->opts}. */
typedef struct {
    int batch, heads, kv_heads, seq, seq_kv, d_head, layout;
    double scale;
    bool causal;
    hr_opt opts[10];
} hr_shape_flags;
/* Defaults B1 H8 (G = H) N512 (M = N) d64, bhnd, non-causal; fills f->opts. */
void hr_shape_flags_init(hr_shape_flags *f);
/* The problem the flags describe (not yet validated). */
hr_problem hr_shape_flags_problem(const hr_shape_flags *f);

#endif

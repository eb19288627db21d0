/* cli.h — option tables for the subcommands: parsing, validation, --help. */
#ifndef HR_CLI_H
#define HR_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "headroom.h"
#include "phase.h"
#include "proc.h"
#include "timer.h"

typedef enum {
    HR_OPT_INT,    /* int*, range [lo, hi]                                  */
    HR_OPT_DOUBLE, /* double*, range [lo, hi]                               */
    HR_OPT_STR,    /* const char **                                         */
    HR_OPT_FLAG,   /* bool*, no argument                                    */
    HR_OPT_ENUM,   /* int*, index into choices (NULL-terminated)            */
    HR_OPT_BYTES,  /* double*, a size with optional K/M/G/T suffix (binary)  */
    HR_OPT_GROUP,  /* const hr_opt*: another table spliced in here (name unused) */
    HR_OPT_KERNEL, /* const hr_kernel **: a kernel of the registry by name           */
    HR_OPT_FORMAT, /* hr_format*: one of choices, a subset of hr_format_names (HR_FORMAT_OPT) */
    HR_OPT_PLUGIN, /* --plugin FILE.so, repeatable (HR_PLUGIN_OPT; dst unused)            */
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
 * an entry with name NULL. A table with HR_PLUGIN_OPT first loads the plugins of
 * HEADROOM_PLUGIN_PATH and of every --plugin wherever it stands (so --kernel finds their
 * kernels); one that fails prints one line and parsing goes on (hr_plugins_status,
 * which main turns into exit status 2), except for a kernel name that clashes with
 * another kernel's (hr_plugins_clashed): then hr_parse returns -1 at once, the command
 * runs nothing, and main exits 2. Positional arguments are stored in pos[0..*npos) (at most
 * maxpos). Accepts "--flag value" and "--flag=value". Returns HR_OK; HR_EUSAGE with a
 * one-line message naming the flag (hr_errmsg) on bad input; or -1 after printing the
 * usage for --help (the caller then exits 0) or a clash. synopsis is the usage line. */
int hr_parse(int argc, char **argv, const hr_opt *opts, const char *synopsis, char **pos,
             int maxpos, int *npos);
/* A command's exit status from st: HR_OK for HR_OK and for hr_parse's -1 (after --help);
 * otherwise prints "headroom CMD: message" (hr_errmsg) on stderr and returns st. A
 * command ends with it, so its error line is written in one place. */
int hr_cmd_status(const char *cmd, int st);
/* Prints "usage: headroom SYNOPSIS" and the options table. */
void hr_usage(FILE *f, const char *synopsis, const hr_opt *opts);
/* Rewords the help of the option called name in opts (a group's table, for a command
 * whose default differs) and returns it, e.g. to narrow its range. name must be there. */
hr_opt *hr_opt_help(hr_opt *opts, const char *name, const char *help);

/* The reference (headroom help --reference, harness/cli/reference.c): while a sink is set,
 * hr_parse hands it the synopsis and the table, as the command built them, and returns -1
 * as for --help: nothing parsed, no plugin loaded, the command returns before it runs. */
typedef void (*hr_opt_sink)(const char *synopsis, const hr_opt *opts, void *ctx);
void hr_parse_sink(hr_opt_sink fn, void *ctx);
/* The kind's name in the reference: "int", "double", "str", "flag", "enum", ... */
const char *hr_opt_kind_name(hr_opt_kind k);

/* ---- output formats ------------------------------------------------------------ */

typedef enum { HR_FMT_TABLE, HR_FMT_CSV, HR_FMT_JSON, HR_FMT_MARKDOWN } hr_format;
extern const char *const hr_format_names[]; /* "table", "csv", "json", "markdown", NULL */
/* --format for a command that writes the formats in names (NULL-terminated, a subset of
 * hr_format_names in the order --help lists them); *dst holds the default, table. */
#define HR_FORMAT_OPT(dst, names) \
    {"--format", HR_OPT_FORMAT, (dst), 0, 0, (names), NULL, "output format (table)"}

/* --max-mem: the memory budget hr_mem_budget (bench.h) applies, 0 (unset): half of RAM. */
#define HR_MAX_MEM_OPT(dst) \
    {"--max-mem", HR_OPT_BYTES, (dst), 1, 1e18, NULL, "BYTES", "memory budget (half of RAM)"}

/* --plugin FILE.so (repeatable): kernels of a plugin (docs/reference/plugin-abi.md), on
 * every command that takes --kernel or a kernel list. */
#define HR_PLUGIN_OPT \
    {"--plugin", HR_OPT_PLUGIN, NULL, 0, 0, NULL, "FILE.so", "load a plugin's kernels (repeatable; also $HEADROOM_PLUGIN_PATH)"}

/* ---- flag groups ------------------------------------------------------------------
 * Each group holds the flags' values and an option table; splice f.opts into a
 * command's table with {"name", HR_OPT_GROUP, f.opts}. _init sets the defaults and help
 * of `headroom run`; a command that differs sets the field and calls hr_opt_help. */

/* Element types: --dtype f32|bf16|f16 (Q, K, V, O) and --kv-dtype
 * f32|bf16|f16|q8_0|q4_0 (the stored K/V; unset: the same as --dtype). -1 while unset. */
typedef struct {
    int dtype, kv_dtype;
    hr_opt opts[3];
} hr_dtype_flags;
/* dtype_help and kv_help, where not NULL, reword the two flags' help for a command whose
 * meaning of them differs from run's. */
void hr_dtype_flags_init(hr_dtype_flags *f, const char *dtype_help, const char *kv_help);
/* Sets p->dtype (f32 when unset) and p->kv_dtype (--kv-dtype, else p->dtype). */
void hr_dtype_flags_apply(const hr_dtype_flags *f, hr_problem *p);

/* The variants (headroom.h): --window W (keys a causal row sees), --softcap C (scores
 * become C tanh(s / C)), --alibi B (ALiBi biases of max bias B; 8 is the paper's),
 * --page-size P (a paged KV cache, P keys a block; hr_problem_validate's rule). 0
 * while unset; a given value must be >= 1 keys (window) or > 0. */
typedef struct {
    int window;
    double softcap, alibi;
    int page_size; /* --page-size P: a paged KV cache (hr_problem.page_size) */
    hr_opt opts[5];
} hr_variant_flags;
void hr_variant_flags_init(hr_variant_flags *f);
/* Sets p->window, softcap, alibi and page_size from the flags. */
void hr_variant_flags_apply(const hr_variant_flags *f, hr_problem *p);

/* The shape flags every command that takes one shape shares (run, tune): --batch
 * --heads --kv-heads --seq --seq-kv --d-head --scale --causal --layout --dtype --kv-dtype
 * --window --softcap --alibi. Splice
 * f->opts into a table with {"shape", HR_OPT_GROUP, f->opts}. */
typedef struct {
    int batch, heads, kv_heads, seq, seq_kv, d_head, layout;
    double scale;
    bool causal;
    hr_dtype_flags types; /* --dtype, --kv-dtype (spliced in as a group) */
    hr_variant_flags variants; /* --window, --softcap, --alibi (a group) */
    hr_opt opts[12];
} hr_shape_flags;
/* Defaults B1 H8 (G = H) N512 (M = N) d64, bhnd, non-causal, f32; fills f->opts. */
void hr_shape_flags_init(hr_shape_flags *f);
/* The problem the flags describe (not yet validated). */
hr_problem hr_shape_flags_problem(const hr_shape_flags *f);
/* The first flag of the table opts (ended by a NULL name) that argv[1..argc) gives, as
 * "--flag" or "--flag=value", other than `except` (may be NULL); NULL when none. For
 * flags that another one overrides (tune --config and the shape flags). */
const char *hr_opt_given(int argc, char **argv, const hr_opt *opts, const char *except);

/* Timing and inputs: --reps R (9) --min-time SEC (0.05) --warmup SEC (0.1) --cold
 * --seed S (1) --dist (normal); a command takes the members it names (HR_TF_*). */
enum {
    HR_TF_REPS = 1 << 0, HR_TF_MIN_TIME = 1 << 1, HR_TF_WARMUP = 1 << 2,
    HR_TF_COLD = 1 << 3, HR_TF_SEED = 1 << 4, HR_TF_DIST = 1 << 5, HR_TF_ALL = (1 << 6) - 1,
};
typedef struct {
    int reps, seed, dist;
    double min_time, warmup;
    bool cold;
    hr_opt opts[7];
} hr_timing_flags;
void hr_timing_flags_init(hr_timing_flags *f, unsigned members);
/* The timer options they set (reps, min_time, warmup, cold; no hooks, no stop). */
hr_timer_opts hr_timing_flags_timer(const hr_timing_flags *f);

/* Probes around every repetition: --probe --no-probe --phase-filter, and the members
 * HR_PF_KIND (--probe-kind fma|bw|auto, auto) and HR_PF_THRESHOLD (--phase-threshold
 * PCT, 10). */
enum { HR_PF_KIND = 1 << 0, HR_PF_THRESHOLD = 1 << 1, HR_PF_ALL = 3 };
typedef struct {
    bool probe, no_probe, filter;
    int kind;            /* hr_probe_kind, HR_PROBE_AUTO unless --probe-kind */
    double pct;          /* --phase-threshold in percent                     */
    hr_opt opts[6];
} hr_probe_flags;
void hr_probe_flags_init(hr_probe_flags *f, unsigned members);
/* Refuses contradictions: --probe with --no-probe, --probe-kind none, --phase-filter
 * with --no-probe. HR_OK or HR_EUSAGE naming the flag. */
int hr_probe_flags_check(const hr_probe_flags *f);
/* What to probe with: HR_PROBE_OFF for --no-probe, else the kind. */
hr_probe_kind hr_probe_flags_kind(const hr_probe_flags *f);

/* Workers (proc.h): --timeout SECONDS (0 while unset: each command's default) and
 * --in-process (measure in this process: for a debugger). */
typedef struct {
    double timeout;
    bool in_process;
    char help[160];      /* --timeout's help, with the command's default */
    hr_opt opts[3];
} hr_worker_flags;
/* default_help: what an unset --timeout means for the command ("60"). */
void hr_worker_flags_init(hr_worker_flags *f, const char *default_help);
/* The one line and status of a command whose measurement failed in its worker w (who:
 * "kernel flash", "flash N512 ..."): a memory guard's catch (the worker reported it and
 * exited 3) is status 3 and no second line; else "headroom CMD: WHO: failed in its
 * worker: WHY" on stderr and HR_EWORKER (4). */
int hr_worker_failed(const char *cmd, const char *who, const hr_proc *w);

/* Wisdom: --wisdom FILE (NULL: the default file) and, when with_off, --no-wisdom. Use
 * with hr_wisdom_apply(f.path, f.off, ...). */
typedef struct {
    const char *path;
    bool off;
    hr_opt opts[3];
} hr_wisdom_flags;
void hr_wisdom_flags_init(hr_wisdom_flags *f, bool with_off);

#endif

/* main.c — the headroom binary: dispatches to a subcommand from one table; checks stdout once, at the end. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "cpus.h"
#include "headroom.h"
#include "isa.h"
#include "plugins.h"
#include "sysinfo.h"
#include "threads.h"

static const hr_command commands[] = {
    {"list", cmd_list, "list the kernels built into this binary and loaded from plugins"},
    {"run", cmd_run, "time one kernel on one shape (optionally checked and saved)"},
    {"tune", cmd_tune, "search a kernel's block sizes and threads per shape; store the winners as wisdom"},
    {"sweep", cmd_sweep, "measure a config's cartesian product of kernels and shapes (configs/*.ini)"},
    {"merge", cmd_merge, "join the shards of a sweep (sweep --shard K/N) into one results set"},
    {"report", cmd_report, "merge results of several machines: per-shape tables and side-by-side charts"},
    {"check", cmd_check, "check kernels against the fp64 oracle over a battery of shapes"},
    {"compare", cmd_compare, "judge a results file against a baseline (exit 1 on a regression)"},
    {"export", cmd_export, "a results file as github-action-benchmark's or Bencher's JSON, on stdout"},
    {"history", cmd_history, "a series of runs ordered by commit date: trend per benchmark, change points, chart"},
    {"site", cmd_site, "a static site over many results sets: overview, machines, rooflines, history, peers"},
    {"ab", cmd_ab, "two builds interleaved pair by pair on a config, judged on the paired ratios"},
    {"ab-worker", cmd_ab_worker, NULL}, /* spoken to by ab; not listed */
    {"roofline", cmd_roofline, "measure the machine's ceilings: FMA peak, triad bandwidth, exp"},
    {"kvcache", cmd_kvcache, "KV-cache memory of model presets by context, precision, MHA vs GQA"},
    {"layer", cmd_layer, "time the full MHA layer by phase: QKV projection, core, output projection"},
    {"crossover", cmd_crossover, "measure the N where the attention core overtakes the projections vs 2*d_model"},
    {"decode-batch", cmd_decode_batch, "one ragged batch: sequences with their own cache lengths and query rows"},
    {"decode-loop", cmd_decode_loop, "generate tokens over a growing KV cache: per-step time, tokens/s"},
    {"plot", cmd_plot, "draw gnuplot charts (PNG, SVG) from a results directory"},
    {"version", cmd_version, "version, commit, build id, compiler flags, ISA; where data and results are (--version)"},
};

/* libgomp's constructor prints its complaints about the OMP_* environment (an unknown
 * OMP_SCHEDULE value, OMP_DISPLAY_ENV's table) in every image that loads it, before main.
 * The user sees them once, from the image that runs the command: an image about to exec
 * itself again (pin_threads) and a worker (a command without a summary, started by a
 * headroom that has shown them already) run the libraries' constructors with stderr on
 * /dev/null, given back in main (or just before the exec). */
static int saved_stderr = -1;

static bool will_reexec(void) { return !(getenv("OMP_PROC_BIND") && getenv("OMP_PLACES")); }

static bool is_worker(int argc, char **argv)
{
    if (argc < 2) return false;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!commands[i].summary && !strcmp(argv[1], commands[i].name)) return true;
    return false;
}

static void quiet_constructors(void)
{
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0) return;
    saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved_stderr >= 0 && dup2(null, STDERR_FILENO) < 0) close(saved_stderr), saved_stderr = -1;
    close(null);
}

static void restore_stderr(void)
{
    if (saved_stderr < 0) return;
    dup2(saved_stderr, STDERR_FILENO); /* a dup2'd descriptor is not close-on-exec */
    close(saved_stderr);
    saved_stderr = -1;
}

/* Pins threads by default: one thread per core, packed. libgomp reads OMP_PROC_BIND and
 * OMP_PLACES when it is loaded, before main, so setting them here is too late for this
 * process: when either is unset, set it and exec this binary again (once: the second
 * image finds both set). A user's own values win. If the exec fails the run goes on
 * unpinned, and sysinfo records the binding the runtime really has. */
static void pin_threads(char **argv)
{
    if (!will_reexec()) return;
    setenv("OMP_PROC_BIND", "close", 0);
    setenv("OMP_PLACES", "cores", 0);
    cpu_set_t cpus; /* a user's OMP_PROC_BIND alone bound this image's initial thread to one CPU */
    hr_threads_start_cpus(&cpus);
    hr_threads_apply_cpus(&cpus);
    restore_stderr();
    execv("/proc/self/exe", argv);
}

/* The options main takes itself, before or after COMMAND (select_isa parses --isa). */
static const char *const isa_levels[] = {"generic", "avx2", "avx512", NULL};
static const hr_opt global_opts[] = {
    {"--isa", HR_OPT_ENUM, NULL, 0, 0, isa_levels, "LEVEL",
     "run the kernels compiled for this level instead of the best this CPU runs (also HEADROOM_ISA)"},
    {NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: headroom COMMAND [options]   (headroom COMMAND --help for details)\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].summary) fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nglobal options (before or after COMMAND):\n  %s ", global_opts[0].name);
    for (int i = 0; isa_levels[i]; i++) fprintf(f, "%s%s", i ? "|" : "", isa_levels[i]);
    fprintf(f, "\n               %s\n               (now: %s)\n", global_opts[0].help, hr_isa);
}

/* OMP_NUM_THREADS and OMP_THREAD_LIMIT pass the one thread limit (threads.c) before
 * anything reads them: a function in the executable's .preinit_array runs before the
 * initializers of the shared libraries, so a bad value is refused here in one line,
 * before libgomp's constructor reads it (and prints its own complaint about garbage),
 * before the exec of pin_threads, and long before a parallel region of 100000 threads.
 * The CPUs this process may run on are noted here too, before libgomp binds this thread,
 * and the constructors' stderr is quieted where another image shows it (quiet_constructors). */
static void check_env(int argc, char **argv, char **envp)
{
    extern char **environ;
    if (!environ) environ = envp; /* libc's own initializer, later, sets the same */
    hr_cpus_note_start();
    if (hr_threads_env_check()) {
        fprintf(stderr, "headroom: %s\n", hr_errmsg());
        fflush(stderr);
        _exit(HR_EUSAGE);
    }
    if (will_reexec() || is_worker(argc, argv)) quiet_constructors();
}
__attribute__((used, section(".preinit_array"))) static void (*const preinit_check_env)(int, char **, char **) =
    check_env;

/* stdout goes through write_out, which keeps the errno of the first failed write: a
 * write that failed inside a command (a buffer flushed mid-way) is still named at the
 * end, when its errno is long gone. */
static int out_errno;

static ssize_t write_out(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(STDOUT_FILENO, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (!out_errno) out_errno = w < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int close_out(void *cookie)
{
    (void)cookie;
    if (close(STDOUT_FILENO) == 0 || errno == EBADF) return 0; /* EBADF: started closed, write said so */
    if (!out_errno) out_errno = errno;
    return -1;
}

static void wrap_stdout(void)
{
    FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){.write = write_out, .close = close_out});
    if (!f) return; /* then the plain stream, its last errno */
    setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
    stdout = f;
}

/* Every command's stdout is flushed and closed here, its error checked: a result lost to
 * a full disk or a closed pipe is exit 2 with one line, never 0, and never 1 or 3 (a
 * verdict nobody read). A command that already failed with its own line keeps its
 * status. */
static int finish(int st)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int err = errno;
    bad |= ferror(stdout) != 0;
    bad |= fclose(stdout) != 0;
    if (out_errno) err = out_errno;
    if (!bad || (st != HR_OK && st != 1 && st != 3)) return st;
    fprintf(stderr, "headroom: stdout: write error (%s)\n", strerror(err ? err : EIO));
    return HR_EUSAGE;
}

/* The ISA level (isa.h): HEADROOM_ISA, then --isa NAME or --isa=NAME anywhere before a
 * "--" (taken out of argv, so every command accepts it), the flag winning. Without
 * either, the best level this CPU runs, chosen before main, stays. */
static int select_isa(int *argc, char **argv)
{
    const char *env = getenv("HEADROOM_ISA"), *flag = NULL;
    int n = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--")) {
            while (i < *argc) argv[n++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], "--isa")) {
            if (i + 1 >= *argc) return hr_fail("--isa: expected a level (generic, avx2, avx512)");
            flag = argv[++i];
        } else if (!strncmp(argv[i], "--isa=", 6)) {
            flag = argv[i] + 6;
        } else {
            argv[n++] = argv[i];
        }
    }
    argv[n] = NULL;
    *argc = n;
    const char *name = flag ? flag : env && *env ? env : NULL;
    if (name) {
        if (hr_isa_select(name)) {
            char why[256];
            snprintf(why, sizeof why, "%s", hr_errmsg());
            return hr_fail("%s: %s", flag ? "--isa" : "HEADROOM_ISA", why);
        }
        hr_isa_set_how(flag ? "--isa" : "HEADROOM_ISA");
    } else if (hr_isa_lacks(hr_isa_now())) {
        return hr_fail("this binary was built for %s only and this CPU lacks %s (build the portable "
                       "binary: make)", hr_isa, hr_isa_lacks(hr_isa_now()));
    }
    return HR_OK;
}

static int run(int argc, char **argv)
{
    if (select_isa(&argc, argv)) {
        fprintf(stderr, "headroom: %s\n", hr_errmsg());
        return HR_EUSAGE;
    }
    if (argc < 2) {
        usage(stderr);
        return HR_EUSAGE;
    }
    /* Not listed: every command's table as JSON, for scripts/gen-docs.py (make docs). */
    if (!strcmp(argv[1], "help") && argc == 3 && !strcmp(argv[2], "--reference")) {
        if (!hr_reference(stdout, commands, sizeof commands / sizeof commands[0], global_opts)) return HR_OK;
        fprintf(stderr, "headroom: %s\n", hr_errmsg());
        return HR_EUSAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return HR_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) argv[1] = "version";
    /* The one place the kernels learn this machine's caches (their default tiles). */
    hr_threads_init();
    hr_sysinfo_set_machine();
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            /* A plugin that failed to load was reported in one line and the command went
             * on with the other kernels; the exit status still says so. */
            int st = commands[i].fn(argc - 1, argv + 1), ps = hr_plugins_status();
            return st > ps ? st : ps;
        }
    fprintf(stderr, "headroom: unknown command '%s' (see headroom --help)\n", argv[1]);
    return HR_EUSAGE;
}

int main(int argc, char **argv)
{
    pin_threads(argv);
    restore_stderr();
    wrap_stdout();
    return finish(run(argc, argv));
}

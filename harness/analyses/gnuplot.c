/* gnuplot.c — the one way headroom finds and runs gnuplot: the executable, a quiet probe,
 * the plots/ scripts, one run with a log kept only on failure, the quoting rule. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot.h"
#include "paths.h"

extern char **environ;

const char *hr_gnuplot_exe(void)
{
    const char *gp = getenv("HEADROOM_GNUPLOT");
    return gp && *gp ? gp : "gnuplot";
}

/* Spawns argv (argv[0] looked up in PATH) with stdout and stderr to out when given
 * (opened with flags), and waits. Returns the exit status; -1 when it could not be
 * started (errno set), -2 when it died or could not be waited for. */
static int run(char *const *argv, const char *out, int flags)
{
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out) {
        posix_spawn_file_actions_addopen(&fa, 1, out, flags, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ), status = 0;
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        errno = e;
        return -1;
    }
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -2;
    return WEXITSTATUS(status);
}

int hr_gnuplot_works(const char *exe)
{
    char *argv[] = {(char *)exe, "--version", NULL};
    return run(argv, "/dev/null", O_WRONLY) == 0;
}

int hr_plot_script(const char *name, char *buf, size_t len)
{
    char rel[256];
    snprintf(rel, sizeof rel, "plots/%s", name);
    return hr_data_path(rel, "HEADROOM_PLOTS", buf, len);
}

int hr_gnuplot_run(const char *exe, const char *script, const char *vars, const char *log_path)
{
    char *argv[] = {(char *)exe, "-e", (char *)vars, (char *)script, NULL};
    if (!vars) argv[1] = (char *)script, argv[2] = NULL;
    int st = run(argv, log_path, O_WRONLY | O_CREAT | O_TRUNC);
    if (!st && log_path) unlink(log_path);
    return st;
}

bool hr_gnuplot_quotable(const char *s) { return !strchr(s, '\'') && !strchr(s, '\n'); }

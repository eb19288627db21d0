/* paths.c — where data files are found (beside the binary, the installed prefix, the
 * current directory) and where results go ($HEADROOM_RESULTS). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "sysinfo.h"

const char *hr_exe_dir(void)
{
    static char dir[PATH_MAX];
    static int done;
    if (done) return dir;
    done = 1;
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0) n = 0;
    dir[n] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else dir[0] = 0;
    return dir;
}

/* buf = a/b when it fits and is readable. */
static int try_path(char *buf, size_t len, const char *a, const char *b)
{
    int n = snprintf(buf, len, "%s/%s", a, b);
    return n > 0 && (size_t)n < len && !access(buf, R_OK);
}

int hr_data_path(const char *rel, const char *env, char *buf, size_t len)
{
    const char *e = env ? getenv(env) : NULL, *tail = strchr(rel, '/');
    if (e && *e && try_path(buf, len, e, tail ? tail + 1 : rel)) return 1;
    const char *exe = hr_exe_dir();
    if (*exe) {
        static const char *const beside[] = {"", "/../..", "/../share/headroom"};
        for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
            char base[PATH_MAX];
            snprintf(base, sizeof base, "%s%s", exe, beside[i]);
            if (try_path(buf, len, base, rel)) return 1;
        }
    }
    snprintf(buf, len, "%s", rel);
    return !access(buf, R_OK);
}

const char *hr_results_root(void)
{
    const char *e = getenv("HEADROOM_RESULTS");
    if (e && *e) return e;
    /* An installed binary (<prefix>/bin beside <prefix>/share/headroom) keeps its results
     * in one place whatever the current directory, so its ceilings are found from
     * anywhere: $XDG_DATA_HOME/headroom/results, else ~/.local/share/headroom/results.
     * Run from the source tree (or with no home), "results" in the current directory. */
    static char root[PATH_MAX];
    static int done;
    if (!done) {
        done = 1;
        snprintf(root, sizeof root, "results");
        char probe[PATH_MAX];
        const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
        if (try_path(probe, sizeof probe, hr_exe_dir(), "../share/headroom/configs")) {
            if (xdg && *xdg) snprintf(root, sizeof root, "%s/headroom/results", xdg);
            else if (home && *home) snprintf(root, sizeof root, "%s/.local/share/headroom/results", home);
        }
    }
    return root;
}

void hr_results_path(const char *name, char *buf, size_t len)
{
    const char *m = hr_sysinfo_get()->machine;
    if (name && *name) snprintf(buf, len, "%s/%s/%s", hr_results_root(), m, name);
    else snprintf(buf, len, "%s/%s", hr_results_root(), m);
}

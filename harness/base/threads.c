/* threads.c — thread counts: the one limit, the environment's counts checked, the default. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <sched.h>

#include "cpus.h"
#include "headroom.h"
#include "threads.h"

static int max_used;

/* Parses one count of an OpenMP list at *s (leading blanks allowed, like libgomp):
 * 1 and the count in *v (capped at LONG_MAX), 0 when there is no number. */
static int count_at(const char **s, long *v)
{
    const char *p = *s;
    while (isspace((unsigned char)*p)) p++;
    if (!isdigit((unsigned char)*p)) return 0;
    char *end;
    errno = 0;
    *v = strtol(p, &end, 10);
    while (isspace((unsigned char)*end)) end++;
    *s = end;
    return 1;
}

/* Reads env var `name` as a list of positive counts (at most one item unless `list`).
 * 0: unset; 1: *first holds the first item; -1: refused with a message. */
static int env_count(const char *name, bool list, long *first)
{
    const char *v = getenv(name), *p = v;
    if (!v) return 0;
    const char *want = list ? "a positive thread count or an OpenMP list like 4,2"
                            : "a positive thread count";
    for (int i = 0;; i++) {
        long c;
        if (!count_at(&p, &c) || c < 1) break;
        if (i == 0) *first = c;
        if (c > HR_THREADS_MAX && !(i == 0 && !list)) {
            hr_fail("%s='%.40s': more than headroom's limit of %d threads", name, v,
                    HR_THREADS_MAX);
            return -1;
        }
        if (*p == '\0') return 1;
        if (*p != ',' || !list) break;
        p++;
    }
    hr_fail("%s='%.40s': expected %s", name, v, want);
    return -1;
}

int hr_threads_env_check(void)
{
    long n = 0, lim = 0;
    int hn = env_count("OMP_NUM_THREADS", true, &n);
    int hl = env_count("OMP_THREAD_LIMIT", false, &lim);
    if (hn < 0 || hl < 0) return HR_EUSAGE;
    if (hn && hl && n > lim)
        return hr_fail("OMP_NUM_THREADS=%ld is over OMP_THREAD_LIMIT=%ld", n, lim);
    return HR_OK;
}

/* OMP_THREAD_LIMIT when set, valid and under HR_THREADS_MAX, else 0. */
static int env_limit(void)
{
    long lim = 0;
    const char *v = getenv("OMP_THREAD_LIMIT");
    if (!v || !count_at(&v, &lim) || *v || lim < 1 || lim >= HR_THREADS_MAX) return 0;
    return (int)lim;
}

int hr_threads_limit(void)
{
    int lim = env_limit();
    return lim ? lim : HR_THREADS_MAX;
}

int hr_threads_default(void)
{
    int t = omp_get_max_threads(), lim = hr_threads_limit();
    /* libgomp's own default counts the affinity mask, not a cgroup's cpuset or quota. */
    if (!getenv("OMP_NUM_THREADS") && t > hr_cpus_get()->allowed) t = hr_cpus_get()->allowed;
    return t < 1 ? 1 : t > lim ? lim : t;
}

void hr_threads_init(void)
{
    if (!getenv("OMP_NUM_THREADS")) omp_set_num_threads(hr_threads_default());
}

int hr_threads_check(int t, const char *from)
{
    if (t >= 1 && t <= hr_threads_limit()) return HR_OK;
    if (t >= 1 && env_limit())
        return hr_fail("%s: %d threads, over OMP_THREAD_LIMIT=%d", from, t, env_limit());
    return hr_fail("%s: %d threads, expected 1 to %d", from, t, HR_THREADS_MAX);
}

void hr_threads_used(int t)
{
    if (t > max_used) max_used = t;
}

int hr_threads_max_used(void) { return max_used; }

int hr_threads_start_cpus(void *cpu_set)
{
    cpu_set_t *set = cpu_set;
    CPU_ZERO(set);
    int places = omp_get_num_places();
    for (int p = 0; p < places; p++) {
        int n = omp_get_place_num_procs(p), ids[1024];
        if (n <= 0 || n > 1024) continue;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < n; i++)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE) CPU_SET(ids[i], set);
    }
    if (!CPU_COUNT(set) && sched_getaffinity(0, sizeof *set, set)) CPU_ZERO(set);
    return CPU_COUNT(set);
}

int hr_threads_apply_cpus(const void *cpu_set)
{
    const cpu_set_t *set = cpu_set;
    return CPU_COUNT(set) ? sched_setaffinity(0, sizeof *set, set) : 0;
}

/* cpus.c — the CPUs this process may run on: affinity, the cgroup's cpuset and CPU quota. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpus.h"
#include "files.h"

#define CG_ROOT "/sys/fs/cgroup"

int hr_cpu_list_count(const char *s)
{
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0) return n;
        if (*end == '-') {
            const char *p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a) return n;
        }
        n += (int)(b - a + 1);
        if (*end != ',') break;
        s = end + 1;
    }
    return n;
}

/* The quota in CPUs that directory `dir` sets (v2 cpu.max "QUOTA PERIOD" or "max PERIOD";
 * v1 cpu.cfs_quota_us, -1 for none, over cpu.cfs_period_us); 0 when it sets none. */
static double quota_at(const char *dir)
{
    char path[4200], line[128], per[64];
    double q = 0, p = 0;
    snprintf(path, sizeof path, "%s/cpu.max", dir);
    if (hr_read_first_line(path, line, sizeof line)) {
        if (sscanf(line, "%lf %lf", &q, &p) != 2) return 0; /* "max ..." */
    } else {
        snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
        if (!hr_read_first_line(path, line, sizeof line)) return 0;
        snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
        if (!hr_read_first_line(path, per, sizeof per)) return 0;
        q = atof(line), p = atof(per);
    }
    return q > 0 && p > 0 ? q / p : 0;
}

/* The CPUs in directory `dir`'s effective cpuset (v2 and v1 names); 0 when none. */
static int cpuset_at(const char *dir)
{
    static const char *const names[] = {"cpuset.cpus.effective", "cpuset.effective_cpus"};
    char path[4200], line[4096];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (hr_read_first_line(path, line, sizeof line) && *line) return hr_cpu_list_count(line);
    }
    return 0;
}

static void limit_quota(hr_cpus *c, double q)
{
    if (q > 0 && (c->quota <= 0 || q < c->quota)) c->quota = q;
}

static void limit_cpuset(hr_cpus *c, int n)
{
    if (n > 0 && (c->cpuset <= 0 || n < c->cpuset)) c->cpuset = n;
}

/* Reads the hierarchy mounted at `root` from this process's cgroup `rel` up to the
 * root: a child's cpuset lies inside its parent's, and every ancestor's quota applies.
 * When root/rel is not there (a container that mounts its own cgroup at the root), the
 * root alone. */
static void walk(hr_cpus *c, const char *root, const char *rel)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s", root, rel);
    if (access(dir, F_OK)) snprintf(dir, sizeof dir, "%s", root);
    for (;;) {
        limit_quota(c, quota_at(dir));
        limit_cpuset(c, cpuset_at(dir));
        size_t rl = strlen(root), dl = strlen(dir);
        while (dl > rl && dir[dl - 1] == '/') dir[--dl] = 0;
        if (dl <= rl) break;
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < rl) break;
        *slash = 0;
    }
}

/* Each hierarchy of /proc/self/cgroup that holds the cpu or cpuset controller (v1
 * "3:cpuset:/a", "1:cpu,cpuacct:/a") or is the unified one (v2 "0::/a"). */
static void read_cgroups(hr_cpus *c)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *ctl = strchr(line, ':'), *rel = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!rel) continue;
        *rel++ = 0, ctl++;
        char root[4096];
        if (!*ctl) {
            walk(c, CG_ROOT, rel);
            continue;
        }
        char list[4096];
        snprintf(list, sizeof list, "%s", ctl);
        for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
            if (!strcmp(t, "cpu") || !strcmp(t, "cpuset")) {
                snprintf(root, sizeof root, CG_ROOT "/%s", ctl);
                if (access(root, F_OK)) snprintf(root, sizeof root, CG_ROOT "/%s", t);
                walk(c, root, rel);
                break;
            }
    }
    fclose(f);
}

/* The mask as "0-3,6". */
static void set_list(const cpu_set_t *s, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < CPU_SETSIZE && at + 24 < len; i++) {
        if (!CPU_ISSET(i, s)) continue;
        int j = i;
        while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, s)) j++;
        at += (size_t)snprintf(buf + at, len - at, j > i ? "%s%d-%d" : "%s%d", at ? "," : "", i, j);
        i = j;
    }
}

static cpu_set_t start_mask;
static int start_noted;

void hr_cpus_note_start(void)
{
    CPU_ZERO(&start_mask);
    start_noted = !sched_getaffinity(0, sizeof start_mask, &start_mask) && CPU_COUNT(&start_mask) > 0;
}

const hr_cpus *hr_cpus_get(void)
{
    static hr_cpus c;
    static int done;
    if (done) return &c;
    done = 1;
    c.online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (c.online < 1) c.online = 1;
    cpu_set_t s = start_mask;
    if (start_noted || !sched_getaffinity(0, sizeof s, &s)) {
        c.affinity = CPU_COUNT(&s);
        set_list(&s, c.set, sizeof c.set);
    }
    const char *test = getenv("HEADROOM_CGROUP");
    if (test && *test) {
        limit_quota(&c, quota_at(test));
        limit_cpuset(&c, cpuset_at(test));
    } else {
        read_cgroups(&c);
    }
    c.allowed = c.online, c.by = "online";
    if (c.affinity > 0 && c.affinity < c.allowed) c.allowed = c.affinity, c.by = "affinity";
    if (c.cpuset > 0 && c.cpuset < c.allowed) c.allowed = c.cpuset, c.by = "cpuset";
    /* 1.5 CPUs of quota run two threads, throttled a little, better than one. */
    int q = c.quota > 0 ? (int)ceil(c.quota - 1e-9) : 0;
    if (q > 0 && q < c.allowed) c.allowed = q, c.by = "cpu quota";
    if (c.allowed < 1) c.allowed = 1;
    return &c;
}

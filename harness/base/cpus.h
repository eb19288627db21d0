/* cpus.h — the CPUs this process may run on: its affinity mask, its cgroup's cpuset and
 * its cgroup's CPU quota, the least of them ("all CPUs" everywhere in headroom). */
#ifndef HR_CPUS_H
#define HR_CPUS_H

typedef struct {
    int online;     /* sysconf(_SC_NPROCESSORS_ONLN)                                   */
    int affinity;   /* CPUs in sched_getaffinity (0: unknown)                          */
    int cpuset;     /* CPUs in the cgroup's effective cpuset (0: none found)            */
    double quota;   /* the cgroup's CPU quota in CPUs, quota / period (0: no quota)     */
    int allowed;    /* the least of them, the quota rounded up; at least 1              */
    const char *by; /* which one set `allowed`: "online", "affinity", "cpuset", "cpu quota" */
    char set[256];  /* the affinity mask as a CPU list, "0-3,6" ("" when unknown)        */
} hr_cpus;

/* Reads them once (later calls return the same). The cgroup is this process's own, from
 * /proc/self/cgroup under /sys/fs/cgroup (v2: cpu.max, cpuset.cpus.effective; v1:
 * cpu.cfs_quota_us / cpu.cfs_period_us, cpuset.effective_cpus), the quota being the least
 * of the cgroup's and its ancestors'. HEADROOM_CGROUP names a directory read in its place
 * (tests). Files that are absent or unreadable limit nothing. */
const hr_cpus *hr_cpus_get(void);

/* Notes the affinity mask the process starts with, before the OpenMP runtime's
 * constructor binds the initial thread to its first place (OMP_PROC_BIND): after that,
 * sched_getaffinity says one CPU. main calls it from its .preinit_array; without it
 * hr_cpus_get asks sched_getaffinity then. */
void hr_cpus_note_start(void);

/* The CPUs a list like "0-3,6" names (the kernel's cpulist format); a malformed tail
 * ends the count. */
int hr_cpu_list_count(const char *s);

#endif

/* threads.h — the one source of truth for thread counts: the limit, the environment
 * (OMP_NUM_THREADS, OMP_THREAD_LIMIT), the default, and oversubscription. */
#ifndef HR_THREADS_H
#define HR_THREADS_H

/* The most threads any count may ask for: --threads, a config's threads axis, wisdom,
 * OMP_NUM_THREADS. Per-thread arrays (probes, roofline rows) are sized by it. */
#define HR_THREADS_MAX 1024

/* Checks OMP_NUM_THREADS (a positive count, or an OpenMP nesting list like "4,2" whose
 * first item is the count) and OMP_THREAD_LIMIT (a positive count) as libgomp read them
 * before main. HR_OK, or HR_EUSAGE with one line naming the variable and its value: a
 * value that is not such a list, a count over HR_THREADS_MAX, or OMP_NUM_THREADS over
 * OMP_THREAD_LIMIT. Unset variables are fine. */
int hr_threads_env_check(void);

/* The most threads a team may have here: HR_THREADS_MAX, or OMP_THREAD_LIMIT if lower. */
int hr_threads_limit(void);

/* The count used when nothing asked for one: OMP_NUM_THREADS' first item, else the CPUs
 * this process may run on (cpus.h: affinity, cgroup cpuset and quota), capped by
 * hr_threads_limit(). */
int hr_threads_default(void);

/* Makes hr_threads_default() the runtime's own default (omp_set_num_threads) when
 * OMP_NUM_THREADS is unset, so that a parallel region without num_threads, and a kernel
 * asked for 0 threads, run as many as the rest of the harness counts. Called once, by
 * main, before any command. */
void hr_threads_init(void);

/* HR_OK when 1 <= t <= hr_threads_limit(), else HR_EUSAGE with one line
 * "FROM: T threads ..." naming the limit (and OMP_THREAD_LIMIT when it is the one). */
int hr_threads_check(int t, const char *from);

/* Records that a measurement ran t threads; the context block of every results file
 * written afterwards by this process says the most threads used and whether that was
 * more than the CPUs this process may run on ("max_threads", "oversubscribed"). */
void hr_threads_used(int t);
/* Gives the calling thread back every CPU this process started with (the union of
 * OpenMP's places, else its current mask), for a process about to exec another that runs
 * its own OpenMP team: with OMP_PROC_BIND set, libgomp binds the initial thread to the
 * first place, and a child inherits that one-CPU mask (every `headroom ab` worker ran its
 * threads on one CPU). Call in the parent before fork (set) and apply in the child. */
int hr_threads_start_cpus(void *cpu_set); /* a cpu_set_t *; returns the number of CPUs */
int hr_threads_apply_cpus(const void *cpu_set);
int hr_threads_max_used(void);

#endif

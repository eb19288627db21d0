/* probe.h — FMA and dot-product chain loops per ISA and the short concurrent-ceiling probes run around timed repetitions. */
#ifndef HR_PROBE_H
#define HR_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "headroom.h"
#include "isa.h"
#include "threads.h"
#include "timer.h"

/* ---- compute loops: FMA and dot-product chains -----------------------------------
 * Each loop runs `iters` iterations of `chains` independent accumulator chains and
 * returns their sum, so the work cannot be dropped. The loops are compiled with
 * per-function target attributes and chosen at run time (`supported`), so any build runs
 * every loop the CPU has and none it lacks.
 *   FMA loops (hr_fma_loops, indexed by HR_FMA_* of ceilings.h): x = x * m + a, m slightly
 *   below 1, so x stays near a / (1 - m): no overflow, no denormals.
 *   Dot loops (hr_dot_loops, indexed by HR_DOT_*): x = dot(x, A, B), one instruction per
 *   chain and iteration. bf16: vdpbf16ps with every element of A = bf16(m), of B =
 *   bf16(a); each lane adds 2 m a per instruction (AMX: 4 accumulator tiles of 16 x 16
 *   fp32, A and B tiles of bf16(m) and bf16(a), each element adds 32 m a per tdpbf16ps;
 *   the tile config loaded and released per call, on the calling thread). int8: vpdpbusd with u8 elements
 *   1 + lrint(4 a) and s8 elements lrint(4 m); each int32 lane adds 4 u s per
 *   instruction (wrapping, as the instruction does).
 * Enough chains to cover the instruction's latency times its ports. */
typedef struct {
    const char *name;          /* "avx512", ... (FMA); "avx512_bf16", ... (dot)          */
    int chains, lanes;         /* independent chains, accumulator lanes per vector       */
    double flops_per_iter;     /* chains x multiply-adds per instruction x 2             */
    bool (*supported)(void);   /* the CPU (and OS) can run it                            */
    float (*run)(long iters, float m, float a); /* NULL: this build has no such loop     */
    int madds;                 /* multiply-adds per instruction and chain                */
} hr_roof_loop;
extern const hr_roof_loop hr_fma_loops[]; /* HR_FMA_NISA entries */
extern const hr_roof_loop hr_dot_loops[]; /* HR_DOT_N entries */
/* Index of the loop matching this build's vector ISA (hr_isa): avx512, avx2 or, for a
 * generic build, sse2. */
int hr_fma_build_loop(void);
/* Why dot loop i cannot be measured here ("the CPU has no AVX512-BF16 (cpuid)", ...),
 * NULL when it can. */
const char *hr_dot_absent(int i);
/* The loop of a compute roof (hr_roof_for, ceilings.h), or NULL when this CPU or build
 * cannot run it (AMX: or the OS refused the tile state). */
const hr_roof_loop *hr_roof_loop_of(int roof);
/* The compute roof of a row: hr_roof_for_path (ceilings.h) of hr_kernel_path(k, p) (k
 * NULL: the FMA of isa); a plugin whose path names no instruction, on a bf16 problem
 * (dtype and kv_dtype bf16): the best bf16 roof this CPU runs (AMX, else the bf16 dot),
 * since its library may issue either. */
int hr_roof_of(const hr_kernel *k, const hr_problem *p, const char *isa);
/* The roof whose loop a row's compute probe runs (bench.c) and is compared with: its own
 * (hr_roof_of at hr_isa) where that has a loop here, else the build's FMA (a series
 * roof, or a dot this CPU lacks). */
int hr_probe_roof(const hr_kernel *k, const hr_problem *p);

/* ---- the concurrent-ceiling probe -------------------------------------------------
 * Every thread of one OpenMP team of `threads` starts together (after a barrier) and
 * runs the build ISA's FMA loop in chunks of about 1 us until `seconds` have passed on
 * its own clock; its rate is its FLOPs over its own elapsed time. per_thread (may be
 * NULL) receives the `threads` rates in GFLOP/s. Returns the smallest: a team's
 * compute-bound figure is gated by its slowest vCPU, so threads x min is the
 * concurrent ceiling right now.
 * Overhead beyond `seconds`: microseconds (team start, last chunk); but when another
 * process holds one of the vCPUs the team cannot start until it is scheduled,
 * milliseconds, which is the throttling the probe exists to show (perf-log 0244). 1-3 ms is enough: a few hundred chunks. Allocates nothing; must not
 * be called from inside a parallel region. */
double hr_probe_run(int threads, double seconds, double *per_thread);
/* hr_probe_run with loop L (a supported FMA or dot loop) instead of the build's FMA loop;
 * GFLOP/s (GOP/s for int8) per thread by L's counting. */
double hr_probe_run_loop(const hr_roof_loop *L, int threads, double seconds, double *per_thread);

/* The bandwidth variant: a STREAM triad a = b + s*c over a caller-owned buffer, each
 * thread sweeping its own contiguous slice, in 64 KiB chunks from where its previous
 * probe stopped (wrapping around), until `seconds` have passed.
 * Bytes are counted as STREAM does (12 per element). The buffer must be larger than
 * the caches it should miss (hr_probe_buf_default_bytes: beyond the L2s of all
 * threads, so the figure is L3 or memory bandwidth by the machine's L3 size).
 * Overhead beyond `seconds`: up to one 64 KiB chunk per array (~10 us), plus the team
 * start as above. */
#define HR_PROBE_MAX_THREADS HR_THREADS_MAX
typedef struct {
    float *a, *b, *c;
    size_t n;   /* elements per array                                             */
    size_t *pos; /* per thread: where its next probe starts in its slice; a probe
                  * continues where the last one stopped, so the lines it reads were
                  * last touched a whole buffer ago, not by the probe just before it */
} hr_probe_buf;
/* Thread me of nt's share [*lo, *hi) of n elements, in whole cache lines (16 floats);
 * the probe, its first touch and the roofline triad split arrays this way. */
void hr_probe_slice(size_t n, int me, int nt, size_t *lo, size_t *hi);
/* hr_triad (isa.h): a[i] = b[i] + s * c[i] for i in [lo, hi), compiled per ISA level. */
/* Bytes hr_probe_buf_alloc takes by default: 8 x L2 x online CPUs, at least 16 MiB. */
size_t hr_probe_buf_default_bytes(void);
/* Allocates and first-touches (with `threads` threads, the slices the probe uses) the
 * three arrays, bytes in total. On error returns HR_EUSAGE with a message. */
int hr_probe_buf_alloc(hr_probe_buf *pb, size_t bytes, int threads);
void hr_probe_buf_free(hr_probe_buf *pb);
/* per_thread (may be NULL) receives each thread's GB/s over its slice. Returns the
 * team's GB/s (the sum: bandwidth is shared, not per thread). */
double hr_probe_bw(int threads, const hr_probe_buf *pb, double seconds, double *per_thread);

/* ---- timer hooks ----------------------------------------------------------------
 * hr_timer_opts.before_rep/after_rep with hook_ctx = an hr_probe_log: runs the FMA
 * probe before and after each timed repetition and keeps threads x min(per thread),
 * the team's concurrent GFLOP/s, per repetition. A repetition whose probes read well
 * below the stored ceiling ran on a throttled machine. */
typedef struct {
    int threads;    /* team size of the kernel being timed                     */
    double seconds; /* probe length (0: 2 ms)                                  */
    int n;          /* repetitions logged (highest rep + 1)                     */
    double before[HR_MAX_REPS], after[HR_MAX_REPS]; /* GFLOP/s                  */
} hr_probe_log;
void hr_probe_before_rep(void *log, int rep);
void hr_probe_after_rep(void *log, int rep);

#endif

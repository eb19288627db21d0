/* timer.c — wall-clock timing with warm-up, calibration and repetitions (cf. FFTW's
 * kernel/timer.c: grow the iteration count until one repetition exceeds a minimum time). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inputs.h"
#include "sysinfo.h"
#include "timer.h"

double hr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double hr_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)) return NAN;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double hr_timer_resolution(void)
{
    double best = INFINITY;
    for (int i = 0; i < 32; i++) {
        double t0 = hr_now(), t1;
        while ((t1 = hr_now()) == t0) {}
        if (t1 - t0 < best) best = t1 - t0;
    }
    return best;
}

static volatile float flush_sink;

void hr_flush_caches(void)
{
    /* Four times the last-level cache, at least 64 MiB; kept for the process's life. */
    static float *buf;
    static size_t n;
    if (!buf) {
        const hr_sysinfo *si = hr_sysinfo_get();
        size_t bytes = 4 * (si->l3 ? si->l3 : si->l2) ;
        if (bytes < ((size_t)64 << 20)) bytes = (size_t)64 << 20;
        n = bytes / sizeof(float);
        buf = hr_alloc(n * sizeof(float));
        if (!buf) return;
        memset(buf, 0, n * sizeof(float));
    }
    float acc = 0;
    for (size_t i = 0; i < n; i += 16) {
        buf[i] += 1.0f;
        acc += buf[i];
    }
    flush_sink = acc;
}

long hr_time_calibrate(void (*fn)(void *), void *ctx, const hr_timer_opts *o)
{
    /* Warm-up: at least one call (first-touch, page faults, frequency ramp). */
    double t0 = hr_now(), once;
    fn(ctx);
    once = hr_now() - t0;
    while (hr_now() - t0 < o->warmup && !(o->stop && *o->stop)) fn(ctx);

    /* Calibrate: grow the iterations until one batch takes min_time. */
    long iters = 1;
    if (o->min_time > 0 && !o->cold) {
        double dt = once;
        while (dt < o->min_time && iters < (1L << 30) && !(o->stop && *o->stop)) {
            long next = dt > 0 ? (long)ceil(iters * 1.2 * o->min_time / dt) : iters * 10;
            if (next > iters * 10) next = iters * 10;
            if (next <= iters) next = iters + 1;
            iters = next;
            double s = hr_now();
            for (long i = 0; i < iters; i++) fn(ctx);
            dt = hr_now() - s;
        }
    }
    return iters;
}

double hr_time_rep(void (*fn)(void *), void *ctx, const hr_timer_opts *o, long iters, int rep, double *cpu)
{
    if (o->cold) hr_flush_caches();
    if (o->before_rep) o->before_rep(o->hook_ctx, rep);
    const double c0 = cpu ? hr_cpu_now() : 0, s = hr_now();
    for (long i = 0; i < iters; i++) fn(ctx);
    const double e = hr_now(), c1 = cpu ? hr_cpu_now() : 0;
    if (o->after_rep) o->after_rep(o->hook_ctx, rep);
    if (cpu) *cpu = isfinite(c1 - c0) && c1 >= c0 ? (c1 - c0) / (double)iters : 0;
    return (e - s) / (double)iters;
}

void hr_time_reps(void (*fn)(void *), void *ctx, const hr_timer_opts *o, long iters, hr_timing *out)
{
    int reps = o->reps < 1 ? 1 : o->reps > HR_MAX_REPS ? HR_MAX_REPS : o->reps;
    out->reps = reps;
    for (int r = 0; r < reps; r++) {
        if (o->stop && *o->stop) {
            out->aborted = true;
            out->reps = r;
            break;
        }
        out->rep_time[r] = hr_time_rep(fn, ctx, o, iters, r, &out->rep_cpu[r]);
    }
}

void hr_time(void (*fn)(void *), void *ctx, const hr_timer_opts *o, hr_timing *out)
{
    memset(out, 0, sizeof *out);
    out->iters = hr_time_calibrate(fn, ctx, o);
    hr_time_reps(fn, ctx, o, out->iters, out);
    hr_summarize(out->rep_time, out->reps, &out->s);
}

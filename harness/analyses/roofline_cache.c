/* roofline_cache.c — the cache-level roofs: load and triad bandwidth with each thread's working set in L1, L2 or L3. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "inputs.h"
#include "probe.h"
#include "roofline.h"
#include "stats.h"
#include "sysinfo.h"
#include "timer.h"
#include "isa.h"

/* Working sets, per thread (likwid-bench's habit: half the level, so the loop's own
 * stack, code and the other arrays' lines do not push it out):
 *   L1  l1d / 2      L2  l2 / 2      L3  l3 / 2 / (team threads sharing one L3)
 * Unknown sizes fall back to 32 KiB, 1 MiB, 32 MiB. Rounded down to whole 3 x 512-byte
 * blocks, so the load sum's 8 vectors and the triad's three arrays divide it. */
#define BLOCK_FLOATS 128 /* 8 accumulators x 16 lanes: the load sum's step */

double hr_cache_ws_bytes(int level, int threads)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    double size = level == HR_CACHE_L1 ? (si->l1d ? (double)si->l1d : 32768.0)
                  : level == HR_CACHE_L2 ? (si->l2 ? (double)si->l2 : 1048576.0)
                                         : (si->l3 ? (double)si->l3 : 33554432.0);
    double ws = size / 2;
    if (level == HR_CACHE_L3) {
        int share = si->l3_shared > 0 ? si->l3_shared : 1;
        ws /= threads < share ? threads : share;
    }
    size_t unit = 3 * BLOCK_FLOATS * sizeof(float);
    size_t b = (size_t)ws / unit * unit;
    return (double)(b ? b : unit);
}

static volatile float cache_s = 3.0f, cache_sink;

/* Figures: load and triad per level, 2 * level + kernel. */
enum { K_LOAD = 0, K_TRIAD, K_N };
#define F_N (HR_CACHE_N * K_N)

int hr_cache_roofs_measure(int threads, int reps, double min_time, hr_ceiling_row *row)
{
    if (threads < 1) threads = 1;
    if (reps < 1) reps = 1;
    if (reps > HR_MAX_REPS) reps = HR_MAX_REPS;
    size_t n[HR_CACHE_N], stride = 0; /* floats per thread per level; per-thread stride */
    for (int l = 0; l < HR_CACHE_N; l++) {
        n[l] = (size_t)hr_cache_ws_bytes(l, threads) / sizeof(float);
        if (n[l] > stride) stride = n[l];
    }
    stride += 64; /* a cache line and more between threads: no false sharing */
    float *buf = hr_alloc((size_t)threads * stride * sizeof(float));
    if (!buf) return hr_fail("cannot allocate %.0f MiB for the cache roofs", threads * stride * 4.0 / 1048576);
    long passes[F_N];
    double rate[F_N][HR_MAX_REPS];
    float s = cache_s, sink = 0;
    int got = threads;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
        const int me = omp_get_thread_num(), nt = omp_get_num_threads();
        float *x = buf + (size_t)me * stride;
#pragma omp single
        got = nt;
        for (size_t i = 0; i < stride; i++) x[i] = 1.0f + 0.25f * (float)(i & 7); /* first touch */
        double t0 = 0;
        /* rep -2 calibrates passes (one pass timed, warm), -1 is a discarded warm-up. */
        for (int r = -2; r < reps; r++) {
            for (int f = 0; f < F_N; f++) {
                const int l = f / K_N, k = f % K_N;
                const size_t m = n[l], third = m / 3;
                const long np = r == -2 ? 1 : passes[f];
#pragma omp barrier
                if (me == 0) t0 = hr_now();
                for (long p = 0; p < np; p++) {
                    if (k == K_LOAD) sink += hr_isa_now()->load_sum(x, m);
                    else hr_triad(x, x + third, x + 2 * third, s, 0, third);
                }
#pragma omp barrier
                if (me == 0) {
                    double dt = fmax(hr_now() - t0, 1e-9);
                    double bytes = (double)np * nt * (k == K_LOAD ? m * sizeof(float) : third * 3 * sizeof(float));
                    if (r == -2) passes[f] = dt >= min_time ? 1 : (long)ceil(min_time / dt);
                    else if (r >= 0) rate[f][r] = bytes / dt * 1e-9;
                }
            }
        }
    }
    cache_sink = sink;
    free(buf);
    if (got != threads)
        return hr_fail("OpenMP ran %d threads where %d were asked (OMP_THREAD_LIMIT?)", got, threads);
    for (int l = 0; l < HR_CACHE_N; l++) {
        hr_cache_roof *c = &row->cache[l];
        hr_summary sm;
        c->ws_bytes = (double)n[l] * sizeof(float);
        hr_summarize(rate[K_N * l + K_LOAD], reps, &sm);
        c->load = (hr_roof_stat){sm.max, sm.median, sm.min};
        hr_summarize(rate[K_N * l + K_TRIAD], reps, &sm);
        c->triad = (hr_roof_stat){sm.max, sm.median, sm.min};
    }
    return HR_OK;
}

/* roofline_curve.c — the bandwidth curve: load and triad GB/s of a team over working sets from 4 KiB a thread to four times the reported last level, and the cache levels read off it. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachecurve.h"
#include "headroom.h"
#include "inputs.h"
#include "probe.h"
#include "roofline.h"
#include "sysinfo.h"
#include "timer.h"
#include "isa.h"

/* Each thread sweeps its own slice of one buffer from hr_alloc (2 MiB aligned, huge
 * pages from 2 MiB: the pages the kernels' tensors get), first touched by that thread.
 * A point: the load sum over the slice, then the triad over its three thirds, each timed
 * from a barrier to a barrier on thread 0 as the cache roofs are (roofline_cache.c):
 * one pass to calibrate the passes of min_time, a discarded warm-up, reps repetitions. */
#define SLICE_UNIT 384 /* floats: three thirds of the load sum's 8 vectors of 16 lanes, so
                        * the triad's arrays start on cache lines */

static volatile float curve_sink;

double hr_curve_top_bytes(void)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    double llc = si->l3 ? (double)si->l3 * (si->l3_instances > 0 ? si->l3_instances : 1) : (double)si->l2 * si->cpus;
    double top = 4 * llc;
    return top < 64.0 * 1048576 ? 64.0 * 1048576 : top > 2048.0 * 1048576 ? 2048.0 * 1048576 : top;
}

/* The working sets, per thread in floats (whole SLICE_UNITs, increasing). */
static int points_of(int threads, int per_octave, double top, size_t *per)
{
    int n = 0;
    double step = pow(2, 1.0 / per_octave);
    for (double w = 4096; w * threads <= top * 1.0001 && n < HR_CURVE_MAX; w *= step) {
        size_t f = (size_t)(w / sizeof(float)) / SLICE_UNIT * SLICE_UNIT;
        if (f && (!n || f > per[n - 1])) per[n++] = f;
    }
    return n;
}

int hr_curve_measure(int threads, int reps, double min_time, int per_octave, double top, hr_ceiling_row *row,
                     char *note, size_t notelen)
{
    if (note && notelen) note[0] = 0;
    if (threads < 1) threads = 1;
    if (reps < 1) reps = 1;
    if (reps > HR_MAX_REPS) reps = HR_MAX_REPS;
    if (per_octave < 1) per_octave = 1;
    size_t per[HR_CURVE_MAX];
    int np = points_of(threads, per_octave, top, per);
    if (np < 1) return hr_fail("the bandwidth curve has no working set of 4 KiB a thread under %.0f MiB", top / 1048576);
    size_t stride = per[np - 1] + 64; /* a cache line and more between threads */
    float *buf = hr_alloc((size_t)threads * stride * sizeof(float));
    if (!buf) return hr_fail("cannot allocate %.0f MiB for the bandwidth curve", threads * stride * 4.0 / 1048576);
    double rate[2][HR_MAX_REPS];
    float s = 3.0f, sink = 0;
    int got = threads;
    row->ncurve = 0;
    for (int pt = 0; pt < np; pt++) {
        const size_t m = per[pt], third = m / 3;
        long passes[2] = {1, 1};
#pragma omp parallel num_threads(threads) reduction(+ : sink)
        {
            const int me = omp_get_thread_num(), nt = omp_get_num_threads();
            float *x = buf + (size_t)me * stride;
#pragma omp single
            got = nt;
            if (pt == 0)
                for (size_t i = 0; i < stride; i++) x[i] = 1.0f + 0.25f * (float)(i & 7); /* first touch */
            double t0 = 0;
            for (int r = -2; r < reps; r++)
                for (int k = 0; k < 2; k++) {
                    const long n = r == -2 ? 1 : passes[k];
#pragma omp barrier
                    if (me == 0) t0 = hr_now();
                    for (long p = 0; p < n; p++) {
                        if (k == 0) sink += hr_isa_now()->load_sum(x, m);
                        else hr_triad(x, x + third, x + 2 * third, s, 0, third);
                    }
#pragma omp barrier
                    if (me == 0) {
                        double dt = fmax(hr_now() - t0, 1e-9);
                        double bytes = (double)n * nt * (k == 0 ? m : 3 * third) * sizeof(float);
                        if (r == -2) passes[k] = dt >= min_time ? 1 : (long)ceil(min_time / dt);
                        else if (r >= 0) rate[k][r] = bytes / dt * 1e-9;
                    }
#pragma omp barrier
                }
        }
        if (got != threads) break;
        hr_curve_point *c = &row->curve[row->ncurve++];
        c->ws_bytes = (double)m * threads * sizeof(float);
        c->load = c->triad = 0;
        for (int r = 0; r < reps; r++) c->load = fmax(c->load, rate[0][r]), c->triad = fmax(c->triad, rate[1][r]);
    }
    curve_sink = sink;
    free(buf);
    if (got != threads)
        return hr_fail("OpenMP ran %d threads where %d were asked (OMP_THREAD_LIMIT?)", got, threads);

    /* The levels, off the triad curve: every plateau before the last is a cache level. */
    double ws[HR_CURVE_MAX], tri[HR_CURVE_MAX];
    for (int i = 0; i < row->ncurve; i++) ws[i] = row->curve[i].ws_bytes, tri[i] = row->curve[i].triad;
    hr_plateau p[HR_LEVELS_MAX];
    int nk = hr_curve_levels(ws, tri, row->ncurve, p, HR_LEVELS_MAX, note, notelen);
    row->nlevels = nk > 1 ? nk - 1 : 0;
    if (row->nlevels > HR_CACHE_N) {
        if (note && !note[0])
            snprintf(note, notelen, "the curve shows %d knees: the first %d are L1-L3, the rest is read as memory",
                     row->nlevels, HR_CACHE_N);
        row->nlevels = HR_CACHE_N;
    }
    for (int l = 0; l < row->nlevels; l++) {
        hr_level *v = &row->levels[l];
        v->size = p[l].size;
        v->triad = p[l].bw;
        v->load = 0;
        for (int i = p[l].first; i <= p[l].last; i++) v->load = fmax(v->load, row->curve[i].load);
    }
    row->beyond_gbs = nk > 1 ? p[nk - 1].bw : 0;
    return HR_OK;
}

/* roofline.c — measures the machine's ceilings (FMA per ISA, bf16/int8 dot products, triad, exp per thread count) and sets the roofline counters of a result row. */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "counts.h"
#include "files.h"
#include "headroom.h"
#include "inputs.h"
#include "probe.h"
#include "results.h"
#include "roofline.h"
#include "sysinfo.h"
#include "threads.h"
#include "timer.h"
#include "isa.h"


/* ---- measurement ----------------------------------------------------------------
 * Per thread count, one OpenMP team runs every figure in turn, repetition by
 * repetition (FMA per ISA, bf16 and int8 dot products, triad, exp; then again), so slow phases of a throttled
 * machine spread over all figures instead of hitting one. A repetition is timed from
 * a barrier to a barrier on thread 0: every thread does the same work, and the rate
 * counts the work of the whole team, so the slowest thread sets it. Repetition -1 is
 * a discarded warm-up (page faults, frequency ramp), as in STREAM. */

/* Figures: the FMA loops, the dot loops (HR_ROOF_DOT + HR_DOT_*), triad, exp, the
 * softmax ceilings (M_SMX + HR_SMX_*), then load: a read-only sum over the triad's three
 * arrays, DRAM's bandwidth for a kernel that only reads (decode's K and V). */
enum { M_TRIAD = HR_NROOFS, M_EXP, M_SMX, M_LOAD = M_SMX + HR_SMX_N, M_N };

/* The compute loop of figure m < M_TRIAD. */
static const hr_roof_loop *loop_of(int m)
{
    return m < HR_ROOF_DOT ? &hr_fma_loops[m] : &hr_dot_loops[m - HR_ROOF_DOT];
}

#define EXP_N 2048 /* floats per thread: in + out = 16 KiB, resident in L1 */
#define SMX_N 2048 /* scores per thread of a softmax sweep: ~17 KiB with its scratch, in L1 */
#define SMX_F HR_SOFTMAX_SWEEP_FLOATS(SMX_N)

typedef struct {
    int reps;
    double min_time;
    bool on[M_N];
    long iters[M_N]; /* FMA, dot: loop iterations; triad: passes; exp: sweeps of EXP_N */
    float *a, *b, *c; /* triad arrays of n floats                               */
    size_t n;
    float *ebuf;      /* exp: 2 * EXP_N floats per thread                       */
    float *sbuf;      /* softmax: SMX_F floats per thread                        */
    const hr_isa_level *smx[HR_SMX_N]; /* the level whose code runs each softmax ceiling */
} plan;

static volatile float fma_m = 0.9999999f, fma_a = 1e-7f, triad_s = 3.0f;
static volatile float sink_f;

/* iters sweeps of hr_vexp over in -> out, compiled for the level that runs (roofloops.c). */
static float exp_sweeps(const float *in, float *out, long iters)
{
    return hr_isa_now()->exp_sweep(in, out, EXP_N, iters);
}

/* iters sweeps of softmax ceiling i's step over SMX_N scores in buf (roofloops.c). */
static double smx_sweeps(const plan *p, int i, float *buf, long iters)
{
    return p->smx[i]->softmax_sweep(hr_softmaxes[i].step, buf, SMX_N, iters);
}

/* Why softmax ceiling i cannot be measured here, NULL when it can (p->smx[i] set). */
static const char *smx_absent(plan *p, int i, char *buf, size_t len)
{
    const hr_softmax_info *s = &hr_softmaxes[i];
    if (s->step < 0) return "no kernel path runs AVX512-FP16: f16 rows are converted to fp32 and held to the f32 step";
    const hr_isa_level *lv = NULL;
    for (int k = 0; k < hr_isa_count(); k++)
        if (!strcmp(hr_isa_at(k)->name, s->level)) lv = hr_isa_at(k);
    const char *lacks = lv ? hr_isa_lacks(lv) : NULL;
    if (!lv) snprintf(buf, len, "this binary has no %s level", s->level);
    else if (lacks) snprintf(buf, len, "the CPU lacks %s (the %s level)", lacks, s->level);
    else if (lv->softmax_sweep(s->step, p->sbuf, SMX_N, 0) < 0)
        snprintf(buf, len, "the %s level has no code for this step", s->level);
    else if (s->step == HR_SMS_BF16DOT && hr_dot_absent(HR_DOT_BF16)) return hr_dot_absent(HR_DOT_BF16);
    else if (s->step == HR_SMS_AMX && hr_dot_absent(HR_DOT_AMX)) return hr_dot_absent(HR_DOT_AMX);
    else {
        p->smx[i] = lv;
        return NULL;
    }
    return buf;
}

/* Grows iters until one call of the measurement m takes min_time on one thread. */
static long calibrate(int m, const plan *p, float *ebuf)
{
    long iters = 64;
    for (;;) {
        double t0 = hr_now();
        if (m < M_TRIAD) sink_f = loop_of(m)->run(iters, fma_m, fma_a);
        else if (m >= M_SMX) sink_f = (float)smx_sweeps(p, m - M_SMX, p->sbuf, iters);
        else sink_f = exp_sweeps(ebuf, ebuf + EXP_N, iters);
        double dt = hr_now() - t0;
        if (dt >= p->min_time || iters >= (1L << 40)) return iters;
        double grow = dt > 0 ? 1.25 * p->min_time / dt : 16;
        iters = (long)(iters * (grow < 2 ? 2 : grow > 16 ? 16 : grow));
    }
}

/* Work of one repetition of m by one thread: FLOPs, bytes (triad, of the thread's
 * slice: summed by the caller through n) or elements. */
static double work(int m, const plan *p)
{
    if (m < M_TRIAD) return (double)p->iters[m] * loop_of(m)->flops_per_iter;
    if (m == M_EXP) return (double)p->iters[m] * EXP_N;
    if (m >= M_SMX && m < M_LOAD) return (double)p->iters[m] * SMX_N;
    return (double)p->iters[m] * (double)p->n * 3 * sizeof(float);
}

static void stat_of(const double *x, int n, hr_roof_stat *s)
{
    hr_summary sm;
    hr_summarize(x, n, &sm);
    *s = (hr_roof_stat){sm.max, sm.median, sm.min};
}

#define LOAD_STEP 128 /* floats: the load sum's step at the widest level, 8 vectors of 16 */

/* A thread's floats of one triad array that the load sum reads: its slice, down to whole
 * steps of the sum (8 vectors), so the bytes counted are the bytes read. */
static size_t load_len(const plan *p, int me, int nt)
{
    size_t lo, hi;
    hr_probe_slice(p->n, me, nt, &lo, &hi);
    return (hi - lo) / LOAD_STEP * LOAD_STEP;
}

/* Measures every figure of p at `threads` into row. */
static int measure_threads(plan *p, int threads, hr_ceiling_row *row)
{
    double rate[M_N][HR_MAX_REPS];
    int got = threads;
    float s = triad_s, fm = fma_m, fa = fma_a, sink = 0;
    memset(row, 0, sizeof *row);
    row->threads = threads;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
        int me = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t lo, hi;
        hr_probe_slice(p->n, me, nt, &lo, &hi);
        float *ein = p->ebuf + (size_t)me * 2 * EXP_N, *eout = ein + EXP_N;
        double t0 = 0;
#pragma omp single
        got = nt;
        /* Triad passes per repetition: one pass timed, enough of them for min_time. */
        if (p->on[M_TRIAD]) {
#pragma omp barrier
            if (me == 0) t0 = hr_now();
            hr_triad(p->a, p->b, p->c, s, lo, hi);
#pragma omp barrier
            if (me == 0) {
                double dt = fmax(hr_now() - t0, 1e-9);
                p->iters[M_TRIAD] = dt >= p->min_time ? 1 : (long)ceil(p->min_time / dt);
            }
        }
        for (int r = -1; r < p->reps; r++) {
            for (int m = 0; m < M_N; m++) {
                if (!p->on[m]) continue;
#pragma omp barrier
                if (me == 0) t0 = hr_now();
                if (m < M_TRIAD) {
                    sink += loop_of(m)->run(p->iters[m], fm, fa);
                } else if (m == M_TRIAD) {
                    for (long k = 0; k < p->iters[M_TRIAD]; k++) hr_triad(p->a, p->b, p->c, s, lo, hi);
                } else if (m == M_LOAD) {
                    const size_t len = load_len(p, me, nt);
                    for (long k = 0; k < p->iters[M_TRIAD]; k++)
                        sink += hr_isa_now()->load_sum(p->a + lo, len) + hr_isa_now()->load_sum(p->b + lo, len) +
                                hr_isa_now()->load_sum(p->c + lo, len);
                } else if (m >= M_SMX) {
                    sink += (float)smx_sweeps(p, m - M_SMX, p->sbuf + (size_t)me * SMX_F, p->iters[m]);
                } else {
                    sink += exp_sweeps(ein, eout, p->iters[M_EXP]);
                }
#pragma omp barrier
                if (me == 0 && r >= 0) {
                    const double dt = hr_now() - t0; /* the clock first: the bytes are counted after it */
                    double team = m == M_TRIAD ? work(m, p) : work(m, p) * nt;
                    if (m == M_LOAD) {
                        team = 0;
                        for (int u = 0; u < nt; u++) team += 3.0 * (double)load_len(p, u, nt) * sizeof(float);
                        team *= (double)p->iters[M_TRIAD];
                    }
                    rate[m][r] = team / dt * 1e-9;
                }
            }
        }
    }
    sink_f = sink;
    if (got != threads)
        return hr_fail("OpenMP ran %d threads where %d were asked (OMP_THREAD_LIMIT?)", got,
                       threads);
    for (int m = 0; m < HR_FMA_NISA; m++)
        if (p->on[m]) stat_of(rate[m], p->reps, &row->fma[m]);
    for (int i = 0; i < HR_DOT_N; i++)
        if (p->on[HR_ROOF_DOT + i]) stat_of(rate[HR_ROOF_DOT + i], p->reps, &row->dot[i]);
    if (p->on[M_TRIAD]) stat_of(rate[M_TRIAD], p->reps, &row->triad);
    if (p->on[M_LOAD]) stat_of(rate[M_LOAD], p->reps, &row->load);
    if (p->on[M_EXP]) stat_of(rate[M_EXP], p->reps, &row->exp);
    for (int i = 0; i < HR_SMX_N; i++)
        if (p->on[M_SMX + i]) stat_of(rate[M_SMX + i], p->reps, &row->softmax[i]);
    return HR_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Default triad size: four times all the last-level caches, at least 256 MiB. */
static double default_triad_bytes(void)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    size_t llc = si->l3 ? si->l3 : si->l2;
    double b = 4.0 * (double)llc * si->l3_instances;
    return b < 256.0 * 1048576 ? 256.0 * 1048576 : b;
}

int hr_roofline_measure(const hr_roofline_opts *o, hr_ceilings *c)
{
    memset(c, 0, sizeof *c);
    if (o->nthreads < 1 || o->nthreads > HR_ROOF_MAX_ROWS)
        return hr_fail("--threads: between 1 and %d thread counts, got %d", HR_ROOF_MAX_ROWS,
                       o->nthreads);
    int th[HR_ROOF_MAX_ROWS], nth = 0, tmax = 0;
    memcpy(th, o->threads, sizeof(int) * (size_t)o->nthreads);
    qsort(th, (size_t)o->nthreads, sizeof(int), cmp_int);
    for (int i = 0; i < o->nthreads; i++) {
        if (th[i] < 1) return hr_fail("--threads: thread counts must be >= 1, got %d", th[i]);
        if (nth && th[nth - 1] == th[i]) continue;
        th[nth++] = th[i];
    }
    tmax = th[nth - 1];

    plan p = {.reps = o->reps < 1 ? 1 : o->reps > HR_MAX_REPS ? HR_MAX_REPS : o->reps,
              .min_time = o->min_time > 0 ? o->min_time : 0.01};
    double bytes = o->triad_bytes > 0 ? o->triad_bytes : default_triad_bytes();
    p.n = (size_t)(bytes / (3 * sizeof(float))) / 16 * 16;
    if (p.n < 16 * (size_t)tmax) p.n = 16 * (size_t)tmax;
    p.a = hr_alloc(p.n * sizeof(float));
    p.b = hr_alloc(p.n * sizeof(float));
    p.c = hr_alloc(p.n * sizeof(float));
    p.ebuf = hr_alloc((size_t)tmax * 2 * EXP_N * sizeof(float));
    p.sbuf = hr_alloc((size_t)tmax * SMX_F * sizeof(float));
    int rc = HR_OK;
    if (!p.a || !p.b || !p.c || !p.ebuf || !p.sbuf) {
        rc = hr_fail("cannot allocate %.0f MiB for the triad arrays", 3.0 * p.n * 4 / 1048576);
        goto out;
    }
    /* First touch by the widest team with the slices the triad uses: on a NUMA machine
     * the pages of each slice land near the thread that sweeps them (narrower teams
     * split differently; one NUMA node, as here, does not care). */
    float s = triad_s;
#pragma omp parallel num_threads(tmax)
    {
        int me = omp_get_thread_num();
        size_t lo, hi;
        hr_probe_slice(p.n, me, omp_get_num_threads(), &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            p.a[i] = 0.0f;
            p.b[i] = 1.0f + 0.25f * (float)(i & 7);
            p.c[i] = 2.0f;
        }
        float *e = p.ebuf + (size_t)me * 2 * EXP_N;
        for (int i = 0; i < EXP_N; i++) e[i] = -10.0f * (float)i / EXP_N; /* softmax range */
        /* scores in log2 units, the row's max first: the running max is set by the first
         * chunk and stays (the steady state of a row, lazy rescale skipped) */
        float *sc = p.sbuf + (size_t)me * SMX_F;
        for (size_t i = 0; i < SMX_F; i++) sc[i] = i < SMX_N ? -10.0f * (float)i / SMX_N : 0.0f;
    }
    for (int m = 0; m < HR_FMA_NISA; m++) p.on[m] = hr_fma_loops[m].supported();
    for (int i = 0; i < HR_DOT_N; i++) {
        const char *why = hr_dot_absent(i);
        p.on[HR_ROOF_DOT + i] = !why;
        snprintf(c->dot_absent[i], sizeof c->dot_absent[i], "%s", why ? why : "");
    }
    p.on[M_TRIAD] = p.on[M_EXP] = p.on[M_LOAD] = true;
    c->softmax_in_file = true;
    for (int i = 0; i < HR_SMX_N; i++) {
        char buf[160];
        const char *why = smx_absent(&p, i, buf, sizeof buf);
        p.on[M_SMX + i] = !why;
        snprintf(c->softmax_absent[i], sizeof c->softmax_absent[i], "%s", why ? why : "");
    }
    for (int m = 0; m < M_N; m++)
        if (p.on[m] && m != M_TRIAD && m != M_LOAD) p.iters[m] = calibrate(m, &p, p.ebuf);

    for (int i = 0; i < nth && rc == HR_OK; i++) {
        rc = measure_threads(&p, th[i], &c->rows[i]);
        if (rc == HR_OK) rc = hr_cache_roofs_measure(th[i], p.reps, p.min_time, &c->rows[i]);
        if (rc == HR_OK) {
            /* The curve: fewer and shorter repetitions than the roofs (best of 3-5 of
             * >= 2-5 ms: about 60 points a thread count), enough for its plateaus. */
            char note[200];
            int steps = o->curve_steps > 0 ? o->curve_steps : o->quick ? 2 : 4;
            rc = hr_curve_measure(th[i], p.reps < 5 ? p.reps : 5, fmin(p.min_time, 0.005), steps,
                                  hr_curve_top_bytes(), &c->rows[i], note, sizeof note);
            size_t n = strlen(c->level_note);
            if (rc == HR_OK && note[0])
                snprintf(c->level_note + n, sizeof c->level_note - n, "%sT%d: %s", n ? "; " : "", th[i], note);
        }
        if (rc == HR_OK) {
            c->nrows = i + 1;
            if (o->progress) o->progress(o->progress_ctx, &c->rows[i]);
        }
    }
    /* STREAM's check: every element holds b + s*c (exact in fp32 for these values), so
     * no pass was dropped or mis-split. */
    if (rc == HR_OK) {
        size_t bad = p.n;
        for (size_t i = 0; i < p.n; i++)
            if (p.a[i] != p.b[i] + s * p.c[i]) {
                bad = i;
                break;
            }
        if (bad < p.n)
            rc = hr_failc(HR_EFAIL, "triad check failed at element %zu: %g, expected %g", bad,
                          p.a[bad], p.b[bad] + s * p.c[bad]);
    }
    if (rc == HR_OK) hr_ceiling_levels_check(c);
    c->quick = o->quick;
    c->reps = p.reps;
    c->min_rep_time = p.min_time;
    c->triad_bytes = 3.0 * (double)p.n * sizeof(float);
    snprintf(c->machine, sizeof c->machine, "%s", hr_sysinfo_get()->machine);
out:
    free(p.a);
    free(p.b);
    free(p.c);
    free(p.ebuf);
    free(p.sbuf);
    if (rc != HR_OK) c->nrows = 0;
    return rc;
}

/* ---- the ceilings file ------------------------------------------------------------ */

/* The attainable rate of the row's path, min of three (hr_attainable3): the matmul roof
 * peak, its softmax ceiling times FLOPs per score (counts.c), and mem, the bandwidth of
 * its working set's level times AI. None where a ceiling is missing (an old file). */
static void attach_path(hr_result *r, const hr_ceilings *c, int threads, int roof, double peak, double mem,
                        double achieved)
{
    hr_softmax_tell_missing(c);
    int sm = hr_softmax_for(roof, r->kernel ? r->kernel->name : NULL, hr_isa);
    double gscores = hr_ceiling_softmax(c, threads, sm), smg = gscores * hr_flops_per_score(&r->prob);
    double att;
    int bound = hr_attainable3(peak, smg, mem, &att);
    if (gscores > 0) {
        snprintf(r->softmax_step, sizeof r->softmax_step, "%s", hr_softmaxes[sm].name);
        hr_result_set(r, "softmax_gscores", gscores);
        hr_result_set(r, "softmax_gflops", smg);
    }
    if (bound < 0) return;
    snprintf(r->bound_by, sizeof r->bound_by, "%s", hr_bound_names[bound]);
    hr_result_set(r, "attainable_path_gflops", att);
    if (achieved > 0) hr_result_set(r, "pct_of_attainable", achieved / att * 100);
}

void hr_roofline_attach(hr_result *r, const hr_ceilings *c)
{
    int threads = r->tune.threads > 0 ? r->tune.threads : hr_threads_default();
    int used = hr_ceiling_threads(c, threads);
    if (!used) return;
    /* The compute roof of the row's own type: the instruction its kernel's path runs. */
    int roof = hr_roof_of(r->kernel, &r->prob, hr_isa);
    double peak = hr_ceiling_roof(c, threads, roof), bw = hr_ceiling_bw(c, threads);
    hr_result_set(r, "ceiling_threads", used);
    if (peak > 0) hr_result_set(r, "ceiling_gflops", peak);
    if (bw > 0) hr_result_set(r, "ceiling_gbs", bw);
    /* The bound is the problem's: FLOPs per compulsory byte (counts.c hr_bound_bytes). */
    double bytes = hr_bound_bytes(&r->prob, r->bytes);
    if (!(bytes > 0) || !(r->flops > 0)) return;
    double ai = r->flops / bytes;
    hr_result_set(r, "AI", ai);
    if (!(peak > 0) || !(bw > 0)) return;
    double attainable = fmin(peak, ai * bw);
    hr_result_set(r, "attainable_gflops", attainable);
    double achieved = hr_result_gflops(r);
    if (achieved > 0) hr_result_set(r, "pct_of_roofline", achieved / attainable * 100);
    /* The cache level the row's working set fits, and that level's roof. */
    double ws = hr_working_set_bytes(&r->prob, r->workspace_bytes);
    int level = hr_ceiling_level_of(c, ws, threads);
    double lbw = hr_ceiling_cache_bw(c, threads, level);
    attach_path(r, c, threads, roof, peak, ai * (ws > 0 && lbw > 0 ? lbw : bw), achieved);
    if (!(ws > 0) || !(lbw > 0)) return;
    double lattain = fmin(peak, ai * lbw);
    snprintf(r->bound_level, sizeof r->bound_level, "%s", ai * lbw >= peak ? "compute" : hr_level_name(level));
    hr_result_set(r, "level_gbs", lbw);
    hr_result_set(r, "level_measured", hr_ceiling_levels_measured(c, threads) ? 1 : 0);
    hr_result_set(r, "attainable_level_gflops", lattain);
    if (achieved > 0) hr_result_set(r, "pct_of_level_roof", achieved / lattain * 100);
}

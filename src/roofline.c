/* roofline.c — measures the machine's ceilings, saves and loads them, and sets the roofline counters of a result row. */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "headroom.h"
#include "inputs.h"
#include "probe.h"
#include "results.h"
#include "roofline.h"
#include "sysinfo.h"
#include "timer.h"
#include "vec.h"

const char *const hr_fma_isa_names[] = {"avx512", "avx2", "sse2", "scalar", NULL};

/* ---- measurement ----------------------------------------------------------------
 * Per thread count, one OpenMP team runs every figure in turn, repetition by
 * repetition (FMA per ISA, triad, exp; then again), so slow phases of a throttled
 * machine spread over all figures instead of hitting one. A repetition is timed from
 * a barrier to a barrier on thread 0: every thread does the same work, and the rate
 * counts the work of the whole team, so the slowest thread sets it. Repetition -1 is
 * a discarded warm-up (page faults, frequency ramp), as in STREAM. */

enum { M_TRIAD = HR_FMA_NISA, M_EXP, M_N };

#define EXP_N 2048 /* floats per thread: in + out = 16 KiB, resident in L1 */

typedef struct {
    int reps;
    double min_time;
    bool on[M_N];
    long iters[M_N]; /* FMA: loop iterations; triad: passes; exp: sweeps of EXP_N */
    float *a, *b, *c; /* triad arrays of n floats                               */
    size_t n;
    float *ebuf;      /* exp: 2 * EXP_N floats per thread                       */
} plan;

static volatile float fma_m = 0.9999999f, fma_a = 1e-7f, triad_s = 3.0f;
static volatile float sink_f;

/* One sweep of hr_vexp over in -> out, iters times. The empty asm with a memory clobber
 * keeps the compiler from merging the sweeps (each one rewrites the same values). */
static float exp_sweeps(const float *in, float *out, long iters)
{
    for (long it = 0; it < iters; it++) {
        for (int i = 0; i < EXP_N; i += HR_VW) hr_vstore(out + i, hr_vexp(hr_vload(in + i)));
        __asm__ volatile("" ::: "memory");
    }
    return out[EXP_N - 1];
}

/* Grows iters until one call of the measurement m takes min_time on one thread. */
static long calibrate(int m, const plan *p, float *ebuf)
{
    long iters = 64;
    for (;;) {
        double t0 = hr_now();
        if (m < HR_FMA_NISA) sink_f = hr_fma_loops[m].run(iters, fma_m, fma_a);
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
    if (m < HR_FMA_NISA) return (double)p->iters[m] * hr_fma_loops[m].flops_per_iter;
    if (m == M_EXP) return (double)p->iters[m] * EXP_N;
    return (double)p->iters[m] * (double)p->n * 3 * sizeof(float);
}

static void stat_of(const double *x, int n, hr_roof_stat *s)
{
    hr_summary sm;
    hr_summarize(x, n, &sm);
    *s = (hr_roof_stat){sm.max, sm.median, sm.min};
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
                if (m < HR_FMA_NISA) {
                    sink += hr_fma_loops[m].run(p->iters[m], fm, fa);
                } else if (m == M_TRIAD) {
                    for (long k = 0; k < p->iters[M_TRIAD]; k++) hr_triad(p->a, p->b, p->c, s, lo, hi);
                } else {
                    sink += exp_sweeps(ein, eout, p->iters[M_EXP]);
                }
#pragma omp barrier
                if (me == 0 && r >= 0) {
                    double team = m == M_TRIAD ? work(m, p) : work(m, p) * nt;
                    rate[m][r] = team / (hr_now() - t0) * 1e-9;
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
    if (p->on[M_TRIAD]) stat_of(rate[M_TRIAD], p->reps, &row->triad);
    if (p->on[M_EXP]) stat_of(rate[M_EXP], p->reps, &row->exp);
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
    int inst = si->l3 && si->l3_shared > 0 && si->cpus > si->l3_shared ? si->cpus / si->l3_shared : 1;
    double b = 4.0 * (double)llc * inst;
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
    int rc = HR_OK;
    if (!p.a || !p.b || !p.c || !p.ebuf) {
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
    }
    for (int m = 0; m < HR_FMA_NISA; m++) p.on[m] = hr_fma_loops[m].supported();
    p.on[M_TRIAD] = p.on[M_EXP] = true;
    for (int m = 0; m < M_N; m++)
        if (p.on[m] && m != M_TRIAD) p.iters[m] = calibrate(m, &p, p.ebuf);

    for (int i = 0; i < nth && rc == HR_OK; i++) {
        rc = measure_threads(&p, th[i], &c->rows[i]);
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
    if (rc != HR_OK) c->nrows = 0;
    return rc;
}

/* ---- the ceilings file ------------------------------------------------------------ */

/* Adds name: {isa: v} over the measured ISAs; pick selects best, median or worst. */
static void add_fma(cJSON *o, const char *name, const hr_ceiling_row *r, int pick)
{
    cJSON *f = cJSON_AddObjectToObject(o, name);
    for (int m = 0; m < HR_FMA_NISA; m++) {
        const hr_roof_stat *s = &r->fma[m];
        if (s->best <= 0) continue;
        cJSON_AddNumberToObject(f, hr_fma_isa_names[m], pick == 0 ? s->best : pick == 1 ? s->median : s->worst);
    }
}

static void add_stat(cJSON *o, const char *name, const hr_roof_stat *s)
{
    char key[64];
    cJSON_AddNumberToObject(o, name, s->best);
    snprintf(key, sizeof key, "%s_median", name);
    cJSON_AddNumberToObject(o, key, s->median);
    snprintf(key, sizeof key, "%s_worst", name);
    cJSON_AddNumberToObject(o, key, s->worst);
}

cJSON *hr_ceilings_json(const hr_ceilings *c)
{
    const char *warn[2];
    int nw = 0;
    if (c->quick) warn[nw++] = "measured with --quick: tiny sizes, not the machine's ceilings";
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "context", hr_context_json(warn, nw));
    cJSON_AddNumberToObject(root, "headroom_ceilings", 1);
    cJSON_AddBoolToObject(root, "quick", c->quick);
    cJSON_AddNumberToObject(root, "repetitions", c->reps);
    cJSON_AddNumberToObject(root, "min_rep_time_s", c->min_rep_time);
    cJSON_AddNumberToObject(root, "triad_bytes", c->triad_bytes);
    cJSON_AddStringToObject(root, "triad_counting",
                            "STREAM: 12 bytes per element (read b, c; write a); triad_wa_gbs "
                            "adds the write-allocate read of a: 16 bytes per element");
    cJSON_AddStringToObject(root, "exp", "hr_vexp of the build's vector path (" HR_VEC_ISA
                                         "), 2048 floats in and out of L1 per thread");
    cJSON *rows = cJSON_AddArrayToObject(root, "ceilings");
    for (int i = 0; i < c->nrows; i++) {
        const hr_ceiling_row *r = &c->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "threads", r->threads);
        add_fma(o, "fma_gflops", r, 0);
        add_fma(o, "fma_gflops_median", r, 1);
        add_fma(o, "fma_gflops_worst", r, 2);
        add_stat(o, "triad_gbs", &r->triad);
        cJSON_AddNumberToObject(o, "triad_wa_gbs", r->triad.best * 16.0 / 12.0);
        if (r->exp.best > 0) add_stat(o, "exp_gelems", &r->exp);
        cJSON_AddItemToArray(rows, o);
    }
    return root;
}

int hr_ceilings_save(const hr_ceilings *c, const char *path)
{
    cJSON *root = hr_ceilings_json(c);
    int rc = hr_write_json_atomic(path, root);
    cJSON_Delete(root);
    return rc;
}

void hr_ceilings_default_path(char *buf, size_t len)
{
    snprintf(buf, len, "results/%s/ceilings.json", hr_sysinfo_get()->machine);
}

/* Reads a whole file; NULL with errno set on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        if (cap >= ((size_t)64 << 20)) { /* no ceilings file is this big */
            free(buf);
            buf = NULL;
            errno = EFBIG;
            break;
        }
        char *nb = realloc(buf, cap *= 2);
        if (!nb) free(buf);
        buf = nb;
    }
    int bad = buf && ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

/* Reads {isa: number} into s (field picked by pick) for each known ISA name. */
static int read_fma(const cJSON *o, const char *key, hr_ceiling_row *r, int pick, const char *path,
                    int idx)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!f) return HR_OK;
    if (!cJSON_IsObject(f)) return hr_fail("%s: ceilings[%d].%s is not an object", path, idx, key);
    for (int m = 0; m < HR_FMA_NISA; m++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, hr_fma_isa_names[m]);
        if (!v) continue;
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble))
            return hr_fail("%s: ceilings[%d].%s.%s is not a number >= 0", path, idx, key,
                           hr_fma_isa_names[m]);
        double *dst = pick == 0 ? &r->fma[m].best : pick == 1 ? &r->fma[m].median : &r->fma[m].worst;
        *dst = v->valuedouble;
    }
    return HR_OK;
}

/* Reads name, name_median, name_worst; name is required when `required`. */
static int read_stat(const cJSON *o, const char *name, hr_roof_stat *s, bool required,
                     const char *path, int idx)
{
    char key[64];
    double *dst[3] = {&s->best, &s->median, &s->worst};
    const char *suffix[3] = {"", "_median", "_worst"};
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof key, "%s%s", name, suffix[k]);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        if (!v) {
            if (k == 0 && required)
                return hr_fail("%s: ceilings[%d] has no \"%s\"", path, idx, key);
            continue;
        }
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble) ||
            (k == 0 && required && v->valuedouble <= 0))
            return hr_fail("%s: ceilings[%d].%s is not a positive number", path, idx, key);
        *dst[k] = v->valuedouble;
    }
    return HR_OK;
}

int hr_ceilings_load(const char *path, hr_ceilings *c)
{
    memset(c, 0, sizeof *c);
    size_t len = 0;
    char *text = read_file(path, &len);
    if (!text)
        return hr_fail("%s: cannot read the ceilings (%s); 'headroom roofline' measures them",
                       path, strerror(errno));
    cJSON *root = cJSON_ParseWithLength(text, len);
    int rc = HR_OK;
    if (!root) {
        const char *e = cJSON_GetErrorPtr();
        long at = e && e >= text && e <= text + len ? (long)(e - text) : -1;
        rc = hr_fail("%s: not valid JSON (near byte %ld)", path, at);
        goto out;
    }
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "headroom_ceilings");
    if (!cJSON_IsNumber(ver) || ver->valueint != 1) {
        rc = hr_fail("%s: not a headroom ceilings file (no \"headroom_ceilings\": 1)", path);
        goto out;
    }
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "ceilings");
    int n = cJSON_IsArray(rows) ? cJSON_GetArraySize(rows) : 0;
    if (n < 1 || n > HR_ROOF_MAX_ROWS) {
        rc = hr_fail("%s: \"ceilings\" must be an array of 1 to %d thread counts", path,
                     HR_ROOF_MAX_ROWS);
        goto out;
    }
    for (int i = 0; i < n && rc == HR_OK; i++) {
        const cJSON *o = cJSON_GetArrayItem(rows, i);
        hr_ceiling_row *r = &c->rows[i];
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "threads");
        if (!cJSON_IsObject(o) || !cJSON_IsNumber(t) || t->valuedouble < 1 ||
            t->valuedouble > 1e6 || t->valuedouble != floor(t->valuedouble)) {
            rc = hr_fail("%s: ceilings[%d] has no integer \"threads\" >= 1", path, i);
            break;
        }
        r->threads = t->valueint;
        if (i && r->threads <= c->rows[i - 1].threads) {
            rc = hr_fail("%s: ceilings[%d]: thread counts must increase", path, i);
            break;
        }
        if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "fma_gflops"))) {
            rc = hr_fail("%s: ceilings[%d] has no \"fma_gflops\" object", path, i);
            break;
        }
        rc = read_fma(o, "fma_gflops", r, 0, path, i);
        if (!rc) rc = read_fma(o, "fma_gflops_median", r, 1, path, i);
        if (!rc) rc = read_fma(o, "fma_gflops_worst", r, 2, path, i);
        if (!rc) rc = read_stat(o, "triad_gbs", &r->triad, true, path, i);
        if (!rc) rc = read_stat(o, "exp_gelems", &r->exp, false, path, i);
    }
    if (rc) goto out;
    c->nrows = n;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "quick");
    c->quick = cJSON_IsTrue(q);
    const cJSON *v;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(root, "repetitions"))) c->reps = v->valueint;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(root, "min_rep_time_s")))
        c->min_rep_time = v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(root, "triad_bytes")))
        c->triad_bytes = v->valuedouble;
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(root, "context");
    const cJSON *mach = cJSON_GetObjectItemCaseSensitive(ctx, "machine");
    if (cJSON_IsString(mach)) snprintf(c->machine, sizeof c->machine, "%s", mach->valuestring);
    snprintf(c->path, sizeof c->path, "%s", path);
out:
    if (rc) memset(c, 0, sizeof *c);
    cJSON_Delete(root);
    free(text);
    return rc;
}

/* ---- lookups and the roofline bound ------------------------------------------------ */

static const hr_ceiling_row *row_for(const hr_ceilings *c, int threads)
{
    const hr_ceiling_row *best = NULL;
    for (int i = 0; i < c->nrows; i++) {
        const hr_ceiling_row *r = &c->rows[i];
        /* rows increase, so on a tie the lower count, met first, stays */
        if (!best || abs(r->threads - threads) < abs(best->threads - threads)) best = r;
    }
    return best;
}

int hr_ceiling_threads(const hr_ceilings *c, int threads)
{
    const hr_ceiling_row *r = row_for(c, threads);
    return r ? r->threads : 0;
}

double hr_ceiling_fma(const hr_ceilings *c, int threads, const char *isa)
{
    const hr_ceiling_row *r = row_for(c, threads);
    int m = hr_choice(hr_fma_isa_names, isa);
    if (m < 0 && isa && !strcmp(isa, "generic")) m = HR_FMA_SSE2;
    return r && m >= 0 ? r->fma[m].best : 0;
}

double hr_ceiling_bw(const hr_ceilings *c, int threads)
{
    const hr_ceiling_row *r = row_for(c, threads);
    return r ? r->triad.best : 0;
}

void hr_roofline_attach(hr_result *r, const hr_ceilings *c)
{
    int threads = r->tune.threads > 0 ? r->tune.threads : omp_get_max_threads();
    int used = hr_ceiling_threads(c, threads);
    if (!used) return;
    double peak = hr_ceiling_fma(c, threads, hr_isa), bw = hr_ceiling_bw(c, threads);
    hr_result_set(r, "ceiling_threads", used);
    if (peak > 0) hr_result_set(r, "ceiling_gflops", peak);
    if (bw > 0) hr_result_set(r, "ceiling_gbs", bw);
    if (!(r->bytes > 0) || !(r->flops > 0)) return;
    double ai = r->flops / r->bytes;
    hr_result_set(r, "AI", ai);
    if (!(peak > 0) || !(bw > 0)) return;
    double attainable = fmin(peak, ai * bw);
    hr_result_set(r, "attainable_gflops", attainable);
    double achieved = hr_result_gflops(r);
    if (achieved > 0) hr_result_set(r, "pct_of_roofline", achieved / attainable * 100);
}

/* layer.c — the full attention layer: QKV projections (GEMM), any kernel as the core on BNHD views, output projection; per-phase timing and an fp64 check.
 *
 * Data flow (B·N = M rows, all row major, one allocation each):
 *   X  [M][d_model]                       input
 *   Q  [M][Hq·d]   = X · Wq [d_model][Hq·d]
 *   K  [M][Hkv·d]  = X · Wk,  V likewise  (GQA/MQA: narrower than Q)
 *   O  [M][Hq·d]   = attention(Q, K, V)   the kernel reads Q/K/V and writes O as BNHD
 *                                         views: sb = N·cols, sh = d, sn = cols
 *   Y  [M][d_model] = O · Wo [Hq·d][d_model]
 * Heads are an axis of the projection output, so no transpose copy exists anywhere.
 *
 * Timing: each phase is timed on its own with the same timer options (warm-up,
 * calibrated iterations, repetitions, medians): phase 1 is the three projection GEMMs,
 * phase 2 one kernel call, phase 3 the output GEMM. Phases run in data-flow order, so
 * every phase reads real outputs of the one before.
 *
 * The check computes Y in double from the same fp32 X and weights: K and V of every
 * row in double, then for a deterministic spread of query rows Q, the attention (same
 * semantics as the oracle: scale, GQA index arithmetic, bottom-right causal, a row with
 * no visible key is zero) and Y, all in double.
 *
 * Typed layers (--dtype, --kv-dtype: the core's types): the QKV phase rounds the fp32
 * projections into the types (Q in dtype, K and V in kv_dtype; a pass after the GEMMs,
 * timed in that phase, as a GEMM whose epilogue writes bf16 would do it), the core reads
 * and writes the typed tensors (O in dtype), and the output phase loads O back to fp32
 * before its GEMM (timed there). The check then has two references: the fp64 layer on
 * the stored Q/K/V (what the kernel was given, dequantized), judged with the fp32
 * tolerance plus the bound of the type's roundings inside the core carried through Wo;
 * and the fp64 layer on the fp32 projections, whose distance is the format's error,
 * reported (as `run --check` reports both). */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "counts.h"
#include "guard.h"
#include "inputs.h"
#include "layer.h"
#include "likwid_markers.h"
#include "oracle.h"
#include "result.h"
#include "threads.h"

const char *const hr_phase_names[] = {"qkv_proj", "core", "out_proj", NULL};

#define LAYER_MAX_DMODEL 65536
#define CHECK_ROWS 48 /* query rows per batch checked when N is larger */

typedef struct {
    const hr_layer_spec *s;
    hr_problem prob;
    hr_tune tune;
    int M, dm, qc, kc, gt; /* rows, d_model, Hq·d, Hkv·d, GEMM threads */
    float *X, *Wq, *Wk, *Wv, *Wo, *Q, *K, *V, *O, *Y;
    void *gws, *kws;
    char *xmem;           /* typed layers: Q, O (dtype) and K, V (kv_dtype) rows, or NULL */
    size_t rq, rk;        /* their row bytes (d values)                                 */
    hr_args args;
    char failed[320]; /* non-empty: a call of the core failed (a plugin's run), the message */
} layer;

/* Sizes of every buffer, in floats, in allocation order (X Wq Wk Wv Wo Q K V O Y). */
static void buffer_sizes(int M, int dm, int qc, int kc, size_t n[10])
{
    const size_t m = (size_t)M;
    n[0] = m * dm;
    n[1] = (size_t)dm * qc;
    n[2] = n[3] = (size_t)dm * kc;
    n[4] = (size_t)qc * dm;
    n[5] = m * qc;
    n[6] = n[7] = m * kc;
    n[8] = m * qc;
    n[9] = m * dm;
}

static hr_problem core_problem(const hr_layer_spec *s)
{
    const int hkv = s->kv_heads ? s->kv_heads : s->heads;
    return (hr_problem){s->batch, s->heads, hkv, s->seq, s->seq, s->d_head, s->causal, 0, s->dtype, s->kv_dtype,
                        s->window, s->softcap, s->alibi, 0};
}

static int gemm_threads(const hr_layer_spec *s)
{
    return s->threads > 0 ? s->threads : hr_threads_default();
}

/* Validates everything but the budget; fills *p. */
static int validate(const hr_layer_spec *s, hr_problem *p)
{
    if (!s->kernel) return hr_fail("--kernel: required (see headroom list)");
    if (s->d_model < 1 || s->d_model > LAYER_MAX_DMODEL)
        return hr_fail("--d-model: expected an integer in [1, %d], got %d", LAYER_MAX_DMODEL, s->d_model);
    if (!hr_gemm_available(s->gemm))
        return hr_fail("--gemm: back end '%s' is not built into this binary (no OpenBLAS)",
                       hr_gemm_names[s->gemm]);
    *p = core_problem(s);
    int st = hr_problem_validate(p);
    if (st) return st; /* before the GEMM sizes: they multiply the validated dimensions */
    /* GEMM sizes are ints (cblas): rows B·N and every matrix's element count must fit. */
    const double M = (double)s->batch * s->seq, qc = (double)s->heads * s->d_head;
    if (M > INT32_MAX || qc > INT32_MAX || M * qc > INT32_MAX * 64.0 || M * s->d_model > INT32_MAX * 64.0)
        return hr_fail("--seq/--batch: B·N = %.0f rows x %.0f columns is too large for a GEMM", M,
                       qc > s->d_model ? qc : s->d_model);
    return hr_kernel_validate(s->kernel, p);
}

/* Validates s and fills L's shape, threads and the core's resolved tunables. */
static int setup(const hr_layer_spec *s, layer *L)
{
    memset(L, 0, sizeof *L);
    L->s = s;
    int st = validate(s, &L->prob);
    if (st) return st;
    const hr_problem *p = &L->prob;
    L->M = s->batch * s->seq;
    L->dm = s->d_model;
    L->qc = p->heads * p->d_head;
    L->kc = p->kv_heads * p->d_head;
    L->gt = gemm_threads(s);
    L->rq = p->dtype != HR_F32 ? hr_dtype_row_bytes(p->dtype, p->d_head) : 0;
    L->rk = p->kv_dtype != HR_F32 ? hr_dtype_row_bytes(p->kv_dtype, p->d_head) : 0;
    hr_tune t = s->tune;
    if (t.threads <= 0) t.threads = s->threads;
    L->tune = hr_kernel_tune(s->kernel, p, &t);
    if ((st = hr_threads_check(L->gt, "threads (GEMM)")) || (st = hr_threads_check(L->tune.threads, "threads (core)")))
        return st;
    hr_threads_used(L->gt > L->tune.threads ? L->gt : L->tune.threads);
    return HR_OK;
}

/* One GEMM workspace serves the four GEMMs: the largest of their sizes. */
static size_t gemm_ws(const layer *L)
{
    const hr_gemm_backend be = L->s->gemm;
    size_t a = hr_sgemm_workspace(be, L->M, L->qc, L->dm, L->gt);
    size_t b = hr_sgemm_workspace(be, L->M, L->kc, L->dm, L->gt);
    size_t c = hr_sgemm_workspace(be, L->M, L->dm, L->qc, L->gt);
    return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/* Bytes of the typed tensors (xq, xo, xk, xv), each padded to 64 bytes; 0 for f32. */
static size_t typed_sizes(const layer *L, size_t x[4])
{
    const size_t m = (size_t)L->M;
    x[0] = x[1] = (m * L->prob.heads * L->rq + 63) / 64 * 64;
    x[2] = x[3] = (m * L->prob.kv_heads * L->rk + 63) / 64 * 64;
    return x[0] + x[1] + x[2] + x[3];
}

static double layer_bytes(const layer *L)
{
    size_t n[10], x[4];
    buffer_sizes(L->M, L->dm, L->qc, L->kc, n);
    double f = 0;
    for (int i = 0; i < 10; i++) f += (double)n[i];
    return 4.0 * f + (double)typed_sizes(L, x) + (double)gemm_ws(L) +
           (double)hr_kernel_workspace(L->s->kernel, &L->prob, &L->tune);
}

double hr_layer_bytes(const hr_layer_spec *s)
{
    layer L;
    return setup(s, &L) ? 0 : layer_bytes(&L);
}

/* X ~ N(0, 1); a weight with fan-in f ~ N(0, 1/f), so activations stay O(1) through
 * the layer and the softmax sees logits of order 1, as in a trained model. */
static void fill(float *x, size_t n, double sd, uint64_t seed, int stream)
{
    hr_rng r;
    hr_rng_seed(&r, seed * 0x9e3779b97f4a7c15ull + (uint64_t)stream * 0x100000001b3ull + 7);
    for (size_t i = 0; i < n; i++) x[i] = (float)(sd * hr_rng_normal(&r));
}

/* Rows of d values between fp32 f (rows d floats apart: a [M][H·d] projection is M·H of
 * them) and the typed tensor x (rows rb bytes apart): store (fp32 -> t) or load back. */
static void convert_rows(hr_dtype t, float *f, char *x, size_t rb, long rows, int d, int threads, bool store)
{
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long i = 0; i < rows; i++) {
        if (store) hr_dtype_store_row(t, f + i * d, x + i * rb, d);
        else hr_dtype_load_row(t, x + i * rb, f + i * d, d);
    }
}

/* The typed tensors' rows: Q, O (Hq per token) and K, V (Hkv per token). */
static long q_rows(const layer *L) { return (long)L->M * L->prob.heads; }
static long kv_rows(const layer *L) { return (long)L->M * L->prob.kv_heads; }

static void phase_qkv(void *c)
{
    layer *L = c;
    const hr_gemm_backend be = L->s->gemm;
    const hr_problem *p = &L->prob;
    hr_sgemm(be, L->M, L->qc, L->dm, 1, L->X, L->dm, L->Wq, L->qc, 0, L->Q, L->qc, L->gt, L->gws);
    hr_sgemm(be, L->M, L->kc, L->dm, 1, L->X, L->dm, L->Wk, L->kc, 0, L->K, L->kc, L->gt, L->gws);
    hr_sgemm(be, L->M, L->kc, L->dm, 1, L->X, L->dm, L->Wv, L->kc, 0, L->V, L->kc, L->gt, L->gws);
    if (L->rq) convert_rows(p->dtype, L->Q, (char *)L->args.xq.p, L->rq, q_rows(L), p->d_head, L->gt, true);
    if (L->rk) {
        convert_rows(p->kv_dtype, L->K, (char *)L->args.xk.p, L->rk, kv_rows(L), p->d_head, L->gt, true);
        convert_rows(p->kv_dtype, L->V, (char *)L->args.xv.p, L->rk, kv_rows(L), p->d_head, L->gt, true);
    }
    __asm__ __volatile__("" : : "r"(L->Q), "r"(L->K), "r"(L->V), "r"(L->xmem) : "memory");
}

/* The check's call only: the fp32 views take the values the typed tensors hold, as the
 * kernel interface promises (hr_args) and as the reference reads them. */
static void dequantize_inputs(layer *L)
{
    const hr_problem *p = &L->prob;
    if (L->rq) convert_rows(p->dtype, L->Q, (char *)L->args.xq.p, L->rq, q_rows(L), p->d_head, L->gt, false);
    if (L->rk) {
        convert_rows(p->kv_dtype, L->K, (char *)L->args.xk.p, L->rk, kv_rows(L), p->d_head, L->gt, false);
        convert_rows(p->kv_dtype, L->V, (char *)L->args.xv.p, L->rk, kv_rows(L), p->d_head, L->gt, false);
    }
}

static void phase_core(void *c)
{
    layer *L = c;
    hr_guard_kernel(L->s->kernel->name);
    const int st = hr_kernel_run(L->s->kernel, &L->prob, &L->tune, &L->args, L->kws);
    hr_guard_kernel(NULL);
    if (st && !L->failed[0])
        snprintf(L->failed, sizeof L->failed, "%s", hr_errmsg());
    __asm__ __volatile__("" : : "r"(L->O) : "memory");
}

static void phase_out(void *c)
{
    layer *L = c;
    if (L->rq) convert_rows(L->prob.dtype, L->O, L->args.xo.p, L->rq, q_rows(L), L->prob.d_head, L->gt, false);
    hr_sgemm(L->s->gemm, L->M, L->dm, L->qc, 1, L->O, L->qc, L->Wo, L->dm, 0, L->Y, L->dm, L->gt,
             L->gws);
    __asm__ __volatile__("" : : "r"(L->Y) : "memory");
}

/* out[0:cols] = x[0:dm] · W[dm][cols] in double; x holds dm floats, or doubles (xd). */
static void row_times(const void *x, bool xd, const float *W, int dm, int cols, double *out)
{
    for (int j = 0; j < cols; j++) out[j] = 0;
    for (int k = 0; k < dm; k++) {
        const double xk = xd ? ((const double *)x)[k] : ((const float *)x)[k];
        const float *w = W + (size_t)k * cols;
        for (int j = 0; j < cols; j++) out[j] += xk * w[j];
    }
}

/* The fp64 attention of one query row, every head: od = softmax(q·Kᵀ·scale)·V from qd
 * (the row's Q, Hq·d) and Kd, Vd (the batch's K and V, N rows of Hkv·d); end: the keys it
 * sees. ob, when given: what the types' roundings inside the core may move each O_c by,
 * u_out·|O_c| + 2·u_pv·Σ_j P_j·|V_jc| (the oracle's terms, harness/base/oracle.c). */
static void attend_row(const layer *L, int i, const double *qd, const double *Kd, const double *Vd,
                       double *w, double *od, double *ob)
{
    const hr_problem *p = &L->prob;
    const int beg = hr_window_begin(p, i), end = hr_causal_end(p, i);
    const int d = p->d_head, group = hr_group(p), kc = L->kc;
    const double scale = hr_problem_scale(p), u_out = hr_tol_out(p), u_pv = hr_tol_pv(p);
    for (int h = 0; h < p->heads; h++) {
        const int g = h / group;
        const double *q = qd + (size_t)h * d, slope = hr_alibi_slope(p, h);
        double m = -INFINITY, sum = 0;
        for (int j = beg; j < end; j++) {
            const double *k = Kd + (size_t)j * kc + (size_t)g * d;
            double s = 0;
            for (int x = 0; x < d; x++) s += q[x] * k[x];
            w[j] = hr_oracle_logit(p, slope, i, j, s * scale);
            m = w[j] > m ? w[j] : m;
        }
        for (int j = beg; j < end; j++) sum += (w[j] = exp(w[j] - m));
        double *o = od + (size_t)h * d, *e = ob ? ob + (size_t)h * d : NULL;
        for (int x = 0; x < d; x++) o[x] = 0;
        if (e)
            for (int x = 0; x < d; x++) e[x] = 0;
        for (int j = beg; j < end; j++) {
            const double *v = Vd + (size_t)j * kc + (size_t)g * d, pj = w[j] / sum;
            for (int x = 0; x < d; x++) o[x] += pj * v[x];
            if (e)
                for (int x = 0; x < d; x++) e[x] += pj * fabs(v[x]);
        }
        if (e)
            for (int x = 0; x < d; x++) e[x] = u_out * fabs(o[x]) + 2 * u_pv * e[x];
    }
}

/* Distances of y (dm values) from a reference row: the running max error, squared sums
 * and max |ref|. */
typedef struct {
    double errmax, se, sr, ymax;
} dist;
static void add_row(dist *a, const float *y, const double *ref, int dm, long *nonfinite)
{
    for (int j = 0; j < dm; j++) {
        if (nonfinite && !isfinite(y[j])) (*nonfinite)++;
        const double e = fabs(y[j] - ref[j]);
        a->errmax = e > a->errmax || e != e ? e : a->errmax;
        a->se += e * e, a->sr += ref[j] * ref[j];
        a->ymax = fabs(ref[j]) > a->ymax ? fabs(ref[j]) : a->ymax;
    }
}
static double rel(const dist *a) { return a->ymax > 0 ? a->errmax / a->ymax : a->errmax; }
static double nmse(const dist *a) { return a->sr > 0 ? a->se / a->sr : a->se; }

/* Compares L->Y with the fp64 layer. Tolerance: as the oracle's, grown by the three
 * fp32 accumulations a Y element goes through (d_model terms in Q/K/V, Nkv in the core,
 * Hq·d in the output projection): eps·(8·sqrt(d_model) + 8·sqrt(d) + 16·log2(Nkv+1) +
 * 8·sqrt(Hq·d) + 16), relative to max |Y_ref|; warn at 10x, fail beyond. A typed layer is
 * judged against the fp64 layer on its stored Q/K/V (L->Q/K/V hold them, dequantized),
 * with the core's type roundings carried through Wo added: each O_c moves by at most
 * ob_c (attend_row), independently of the others (roundings of different values), so
 * Y_j by 4·sqrt(Σ_c (ob_c·Wo_cj)²) -- at least 6.9 standard deviations, as a rounding
 * error spread evenly over ±ob_c has sd ob_c/√3 -- relative to max |Y_ref|, the max over
 * the checked rows and columns (the worst case Σ_c ob_c·|Wo_cj| would be ~sqrt(Hq·d)
 * times looser and pass errors of whole percents). The distance from the fp64 layer on
 * the unrounded projections is the format error. */
static int check_layer(const layer *L, hr_layer_check *c)
{
    const hr_problem *p = &L->prob;
    const int N = p->seq_q, dm = L->dm, qc = L->qc, kc = L->kc;
    const bool typed = L->rq || L->rk;
    memset(c, 0, sizeof *c);
    const size_t nkv = (size_t)N * kc * (typed ? 4 : 2);
    double *Kd = malloc(sizeof(double) * nkv), *qd = malloc(sizeof(double) * (size_t)qc * 3);
    double *yd = malloc(sizeof(double) * (size_t)dm * 3), *w = malloc(sizeof(double) * (size_t)N);
    if (!Kd || !qd || !yd || !w) {
        free(Kd), free(qd), free(yd), free(w);
        return hr_fail("--check: cannot allocate the fp64 reference (%.1f MiB)", 8.0 * nkv / 1048576);
    }
    double *Vd = Kd + (size_t)N * kc, *Ks = Vd + (size_t)N * kc, *Vs = Ks + (size_t)N * kc;
    double *od = qd + qc, *ob = od + qc, *ys = yd + dm, *yb = ys + dm;
    dist judged = {0}, format = {0};
    double bmax = 0;
    const int rows = N <= CHECK_ROWS ? N : CHECK_ROWS;
    for (int b = 0; b < p->batch; b++) {
        const float *Xb = L->X + (size_t)b * N * dm;
        for (int n = 0; n < N; n++) {
            row_times(Xb + (size_t)n * dm, false, L->Wk, dm, kc, Kd + (size_t)n * kc);
            row_times(Xb + (size_t)n * dm, false, L->Wv, dm, kc, Vd + (size_t)n * kc);
        }
        if (typed)
            for (size_t x = 0; x < (size_t)N * kc; x++) {
                Ks[x] = L->K[(size_t)b * N * kc + x];
                Vs[x] = L->V[(size_t)b * N * kc + x];
            }
        for (int r = 0; r < rows; r++) {
            /* A deterministic spread that always includes the first and the last row. */
            const int i = rows == N ? r : (int)((long)r * (N - 1) / (rows - 1));
            const float *y = L->Y + ((size_t)b * N + i) * dm;
            row_times(Xb + (size_t)i * dm, false, L->Wq, dm, qc, qd);
            attend_row(L, i, qd, Kd, Vd, w, od, NULL);
            row_times(od, true, L->Wo, qc, dm, yd);
            if (!typed) {
                add_row(&judged, y, yd, dm, &c->nonfinite);
                c->rows_checked++;
                continue;
            }
            add_row(&format, y, yd, dm, NULL);
            const float *qs = L->Q + ((size_t)b * N + i) * qc;
            for (int x = 0; x < qc; x++) qd[x] = qs[x];
            attend_row(L, i, qd, Ks, Vs, w, od, ob);
            row_times(od, true, L->Wo, qc, dm, ys);
            for (int j = 0; j < dm; j++) yb[j] = 0;
            for (int x = 0; x < qc; x++)
                for (int j = 0; j < dm; j++) {
                    const double t = ob[x] * L->Wo[(size_t)x * dm + j];
                    yb[j] += t * t;
                }
            for (int j = 0; j < dm; j++) bmax = 4 * sqrt(yb[j]) > bmax ? 4 * sqrt(yb[j]) : bmax;
            add_row(&judged, y, ys, dm, &c->nonfinite);
            c->rows_checked++;
        }
    }
    c->rows_total = (long)p->batch * N;
    const double eps = 1.0 / (1 << 24); /* unit roundoff of fp32 */
    c->max_abs_err = judged.errmax;
    c->max_rel_err = rel(&judged);
    c->nmse = nmse(&judged);
    c->format_max_rel = typed ? rel(&format) : -1;
    c->format_nmse = typed ? nmse(&format) : -1;
    c->tol_pass = eps * (8 * sqrt((double)dm) + 8 * sqrt((double)p->d_head) + 16 * log2((double)N + 1) +
                         8 * sqrt((double)qc) + 16);
    if (judged.ymax > 0) c->tol_pass += bmax / judged.ymax;
    c->tol_warn = 10 * c->tol_pass;
    c->verdict = c->nonfinite || !(c->max_rel_err <= c->tol_warn) ? HR_CHECK_FAIL
                 : c->max_rel_err > c->tol_pass                    ? HR_CHECK_WARN
                                                                   : HR_CHECK_PASS;
    free(Kd), free(qd), free(yd), free(w);
    return HR_OK;
}

int hr_layer_bench(const hr_layer_spec *s, hr_layer_result *out)
{
    memset(out, 0, sizeof *out);
    layer L;
    int st = setup(s, &L);
    if (st) return st;
    const hr_problem *p = &L.prob;
    out->prob = *p;
    out->tune = L.tune;
    out->gemm_threads = L.gt;
    out->bytes = layer_bytes(&L);
    const double budget = hr_mem_budget(s->max_mem);
    if (out->bytes > budget)
        return hr_fail("--max-mem: the layer needs %.1f MiB (activations, weights, workspaces), "
                       "over the budget of %.1f MiB", out->bytes / 1048576, budget / 1048576);
    out->phase[HR_PHASE_QKV].flops =
        hr_proj_flops(s->batch, s->seq, s->d_model, p->heads, p->kv_heads, p->d_head);
    out->phase[HR_PHASE_CORE].flops = hr_core_flops(p);
    out->phase[HR_PHASE_OUT].flops = hr_out_proj_flops(s->batch, s->seq, s->d_model, p->heads, p->d_head);

    size_t n[10], total = 0;
    buffer_sizes(L.M, L.dm, L.qc, L.kc, n);
    for (int i = 0; i < 10; i++) total += (n[i] + 15) / 16 * 16; /* keep each 64-byte aligned */
    float *mem = hr_alloc(total * sizeof(float));
    const size_t gwsb = gemm_ws(&L), kwsb = hr_kernel_workspace(s->kernel, p, &L.tune);
    L.gws = hr_alloc(gwsb ? gwsb : 64);
    L.kws = hr_galloc(kwsb, "workspace");
    size_t xs[4];
    const size_t xbytes = typed_sizes(&L, xs);
    L.xmem = xbytes ? hr_alloc(xbytes) : NULL;
    if (!mem || !L.gws || !L.kws || (xbytes && !L.xmem)) {
        free(mem), free(L.gws), hr_gfree(L.kws), free(L.xmem);
        return hr_fail("cannot allocate %.1f MiB for the layer", out->bytes / 1048576);
    }
    float **bufs[10] = {&L.X, &L.Wq, &L.Wk, &L.Wv, &L.Wo, &L.Q, &L.K, &L.V, &L.O, &L.Y};
    float *at = mem;
    for (int i = 0; i < 10; i++) {
        *bufs[i] = at;
        at += (n[i] + 15) / 16 * 16;
    }
    fill(L.X, n[0], 1.0, s->seed, 0);
    fill(L.Wq, n[1], 1 / sqrt((double)L.dm), s->seed, 1);
    fill(L.Wk, n[2], 1 / sqrt((double)L.dm), s->seed, 2);
    fill(L.Wv, n[3], 1 / sqrt((double)L.dm), s->seed, 3);
    fill(L.Wo, n[4], 1 / sqrt((double)L.qc), s->seed, 4);
    memset(L.O, 0, n[8] * sizeof(float));

    /* BNHD views straight onto the projection outputs. */
    const ptrdiff_t N = s->seq;
    L.args.q = (hr_cview){L.Q, N * L.qc, p->d_head, L.qc};
    L.args.k = (hr_cview){L.K, N * L.kc, p->d_head, L.kc};
    L.args.v = (hr_cview){L.V, N * L.kc, p->d_head, L.kc};
    L.args.o = (hr_view){L.O, N * L.qc, p->d_head, L.qc};
    if (L.rq) { /* typed Q and O: BNHD rows of rq bytes */
        hr_xview xq = hr_xview_dense(L.xmem, HR_LAYOUT_BNHD, s->batch, p->heads, s->seq, L.rq);
        L.args.xq = hr_xcv(xq);
        L.args.xo = hr_xview_dense(L.xmem + xs[0], HR_LAYOUT_BNHD, s->batch, p->heads, s->seq, L.rq);
        memset(L.args.xo.p, 0, xs[1]);
    }
    if (L.rk) {
        hr_xview xk = hr_xview_dense(L.xmem + xs[0] + xs[1], HR_LAYOUT_BNHD, s->batch, p->kv_heads, s->seq, L.rk);
        hr_xview xv = hr_xview_dense(L.xmem + xs[0] + xs[1] + xs[2], HR_LAYOUT_BNHD, s->batch, p->kv_heads, s->seq, L.rk);
        L.args.xk = hr_xcv(xk);
        L.args.xv = hr_xcv(xv);
    }

    if (s->check) {
        phase_qkv(&L);
        dequantize_inputs(&L);
        phase_core(&L);
        phase_out(&L);
        if (L.failed[0]) {
            st = hr_fail("%s", L.failed);
            goto done;
        }
        out->checked = true;
        if ((st = check_layer(&L, &out->check))) goto done;
        if (out->check.verdict == HR_CHECK_FAIL) {
            st = hr_failc(HR_EFAIL, "layer with kernel %s failed the fp64 check: max_rel %.3g (tol %.3g)%s",
                          s->kernel->name, out->check.max_rel_err, out->check.tol_warn,
                          out->check.nonfinite ? ", non-finite outputs" : "");
            goto done;
        }
    }
    void (*fn[HR_NPHASES])(void *) = {phase_qkv, phase_core, phase_out};
    static const char *const region[HR_NPHASES] = {"layer_qkv_proj", "layer_core", "layer_out_proj"};
    for (int ph = 0; ph < HR_NPHASES; ph++) {
        const int th = ph == HR_PHASE_CORE ? L.tune.threads : L.gt;
        hr_marker_start(region[ph], th);
        hr_time(fn[ph], &L, &s->timer, &out->phase[ph].timing);
        hr_marker_stop(region[ph], th);
        if (L.failed[0]) {
            st = hr_fail("%s", L.failed);
            break;
        }
    }
done:
    free(mem), free(L.gws), hr_gfree(L.kws), free(L.xmem);
    return st;
}

double hr_layer_phase_gflops(const hr_layer_result *r, int phase)
{
    const double t = r->phase[phase].timing.s.median;
    return t > 0 ? r->phase[phase].flops / t * 1e-9 : 0;
}

double hr_layer_total_seconds(const hr_layer_result *r)
{
    double t = 0;
    for (int i = 0; i < HR_NPHASES; i++) t += r->phase[i].timing.s.median;
    return t;
}

double hr_layer_total_flops(const hr_layer_result *r)
{
    double f = 0;
    for (int i = 0; i < HR_NPHASES; i++) f += r->phase[i].flops;
    return f;
}

/* Core minus projection FLOPs (QKV + output) of one sequence of length n. */
static double flops_excess(int n, int d_model, int heads, int kv_heads, int d_head, bool causal, int window)
{
    const hr_problem p = {1, heads, kv_heads, n, n, d_head, causal, 0, HR_F32, HR_F32, causal ? window : 0, 0, 0, 0};
    return hr_core_flops(&p) - hr_proj_flops(1, n, d_model, heads, kv_heads, d_head) -
           hr_out_proj_flops(1, n, d_model, heads, d_head);
}

/* Core FLOPs grow like N², projections like N, so the excess changes sign once: double
 * N until it does, bisect on integers, interpolate inside the last unit step. Everything
 * comes from counts.c; no closed form is hard-coded. */
double hr_layer_flops_crossover(int d_model, int heads, int kv_heads, int d_head, bool causal, int window)
{
    if (kv_heads <= 0) kv_heads = heads;
    int lo = 1, hi = 1;
    while (hi < HR_MAX_SEQ && flops_excess(hi, d_model, heads, kv_heads, d_head, causal, window) < 0)
        lo = hi, hi *= 2;
    double dlo = flops_excess(lo, d_model, heads, kv_heads, d_head, causal, window);
    double dhi = flops_excess(hi, d_model, heads, kv_heads, d_head, causal, window);
    if (dhi < 0) return INFINITY;
    if (dlo >= 0) return lo;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        const double dmid = flops_excess(mid, d_model, heads, kv_heads, d_head, causal, window);
        if (dmid < 0) lo = mid, dlo = dmid;
        else hi = mid, dhi = dmid;
    }
    return lo + (dhi > dlo ? -dlo / (dhi - dlo) : 0);
}

void hr_layer_name(const hr_layer_spec *s, const hr_layer_result *r, char *buf, size_t len)
{
    const hr_problem *p = &r->prob;
    char types[32], var[64];
    hr_dtype_seg(p, types, sizeof types);
    hr_variant_seg(p, var, sizeof var);
    snprintf(buf, len, "layer/%s/%s/B%d/N%d/D%d/H%d/G%d/d%d%s/%s%s/T%d", s->kernel->name,
             hr_gemm_names[s->gemm], p->batch, p->seq_q, s->d_model, p->heads, p->kv_heads,
             p->d_head, types, p->causal ? "causal" : "full", var, r->gemm_threads);
}

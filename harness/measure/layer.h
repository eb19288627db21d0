/* layer.h — the full multi-head attention layer: QKV projections, attention core, output projection. */
#ifndef HR_LAYER_H
#define HR_LAYER_H

#include <stdio.h>

#include "gemm.h"
#include "headroom.h"
#include "oracle.h"
#include "timer.h"

/* X [B][N][d_model] -> Q = X·Wq [B][N][Hq·d], K = X·Wk, V = X·Wv [B][N][Hkv·d] ->
 * attention core (any registered kernel, reading Q/K/V as BNHD strided views, no
 * transpose copy) -> O [B][N][Hq·d] -> Y = O·Wo [B][N][d_model]. */
typedef struct {
    int batch, seq, d_model, heads, kv_heads, d_head; /* kv_heads 0: = heads         */
    bool causal;
    int window;              /* the core's variants (headroom.h; 0: none): sliding window */
    float softcap, alibi;    /* (needs causal), soft cap, ALiBi max bias                */
    hr_dtype dtype, kv_dtype; /* the core's Q/O and K/V types (zero: f32); a typed layer
                              * rounds the fp32 projections into them (QKV phase) and
                              * O back to fp32 (output phase)                          */
    const hr_kernel *kernel; /* the attention core                                    */
    hr_tune tune;            /* the core's tunables (0: defaults)                      */
    hr_gemm_backend gemm;    /* projections' GEMM back end                            */
    int threads;             /* GEMM threads, and the core's when tune.threads is 0 (0: all) */
    hr_timer_opts timer;
    uint64_t seed;
    bool check;              /* compare Y with the fp64 reference before timing         */
    double max_mem;          /* bytes; 0: half of RAM                                  */
} hr_layer_spec;

enum { HR_PHASE_QKV = 0, HR_PHASE_CORE = 1, HR_PHASE_OUT = 2, HR_NPHASES = 3 };
extern const char *const hr_phase_names[]; /* "qkv_proj", "core", "out_proj" */

typedef struct {
    double flops;     /* from counts.c                                     */
    hr_timing timing; /* per call of this phase alone                      */
} hr_layer_phase;

/* Check of the whole layer's Y against the fp64 reference. */
typedef struct {
    double max_abs_err, max_rel_err; /* rel: max |Y - ref| / max |ref| over the rows checked */
    double nmse;                     /* sum (Y - ref)^2 / sum ref^2 over the same rows      */
    double tol_pass, tol_warn;
    /* Typed layers: the error against the fp64 layer on the stored (rounded) Q/K/V is the
     * judged one above; this is Y against the fp64 layer on the fp32 projections, what
     * the types cost whatever the kernel (reported, not judged; -1 for f32). */
    double format_max_rel, format_nmse;
    long rows_checked, rows_total, nonfinite;
    int verdict; /* HR_CHECK_* */
} hr_layer_check;

typedef struct {
    hr_problem prob;   /* the core's problem (B, Hq, Hkv, N, N, d, causal)   */
    hr_tune tune;      /* the core's resolved tunables                       */
    int gemm_threads;
    double bytes;      /* memory the layer allocated (tensors, weights, workspaces) */
    hr_layer_phase phase[HR_NPHASES];
    bool checked;
    hr_layer_check check;
} hr_layer_result;

/* Validates the spec (d_model, heads, the core's applicability, the budget), allocates
 * deterministic X and weights (N(0,1), weights scaled by 1/sqrt(fan_in)), optionally
 * checks the whole layer against the fp64 reference, then times each phase on its own
 * with s->timer. Returns HR_OK; HR_EFAIL when the check failed (out->check says how, not
 * timed); HR_EUSAGE (message in hr_errmsg) for a bad spec, a kernel that cannot run the
 * shape, a GEMM back end not built in, or a shape over the budget. */
int hr_layer_bench(const hr_layer_spec *s, hr_layer_result *out);
/* Bytes hr_layer_bench would allocate for s (for budgets; 0 on an invalid spec). */
double hr_layer_bytes(const hr_layer_spec *s);

/* Median seconds and GFLOP/s of one phase; totals over the three phases. */
double hr_layer_phase_gflops(const hr_layer_result *r, int phase);
double hr_layer_total_seconds(const hr_layer_result *r);
double hr_layer_total_flops(const hr_layer_result *r);

/* The window of layer `layer` (0-based) of a model whose window W is on every every-th
 * layer from layer 0 (Gemma 2: every = 2, layers 0, 2, 4, ... local), 0 for the others;
 * every <= 1: every layer. */
static inline int hr_layer_window(int window, int every, int layer)
{
    return window > 0 && (every <= 1 || layer % every == 0) ? window : 0;
}

/* "layer/flash/own/B1/N1024/D512/H8/G8/d64/full/T2" (typed: ".../d64/bf16/kv=q8_0/full/T2"; variants:
 * ".../causal/w4096/cap50/T2", hr_variant_seg) (T: the GEMM threads): the name of a
 * layer measurement; its rows add "/<phase>" (hr_phase_names, or "total"). Only r's prob
 * and gemm_threads are read. */
void hr_layer_name(const hr_layer_spec *s, const hr_layer_result *r, char *buf, size_t len);

/* The N at which core FLOPs equal projection FLOPs (QKV + output) for this layer shape,
 * found from counts.c (for MHA with Hq·d = d_model, non-causal: 2·d_model); window: a
 * causal core's sliding window (0: none), whose core grows as N·W, not N², and may never
 * cross (INFINITY). */
double hr_layer_flops_crossover(int d_model, int heads, int kv_heads, int d_head, bool causal, int window);

#endif

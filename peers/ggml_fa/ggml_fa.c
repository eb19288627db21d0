/* ggml_fa.c — headroom plugin: ggml's CPU flash attention (ggml_flash_attn_ext), as a
 * llama.cpp user calls it, on headroom's own memory.
 *
 * Each call builds a one-op graph (llama.cpp builds its graph per ubatch) in a context
 * that holds tensor metadata only (no_alloc), in headroom's workspace: Q, K, V are ggml
 * tensors whose data points at headroom's views, ne = [d, N, H, B] and nb[] the views'
 * byte strides, so BHND and BNHD are both plain views (no copy). ggml writes its result
 * as [d, H, N, B] contiguous (BNHD): when headroom's O is exactly that, the result's
 * data is O itself; otherwise (BHND) the result goes to the workspace and a ggml_cpy
 * node in the same graph writes it into O's view (the one copy, timed: see README.md).
 * Masking is ggml's KQ mask, an f16 [Nkv, Nq] tensor broadcast over heads and batch, as
 * llama.cpp builds it (llama-kv-cache.cpp set_input_kq_mask): -inf where a key is hidden
 * (causal, bottom-right aligned, headroom's rule; outside a sliding window), else 0, or
 * -|i' - j| under ALiBi, which ggml multiplies by head h's slope (max_bias, ggml's slope
 * rule, the same as headroom's) before adding it to the score. A soft cap is ggml's
 * logit_softcap (c tanh(s / c) after the scale, before the mask). Causal with Nq == 1 and
 * no variant needs no mask (the query sees every key). The mask depends on the shape and
 * the variants only, not on the data: like llama.cpp, which builds it once per ubatch for
 * every layer, it is built once per problem, on the first call, in the workspace (the
 * kernel's own, kept from call to call) under a key of what it depends on, and a timed
 * call with the same key reuses it (fill_mask_once). Threads: ggml's own n_threads
 * (ggml_graph_plan), run by OpenMP (GGML_OPENMP) on the same libgomp as headroom.
 * Nothing here allocates; ggml_init and ggml_graph_compute allocate their small structs as they do for every ggml user. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ggml-cpu.h"
#include "ggml.h"
#include "headroom/plugin.h"

/* Set by build.sh from the sources: ggml's version, and ggml-cpu/common.h's query tile. */
#ifndef GGML_FA_VERSION
#define GGML_FA_VERSION "unknown"
#endif
#ifndef GGML_FA_TILE_Q
#define GGML_FA_TILE_Q 64
#endif

/* Metadata room: at most 8 tensors (q, k, v, mask, fa, o, the cpy and its view) and a
 * graph of 4 nodes, with ggml's object headers; rounded up generously. */
#define GRAPH_NODES 8
static size_t ctx_bytes(void)
{
    return 16 * ggml_tensor_overhead() + ggml_graph_overhead_custom(GRAPH_NODES, false) + 4096;
}

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }


static _Thread_local char errbuf[200];
static const char *last_error(void) { return errbuf; }

/* The 1.1 variants, 0 when p comes from a 1.0 headroom (HRP_HAS). */
static int window_of(const hrp_problem *p) { return HRP_HAS(p, window) ? p->window : 0; }
static float softcap_of(const hrp_problem *p) { return HRP_HAS(p, softcap) ? p->softcap : 0.0f; }
static float alibi_of(const hrp_problem *p) { return HRP_HAS(p, alibi) ? p->alibi : 0.0f; }

/* Whether p needs a mask: some query row does not see every key, or ALiBi's distances
 * (ggml takes them only through the mask, and asserts one when max_bias > 0). */
static int needs_mask(const hrp_problem *p)
{
    return (p->causal && p->seq_q > 1) || window_of(p) > 0 || alibi_of(p) > 0;
}

/* What the mask depends on, stored before it in the workspace. */
typedef struct mask_key {
    uint64_t magic;
    int64_t seq_q, seq_kv, causal, window, alibi;
} mask_key;
#define MASK_MAGIC 0x6767666d61736b31ull /* "ggfmask1" */
#define KEY_BYTES align64(sizeof(mask_key))

static size_t mask_bytes(const hrp_problem *p)
{
    return needs_mask(p) ? KEY_BYTES + align64((size_t)p->seq_kv * (size_t)p->seq_q * sizeof(ggml_fp16_t)) : 0;
}

static size_t out_bytes(const hrp_problem *p)
{
    return align64((size_t)p->batch * p->heads * p->seq_q * p->d_head * sizeof(float));
}

/* The graph of one call in ctx: q, k, v view the operands (data NULL when a is NULL:
 * only the shapes, for the plan), the attention, and, when O is not ggml's own layout,
 * a copy of its result (in stage) into O. Returns the graph. */
static struct ggml_cgraph *build(struct ggml_context *ctx, const hrp_problem *p, const hrp_args *a,
                                 int o_direct, void *mask, void *stage)
{
    const enum ggml_type kt = p->kv_dtype == HRP_F16 ? GGML_TYPE_F16 : GGML_TYPE_F32;
    const hrp_view qv = a ? a->q : (hrp_view){0};
    const hrp_view kv = a ? (p->kv_dtype == HRP_F32 ? a->k : a->xk) : (hrp_view){0};
    const hrp_view vv = a ? (p->kv_dtype == HRP_F32 ? a->v : a->xv) : (hrp_view){0};
    struct ggml_tensor *q = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, p->d_head, p->seq_q, p->heads, p->batch);
    struct ggml_tensor *k = ggml_new_tensor_4d(ctx, kt, p->d_head, p->seq_kv, p->kv_heads, p->batch);
    struct ggml_tensor *v = ggml_new_tensor_4d(ctx, kt, p->d_head, p->seq_kv, p->kv_heads, p->batch);
    if (a) {
        q->data = qv.data, q->nb[1] = qv.sn, q->nb[2] = qv.sh, q->nb[3] = qv.sb;
        k->data = kv.data, k->nb[1] = kv.sn, k->nb[2] = kv.sh, k->nb[3] = kv.sb;
        v->data = vv.data, v->nb[1] = vv.sn, v->nb[2] = vv.sh, v->nb[3] = vv.sb;
    }
    struct ggml_tensor *m = NULL;
    if (needs_mask(p)) {
        m = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, p->seq_kv, p->seq_q, 1, 1);
        m->data = mask ? (char *)mask + KEY_BYTES : NULL;
    }
    struct ggml_tensor *fa = ggml_flash_attn_ext(ctx, q, k, v, m, p->scale, alibi_of(p), softcap_of(p));
    struct ggml_cgraph *gf = ggml_new_graph_custom(ctx, GRAPH_NODES, false);
    if (a && o_direct) {
        fa->data = a->o.data;
        ggml_build_forward_expand(gf, fa);
        return gf;
    }
    fa->data = stage;
    /* O's view in ggml's result order [d, H, N, B]. */
    struct ggml_tensor *o = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, p->d_head, p->heads, p->seq_q, p->batch);
    if (a) o->data = a->o.data, o->nb[1] = a->o.sh, o->nb[2] = a->o.sn, o->nb[3] = a->o.sb;
    ggml_build_forward_expand(gf, ggml_cpy(ctx, fa, o));
    return gf;
}

/* Whether O's view is ggml's result layout [B][N][H][d], contiguous (BNHD, or any view
 * that coincides with it on the extents that are not 1). */
static int o_is_ggml_layout(const hrp_problem *p, hrp_view o)
{
    const int64_t row = (int64_t)p->d_head * (int64_t)sizeof(float);
    return (p->heads == 1 || o.sh == row) && (p->seq_q == 1 || o.sn == row * p->heads) &&
           (p->batch == 1 || o.sb == row * p->heads * p->seq_q);
}

/* The largest |i' - j| over the keys a row of p sees (i' = i + Nkv - Nq). */
static int64_t max_distance(const hrp_problem *p)
{
    const int64_t w = window_of(p), nq = p->seq_q, nkv = p->seq_kv;
    if (w > 0) return w - 1;
    if (p->causal) return nkv - 1;
    return (nkv > nq ? nkv : nq) - 1;
}

static const char *fa_applicable(const hrp_problem *p)
{
    /* ggml computes in int32 row indices (ops.cpp one_chunk: int ir, iq1, ...). */
    if ((int64_t)p->batch * p->heads * p->seq_q > INT32_MAX) return "more than 2^31 query rows";
    /* The f16 mask holds integer distances exactly up to 2048; past that llama.cpp's own
     * ALiBi mask rounds them (by up to 2^(e-11) for a distance in [2^e, 2^(e+1)))
     * and the scores move by slope times that: a different problem. */
    if (alibi_of(p) > 0 && max_distance(p) > 2048)
        return "ALiBi over key distances past 2048 (ggml's f16 KQ mask rounds them)";
    return NULL;
}

/* The workspace: [ggml context (metadata)][mask][stage: ggml's result when O is not in
 * its layout][ggml's work buffer, as ggml_graph_plan sizes it for these threads]. */
static size_t fa_workspace(const hrp_problem *p, const hrp_tune *t)
{
    struct ggml_context *ctx = ggml_init((struct ggml_init_params){ctx_bytes(), NULL, true});
    if (!ctx) return 0;
    struct ggml_cgraph *gf = build(ctx, p, NULL, 0, NULL, NULL);
    struct ggml_cplan plan = ggml_graph_plan(gf, t->threads > 0 ? t->threads : 1, NULL);
    ggml_free(ctx);
    return align64(ctx_bytes()) + mask_bytes(p) + out_bytes(p) + align64(plan.work_size);
}

/* The mask: row i (i' = i + Nkv - Nq) sees key j iff j <= i' when causal and
 * j > i' - W under a window W; a seen key's entry is 0, or -|i' - j| under ALiBi. */
static void fill_mask(const hrp_problem *p, ggml_fp16_t *m)
{
    const ggml_fp16_t zero = ggml_fp32_to_fp16(0.0f), ninf = ggml_fp32_to_fp16(-INFINITY);
    const int64_t w = window_of(p), nkv = p->seq_kv;
    const int alibi = alibi_of(p) > 0;
    for (int64_t i = 0; i < p->seq_q; i++) {
        ggml_fp16_t *r = m + i * nkv;
        const int64_t ip = i + nkv - p->seq_q;
        int64_t lo = w > 0 ? ip - w + 1 : 0, hi = p->causal || w > 0 ? ip + 1 : nkv; /* [lo, hi) */
        lo = lo < 0 ? 0 : lo > nkv ? nkv : lo;
        hi = hi < lo ? lo : hi > nkv ? nkv : hi;
        for (int64_t j = 0; j < lo; j++) r[j] = ninf;
        for (int64_t j = lo; j < hi; j++) r[j] = alibi ? ggml_fp32_to_fp16(-(float)llabs(ip - j)) : zero;
        for (int64_t j = hi; j < nkv; j++) r[j] = ninf;
    }
}

/* Fills the mask after its key in ws unless the key already names p's: the first call of
 * a problem builds it, the calls after it (the timed ones) reuse it. */
static void fill_mask_once(const hrp_problem *p, void *ws)
{
    const mask_key key = {MASK_MAGIC, p->seq_q, p->seq_kv, p->causal, window_of(p), alibi_of(p) > 0};
    if (memcmp(ws, &key, sizeof key) == 0) return;
    fill_mask(p, (ggml_fp16_t *)((char *)ws + KEY_BYTES));
    memcpy(ws, &key, sizeof key);
}

static int fa_run(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *ws)
{
    ggml_cpu_init(); /* once per process inside ggml (its fp16 tables) */
    unsigned char *ctxmem = ws, *mask = ctxmem + align64(ctx_bytes()), *stage = mask + mask_bytes(p),
                  *work = stage + out_bytes(p);
    struct ggml_context *ctx = ggml_init((struct ggml_init_params){ctx_bytes(), ctxmem, true});
    if (!ctx) {
        snprintf(errbuf, sizeof errbuf, "ggml_init failed");
        return HRP_ERROR;
    }
    struct ggml_cgraph *gf = build(ctx, p, a, o_is_ggml_layout(p, a->o), mask, stage);
    if (needs_mask(p)) fill_mask_once(p, mask);
    struct ggml_cplan plan = ggml_graph_plan(gf, t->threads > 0 ? t->threads : 1, NULL);
    plan.work_data = work;
    enum ggml_status st = ggml_graph_compute(gf, &plan);
    ggml_free(ctx);
    if (st != GGML_STATUS_SUCCESS) {
        snprintf(errbuf, sizeof errbuf, "ggml_graph_compute: %s", ggml_status_to_string(st));
        return HRP_ERROR;
    }
    return HRP_OK;
}

static const char *fa_path(const hrp_problem *p)
{
    /* ops.cpp's choice: the KV-split decode path for one query row of one batch against
     * an f32/f16 cache of >= 512 keys; the tiled path from GGML_FA_TILE_Q rows with
     * f32/f16 K/V; else the one-row online-softmax path. */
    const int f = p->kv_dtype == HRP_F32 || p->kv_dtype == HRP_F16;
    if (p->seq_q == 1 && p->batch == 1 && f && p->seq_kv >= 512) return "ggml cpu flash_attn_ext split-kv";
    if (f && p->seq_q >= GGML_FA_TILE_Q) return "ggml cpu flash_attn_ext tiled";
    return "ggml cpu flash_attn_ext one_chunk";
}

static const hrp_kernel ggml_fa = {
    .size = sizeof(hrp_kernel),
    .name = "ggml_fa",
    .summary = "ggml " GGML_FA_VERSION " ggml_flash_attn_ext, CPU backend (llama.cpp's attention)",
    .caps = HRP_CAP_CAUSAL | HRP_CAP_GQA | HRP_CAP_DECODE | HRP_CAP_THREADED | HRP_CAP_WINDOW | HRP_CAP_SOFTCAP |
            HRP_CAP_ALIBI,
    .traffic = HRP_TRAFFIC_KV_PER_HEAD,
    .dtypes = HRP_TYPE_BIT(HRP_F32),
    /* Not bf16, q8_0, q4_0: ggml's CPU FA rounds Q to K's dot-product type (bf16, q8_0)
     * before Q.K, a different problem from headroom's (f32 Q on the stored K); the battery
     * measured errors 10-100x over those types' tolerances (README.md). f16 rounds Q to
     * f16 too, and accumulates V in f16 on the one-row path: within f16's tolerance. */
    .kv_dtypes = HRP_TYPE_BIT(HRP_F32) | HRP_TYPE_BIT(HRP_F16),
    .applicable = fa_applicable,
    .workspace_bytes = fa_workspace,
    .run = fa_run,
    .path = fa_path,
};

static const hrp_kernel *const kernels[] = {&ggml_fa};

HRP_EXPORT const hrp_plugin *headroom_plugin_v1(void)
{
    static const hrp_plugin plugin = {
        .abi_major = HRP_ABI_MAJOR,
        .abi_minor = HRP_ABI_MINOR,
        .size = sizeof(hrp_plugin),
        .library = "ggml",
        .version = GGML_FA_VERSION,
        .nkernels = 1,
        .kernels = kernels,
        .last_error = last_error,
    };
    return &plugin;
}

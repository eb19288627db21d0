// plugin.cpp — the headroom plugin onednn_sdpa: oneDNN's Graph API scaled-dot-product attention
// (sdpa_graph.cpp) behind the plugin ABI (include/headroom/plugin.h). headroom's strided views
// become the strides of oneDNN logical tensors (no copy of Q, K, V); README.md says what the
// timed call holds.
#include "headroom/plugin.h"
#include "sdpa_graph.hpp"

#include <cstdint>
#include <string>

static thread_local std::string last;

static sdpa::problem problem(const hrp_problem *p)
{
    return {p->batch, p->heads, p->kv_heads, p->seq_q, p->seq_kv, p->d_head, p->causal != 0, p->scale,
            HRP_HAS(p, window) ? p->window : 0, HRP_HAS(p, alibi) ? p->alibi : 0.0f};
}

// ALiBi's bias planes (Hq x Nq x Nkv floats) live in the compiled plan, beside the workspace
// headroom's budget sees: past this, the problem is refused rather than allocated unseen.
static const double MAX_MASK_BYTES = 1073741824.0;

// A byte-strided ABI view as oneDNN strides, in floats (headroom's f32 strides always are).
static bool view(const hrp_view &v, sdpa::view &out)
{
    if (v.sb % 4 || v.sh % 4 || v.sn % 4) return false;
    out = {(float *)v.data, v.sb / 4, v.sh / 4, v.sn / 4};
    return true;
}

static const char *applicable(const hrp_problem *p)
{
    const sdpa::problem q = problem(p);
    if (sdpa::workspace_bytes(q) == 0) return "the scores do not fit in memory (size_t)";
    if (sdpa::mask_bytes(q) > MAX_MASK_BYTES)
        return "ALiBi's explicit bias (a plane of Nq x Nkv floats per query head) is over 1 GiB";
    return nullptr;
}

static size_t workspace_bytes(const hrp_problem *p, const hrp_tune *) { return sdpa::workspace_bytes(problem(p)); }

static int run(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *ws)
{
    sdpa::view q, k, v, o;
    if (!view(a->q, q) || !view(a->k, k) || !view(a->v, v) || !view(a->o, o)) {
        last = "a stride is not a whole number of floats";
        return HRP_ERROR;
    }
    return sdpa::run(problem(p), q, k, v, o, ws, t->threads, last) == 0 ? HRP_OK : HRP_ERROR;
}

static const char *path(const hrp_problem *p) { return sdpa::path_name(problem(p)); }

static const char *last_error(void) { return last.c_str(); }

static const hrp_kernel onednn_sdpa = {
    sizeof(hrp_kernel),
    "onednn_sdpa",
    "oneDNN Graph API SDPA (fused f32 MHA partition; GQA/MQA as matmul, softmax, matmul)",
    HRP_CAP_CAUSAL | HRP_CAP_THREADED | HRP_CAP_WINDOW | HRP_CAP_ALIBI, // both ride on the explicit mask
    HRP_TRAFFIC_SCORES, // oneDNN 3.2 materializes the scores, fused partition included
    0,
    0,
    applicable,
    nullptr,
    workspace_bytes,
    run,
    path,
};
static const hrp_kernel *const kernels[] = {&onednn_sdpa};

extern "C" HRP_EXPORT const hrp_plugin *headroom_plugin_v1(void)
{
    static hrp_plugin pl = {HRP_ABI_MAJOR, HRP_ABI_MINOR, sizeof(hrp_plugin), "onednn", nullptr, 1, kernels,
                            last_error};
    pl.version = sdpa::version();
    return &pl;
}

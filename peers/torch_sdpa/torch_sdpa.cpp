/* torch_sdpa.cpp — the torch_sdpa kernel: at::scaled_dot_product_attention (libtorch's C++
 * API, the CPU libraries of the PyTorch wheel). Built as torch_sdpa.libs/torch_sdpa_impl.so
 * and opened by loader.c, the plugin headroom loads (see there why).
 *
 * What a PyTorch user's call is, and nothing more: headroom's strided views are wrapped
 * as [B, H, N, d] tensors without a copy (at::from_blob with strides in elements, BHND
 * and BNHD alike), SDPA runs on them, its result is copied into headroom's O (SDPA has
 * no out= form: the copy is the one cost a PyTorch user does not pay; one pass over O).
 * Threads: at::set_num_threads (libtorch's intra-op pool is OpenMP; inside headroom it is
 * headroom's own libgomp, see README.md). Causal: PyTorch's is_causal is top-left aligned,
 * headroom's bottom-right; they agree when Nq == Nkv (is_causal) and when Nq == 1 (the
 * one query sees the whole cache: no mask); otherwise the boolean bottom-right mask
 * [Nq][Nkv] (what torch.nn.attention.bias.causal_lower_right materialises on CPU),
 * broadcast over B and H. A sliding window and ALiBi are what a PyTorch user passes for
 * them, an additive float attn_mask in Q's dtype: -inf where a key is hidden, else 0, or
 * -m_h |i' - j| under ALiBi ([1][Hq][Nq][Nkv], one plane per head's slope; [Nq][Nkv]
 * without ALiBi); SDPA turns a boolean mask into that form on every call, so the float
 * mask is the cheaper of the two for it. A mask depends on the shape and the variants,
 * never on the data: it is built in the workspace (the kernel's own, kept from call to
 * call) on a problem's first call, under a key of what it depends on, and the timed calls
 * reuse it (mask_once), as a model builds its mask once per forward for every layer.
 * SDPA has no soft cap (its scores never leave the fused kernel), so the kernel declares
 * no HRP_CAP_SOFTCAP and headroom refuses soft-capped problems with the reason. GQA/MQA
 * through enable_gqa. The result's path names the backend SDPA picks
 * (at::_fused_sdp_choice: CPU flash attention or the math fallback), mask and all. */
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_fused_sdp_choice.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <torch/headeronly/version.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>

#include "headroom/plugin.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define TORCH_VER STR(TORCH_VERSION_MAJOR) "." STR(TORCH_VERSION_MINOR) "." STR(TORCH_VERSION_PATCH)

namespace {

thread_local char last_err[256];

const char *torch_last_error() { return last_err; }

void set_error(const char *what)
{
    /* c10::Error's what() carries a C++ backtrace after the first line: keep the line. */
    size_t n = strcspn(what, "\n");
    if (n >= sizeof last_err) n = sizeof last_err - 1;
    memcpy(last_err, what, n);
    last_err[n] = 0;
}

at::ScalarType scalar(int32_t t)
{
    return t == HRP_BF16 ? at::kBFloat16 : t == HRP_F16 ? at::kHalf : at::kFloat;
}

/* How headroom's masking maps onto SDPA's arguments. */
enum mask_kind { NO_MASK, TOP_LEFT, LOWER_RIGHT_MASK, FLOAT_MASK };

int32_t window_of(const hrp_problem *p) { return HRP_HAS(p, window) ? p->window : 0; }
float alibi_of(const hrp_problem *p) { return HRP_HAS(p, alibi) ? p->alibi : 0.0f; }

mask_kind masking(const hrp_problem *p)
{
    if (window_of(p) > 0 || alibi_of(p) > 0) return FLOAT_MASK;
    if (!p->causal || p->seq_q == 1) return NO_MASK; /* one query row sees the whole cache */
    return p->seq_q == p->seq_kv ? TOP_LEFT : LOWER_RIGHT_MASK;
}

const char *torch_applicable(const hrp_problem *p)
{
    if (p->kv_dtype != p->dtype) return "torch SDPA takes Q, K and V in one dtype (kv_dtype differs from dtype)";
    return nullptr;
}

/* What a mask depends on; it sits before the mask in the workspace. */
struct mask_key {
    uint64_t magic;
    int64_t seq_q, seq_kv, heads, causal, window, dtype;
    float alibi, pad;
};
constexpr uint64_t MASK_MAGIC = 0x74736470616d736bull; /* "tsdpamsk" */
constexpr size_t KEY_BYTES = 64;
static_assert(sizeof(mask_key) <= KEY_BYTES, "the key fits its slot");

/* The mask's planes: one per query head under ALiBi (its slope), else one for all. */
int64_t mask_planes(const hrp_problem *p) { return alibi_of(p) > 0 ? p->heads : 1; }

size_t mask_bytes(const hrp_problem *p)
{
    const size_t n = (size_t)p->seq_q * (size_t)p->seq_kv;
    switch (masking(p)) {
    case LOWER_RIGHT_MASK: return KEY_BYTES + n;
    case FLOAT_MASK: return KEY_BYTES + n * (size_t)mask_planes(p) * c10::elementSize(scalar(p->dtype));
    default: return 0;
    }
}

size_t torch_workspace(const hrp_problem *p, const hrp_tune *t)
{
    (void)t;
    return mask_bytes(p);
}

/* The bottom-right causal mask: key j visible to query i iff j <= i + (Nkv - Nq). */
void fill_mask(const hrp_problem *p, unsigned char *m)
{
    const long off = (long)p->seq_kv - p->seq_q;
    for (long i = 0; i < p->seq_q; i++) {
        long n = i + off + 1;
        n = n < 0 ? 0 : n > p->seq_kv ? p->seq_kv : n;
        memset(m + i * p->seq_kv, 1, (size_t)n);
        memset(m + i * p->seq_kv + n, 0, (size_t)(p->seq_kv - n));
    }
}

/* The additive mask [planes][Nq][Nkv] in f32: row i (i' = i + Nkv - Nq) sees key j iff
 * j <= i' when causal and j > i' - W under a window W; a seen key adds 0, or
 * -m_h |i' - j| under ALiBi; a hidden one -inf. */
void fill_float_mask(const hrp_problem *p, float *m)
{
    const int64_t nq = p->seq_q, nkv = p->seq_kv, w = window_of(p), planes = mask_planes(p);
    for (int64_t h = 0; h < planes; h++) {
        const float slope = hrp_alibi_slope(p, (int)h);
        for (int64_t i = 0; i < nq; i++) {
            float *r = m + (h * nq + i) * nkv;
            const int64_t ip = i + nkv - nq;
            for (int64_t j = 0; j < nkv; j++) {
                const bool seen = (!(p->causal || w > 0) || j <= ip) && (w == 0 || j > ip - w);
                r[j] = seen ? -slope * (float)(ip > j ? ip - j : j - ip) : -INFINITY;
            }
        }
    }
}

/* The mask of p in ws (built unless ws's key already names p's) as SDPA's attn_mask. */
at::Tensor mask_once(const hrp_problem *p, void *ws)
{
    const mask_kind mk = masking(p);
    const mask_key key = {MASK_MAGIC, p->seq_q, p->seq_kv, p->heads, p->causal, window_of(p), p->dtype,
                          alibi_of(p), 0.0f};
    void *m = static_cast<char *>(ws) + KEY_BYTES;
    const int64_t planes = mask_planes(p), nq = p->seq_q, nkv = p->seq_kv;
    const at::ScalarType st = mk == FLOAT_MASK ? scalar(p->dtype) : at::kBool;
    at::Tensor t = mk == FLOAT_MASK && planes > 1
                       ? at::from_blob(m, {1, planes, nq, nkv}, at::TensorOptions().dtype(st))
                       : at::from_blob(m, {nq, nkv}, at::TensorOptions().dtype(st));
    if (memcmp(ws, &key, sizeof key) != 0) {
        if (mk == FLOAT_MASK) {
            at::Tensor f = at::empty(t.sizes(), at::TensorOptions().dtype(at::kFloat));
            fill_float_mask(p, f.data_ptr<float>());
            t.copy_(f); /* rounded to Q's dtype, as SDPA requires of a float mask */
        } else {
            fill_mask(p, static_cast<unsigned char *>(m));
        }
        memcpy(ws, &key, sizeof key);
    }
    return t;
}

/* A [B][H][N][d] tensor over view v without a copy; strides from bytes to elements. */
at::Tensor wrap(const hrp_view &v, int b, int h, int n, int d, at::ScalarType st)
{
    const int64_t e = (int64_t)c10::elementSize(st);
    return at::from_blob(v.data, {b, h, n, d}, {v.sb / e, v.sh / e, v.sn / e, 1}, at::TensorOptions().dtype(st));
}

int torch_run(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *ws)
{
    try {
        if (t->threads > 0 && at::get_num_threads() != t->threads) at::set_num_threads(t->threads);
        const at::ScalarType st = scalar(p->dtype);
        const bool f32 = p->dtype == HRP_F32;
        const hrp_view &q = f32 ? a->q : a->xq, &k = f32 ? a->k : a->xk, &v = f32 ? a->v : a->xv,
                       &o = f32 ? a->o : a->xo;
        const int B = p->batch, Hq = p->heads, Hkv = p->kv_heads, Nq = p->seq_q, Nkv = p->seq_kv, d = p->d_head;
        at::Tensor qt = wrap(q, B, Hq, Nq, d, st), kt = wrap(k, B, Hkv, Nkv, d, st), vt = wrap(v, B, Hkv, Nkv, d, st);
        at::Tensor ot = wrap(o, B, Hq, Nq, d, st);
        std::optional<at::Tensor> mask;
        const mask_kind mk = masking(p);
        if (mk == LOWER_RIGHT_MASK || mk == FLOAT_MASK) mask = mask_once(p, ws);
        at::Tensor out =
            at::scaled_dot_product_attention(qt, kt, vt, mask, 0.0, mk == TOP_LEFT, (double)p->scale, Hkv != Hq);
        ot.copy_(out);
        return HRP_OK;
    } catch (const std::exception &e) {
        set_error(e.what());
    } catch (...) {
        set_error("unknown C++ exception from libtorch");
    }
    return HRP_ERROR;
}

/* The backend SDPA picks for p, asked of at::_fused_sdp_choice with tensors of p's
 * shape, dtype and mask (zero strides over one row: the choice reads shapes, dtypes and
 * the last stride, never the data). */
const char *torch_path(const hrp_problem *p)
{
    static const char *const names[] = {
        "libtorch " TORCH_VER " sdpa math",        "libtorch " TORCH_VER " sdpa flash_attention",
        "libtorch " TORCH_VER " sdpa efficient",   "libtorch " TORCH_VER " sdpa cudnn",
        "libtorch " TORCH_VER " sdpa overrideable"};
    try {
        const at::ScalarType st = scalar(p->dtype);
        const at::Tensor row = at::empty({p->d_head}, at::TensorOptions().dtype(st));
        const at::Tensor q = row.as_strided({p->batch, p->heads, p->seq_q, p->d_head}, {0, 0, 0, 1});
        const at::Tensor kv = row.as_strided({p->batch, p->kv_heads, p->seq_kv, p->d_head}, {0, 0, 0, 1});
        std::optional<at::Tensor> mask;
        const mask_kind mk = masking(p);
        if (mk == LOWER_RIGHT_MASK)
            mask = at::empty({1}, at::TensorOptions().dtype(at::kBool)).as_strided({p->seq_q, p->seq_kv}, {0, 0});
        if (mk == FLOAT_MASK) {
            const at::Tensor one = at::empty({1}, at::TensorOptions().dtype(st));
            mask = mask_planes(p) > 1 ? one.as_strided({1, p->heads, p->seq_q, p->seq_kv}, {0, 0, 0, 0})
                                      : one.as_strided({p->seq_q, p->seq_kv}, {0, 0});
        }
        const int64_t c =
            at::_fused_sdp_choice(q, kv, kv, mask, 0.0, mk == TOP_LEFT, (double)p->scale, p->kv_heads != p->heads);
        if (c < 0 || c >= (int64_t)(sizeof names / sizeof names[0])) return "libtorch " TORCH_VER " sdpa";
        if (mk != LOWER_RIGHT_MASK && mk != FLOAT_MASK) return names[c];
        /* The backend that takes the attn_mask, and which mask it is. */
        thread_local char buf[128];
        snprintf(buf, sizeof buf, "%s, %s attn_mask", names[c], mk == FLOAT_MASK ? "float" : "bool");
        return buf;
    } catch (const std::exception &e) {
        set_error(e.what());
    }
    return "libtorch " TORCH_VER " sdpa";
}

const hrp_kernel torch_sdpa = {
    sizeof(hrp_kernel),
    "torch_sdpa",
    "PyTorch at::scaled_dot_product_attention (libtorch " TORCH_VER " CPU, from the PyPI wheel)",
    HRP_CAP_CAUSAL | HRP_CAP_GQA | HRP_CAP_THREADED | HRP_CAP_WINDOW | HRP_CAP_ALIBI,
    HRP_TRAFFIC_KV_PER_HEAD,
    HRP_TYPE_BIT(HRP_F32) | HRP_TYPE_BIT(HRP_BF16) | HRP_TYPE_BIT(HRP_F16),
    HRP_TYPE_BIT(HRP_F32) | HRP_TYPE_BIT(HRP_BF16) | HRP_TYPE_BIT(HRP_F16),
    torch_applicable,
    nullptr,
    torch_workspace,
    torch_run,
    torch_path,
};

const hrp_kernel *const kernels[] = {&torch_sdpa};

} // namespace

/* Opened by loader.c (RTLD_DEEPBIND), which hands this descriptor to headroom. */
extern "C" HRP_EXPORT const hrp_plugin *torch_sdpa_plugin(void)
{
    static const hrp_plugin plugin = {
        HRP_ABI_MAJOR, HRP_ABI_MINOR, sizeof(hrp_plugin), "libtorch", TORCH_VER, 1, kernels, torch_last_error,
    };
    return &plugin;
}

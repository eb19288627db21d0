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
 * [Nq][Nkv] (what torch.nn.attention.bias.causal_lower_right materialises on CPU) is
 * written into headroom's workspace on every call and broadcast over B and H. GQA/MQA
 * through enable_gqa. The result's path names the backend SDPA picks
 * (at::_fused_sdp_choice: CPU flash attention or the math fallback). */
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_fused_sdp_choice.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <torch/headeronly/version.h>

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

/* How headroom's causal maps onto SDPA's arguments. */
enum mask_kind { NO_MASK, TOP_LEFT, LOWER_RIGHT_MASK };

mask_kind masking(const hrp_problem *p)
{
    if (!p->causal || p->seq_q == 1) return NO_MASK; /* one query row sees the whole cache */
    return p->seq_q == p->seq_kv ? TOP_LEFT : LOWER_RIGHT_MASK;
}

const char *torch_applicable(const hrp_problem *p)
{
    if (p->kv_dtype != p->dtype) return "torch SDPA takes Q, K and V in one dtype (kv_dtype differs from dtype)";
    return nullptr;
}

size_t torch_workspace(const hrp_problem *p, const hrp_tune *t)
{
    (void)t;
    return masking(p) == LOWER_RIGHT_MASK ? (size_t)p->seq_q * (size_t)p->seq_kv : 0;
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
        if (mk == LOWER_RIGHT_MASK) {
            fill_mask(p, static_cast<unsigned char *>(ws));
            mask = at::from_blob(ws, {Nq, Nkv}, at::TensorOptions().dtype(at::kBool));
        }
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
        const int64_t c =
            at::_fused_sdp_choice(q, kv, kv, mask, 0.0, mk == TOP_LEFT, (double)p->scale, p->kv_heads != p->heads);
        if (c >= 0 && c < (int64_t)(sizeof names / sizeof names[0])) return names[c];
    } catch (const std::exception &e) {
        set_error(e.what());
    }
    return "libtorch " TORCH_VER " sdpa";
}

const hrp_kernel torch_sdpa = {
    sizeof(hrp_kernel),
    "torch_sdpa",
    "PyTorch at::scaled_dot_product_attention (libtorch " TORCH_VER " CPU, from the PyPI wheel)",
    HRP_CAP_CAUSAL | HRP_CAP_GQA | HRP_CAP_THREADED,
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

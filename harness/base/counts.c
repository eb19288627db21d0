/* counts.c — FLOPs and bytes of attention and of the full layer; every rate derives from here.
 *
 * FLOP rules: the core costs 4·d FLOPs per visible (query, key) pair and head — 2·d for
 * the score q·k and 2·d for p·v — so 4·B·Hq·Nq·Nkv·d non-causal; causal and a sliding
 * window count only the pairs a row sees (a window of W keys is ~W·Nq pairs, not a causal
 * square). A soft cap and ALiBi biases add no FLOPs of the core. Softmax work (max, exp,
 * sum, rescale) is not counted, as is customary; it shows up as a lower fraction of peak
 * instead.
 *
 * Byte rules: the minimum is Q, K, V read once and O written once (K and V: the keys some
 * row sees, hr_visible_keys — a windowed decode reads W keys, not the cache), Q and O at the size
 * of p->dtype and K and V at the stored size of p->kv_dtype, block scales included
 * (hr_dtype_row_bytes: f32 4, bf16/f16 2, q8_0 34/32, q4_0 18/32 bytes per value). Kernels declare how
 * they really move data (hr_traffic):
 *   SCORES        materializes scores in memory: + 16 bytes per visible score (S written,
 *                 read and rewritten as P by the softmax, read again by P·V);
 *   KV_PER_HEAD   K and V are streamed once per query head (Hq times, not Hkv times);
 *   KV_PER_GROUP  K and V are streamed once per KV head: the minimum.
 * A row's `bytes` are its kernel's traffic (its probe kind is chosen by them); its GB/s,
 * AI and roofline bound count the compulsory bytes (hr_bound_bytes), the same for every
 * kernel of the problem, so GFLOP/s = AI x GB/s. */
#include "counts.h"

double hr_visible_pairs(const hr_problem *p)
{
    if (!p->causal) return (double)p->seq_q * p->seq_kv;
    double n = 0;
    for (int i = 0; i < p->seq_q; i++) {
        const int e = hr_causal_end(p, i), b = hr_window_begin(p, i);
        n += e > b ? e - b : 0;
    }
    return n;
}

double hr_visible_keys(const hr_problem *p)
{
    if (!p->causal) return p->seq_kv;
    const int b = hr_window_begin(p, 0), e = hr_causal_end(p, p->seq_q - 1);
    return e > b ? e - b : 0;
}

double hr_flops_per_score(const hr_problem *p) { return 4.0 * p->d_head; }

double hr_core_flops(const hr_problem *p)
{
    return hr_flops_per_score(p) * p->batch * p->heads * hr_visible_pairs(p);
}

static double qo_bytes(const hr_problem *p)
{
    return 2.0 * (double)hr_dtype_row_bytes(p->dtype, p->d_head) * p->batch * p->heads * p->seq_q;
}

static double kv_bytes(const hr_problem *p, int heads)
{
    return 2.0 * (double)hr_dtype_row_bytes(p->kv_dtype, p->d_head) * p->batch * heads * hr_visible_keys(p);
}

double hr_min_bytes(const hr_problem *p) { return qo_bytes(p) + kv_bytes(p, p->kv_heads); }

double hr_bound_bytes(const hr_problem *p, double bytes)
{
    double m = hr_min_bytes(p);
    return m > 0 && m < bytes ? m : bytes > 0 ? bytes : 0;
}

double hr_kernel_bytes(const hr_kernel *k, const hr_problem *p, const hr_tune *t)
{
    (void)t;
    switch (k->traffic) {
    case HR_TRAFFIC_SCORES:
        return qo_bytes(p) + kv_bytes(p, p->heads) +
               16.0 * p->batch * p->heads * hr_visible_pairs(p);
    case HR_TRAFFIC_KV_PER_HEAD: return qo_bytes(p) + kv_bytes(p, p->heads);
    case HR_TRAFFIC_KV_PER_GROUP: break;
    }
    return hr_min_bytes(p);
}

double hr_kv_cache_bytes(int layers, int batch, int kv_heads, int d_head, long length,
                         double bytes_per_element)
{
    return 2.0 * layers * batch * kv_heads * (double)d_head * (double)length *
           bytes_per_element;
}

double hr_proj_flops(int batch, int seq, int d_model, int heads, int kv_heads, int d_head)
{
    return 2.0 * batch * (double)seq * d_model * (double)(heads + 2 * kv_heads) * d_head;
}

double hr_out_proj_flops(int batch, int seq, int d_model, int heads, int d_head)
{
    return 2.0 * batch * (double)seq * heads * (double)d_head * d_model;
}

double hr_working_set_bytes(const hr_problem *p, double workspace_bytes)
{
    return hr_min_bytes(p) + (workspace_bytes > 0 ? workspace_bytes : 0);
}

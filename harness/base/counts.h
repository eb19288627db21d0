/* counts.h — the one place where FLOPs and bytes of attention are counted. */
#ifndef HR_COUNTS_H
#define HR_COUNTS_H

#include "headroom.h"

/* Visible (query, key) pairs summed over one head: Nq*Nkv, or fewer when causal or
 * windowed. */
double hr_visible_pairs(const hr_problem *p);
/* Keys some query row sees (0..Nkv): all of them, or from row 0's window begin to the
 * last row's causal end. */
double hr_visible_keys(const hr_problem *p);
/* Core FLOPs: 4 * B * Hq * d * visible pairs (QK^T and PV, 2 FLOPs per multiply-add;
 * the softmax's exp/max/sum are not counted, as is customary). */
double hr_core_flops(const hr_problem *p);
/* FLOPs per visible score of the core: 4 d (2 d for Q·K, 2 d for P·V), so
 * hr_core_flops = hr_flops_per_score x visible pairs x B x Hq (the softmax ceiling's
 * conversion from scores/s to GFLOP/s). */
double hr_flops_per_score(const hr_problem *p);
/* Minimal bytes: Q, K, V read once and O written once (Q, O in p->dtype; K, V as stored
 * in p->kv_dtype, scales included). */
double hr_min_bytes(const hr_problem *p);
/* The bytes a row's GB/s, AI and roofline bound count: the problem's compulsory bytes (hr_min_bytes),
 * the same for every kernel of the shape and types, never more than the row's own count
 * (`bytes`: a layer phase's, or a made-up row's). A kernel whose traffic model moves more
 * (K/V once per query head, scores through memory) is bound by what any kernel of the
 * problem must read, not by its own re-reads, which caches serve: bound by those, ggml's
 * GQA decode read 118-137% of its "bound" while 2.4x slower than decode. 0: no count. */
double hr_bound_bytes(const hr_problem *p, double bytes);
/* Working set of one call: hr_min_bytes (Q, K, V, O as stored) plus the kernel's
 * workspace bytes; what the cache-level roof of a row is chosen by. */
double hr_working_set_bytes(const hr_problem *p, double workspace_bytes);
/* Bytes this kernel moves to and from memory by its traffic model (see counts.c). */
double hr_kernel_bytes(const hr_kernel *k, const hr_problem *p, const hr_tune *t);
/* KV-cache bytes: 2 * layers * B * Hkv * d * L * bytes_per_element. */
double hr_kv_cache_bytes(int layers, int batch, int kv_heads, int d_head, long length,
                         double bytes_per_element);
/* Full-layer FLOPs for X[B][N][d_model]: Q,K,V projections and output projection. */
double hr_proj_flops(int batch, int seq, int d_model, int heads, int kv_heads, int d_head);
double hr_out_proj_flops(int batch, int seq, int d_model, int heads, int d_head);

#endif

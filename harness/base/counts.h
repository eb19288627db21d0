/* counts.h — the one place where FLOPs and bytes of attention are counted. */
#ifndef HR_COUNTS_H
#define HR_COUNTS_H

#include "headroom.h"

/* Visible (query, key) pairs summed over one head: Nq*Nkv, or fewer when causal. */
double hr_visible_pairs(const hr_problem *p);
/* Core FLOPs: 4 * B * Hq * d * visible pairs (QK^T and PV, 2 FLOPs per multiply-add;
 * the softmax's exp/max/sum are not counted, as is customary). */
double hr_core_flops(const hr_problem *p);
/* Minimal bytes: Q, K, V read once and O written once (Q, O in p->dtype; K, V as stored
 * in p->kv_dtype, scales included). */
double hr_min_bytes(const hr_problem *p);
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

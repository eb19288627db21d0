/* sweep_points.h — a sweep config's cartesian product as points: resolved names, resume keys, skip reasons, duplicates dropped. */
#ifndef HR_SWEEP_POINTS_H
#define HR_SWEEP_POINTS_H

#include <stddef.h>

#include "config.h"
#include "layer.h"
#include "result.h"

/* One point of the product. */
typedef struct {
    const hr_kernel *kernel;
    hr_problem prob;
    hr_layout layout;
    hr_tune tune;     /* as requested (0: the kernel's default); block sizes a kernel
                       * does not read are 0                                        */
    int pass;         /* 1..passes                                                  */
    int d_model;      /* layer mode                                                 */
    int gemm;         /* layer mode: the projections' hr_gemm_backend                */
    int threads;      /* the config's threads (layer mode: the GEMMs'; 0: all CPUs)  */
    const char *tune_source; /* "default", "flag", "wisdom" or "flag+wisdom"         */
    char name[256];   /* hr_result_name of the point (resolved tunables), with
                       * /bqQ/bkvK when the config varies block sizes and /passP when
                       * passes > 1, so the names in one results.json are distinct  */
    bool named;       /* name carries such a suffix: the row's label is set to it   */
    char key[320];    /* name + block sizes + pass: what --resume matches on         */
    char skip[320];   /* non-empty: why the point is not measured                    */
} hr_sweep_point;

/* Expands the product in order (pass, batch, heads|d_model, kv_heads, d_head, seq,
 * seq_kv, causal, layout, threads, block_q, block_kv, gemm, dtype, kv_dtype, window, softcap,
 * alibi, kernel innermost, so kernels
 * are compared side by side). Wisdom is merged into each point's tunables first when
 * c->wisdom (fields the config set win), so keys and de-duplication see the merged
 * values. Points whose resolved tunables equal an earlier point's (threads of an
 * unthreaded kernel, say) are dropped and counted in *ndup. filter: NULL or a comma list
 * of kernel names to keep. A point that cannot run (invalid shape, kernel not
 * applicable, over max_mem bytes, 0: half of RAM, a corrupt wisdom file) gets a skip
 * reason. Layer mode names points "layer/<kernel>/<gemm>/B/N/D/H/G/d/causal|full/T"
 * with the key of their "total" row. *pts is malloc'ed. Returns HR_OK, or HR_EUSAGE for
 * an unknown kernel in filter. */
int hr_sweep_expand(const hr_sweep_config *c, const char *filter, double max_mem,
                    hr_sweep_point **pts, int *n, int *ndup);

/* The resume key of a result measured in pass `pass`. */
void hr_sweep_key(const hr_result *r, int pass, char *buf, size_t len);

/* Layer mode: the layer spec of a point (shape, core kernel and tunables, gemm, threads);
 * timer, seed, check and budget are left 0. */
hr_layer_spec hr_sweep_layer_spec(const hr_sweep_point *pt);

/* A set of keys (open addressing on FNV-1a) sized for at most n keys, which are not
 * copied: they must outlive the set. */
typedef struct {
    size_t cap;
    const char **slot;
} hr_keyset;
/* HR_OK, or HR_EUSAGE when out of memory. */
int hr_keyset_init(hr_keyset *t, size_t n);
/* Adds s; returns 1 if it was already there, else 0. */
int hr_keyset_add(hr_keyset *t, const char *s);
bool hr_keyset_has(const hr_keyset *t, const char *s);
void hr_keyset_free(hr_keyset *t);

#endif

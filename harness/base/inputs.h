/* inputs.h — deterministic inputs: a seeded PRNG and the input distributions. */
#ifndef HR_INPUTS_H
#define HR_INPUTS_H

#include "headroom.h"

typedef enum { HR_DIST_NORMAL = 0, HR_DIST_UNIFORM, HR_DIST_LARGE } hr_dist;
extern const char *const hr_dist_names[]; /* "normal", "uniform", "large", NULL */

/* xoshiro256** state. */
typedef struct {
    uint64_t s[4];
} hr_rng;
void hr_rng_seed(hr_rng *r, uint64_t seed);
uint64_t hr_rng_next(hr_rng *r);
double hr_rng_uniform(hr_rng *r); /* [0, 1)      */
double hr_rng_normal(hr_rng *r);  /* N(0, 1)     */

/* Fills a [B][H][N][d] view element by element in logical order, so the values do not
 * depend on the layout. stream separates Q (0), K (1) and V (2) of the same seed.
 * normal: N(0,1); uniform: U(-1,1); large: Q and K scaled so that scaled logits have
 * magnitude ~1e4 (V stays N(0,1)). */
void hr_fill(hr_view v, int batch, int heads, int rows, int d, hr_dist dist, uint64_t seed,
             int stream);

/* Problem tensors: Q, K, V, O in fp32, each a guarded buffer of its own (guard.h: its
 * end touches a guard page, so a kernel's access past it is reported by name), in the
 * chosen layout, and, for a problem of reduced element types, the typed tensors: Q and O
 * in p->dtype (args.xq, args.xo) when it is not f32, K and V in p->kv_dtype (args.xk,
 * args.xv) when that is not f32, each row hr_dtype_row_bytes long in the same layout.
 * A paged problem (page_size P): K and V, in every form, are pools of B ceil(Nkv / P)
 * blocks of P keys of every KV head, found through args.block_table (shuffled by the
 * seed; hr_kv_page_row), the rows past each sequence's last key 0. */
#define HR_TENSOR_BUFS 11
typedef struct {
    float *mem;      /* fp32 Q, the first buffer: non-NULL while allocated */
    void *xmem;      /* the first typed tensor, NULL when p is all f32     */
    size_t bytes;    /* fp32 + typed bytes                                 */
    hr_args args;
    hr_view q, k, v; /* writable views of the fp32 inputs */
    void *tmem;        /* a q8_0/q4_0 cache's K and V rows again in tiles (HR_KV_TILE), else NULL */
    hr_xcview xkt, xvt; /* their views (tile HR_KV_TILE, BHND whatever the layout)           */
    void *buf[HR_TENSOR_BUFS]; /* every buffer (hr_galloc), NULL past the last */
    bool input[HR_TENSOR_BUFS]; /* buf[i] is an input (Q, K, V in any form)    */
} hr_tensors;
/* Allocates (64-byte aligned) and fills with dist/seed; O is zeroed. The fp32 values
 * drawn do not depend on the types (same seed, same values); a typed tensor holds them
 * stored in its type (hr_dtype_store_row), and the fp32 view of that tensor is then
 * overwritten by what the stored rows hold (hr_dtype_load_row): the dequantized
 * values, so the oracle sees exactly what the kernel was given. On error (no memory)
 * returns HR_EUSAGE with a message. */
int hr_tensors_alloc(hr_tensors *t, const hr_problem *p, hr_layout layout, hr_dist dist,
                     uint64_t seed);
void hr_tensors_free(hr_tensors *t);
/* Makes every input buffer read-only (ro) or writable again: a check calls the kernel
 * with its inputs read-only, so a write into Q, K or V is reported as such. */
void hr_tensors_lock(const hr_tensors *t, bool ro);
/* The args kernel k is called with under tune tu: t->args, or, where k asks for its
 * cache in tiles (hr_kernel_kv_tile) and t holds them, a copy in buf with K and V the
 * tiled ones. Outside any timing; the fp32 views (the oracle's) are the same. */
const hr_args *hr_tensors_args(const hr_tensors *t, const hr_problem *p, const hr_kernel *k, const hr_tune *tu,
                               hr_args *buf);
/* Bytes hr_tensors_alloc would take (Q, K, V, O in fp32, plus the typed tensors and a
 * q8_0/q4_0 cache's tiled copy). */
double hr_tensors_bytes(const hr_problem *p);
/* For p->dtype other than f32 the kernel writes O to a->xo: converts it into the fp32
 * view a->o (which the oracle and --save read). Nothing to do for f32. */
void hr_tensors_output(const hr_problem *p, const hr_args *a);
/* Stores value x into every element of O (a->xo for a typed O, else a->o): the poison
 * a check writes before the kernel runs, so rows a kernel skips cannot pass. */
void hr_tensors_poison(const hr_problem *p, const hr_args *a, float x);

/* 64-byte aligned allocation (2 MiB aligned, transparent huge pages, from 2 MiB up);
 * NULL on failure. Free with free(). */
void *hr_alloc(size_t bytes);

#endif

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

/* Problem tensors in one allocation: Q, K, V, O in the chosen layout. */
typedef struct {
    float *mem;
    size_t bytes;
    hr_args args;
    hr_view q, k, v; /* writable views of the inputs */
} hr_tensors;
/* Allocates (64-byte aligned) and fills with dist/seed; O is zeroed. On error (no
 * memory) returns HR_EUSAGE with a message. */
int hr_tensors_alloc(hr_tensors *t, const hr_problem *p, hr_layout layout, hr_dist dist,
                     uint64_t seed);
void hr_tensors_free(hr_tensors *t);
/* Bytes hr_tensors_alloc would take (Q, K, V, O). */
double hr_tensors_bytes(const hr_problem *p);

/* 64-byte aligned allocation (2 MiB aligned, transparent huge pages, from 2 MiB up);
 * NULL on failure. Free with free(). */
void *hr_alloc(size_t bytes);

#endif

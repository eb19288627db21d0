/* isa.h — ISA levels: the kernels and loops compiled once per vector ISA, and the one that runs. */
#ifndef HR_ISA_H
#define HR_ISA_H

#include <stddef.h>

#include "decode_batch.h"
#include "gemm.h"
#include "headroom.h"

/* Everything that uses the vector layer (vec.h) is compiled once per level: the kernels,
 * GEMM and the roofline's memory and exp loops. A level is the table of that compile
 * (isa_level.c), one per level in the portable build (make), one in a fixed build
 * (make ISA=avx512|avx2|generic, make NATIVE=1). dispatch.c picks the best level this CPU
 * and OS run (cpuid, xgetbv) before main; --isa NAME or HEADROOM_ISA picks a lower one. */
typedef struct hr_isa_level {
    const char *name;                /* HR_VEC_ISA of its compile: "avx512", "avx2", "generic" */
    const hr_kernel *const *kernels; /* the built-in kernels, NULL-terminated, list order       */
    int (*sgemm)(hr_gemm_backend be, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc, int threads, void *ws);
    size_t (*sgemm_workspace)(hr_gemm_backend be, int M, int N, int K, int threads);
    /* a[i] = b[i] + s * c[i] for i in [lo, hi) (the STREAM triad of the probes and roofs) */
    void (*triad)(float *restrict a, const float *restrict b, const float *restrict c, float s,
                  size_t lo, size_t hi);
    /* the sum of n floats, n a multiple of 8 vectors (the cache roofs' load loop) */
    float (*load_sum)(const float *x, size_t n);
    /* iters sweeps of hr_vexp over n floats in -> out (the exp ceiling); out[n - 1] */
    float (*exp_sweep)(const float *in, float *out, int n, long iters);
    /* iters sweeps of a family's online-softmax step (HR_SMS_*) over n scores in buf (the
     * softmax ceilings); -1 where the level does not compile that step */
    double (*softmax_sweep)(int step, float *buf, int n, long iters);
    /* decode's ragged batch in one parallel region, and its workspace (decode_batch.h) */
    int (*decode_batch)(const hr_decode_seq *s, int n, int threads, void *ws);
    size_t (*decode_batch_workspace)(const hr_decode_seq *s, int n, int threads);
} hr_isa_level;

/* The online-softmax steps the roofline measures (roofloops.c says which code each runs). */
enum { HR_SMS_FLASH = 0, HR_SMS_DECODE, HR_SMS_BF16DOT, HR_SMS_AMX, HR_SMS_N };
/* Floats of softmax_sweep's buf for n scores: the scores, n of scratch, 128 + 16 more. */
#define HR_SOFTMAX_SWEEP_FLOATS(n) (2 * (size_t)(n) + 128 + 16)

/* The functions a level's table points at, defined once per compile (roofloops.c; GEMM's
 * hr_sgemm_lv and hr_sgemm_workspace_lv in gemm.h). */
void hr_triad_lv(float *restrict a, const float *restrict b, const float *restrict c, float s, size_t lo,
                 size_t hi);
float hr_load_sum_lv(const float *x, size_t n);
float hr_exp_sweep_lv(const float *in, float *out, int n, long iters);
double hr_softmax_sweep_lv(int step, float *buf, int n, long iters);

/* dispatch.c: the levels built into this binary, lowest first, and the one that runs. */
int hr_isa_count(void);
const hr_isa_level *hr_isa_at(int i);
/* NULL when this CPU and OS run level l, else what they lack ("AVX512BW", "OS support
 * for the zmm state"). */
const char *hr_isa_lacks(const hr_isa_level *l);
/* The level that runs (hr_isa, hr_kernels follow it). */
const hr_isa_level *hr_isa_now(void);
/* The best level this CPU runs (what runs unless --isa / HEADROOM_ISA says otherwise). */
const hr_isa_level *hr_isa_best(void);
/* Runs level name from now on: HR_OK, or HR_EUSAGE with a one-line message (unknown
 * name, not built into this binary, or the CPU lacks it). Call before any kernel is
 * looked up (main does, first thing). */
int hr_isa_select(const char *name);
/* "how the level was chosen": "best for this CPU", "--isa", "HEADROOM_ISA". */
const char *hr_isa_how(void);
void hr_isa_set_how(const char *how);

/* The running level's triad (probes and roofs). */
void hr_triad(float *restrict a, const float *restrict b, const float *restrict c, float s, size_t lo,
              size_t hi);

#endif

/* isa_level.c — one ISA level's table: the kernels and loops of this compile (dispatch.c picks a level). */
#include "isa.h"
#include "vec.h"

extern const hr_kernel hr_kernel_naive;
extern const hr_kernel hr_kernel_blocked;
extern const hr_kernel hr_kernel_simd;
extern const hr_kernel hr_kernel_omp;
extern const hr_kernel hr_kernel_flash, hr_kernel_gqa;
extern const hr_kernel hr_kernel_decode;
#if HR_HAVE_BLAS
extern const hr_kernel hr_kernel_blas;
#endif

/* Reference first; the order is the order `headroom list` prints. */
static const hr_kernel *const kernels[] = {
    &hr_kernel_naive,
    &hr_kernel_blocked,
    &hr_kernel_simd,
    &hr_kernel_omp,
    &hr_kernel_flash,
    &hr_kernel_gqa,
    &hr_kernel_decode,
#if HR_HAVE_BLAS
    &hr_kernel_blas,
#endif
    NULL,
};

/* The portable build compiles this file once per level with HR_ISA_SYM=hr_isa_<level>
 * and keeps only that symbol global in the level's object (objcopy -G, see the
 * Makefile), so the levels' kernels, with the same names, never meet; a fixed build
 * compiles it once as hr_isa_only. */
#ifndef HR_ISA_SYM
#define HR_ISA_SYM hr_isa_only
#endif

const hr_isa_level HR_ISA_SYM = {
    .name = HR_VEC_ISA,
    .kernels = kernels,
    .sgemm = hr_sgemm_lv,
    .sgemm_workspace = hr_sgemm_workspace_lv,
    .triad = hr_triad_lv,
    .load_sum = hr_load_sum_lv,
    .exp_sweep = hr_exp_sweep_lv,
    .softmax_sweep = hr_softmax_sweep_lv,
    .decode_batch = hr_decode_batch_lv,
    .decode_batch_workspace = hr_decode_batch_workspace_lv,
};

/* roofloops.c — the roofline's memory and exp loops, compiled per ISA level like the kernels they bound. */
#include "isa.h"
#include "vec.h"

/* The STREAM triad. Plain C: the level's compile flags vectorize it (16, 8 or 4 lanes),
 * so a cache roof measured on a level is that level's loads and stores. */
void hr_triad_lv(float *restrict a, const float *restrict b, const float *restrict c, float s, size_t lo,
                 size_t hi)
{
    for (size_t i = lo; i < hi; i++) a[i] = b[i] + s * c[i];
}

/* Sum of n floats (n a multiple of 8 vectors): 8 independent vector chains, enough to
 * keep two loads per cycle in flight over an add latency of 3-4 cycles. */
float hr_load_sum_lv(const float *x, size_t n)
{
    hr_vf s[8];
    for (int j = 0; j < 8; j++) s[j] = hr_vzero();
    for (size_t i = 0; i < n; i += 8 * HR_VW)
        for (int j = 0; j < 8; j++) s[j] = hr_vadd(s[j], hr_vload(x + i + (size_t)j * HR_VW));
    for (int j = 1; j < 8; j++) s[0] = hr_vadd(s[0], s[j]);
    float out[HR_VW];
    hr_vstore(out, s[0]);
    float t = 0;
    for (int j = 0; j < HR_VW; j++) t += out[j];
    return t;
}

/* iters sweeps of hr_vexp over in -> out (n a multiple of HR_VW). The empty asm with a
 * memory clobber keeps the compiler from merging the sweeps (each rewrites the same values). */
float hr_exp_sweep_lv(const float *in, float *out, int n, long iters)
{
    for (long it = 0; it < iters; it++) {
        for (int i = 0; i < n; i += HR_VW) hr_vstore(out + i, hr_vexp(hr_vload(in + i)));
        __asm__ volatile("" ::: "memory");
    }
    return out[n - 1];
}

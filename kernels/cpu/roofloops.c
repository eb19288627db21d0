/* roofloops.c — the roofline's memory, exp and softmax loops, compiled per ISA level like the kernels they bound. */
#include <math.h>
#include <string.h>

#include "decode_block.h"
#include "flash_bf16_exp.h"
#include "flash_softmax.h"
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

#if defined(HR_HAVE_BF16DOT)
/* The bf16 paths' steps of hr_softmax_sweep_lv, compiled for AVX512-BF16 as they are. */
static HR_BF16_TARGET double bf16_sweep(int step, float *buf, int n, long iters)
{
    uint16_t *p = (uint16_t *)(buf + n); /* P in bf16: half of the scratch */
    float *l = buf + 2 * (size_t)n + 128;
    memset(l, 0, HR_VW * sizeof(float));
    const hr_vf cv = hr_vset1(1.0f);
    hr_vf acc = hr_vzero();
    sm_job j = {.s = buf, .p = p, .l = l, .mneg = 0.0f, .n = n};
    for (long it = 0; it < iters; it++) {
        if (step == HR_SMS_BF16DOT) exp_job(&j, cv);
        else acc = hr_vadd(acc, exp_row(buf, p, n, 1.0f, 0.0f));
        __asm__ volatile("" ::: "memory");
    }
    float t[HR_VW];
    hr_vstore(t, acc);
    return fabs((double)l[0] + t[0] + p[n - 1]);
}
#endif

/* iters sweeps of a kernel family's own online-softmax step (HR_SMS_*) over n scores
 * (a multiple of 64) in buf[0, n), the scratch after them (hr_softmax_sweep_floats):
 * the very inline code the kernels run, so the softmax ceiling is theirs.
 *   HR_SMS_FLASH   flash_softmax.h's ft_row_chunk per FT_CHUNK scores (flash and gqa's
 *                  fp32 paths): max, lazy-rescale test, exp2, p stored, lane sums
 *   HR_SMS_DECODE  decode_block.h's block_softmax per 64-key block (decode's default
 *                  fp32 block), in place as in decode: max, exp2, sum, rescale test
 *   HR_SMS_BF16DOT flash_bf16_exp.h's exp_job (the bf16dot path): FMA into log2 units,
 *                  exp2, bf16 rounding of P, sums
 *   HR_SMS_AMX     flash_bf16_exp.h's exp_row (the amx path's block softmax pass)
 * The scores are the row's steady state: the running max is set by the first chunk and
 * the lazy rescale then skips, as on most tiles of a real row. Returns a value >= 0 the
 * caller sinks, or -1 where this level does not compile the step (bf16 steps need
 * AVX512-BF16 code: the avx512 level only). */
double hr_softmax_sweep_lv(int step, float *buf, int n, long iters)
{
    float *out = buf + n, *o = out + n, *l = o + 128;
    float m = -INFINITY, lsum = 0;
    memset(out, 0, (size_t)(n + 128 + HR_VW) * sizeof(float));
    switch (step) {
    case HR_SMS_FLASH:
        for (long it = 0; it < iters; it++) {
            for (int c = 0; c < n; c += FT_CHUNK) {
                hr_vf x[NV];
                for (int v = 0; v < NV; v++) x[v] = hr_vload(buf + c + v * HR_VW);
                ft_row_chunk(NV, x, out + c, 0, &m, l, o, 128);
            }
            __asm__ volatile("" ::: "memory");
        }
        return fabs((double)l[0] + out[n - 1]);
    case HR_SMS_DECODE: {
        dctx dc;
        memset(&dc, 0, sizeof dc);
        dc.dp = 128;
        memcpy(out, buf, (size_t)n * sizeof(float));
        for (long it = 0; it < iters; it++) {
            for (int c = 0; c < n; c += 64) block_softmax(&dc, 0, out + c, 64, 64, &m, &lsum, o);
            __asm__ volatile("" ::: "memory");
        }
        return fabs((double)lsum + out[n - 1]);
    }
#if defined(HR_HAVE_BF16DOT)
    case HR_SMS_BF16DOT:
    case HR_SMS_AMX:
        return bf16_sweep(step, buf, n, iters);
#endif
    default:
        return -1;
    }
}

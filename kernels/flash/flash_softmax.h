/* flash_softmax.h — flash's fp32 register tile (MR x NV) and its online-softmax step per chunk, per ISA level. */
#ifndef HR_FLASH_SOFTMAX_H
#define HR_FLASH_SOFTMAX_H

/* Included by flash_micro.h (flash.c) and by the roofline's softmax loop (cpu/roofloops.c),
 * so the softmax ceiling is measured on the kernels' own step, not a copy of it. */

#include <math.h>

#include "vec.h"
#include "vec_softmax.h"

/* Micro-tile: MR rows by NV vectors. AVX-512 has 32 registers: 24 accumulators + 4
 * loaded vectors + 1 broadcast. AVX2 has 16: 6 x 2 = 12 accumulators + 2 loaded + 1
 * broadcast (BLIS's Haswell 6x16 shape; faster than 4 x 2: perf-log 0239). The portable
 * path keeps 4 x 2. */
#if defined(HR_VEC_AVX512)
#define MR 6
#define NV 4
#elif defined(HR_VEC_AVX2)
#define MR 6
#define NV 2
#else
#define MR 4
#define NV 2
#endif

#define FT_INLINE static inline __attribute__((always_inline))

/* The online softmax runs per chunk of FT_CHUNK = NV * VW keys, one register tile's
 * width (AVX-512 64 = the default Bkv, AVX2 16, portable 8), on both of flash.c's paths,
 * so a row's bits do not depend on which path its micro-tile took (tests/test_flash.c's
 * bitwise test stacks rows differently). */
#define FT_CHUNK (NV * HR_VW)

/* The lazy rescale of one row, given the vector max mx of its scores in this chunk: the
 * running max m moves only when a score passes it by more than FT_SLACK (log2 units), so
 * the weights stay <= 2^FT_SLACK (fp32 sums have room to spare), and the horizontal max,
 * the exp2 and the O rescale are skipped on most chunks (one compare instead); o / l is
 * the same whatever m they share. o: the row's dp floats, l: its lane sums, s: its
 * weights of this tile's earlier chunks (c0 floats, not yet in o), rescaled with o. */
#define FT_SLACK 8.0f
FT_INLINE void ft_move_max(float *m, float *l, float *o, int dp, float *s, int c0, hr_vf mx)
{
    const float m_old = *m;
    if (m_old != -INFINITY && !hr_vgt_any(mx, m_old + FT_SLACK)) return;
    const float m_new = hr_vreduce_max(mx);
    if (m_old != -INFINITY) { /* rescale l, o and the chunks before to the new maximum */
        /* in a vector, not exp2f: no call, so qk_exp's accumulators stay in registers;
         * o and l take the same factor, so its 3e-6 cancels in o / l */
        const hr_vf av = hr_vexp2_fin(hr_vset1(m_old - m_new));
        for (int c = 0; c < dp; c += HR_VW) hr_vstore(o + c, hr_vmul(hr_vload(o + c), av));
        for (int c = 0; c < c0; c += HR_VW) hr_vstore(s + c, hr_vmul(hr_vload(s + c), av));
        hr_vstore(l, hr_vmul(hr_vload(l), av));
    }
    *m = m_new;
}

/* The online-softmax step of one row on one chunk: its nv vectors of scores x (columns
 * c0.. of the row's s), the max, ft_move_max, p = exp2(x - m) stored at s + c0, and the
 * chunk's sum added into the lane sums l. nv vectors give nv independent exp2 chains. */
FT_INLINE void ft_row_chunk(int nv, const hr_vf *x, float *s, int c0, float *m, float *l, float *o, int dp)
{
    hr_vf mx = x[0];
#pragma GCC unroll 4
    for (int v = 1; v < nv; v++) mx = hr_vmax(mx, x[v]);
    ft_move_max(m, l, o, dp, s, c0, mx);
    const hr_vf mv = hr_vset1(*m);
    hr_vf sum = hr_vexp2_fin(hr_vsub(x[0], mv));
    hr_vstore(s + c0, sum);
#pragma GCC unroll 4
    for (int v = 1; v < nv; v++) {
        const hr_vf p = hr_vexp2_fin(hr_vsub(x[v], mv));
        hr_vstore(s + c0 + v * HR_VW, p);
        sum = hr_vadd(sum, p);
    }
    hr_vstore(l, hr_vadd(hr_vload(l), sum));
}

#endif

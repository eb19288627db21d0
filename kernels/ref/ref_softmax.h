/* ref_softmax.h — the reference kernels' row softmax step (naive, blas): a row's visible scores exponentiated after their max. */
#ifndef HR_REF_SOFTMAX_H
#define HR_REF_SOFTMAX_H

#include <math.h>

/* s[j] = exp(s[j] - max) for j in [0, end), max-subtracted so large logits cannot
 * overflow; returns their sum (0 where end is 0). The caller normalizes. */
static inline float hr_ref_exp_row(float *s, int end)
{
    float m = -INFINITY, sum = 0;
    for (int j = 0; j < end; j++) m = s[j] > m ? s[j] : m;
    for (int j = 0; j < end; j++) {
        s[j] = expf(s[j] - m);
        sum += s[j];
    }
    return sum;
}

#endif

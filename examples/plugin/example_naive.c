/* example_naive.c — a minimal headroom plugin: textbook attention in plain C, one thread.
 * Copy this file, rename the kernel, replace the loop with your own (or a call into the
 * library you want measured), and build it with only headroom's include/ directory:
 *   cc -O2 -shared -fPIC -I ../../include example_naive.c -o example_naive.so -lm
 *   headroom check --plugin ./example_naive.so --kernel example_naive */
#include <math.h>

#include "headroom/plugin.h"

/* Scratch: one row of scores (Nkv floats), allocated by headroom. */
static size_t naive_workspace(const hrp_problem *p, const hrp_tune *t)
{
    (void)t;
    return (size_t)p->seq_kv * sizeof(float);
}

/* O[b,h,i] = softmax(scale * Q[b,h,i] . K[b,g,:]) V[b,g,:], g = h / (Hq / Hkv); causal is
 * bottom-right aligned (key j visible iff j <= i + Nkv - Nq). Views are f32 here. */
static int naive_run(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *ws)
{
    (void)t;
    float *s = ws;
    const int group = p->heads / p->kv_heads, d = p->d_head;
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++)
            for (int i = 0; i < p->seq_q; i++) {
                const float *q = hrp_row(a->q, b, h, i);
                float *o = hrp_row(a->o, b, h, i);
                long end = p->causal ? (long)i + 1 + p->seq_kv - p->seq_q : p->seq_kv;
                int n = end < 0 ? 0 : end > p->seq_kv ? p->seq_kv : (int)end;
                float m = -INFINITY, l = 0;
                for (int j = 0; j < n; j++) { /* scores and their max */
                    const float *k = hrp_row(a->k, b, h / group, j);
                    float x = 0;
                    for (int c = 0; c < d; c++) x += q[c] * k[c];
                    s[j] = x * p->scale;
                    m = s[j] > m ? s[j] : m;
                }
                for (int c = 0; c < d; c++) o[c] = 0;
                for (int j = 0; j < n; j++) { /* exp, sum and P.V */
                    const float *v = hrp_row(a->v, b, h / group, j), e = expf(s[j] - m);
                    l += e;
                    for (int c = 0; c < d; c++) o[c] += e * v[c];
                }
                for (int c = 0; c < d && n > 0; c++) o[c] /= l; /* no visible key: zeros */
            }
    return HRP_OK;
}

static const hrp_kernel naive = {
    .size = sizeof(hrp_kernel),
    .name = "example_naive",
    .summary = "example plugin: textbook loops, scores one row at a time; 1 thread",
    .caps = HRP_CAP_CAUSAL | HRP_CAP_GQA,
    .traffic = HRP_TRAFFIC_KV_PER_HEAD,
    .workspace_bytes = naive_workspace,
    .run = naive_run,
};

static const hrp_kernel *const kernels[] = {&naive};

HRP_EXPORT const hrp_plugin *headroom_plugin_v1(void)
{
    static const hrp_plugin plugin = {
        .abi_major = HRP_ABI_MAJOR,
        .abi_minor = HRP_ABI_MINOR,
        .size = sizeof(hrp_plugin),
        .library = "example",
        .version = "1.0",
        .nkernels = 1,
        .kernels = kernels,
    };
    return &plugin;
}

/* i8tiled.c — what a q8_0 / q4_0 cache in 16-key tiles (headroom.h hr_kv_tile_offset)
 * buys decode_i8.c's int8 block step, measured where it runs: the kernel's step on
 * llama.cpp's rows (a key's blocks side by side) against its step on the same values in
 * tiles (scores_q4t / scores_q8t and the tiled P·V, decode_i8.c's source included), one
 * after the other in ABBA rounds over the same blocks. The outputs must match bit for
 * bit. H32/8 d128, q4_0 512 keys, q8_0 128 (the rows' block; on tiles the kernel takes
 * 256, DECODE_BLOCK_KV_Q8T), avx512 builds.
 * usage: i8tiled q4_0|q8_0 [NBLK [ROUNDS]]   (NBLK 1: L1/L2; 8: L2; 64: L3; 2048+: memory) */
#define HR_DECODE_PF_COPY 1
#ifndef HR_DECODE_PF_HINT
#define HR_DECODE_PF_HINT 3
#endif
#define HR_I8_STEP hr_tiled_i8
#include "decode_i8.c"

#include <stdio.h>

#include "inputs.h"
#include "stats.h"
#include "timer.h"

#if !defined(HR_HAVE_I8PV) || HR_VW != 16
int main(void)
{
    fprintf(stderr, "i8tiled: needs a native AVX-512 build with VNNI\n");
    return 2;
}
#else
#include "i8bench.h"

enum { IT = 2000, REPMAX = 64 };

/* One block step of c's type over the block's K and V at k, v (rows or tiles as c->k.tile
 * says), the next block's at kn, vn prefetched. */
static void step(const dctx *c, int q4, const float *qx, const unsigned char *k, const unsigned char *v,
                 const unsigned char *kn, const unsigned char *vn, int n, float *s, const i8_bufs *u, dstate st,
                 const int *end)
{
    const size_t rb = c->rb;
    st.m[0] = st.m[1] = st.m[2] = st.m[3] = -INFINITY;
    if (c->k.tile) (q4 ? scores_q4t : scores_q8t)(c, qx, k, n, s, v, u->sv, vn, rb, n);
    else (q4 ? scores_q4 : scores_q8)(c, qx, k, rb, n, s, v, rb, u->sv, u->kvs, vn, rb, n);
    softmax_i8(c, 0, 0, n, end, s, st);
    const i8_pv pv = i8_pv_pick(c, q4, u->sv, n);
    signed char *w = (signed char *)u->pp;
    pv.quant(c, s, u->sv, n, w, u->cg, u->co, u->ci);
    pv.s8(c, w, u->cg, u->co, v, rb, n, st.acc, kn, rb, n);
}

int main(int argc, char **argv)
{
    int q4, nblk, rounds;
    if (i8bench_args(argc, argv, "i8tiled", REPMAX, &q4, &nblk, &rounds)) return 2;
    if (!hr_cpu_i8dot()) {
        fprintf(stderr, "i8tiled: this CPU has no VNNI\n");
        return 2;
    }
    const int N = q4 ? DECODE_BLOCK_KV_Q4 : DECODE_BLOCK_KV_Q8;
    i8bench ib;
    unsigned char *tiles[2];
    i8bench_init_tiled(&ib, q4, N, nblk, tiles);
    const dctx c = ib.c;
    dctx ct = c; /* the same step on tiles */
    ct.k.tile = ct.v.tile = HR_KV_TILE;
    const size_t blk = ib.blk;
    const unsigned char *K = ib.K, *V = ib.V, *KT = tiles[0], *VT = tiles[1];
    const float *qx = ib.qx;
    float *s = ib.s;
    const i8_bufs u = ib.u;
    float m[4], l[4] = {0};
    float *acc = ib.acc, *acc2 = aligned_alloc(64, 4 * 128 * sizeof(float));
    const int end[1] = {N};
    for (int v = 0; v < 2; v++) { /* one step each from zero: the outputs must agree bit for bit */
        float *a = v ? acc2 : acc;
        memset(a, 0, 4 * 128 * sizeof(float));
        l[0] = l[1] = l[2] = l[3] = 0;
        step(v ? &ct : &c, q4, qx, v ? KT : K, v ? VT : V, v ? KT : K, v ? VT : V, N, s, &u, (dstate){m, l, a}, end);
    }
    if (memcmp(acc, acc2, 4 * 128 * sizeof(float))) {
        int bad = 0;
        for (int i = 0; i < 512; i++) bad += acc[i] != acc2[i];
        fprintf(stderr, "i8tiled: the tiled step's output differs in %d of 512 values\n", bad);
        return 1;
    }
    double t[2][REPMAX];
    for (int rep = 0; rep < rounds; rep++)
        for (int v0 = 0; v0 < 2; v0++) {
            const int v = rep % 2 ? 1 - v0 : v0; /* ABBA */
            const unsigned char *k0 = v ? KT : K, *vv = v ? VT : V;
            const double t0 = hr_now();
            for (int i = 0; i < IT; i++) {
                const size_t o = (size_t)(i % nblk) * blk, nx = (size_t)((i + 1) % nblk) * blk;
                step(v ? &ct : &c, q4, qx, k0 + o, vv + o, k0 + nx, vv + nx, N, s, &u, (dstate){m, l, acc}, end);
            }
            t[v][rep] = (hr_now() - t0) * 1e9 / ((double)IT * N);
        }
    double r[REPMAX], rlo = 1e30, rhi = 0;
    for (int i = 0; i < rounds; i++) {
        r[i] = t[1][i] / t[0][i];
        rlo = r[i] < rlo ? r[i] : rlo, rhi = r[i] > rhi ? r[i] : rhi;
    }
    printf("%s H32/8 d128, %d-key blocks, %d block%s, ns per key and KV head (medians of %d ABBA rounds): rows %.2f, "
           "tiles %.2f, tiles/rows %.3f [%.3f-%.3f]\n",
           argv[1], N, nblk, nblk > 1 ? "s" : "", rounds, hr_median(t[0], (size_t)rounds), hr_median(t[1], (size_t)rounds),
           hr_median(r, (size_t)rounds), rlo, rhi);
    return acc[0] != acc[0];
}
#endif

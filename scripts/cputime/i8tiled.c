/* i8tiled.c — what a q4_0 cache laid out in 16-key tiles would buy decode_i8.c's int8
 * block step, measured where it runs: the kernel's step on llama.cpp's rows (a key's 4
 * blocks side by side, 72 bytes) against the same step on the same values stored in tiles
 * of 16 keys (the same 1152 bytes: per block the 16 K scales, then the nibbles dword by
 * dword with a lane per key, so the scores' K is 4 plain loads; V per 4 keys and block
 * pair in P·V's transposed order, so a key quad's vectors are 4 broadcast loads). The
 * outputs must match bit for bit. H32/8 d128, 512-key blocks, AVX-512 only.
 * usage: i8tiled [NBLK [ROUNDS]]   (NBLK 1: in L1/L2; 8: L2; 64: L3; 2048: memory) */
#define HR_DECODE_PF_COPY 1
#ifndef HR_DECODE_PF_HINT
#define HR_DECODE_PF_HINT 3
#endif
#define HR_I8_STEP hr_tiled_i8
#include "decode_i8.c"

#include <stdio.h>
#include <time.h>

#include "inputs.h"

#if !defined(HR_HAVE_I8PV) || HR_VW != 16
int main(void)
{
    fprintf(stderr, "i8tiled: needs a native AVX-512 build with VNNI\n");
    return 2;
}
#else
enum { TK = 16, TB = 16 * 72 }; /* keys a tile, its bytes (d 128, q4_0) */

/* K tile: per block b at b 288: the 16 fp16 scales, then dword i of key L at 32 + (16 i + L) 4 */
static void tile_k(const unsigned char *rows, unsigned char *t, int n)
{
    for (int j = 0; j < n; j++) {
        unsigned char *tt = t + (size_t)(j / TK) * TB;
        const int L = j % TK;
        for (int b = 0; b < 4; b++) {
            const unsigned char *blk = rows + (size_t)j * 72 + b * 18;
            memcpy(tt + b * 288 + 2 * L, blk, 2);
            for (int i = 0; i < 4; i++) memcpy(tt + b * 288 + 32 + (16 * i + L) * 4, blk + 2 + 4 * i, 4);
        }
    }
}
/* V tile: the 4 blocks' 16 fp16 scales at 32 b; then per block pair P (0, 1) and key quad
 * Qd at 128 + (4 P + Qd) 128: for i 0..3, 32 bytes, block 2P's then 2P+1's 16, byte
 * 4 p + t = key t's packed byte 4 i + p of that block (hr_vi_vt_q4's lane order) */
static void tile_v(const unsigned char *rows, unsigned char *t, int n)
{
    for (int j = 0; j < n; j++) {
        unsigned char *tt = t + (size_t)(j / TK) * TB;
        const int L = j % TK, qd = L / 4, tk = L % 4;
        for (int b = 0; b < 4; b++) {
            const unsigned char *blk = rows + (size_t)j * 72 + b * 18;
            memcpy(tt + b * 32 + 2 * L, blk, 2);
            unsigned char *pq = tt + 128 + (4 * (b / 2) + qd) * 128 + 16 * (b % 2);
            for (int i = 0; i < 4; i++)
                for (int p = 0; p < 4; p++) pq[32 * i + 4 * p + tk] = blk[2 + 4 * i + p];
        }
    }
}

static inline __attribute__((always_inline)) void kt_tile(const unsigned char *k, hr_vi out[8])
{
    const __m512i m4 = _mm512_set1_epi8(15);
    for (int i = 0; i < 4; i++) {
        const __m512i x = _mm512_loadu_si512(k + 64 * i);
        out[i] = _mm512_and_si512(x, m4);
        out[4 + i] = _mm512_and_si512(_mm512_srli_epi16(x, 4), m4);
    }
}

/* scores_keys2 on tiles: 32 keys (two tiles) a step */
static __attribute__((noinline)) HR_I8_TARGET void scores_tiled(const dctx *c, const float *qx, const unsigned char *kt,
                                                               const unsigned char *vt, int n, float *s, float *sv,
                                                               const unsigned char *pf, int nv)
{
    const int nb = 4, R = c->R, d4 = 32;
    const size_t qf = qrow_f(c), kbp = (size_t)c->kbp;
    pf_seq pq = pf_rows(c, pf, 72, nv, nb * (n / HR_VW));
    for (int j0 = 0; j0 < n; j0 += 32) {
        const unsigned char *ta = kt + (size_t)(j0 / TK) * TB, *tb = ta + TB;
        const unsigned char *va = vt + (size_t)(j0 / TK) * TB, *vb = va + TB;
        for (int b = 0; b < nb; b++) {
            pf_step(&pq);
            pf_step(&pq);
            hr_vi ka[8], kc[8];
            kt_tile(ta + b * 288 + 32, ka);
            kt_tile(tb + b * 288 + 32, kc);
            const hr_vf dk = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(ta + b * 288)));
            const hr_vf dk2 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(tb + b * 288)));
            hr_vstore(sv + b * kbp + j0, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(va + b * 32))));
            hr_vstore(sv + b * kbp + j0 + 16, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(vb + b * 32))));
            for (int r = 0; r < R; r++) {
                const float *row = qx + (size_t)r * qf;
                const unsigned char *qb = (const unsigned char *)row + b * HR_QBLOCK;
                const hr_vi x00 = hr_vi_set1(row + d4 + nb + b);
                hr_vi x0 = x00, x1 = hr_vi_zero(), y0 = x00, y1 = hr_vi_zero();
                for (int i = 0; i < 8; i += 2) {
                    const hr_vi q0 = hr_vi_set1(qb + 4 * i), q1 = hr_vi_set1(qb + 4 * i + 4);
                    x0 = hr_vi_dot(x0, ka[i], q0);
                    y0 = hr_vi_dot(y0, kc[i], q0);
                    x1 = hr_vi_dot(x1, ka[i + 1], q1);
                    y1 = hr_vi_dot(y1, kc[i + 1], q1);
                }
                const hr_vf dq = hr_vset1(row[d4 + b]);
                const hr_vf xi = hr_vi_cvt(hr_vi_add(x0, x1)), yi = hr_vi_cvt(hr_vi_add(y0, y1));
                float *sr = s + r * kbp + j0;
                hr_vstore(sr, b ? hr_vfma(xi, hr_vmul(dk, dq), hr_vload(sr)) : hr_vmul(xi, hr_vmul(dk, dq)));
                hr_vstore(sr + HR_VW, b ? hr_vfma(yi, hr_vmul(dk2, dq), hr_vload(sr + HR_VW)) : hr_vmul(yi, hr_vmul(dk2, dq)));
            }
        }
    }
}

/* pv_tile_s8 (q4_0, s8 weights, 4 rows, n a multiple of GK) with a key quad's V from its tile */
#define PV_QUAD_T(jj)                                                                                             \
    do {                                                                                                          \
        const unsigned char *qv = vt + (size_t)((jj) / TK) * TB + 128 + (4 * (b / 2) + ((jj) % TK) / 4) * 128; \
        hr_vi u[4];                                                                                               \
        for (int i = 0; i < 4; i++)                                                                               \
            u[i] = _mm512_and_si512(_mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(qv + 32 * i))), mq); \
        PV_ROWS(jj)                                                                                               \
    } while (0)
static inline __attribute__((always_inline)) HR_I8_TARGET void pv_tile_t(const dctx *c, const signed char *w, const float *cg,
                                                                         const int32_t *co, const unsigned char *vt, int n,
                                                                         int b, int b2, float *acc, pf_seq *pq)
{
    const int nb = 4, kbp = c->kbp, ng = (int)ngrp(c), q4 = 1, u8 = 0, nr = 4, r0 = 0;
    const __m512i mq = _mm512_mask_blend_epi64(0xF0, _mm512_set1_epi8(0x0F), _mm512_set1_epi8((char)0xF0));
    hr_vf ot[PV_RT][4];
    for (int r = 0; r < nr; r++) hr_vf_tile_load(acc + (size_t)(r0 + r) * c->dp, b, b2, q4, ot[r]);
    const signed char *w0 = w + ((size_t)r0 * nb + b) * kbp;
    const ptrdiff_t ws = (ptrdiff_t)nb * kbp, w1 = (ptrdiff_t)(b2 - b) * kbp;
    for (int g0 = 0, grp = 0; g0 < n; g0 += GK, grp++) {
        PV_ACC(PV_DECL)
        hr_vi z[PV_RT];
        for (int r = 0; r < PV_RT; r++)
            z[r] = hr_vi_q4_hz(hr_vi_set2(co + ((size_t)r * nb + b) * ng + grp, co + ((size_t)r * nb + b2) * ng + grp, q4));
        PV_ACC(PV_INIT)
        for (int j = g0; j < g0 + GK; j += 4) {
            pf_step(pq);
            const signed char *wj0 = w0 + j, *wj1 = wj0 + w1;
            PV_QUAD_T(j);
        }
        hr_vf cv[PV_RT];
        for (int r = 0; r < PV_RT; r++) {
            const size_t ix = ((size_t)r * nb) * ng + grp;
            cv[r] = hr_vf_q4_hc(hr_vset2f(cg[ix + (size_t)b * ng], cg[ix + (size_t)b2 * ng], q4));
        }
        PV_ACC(PV_FLUSH)
    }
    for (int r = 0; r < nr; r++) hr_vf_tile_store(acc + (size_t)(r0 + r) * c->dp, b, b2, q4, ot[r]);
}
static __attribute__((noinline)) HR_I8_TARGET void pv_tiled(const dctx *c, const signed char *w, const float *cg,
                                                           const int32_t *co, const unsigned char *vt, int n, float *acc,
                                                           const unsigned char *pf, int n2)
{
    pf_seq pq = pf_rows(c, pf, 72, n2, 2 * (n / 4));
    pv_tile_t(c, w, cg, co, vt, n, 0, 1, acc, &pq);
    pv_tile_t(c, w, cg, co, vt, n, 2, 3, acc, &pq);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
enum { N = 512, IT = 2000, REPMAX = 64 };

int main(int argc, char **argv)
{
    const int nblk = argc > 1 ? atoi(argv[1]) : 1, rounds = argc > 2 ? atoi(argv[2]) : 9;
    if (nblk < 1 || nblk > 4096 || rounds < 1 || rounds > REPMAX) {
        fprintf(stderr, "usage: i8tiled [NBLK 1..4096 [ROUNDS 1..%d]]\n", REPMAX);
        return 2;
    }
    if (!hr_cpu_i8dot()) {
        fprintf(stderr, "i8tiled: this CPU has no VNNI\n");
        return 2;
    }
    hr_problem p = {0};
    p.batch = 1, p.heads = 32, p.kv_heads = 8, p.seq_q = 1, p.seq_kv = N, p.d_head = 128, p.kv_dtype = HR_Q4_0;
    dctx c = {0};
    c.p = &p, c.G = 4, c.R = 4, c.d = 128, c.dp = 128, c.kb = N, c.kbp = N, c.kt = HR_Q4_0, c.i8 = 2;
    c.rb = hr_dtype_row_bytes(HR_Q4_0, 128);
    const size_t rb = c.rb, blk = rb * N;
    unsigned char *K = hr_alloc(blk * nblk + 64), *V = hr_alloc(blk * nblk + 64);
    unsigned char *KT = hr_alloc(blk * nblk + 64), *VT = hr_alloc(blk * nblk + 64);
    srand(1);
    float x[128];
    for (int j = 0; j < N; j++)
        for (int kv = 0; kv < 2; kv++) {
            for (int i = 0; i < 128; i++) {
                const float u1 = (rand() + 1.0f) / (RAND_MAX + 2.0f), u2 = rand() / (float)RAND_MAX;
                x[i] = sqrtf(-2 * logf(u1)) * cosf(6.2831853f * u2);
            }
            hr_dtype_store_row(HR_Q4_0, x, (kv ? V : K) + j * rb, 128);
        }
    tile_k(K, KT, N);
    tile_v(V, VT, N);
    for (int b = 1; b < nblk; b++) {
        memcpy(K + b * blk, K, blk), memcpy(V + b * blk, V, blk);
        memcpy(KT + b * blk, KT, blk), memcpy(VT + b * blk, VT, blk);
    }
    float *q = aligned_alloc(64, 4 * 128 * sizeof(float)), *qx = aligned_alloc(64, i8_qf(&c) * sizeof(float) + 64);
    for (int i = 0; i < 512; i++) q[i] = (rand() / (float)RAND_MAX - 0.5f) * 0.3f;
    i8_quant(&c, q, qx);
    const size_t sf = round16((size_t)c.R * c.kbp) + i8_sf(&c);
    float *s = aligned_alloc(64, sf * sizeof(float) + 64);
    memset(s, 0, sf * sizeof(float));
    const i8_bufs u = i8_carve(&c, s);
    float *sv = u.sv, *cg = u.cg;
    uint32_t *kvs = u.kvs;
    int32_t *co = u.co;
    signed char *w = (signed char *)u.pp;
    float m[4], l[4] = {0};
    float *acc = aligned_alloc(64, 4 * 128 * sizeof(float)), *acc2 = aligned_alloc(64, 4 * 128 * sizeof(float));
    const int end[1] = {N};
    /* one step each from zero: the outputs must agree bit for bit */
    for (int v = 0; v < 2; v++) {
        float *a = v ? acc2 : acc;
        memset(a, 0, 4 * 128 * sizeof(float));
        m[0] = m[1] = m[2] = m[3] = -INFINITY;
        const dstate st = {m, l, a};
        if (v) scores_tiled(&c, qx, KT, VT, N, s, sv, VT, 0);
        else scores_q4(&c, qx, K, rb, N, s, V, rb, sv, kvs, V, rb, 0);
        softmax_i8(&c, 0, N, end, s, st);
        const i8_pv pv = i8_pv_pick(&c, 1, sv, N);
        pv.quant(&c, s, sv, N, w, cg, co, u.ci);
        if (v) pv_tiled(&c, w, cg, co, VT, N, a, KT, 0);
        else pv.s8(&c, w, cg, co, V, rb, N, a, K, rb, 0);
    }
    if (memcmp(acc, acc2, 4 * 128 * sizeof(float))) {
        int bad = 0;
        for (int i = 0; i < 512; i++) bad += acc[i] != acc2[i];
        fprintf(stderr, "i8tiled: the tiled step's output differs in %d of 512 values (%g vs %g)\n", bad, acc[0], acc2[0]);
        return 1;
    }
    double t[2][REPMAX];
    for (int rep = 0; rep < rounds; rep++)
        for (int v0 = 0; v0 < 2; v0++) {
            const int v = rep % 2 ? 1 - v0 : v0; /* ABBA */
            const dstate st = {m, l, acc};
            const double t0 = now();
            for (int i = 0; i < IT; i++) {
                const size_t o = (size_t)(i % nblk) * blk, nx = (size_t)((i + 1) % nblk) * blk;
                m[0] = m[1] = m[2] = m[3] = -INFINITY;
                if (v) scores_tiled(&c, qx, KT + o, VT + o, N, s, sv, VT + nx, N);
                else scores_q4(&c, qx, K + o, rb, N, s, V + o, rb, sv, kvs, V + nx, rb, N);
                softmax_i8(&c, 0, N, end, s, st);
                const i8_pv pv = i8_pv_pick(&c, 1, sv, N);
                pv.quant(&c, s, sv, N, w, cg, co, u.ci);
                if (v) pv_tiled(&c, w, cg, co, VT + o, N, acc, KT + nx, N);
                else pv.s8(&c, w, cg, co, V + o, rb, N, acc, K + nx, rb, N);
            }
            t[v][rep] = (now() - t0) * 1e9 / ((double)IT * N);
        }
    double r[REPMAX];
    for (int i = 0; i < rounds; i++) r[i] = t[1][i] / t[0][i];
    qsort(t[0], rounds, sizeof(double), cmpd);
    qsort(t[1], rounds, sizeof(double), cmpd);
    qsort(r, rounds, sizeof(double), cmpd);
    printf("q4_0 H32/8 d128, 512-key blocks, %d block%s, ns per key and KV head (medians of %d ABBA rounds): rows %.2f, "
           "tiles %.2f, tiles/rows %.3f [%.3f-%.3f]\n",
           nblk, nblk > 1 ? "s" : "", rounds, t[0][rounds / 2], t[1][rounds / 2], r[rounds / 2], r[0], r[rounds - 1]);
    return acc[0] != acc[0];
}
#endif

/* i8phases.c — decode_i8.c's int8 block step (q8_0/q4_0 caches) timed phase by phase on
 * one block of KEYS keys (unless given, the kernel's at the avx512 level: q4_0 512, q8_0
 * 128), H32/8 d128 (4 query rows a KV head), its source included so that every phase runs
 * as the kernel compiles it; where no hardware counter can be read this says where a
 * key's nanoseconds go (perf-log 0201, 0205).
 * Each phase alone, IT calls in a row (the data in L1/L2): scales+scores, the softmax,
 * pv_quant, P·V; then the whole step over NBLK blocks (in L1/L2 at 1, in L2 at 8, in L3
 * at 64, from memory at 2048 and more; K and V from hr_alloc, on huge pages as the
 * kernel's caches are) with the next block's prefetches: PF 1 both (the scores' of V, P·V's
 * of K), 2 the V one only, 3 the K one only, 0 none; and the whole step's time split by
 * phase (the TSC read between them, in one extra pass outside the timing). Medians of 9 repetitions, ns per key and KV head.
 * Built and run by studies/decode-i8-phases.sh against build/native's objects
 * (-DHR_DECODE_PF_HINT=2: the prefetches into L2 rather than L1).
 * usage: i8phases q4_0|q8_0 [NBLK [PF [KEYS]]] */
#define HR_DECODE_PF_COPY 1
#ifndef HR_DECODE_PF_HINT
#define HR_DECODE_PF_HINT 3
#endif
#define HR_I8_STEP hr_phases_i8
#include "decode_i8.c"

#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

#include "inputs.h"

#if !defined(HR_HAVE_I8PV)
int main(void)
{
    fprintf(stderr, "i8phases: this build level has no int8 P·V (a native AVX-512 or AVX2 build)\n");
    return 2;
}
#else
#include "i8bench.h"

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
enum { NMAX = 1024, IT = 2000, REP = 9 };

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "q4_0") && strcmp(argv[1], "q8_0"))) {
        fprintf(stderr, "usage: i8phases q4_0|q8_0 [NBLK [PF [KEYS]]]\n");
        return 2;
    }
    const int q4 = !strcmp(argv[1], "q4_0"), nblk = argc > 2 ? atoi(argv[2]) : 1, pf = argc > 3 ? atoi(argv[3]) : 1;
    const int N = argc > 4 ? atoi(argv[4]) : q4 ? DECODE_BLOCK_KV_Q4 : DECODE_BLOCK_KV_Q8; /* the kernel's, avx512 */
    if (N < 64 || N > NMAX || N % 64) {
        fprintf(stderr, "i8phases: KEYS must be a multiple of 64 in 64..%d\n", NMAX);
        return 2;
    }
    if (nblk < 1 || nblk > 4096) {
        fprintf(stderr, "i8phases: NBLK must be 1..4096\n");
        return 2;
    }
    if (pf < 0 || pf > 3) {
        fprintf(stderr, "i8phases: PF must be 0 (none), 1 (both), 2 (V only) or 3 (K only)\n");
        return 2;
    }
    const int pfv = pf == 1 || pf == 2, pfk = pf == 1 || pf == 3;
    if (!hr_cpu_i8dot()) {
        fprintf(stderr, "i8phases: this CPU has no VNNI (vpdpbusd)\n");
        return 2;
    }
    i8bench ib;
    i8bench_init(&ib, q4, N, nblk, NULL, NULL);
    const dctx c = ib.c;
    const size_t rb = ib.rb, blk = ib.blk;
    const unsigned char *K = ib.K, *V = ib.V;
    const float *qx = ib.qx;
    float *s = ib.s;
    const i8_bufs u = ib.u;
    float *sv = u.sv, *cg = u.cg;
    uint32_t *kvs = u.kvs;
    int32_t *co = u.co;
    signed char *w = (signed char *)u.pp;
    float m[4], l[4] = {0}, *acc = ib.acc, s0[4 * NMAX];
    const dstate st = {m, l, acc};
    const int end[1] = {N};
    double t[5][REP];
    unsigned long long ph[4] = {0}; /* the whole step's TSC ticks by phase (its last, split, pass) */
    for (int rep = 0; rep < REP; rep++) {
        const double t0 = now();
        for (int i = 0; i < IT; i++) (q4 ? scores_q4 : scores_q8)(&c, qx, K, rb, N, s, V, rb, sv, kvs, V, rb, 0);
        const double t1 = now();
        const i8_pv pv = i8_pv_pick(&c, q4, sv, N);
        memcpy(s0, s, 4 * N * sizeof(float)); /* the softmax sees the same scores every call */
        for (int i = 0; i < IT; i++) {
            memcpy(s, s0, 4 * N * sizeof(float));
            m[0] = m[1] = m[2] = m[3] = -INFINITY;
            softmax_i8(&c, 0, 0, N, end, s, st);
        }
        const double t2 = now();
        for (int i = 0; i < IT; i++) memcpy(s, s0, 4 * N * sizeof(float)); /* the copies' share, taken out */
        const double t3 = now();
        for (int i = 0; i < IT; i++) pv.quant(&c, s, sv, N, w, cg, co, u.ci);
        const double t4 = now();
        for (int i = 0; i < IT; i++) pv.s8(&c, w, cg, co, V, rb, N, acc, V, rb, 0);
        const double t5 = now();
        /* the whole step: timed without the TSC reads (sp 0); in the last repetition once
         * more with them between the phases (sp 1), for the split only */
        double t6 = 0;
        for (int sp = 0; sp < (rep == REP - 1 ? 2 : 1); sp++) {
            for (int i = 0; i < IT; i++) {
                const unsigned char *kb = K + (size_t)(i % nblk) * blk, *vb = V + (size_t)(i % nblk) * blk;
                const size_t nx = (size_t)((i + 1) % nblk) * blk;
                const unsigned long long c0 = sp ? __rdtsc() : 0;
                (q4 ? scores_q4 : scores_q8)(&c, qx, kb, rb, N, s, vb, rb, sv, kvs, V + nx, rb, pfv ? N : 0);
                const unsigned long long c1 = sp ? __rdtsc() : 0;
                const i8_pv pb = i8_pv_pick(&c, q4, sv, N);
                m[0] = m[1] = m[2] = m[3] = -INFINITY;
                softmax_i8(&c, 0, 0, N, end, s, st);
                const unsigned long long c2 = sp ? __rdtsc() : 0;
                pb.quant(&c, s, sv, N, w, cg, co, u.ci);
                const unsigned long long c3 = sp ? __rdtsc() : 0;
                pb.s8(&c, w, cg, co, vb, rb, N, acc, K + nx, rb, pfk ? N : 0);
                if (sp) {
                    const unsigned long long c4 = __rdtsc();
                    ph[0] += c1 - c0, ph[1] += c2 - c1, ph[2] += c3 - c2, ph[3] += c4 - c3;
                }
            }
            if (!sp) t6 = now();
        }
        const double k = 1e9 / ((double)IT * N);
        t[0][rep] = (t1 - t0) * k, t[1][rep] = ((t2 - t1) - (t3 - t2)) * k, t[2][rep] = (t4 - t3) * k;
        t[3][rep] = (t5 - t4) * k, t[4][rep] = (t6 - t5) * k;
    }
    static const char *const name[5] = {"scales+scores", "softmax", "pv_quant", "P.V (pv_s8)", "whole step"};
    printf("%s, H32/8 d128, %d-key blocks, ns per key and KV head (medians of %d):", argv[1], N, REP);
    for (int i = 0; i < 5; i++) {
        qsort(t[i], REP, sizeof(double), cmpd);
        printf("%s %s %.2f", i ? "," : "", name[i], t[i][REP / 2]);
    }
    static const char *const pfs[4] = {"off", "on", "V only", "K only"};
    printf(" (%d block%s, prefetch %s)\n", nblk, nblk > 1 ? "s" : "", pfs[pf]);
    const double tot = (double)(ph[0] + ph[1] + ph[2] + ph[3]), wm = t[4][REP / 2];
    printf("  the whole step by phase: scales+scores %.2f, softmax %.2f, pv_quant %.2f, P.V %.2f\n", wm * ph[0] / tot,
           wm * ph[1] / tot, wm * ph[2] / tot, wm * ph[3] / tot);
    return acc[0] != acc[0]; /* NaN: something broke */
}
#endif

/* f16kt.c — what an f16 K cache laid out in key tiles (per HR_VW keys, d-major: the keys'
 * values of one d side by side) would buy decode's f16 scores: the kernel's scores_kv
 * (decode_kv.c's source included: K rows, 4 keys x 4 rows of FMAs over d, the 16 sums by
 * hr_vsum16) against scores on the tiles (a vector of HR_VW keys per d converted once, the
 * 4 rows' q broadcast, 2 tiles x 4 rows x 2 halves of d = 16 accumulators, no horizontal
 * sum), H32/8 d128 (4 query rows), N keys over NBLK copies (1: L1/L2, 64: L3), no
 * prefetch in either, ABBA rounds; the two agree within fp32 rounding (checked first).
 * Tried in the kernel after this and not kept (perf-log 0072).
 * usage: f16kt [N [NBLK [ROUNDS]]]   (built by studies/cputime/build.sh studies/cputime/f16kt.c
 *        build/cputime/f16kt -O3 -march=native, or -march=x86-64-v3 for the avx2 level) */
#define HR_DECODE_PF_COPY 1
#define HR_DECODE_PF_HINT 2
#define hr_decode_block_kv hr_f16kt_block
#include "decode_kv.c"

#include <stdio.h>

#include "inputs.h"
#include "stats.h"
#include "timer.h"
#include "abba.h"

enum { D = 128, R = 4, REPMAX = ABBA_MAX };

/* Scores of keys [0, n) (n a multiple of 2 HR_VW) of the tiles at kt into s[r kbp + j]. */
__attribute__((noinline)) static void scores_tiles_f16(const float *q, const uint16_t *kt, int n, float *s, int kbp)
{
    enum { H = D / 2 };
    for (int j = 0; j < n; j += 2 * HR_VW) {
        const uint16_t *t0 = kt + (size_t)j * D, *t1 = t0 + HR_VW * D;
        hr_vf a[2][R][2];
        for (int u = 0; u < 2; u++)
            for (int r = 0; r < R; r++) a[u][r][0] = a[u][r][1] = hr_vzero();
        for (int x = 0; x < H; x++) {
            const hr_vf k00 = hr_vload_f16(t0 + x * HR_VW), k01 = hr_vload_f16(t0 + (x + H) * HR_VW);
            const hr_vf k10 = hr_vload_f16(t1 + x * HR_VW), k11 = hr_vload_f16(t1 + (x + H) * HR_VW);
            for (int r = 0; r < R; r++) {
                const hr_vf q0 = hr_vset1(q[r * D + x]), q1 = hr_vset1(q[r * D + x + H]);
                a[0][r][0] = hr_vfma(q0, k00, a[0][r][0]);
                a[1][r][0] = hr_vfma(q0, k10, a[1][r][0]);
                a[0][r][1] = hr_vfma(q1, k01, a[0][r][1]);
                a[1][r][1] = hr_vfma(q1, k11, a[1][r][1]);
            }
        }
        for (int r = 0; r < R; r++) {
            hr_vstore(s + r * kbp + j, hr_vadd(a[0][r][0], a[0][r][1]));
            hr_vstore(s + r * kbp + j + HR_VW, hr_vadd(a[1][r][0], a[1][r][1]));
        }
    }
}

__attribute__((noinline)) static void scores_rows_f16(const dctx *c, const float *q, const unsigned char *k, int n, float *s)
{
    scores_kv(c, HR_F16, q, k, 2 * D, n, s, NULL, 0, 0);
}

/* One timed variant (1: tiles): it passes over the blocks. */
typedef struct {
    const dctx *c;
    const float *q;
    const uint16_t *K, *KT;
    float *s1, *s2;
    int N, nblk, it;
} kt_run;
static void run_scores(int v, void *ctx)
{
    const kt_run *x = ctx;
    for (int i = 0; i < x->it; i++)
        for (int b = 0; b < x->nblk; b++) {
            const size_t o = (size_t)b * x->N * D;
            if (v) scores_tiles_f16(x->q, x->KT + o, x->N, x->s2, x->N);
            else scores_rows_f16(x->c, x->q, (const unsigned char *)(x->K + o), x->N, x->s1);
        }
}

int main(int argc, char **argv)
{
    const int N = argc > 1 ? atoi(argv[1]) : 128, nblk = argc > 2 ? atoi(argv[2]) : 1, rounds = argc > 3 ? atoi(argv[3]) : 9;
    if (N < 2 * HR_VW || N > 4096 || N % (2 * HR_VW) || nblk < 1 || nblk > 4096 || rounds < 1 || rounds > REPMAX) {
        fprintf(stderr, "usage: f16kt [N (a multiple of %d, <= 4096) [NBLK 1..4096 [ROUNDS 1..%d]]]\n", 2 * HR_VW, REPMAX);
        return 2;
    }
    const int it = 2000000 / (N * nblk) + 1;
    hr_problem p = {0};
    p.batch = 1, p.heads = 32, p.kv_heads = 8, p.seq_q = 1, p.seq_kv = N, p.d_head = D, p.kv_dtype = HR_F16;
    dctx c = {0};
    c.p = &p, c.G = R, c.R = R, c.d = D, c.dp = D, c.kb = N, c.kbp = N, c.kt = HR_F16, c.rb = 2 * D;
    const size_t nk = (size_t)N * nblk;
    uint16_t *K = hr_alloc(nk * 2 * D), *KT = hr_alloc(nk * 2 * D);
    float *q = aligned_alloc(64, R * D * sizeof(float)), *s1 = aligned_alloc(64, R * (size_t)N * sizeof(float)),
          *s2 = aligned_alloc(64, R * (size_t)N * sizeof(float));
    srand(1);
    for (int i = 0; i < R * D; i++) q[i] = rand() / (float)RAND_MAX - 0.5f;
    for (size_t j = 0; j < nk; j++)
        for (int x = 0; x < D; x++) {
            const float v = rand() / (float)RAND_MAX - 0.5f;
            uint16_t h;
            hr_dtype_store_row(HR_F16, &v, &h, 1);
            K[j * D + x] = h, KT[j / HR_VW * HR_VW * D + (size_t)x * HR_VW + j % HR_VW] = h;
        }
    scores_rows_f16(&c, q, (const unsigned char *)K, N, s1);
    scores_tiles_f16(q, KT, N, s2, N);
    for (int i = 0; i < R * N; i++)
        if (fabsf(s1[i] - s2[i]) > 1e-5f * (1 + fabsf(s1[i]))) {
            fprintf(stderr, "f16kt: score %d differs: %g against %g\n", i, s2[i], s1[i]);
            return 1;
        }
    kt_run x = {&c, q, K, KT, s1, s2, N, nblk, it};
    double t[2][ABBA_MAX];
    abba_rounds(rounds, run_scores, &x, (double)it * nblk * N, t);
    printf("f16 scores, %s, H32/8 d128, %d keys x %d block%s, ns per key and KV head (medians of %d ABBA rounds): "
           "rows (the kernel's) %.2f, tiles %.2f\n",
           HR_VEC_ISA, N, nblk, nblk > 1 ? "s" : "", rounds, hr_median(t[0], (size_t)rounds), hr_median(t[1], (size_t)rounds));
    return 0;
}

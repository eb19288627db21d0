/* read-with-fmas.c — how fast one core streams a decode-like cache while it computes:
 * 8 heads x L keys of K and V rows (512 bytes, fp32 d128), read a block of keys of K then
 * the same block of V, head after head, as decode.c walks a BHND cache; each 64-byte line
 * loaded once and fed to F FMAs on 24 accumulators held in registers (fp32 decode at
 * R = 4 query rows does 4 per line: its P·V tile keeps 4 rows x 4 vectors of d), with or
 * without decode's software prefetch (prefetcht1 of the next block's V during K and of
 * the block after next's K during V, every line, spread over the block). Memory on 2 MiB
 * pages (madvise), as headroom's inputs. Prints the best of 7 passes in GB/s.
 *
 *   gcc -O2 -march=native -o /tmp/rwf studies/read-with-fmas.c     (AVX-512 CPUs)
 *   /tmp/rwf FMAS_PER_LINE PREFETCH [BLOCK_KEYS [L]]     FMAS 0, 1, 2, 4 or 8; e.g. 4 1
 *
 * Finding: one core's read rate depends on how the loads, prefetches and FMAs interleave,
 * not on FMAs per byte alone; decode reads as this walk does with its own count and
 * prefetch (perf-log 0245). */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define ACC 24

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* n rows of 512 bytes at p, each of a row's 8 lines fed to F FMAs on 24 named
 * accumulators, spread as P·V's 4 rows x 4 vectors are (an array of accumulators went
 * through the stack: a load and a store per FMA); row j's 8 lines of pf (if any)
 * prefetched with it. One function per F, its 8 lines written out (S: a line, A: an FMA). */
#define A(u) c##u = _mm512_fmadd_ps(v, k, c##u);
#define S(x, ops)                                                                          \
    {                                                                                      \
        __m512 v;                                                                          \
        __asm__("vmovaps %1, %0" : "=v"(v) : "m"(*(const __m512 *)(r + 64 * (x))));       \
        ops                                                                                \
    }
#define DEFINE_BLOCK(F, LINES)                                                                 \
    static __attribute__((noinline)) void block##F(const char *p, int n, const char *pf, __m512 *acc) \
    {                                                                                          \
        __m512 c0 = acc[0], c1 = acc[1], c2 = acc[2], c3 = acc[3], c4 = acc[4], c5 = acc[5],    \
               c6 = acc[6], c7 = acc[7], c8 = acc[8], c9 = acc[9], c10 = acc[10], c11 = acc[11], \
               c12 = acc[12], c13 = acc[13], c14 = acc[14], c15 = acc[15], c16 = acc[16],        \
               c17 = acc[17], c18 = acc[18], c19 = acc[19], c20 = acc[20], c21 = acc[21],        \
               c22 = acc[22], c23 = acc[23];                                                    \
        const __m512 k = _mm512_set1_ps(0.5f);                                                 \
        (void)k;                                                                               \
        for (int j = 0; j < n; j++) {                                                          \
            const char *r = p + 512 * (size_t)j;                                               \
            if (pf)                                                                            \
                for (int x = 0; x < 8; x++) _mm_prefetch(pf + 512 * (size_t)j + 64 * x, _MM_HINT_T1); \
            LINES                                                                              \
        }                                                                                      \
        const __m512 all[ACC] = {c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11,             \
                                 c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23};  \
        for (int u = 0; u < ACC; u++) acc[u] = all[u];                                         \
    }
DEFINE_BLOCK(0,
    S(0, c0 = _mm512_add_ps(c0, v);) S(1, c1 = _mm512_add_ps(c1, v);) \
    S(2, c2 = _mm512_add_ps(c2, v);) S(3, c3 = _mm512_add_ps(c3, v);) \
    S(4, c4 = _mm512_add_ps(c4, v);) S(5, c5 = _mm512_add_ps(c5, v);) \
    S(6, c6 = _mm512_add_ps(c6, v);) S(7, c7 = _mm512_add_ps(c7, v);))
DEFINE_BLOCK(1,
    S(0, A(0)) S(1, A(1)) S(2, A(2)) S(3, A(3)) S(4, A(4)) S(5, A(5)) S(6, A(6)) S(7, A(7)))
DEFINE_BLOCK(2,
    S(0, A(0) A(1)) S(1, A(2) A(3)) S(2, A(4) A(5)) S(3, A(6) A(7)) S(4, A(8) A(9)) \
    S(5, A(10) A(11)) S(6, A(12) A(13)) S(7, A(14) A(15)))
DEFINE_BLOCK(4,
    S(0, A(0) A(1) A(2) A(3)) S(1, A(4) A(5) A(6) A(7)) S(2, A(8) A(9) A(10) A(11)) \
    S(3, A(12) A(13) A(14) A(15)) S(4, A(16) A(17) A(18) A(19)) S(5, A(20) A(21) A(22) A(23)) \
    S(6, A(0) A(1) A(2) A(3)) S(7, A(4) A(5) A(6) A(7)))
DEFINE_BLOCK(8,
    S(0, A(0) A(1) A(2) A(3) A(4) A(5) A(6) A(7)) \
    S(1, A(8) A(9) A(10) A(11) A(12) A(13) A(14) A(15)) \
    S(2, A(16) A(17) A(18) A(19) A(20) A(21) A(22) A(23)) \
    S(3, A(0) A(1) A(2) A(3) A(4) A(5) A(6) A(7)) \
    S(4, A(8) A(9) A(10) A(11) A(12) A(13) A(14) A(15)) \
    S(5, A(16) A(17) A(18) A(19) A(20) A(21) A(22) A(23)) \
    S(6, A(0) A(1) A(2) A(3) A(4) A(5) A(6) A(7)) \
    S(7, A(8) A(9) A(10) A(11) A(12) A(13) A(14) A(15)))

typedef void block_fn(const char *, int, const char *, __m512 *);

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FMAS_PER_LINE(0|1|2|4|8) PREFETCH(0|1) [BLOCK_KEYS [L]]\n", argv[0]);
        return 2;
    }
    const int F = atoi(argv[1]), pf = atoi(argv[2]), kb = argc > 3 ? atoi(argv[3]) : 64;
    const int L = argc > 4 ? atoi(argv[4]) : 16384, H = 8;
    block_fn *block = F == 0 ? block0 : F == 1 ? block1 : F == 2 ? block2 : F == 4 ? block4 : F == 8 ? block8 : NULL;
    if (!block || (pf != 0 && pf != 1) || kb < 1 || L < kb || L % kb) {
        fprintf(stderr, "%s: FMAS_PER_LINE 0, 1, 2, 4 or 8; PREFETCH 0 or 1; BLOCK_KEYS >= 1 dividing L\n", argv[0]);
        return 2;
    }
    const size_t hb = (size_t)L * 512, B = 2 * H * hb;
    char *a = aligned_alloc(2 << 20, B);
    if (!a) return 1;
    madvise(a, B, MADV_HUGEPAGE);
    for (size_t i = 0; i < B; i += 4) *(float *)(a + i) = 1.0f;
    double best = 1e30;
    __m512 acc[ACC];
    for (int u = 0; u < ACC; u++) acc[u] = _mm512_setzero_ps();
    for (int r = 0; r < 7; r++) {
        const double t0 = now();
        for (int h = 0; h < H; h++) {
            const char *K = a + 2 * h * hb, *V = K + hb;
            for (int j = 0; j < L; j += kb) {
                const int jn = j + kb, jnn = j + 2 * kb;
                block(K + (size_t)j * 512, kb, pf && jn < L ? V + (size_t)jn * 512 : NULL, acc);
                block(V + (size_t)j * 512, kb, pf && jnn < L ? K + (size_t)jnn * 512 : NULL, acc);
            }
        }
        const double t = now() - t0;
        best = t < best ? t : best;
    }
    float s = 0;
    for (int u = 0; u < ACC; u++) s += _mm512_reduce_add_ps(acc[u]);
    printf("fmas/line %d prefetch %d block %d L %d: %.1f GB/s (%.3f ms) [%g]\n", F, pf, kb, L, B / best / 1e9,
           best * 1e3, (double)s);
    free(a);
    return 0;
}

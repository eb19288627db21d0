/* read-with-fmas.c — how fast one core streams a decode-like cache while it computes:
 * 8 heads x L keys of K and V rows (512 bytes, fp32 d128), read a block of keys of K then
 * the same block of V, head after head, as decode.c walks a BHND cache; each 64-byte line
 * loaded once and fed to F independent FMAs (fp32 decode at R = 4 query rows does 4 per
 * line), with or without decode's software prefetch (the next block's V during K, the
 * block after next's K during V, spread over the block). Memory on 2 MiB pages (madvise),
 * as headroom's inputs. Prints the best of 7 passes in GB/s.
 *
 *   gcc -O2 -march=native -o /tmp/rwf scripts/read-with-fmas.c
 *   /tmp/rwf FMAS_PER_LINE PREFETCH [BLOCK_KEYS [L]]     e.g. /tmp/rwf 4 0 64 16384
 *
 * On the AMD EPYC Zen 4 dev VM (2026-11-27 08:55 UTC, one thread, 3 rounds interleaved
 * with headroom's fp32 decode H32/8 d128 L16384): 0 FMAs 27.6-28.0 GB/s, 4 FMAs 20.1-20.5
 * without software prefetch and 17.0-17.8 with decode's, decode itself 20.0-21.5,
 * headroom's STREAM triad 26-28: one core does not overlap the FMAs with the stream, so
 * a decode step with fewer operations per byte reads faster (README, "bf16 at the avx512
 * level"). */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* n rows of 512 bytes at p, F FMAs per line; the lines of pf (pfl of them) prefetched
 * spread over the block. */
static __m512 block(const char *p, int n, int F, const char *pf, int pfl, __m512 sink)
{
    __m512 c[8];
    for (int u = 0; u < 8; u++) c[u] = _mm512_set1_ps(1e-9f * (float)u);
    const int lines = n * 8, step = pfl ? (pfl + lines - 1) / lines : 0;
    for (int i = 0, done = 0; i < lines; i++) {
        const __m512 x = _mm512_load_ps((const float *)(p + 64 * (size_t)i));
        for (int u = 0; u < F; u++) c[(i + u) & 7] = _mm512_fmadd_ps(x, c[(i + u) & 7], c[(i + u) & 7]);
        if (F == 0) c[i & 7] = _mm512_add_ps(c[i & 7], x);
        for (int s = 0; s < step && done < pfl; s++, done++) _mm_prefetch(pf + 64 * (size_t)done, _MM_HINT_T1);
    }
    for (int u = 0; u < 8; u++) sink = _mm512_add_ps(sink, c[u]);
    return sink;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FMAS_PER_LINE PREFETCH(0|1) [BLOCK_KEYS [L]]\n", argv[0]);
        return 2;
    }
    const int F = atoi(argv[1]), pf = atoi(argv[2]), kb = argc > 3 ? atoi(argv[3]) : 64;
    const int L = argc > 4 ? atoi(argv[4]) : 16384, H = 8;
    if (F < 0 || F > 64 || kb < 1 || L < kb || L % kb) {
        fprintf(stderr, "%s: FMAS_PER_LINE 0..64, BLOCK_KEYS >= 1 dividing L\n", argv[0]);
        return 2;
    }
    const size_t hb = (size_t)L * 512, B = 2 * H * hb;
    char *a = aligned_alloc(2 << 20, B);
    if (!a) return 1;
    madvise(a, B, MADV_HUGEPAGE);
    for (size_t i = 0; i < B; i += 4) *(float *)(a + i) = 1.0f;
    double best = 1e30;
    __m512 sink = _mm512_setzero_ps();
    for (int r = 0; r < 7; r++) {
        const double t0 = now();
        for (int h = 0; h < H; h++) {
            const char *K = a + 2 * h * hb, *V = K + hb;
            for (int j = 0; j < L; j += kb) {
                const int jn = j + kb, jnn = j + 2 * kb;
                const char *pv = pf && jn < L ? V + (size_t)jn * 512 : NULL;
                const char *pk = pf && jnn < L ? K + (size_t)jnn * 512 : NULL;
                sink = block(K + (size_t)j * 512, kb, F, pv, pv ? kb * 8 : 0, sink);
                sink = block(V + (size_t)j * 512, kb, F, pk, pk ? kb * 8 : 0, sink);
            }
        }
        const double t = now() - t0;
        best = t < best ? t : best;
    }
    printf("fmas/line %d prefetch %d block %d L %d: %.1f GB/s (%.3f ms) [%g]\n", F, pf, kb, L, B / best / 1e9,
           best * 1e3, (double)_mm512_reduce_add_ps(sink));
    free(a);
    return 0;
}

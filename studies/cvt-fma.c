/* cvt-fma.c — whether decode's conversions cost FMA-pipe time: a loop of 16 zmm FMAs on 16
 * accumulators (a 4-row x 4-key score tile of decode_kv.c at R = 4) per iteration, with
 * its 4 K vectors made four ways: none (one vector reused: the FMA roof), vcvtph2ps from
 * registers, vcvtph2ps of 32-byte loads (f16 from L1), and vpmovzxwd + vpslld of the
 * same loads (bf16 widened). Prints GFLOP/s of the FMAs, three rounds.
 *
 *   gcc -O2 -march=native -o /tmp/cvt-fma studies/cvt-fma.c      (AVX-512 CPUs)
 *   /tmp/cvt-fma
 *
 * Finding: one conversion per 4 FMAs issues beside them on a core whose conversions take
 * other FP pipes, so f16 decode's compute floor is its FMAs per key (perf-log
 * 0246). */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define F(a, k) a = _mm512_fmadd_ps(qq, k, a)
#define ROW(a0, a1, a2, a3)                                                                                        \
    {                                                                                                              \
        __m512 qq = q;                                                                                             \
        __asm__("" : "+v"(qq));                                                                                    \
        F(a0, k0), F(a1, k1), F(a2, k2), F(a3, k3);                                                                \
    }
/* The tile: LOADK sets k0..k3 for iteration i; the accumulators stay in registers. */
#define BODY(LOADK)                                                                                                \
    __m512 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15;                                  \
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = a8 = a9 = a10 = a11 = a12 = a13 = a14 = a15 = _mm512_setzero_ps();    \
    const __m512 q = _mm512_set1_ps(1e-9f);                                                                        \
    double t = now();                                                                                              \
    for (long i = 0; i < n; i++) {                                                                                 \
        __m512 k0, k1, k2, k3;                                                                                     \
        LOADK;                                                                                                     \
        __asm__("" : "+v"(k0), "+v"(k1), "+v"(k2), "+v"(k3));                                                      \
        ROW(a0, a1, a2, a3) ROW(a4, a5, a6, a7) ROW(a8, a9, a10, a11) ROW(a12, a13, a14, a15)                      \
    }                                                                                                              \
    t = now() - t;                                                                                                 \
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),                          \
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));                         \
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),              \
                                       _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));          \
    volatile float sink = _mm512_reduce_add_ps(s);                                                                 \
    (void)sink;                                                                                                    \
    return 16.0 * 32 * n / t / 1e9;

#define BF(x) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(x)), 16))
#define HF(x) _mm512_cvtph_ps(_mm256_loadu_si256(x))

__attribute__((noinline)) static double fma_only(long n, const __m256i *mem)
{
    (void)mem;
    const __m512 kk = _mm512_set1_ps(1.0f);
    BODY(k0 = k1 = k2 = k3 = kk)
}
__attribute__((noinline)) static double cvt_reg(long n, const __m256i *mem)
{
    const __m256i h0 = mem[0], h1 = mem[1], h2 = mem[2], h3 = mem[3];
    BODY(k0 = _mm512_cvtph_ps(h0); k1 = _mm512_cvtph_ps(h1); k2 = _mm512_cvtph_ps(h2); k3 = _mm512_cvtph_ps(h3))
}
__attribute__((noinline)) static double cvt_mem(long n, const __m256i *mem)
{
    BODY(const __m256i *m = mem + (i & 15) * 4; k0 = HF(m); k1 = HF(m + 1); k2 = HF(m + 2); k3 = HF(m + 3))
}
__attribute__((noinline)) static double bf16_widen(long n, const __m256i *mem)
{
    BODY(const __m256i *m = mem + (i & 15) * 4; k0 = BF(m); k1 = BF(m + 1); k2 = BF(m + 2); k3 = BF(m + 3))
}

int main(void)
{
    static __m256i mem[64];
    for (int i = 0; i < 64; i++) mem[i] = _mm256_set1_epi16((short)(0x3c00 + i));
    const long n = 200000000;
    for (int r = 0; r < 3; r++)
        printf("fma only %.1f  vcvtph2ps (registers) %.1f  vcvtph2ps (L1) %.1f  bf16 widen (L1) %.1f GFLOP/s\n",
               fma_only(n, mem), cvt_reg(n, mem), cvt_mem(n, mem), bf16_widen(n, mem));
    return 0;
}

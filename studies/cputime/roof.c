/* roof.c — the vdpbf16ps zmm and fp32 FMA zmm roofs of one core by thread CPU time (16 chains, best of 7, as
 * headroom roofline's probe: 12 chains under-read vdpbf16ps where its latency times its
 * ports is more), by the clock studies/cputime/calls.c measures kernels with.
 * `roof T` runs the loops on T threads at once (OpenMP) and prints the per-core mean of
 * their best times: the roof a T-thread run's per-core figure compares with (perf-log 0010,
 * 0063). Build: gcc -O3 -fopenmp roof.c (GCC >= 10). */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define C 16
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
__attribute__((target("avx512f,avx512bf16"))) static float dot(long it) {
    __m512 x[C]; __m512i a = _mm512_set1_epi32(0x3f803f80), b = _mm512_set1_epi32(0x3c003c00);
    for (int j = 0; j < C; j++) x[j] = _mm512_set1_ps(j);
    for (long i = 0; i < it; i++)
_Pragma("GCC unroll 16") for (int j = 0; j < C; j++) x[j] = _mm512_dpbf16_ps(x[j], (__m512bh)a, (__m512bh)b);
    __m512 s = x[0]; for (int j = 1; j < C; j++) s = _mm512_add_ps(s, x[j]); return _mm512_reduce_add_ps(s); }
__attribute__((target("avx512f"))) static float fmaloop(long it) {
    __m512 x[C], a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
    for (int j = 0; j < C; j++) x[j] = _mm512_set1_ps(j);
    for (long i = 0; i < it; i++)
_Pragma("GCC unroll 16") for (int j = 0; j < C; j++) x[j] = _mm512_fmadd_ps(x[j], a, b);
    __m512 s = x[0]; for (int j = 1; j < C; j++) s = _mm512_add_ps(s, x[j]); return _mm512_reduce_add_ps(s); }
int main(int argc, char **argv) {
    const long it = 20000000; const int T = argc > 1 ? atoi(argv[1]) : 1;
    double sd = 0, sf = 0; float sink = 0;
#pragma omp parallel num_threads(T > 0 ? T : 1) reduction(+ : sd, sf, sink)
    {
        double bd = 1e9, bf = 1e9;
        for (int t = 0; t < 7; t++) {
#pragma omp barrier
            double c0 = cpu(); sink += dot(it); double c1 = cpu();
#pragma omp barrier
            double c2 = cpu(); sink += fmaloop(it); double c3 = cpu();
            if (c1 - c0 < bd) bd = c1 - c0; if (c3 - c2 < bf) bf = c3 - c2; }
        sd += it * C * 64 / bd / 1e9, sf += it * C * 32 / bf / 1e9;
    }
    const int n = T > 0 ? T : 1;
    printf("per core, CPU time, %d thread(s): vdpbf16ps %.1f GFLOP/s, fp32 FMA %.1f GFLOP/s (sink %g)\n", n, sd / n, sf / n, sink);
}

/* decode-cputime.c — decode H32/8 d128 Nq1 (any kv type) and a STREAM triad, timed by the process's CPU time per thread as well as the wall clock (scripts/decode-cputime.sh). */
/*
 * On a shared machine whose other tenants keep every core busy, the wall time of a
 * repetition mostly measures the time slices the scheduler gave away (a single-thread
 * decode saw 0.25-0.45 of a CPU). The process's CPU time divided by the threads counts
 * only the time the threads ran, memory stalls included, which is what a dedicated
 * machine's wall time would be; the triad is timed the same way, so their ratio is the
 * kernel's fraction of the machine's bandwidth. Run with OMP_WAIT_POLICY=passive, so a
 * thread waiting at the end of a region sleeps rather than spinning on CPU time.
 *
 * usage: decode-cputime KV|triad|load L THREADS REPS [BLOCK_KV]
 * (load: a read-only vector sum over 256 MiB, each thread its own part)
 * prints one line: cpu_med_ms cpu_min_ms wall_min_ms wall_med_ms and the GB/s of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include "headroom.h"
#include "inputs.h"
#include "isa.h"
#include "sysinfo.h"

static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv)
{
    if (argc < 5) { fprintf(stderr, "usage: decode-cputime KV|triad|load L THREADS REPS [BLOCK_KV]\n"); return 2; }
    const int L = atoi(argv[2]), T = atoi(argv[3]), R = atoi(argv[4]);
    double cpu[4096], wall[4096], bytes;
    if (R < 1 || R > 4096 || T < 1) return 2;
    if (!strcmp(argv[1], "triad")) {
        const size_t n = ((size_t)256 << 20) / 12; /* three arrays, 256 MiB in all */
        float *a = hr_alloc(n * 4), *b = hr_alloc(n * 4), *c = hr_alloc(n * 4);
#pragma omp parallel for num_threads(T)
        for (size_t i = 0; i < n; i++) a[i] = 0, b[i] = 1, c[i] = 2;
        bytes = 12.0 * n;
        for (int r = -2; r < R; r++) {
            double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
#pragma omp parallel for num_threads(T) schedule(static)
            for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0f * c[i];
            double c1 = now(CLOCK_PROCESS_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
            if (r >= 0) cpu[r] = (c1 - c0) / T, wall[r] = w1 - w0;
        }
    } else if (!strcmp(argv[1], "load")) {
        /* the read-only stream: one vector sum over 256 MiB (as many bytes as the triad's
         * three arrays), each thread its own contiguous part; decode only reads */
        const size_t n = ((size_t)256 << 20) / 4, per = n / T / 128 * 128;
        float *a = hr_alloc(n * 4);
        volatile float sink = 0;
#pragma omp parallel for num_threads(T)
        for (size_t i = 0; i < n; i++) a[i] = 1.0f + (float)(i & 7);
        bytes = 4.0 * per * T;
        for (int r = -2; r < R; r++) {
            double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
            float s = 0;
#pragma omp parallel num_threads(T) reduction(+ : s)
            s += hr_isa_now()->load_sum(a + per * (size_t)omp_get_thread_num(), per);
            sink += s;
            double c1 = now(CLOCK_PROCESS_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
            if (r >= 0) cpu[r] = (c1 - c0) / T, wall[r] = w1 - w0;
        }
    } else {
        hr_problem p = {.batch = 1, .heads = 32, .kv_heads = 8, .seq_q = 1, .seq_kv = L, .d_head = 128};
        /* KV, or Q/KV for a Q (and O) of another type than f32: bf16/bf16 */
        const char *sl = strchr(argv[1], '/'), *kv = sl ? sl + 1 : argv[1];
        int kt = -1, qt = sl ? -1 : HR_F32;
        for (int i = 0; hr_dtype_names[i]; i++) {
            if (!strcmp(hr_dtype_names[i], kv)) kt = i;
            if (sl && strlen(hr_dtype_names[i]) == (size_t)(sl - argv[1]) && !strncmp(hr_dtype_names[i], argv[1], (size_t)(sl - argv[1]))) qt = i;
        }
        if (kt < 0 || qt < 0) return 2;
        p.kv_dtype = (hr_dtype)kt;
        p.dtype = (hr_dtype)qt;
        /* the caches the headroom binary hands the kernels (harness/cli/main.c): decode's
         * default block follows the L3 */
        hr_sysinfo_set_machine();
        const hr_kernel *k = hr_kernel_find("decode");
        hr_tune t0 = {.threads = T};
        if (argc > 5) t0.block_kv = atoi(argv[5]);
        hr_tune t = hr_kernel_tune(k, &p, &t0);
        hr_tensors ts;
        if (hr_tensors_alloc(&ts, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 1)) return 1;
        void *ws = hr_alloc(k->workspace_bytes(&p, &t) + 64);
        bytes = 2.0 * 8 * L * (double)hr_dtype_row_bytes(p.kv_dtype, 128);
        hr_args buf; /* the cache in tiles where decode asks, as headroom run hands it */
        const hr_args *a = hr_tensors_args(&ts, &p, k, &t, &buf);
        for (int r = -3; r < R; r++) {
            double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
            k->run(&p, &t, a, ws);
            double c1 = now(CLOCK_PROCESS_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
            if (r >= 0) cpu[r] = (c1 - c0) / T, wall[r] = w1 - w0;
        }
    }
    qsort(cpu, R, sizeof *cpu, cmpd);
    qsort(wall, R, sizeof *wall, cmpd);
    printf("cpu_med_ms %.4f cpu_min_ms %.4f wall_min_ms %.4f wall_med_ms %.4f GBps_cpu_med %.2f GBps_cpu_min %.2f GBps_wall_min %.2f\n",
           cpu[R / 2] * 1e3, cpu[0] * 1e3, wall[0] * 1e3, wall[R / 2] * 1e3, bytes / cpu[R / 2] * 1e-9,
           bytes / cpu[0] * 1e-9, bytes / wall[0] * 1e-9);
    return 0;
}

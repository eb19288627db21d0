/* calls.c — one kernel on one shape, timed per call by process CPU time: GFLOP per CPU-second per
 * core (min-time, median) beside wall-clock GFLOP/s. For an oversubscribed machine, where
 * wall-clock medians are noise (studies/flash-bf16-cputime.sh).
 * usage: calls KERNEL HEADS D_HEAD CAUSAL(0|1) DTYPE THREADS CALLS [BLOCK_KV]   (B1, N 2048) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "headroom.h"
#include "inputs.h"
#include "counts.h"
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static double wall(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    /* kernel H d causal dtype threads calls [block_kv] */
    const char *kn = argv[1];
    hr_problem p = {1, atoi(argv[2]), atoi(argv[2]), 2048, 2048, atoi(argv[3]), atoi(argv[4]), 0,
                    (hr_dtype)hr_choice(hr_dtype_names, argv[5]), (hr_dtype)hr_choice(hr_dtype_names, argv[5])};
    const hr_kernel *k = hr_kernel_find(kn);
    hr_tune req = {.threads = atoi(argv[6]), .block_kv = argc > 8 ? atoi(argv[8]) : 0};
    hr_tune t = hr_kernel_tune(k, &p, &req);
    hr_tensors ten;
    if (hr_tensors_alloc(&ten, &p, HR_LAYOUT_BHND, HR_DIST_NORMAL, 1)) return 2;
    void *ws = hr_alloc(k->workspace_bytes(&p, &t) + 64);
    int n = atoi(argv[7]);
    double *c = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    k->run(&p, &t, &ten.args, ws);
    for (int i = 0; i < n; i++) {
        double c0 = cpu(), w0 = wall();
        k->run(&p, &t, &ten.args, ws);
        c[i] = cpu() - c0, w[i] = wall() - w0;
    }
    qsort(c, n, sizeof *c, cmp), qsort(w, n, sizeof *w, cmp);
    double f = hr_core_flops(&p) / 1e9;
    printf("%s H%d d%d %s %s T%d: GFLOP/cpu-s min-time %.1f median %.1f (x threads %.1f / %.1f); wall GFLOP/s best %.1f median %.1f  [%s]\n",
           kn, p.heads, p.d_head, p.causal ? "causal" : "full", argv[5], t.threads, f / c[0], f / c[n / 2],
           f / c[0] * t.threads, f / c[n / 2] * t.threads, f / w[0], f / w[n / 2], hr_kernel_path(k, &p));
    return 0;
}

/* cmd_check.c — `headroom check`: every applicable kernel against the fp64 oracle over a
 * battery of odd shapes (N = 1, primes, d not a multiple of the vector width, MHA/GQA/MQA,
 * causal with Nq < Nkv, Nq = Nkv and Nq > Nkv, both layouts, all distributions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "commands.h"
#include "inputs.h"
#include "threads.h"

int cmd_check(int argc, char **argv)
{
    const char *kname = "all";
    bool quick = false, verbose = false;
    int threads = 0, block_q = 0, block_kv = 0;
    hr_timing_flags tf;
    hr_timing_flags_init(&tf, HR_TF_SEED);
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_STR, &kname, 0, 0, NULL, "NAME|all", "kernel to check (all)"},
        {"--quick", HR_OPT_FLAG, &quick, 0, 0, NULL, NULL, "the fast battery (no large shapes)"},
        {"--threads", HR_OPT_INT, &threads, 1, HR_THREADS_MAX, NULL, "T", "threads for threaded kernels (all CPUs)"},
        {"--block-q", HR_OPT_INT, &block_q, 1, 1 << 16, NULL, "BQ", "query rows per tile (each kernel's default)"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "keys per tile (each kernel's default)"},
        {"inputs", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL},
        {"--verbose", HR_OPT_FLAG, &verbose, 0, 0, NULL, NULL, "print every case, not only failures"},
        {NULL},
    };
    int st = hr_parse(argc, argv, opts, "check [--kernel NAME|all] [--quick]", NULL, 0, NULL);
    if (st < 0) return HR_OK;
    if (st) {
        fprintf(stderr, "headroom check: %s\n", hr_errmsg());
        return st;
    }
    if (threads && (st = hr_threads_check(threads, "--threads"))) {
        fprintf(stderr, "headroom check: %s\n", hr_errmsg());
        return st;
    }
    const hr_kernel *only = NULL;
    if (strcmp(kname, "all") && !(only = hr_kernel_find(kname))) {
        fprintf(stderr, "headroom check: %s\n", (hr_kernel_unknown("--kernel", kname), hr_errmsg()));
        return HR_EUSAGE;
    }
    hr_case cases[HR_MAX_CASES];
    int ncases = hr_battery(cases, HR_MAX_CASES, quick);
    long pass = 0, warn = 0, fail = 0, skip = 0;
    int nk = 0;
    for (int i = 0; hr_kernels[i]; i++) {
        const hr_kernel *k = hr_kernels[i];
        if (only && k != only) continue;
        nk++;
        long kfail = 0, kpass = 0, kwarn = 0, kskip = 0;
        for (int c = 0; c < ncases; c++) {
            hr_check res;
            char line[512];
            int v = hr_check_case(k, &cases[c], &(hr_tune){block_q, block_kv, threads}, (uint64_t)tf.seed, &res, line, sizeof line);
            if (v < 0) {
                kskip++;
                continue;
            }
            if (v == HR_CHECK_FAIL) kfail++, printf("FAIL %s\n", line);
            else if (v == HR_CHECK_WARN) kwarn++, printf("WARN %s\n", line);
            else {
                kpass++;
                if (verbose) printf("ok   %s\n", line);
            }
        }
        printf("%-8s %4ld pass %3ld warn %3ld fail %4ld not applicable\n", k->name, kpass, kwarn,
               kfail, kskip);
        pass += kpass, warn += kwarn, fail += kfail, skip += kskip;
        fflush(stdout);
    }
    printf("check: %d kernel(s), %d cases each: %ld pass, %ld warn, %ld fail, %ld not applicable\n",
           nk, ncases, pass, warn, fail, skip);
    return fail ? HR_EFAIL : HR_OK;
}

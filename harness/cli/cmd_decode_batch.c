/* cmd_decode_batch.c — `headroom decode-batch`: one ragged batch of sequences, each with
 * its own cache length and query rows, checked and timed (measure/ragged.h). */
#include <stdio.h>
#include <string.h>

#include <omp.h>

#include "bench.h"
#include "ceilings.h"
#include "cli.h"
#include "commands.h"
#include "counts.h"
#include "inputs.h"
#include "ragged.h"
#include "threads.h"

/* Where the batch's bytes live and the share of that level's bandwidth it reads at: the
 * level of its K/V bytes over the team (hr_ceiling_level_of), its read-only (load)
 * bandwidth, as decode only reads, and the triad beside it. */
static void print_level(const hr_ceilings *c, double bytes, double gbs, int threads)
{
    if (!c) {
        printf("no roofline ceilings (headroom roofline, or --ceilings FILE): no share of the level's bandwidth\n");
        return;
    }
    const int t = hr_ceiling_threads(c, threads), lv = hr_ceiling_level_of(c, bytes, threads);
    const double load = hr_ceiling_cache_load(c, threads, lv), triad = hr_ceiling_cache_bw(c, threads, lv);
    if (load > 0)
        printf("level: %.1f MiB live in %s: %.2f of its read-only bandwidth, %.1f GB/s at %d thread%s (triad %.1f; %s)\n",
               bytes / 1048576, hr_level_name(lv), gbs / load, load, t, t == 1 ? "" : "s", triad, c->path);
    else if (triad > 0)
        printf("level: %.1f MiB live in %s: %.2f of its triad, %.1f GB/s at %d thread%s (no load figure: an older "
               "ceilings file; %s)\n",
               bytes / 1048576, hr_level_name(lv), gbs / triad, triad, t, t == 1 ? "" : "s", c->path);
    else
        printf("level: %.1f MiB live in %s, whose bandwidth %s does not hold\n", bytes / 1048576, hr_level_name(lv),
               c->path);
}

int cmd_decode_batch(int argc, char **argv)
{
    const hr_kernel *k = hr_kernel_find("decode");
    const char *lens = NULL, *rows = NULL, *ceil_path = NULL;
    int batch = 0, heads = 32, kv_heads = 8, d = 128, lo = 128, hi = 32768, rows_max = 1, dist = -1;
    int threads = 0, reps = 5, seed = 1, sched = -1; /* unset: fused for decode, else serial */
    bool check = false;
    double max_mem = 0;
    hr_dtype_flags df;
    hr_dtype_flags_init(&df, NULL, NULL);
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_KERNEL, &k, 0, 0, NULL, "NAME", "the decode kernel (decode)"},
        {"--batch", HR_OPT_INT, &batch, 1, HR_RAGGED_MAX, NULL, "B", "sequences in the batch (--lens: its entries; --dist: 8)"},
        {"--lens", HR_OPT_STR, &lens, 0, 0, NULL, "L1,L2,..", "each sequence's cache length, B entries"},
        {"--rows", HR_OPT_STR, &rows, 0, 0, NULL, "R1,R2,..", "each sequence's query rows (1 each; one entry: all)"},
        {"--dist", HR_OPT_ENUM, &dist, 0, 0, hr_ragged_dist_names, NULL,
         "draw lengths instead: uniform, zipf (P(L) ~ 1/L), or chat (LMSYS-Chat-1M's lognormal)"},
        {"--len-min", HR_OPT_INT, &lo, 1, 1 << 30, NULL, "N", "least drawn length (128)"},
        {"--len-max", HR_OPT_INT, &hi, 1, 1 << 30, NULL, "N", "largest drawn length (32768)"},
        {"--rows-max", HR_OPT_INT, &rows_max, 1, 8, NULL, "R", "drawn query rows in 1..R (1)"},
        {"--seed", HR_OPT_INT, &seed, 0, 1 << 30, NULL, "S", "the draw's seed (1)"},
        {"--heads", HR_OPT_INT, &heads, 1, 4096, NULL, "H", "query heads (32)"},
        {"--kv-heads", HR_OPT_INT, &kv_heads, 1, 4096, NULL, "G", "KV heads, dividing --heads (8)"},
        {"--d", HR_OPT_INT, &d, 1, 4096, NULL, "D", "head size (128)"},
        {"--threads", HR_OPT_INT, &threads, 0, HR_THREADS_MAX, NULL, "T", "threads (0: all CPUs)"},
        {"--schedule", HR_OPT_ENUM, &sched, 0, 0, hr_ragged_schedule_names, NULL,
         "fused: one call, threads split by cost (decode's default); serial: sequence after sequence (other kernels' default)"},
        {"--reps", HR_OPT_INT, &reps, 1, 1000, NULL, "R", "timed repetitions of the whole batch (5)"},
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL, "check every sequence against the oracle first"},
        {"--ceilings", HR_OPT_STR, &ceil_path, 0, 0, NULL, "FILE",
         "roofline ceilings for the level's bandwidth (results/<machine>/ceilings.json)"},
        HR_MAX_MEM_OPT(&max_mem),
        HR_PLUGIN_OPT,
        {"types", HR_OPT_GROUP, df.opts, 0, 0, NULL, NULL, NULL},
        {NULL},
    };
    int st = hr_parse(argc, argv, opts, "decode-batch (--lens L,.. [--rows R,..] | --dist zipf|uniform|chat ...) [options]",
                      NULL, 0, NULL);
    if (st) return hr_cmd_status("decode-batch", st);
    static hr_ragged r;
    char err[200];
    if (batch == 0 && lens) {
        batch = 1;
        for (const char *c = lens; *c; c++) batch += *c == ',';
    } else if (batch == 0) {
        batch = 8;
    }
    if (lens && dist >= 0) {
        fprintf(stderr, "headroom decode-batch: --lens and --dist: give one of them\n");
        return 2;
    }
    if ((dist >= 0 ? hr_ragged_draw(&r, batch, (hr_ragged_dist)dist, lo, hi, rows_max, (uint64_t)seed, err, sizeof err)
                   : hr_ragged_parse(&r, batch, lens, rows, err, sizeof err))) {
        fprintf(stderr, "headroom decode-batch: %s\n", err);
        return 2;
    }
    hr_problem base = {1, heads, kv_heads, 1, 1, d, true, 0, HR_F32, HR_F32, 0, 0, 0, 0};
    hr_dtype_flags_apply(&df, &base);
    double need = 0;
    for (int i = 0; i < r.n; i++) {
        hr_problem p = hr_ragged_problem(&r, i, &base);
        if (hr_problem_validate(&p)) {
            fprintf(stderr, "headroom decode-batch: %s\n", hr_errmsg());
            return 2;
        }
        need += hr_tensors_bytes(&p);
    }
    const double budget = hr_mem_budget(max_mem);
    if (need > budget) {
        fprintf(stderr, "headroom decode-batch: --max-mem: the batch needs %.0f MiB, over the budget of %.0f MiB\n",
                need / 1048576, budget / 1048576);
        return 2;
    }
    if (sched < 0) /* a peer runs as its users run it: one call per sequence */
        sched = hr_ragged_why_not(k, HR_RAGGED_FUSED) ? HR_RAGGED_SERIAL : HR_RAGGED_FUSED;
    const char *why = hr_ragged_why_not(k, (hr_ragged_schedule)sched);
    if (why) {
        fprintf(stderr, "headroom decode-batch: %s\n", why);
        return 2;
    }
    static hr_ceilings ceil;
    bool have_ceil;
    if ((st = hr_ceilings_load_opt(ceil_path, &ceil, &have_ceil))) {
        fprintf(stderr, "headroom decode-batch: %s\n", hr_errmsg());
        return 2;
    }
    hr_tune t = {0};
    t.threads = threads;
    if (check) {
        int bad, v = hr_ragged_check(k, &r, &base, &t, 1, (hr_ragged_schedule)sched, &bad);
        if (v < 0 || v == HR_CHECK_FAIL) {
            printf("check: sequence %d (len %d, rows %d) %s\n", bad + 1, bad >= 0 ? r.len[bad] : 0,
                   bad >= 0 ? r.rows[bad] : 0, v == -1 ? "refused" : "FAILED");
            return 1;
        }
        printf("check: all %d sequences within tolerance\n", r.n);
    }
    static hr_ragged_time tm;
    if ((st = hr_ragged_run(k, &r, &base, &t, reps, (hr_ragged_schedule)sched, &tm))) {
        fprintf(stderr, "headroom decode-batch: %s\n", hr_errmsg());
        return 2;
    }
    long tokens = 0;
    double cost = 0; /* keys x rows: a sequence's share of the fused call's work */
    for (int i = 0; i < r.n; i++) cost += (double)r.len[i] * r.rows[i];
    if (sched == HR_RAGGED_SERIAL)
        printf("%5s  %8s  %4s  %10s  %10s  %8s\n", "seq", "cache", "rows", "ms", "tokens/s", "GB/s");
    else
        printf("%5s  %8s  %4s  %8s\n", "seq", "cache", "rows", "work %");
    for (int i = 0; i < r.n; i++) {
        hr_problem p = hr_ragged_problem(&r, i, &base);
        tokens += r.rows[i];
        if (sched == HR_RAGGED_SERIAL)
            printf("%5d  %8d  %4d  %10.4f  %10.1f  %8.2f\n", i + 1, r.len[i], r.rows[i], tm.seq_seconds[i] * 1e3,
                   r.rows[i] / tm.seq_seconds[i], hr_min_bytes(&p) / tm.seq_seconds[i] * 1e-9);
        else
            printf("%5d  %8d  %4d  %8.2f\n", i + 1, r.len[i], r.rows[i], 100.0 * r.len[i] * r.rows[i] / cost);
    }
    printf("total: %d sequences, %ld tokens in %.4f ms: %.1f tokens/s, %.1f MiB read at %.2f GB/s (kv %s, %s)\n",
           r.n, tokens, tm.seconds * 1e3, tokens / tm.seconds, tm.bytes / 1048576, tm.bytes / tm.seconds * 1e-9,
           hr_dtype_names[base.kv_dtype], hr_ragged_schedule_names[sched]);
    print_level(have_ceil ? &ceil : NULL, tm.bytes, tm.bytes / tm.seconds * 1e-9, threads > 0 ? threads : omp_get_max_threads());
    return 0;
}

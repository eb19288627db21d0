/* cmd_check.c — `headroom check`: every applicable kernel against the fp64 oracle over a
 * battery of odd shapes (N = 1, primes, d not a multiple of the vector width, MHA/GQA/MQA,
 * causal with Nq < Nkv, Nq = Nkv and Nq > Nkv, both layouts, all distributions), for
 * every element type combination the kernel declares, at 1, 2 and 3 threads where it
 * does threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "commands.h"
#include "files.h"
#include "inputs.h"
#include "result.h"
#include "threads.h"

/* Appends path p to the list in buf (" | " between) unless the list has it already. */
static void add_path(char *buf, size_t size, const char *p)
{
    if (!p || !p[0]) return;
    char list[2 * HR_PATH_LEN + 8], item[HR_PATH_LEN + 8]; /* "| a | b |" holds "| p |" */
    snprintf(list, sizeof list, "| %s |", buf);
    snprintf(item, sizeof item, "| %s |", p);
    if (strstr(list, item)) return;
    const size_t used = strlen(buf);
    if (used + 3 + strlen(p) >= size) return; /* full: the first paths stay */
    snprintf(buf + used, size - used, "%s%s", used ? " | " : "", p);
}

/* One kernel and type combination over the battery: its cases at each thread count, the
 * failures (every case with verbose) printed as they come. */
typedef struct {
    const hr_kernel *k;
    int dt, kt, nthreads, threads, block_q, block_kv;
    uint64_t seed;
    bool verbose;
    const hr_case *cases;
    int ncases;
} group;

typedef struct {
    long pass, warn, fail, skip;
    int errors;
    char path[2 * HR_PATH_LEN];
} group_result;

static void check_group(const group *g, group_result *o)
{
    memset(o, 0, sizeof *o);
    const int tl[3] = {1, 2, 3};
    bool broke = false; /* its run failed: reported once, the kernel's other cases left out */
    for (int ti = 0; ti < g->nthreads && !broke; ti++)
        for (int c = 0; c < g->ncases && !broke; c++) {
            hr_case cs = g->cases[c];
            cs.prob.dtype = (hr_dtype)g->dt;
            cs.prob.kv_dtype = (hr_dtype)g->kt;
            /* Every path the cases took, in order (a kernel may take several by shape:
             * decode's vdpbf16ps only where d % 32 == 0), joined by " | ". */
            if (!hr_kernel_why_not(g->k, &cs.prob)) add_path(o->path, sizeof o->path, hr_kernel_path(g->k, &cs.prob));
            hr_check res;
            char line[640];
            const hr_tune t = {g->block_q, g->block_kv, g->threads ? g->threads : tl[ti]};
            int v = hr_check_case(g->k, &cs, &t, g->seed, &res, line, sizeof line);
            if (v == HR_CHECK_ERROR) {
                fprintf(stderr, "headroom check: %s\n", line);
                o->fail++, o->errors++, broke = true;
                continue;
            }
            if (v < 0) {
                o->skip++;
                if (g->verbose && ti == 0) { /* once per case, with the kernel's reason */
                    char shape[96];
                    hr_problem_str(&cs.prob, shape, sizeof shape);
                    const char *why = hr_kernel_why_not(g->k, &cs.prob);
                    printf("n/a  %s %s %s: %s\n", g->k->name, shape, hr_layout_names[cs.layout],
                           why ? why : "not applicable");
                }
                continue;
            }
            if (v == HR_CHECK_FAIL) o->fail++, printf("FAIL %s\n", line);
            else if (v == HR_CHECK_WARN) o->warn++, printf("WARN %s\n", line);
            else {
                o->pass++;
                if (g->verbose) printf("ok   %s\n", line);
            }
            fflush(stdout); /* a worker that dies later keeps what it printed */
        }
}

static void serve_group(void *ctx, const void *req, size_t n, void *out, size_t *len)
{
    (void)req, (void)n;
    check_group(ctx, out);
    fflush(NULL); /* its lines, before the worker ends */
    *len = sizeof(group_result);
}

int cmd_check(int argc, char **argv)
{
    const char *kname = "all";
    bool quick = false, verbose = false;
    int threads = 0, block_q = 0, block_kv = 0;
    hr_timing_flags tf;
    hr_timing_flags_init(&tf, HR_TF_SEED);
    hr_worker_flags wk;
    hr_worker_flags_init(&wk, "600 per kernel and type combination");
    hr_dtype_flags types;
    hr_dtype_flags_init(&types, "only this Q/K/V/O type (every type a kernel declares)",
                        "only this K/V type (--dtype when only that is given)");
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_STR, &kname, 0, 0, NULL, "NAME|all", "kernel to check (all)"},
        {"--quick", HR_OPT_FLAG, &quick, 0, 0, NULL, NULL, "the fast battery (no large shapes)"},
        {"--threads", HR_OPT_INT, &threads, 1, HR_THREADS_MAX, NULL, "T", "threads for threaded kernels (1, 2 and 3 in turn)"},
        {"--block-q", HR_OPT_INT, &block_q, 1, 1 << 16, NULL, "BQ", "query rows per tile (each kernel's default)"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "keys per tile (each kernel's default)"},
        {"inputs", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL},
        {"types", HR_OPT_GROUP, types.opts, 0, 0, NULL, NULL, NULL},
        {"--verbose", HR_OPT_FLAG, &verbose, 0, 0, NULL, NULL, "print every case, not only failures (a refused one with its reason)"},
        {"workers", HR_OPT_GROUP, wk.opts, 0, 0, NULL, NULL, NULL},
        HR_PLUGIN_OPT,
        {NULL},
    };
    int st = hr_parse(argc, argv, opts, "check [--kernel NAME|all] [--quick]", NULL, 0, NULL);
    if (st) return hr_cmd_status("check", st);
    if (threads && (st = hr_threads_check(threads, "--threads"))) {
        fprintf(stderr, "headroom check: %s\n", hr_errmsg());
        return st;
    }
    const hr_kernel *only = NULL;
    if (strcmp(kname, "all") && !(only = hr_kernel_find(kname))) {
        fprintf(stderr, "headroom check: %s\n", (hr_kernel_unknown("--kernel", kname), hr_errmsg()));
        return HR_EUSAGE;
    }
    /* A type filter: --dtype and --kv-dtype as run reads them (K/V follow --dtype). */
    int want_dt = -1, want_kv = -1;
    if (types.dtype >= 0 || types.kv_dtype >= 0) {
        hr_problem tp = {0};
        hr_dtype_flags_apply(&types, &tp);
        want_dt = tp.dtype, want_kv = tp.kv_dtype;
    }
    hr_case cases[HR_MAX_CASES];
    int ncases = hr_battery(cases, HR_MAX_CASES, quick);
    long pass = 0, warn = 0, fail = 0, skip = 0;
    int nk = 0, nruns = 0, errors = 0, worst = 0; /* worst: a worker's failure (3 or 4) */
    const hr_kernel *k;
    for (int i = 0; (k = hr_kernel_at(i)); i++) {
        if (only && k != only) continue;
        nk++;
        const int nthreads = threads ? 1 : (k->caps & HR_CAP_THREADED) ? 3 : 1;
        const unsigned dts = k->dtypes ? k->dtypes : 1u << HR_F32, kvs = k->kv_dtypes ? k->kv_dtypes : 1u << HR_F32;
        for (int dt = 0; dt < HR_NDTYPES; dt++)
        for (int kt = 0; kt < HR_NDTYPES; kt++) {
            if (!(dts >> dt & 1) || !(kvs >> kt & 1)) continue;
            if (want_dt >= 0 && (dt != want_dt || kt != want_kv)) continue;
            nruns++;
            const group g = {k, dt, kt, nthreads, threads, block_q, block_kv, (uint64_t)tf.seed, verbose, cases, ncases};
            static group_result gr;
            hr_proc w;
            if (wk.in_process) {
                check_group(&g, &gr);
            } else if ((st = hr_proc_once(serve_group, (void *)&g, &gr, sizeof gr, wk.timeout > 0 ? wk.timeout : 600,
                                          &w))) {
                if (st != HR_EFAIL) return hr_cmd_status("check", st);
                char who[80];
                snprintf(who, sizeof who, "kernel %s", k->name);
                const int ws = hr_worker_failed("check", who, &w);
                worst = ws > worst ? ws : worst;
                memset(&gr, 0, sizeof gr);
                gr.fail = 1;
            }
            const long kpass = gr.pass, kwarn = gr.warn, kfail = gr.fail, kskip = gr.skip;
            errors += gr.errors;
            const char *path = gr.path;
            char tn[24];
            hr_dtype_seg(&(hr_problem){.dtype = (hr_dtype)dt, .kv_dtype = (hr_dtype)kt}, tn, sizeof tn);
            char th[16] = "T";
            if (threads) snprintf(th, sizeof th, "T%d", threads);
            else snprintf(th, sizeof th, nthreads == 3 ? "T1,2,3" : "T1");
            printf("%-8s %-13s %-7s %4ld pass %3ld warn %3ld fail %4ld not applicable  [%s]\n", k->name,
                   tn[0] ? tn + 1 : "f32", th, kpass, kwarn, kfail, kskip, path[0] ? path : "-");
            pass += kpass, warn += kwarn, fail += kfail, skip += kskip;
            fflush(stdout);
        }
    }
    if (!nruns) { /* a type filter that no kernel (or not the one named) declares */
        hr_problem p = {.dtype = (hr_dtype)want_dt, .kv_dtype = (hr_dtype)want_kv};
        char tn[24];
        hr_dtype_seg(&p, tn, sizeof tn);
        const char *flag = types.dtype >= 0 ? "--dtype" : "--kv-dtype";
        if (only) {
            /* hr_kernel_why_not's type reason, on a shape valid for every type. */
            p = (hr_problem){1, 1, 1, 1, 1, 64, false, 0, p.dtype, p.kv_dtype, 0, 0, 0, 0};
            const char *why = hr_kernel_why_not(only, &p);
            fprintf(stderr, "headroom check: %s: kernel %s cannot run %s: %s\n", flag, only->name, tn + 1,
                    why ? why : "not declared");
        } else {
            fprintf(stderr, "headroom check: %s: no kernel in this build takes %s\n", flag, tn + 1);
        }
        return HR_EUSAGE;
    }
    printf("check: %d kernel(s), %d type combination(s), %d cases each: %ld pass, %ld warn, %ld fail, %ld not applicable\n",
           nk, nruns, ncases, pass, warn, fail, skip);
    return worst ? worst : errors ? HR_EUSAGE : fail ? HR_EFAIL : HR_OK;
}

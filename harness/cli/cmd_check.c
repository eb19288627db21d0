/* cmd_check.c — `headroom check`: every applicable kernel against the fp64 oracle over a
 * battery of odd shapes (N = 1, primes, d not a multiple of the vector width, MHA/GQA/MQA,
 * causal with Nq < Nkv, Nq = Nkv and Nq > Nkv, both layouts, all distributions), for
 * every element type combination the kernel declares, at 1, 2 and 3 threads where it
 * does threads; then the variant battery (hr_variant_battery) for each variant a kernel
 * declares (window, softcap, alibi, the three at once), a variant it lacks skipped with
 * the reason. --window, --softcap, --alibi check only those variants, at those values;
 * a kernel named by --kernel that lacks one is refused (exit 2), not skipped.
 * --page-size P reads every case whose cache holds P keys or more through a paged cache
 * of P keys a block (a kernel without one likewise refused or skipped). */
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
    const char *variant; /* "" (the plain battery) or the variant battery's name */
} group;

/* The variant batteries: each variant alone, then the three at once. */
static const struct {
    const char *name;
    unsigned caps;
} variants[] = {
    {"window", HR_CAP_WINDOW},
    {"softcap", HR_CAP_SOFTCAP},
    {"alibi", HR_CAP_ALIBI},
    {"window+softcap+alibi", HR_CAP_WINDOW | HR_CAP_SOFTCAP | HR_CAP_ALIBI},
};
#define NVARIANTS ((int)(sizeof variants / sizeof *variants))

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

/* The totals over every group; worst: a worker's failure (3 or 4). */
typedef struct {
    long pass, warn, fail, skip;
    int errors, worst, vskip;
} tally;

/* Runs one group in a worker (or in process), prints its line and adds it to t.
 * HR_OK, or the status of a worker that could not be started. */
static int run_group(const group *g, const hr_worker_flags *wk, tally *t)
{
    static group_result gr;
    hr_proc w;
    int st;
    if (wk->in_process) {
        check_group(g, &gr);
    } else if ((st = hr_proc_once(serve_group, (void *)g, &gr, sizeof gr, wk->timeout > 0 ? wk->timeout : 600, &w))) {
        if (st != HR_EFAIL) return st;
        char who[80];
        snprintf(who, sizeof who, "kernel %s", g->k->name);
        const int ws = hr_worker_failed("check", who, &w);
        t->worst = ws > t->worst ? ws : t->worst;
        memset(&gr, 0, sizeof gr);
        gr.fail = 1;
    }
    t->errors += gr.errors;
    char tn[24];
    hr_dtype_seg(&(hr_problem){.dtype = (hr_dtype)g->dt, .kv_dtype = (hr_dtype)g->kt}, tn, sizeof tn);
    char th[16] = "T";
    if (g->threads) snprintf(th, sizeof th, "T%d", g->threads);
    else snprintf(th, sizeof th, g->nthreads == 3 ? "T1,2,3" : "T1");
    char ty[48]; /* the types, and the variant battery's name */
    snprintf(ty, sizeof ty, "%s%s%s", tn[0] ? tn + 1 : "f32", g->variant[0] ? " " : "", g->variant);
    printf("%-8s %-13s %-7s %4ld pass %3ld warn %3ld fail %4ld not applicable  [%s]\n", g->k->name, ty, th, gr.pass,
           gr.warn, gr.fail, gr.skip, gr.path[0] ? gr.path : "-");
    t->pass += gr.pass, t->warn += gr.warn, t->fail += gr.fail, t->skip += gr.skip;
    fflush(stdout);
    return HR_OK;
}

/* --page-size P: the cases whose cache holds P keys or more, each read through a paged
 * cache of P keys a block (the battery's own paged cases take P too); the count kept. */
static int page_cases(hr_case *c, int n, int P)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (c[i].prob.seq_kv >= P) {
            c[m] = c[i];
            c[m++].prob.page_size = P;
        }
    return m;
}

/* A kernel without what battery needs (why: hr_kernel_why_not's reason): refused with one
 * line (HR_EUSAGE) where the user named it for that battery, else skipped with the
 * reason (printed once, when print) and counted. */
static int lacking(const hr_kernel *k, bool named, const char *battery, const char *why, bool print, tally *t)
{
    if (named) {
        fprintf(stderr, "headroom check: kernel %s cannot run the %s battery: %s\n", k->name, battery, why);
        return HR_EUSAGE;
    }
    if (print) printf("%-8s %-13s skipped: %s\n", k->name, battery, why);
    t->vskip += print;
    return HR_OK;
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
    hr_variant_flags vf;
    hr_variant_flags_init(&vf);
    hr_opt_help(vf.opts, "--window", "only the sliding-window battery, with window W (causal)");
    hr_opt_help(vf.opts, "--softcap", "only the soft-cap battery, with cap C");
    hr_opt_help(vf.opts, "--alibi", "only the ALiBi battery, with max bias B");
    hr_opt_help(vf.opts, "--page-size", "read the battery's caches of P keys or more through a paged cache of P keys a block");
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
        {"variants", HR_OPT_GROUP, vf.opts, 0, 0, NULL, NULL, NULL},
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
    /* Variant flags: only the batteries of the variants given, at the values given. */
    hr_problem fixed = {0};
    hr_variant_flags_apply(&vf, &fixed);
    const unsigned fixed_caps = (fixed.window > 0 ? HR_CAP_WINDOW : 0) | (fixed.softcap > 0 ? HR_CAP_SOFTCAP : 0) |
                                (fixed.alibi > 0 ? HR_CAP_ALIBI : 0);
    char fixed_name[64];
    hr_problem_variants_str(&fixed, fixed_name, sizeof fixed_name);
    for (char *c = fixed_name; *c; c++) *c = *c == ' ' ? '-' : *c; /* "window-7-softcap-5" */
    memmove(fixed_name, fixed_name + (fixed_name[0] == '-'), strlen(fixed_name));
    const int P = fixed.page_size;
    if (P && (st = hr_page_size_check(P))) {
        fprintf(stderr, "headroom check: %s\n", hr_errmsg());
        return st;
    }
    hr_case cases[HR_MAX_CASES];
    int ncases = hr_battery(cases, HR_MAX_CASES, quick);
    if (P) {
        int nmax = 0;
        for (int i = 0; i < ncases; i++) nmax = cases[i].prob.seq_kv > nmax ? cases[i].prob.seq_kv : nmax;
        if (!(ncases = page_cases(cases, ncases, P))) {
            fprintf(stderr, "headroom check: --page-size: %d keys a block is over every cache of the%s battery (at most %d keys)\n",
                    P, quick ? " quick" : "", nmax);
            return HR_EUSAGE;
        }
    }
    static hr_case vcases[HR_MAX_CASES];
    tally t = {0};
    int nk = 0, nruns = 0;
    const hr_kernel *k;
    for (int i = 0; (k = hr_kernel_at(i)); i++) {
        if (only && k != only) continue;
        nk++;
        if (P && !(k->caps & HR_CAP_PAGED)) { /* a kernel without a paged cache: refused if named, else skipped */
            if ((st = lacking(k, only != NULL, "paged", hr_kernel_why_not(k, &cases[0].prob), true, &t))) return st;
            continue;
        }
        int kruns = 0; /* the kernel's type combinations so far */
        const int nthreads = threads ? 1 : (k->caps & HR_CAP_THREADED) ? 3 : 1;
        const unsigned dts = k->dtypes ? k->dtypes : 1u << HR_F32, kvs = k->kv_dtypes ? k->kv_dtypes : 1u << HR_F32;
        for (int dt = 0; dt < HR_NDTYPES; dt++)
        for (int kt = 0; kt < HR_NDTYPES; kt++) {
            if (!(dts >> dt & 1) || !(kvs >> kt & 1)) continue;
            if (want_dt >= 0 && (dt != want_dt || kt != want_kv)) continue;
            nruns++;
            const bool first = kruns++ == 0;
            /* The plain battery and each variant's; with variant flags only theirs. */
            int order[NVARIANTS + 1], norder = 0;
            if (fixed_caps) order[norder++] = NVARIANTS;
            else
                for (int v = -1; v < NVARIANTS; v++) order[norder++] = v;
            for (int oi = 0; oi < norder; oi++) {
                const int vi = order[oi];
                const unsigned vc = vi < 0 ? 0 : vi < NVARIANTS ? variants[vi].caps : fixed_caps;
                group g = {k, dt, kt, nthreads, threads, block_q, block_kv, (uint64_t)tf.seed, verbose, cases, ncases, ""};
                g.variant = vi < 0 ? "" : vi < NVARIANTS ? variants[vi].name : fixed_name;
                if (vc) {
                    g.ncases = hr_variant_battery(vcases, HR_MAX_CASES, vc, fixed_caps ? &fixed : NULL);
                    if (P) g.ncases = page_cases(vcases, g.ncases, P);
                    if (!g.ncases) continue; /* no cache of this battery holds a page */
                    g.cases = vcases;
                    /* A variant the kernel does not declare: skipped with its reason, not failed. */
                    hr_problem vp = vcases[0].prob;
                    vp.dtype = (hr_dtype)dt, vp.kv_dtype = (hr_dtype)kt;
                    const char *why = (k->caps & vc) == vc ? NULL : hr_kernel_why_not(k, &vp);
                    if (why) { /* once per kernel: the reason is the same for every type */
                        if ((st = lacking(k, only && fixed_caps, g.variant, why, first, &t))) return st;
                        continue;
                    }
                }
                if ((st = run_group(&g, &wk, &t))) return hr_cmd_status("check", st);
            }
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
    char vnote[80] = "";
    if (t.vskip) snprintf(vnote, sizeof vnote, ", %d kernel variant(s) skipped (capability not declared)", t.vskip);
    if (fixed_caps)
        printf("check: %d kernel(s), %d type combination(s), %s battery: %ld pass, %ld warn, %ld fail, %ld not "
               "applicable%s\n", nk, nruns, fixed_name, t.pass, t.warn, t.fail, t.skip, vnote);
    else
        printf("check: %d kernel(s), %d type combination(s), %d cases each%s and the variant batteries: %ld pass, %ld "
               "warn, %ld fail, %ld not applicable%s\n", nk, nruns, ncases, P ? " through a paged cache" : "", t.pass,
               t.warn, t.fail, t.skip, vnote);
    return t.worst ? t.worst : t.errors ? HR_EUSAGE : t.fail ? HR_EFAIL : HR_OK;
}

/* cmd_tune.c — `headroom tune`: search a kernel's tunables per shape, store the winners
 * as wisdom, and show tuned vs default speed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "config.h"
#include "sweep.h"
#include "sysinfo.h"
#include "threads.h"
#include "timer.h"
#include "tune.h"
#include "wisdom.h"

#define MAX_SHAPES 256

/* --config: a sweep config (configs/NAME.ini, config.h); the shapes are the distinct
 * (problem, layout) pairs of its product as hr_sweep_expand makes it. Its kernels,
 * threads and block lists are not used: those are what tune searches. */
static int load_config(const char *file, double scale, hr_problem *shapes, int *layouts, int *n)
{
    hr_sweep_config *c = malloc(sizeof *c);
    if (!c) return hr_fail("--config: out of memory");
    hr_sweep_point *pts = NULL;
    int np = 0, ndup = 0, st = hr_config_load(file, c);
    if (!st && c->mode != HR_MODE_ATTENTION)
        st = hr_fail("--config: %s is a layer-mode sweep; tune takes attention shapes", file);
    if (!st) st = hr_sweep_expand(c, NULL, 0, &pts, &np, &ndup);
    *n = 0;
    for (int i = 0; !st && i < np; i++) {
        hr_problem p = pts[i].prob;
        p.scale = (float)scale;
        int seen = 0;
        for (int j = 0; j < *n && !seen; j++) {
            const hr_problem *q = &shapes[j];
            seen = layouts[j] == (int)pts[i].layout && q->batch == p.batch && q->heads == p.heads &&
                   q->kv_heads == p.kv_heads && q->seq_q == p.seq_q && q->seq_kv == p.seq_kv &&
                   q->d_head == p.d_head && q->causal == p.causal && q->dtype == p.dtype &&
                   q->kv_dtype == p.kv_dtype;
        }
        if (seen) continue;
        if (*n == MAX_SHAPES) {
            st = hr_fail("--config: %s has more than %d shapes", file, MAX_SHAPES);
            break;
        }
        shapes[*n] = p;
        layouts[(*n)++] = pts[i].layout;
    }
    free(pts);
    free(c);
    return st;
}

static const char *const formats[] = {"table", "csv", NULL};

static int tune_call(const void *k, const void *s, void *out) { return hr_tune_run(k, s, out); }

/* One shape's search in a worker of its own (or here with in_process): hr_tune_run's
 * statuses, or HR_EWORKER with w's reason. */
static int tune_one(const hr_kernel *k, const hr_tune_spec *s, hr_tune_result *r, const hr_worker_flags *wk,
                    hr_proc *w)
{
    if (wk->in_process) return hr_tune_run(k, s, r);
    /* The search stops itself at its budget; the limit is for a kernel that does not return. */
    const double limit = wk->timeout > 0 ? wk->timeout : 60 + 10 * s->budget;
    const int st = hr_proc_run(tune_call, k, s, r, sizeof *r, limit, w);
    return st == HR_EFAIL ? HR_EWORKER : st;
}

int cmd_tune(int argc, char **argv)
{
    const hr_kernel *k = NULL;
    const char *config = NULL;
    hr_shape_flags shape;
    hr_timing_flags tf;
    hr_wisdom_flags wf;
    hr_shape_flags_init(&shape);
    hr_timing_flags_init(&tf, HR_TF_MIN_TIME | HR_TF_SEED | HR_TF_DIST);
    tf.min_time = 0.02;
    hr_opt_help(tf.opts, "--min-time", "seconds per timed sample (0.02)")->hi = 60;
    hr_wisdom_flags_init(&wf, false);
    hr_opt_help(wf.opts, "--wisdom", "wisdom file ($HEADROOM_WISDOM or results/<machine>/wisdom.json)");
    int threads = 0, block_q = 0, block_kv = 0;
    int strategy = HR_TUNE_COORD, rounds = 5;
    hr_format format = HR_FMT_TABLE;
    double budget = 60, margin = 0.03, max_mem = 0;
    bool dry = false, verbose = false;
    hr_worker_flags wk;
    hr_worker_flags_init(&wk, "60 + 10 times --budget per shape");
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_KERNEL, &k, 0, 0, NULL, "NAME", "kernel to tune (headroom list)"},
        {"shape", HR_OPT_GROUP, shape.opts, 0, 0, NULL, NULL, NULL},
        {"--config", HR_OPT_STR, &config, 0, 0, NULL, "FILE.ini", "shapes to tune from a sweep config (its batch heads kv_heads d_head seq seq_kv causal layout dtype kv_dtype)"},
        {"--threads", HR_OPT_INT, &threads, 1, HR_THREADS_MAX, NULL, "T", "hold threads at T (default: searched)"},
        {"--block-q", HR_OPT_INT, &block_q, 1, 1 << 16, NULL, "BQ", "hold block_q at BQ (default: searched)"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "hold block_kv at BKV (default: searched)"},
        {"--budget", HR_OPT_DOUBLE, &budget, 0.1, 86400, NULL, "SEC", "seconds per shape, final measurement included (60)"},
        {"--strategy", HR_OPT_ENUM, &strategy, 0, 0, hr_tune_strategy_names, NULL, "coordinate descent or successive halving (coord)"},
        {"--rounds", HR_OPT_INT, &rounds, 3, HR_MAX_REPS / 2, NULL, "R", "interleaved rounds per comparison (5)"},
        {"--margin", HR_OPT_DOUBLE, &margin, 0, 1, NULL, "F", "a candidate must be faster by this fraction (0.03)"},
        {"timing", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL},
        HR_MAX_MEM_OPT(&max_mem),
        {"wisdom", HR_OPT_GROUP, wf.opts, 0, 0, NULL, NULL, NULL},
        {"--dry-run", HR_OPT_FLAG, &dry, 0, 0, NULL, NULL, "search and report, but write no wisdom"},
        {"--verbose", HR_OPT_FLAG, &verbose, 0, 0, NULL, NULL, "one line per checked/timed candidate on stderr"},
        HR_FORMAT_OPT(&format, formats),
        {"workers", HR_OPT_GROUP, wk.opts, 0, 0, NULL, NULL, NULL},
        HR_PLUGIN_OPT,
        {NULL},
    };
    const char *syn = "tune --kernel NAME [shape flags | --config FILE.ini] [--budget SEC] [options]";
    hr_problem *shapes = NULL;
    int *layouts = NULL, nshapes = 0, st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st < 0) return HR_OK;
    if (st) goto err;
    if (!k) {
        st = hr_fail("--kernel: required (see headroom list)");
        goto err;
    }
    if (rounds % 2 == 0) {
        st = hr_fail("--rounds: must be odd so a majority exists, got %d", rounds);
        goto err;
    }
    shapes = calloc(MAX_SHAPES, sizeof *shapes);
    layouts = calloc(MAX_SHAPES, sizeof *layouts);
    if (!shapes || !layouts) {
        st = hr_fail("out of memory");
        goto err;
    }
    if (config) {
        /* The config's lists are the shapes: a shape flag beside them would be ignored. */
        const char *f = hr_opt_given(argc, argv, shape.opts, "--scale");
        if (f) {
            st = hr_fail("%s: not with --config (the config's lists give the shapes; edit them or drop --config)", f);
            goto err;
        }
        if ((st = load_config(config, shape.scale, shapes, layouts, &nshapes))) goto err;
        if (shape.types.dtype >= 0 || shape.types.kv_dtype >= 0) /* the flags replace the config's types */
            for (int i = 0; i < nshapes; i++) hr_dtype_flags_apply(&shape.types, &shapes[i]);
    } else {
        shapes[0] = hr_shape_flags_problem(&shape);
        layouts[0] = shape.layout;
        nshapes = 1;
    }
    const char *wisdom = wf.path ? wf.path : hr_wisdom_default_path();

    hr_tune_result *r = malloc(sizeof *r);
    if (!r) {
        st = hr_fail("out of memory");
        goto err;
    }
    if (format == HR_FMT_TABLE)
        printf("%-8s %-28s %-20s %-20s %10s %10s %8s %5s %5s %5s %7s\n", "kernel", "shape", "default",
               "tuned", "def GF/s", "tuned GF/s", "speedup", "chkd", "rej", "timed", "sec");
    else
        printf("kernel,batch,heads,kv_heads,seq_q,seq_kv,d_head,causal,layout,strategy,"
               "def_block_q,def_block_kv,def_threads,block_q,block_kv,threads,def_gflops,"
               "tuned_gflops,speedup,final_rounds,checked,rejected,timed,budget_spent,seconds\n");
    int failed = 0, worst = 0; /* worst: a worker's failure (3 or 4) */
    for (int i = 0; i < nshapes; i++) {
        hr_tune_spec s = {
            .prob = shapes[i],
            .layout = (hr_layout)layouts[i],
            .dist = (hr_dist)tf.dist,
            .seed = (uint64_t)tf.seed,
            .fixed = {block_q, block_kv, threads},
            .budget = budget,
            .strategy = (hr_tune_strategy)strategy,
            .rounds = rounds,
            .margin = margin,
            .min_time = tf.min_time,
            .max_mem = max_mem,
            .log = verbose ? stderr : NULL,
        };
        char desc[96];
        hr_problem_str(&s.prob, desc, sizeof desc);
        if (s.layout == HR_LAYOUT_BNHD) strncat(desc, " bnhd", sizeof desc - strlen(desc) - 1);
        hr_proc w;
        st = tune_one(k, &s, r, &wk, &w);
        if (st == HR_EWORKER) {
            char who[160];
            snprintf(who, sizeof who, "%s: kernel %s", desc, k->name);
            const int ws = hr_worker_failed("tune", who, &w);
            worst = ws > worst ? ws : worst;
            continue;
        }
        if (st == HR_EFAIL) {
            fprintf(stderr, "headroom tune: %s: %s\n", desc, hr_errmsg());
            failed = 1;
            continue;
        }
        if (st) {
            free(r);
            goto err;
        }
        for (int j = 0; j < r->ncands; j++)
            if (r->cands[j].verdict == HR_CHECK_FAIL ||
                (r->cands[j].verdict > r->cands[0].verdict && r->cands[j].verdict >= 0)) {
                char ts[64];
                hr_tune_str(k, &r->cands[j].tune, ts, sizeof ts);
                fprintf(stderr, "headroom tune: %s: rejected %s: oracle check %s (max_rel %.3g)\n",
                        desc, ts, hr_check_names[r->cands[j].verdict], r->cands[j].max_rel_err);
            }
        if (r->budget_spent)
            fprintf(stderr, "headroom tune: %s: budget of %.1f s spent before the search converged "
                    "(%d candidates timed); raise --budget for a fuller search\n",
                    desc, budget, r->ntimed);
        char ds[64], bs[64];
        hr_tune_str(k, &r->def, ds, sizeof ds);
        hr_tune_str(k, &r->best, bs, sizeof bs);
        if (format == HR_FMT_TABLE)
            printf("%-8s %-28s %-20s %-20s %10.2f %10.2f %7.3fx %5d %5d %5d %7.1f\n", k->name, desc,
                   ds, bs, r->def_gflops, r->best_gflops, r->speedup, r->nchecked, r->nrejected,
                   r->ntimed, r->elapsed);
        else
            printf("%s,%d,%d,%d,%d,%d,%d,%d,%s,%s,%d,%d,%d,%d,%d,%d,%.6g,%.6g,%.5f,%d,%d,%d,%d,%d,%.2f\n",
                   k->name, s.prob.batch, s.prob.heads, s.prob.kv_heads, s.prob.seq_q, s.prob.seq_kv,
                   s.prob.d_head, s.prob.causal, hr_layout_names[s.layout],
                   hr_tune_strategy_names[strategy], r->def.block_q, r->def.block_kv, r->def.threads,
                   r->best.block_q, r->best.block_kv, r->best.threads, r->def_gflops, r->best_gflops,
                   r->speedup, r->final_rounds, r->nchecked, r->nrejected, r->ntimed,
                   r->budget_spent, r->elapsed);
        fflush(stdout);
        if (dry) continue;
        hr_wisdom_entry e = {.tune = r->best, .fixed_threads = threads, .gflops = r->best_gflops,
                             .default_gflops = r->def_gflops};
        if ((st = hr_wisdom_store(wisdom, k, &s.prob, &e))) {
            free(r);
            goto err;
        }
    }
    free(r);
    if (format == HR_FMT_TABLE)
        printf("speedup = median over %s interleaved rounds of t(default)/t(tuned), measured after the "
               "search; GF/s are the medians of the same rounds\n",
               rounds < 7 ? "7" : "--rounds");
    if (!dry) fprintf(stderr, "headroom tune: wisdom written to %s\n", wisdom);
    free(shapes);
    free(layouts);
    return worst ? worst : failed ? HR_EFAIL : HR_OK;
err:
    free(shapes);
    free(layouts);
    fprintf(stderr, "headroom tune: %s\n", hr_errmsg());
    return st;
}

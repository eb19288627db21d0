/* cmd_tune.c — `headroom tune`: search a kernel's tunables per shape, store the winners
 * as wisdom, and show tuned vs default speed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "cli.h"
#include "commands.h"
#include "sysinfo.h"
#include "timer.h"
#include "tune.h"
#include "wisdom.h"

#define MAX_SHAPES 256
#define MAX_VALS 32

/* --config: every [section] is a set of shapes; each key may hold a comma-separated
 * list and the set is their cross product. Keys not given come from the flags. */
static const char *const shape_keys[] = {"batch", "heads", "kv_heads", "seq", "seq_kv", "d_head",
                                         "causal", "layout", NULL};
enum { K_B, K_H, K_G, K_N, K_M, K_D, K_CAUSAL, K_LAYOUT, NKEYS };

typedef struct {
    char name[64];
    int nv[NKEYS];
    int v[NKEYS][MAX_VALS];
} shape_set;

typedef struct {
    const char *file;
    shape_set sets[32];
    int nsets;
    char err[256];
} ini_ctx;

static int parse_val(int key, const char *s, int *out)
{
    if (key == K_CAUSAL) {
        if (!strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "yes")) return *out = 1, 1;
        if (!strcmp(s, "0") || !strcmp(s, "false") || !strcmp(s, "no")) return *out = 0, 1;
        return 0;
    }
    if (key == K_LAYOUT) return (*out = hr_choice(hr_layout_names, s)) >= 0;
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < 1 || x > HR_MAX_SEQ) return 0;
    *out = (int)x;
    return 1;
}

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
    ini_ctx *c = user;
    int key = hr_choice(shape_keys, name);
    if (key < 0) {
        snprintf(c->err, sizeof c->err, "unknown key '%s' (shape keys: batch heads kv_heads seq "
                 "seq_kv d_head causal layout)", name);
        return 0;
    }
    shape_set *s = c->nsets ? &c->sets[c->nsets - 1] : NULL;
    if (!s || strcmp(s->name, section)) {
        if (c->nsets == 32) {
            snprintf(c->err, sizeof c->err, "more than 32 sections");
            return 0;
        }
        s = &c->sets[c->nsets++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", section);
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    s->nv[key] = 0;
    for (char *tok = strtok(buf, ", \t"); tok; tok = strtok(NULL, ", \t")) {
        if (s->nv[key] == MAX_VALS) {
            snprintf(c->err, sizeof c->err, "%s: more than %d values", name, MAX_VALS);
            return 0;
        }
        if (!parse_val(key, tok, &s->v[key][s->nv[key]])) {
            snprintf(c->err, sizeof c->err, "%s: bad value '%s'", name, tok);
            return 0;
        }
        s->nv[key]++;
    }
    return 1;
}

/* Expands the config into shapes; base supplies keys a section omits. */
static int load_config(const char *file, const hr_problem *base, int base_layout, hr_problem *shapes,
                       int *layouts, int *n)
{
    ini_ctx *c = calloc(1, sizeof *c);
    if (!c) return hr_fail("--config: out of memory");
    c->file = file;
    int line = ini_parse(file, on_ini, c);
    if (line < 0) {
        free(c);
        return hr_fail("--config: cannot open %s", file);
    }
    if (line > 0) {
        int st = hr_fail("--config: %s:%d: %s", file, line, c->err[0] ? c->err : "syntax error");
        free(c);
        return st;
    }
    *n = 0;
    for (int i = 0; i < c->nsets; i++) {
        shape_set *s = &c->sets[i];
        const int basev[NKEYS] = {base->batch, base->heads, base->kv_heads, base->seq_q,
                                  base->seq_kv, base->d_head, base->causal, base_layout};
        for (int k = 0; k < NKEYS; k++)
            if (!s->nv[k]) s->nv[k] = 1, s->v[k][0] = basev[k];
        /* kv_heads and seq_kv default to heads and seq of the same shape when the flags
         * did not set them (base value 0). */
        long total = 1;
        for (int k = 0; k < NKEYS; k++) total *= s->nv[k];
        for (long idx = 0; idx < total; idx++) {
            if (*n == MAX_SHAPES) {
                free(c);
                return hr_fail("--config: %s expands to more than %d shapes", file, MAX_SHAPES);
            }
            int v[NKEYS];
            long r = idx;
            for (int k = 0; k < NKEYS; k++) v[k] = s->v[k][r % s->nv[k]], r /= s->nv[k];
            shapes[*n] = (hr_problem){v[K_B], v[K_H], v[K_G] ? v[K_G] : v[K_H], v[K_N],
                                      v[K_M] ? v[K_M] : v[K_N], v[K_D], v[K_CAUSAL] != 0, base->scale};
            layouts[*n] = v[K_LAYOUT];
            (*n)++;
        }
    }
    free(c);
    if (!*n) return hr_fail("--config: %s defines no shapes", file);
    return HR_OK;
}

static const char *const formats[] = {"table", "csv", NULL};

int cmd_tune(int argc, char **argv)
{
    const char *kname = NULL, *config = NULL, *wisdom = NULL;
    int batch = 1, heads = 8, kv_heads = 0, seq = 512, seq_kv = 0, d = 64, threads = 0;
    int seed = 1, dist = HR_DIST_NORMAL, layout = HR_LAYOUT_BHND, block_q = 0, block_kv = 0;
    int strategy = HR_TUNE_COORD, rounds = 5, format = 0;
    double budget = 60, margin = 0.03, min_time = 0.02, max_mem = 0, scale = 0;
    bool causal = false, dry = false, verbose = false;
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_STR, &kname, 0, 0, NULL, "NAME", "kernel to tune (headroom list)"},
        {"--batch", HR_OPT_INT, &batch, 1, HR_MAX_BATCH, NULL, "B", "batch size (1)"},
        {"--heads", HR_OPT_INT, &heads, 1, HR_MAX_HEADS, NULL, "H", "query heads (8)"},
        {"--kv-heads", HR_OPT_INT, &kv_heads, 1, HR_MAX_HEADS, NULL, "G", "KV heads, divides H (H)"},
        {"--seq", HR_OPT_INT, &seq, 1, HR_MAX_SEQ, NULL, "N", "query rows Nq (512)"},
        {"--seq-kv", HR_OPT_INT, &seq_kv, 1, HR_MAX_SEQ, NULL, "M", "key rows Nkv (N)"},
        {"--d-head", HR_OPT_INT, &d, 1, HR_MAX_DHEAD, NULL, "D", "head dimension (64)"},
        {"--scale", HR_OPT_DOUBLE, &scale, 0, 1e30, NULL, "S", "softmax scale (1/sqrt(D))"},
        {"--causal", HR_OPT_FLAG, &causal, 0, 0, NULL, NULL, "causal mask, bottom-right aligned"},
        {"--layout", HR_OPT_ENUM, &layout, 0, 0, hr_layout_names, NULL, "tensor layout (bhnd)"},
        {"--config", HR_OPT_STR, &config, 0, 0, NULL, "FILE.ini", "shapes to tune: [sections] of keys batch heads kv_heads seq seq_kv d_head causal layout, lists allowed"},
        {"--threads", HR_OPT_INT, &threads, 1, 1024, NULL, "T", "hold threads at T (default: searched)"},
        {"--block-q", HR_OPT_INT, &block_q, 1, 1 << 16, NULL, "BQ", "hold block_q at BQ (default: searched)"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "hold block_kv at BKV (default: searched)"},
        {"--budget", HR_OPT_DOUBLE, &budget, 0.1, 86400, NULL, "SEC", "seconds per shape, final measurement included (60)"},
        {"--strategy", HR_OPT_ENUM, &strategy, 0, 0, hr_tune_strategy_names, NULL, "coordinate descent or successive halving (coord)"},
        {"--rounds", HR_OPT_INT, &rounds, 3, HR_MAX_REPS / 2, NULL, "R", "interleaved rounds per comparison (5)"},
        {"--margin", HR_OPT_DOUBLE, &margin, 0, 1, NULL, "F", "a candidate must be faster by this fraction (0.03)"},
        {"--min-time", HR_OPT_DOUBLE, &min_time, 0, 60, NULL, "SEC", "seconds per timed sample (0.02)"},
        {"--seed", HR_OPT_INT, &seed, 0, 2147483647, NULL, "S", "input seed (1)"},
        {"--dist", HR_OPT_ENUM, &dist, 0, 0, hr_dist_names, NULL, "input distribution (normal)"},
        {"--max-mem", HR_OPT_BYTES, &max_mem, 1, 1e18, NULL, "BYTES", "memory budget (half of RAM)"},
        {"--wisdom", HR_OPT_STR, &wisdom, 0, 0, NULL, "FILE", "wisdom file ($HEADROOM_WISDOM or results/<machine>/wisdom.json)"},
        {"--dry-run", HR_OPT_FLAG, &dry, 0, 0, NULL, NULL, "search and report, but write no wisdom"},
        {"--verbose", HR_OPT_FLAG, &verbose, 0, 0, NULL, NULL, "one line per checked/timed candidate on stderr"},
        {"--format", HR_OPT_ENUM, &format, 0, 0, formats, NULL, "output format (table)"},
        {NULL},
    };
    const char *syn = "tune --kernel NAME [shape flags | --config FILE.ini] [--budget SEC] [options]";
    hr_problem *shapes = NULL;
    int *layouts = NULL, nshapes = 0, st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st < 0) return HR_OK;
    if (st) goto err;
    if (!kname) {
        st = hr_fail("--kernel: required (see headroom list)");
        goto err;
    }
    const hr_kernel *k = hr_kernel_find(kname);
    if (!k) {
        st = hr_fail("--kernel: unknown kernel '%s' (see headroom list)", kname);
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
    hr_problem base = {batch, heads, kv_heads, seq, seq_kv, d, causal, (float)scale};
    if (config) {
        if ((st = load_config(config, &base, layout, shapes, layouts, &nshapes))) goto err;
    } else {
        base.kv_heads = kv_heads ? kv_heads : heads;
        base.seq_kv = seq_kv ? seq_kv : seq;
        shapes[0] = base;
        layouts[0] = layout;
        nshapes = 1;
    }
    if (!wisdom) wisdom = hr_wisdom_default_path();

    hr_tune_result *r = malloc(sizeof *r);
    if (!r) {
        st = hr_fail("out of memory");
        goto err;
    }
    if (format == 0)
        printf("%-8s %-28s %-20s %-20s %10s %10s %8s %5s %5s %5s %7s\n", "kernel", "shape", "default",
               "tuned", "def GF/s", "tuned GF/s", "speedup", "chkd", "rej", "timed", "sec");
    else
        printf("kernel,batch,heads,kv_heads,seq_q,seq_kv,d_head,causal,layout,strategy,"
               "def_block_q,def_block_kv,def_threads,block_q,block_kv,threads,def_gflops,"
               "tuned_gflops,speedup,final_rounds,checked,rejected,timed,budget_spent,seconds\n");
    int failed = 0;
    for (int i = 0; i < nshapes; i++) {
        hr_tune_spec s = {
            .prob = shapes[i],
            .layout = (hr_layout)layouts[i],
            .dist = (hr_dist)dist,
            .seed = (uint64_t)seed,
            .fixed = {block_q, block_kv, threads},
            .budget = budget,
            .strategy = (hr_tune_strategy)strategy,
            .rounds = rounds,
            .margin = margin,
            .min_time = min_time,
            .max_mem = max_mem,
            .log = verbose ? stderr : NULL,
        };
        char shape[96];
        hr_problem_str(&s.prob, shape, sizeof shape);
        if (s.layout == HR_LAYOUT_BNHD) strncat(shape, " bnhd", sizeof shape - strlen(shape) - 1);
        st = hr_tune_run(k, &s, r);
        if (st == HR_EFAIL) {
            fprintf(stderr, "headroom tune: %s: %s\n", shape, hr_errmsg());
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
                        shape, ts, hr_check_names[r->cands[j].verdict], r->cands[j].max_rel_err);
            }
        if (r->budget_spent)
            fprintf(stderr, "headroom tune: %s: budget of %.1f s spent before the search converged "
                    "(%d candidates timed); raise --budget for a fuller search\n",
                    shape, budget, r->ntimed);
        char ds[64], bs[64];
        hr_tune_str(k, &r->def, ds, sizeof ds);
        hr_tune_str(k, &r->best, bs, sizeof bs);
        if (format == 0)
            printf("%-8s %-28s %-20s %-20s %10.2f %10.2f %7.3fx %5d %5d %5d %7.1f\n", k->name, shape,
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
    if (format == 0)
        printf("speedup = median over %s interleaved rounds of t(default)/t(tuned), measured after the "
               "search; GF/s are the medians of the same rounds\n",
               rounds < 7 ? "7" : "--rounds");
    if (!dry) fprintf(stderr, "headroom tune: wisdom written to %s\n", wisdom);
    free(shapes);
    free(layouts);
    return failed ? HR_EFAIL : HR_OK;
err:
    free(shapes);
    free(layouts);
    fprintf(stderr, "headroom tune: %s\n", hr_errmsg());
    return st;
}

/* cmd_decode_loop.c — `headroom decode-loop`: token-by-token generation over a growing KV cache, timed step by step. */
/*
 * The simulation: a prompt of P tokens is already in every layer's cache (filled in
 * place, untimed). Then each of T steps, for every layer: append the new token's K and
 * V (a copy, as a model writes its projection output into the cache) and run the
 * attention kernel for the new query against the whole cache, zero-copy through the
 * cache's views. A step's time is that loop over the layers; its attention time is the
 * kernel calls alone. Projections, MLP and sampling are not simulated: tokens/s here is
 * the attention ceiling of generation, the part that grows with the context.
 * The new tokens' Q/K/V come from a small pool of pre-generated rows, so the PRNG is
 * never timed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "sysinfo.h"
#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "counts.h"
#include "headroom.h"
#include "inputs.h"
#include "kvcache.h"
#include "models.h"
#include "oracle.h"
#include "roofline.h"
#include "timer.h"

static const char *const formats[] = {"table", "csv", "json", NULL};

#define POOL 8 /* distinct new-token rows, cycled */

typedef struct {
    int first, last;    /* steps [first, last]                               */
    int len0, len1;     /* cache length seen by the first and last step      */
    double step_med, step_min, attn_med, tokens_per_s, kv_gbps;
} range_row;

/* A [B][H][POOL][d] dense pool and the view of its row `slot` as one-row tensor. */
static hr_cview pool_row(hr_view pool, int slot)
{
    return (hr_cview){pool.p + slot * pool.sn, pool.sb, pool.sh, pool.sn};
}

static void ranges(const double *step, const double *attn, const double *bytes, int T, int P,
                   int nrows, range_row *out)
{
    for (int r = 0; r < nrows; r++) {
        int a = (int)((long)T * r / nrows), b = (int)((long)T * (r + 1) / nrows);
        range_row *o = &out[r];
        double st = 0, at = 0, by = 0;
        for (int s = a; s < b; s++) st += step[s], at += attn[s], by += bytes[s];
        hr_summary sum;
        hr_summarize(step + a, b - a, &sum);
        o->step_med = sum.median;
        o->step_min = sum.min;
        hr_summarize(attn + a, b - a, &sum);
        o->attn_med = sum.median;
        o->first = a;
        o->last = b - 1;
        o->len0 = P + a + 1;
        o->len1 = P + b;
        o->tokens_per_s = st > 0 ? (b - a) / st : 0;
        o->kv_gbps = at > 0 ? by / at * 1e-9 : 0;
    }
}

int cmd_decode_loop(int argc, char **argv)
{
    const hr_kernel *k = hr_kernel_find("decode");
    const char *model = NULL, *models_flag = NULL, *ceil_path = NULL;
    int heads = 0, kv_heads = 0, d = 0, layers = 0, batch = 1, prompt = 2048, tokens = 64;
    int threads = 0, block_kv = 0, seed = 1, dist = HR_DIST_NORMAL, nrows = 8, format = 0;
    double max_mem = 0;
    bool check = false;
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_KERNEL, &k, 0, 0, NULL, "NAME", "attention kernel (decode)"},
        {"--model", HR_OPT_STR, &model, 0, 0, NULL, "NAME",
         "take heads, kv-heads, d-head, layers from a preset (headroom kvcache)"},
        {"--models", HR_OPT_STR, &models_flag, 0, 0, NULL, "FILE", "model presets (configs/model-presets.ini)"},
        {"--heads", HR_OPT_INT, &heads, 1, HR_MAX_HEADS, NULL, "H", "query heads (32)"},
        {"--kv-heads", HR_OPT_INT, &kv_heads, 1, HR_MAX_HEADS, NULL, "G", "KV heads, divides H (8)"},
        {"--d-head", HR_OPT_INT, &d, 1, HR_MAX_DHEAD, NULL, "D", "head dimension (128)"},
        {"--layers", HR_OPT_INT, &layers, 1, 4096, NULL, "L", "layers, each with its own cache (4)"},
        {"--batch", HR_OPT_INT, &batch, 1, HR_MAX_BATCH, NULL, "B", "sequences generated together (1)"},
        {"--prompt", HR_OPT_INT, &prompt, 0, HR_MAX_SEQ - 1, NULL, "P", "tokens in the cache before the first step (2048)"},
        {"--tokens", HR_OPT_INT, &tokens, 1, 1 << 20, NULL, "T", "tokens to generate (64)"},
        {"--threads", HR_OPT_INT, &threads, 1, 1024, NULL, "T", "threads (OMP_NUM_THREADS or all CPUs)"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "keys per tile (kernel default)"},
        {"--seed", HR_OPT_INT, &seed, 0, 2147483647, NULL, "S", "input seed (1)"},
        {"--dist", HR_OPT_ENUM, &dist, 0, 0, hr_dist_names, NULL, "input distribution (normal)"},
        {"--rows", HR_OPT_INT, &nrows, 1, 1 << 20, NULL, "R", "step ranges reported (8; at most --tokens)"},
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL,
         "after the loop, check every layer's last step against the oracle; exit 1 if it fails"},
        {"--max-mem", HR_OPT_BYTES, &max_mem, 1, 1e18, NULL, "BYTES", "memory budget (half of RAM)"},
        {"--ceilings", HR_OPT_STR, &ceil_path, 0, 0, NULL, "FILE",
         "roofline ceilings for % of triad (results/<machine>/ceilings.json if present)"},
        {"--format", HR_OPT_ENUM, &format, 0, 0, formats, NULL, "output format (table)"},
        {NULL},
    };
    const char *syn = "decode-loop [--model NAME | --heads H --kv-heads G --d-head D --layers L] "
                      "[--prompt P] [--tokens T] [options]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st < 0) return HR_OK;
    if (st) goto err;

    /* The triad ceiling puts GB/s in proportion: given file must load; the default
     * one is optional. */
    static hr_ceilings ceilings;
    char defpath[512];
    bool have_ceil = false;
    if (ceil_path) {
        if ((st = hr_ceilings_load(ceil_path, &ceilings))) goto err;
        have_ceil = true;
    } else {
        hr_ceilings_default_path(defpath, sizeof defpath);
        have_ceil = access(defpath, R_OK) == 0 && hr_ceilings_load(defpath, &ceilings) == HR_OK;
    }
    if (model) {
        hr_models ms;
        if ((st = hr_models_open(models_flag, &ms))) goto err;
        const hr_model *m = hr_models_find(&ms, model);
        if (m) {
            heads = heads ? heads : m->heads;
            kv_heads = kv_heads ? kv_heads : m->kv_heads;
            d = d ? d : m->d_head;
            layers = layers ? layers : m->layers;
        }
        hr_models_free(&ms);
        if (!m) {
            st = hr_fail("--model: unknown model '%s' (see headroom kvcache)", model);
            goto err;
        }
    }
    heads = heads ? heads : 32;
    kv_heads = kv_heads ? kv_heads : heads >= 8 && heads % 8 == 0 ? 8 : heads;
    d = d ? d : 128;
    layers = layers ? layers : 4;
    if (nrows > tokens) nrows = tokens;
    const long capacity = (long)prompt + tokens;
    if (capacity > HR_MAX_SEQ) {
        st = hr_fail("--tokens: prompt + tokens = %ld exceeds %d", capacity, HR_MAX_SEQ);
        goto err;
    }

    /* One decode step's problem; seq_kv is set per step. */
    hr_problem p = {batch, heads, kv_heads, 1, (int)capacity, d, true, 0};
    if ((st = hr_problem_validate(&p))) goto err;
    const char *why = k->applicable ? k->applicable(&p) : NULL;
    if (why) {
        st = hr_fail("--kernel: %s cannot run this shape: %s", k->name, why);
        goto err;
    }
    hr_tune tune = hr_kernel_tune(k, &p, &(hr_tune){0, block_kv, threads});
    /* Workspace at the full cache; no step may need more (checked each step). */
    size_t ws_bytes = k->workspace_bytes ? k->workspace_bytes(&p, &tune) : 0;
    double need = hr_kvcache_bytes(layers, batch, kv_heads, d, capacity) + (double)ws_bytes +
                  4.0 * batch * (2.0 * kv_heads + 2.0 * heads) * POOL * d;
    double budget = max_mem > 0 ? max_mem : hr_default_max_mem();
    if (need > budget) {
        st = hr_fail("--max-mem: the KV cache and buffers need %.2f GiB, over the budget of "
                     "%.2f GiB", need / 1073741824.0, budget / 1073741824.0);
        goto err;
    }

    hr_kvcache cache;
    if ((st = hr_kvcache_init(&cache, layers, batch, kv_heads, d, capacity, 0))) goto err;
    float *pool = hr_alloc(sizeof(float) * (size_t)batch * POOL * d * (2 * kv_heads + 2 * heads));
    void *ws = hr_alloc(ws_bytes ? ws_bytes : 64);
    double *step = malloc(3 * (size_t)tokens * sizeof *step);
    range_row *rows = malloc((size_t)nrows * sizeof *rows);
    if (!pool || !ws || !step || !rows) {
        st = hr_fail("out of memory");
        goto done;
    }
    double *attn = step + tokens, *bytes = attn + tokens;
    hr_view kp = hr_view_dense(pool, HR_LAYOUT_BHND, batch, kv_heads, POOL, d);
    hr_view vp = hr_view_dense(kp.p + (size_t)batch * kv_heads * POOL * d, HR_LAYOUT_BHND, batch,
                               kv_heads, POOL, d);
    hr_view qp = hr_view_dense(vp.p + (size_t)batch * kv_heads * POOL * d, HR_LAYOUT_BHND, batch,
                               heads, POOL, d);
    hr_view o = hr_view_dense(qp.p + (size_t)batch * heads * POOL * d, HR_LAYOUT_BHND, batch,
                              heads, 1, d);
    const uint64_t s64 = (uint64_t)seed;
    hr_fill(kp, batch, kv_heads, POOL, d, (hr_dist)dist, s64 ^ 0x9e3779b97f4a7c15u, 1);
    hr_fill(vp, batch, kv_heads, POOL, d, (hr_dist)dist, s64 ^ 0x9e3779b97f4a7c15u, 2);
    hr_fill(qp, batch, heads, POOL, d, (hr_dist)dist, s64 ^ 0x9e3779b97f4a7c15u, 0);
    /* The prompt, written in place, a different seed per layer. */
    for (int l = 0; l < layers && prompt > 0; l++) {
        hr_view kn, vn;
        if ((st = hr_kvcache_extend(&cache, l, prompt, &kn, &vn))) goto done;
        hr_fill(kn, batch, kv_heads, prompt, d, (hr_dist)dist, s64 + 7919u * (uint64_t)l, 1);
        hr_fill(vn, batch, kv_heads, prompt, d, (hr_dist)dist, s64 + 7919u * (uint64_t)l, 2);
    }

    /* Warm-up: one untimed call per layer on the prompt (threads started, code paged). */
    hr_args args = {.o = o};
    for (int l = 0; l < layers && prompt > 0; l++) {
        p.seq_kv = cache.length[l];
        args.q = pool_row(qp, 0);
        args.k = hr_kvcache_k(&cache, l);
        args.v = hr_kvcache_v(&cache, l);
        k->run(&p, &tune, &args, ws);
    }

    for (int s = 0; s < tokens; s++) {
        const int slot = s % POOL;
        double t0 = hr_now(), ta = 0, by = 0;
        for (int l = 0; l < layers; l++) {
            if ((st = hr_kvcache_append(&cache, l, pool_row(kp, slot), pool_row(vp, slot), 1)))
                goto done;
            p.seq_kv = cache.length[l];
            if (k->workspace_bytes && k->workspace_bytes(&p, &tune) > ws_bytes) {
                st = hr_fail("--kernel: %s needs more workspace at %d keys than at the full "
                             "cache", k->name, p.seq_kv);
                goto done;
            }
            args.q = pool_row(qp, slot);
            args.k = hr_kvcache_k(&cache, l);
            args.v = hr_kvcache_v(&cache, l);
            double t1 = hr_now();
            k->run(&p, &tune, &args, ws);
            ta += hr_now() - t1;
            by += hr_kernel_bytes(k, &p, &tune);
        }
        step[s] = hr_now() - t0;
        attn[s] = ta;
        bytes[s] = by;
    }

    hr_check chk = {0};
    if (check) {
        /* The last step again, layer by layer, each compared with the oracle. */
        for (int l = 0; l < layers; l++) {
            p.seq_kv = cache.length[l];
            args.q = pool_row(qp, (tokens - 1) % POOL);
            args.k = hr_kvcache_k(&cache, l);
            args.v = hr_kvcache_v(&cache, l);
            k->run(&p, &tune, &args, ws);
            hr_check c = hr_oracle_check(&p, &args, 0);
            if (l == 0 || c.verdict > chk.verdict ||
                (c.verdict == chk.verdict && c.max_rel_err > chk.max_rel_err))
                chk = c;
        }
    }

    ranges(step, attn, bytes, tokens, prompt, nrows, rows);
    /* Best triad GB/s at the nearest measured thread count (0: no ceilings). */
    const double bw = have_ceil ? hr_ceiling_bw(&ceilings, tune.threads) : 0;
    double tot = 0, tot_attn = 0, tot_bytes = 0;
    for (int s = 0; s < tokens; s++) tot += step[s], tot_attn += attn[s], tot_bytes += bytes[s];
    char warn[16][200];
    int nw = 0;
    hr_env_warnings(warn, 16, &nw);
    const char *wp[16];
    for (int i = 0; i < nw; i++) {
        wp[i] = warn[i];
        fprintf(stderr, "headroom decode-loop: warning: %s\n", warn[i]);
    }
    char chkbuf[256] = "";
    if (check) hr_check_str(&chk, chkbuf, sizeof chkbuf);

    if (format == 0) {
        printf("decode-loop: %s, B%d Hq%d Hkv%d d%d, %d layers, prompt %d + %d tokens, T%d; "
               "KV cache %.1f MiB (fp32) at the end\n",
               k->name, batch, heads, kv_heads, d, layers, prompt, tokens, tune.threads,
               hr_kvcache_bytes(layers, batch, kv_heads, d, capacity) / 1048576.0);
        printf("%13s  %17s  %9s  %9s  %9s  %10s  %8s%s\n", "steps", "cache tokens", "step ms",
               "min ms", "attn ms", "tokens/s", "GB/s", bw > 0 ? "  % triad" : "");
        for (int r = 0; r < nrows; r++) {
            char a[32], b[40];
            snprintf(a, sizeof a, "%d-%d", rows[r].first, rows[r].last);
            snprintf(b, sizeof b, "%d-%d", rows[r].len0, rows[r].len1);
            printf("%13s  %17s  %9.3f  %9.3f  %9.3f  %10.1f  %8.2f", a, b,
                   rows[r].step_med * 1e3, rows[r].step_min * 1e3, rows[r].attn_med * 1e3,
                   rows[r].tokens_per_s, rows[r].kv_gbps);
            if (bw > 0) printf("  %8.0f", 100 * rows[r].kv_gbps / bw);
            printf("\n");
        }
        printf("total: %d tokens in %.3f s: %.1f tokens/s (batch %d: %.1f sequence-tokens/s); "
               "attention %.0f%% of the step time at %.2f GB/s\n",
               tokens, tot, tokens / tot, batch, batch * tokens / tot, 100 * tot_attn / tot,
               tot_bytes / tot_attn * 1e-9);
        printf("step = append the token's K/V + attention, over all layers (no projections "
               "or MLP); medians per range;\nGB/s = the kernel's bytes (counts.c traffic model: "
               "K/V of the cache + Q/O) / attention time\n");
        if (bw > 0)
            printf("%% triad = GB/s / best triad %.2f GB/s at %d thread%s (%s)\n", bw,
                   hr_ceiling_threads(&ceilings, tune.threads),
                   hr_ceiling_threads(&ceilings, tune.threads) == 1 ? "" : "s", ceilings.path);
        else
            printf("no roofline ceilings (headroom roofline, or --ceilings FILE): no %% of "
                   "triad\n");
        if (check) printf("check: %s\n", chkbuf);
    } else if (format == 1) {
        printf("kernel,batch,heads,kv_heads,d_head,layers,prompt,threads,step_first,step_last,"
               "cache_first,cache_last,step_ms_median,step_ms_min,attn_ms_median,tokens_per_s,"
               "gbps,pct_of_triad\n");
        for (int r = 0; r < nrows; r++) {
            printf("%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.3f,%.4f,", k->name,
                   batch, heads, kv_heads, d, layers, prompt, tune.threads, rows[r].first,
                   rows[r].last, rows[r].len0, rows[r].len1, rows[r].step_med * 1e3,
                   rows[r].step_min * 1e3, rows[r].attn_med * 1e3, rows[r].tokens_per_s,
                   rows[r].kv_gbps);
            if (bw > 0) printf("%.2f", 100 * rows[r].kv_gbps / bw);
            printf("\n");
        }
        if (check) fprintf(stderr, "check: %s\n", chkbuf);
    } else {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddItemToObject(root, "context", hr_context_json(wp, nw));
        cJSON *cfg = cJSON_AddObjectToObject(root, "config");
        cJSON_AddStringToObject(cfg, "kernel", k->name);
        if (model) cJSON_AddStringToObject(cfg, "model", model);
        cJSON_AddNumberToObject(cfg, "batch", batch);
        cJSON_AddNumberToObject(cfg, "heads", heads);
        cJSON_AddNumberToObject(cfg, "kv_heads", kv_heads);
        cJSON_AddNumberToObject(cfg, "d_head", d);
        cJSON_AddNumberToObject(cfg, "layers", layers);
        cJSON_AddNumberToObject(cfg, "prompt", prompt);
        cJSON_AddNumberToObject(cfg, "tokens", tokens);
        cJSON_AddNumberToObject(cfg, "threads", tune.threads);
        cJSON_AddNumberToObject(cfg, "block_kv", tune.block_kv);
        cJSON_AddStringToObject(cfg, "dist", hr_dist_names[dist]);
        cJSON_AddNumberToObject(cfg, "seed", seed);
        cJSON *sum = cJSON_AddObjectToObject(root, "summary");
        cJSON_AddNumberToObject(sum, "seconds", tot);
        cJSON_AddNumberToObject(sum, "tokens_per_s", tokens / tot);
        cJSON_AddNumberToObject(sum, "attention_fraction", tot_attn / tot);
        cJSON_AddNumberToObject(sum, "gbps", tot_bytes / tot_attn * 1e-9);
        if (bw > 0) {
            cJSON_AddNumberToObject(sum, "triad_gbs", bw);
            cJSON_AddNumberToObject(sum, "pct_of_triad", 100 * tot_bytes / tot_attn * 1e-9 / bw);
        }
        if (check) cJSON_AddStringToObject(sum, "check", chkbuf);
        cJSON *jr = cJSON_AddArrayToObject(root, "ranges");
        for (int r = 0; r < nrows; r++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "step_first", rows[r].first);
            cJSON_AddNumberToObject(x, "step_last", rows[r].last);
            cJSON_AddNumberToObject(x, "cache_first", rows[r].len0);
            cJSON_AddNumberToObject(x, "cache_last", rows[r].len1);
            cJSON_AddNumberToObject(x, "step_ms_median", rows[r].step_med * 1e3);
            cJSON_AddNumberToObject(x, "step_ms_min", rows[r].step_min * 1e3);
            cJSON_AddNumberToObject(x, "attn_ms_median", rows[r].attn_med * 1e3);
            cJSON_AddNumberToObject(x, "tokens_per_s", rows[r].tokens_per_s);
            cJSON_AddNumberToObject(x, "gbps", rows[r].kv_gbps);
            if (bw > 0) cJSON_AddNumberToObject(x, "pct_of_triad", 100 * rows[r].kv_gbps / bw);
            cJSON_AddItemToArray(jr, x);
        }
        cJSON *js = cJSON_AddArrayToObject(root, "steps_ms");
        for (int s = 0; s < tokens; s++) cJSON_AddItemToArray(js, cJSON_CreateNumber(step[s] * 1e3));
        char *text = cJSON_Print(root);
        cJSON_Delete(root);
        if (text) printf("%s\n", text);
        free(text);
    }
    if (check && chk.verdict == HR_CHECK_FAIL) {
        st = hr_failc(HR_EFAIL, "check failed: %s", chkbuf);
    }

done:
    free(rows);
    free(step);
    free(ws);
    free(pool);
    hr_kvcache_free(&cache);
    if (!st) return HR_OK;
err:
    fprintf(stderr, "headroom decode-loop: %s\n", hr_errmsg());
    return st;
}

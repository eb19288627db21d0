/* cmd_decode_loop.c — `headroom decode-loop`: token-by-token generation over a growing KV
 * cache, timed step by step (the simulation: measure/decode_loop.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "decode_cont.h"
#include "decode_loop.h"
#include "files.h"
#include "models.h"
#include "roofline.h"
#include "sysinfo.h"
#include "threads.h"

static const char *const formats[] = {"table", "csv", "json", NULL};

/* What the printers show: the spec and result, the step ranges, the triad ceiling. */
typedef struct {
    const hr_decode_spec *s;
    const hr_decode_result *r;
    const hr_decode_range *rows;
    int nrows;
    const char *model;      /* --model, or NULL                                   */
    const hr_ceilings *ceil;
    double bw;              /* best triad GB/s at the kernel's threads, 0: no ceilings */
    char chk[256];          /* the check's line ("" unchecked)                     */
    double format_rel;      /* the output against the fp64 oracle on the original fp32
                             * inputs, max relative (--check; -1 unchecked): for an f32
                             * cache the check's own error, nothing having been rounded */
} view;

static void print_table(const view *v)
{
    const hr_decode_spec *s = v->s;
    const hr_decode_result *r = v->r;
    const double tot = r->seconds;
    char var[96] = "";
    hr_problem_variants_str(&(hr_problem){.window = s->window, .softcap = s->softcap, .alibi = s->alibi}, var,
                            sizeof var);
    if (s->window > 0 && s->window_every > 1) {
        const size_t n = strlen(var);
        snprintf(var + n, sizeof var - n, " (window on every %d%s layer from 0)", s->window_every,
                 s->window_every == 2 ? "nd" : s->window_every == 3 ? "rd" : "th");
    }
    printf("decode-loop: %s, B%d Hq%d Hkv%d d%d%s, %d layers, prompt %d + %d tokens, T%d; "
           "KV cache %.1f MiB (%s) at the end; path %s\n",
           s->kernel->name, s->batch, s->heads, s->kv_heads, s->d_head, var, s->layers, s->prompt,
           s->tokens, r->tune.threads, r->cache_bytes / 1048576.0, hr_dtype_names[s->kv_dtype], r->path);
    printf("%13s  %17s  %9s  %9s  %9s  %10s  %8s%s\n", "steps", "cache tokens", "step ms",
           "min ms", "attn ms", "tokens/s", "GB/s", v->bw > 0 ? "  % triad" : "");
    for (int i = 0; i < v->nrows; i++) {
        const hr_decode_range *x = &v->rows[i];
        char a[32], b[40];
        snprintf(a, sizeof a, "%d-%d", x->first, x->last);
        snprintf(b, sizeof b, "%d-%d", x->len0, x->len1);
        printf("%13s  %17s  %9.3f  %9.3f  %9.3f  %10.1f  %8.2f", a, b, x->step_med * 1e3,
               x->step_min * 1e3, x->attn_med * 1e3, x->tokens_per_s, x->kv_gbps);
        if (v->bw > 0) printf("  %8.0f", 100 * x->kv_gbps / v->bw);
        printf("\n");
    }
    printf("total: %d tokens in %.3f s: %.1f tokens/s (batch %d: %.1f sequence-tokens/s); "
           "attention %.0f%% of the step time at %.2f GB/s\n",
           s->tokens, tot, s->tokens / tot, s->batch, s->batch * s->tokens / tot,
           100 * r->attn_seconds / tot, r->total_bytes / r->attn_seconds * 1e-9);
    if (s->page_size > 0)
        printf("paged KV cache: %d keys a block, a pool of %ld blocks; %ld held at the end: %.1f MiB allocated "
               "for %.1f MiB used (%.2f%% waste, kvcache --page-size's model)\n",
               s->page_size, r->pool_blocks, r->blocks, r->alloc_bytes / 1048576.0, r->used_bytes / 1048576.0,
               r->alloc_bytes > 0 ? 100 * (r->alloc_bytes - r->used_bytes) / r->alloc_bytes : 0);
    printf("step = append the token's K/V + attention, over all layers (no projections "
           "or MLP); medians per range;\nGB/s = the bytes every kernel must read (counts.c: "
           "K/V of the cache once + Q/O) / attention time\n");
    if (v->bw > 0) {
        const int t = hr_ceiling_threads(v->ceil, r->tune.threads);
        printf("%% triad = GB/s / best triad %.2f GB/s at %d thread%s (%s)\n", v->bw, t,
               t == 1 ? "" : "s", v->ceil->path);
    } else {
        printf("no roofline ceilings (headroom roofline, or --ceilings FILE): no %% of triad\n");
    }
    if (s->check) printf("check: %s\n", v->chk);
}

static void print_csv(const view *v)
{
    const hr_decode_spec *s = v->s;
    printf("kernel,batch,heads,kv_heads,d_head,layers,prompt,threads,step_first,step_last,"
           "cache_first,cache_last,step_ms_median,step_ms_min,attn_ms_median,tokens_per_s,"
           "gbps,pct_of_triad,dtype,kv_dtype,format_max_rel,page_size\n");
    for (int i = 0; i < v->nrows; i++) {
        const hr_decode_range *x = &v->rows[i];
        printf("%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.3f,%.4f,", s->kernel->name,
               s->batch, s->heads, s->kv_heads, s->d_head, s->layers, s->prompt,
               v->r->tune.threads, x->first, x->last, x->len0, x->len1, x->step_med * 1e3,
               x->step_min * 1e3, x->attn_med * 1e3, x->tokens_per_s, x->kv_gbps);
        if (v->bw > 0) printf("%.2f", 100 * x->kv_gbps / v->bw);
        printf(",%s,%s,", hr_dtype_names[s->dtype], hr_dtype_names[s->kv_dtype]);
        if (v->format_rel >= 0) printf("%.3g", v->format_rel);
        printf(",%d\n", s->page_size);
    }
    if (s->check) fprintf(stderr, "check: %s\n", v->chk);
}

static void print_json(const view *v, const char **warn, int nw)
{
    const hr_decode_spec *s = v->s;
    const hr_decode_result *r = v->r;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "context", hr_context_json(warn, nw));
    cJSON *cfg = cJSON_AddObjectToObject(root, "config");
    cJSON_AddStringToObject(cfg, "kernel", s->kernel->name);
    if (v->model) cJSON_AddStringToObject(cfg, "model", v->model);
    const struct {
        const char *key;
        double val;
    } nums[] = {{"batch", s->batch},   {"heads", s->heads},     {"kv_heads", s->kv_heads},
                {"d_head", s->d_head}, {"layers", s->layers},   {"prompt", s->prompt},
                {"tokens", s->tokens}, {"threads", r->tune.threads}, {"block_kv", r->tune.block_kv}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) cJSON_AddNumberToObject(cfg, nums[i].key, nums[i].val);
    if (s->window > 0) { /* the variants only where set */
        cJSON_AddNumberToObject(cfg, "window", s->window);
        cJSON_AddNumberToObject(cfg, "window_every", s->window_every > 1 ? s->window_every : 1);
    }
    if (s->softcap > 0) cJSON_AddNumberToObject(cfg, "softcap", s->softcap);
    if (s->alibi > 0) cJSON_AddNumberToObject(cfg, "alibi", s->alibi);
    if (s->page_size > 0) cJSON_AddNumberToObject(cfg, "page_size", s->page_size);
    cJSON_AddStringToObject(cfg, "dist", hr_dist_names[s->dist]);
    cJSON_AddStringToObject(cfg, "dtype", hr_dtype_names[s->dtype]);
    cJSON_AddStringToObject(cfg, "kv_dtype", hr_dtype_names[s->kv_dtype]);
    cJSON_AddStringToObject(cfg, "path", r->path);
    cJSON_AddNumberToObject(cfg, "seed", (double)s->seed);
    cJSON *sum = cJSON_AddObjectToObject(root, "summary");
    const double gbps = r->total_bytes / r->attn_seconds * 1e-9;
    cJSON_AddNumberToObject(sum, "seconds", r->seconds);
    cJSON_AddNumberToObject(sum, "tokens_per_s", s->tokens / r->seconds);
    cJSON_AddNumberToObject(sum, "attention_fraction", r->attn_seconds / r->seconds);
    cJSON_AddNumberToObject(sum, "gbps", gbps);
    if (v->bw > 0) {
        cJSON_AddNumberToObject(sum, "triad_gbs", v->bw);
        cJSON_AddNumberToObject(sum, "pct_of_triad", 100 * gbps / v->bw);
    }
    if (s->check) cJSON_AddStringToObject(sum, "check", v->chk);
    if (v->format_rel >= 0) cJSON_AddNumberToObject(sum, "format_max_rel", v->format_rel);
    if (s->page_size > 0) { /* kvcache --page-size's fields */
        cJSON_AddNumberToObject(sum, "page_size", s->page_size);
        cJSON_AddNumberToObject(sum, "pool_blocks", (double)r->pool_blocks);
        cJSON_AddNumberToObject(sum, "blocks_held", (double)r->blocks);
        cJSON_AddNumberToObject(sum, "blocks_peak", (double)r->blocks_peak);
        cJSON_AddNumberToObject(sum, "used_bytes", r->used_bytes);
        cJSON_AddNumberToObject(sum, "allocated_bytes", r->alloc_bytes);
        cJSON_AddNumberToObject(sum, "waste_bytes", r->alloc_bytes - r->used_bytes);
        cJSON_AddNumberToObject(sum, "waste_fraction", r->alloc_bytes > 0 ? (r->alloc_bytes - r->used_bytes) / r->alloc_bytes : 0);
    }
    cJSON *jr = cJSON_AddArrayToObject(root, "ranges");
    for (int i = 0; i < v->nrows; i++) {
        const hr_decode_range *x = &v->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "step_first", x->first);
        cJSON_AddNumberToObject(o, "step_last", x->last);
        cJSON_AddNumberToObject(o, "cache_first", x->len0);
        cJSON_AddNumberToObject(o, "cache_last", x->len1);
        cJSON_AddNumberToObject(o, "step_ms_median", x->step_med * 1e3);
        cJSON_AddNumberToObject(o, "step_ms_min", x->step_min * 1e3);
        cJSON_AddNumberToObject(o, "attn_ms_median", x->attn_med * 1e3);
        cJSON_AddNumberToObject(o, "tokens_per_s", x->tokens_per_s);
        cJSON_AddNumberToObject(o, "gbps", x->kv_gbps);
        if (v->bw > 0) cJSON_AddNumberToObject(o, "pct_of_triad", 100 * x->kv_gbps / v->bw);
        cJSON_AddItemToArray(jr, o);
    }
    cJSON *js = cJSON_AddArrayToObject(root, "steps_ms");
    for (int i = 0; i < s->tokens; i++) cJSON_AddItemToArray(js, cJSON_CreateNumber(r->step[i] * 1e3));
    char *text = hr_json_text(root, 1);
    cJSON_Delete(root);
    if (text) printf("%s\n", text);
    free(text);
}

/* Fills the sizes no flag set (0) from the preset called name. HR_OK, or HR_EUSAGE for
 * an unreadable models file or an unknown model. The preset's window (on every
 * window_every-th layer) and soft cap fill the variant flags not given. */
static int from_model(const char *name, const char *file, int *heads, int *kv_heads, int *d,
                      int *layers, int *window_every, hr_variant_flags *vf)
{
    hr_models ms;
    int st = hr_models_open(file, &ms);
    if (st) return st;
    const hr_model *m = hr_models_find(&ms, name);
    if (m) {
        *heads = *heads ? *heads : m->heads;
        *kv_heads = *kv_heads ? *kv_heads : m->kv_heads;
        *d = *d ? *d : m->d_head;
        *layers = *layers ? *layers : m->layers;
        /* the preset's variants where no flag set them: its window on the layers it names */
        if (!vf->window) vf->window = m->window, *window_every = m->window_every;
        if (!(vf->softcap > 0)) vf->softcap = m->softcap;
    }
    hr_models_free(&ms);
    return m ? HR_OK : hr_fail("--model: unknown model '%s' (see headroom kvcache)", name);
}

/* --max-batch: continuous batching (measure/decode_cont.h), printed as a table. */
static int run_continuous(const hr_cont_spec *c)
{
    hr_cont_result r;
    int st = hr_decode_cont(c, &r);
    if (st) return st;
    printf("decode-loop continuous: decode, Hq%d Hkv%d d%d, 1 layer, up to %d sequences a step of %d requests "
           "(%s context %d-%d, chat replies %d-%d tokens, %s), T%d; KV cache %.1f MiB (%s, %d keys a slot)\n",
           c->heads, c->kv_heads, c->d_head, c->max_batch, c->requests, hr_ragged_dist_names[c->dist], c->len_min,
           c->len_max, c->out_min, c->out_max, c->arrival > 0 ? "Poisson arrivals" : "all waiting at the start",
           r.threads, r.cache_bytes / 1048576.0, hr_dtype_names[c->kv_dtype], r.capacity);
    printf("total: %ld tokens in %ld steps, %.4f s: %.1f tokens/s, %.2f GB/s; occupancy %.1f%% of %d slots\n",
           r.tokens, r.steps, r.seconds, r.tokens_per_s, r.bytes / r.seconds * 1e-9, 100 * r.occupancy,
           c->max_batch);
    printf("per sequence: median %.1f tokens/s, p90 %.1f tokens/s; median wait %.0f steps for a slot\n",
           r.seq_tps_median, r.seq_tps_p90, r.wait_median);
    if (c->page_size > 0)
        printf("paged KV cache: %d keys a block, a pool of %ld blocks: at most %ld held (the live sequences needed "
               "at most %ld), %ld taken in all, %ld held at the end\n",
               c->page_size, r.pool_blocks, r.blocks_peak, r.need_peak, r.allocs, r.blocks_end);
    printf("step = append each sequence's new K/V + one fused ragged decode call (prefill untimed; no "
           "projections or MLP); a sequence's tokens/s = its output tokens / its first to last step\n");
    if (c->check) {
        char chk[256];
        hr_check_str(&r.check, chk, sizeof chk);
        printf("check: a step of %d sequences: %s\n", r.check_batch, r.checked ? chk : "no step was checked");
        if (r.checked && r.check.verdict == HR_CHECK_FAIL) return hr_failc(HR_EFAIL, "check failed: %s", chk);
    }
    return HR_OK;
}

int cmd_decode_loop(int argc, char **argv)
{
    const hr_kernel *k = hr_kernel_find("decode");
    const char *model = NULL, *models_flag = NULL, *ceil_path = NULL;
    int heads = 0, kv_heads = 0, d = 0, layers = 0, batch = 0, prompt = -1, tokens = 0;
    int threads = 0, block_kv = 0, nrows = 0;
    /* continuous batching (--max-batch) */
    int max_batch = 0, requests = 64, len_dist = HR_RAGGED_CHAT, len_min = 16, len_max = 4096, out_min = 1;
    int out_max = 1024;
    double arrival = 0;
    hr_format format = HR_FMT_TABLE;
    hr_timing_flags tf;
    hr_timing_flags_init(&tf, HR_TF_SEED | HR_TF_DIST);
    double max_mem = 0;
    bool check = false;
    hr_variant_flags vf;
    hr_variant_flags_init(&vf);
    hr_opt_help(vf.opts, "--window", "sliding window of every layer (--model: the preset's, on its layers)");
    int window_every = 1;
    hr_dtype_flags types;
    hr_dtype_flags_init(&types, NULL, "the stored cache: each new K/V row converted into it (--dtype)");
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
        {"--threads", HR_OPT_INT, &threads, 1, HR_THREADS_MAX, NULL, "T", "threads (OMP_NUM_THREADS or all CPUs)"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "keys per tile (kernel default)"},
        {"inputs", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL},
        {"types", HR_OPT_GROUP, types.opts, 0, 0, NULL, NULL, NULL},
        {"variants", HR_OPT_GROUP, vf.opts, 0, 0, NULL, NULL, NULL},
        {"--rows", HR_OPT_INT, &nrows, 1, 1 << 20, NULL, "R", "step ranges reported (8; at most --tokens)"},
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL,
         "after the loop, check every layer's last step against the oracle; exit 1 if it fails"},
        {"--max-batch", HR_OPT_INT, &max_batch, 1, HR_RAGGED_MAX, NULL, "N",
         "continuous batching instead: at most N sequences a step, freed slots refilled"},
        {"--requests", HR_OPT_INT, &requests, 1, 1 << 20, NULL, "N", "continuous: sequences in all (64)"},
        {"--arrival", HR_OPT_DOUBLE, &arrival, 0, 1e6, NULL, "R",
         "continuous: Poisson arrivals, R sequences a step on average (0: all at the start)"},
        {"--len-dist", HR_OPT_ENUM, &len_dist, 0, 0, hr_ragged_dist_names, NULL,
         "continuous: context lengths, uniform, zipf or chat (chat)"},
        {"--len-min", HR_OPT_INT, &len_min, 1, HR_MAX_SEQ, NULL, "N", "continuous: least context length (16)"},
        {"--len-max", HR_OPT_INT, &len_max, 1, HR_MAX_SEQ, NULL, "N", "continuous: largest context length (4096)"},
        {"--out-min", HR_OPT_INT, &out_min, 1, HR_MAX_SEQ, NULL, "N", "continuous: least output length (1)"},
        {"--out-max", HR_OPT_INT, &out_max, 1, HR_MAX_SEQ, NULL, "N", "continuous: largest output length (1024)"},
        HR_MAX_MEM_OPT(&max_mem),
        {"--ceilings", HR_OPT_STR, &ceil_path, 0, 0, NULL, "FILE",
         "roofline ceilings for % of triad (results/<machine>/ceilings.json if present)"},
        HR_FORMAT_OPT(&format, formats),
        HR_PLUGIN_OPT,
        {NULL},
    };
    const char *syn = "decode-loop [--model NAME | --heads H --kv-heads G --d-head D --layers L] "
                      "[--prompt P] [--tokens T] [options]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st) goto err; /* -1 after --help: hr_cmd_status returns HR_OK */

    static hr_ceilings ceilings;
    bool have_ceil = false;
    if ((st = hr_ceilings_load_opt(ceil_path, &ceilings, &have_ceil))) goto err;
    /* A file the user named is read or refused, never silently ignored. */
    if (models_flag && !model) {
        st = hr_fail("--models: needs --model NAME (the preset to take from %s)", models_flag);
        goto err;
    }
    if (model && (st = from_model(model, models_flag, &heads, &kv_heads, &d, &layers, &window_every, &vf)))
        goto err;
    heads = heads ? heads : 32;
    kv_heads = kv_heads ? kv_heads : heads >= 8 && heads % 8 == 0 ? 8 : heads;
    d = d ? d : 128;
    hr_problem tp = {0};
    hr_dtype_flags_apply(&types, &tp);
    if (max_batch) { /* the fixed loop's flags mean nothing here: refused, not ignored */
        const char *no = batch ? "--batch" : prompt >= 0 ? "--prompt" : tokens ? "--tokens" : nrows ? "--rows"
                       : layers && !model ? "--layers" : block_kv ? "--block-kv" : format != HR_FMT_TABLE ? "--format"
                       : tp.dtype != HR_F32 ? "--dtype" : k != hr_kernel_find("decode") ? "--kernel" : NULL;
        if (no) {
            st = hr_fail("%s: not a flag of continuous batching (--max-batch)", no);
            goto err;
        }
        const hr_cont_spec cs = {heads, kv_heads, d, threads, max_batch, requests, arrival, (hr_ragged_dist)len_dist,
                                 len_min, len_max, out_min, out_max, tp.kv_dtype, (uint64_t)tf.seed, check, max_mem,
                                 vf.page_size};
        st = run_continuous(&cs);
        goto err;
    }
    layers = layers ? layers : 4;
    batch = batch ? batch : 1;
    prompt = prompt >= 0 ? prompt : 2048;
    tokens = tokens ? tokens : 64;
    nrows = nrows ? nrows : 8;
    if (nrows > tokens) nrows = tokens;
    const hr_decode_spec spec = {
        .dtype = tp.dtype, .kv_dtype = tp.kv_dtype,
        .kernel = k, .batch = batch, .heads = heads, .kv_heads = kv_heads, .d_head = d,
        .layers = layers, .prompt = prompt, .tokens = tokens, .tune = {0, block_kv, threads},
        .dist = (hr_dist)tf.dist, .seed = (uint64_t)tf.seed, .check = check, .max_mem = max_mem,
        .window = vf.window, .window_every = window_every, .softcap = (float)vf.softcap, .alibi = (float)vf.alibi,
        .page_size = vf.page_size,
    };
    hr_decode_result res;
    if ((st = hr_decode_loop(&spec, &res))) goto err;
    view v = {.s = &spec, .r = &res, .nrows = nrows, .model = model, .ceil = &ceilings,
              .bw = have_ceil ? hr_ceiling_bw(&ceilings, res.tune.threads) : 0};
    hr_decode_range *rows = malloc((size_t)nrows * sizeof *rows);
    if (!rows) {
        hr_decode_free(&res);
        st = hr_fail("out of memory");
        goto err;
    }
    hr_decode_ranges(&res, nrows, rows);
    v.rows = rows;
    v.format_rel = -1;
    if (check) {
        v.format_rel = res.format_checked ? res.format.max_rel_err
                       : spec.dtype == HR_F32 && spec.kv_dtype == HR_F32 ? res.check.max_rel_err : -1;
        hr_check_str(&res.check, v.chk, sizeof v.chk);
        size_t n = strlen(v.chk);
        if (res.format_checked) snprintf(v.chk + n, sizeof v.chk - n, "; format max_rel %.2e nmse %.2e (not judged)",
                                         res.format.max_rel_err, res.format.nmse);
    }
    char warn[16][200];
    const char *wp[16];
    int nw = 0;
    hr_env_warnings(warn, 16, &nw);
    hr_threads_warning(k->name, res.tune.threads, warn, 16, &nw);
    for (int i = 0; i < nw; i++) {
        wp[i] = warn[i];
        fprintf(stderr, "headroom decode-loop: warning: %s\n", warn[i]);
    }
    if (format == HR_FMT_TABLE) print_table(&v);
    else if (format == HR_FMT_CSV) print_csv(&v);
    else print_json(&v, wp, nw);
    if (check && res.check.verdict == HR_CHECK_FAIL) st = hr_failc(HR_EFAIL, "check failed: %s", v.chk);
    free(rows);
    hr_decode_free(&res);
err:
    return hr_cmd_status("decode-loop", st);
}

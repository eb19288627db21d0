/* cmd_layer.c — `headroom layer`: time the full attention layer phase by phase (QKV projection, core, output projection). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "files.h"
#include "layer.h"
#include "models.h"
#include "results.h"
#include "sysinfo.h"
#include "threads.h"
#include "wisdom.h"

static const char *const formats[] = {"table", "csv", "json", NULL};

static void print_table(const hr_layer_spec *s, const hr_layer_result *r, const char *src)
{
    const hr_problem *p = &r->prob;
    char types[160] = "", var[64];
    hr_problem_variants_str(p, var, sizeof var);
    if (p->dtype != HR_F32 || p->kv_dtype != HR_F32)
        snprintf(types, sizeof types, " %s/kv %s (%s)", hr_dtype_names[p->dtype], hr_dtype_names[p->kv_dtype],
                 hr_kernel_path(s->kernel, p));
    printf("layer: kernel %s, gemm %s, B%d N%d d_model %d H%d/%d d%d %s%s%s; threads: GEMM %d, core %d; "
           "core bq=%d bkv=%d (%s)\n",
           s->kernel->name, hr_gemm_names[s->gemm], p->batch, p->seq_q, s->d_model, p->heads,
           p->kv_heads, p->d_head, p->causal ? "causal" : "full", var, types, r->gemm_threads, r->tune.threads,
           r->tune.block_q, r->tune.block_kv, src);
    printf("%-9s %11s %11s %11s %6s %10s %9s %7s\n", "phase", "median ms", "min ms", "max ms",
           "cv%", "GFLOP", "GFLOP/s", "time%");
    const double total = hr_layer_total_seconds(r);
    for (int i = 0; i < HR_NPHASES; i++) {
        const hr_summary *m = &r->phase[i].timing.s;
        printf("%-9s %11.4f %11.4f %11.4f %6.1f %10.4f %9.2f %7.1f\n", hr_phase_names[i],
               m->median * 1e3, m->min * 1e3, m->max * 1e3, m->cv * 100, r->phase[i].flops * 1e-9,
               hr_layer_phase_gflops(r, i), total > 0 ? 100 * m->median / total : 0);
    }
    const double tf = hr_layer_total_flops(r);
    printf("%-9s %11.4f %11s %11s %6s %10.4f %9.2f %7.1f\n", "total", total * 1e3, "", "", "",
           tf * 1e-9, total > 0 ? tf / total * 1e-9 : 0, 100.0);
    if (r->checked)
        printf("check: %s max_rel %.3g (tol %.3g, warn %.3g) over %ld of %ld rows\n",
               hr_check_names[r->check.verdict], r->check.max_rel_err, r->check.tol_pass,
               r->check.tol_warn, r->check.rows_checked, r->check.rows_total);
    if (r->checked && r->check.format_max_rel >= 0)
        printf("format: max_rel %.3g nmse %.3g (against the layer on the fp32 projections: what the "
               "types cost)\n", r->check.format_max_rel, r->check.format_nmse);
}

/* CSV columns (one row per phase, then "total"; times are medians per call). */
static void print_csv(const hr_layer_spec *s, const hr_layer_result *r, const char *src)
{
    const hr_problem *p = &r->prob;
    char name[256];
    hr_layer_name(s, r, name, sizeof name);
    printf("name,kernel,gemm,batch,seq,d_model,heads,kv_heads,d_head,causal,gemm_threads,"
           "core_threads,phase,reps,iters,time_median_s,time_min_s,time_max_s,cv,flops,GFLOPS,"
           "max_rel_err,block_q,block_kv,tune_source,dtype,kv_dtype,format_max_rel\n");
    for (int i = 0; i <= HR_NPHASES; i++) {
        const int tot = i == HR_NPHASES;
        const hr_summary *m = tot ? NULL : &r->phase[i].timing.s;
        const double t = tot ? hr_layer_total_seconds(r) : m->median;
        const double f = tot ? hr_layer_total_flops(r) : r->phase[i].flops;
        printf("%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%ld,%.9g,", name, s->kernel->name,
               hr_gemm_names[s->gemm], p->batch, p->seq_q, s->d_model, p->heads, p->kv_heads,
               p->d_head, p->causal, r->gemm_threads, r->tune.threads,
               tot ? "total" : hr_phase_names[i], tot ? 0 : r->phase[i].timing.reps,
               tot ? 0L : r->phase[i].timing.iters, t);
        if (tot) printf(",,,");
        else printf("%.9g,%.9g,%.5g,", m->min, m->max, m->cv);
        printf("%.9g,%.6g,", f, t > 0 ? f / t * 1e-9 : 0);
        if (r->checked) printf("%.3g", r->check.max_rel_err);
        printf(",%d,%d,%s,%s,%s,", r->tune.block_q, r->tune.block_kv, src, hr_dtype_names[p->dtype],
               hr_dtype_names[p->kv_dtype]);
        if (r->checked && r->check.format_max_rel >= 0) printf("%.3g", r->check.format_max_rel);
        printf("\n");
    }
}

/* Google Benchmark schema: per phase one "iteration" row per repetition and a "median"
 * aggregate; the name ends in the phase. */
static void print_json(const hr_layer_spec *s, const hr_layer_result *r, const char *src, char (*warn)[200],
                       int nw)
{
    const char *wp[16];
    for (int i = 0; i < nw; i++) wp[i] = warn[i];
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "context", hr_context_json(wp, nw));
    cJSON *rows = cJSON_AddArrayToObject(doc, "benchmarks");
    char base[256], name[300], agg[320];
    hr_layer_name(s, r, base, sizeof base);
    for (int ph = 0; ph < HR_NPHASES; ph++) {
        const hr_timing *tm = &r->phase[ph].timing;
        snprintf(name, sizeof name, "%s/%s", base, hr_phase_names[ph]);
        for (int i = 0; i <= tm->reps; i++) {
            const int is_agg = i == tm->reps;
            const double t = is_agg ? tm->s.median : tm->rep_time[i];
            double c = t; /* process CPU time: the repetition's, the median's of them */
            if (is_agg) {
                hr_summary sc;
                hr_summarize(tm->rep_cpu, tm->reps, &sc);
                if (sc.median > 0) c = sc.median;
            } else if (tm->rep_cpu[i] > 0) {
                c = tm->rep_cpu[i];
            }
            snprintf(agg, sizeof agg, "%s_median", name);
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", is_agg ? agg : name);
            cJSON_AddStringToObject(o, "run_name", name);
            cJSON_AddStringToObject(o, "run_type", is_agg ? "aggregate" : "iteration");
            cJSON_AddNumberToObject(o, "repetitions", tm->reps);
            if (is_agg) cJSON_AddStringToObject(o, "aggregate_name", "median");
            else cJSON_AddNumberToObject(o, "repetition_index", i);
            cJSON_AddNumberToObject(o, "threads", ph == HR_PHASE_CORE ? r->tune.threads : r->gemm_threads);
            cJSON_AddNumberToObject(o, "iterations", is_agg ? tm->reps : (double)tm->iters);
            cJSON_AddNumberToObject(o, "real_time", t * 1e9);
            cJSON_AddNumberToObject(o, "cpu_time", c * 1e9);
            cJSON_AddStringToObject(o, "time_unit", "ns");
            cJSON_AddStringToObject(o, "kernel", s->kernel->name);
            cJSON_AddStringToObject(o, "gemm", hr_gemm_names[s->gemm]);
            cJSON_AddStringToObject(o, "phase", hr_phase_names[ph]);
            cJSON_AddNumberToObject(o, "batch", r->prob.batch);
            cJSON_AddNumberToObject(o, "seq", r->prob.seq_q);
            cJSON_AddNumberToObject(o, "d_model", s->d_model);
            cJSON_AddNumberToObject(o, "heads", r->prob.heads);
            cJSON_AddNumberToObject(o, "kv_heads", r->prob.kv_heads);
            cJSON_AddNumberToObject(o, "d_head", r->prob.d_head);
            cJSON_AddBoolToObject(o, "causal", r->prob.causal);
            cJSON_AddStringToObject(o, "dtype", hr_dtype_names[r->prob.dtype]);
            cJSON_AddStringToObject(o, "kv_dtype", hr_dtype_names[r->prob.kv_dtype]);
            /* the variants only where set, as run's rows have them */
            if (r->prob.window > 0) cJSON_AddNumberToObject(o, "window", r->prob.window);
            if (r->prob.softcap > 0) cJSON_AddNumberToObject(o, "softcap", r->prob.softcap);
            if (r->prob.alibi > 0) cJSON_AddNumberToObject(o, "alibi", r->prob.alibi);
            cJSON_AddNumberToObject(o, "flops", r->phase[ph].flops);
            cJSON_AddNumberToObject(o, "GFLOPS", t > 0 ? r->phase[ph].flops / t * 1e-9 : 0);
            if (r->checked) cJSON_AddNumberToObject(o, "max_rel_err", r->check.max_rel_err);
            if (r->checked && r->check.format_max_rel >= 0) {
                cJSON_AddNumberToObject(o, "format_max_rel", r->check.format_max_rel);
                cJSON_AddNumberToObject(o, "format_nmse", r->check.format_nmse);
            }
            cJSON_AddNumberToObject(o, "block_q", r->tune.block_q);
            cJSON_AddNumberToObject(o, "block_kv", r->tune.block_kv);
            cJSON_AddNumberToObject(o, "core_threads", r->tune.threads);
            cJSON_AddStringToObject(o, "tune_source", src);
            cJSON_AddItemToArray(rows, o);
        }
    }
    char *txt = hr_json_text(doc, 1);
    printf("%s\n", txt);
    free(txt);
    cJSON_Delete(doc);
}

/* --model: the sizes no flag set (0) from the preset, causal, and the variants of layer
 * `layer` where no flag set them (its window when the model windows that layer, the soft
 * cap). HR_OK, or HR_EUSAGE for an unreadable presets file, an unknown model or a layer
 * past the model's. */
static int from_model(const char *name, const char *file, int layer, int *d_model, int *heads, int *kv_heads,
                      int *d, bool *causal, hr_variant_flags *vf)
{
    hr_models ms;
    int st = hr_models_open(file, &ms);
    if (st) return st;
    const hr_model *m = hr_models_find(&ms, name);
    if (!m) st = hr_fail("--model: unknown model '%s' (see headroom kvcache)", name);
    else if (layer >= m->layers) st = hr_fail("--layer: %s has layers 0..%d, got %d", m->name, m->layers - 1, layer);
    else {
        *d_model = *d_model ? *d_model : m->d_model;
        *heads = *heads ? *heads : m->heads;
        *kv_heads = *kv_heads ? *kv_heads : m->kv_heads;
        *d = *d ? *d : m->d_head;
        *causal = true; /* the presets are decoder models */
        if (!vf->window) vf->window = hr_layer_window(m->window, m->window_every, layer);
        if (!(vf->softcap > 0)) vf->softcap = m->softcap;
    }
    hr_models_free(&ms);
    return st;
}

int cmd_layer(int argc, char **argv)
{
    const hr_kernel *k = hr_kernel_find("flash");
    hr_timing_flags tf;
    hr_wisdom_flags wf;
    hr_timing_flags_init(&tf, HR_TF_REPS | HR_TF_MIN_TIME | HR_TF_WARMUP | HR_TF_SEED);
    tf.reps = 5, tf.warmup = 0.05;
    hr_opt_help(tf.opts, "--reps", "timed repetitions per phase (5)");
    hr_opt_help(tf.opts, "--warmup", "untimed warm-up seconds per phase (0.05)");
    hr_opt_help(tf.opts, "--seed", "input and weight seed (1)");
    hr_wisdom_flags_init(&wf, true);
    hr_opt_help(wf.opts, "--wisdom", "core's tuned parameters ($HEADROOM_WISDOM or results/<machine>/wisdom.json)");
    int batch = 1, d_model = 0, heads = 0, kv_heads = 0, d = 0, seq = 512, threads = 0, layer_ix = 0;
    const char *model = NULL, *models_flag = NULL;
    hr_variant_flags vf;
    hr_variant_flags_init(&vf);
    int gemm = HR_GEMM_OWN, block_q = 0, block_kv = 0;
    hr_format format = HR_FMT_TABLE;
    double max_mem = 0;
    bool causal = false, check = false;
    hr_dtype_flags types;
    hr_dtype_flags_init(&types, "the core's Q, K, V, O type: f32, bf16, f16 (f32; the GEMMs stay fp32)",
                        "the core's K/V type (--dtype), as the kernel takes them");
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_KERNEL, &k, 0, 0, NULL, "NAME", "attention core (flash; headroom list)"},
        {"--model", HR_OPT_STR, &model, 0, 0, NULL, "NAME",
         "a preset's d_model, heads, kv_heads, d_head, causal and the variants of --layer"},
        {"--models", HR_OPT_STR, &models_flag, 0, 0, NULL, "FILE", "model presets (configs/model-presets.ini)"},
        {"--layer", HR_OPT_INT, &layer_ix, 0, 1 << 20, NULL, "L",
         "with --model: which layer (0; a windowed model's layers 0, every, 2 every, ... are local)"},
        {"types", HR_OPT_GROUP, types.opts, 0, 0, NULL, NULL, NULL},
        {"variants", HR_OPT_GROUP, vf.opts, 0, 0, NULL, NULL, NULL},
        {"--gemm", HR_OPT_ENUM, &gemm, 0, 0, hr_gemm_names, NULL, "projection GEMM: own or blas (own)"},
        {"--d-model", HR_OPT_INT, &d_model, 1, 65536, NULL, "DM", "model width (512)"},
        {"--heads", HR_OPT_INT, &heads, 1, HR_MAX_HEADS, NULL, "H", "query heads (d_model / d_head)"},
        {"--kv-heads", HR_OPT_INT, &kv_heads, 1, HR_MAX_HEADS, NULL, "G", "KV heads, divides H (H)"},
        {"--d-head", HR_OPT_INT, &d, 1, HR_MAX_DHEAD, NULL, "D", "head dimension (64)"},
        {"--seq", HR_OPT_INT, &seq, 1, HR_MAX_SEQ, NULL, "N", "sequence length (512)"},
        {"--batch", HR_OPT_INT, &batch, 1, HR_MAX_BATCH, NULL, "B", "batch size (1)"},
        {"--causal", HR_OPT_FLAG, &causal, 0, 0, NULL, NULL, "causal mask"},
        {"--threads", HR_OPT_INT, &threads, 1, HR_THREADS_MAX, NULL, "T", "threads for GEMMs and core (all CPUs)"},
        {"--block-q", HR_OPT_INT, &block_q, 1, 1 << 16, NULL, "BQ", "core: query rows per tile"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "core: keys per tile"},
        {"timing", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL},
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL, "check Y against the fp64 layer first; exit 1 if it fails"},
        HR_MAX_MEM_OPT(&max_mem),
        HR_FORMAT_OPT(&format, formats),
        {"wisdom", HR_OPT_GROUP, wf.opts, 0, 0, NULL, NULL, NULL},
        HR_PLUGIN_OPT,
        {NULL},
    };
    const char *syn = "layer [--kernel NAME] [--gemm own|blas] [--d-model DM] [--seq N] [options]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st) goto err; /* -1 after --help: hr_cmd_status returns HR_OK */
    if (models_flag && !model) {
        st = hr_fail("--models: needs --model NAME (the preset to take from %s)", models_flag);
        goto err;
    }
    if (layer_ix && !model) {
        st = hr_fail("--layer: needs --model NAME (which model's layer %d)", layer_ix);
        goto err;
    }
    if (model && (st = from_model(model, models_flag, layer_ix, &d_model, &heads, &kv_heads, &d, &causal, &vf)))
        goto err;
    d_model = d_model ? d_model : 512, d = d ? d : 64;
    if (!heads) {
        if (d_model % d) {
            st = hr_fail("--heads: d_model %d is not a multiple of d_head %d; give --heads", d_model, d);
            goto err;
        }
        heads = d_model / d;
    }
    hr_layer_spec s = {
        .batch = batch, .seq = seq, .d_model = d_model, .heads = heads,
        .kv_heads = kv_heads ? kv_heads : heads, .d_head = d, .causal = causal, .window = vf.window,
        .softcap = (float)vf.softcap, .alibi = (float)vf.alibi, .kernel = k,
        .tune = {block_q, block_kv, threads}, .gemm = (hr_gemm_backend)gemm, .threads = threads,
        .timer = hr_timing_flags_timer(&tf),
        .seed = (uint64_t)tf.seed, .check = check, .max_mem = max_mem,
    };
    hr_problem tp = {0};
    hr_dtype_flags_apply(&types, &tp);
    s.dtype = tp.dtype, s.kv_dtype = tp.kv_dtype;
    /* Wisdom fills the core's parameters no flag set, looked up for the core's shape. */
    const char *src;
    const hr_problem p = {batch, heads, s.kv_heads, seq, seq, d, causal, 0, s.dtype, s.kv_dtype,
                          s.window, s.softcap, s.alibi, 0};
    if ((st = hr_wisdom_apply(wf.path, wf.off, k, &p, &s.tune, &src))) goto err;
    hr_layer_result r;
    st = hr_layer_bench(&s, &r);
    if (st == HR_EFAIL) {
        fprintf(stderr, "headroom layer: %s\n", hr_errmsg());
        return st;
    }
    if (st) goto err;
    char warn[16][200];
    int nw = 0;
    hr_env_warnings(warn, 16, &nw);
    hr_threads_warning("GEMMs", r.gemm_threads, warn, 16, &nw);
    hr_threads_warning("core", r.tune.threads, warn, 16, &nw);
    for (int i = 0; i < HR_NPHASES && nw < 16; i++)
        if (r.phase[i].timing.reps > 1 && r.phase[i].timing.s.cv > 0.05)
            snprintf(warn[nw++], 200, "phase %s: CV %.1f%% > 5%%: the machine is noisy",
                     hr_phase_names[i], r.phase[i].timing.s.cv * 100);
    for (int i = 0; i < nw; i++) fprintf(stderr, "headroom layer: warning: %s\n", warn[i]);
    if (format == HR_FMT_TABLE) print_table(&s, &r, src);
    else if (format == HR_FMT_CSV) print_csv(&s, &r, src);
    else print_json(&s, &r, src, warn, nw);
    return HR_OK;
err:
    return hr_cmd_status("layer", st);
}

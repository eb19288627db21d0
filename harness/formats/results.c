/* results.c — the one results writer: Google Benchmark-schema JSON, CSV and text tables. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counts.h"
#include "files.h"
#include "phase.h"
#include "results.h"
#include "sysinfo.h"

/* Counters that get their own CSV column, in this order (empty when a row lacks one). */
const char *const hr_csv_counter_names[] = {
    "AI", "ceiling_gflops", "ceiling_gbs", "attainable_gflops", "pct_of_roofline", "GBps",
    "probe_gflops", "frac_of_ceiling", "probe_gbs", "phase_changes", "phase_excluded", "d_model", "format_max_rel", "format_nmse",
    "level_gbs", "attainable_level_gflops", "pct_of_level_roof", NULL,
};

static const hr_counter *get_counter(const hr_result *r, const char *name)
{
    for (int i = 0; i < r->ncounters; i++)
        if (!strcmp(r->counters[i].name, name)) return &r->counters[i];
    return NULL;
}

/* Counters written per repetition by add_probe_fields, not copied into every row. */
static bool per_rep_counter(const char *name)
{
    return !strcmp(name, "probe_gflops") || !strcmp(name, "probe_gbs") || !strcmp(name, "frac_of_ceiling");
}

/* The shape, tunables and counts of a result: what its rows and its rows.jsonl line share. */
static void shape_fields(cJSON *o, const hr_result *r)
{
    const hr_problem *p = &r->prob;
    cJSON_AddStringToObject(o, "kernel", r->kernel->name);
    cJSON_AddNumberToObject(o, "batch", p->batch);
    cJSON_AddNumberToObject(o, "heads", p->heads);
    cJSON_AddNumberToObject(o, "kv_heads", p->kv_heads);
    cJSON_AddNumberToObject(o, "seq_q", p->seq_q);
    cJSON_AddNumberToObject(o, "seq_kv", p->seq_kv);
    cJSON_AddNumberToObject(o, "d_head", p->d_head);
    cJSON_AddBoolToObject(o, "causal", p->causal);
    cJSON_AddStringToObject(o, "layout", hr_layout_names[r->layout]);
    cJSON_AddStringToObject(o, "dtype", hr_dtype_names[p->dtype]);
    cJSON_AddStringToObject(o, "kv_dtype", hr_dtype_names[p->kv_dtype]);
    /* The variants only where set: a plain row reads as it did before they existed. */
    if (p->window > 0) cJSON_AddNumberToObject(o, "window", p->window);
    if (p->softcap > 0) cJSON_AddNumberToObject(o, "softcap", p->softcap);
    if (p->alibi > 0) cJSON_AddNumberToObject(o, "alibi", p->alibi);
    if (p->page_size > 0) cJSON_AddNumberToObject(o, "page_size", p->page_size);
    if (r->path[0]) cJSON_AddStringToObject(o, "path", r->path);
    const hr_plugin_origin *po = r->kernel->plugin;
    if (po) { /* a plugin's kernel: which file, and the library and version it wraps */
        cJSON_AddStringToObject(o, "plugin", po->file);
        cJSON_AddStringToObject(o, "plugin_library", po->library);
        cJSON_AddStringToObject(o, "plugin_version", po->version);
    }
    cJSON_AddNumberToObject(o, "block_q", r->tune.block_q);
    cJSON_AddNumberToObject(o, "block_kv", r->tune.block_kv);
    cJSON_AddStringToObject(o, "tune_source", r->tune_source ? r->tune_source : "default");
    cJSON_AddNumberToObject(o, "flops", r->flops);
    cJSON_AddNumberToObject(o, "bytes", r->bytes);
    cJSON_AddNumberToObject(o, "workspace_bytes", r->workspace_bytes);
    if (r->bound_level[0]) cJSON_AddStringToObject(o, "bound_level", r->bound_level);
    if (r->bound_by[0]) cJSON_AddStringToObject(o, "bound_by", r->bound_by);
    if (r->softmax_step[0]) cJSON_AddStringToObject(o, "softmax_step", r->softmax_step);
}

/* Fields every row of a result shares: the shape, tunables, counts and counters. */
static void add_fields(cJSON *o, const hr_result *r)
{
    shape_fields(o, r);
    if (r->checked) {
        cJSON_AddNumberToObject(o, "max_rel_err", r->check.max_rel_err);
        cJSON_AddStringToObject(o, "check", hr_check_names[r->check.verdict]);
    }
    for (int i = 0; i < r->ncounters; i++)
        if (isfinite(r->counters[i].value) && !(r->timing.probe_kind && per_rep_counter(r->counters[i].name)))
            cJSON_AddNumberToObject(o, r->counters[i].name, r->counters[i].value);
}

/* The probe fields of a row (phase.h): for repetition rep, its concurrent ceiling,
 * frac_of_ceiling and phase flag; for an aggregate row (rep < 0), aggregate agg (0
 * median, 1 mean, 2 stddev, 3 cv) of them over the repetitions not excluded, as Google
 * Benchmark aggregates its counters. */
static void add_probe_fields(cJSON *o, const hr_result *r, int rep, int agg)
{
    const hr_timing *t = &r->timing;
    if (!t->probe_kind) return;
    const char *cname = t->probe_kind == HR_PROBE_FMA ? "probe_gflops" : "probe_gbs";
    cJSON_AddStringToObject(o, "probe_kind", hr_probe_kind_names[t->probe_kind]);
    if (rep >= 0) {
        cJSON_AddNumberToObject(o, cname, hr_phase_ceiling(r, rep));
        cJSON_AddNumberToObject(o, "frac_of_ceiling", hr_phase_frac(r, rep));
        cJSON_AddBoolToObject(o, "phase_change", t->phase_change[rep]);
        if (hr_phase_excluded(t, rep)) cJSON_AddBoolToObject(o, "excluded", true);
        return;
    }
    double c[HR_MAX_REPS], f[HR_MAX_REPS];
    int n = 0;
    for (int i = 0; i < t->reps; i++)
        if (!hr_phase_excluded(t, i)) {
            c[n] = hr_phase_ceiling(r, i);
            f[n++] = hr_phase_frac(r, i);
        }
    hr_summary sc, sf;
    hr_summarize(c, n, &sc);
    hr_summarize(f, n, &sf);
    const double vc[4] = {sc.median, sc.mean, sc.stddev, sc.cv}, vf[4] = {sf.median, sf.mean, sf.stddev, sf.cv};
    cJSON_AddNumberToObject(o, cname, vc[agg]);
    cJSON_AddNumberToObject(o, "frac_of_ceiling", vf[agg]);
}

/* cpu_time of repetition i in seconds per call: the measured process CPU time; a row read
 * back from a file written before it was measured has none, and its real time stands in. */
static double rep_cpu(const hr_timing *t, int i) { return t->rep_cpu[i] > 0 ? t->rep_cpu[i] : t->rep_time[i]; }

static cJSON *row(const char *name, const char *run_name)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "family_index", 0);
    cJSON_AddNumberToObject(o, "per_family_instance_index", 0);
    cJSON_AddStringToObject(o, "run_name", run_name);
    return o;
}

void hr_result_json_rows(const hr_result *r, cJSON *benchmarks, bool aggregates_only)
{
    char name[256];
    hr_result_name(r, name, sizeof name);
    const hr_timing *tm = &r->timing;
    for (int i = 0; i < tm->reps && !aggregates_only; i++) {
        cJSON *o = row(name, name);
        cJSON_AddStringToObject(o, "run_type", "iteration");
        cJSON_AddNumberToObject(o, "repetitions", tm->reps);
        cJSON_AddNumberToObject(o, "repetition_index", i);
        cJSON_AddNumberToObject(o, "threads", r->tune.threads);
        cJSON_AddNumberToObject(o, "iterations", (double)tm->iters);
        cJSON_AddNumberToObject(o, "real_time", tm->rep_time[i] * 1e9);
        cJSON_AddNumberToObject(o, "cpu_time", rep_cpu(tm, i) * 1e9);
        cJSON_AddStringToObject(o, "time_unit", "ns");
        add_fields(o, r);
        cJSON_AddNumberToObject(o, "GFLOPS", tm->rep_time[i] > 0 ? r->flops / tm->rep_time[i] * 1e-9 : 0);
        add_probe_fields(o, r, i, 0);
        cJSON_AddItemToArray(benchmarks, o);
    }
    double cpu[HR_MAX_REPS];
    for (int i = 0; i < tm->reps; i++) cpu[i] = rep_cpu(tm, i);
    hr_summary sc;
    hr_summarize(cpu, tm->reps, &sc);
    struct {
        const char *agg;
        double v, c;
        int pct;
    } aggs[] = {{"median", tm->s.median, sc.median, 0}, {"mean", tm->s.mean, sc.mean, 0},
                {"stddev", tm->s.stddev, sc.stddev, 0}, {"cv", tm->s.cv, sc.cv, 1}};
    for (int i = 0; i < 4; i++) {
        char aname[300];
        snprintf(aname, sizeof aname, "%s_%s", name, aggs[i].agg);
        cJSON *o = row(aname, name);
        cJSON_AddStringToObject(o, "run_type", "aggregate");
        cJSON_AddNumberToObject(o, "repetitions", tm->reps);
        cJSON_AddNumberToObject(o, "threads", r->tune.threads);
        cJSON_AddStringToObject(o, "aggregate_name", aggs[i].agg);
        cJSON_AddStringToObject(o, "aggregate_unit", aggs[i].pct ? "percentage" : "time");
        cJSON_AddNumberToObject(o, "iterations", (double)tm->reps);
        const double u = aggs[i].pct ? 1 : 1e9;
        cJSON_AddNumberToObject(o, "real_time", aggs[i].v * u);
        cJSON_AddNumberToObject(o, "cpu_time", aggs[i].c * u);
        cJSON_AddStringToObject(o, "time_unit", "ns");
        add_fields(o, r);
        if (i < 2) cJSON_AddNumberToObject(o, "GFLOPS", aggs[i].v > 0 ? r->flops / aggs[i].v * 1e-9 : 0);
        add_probe_fields(o, r, -1, i);
        cJSON_AddItemToArray(benchmarks, o);
    }
}

cJSON *hr_result_json_summary(const hr_result *r)
{
    char name[256];
    hr_result_name(r, name, sizeof name);
    const hr_summary *s = &r->timing.s;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "threads", r->tune.threads);
    cJSON_AddNumberToObject(o, "repetitions", r->timing.reps);
    cJSON_AddNumberToObject(o, "iterations", (double)r->timing.iters);
    cJSON_AddNumberToObject(o, "real_time", s->median * 1e9);
    cJSON_AddStringToObject(o, "time_unit", "ns");
    cJSON_AddNumberToObject(o, "min_time", s->min * 1e9);
    cJSON_AddNumberToObject(o, "max_time", s->max * 1e9);
    cJSON_AddNumberToObject(o, "mean_time", s->mean * 1e9);
    cJSON_AddNumberToObject(o, "cv", s->cv);
    add_fields(o, r);
    cJSON_AddNumberToObject(o, "GFLOPS", hr_result_gflops(r));
    add_probe_fields(o, r, -1, 0);
    return o;
}

void hr_csv_header(FILE *f)
{
    fprintf(f, "name,kernel,batch,heads,kv_heads,seq_q,seq_kv,d_head,causal,layout,threads,"
               "block_q,block_kv,tune_source,reps,iters,time_median_s,time_min_s,time_max_s,"
               "time_mean_s,cv,GFLOPS,flops,bytes,workspace_bytes,max_rel_err,dtype,kv_dtype,path");
    for (int i = 0; hr_csv_counter_names[i]; i++) fprintf(f, ",%s", hr_csv_counter_names[i]);
    fprintf(f, ",bound_level,plugin_library,plugin_version,window,softcap,alibi,page_size\n");
}

void hr_csv_row(FILE *f, const hr_result *r)
{
    char name[256];
    hr_result_name(r, name, sizeof name);
    const hr_problem *p = &r->prob;
    const hr_summary *s = &r->timing.s;
    hr_csv_field(f, name); /* a label may hold a comma or a quote */
    fprintf(f, ",%s,%d,%d,%d,%d,%d,%d,%d,%s,%d,%d,%d,%s,%d,%ld,%.9g,%.9g,%.9g,%.9g,%.5g,%.6g,%.9g,%.9g,%.9g,",
            r->kernel->name, p->batch, p->heads, p->kv_heads, p->seq_q, p->seq_kv,
            p->d_head, p->causal, hr_layout_names[r->layout], r->tune.threads, r->tune.block_q,
            r->tune.block_kv, r->tune_source ? r->tune_source : "default", r->timing.reps,
            r->timing.iters, s->median, s->min, s->max, s->mean, s->cv, hr_result_gflops(r),
            r->flops, r->bytes, r->workspace_bytes);
    if (r->checked) fprintf(f, "%.3g", r->check.max_rel_err);
    char path[sizeof r->path];
    snprintf(path, sizeof path, "%s", r->path);
    for (char *c = path; *c; c++)
        if (*c == ',' || *c == '\n' || *c == '"') *c = ';'; /* a kernel's free text must not break the CSV */
    fprintf(f, ",%s,%s,%s", hr_dtype_names[p->dtype], hr_dtype_names[p->kv_dtype], path);
    for (int i = 0; hr_csv_counter_names[i]; i++) {
        const hr_counter *c = get_counter(r, hr_csv_counter_names[i]);
        if (c && isfinite(c->value)) fprintf(f, ",%.6g", c->value);
        else fprintf(f, ",");
    }
    fprintf(f, ",%s,", r->bound_level);
    const hr_plugin_origin *po = r->kernel->plugin; /* a peer's kernel: the library it wraps */
    if (po) hr_csv_field(f, po->library), fputc(',', f), hr_csv_field(f, po->version);
    else fputc(',', f);
    fprintf(f, ",%d,%g,%g,%d\n", p->window, p->softcap, p->alibi, p->page_size);
}

void hr_table_header(FILE *f)
{
    fprintf(f, "%-8s %-30s %3s %11s %11s %11s %6s %9s %9s %10s\n", "kernel", "shape", "T",
            "median ms", "min ms", "max ms", "cv%", "GFLOP/s", "ceiling", "check");
}

void hr_table_row(FILE *f, const hr_result *r)
{
    char shape[96], ceil_s[24] = "-";
    hr_problem_str(&r->prob, shape, sizeof shape);
    if (r->layout == HR_LAYOUT_BNHD) strncat(shape, " bnhd", sizeof shape - strlen(shape) - 1);
    const hr_counter *c = get_counter(r, "attainable_gflops");
    if (c) snprintf(ceil_s, sizeof ceil_s, "%.1f", c->value);
    const hr_summary *s = &r->timing.s;
    fprintf(f, "%-8s %-30s %3d %11.4f %11.4f %11.4f %6.1f %9.2f %9s %10s\n", r->kernel->name,
            shape, r->tune.threads, s->median * 1e3, s->min * 1e3, s->max * 1e3, s->cv * 100,
            hr_result_gflops(r), ceil_s, r->checked ? hr_check_names[r->check.verdict] : "-");
}

/* ---- rows.jsonl: a result as one JSON object, and back ------------------------------------------------------------------- */

/* Counter names read back from rows.jsonl live for the process (hr_counter holds a
 * pointer); each distinct name is kept once. */
static const char *intern(const char *s)
{
    static char *pool[256];
    static int n;
    for (int i = 0; i < n; i++)
        if (!strcmp(pool[i], s)) return pool[i];
    if (n >= 256) return NULL;
    return pool[n++] = strdup(s);
}

cJSON *hr_result_to_json(const hr_result *r)
{
    cJSON *o = cJSON_CreateObject();
    shape_fields(o, r);
    if (r->label[0]) cJSON_AddStringToObject(o, "label", r->label);
    cJSON_AddNumberToObject(o, "scale", r->prob.scale);
    cJSON_AddNumberToObject(o, "threads", r->tune.threads);
    cJSON_AddNumberToObject(o, "iters", (double)r->timing.iters);
    cJSON_AddItemToObject(o, "rep_time", cJSON_CreateDoubleArray(r->timing.rep_time, r->timing.reps));
    cJSON_AddItemToObject(o, "rep_cpu", cJSON_CreateDoubleArray(r->timing.rep_cpu, r->timing.reps));
    if (r->timing.probe_kind) {
        const hr_timing *t = &r->timing;
        cJSON_AddStringToObject(o, "probe_kind", hr_probe_kind_names[t->probe_kind]);
        cJSON_AddItemToObject(o, "probe_before", cJSON_CreateDoubleArray(t->probe_before, t->reps));
        cJSON_AddItemToObject(o, "probe_after", cJSON_CreateDoubleArray(t->probe_after, t->reps));
        cJSON_AddNumberToObject(o, "phase_threshold", t->phase_threshold);
        cJSON_AddBoolToObject(o, "phase_filter", t->phase_filter);
    }
    if (r->checked) {
        const hr_check *c = &r->check;
        cJSON *k = cJSON_AddObjectToObject(o, "check");
        const struct {
            const char *n;
            double v;
        } f[] = {{"max_abs_err", c->max_abs_err}, {"max_rel_err", c->max_rel_err}, {"nmse", c->nmse},
                 {"tol_pass", c->tol_pass}, {"tol_warn", c->tol_warn}, {"nonfinite", (double)c->nonfinite},
                 {"input_nonfinite", (double)c->input_nonfinite}, {"masked_nonzero", (double)c->masked_nonzero},
                 {"rows_checked", (double)c->rows_checked}, {"rows_total", (double)c->rows_total},
                 {"verdict", c->verdict}};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) cJSON_AddNumberToObject(k, f[i].n, f[i].v);
    }
    cJSON *cs = cJSON_AddObjectToObject(o, "counters");
    for (int i = 0; i < r->ncounters; i++)
        if (isfinite(r->counters[i].value)) cJSON_AddNumberToObject(cs, r->counters[i].name, r->counters[i].value);
    return o;
}

static int num(const cJSON *o, const char *name, double *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!cJSON_IsNumber(x)) return hr_fail("field '%s' missing or not a number", name);
    *v = x->valuedouble;
    return HR_OK;
}

int hr_result_from_json(const cJSON *o, hr_result *r)
{
    memset(r, 0, sizeof *r);
    const cJSON *kn = cJSON_GetObjectItemCaseSensitive(o, "kernel");
    if (!cJSON_IsString(kn)) return hr_fail("field 'kernel' missing");
    if (!(r->kernel = hr_kernel_find(kn->valuestring)))
        return hr_fail("kernel '%s' is not in this binary", kn->valuestring);
    const cJSON *lb = cJSON_GetObjectItemCaseSensitive(o, "label");
    if (cJSON_IsString(lb)) snprintf(r->label, sizeof r->label, "%s", lb->valuestring);
    static const char *const ints[] = {"batch", "heads", "kv_heads", "seq_q", "seq_kv", "d_head",
                                       "block_q", "block_kv", "threads", NULL};
    int *dst[] = {&r->prob.batch, &r->prob.heads, &r->prob.kv_heads, &r->prob.seq_q, &r->prob.seq_kv,
                  &r->prob.d_head, &r->tune.block_q, &r->tune.block_kv, &r->tune.threads};
    double v = 0;
    for (int i = 0; ints[i]; i++) {
        if (num(o, ints[i], &v)) return HR_EUSAGE;
        if (!(v >= INT_MIN && v <= INT_MAX)) /* a cast out of range is UB */
            return hr_fail("field '%s' out of range", ints[i]);
        *dst[i] = (int)v;
    }
    if (num(o, "scale", &v)) return HR_EUSAGE;
    r->prob.scale = (float)v;
    r->prob.causal = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "causal"));
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, "layout");
    int li = cJSON_IsString(l) ? hr_choice(hr_layout_names, l->valuestring) : -1;
    if (li < 0) return hr_fail("field 'layout' missing or unknown");
    r->layout = (hr_layout)li;
    /* Element types: a file from before they existed has none, and its rows were f32. */
    static const char *const tfields[] = {"dtype", "kv_dtype"};
    hr_dtype *tdst[] = {&r->prob.dtype, &r->prob.kv_dtype};
    for (int i = 0; i < 2; i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, tfields[i]);
        int ti = !t ? HR_F32 : cJSON_IsString(t) ? hr_choice(hr_dtype_names, t->valuestring) : -1;
        if (ti < 0) return hr_fail("field '%s' is not an element type (%s)", tfields[i], "f32, bf16, f16, q8_0, q4_0");
        *tdst[i] = (hr_dtype)ti;
    }
    /* The variants: absent in files from before them, and in plain rows. */
    static const char *const vfields[] = {"window", "softcap", "alibi", "page_size"};
    for (int i = 0; i < 4; i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, vfields[i]);
        if (!t) continue;
        if (!cJSON_IsNumber(t) || !(t->valuedouble >= 0 && t->valuedouble <= HR_MAX_SEQ))
            return hr_fail("field '%s' is not a number in [0, %d]", vfields[i], HR_MAX_SEQ);
        if (i == 0 || i == 3) *(i == 0 ? &r->prob.window : &r->prob.page_size) = (int)t->valuedouble;
        else *(i == 1 ? &r->prob.softcap : &r->prob.alibi) = (float)t->valuedouble;
    }
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(o, "path");
    if (cJSON_IsString(pa)) hr_copy_text(r->path, sizeof r->path, pa->valuestring);
    const cJSON *bl = cJSON_GetObjectItemCaseSensitive(o, "bound_level");
    if (cJSON_IsString(bl)) snprintf(r->bound_level, sizeof r->bound_level, "%s", bl->valuestring);
    const cJSON *bb = cJSON_GetObjectItemCaseSensitive(o, "bound_by");
    if (cJSON_IsString(bb)) snprintf(r->bound_by, sizeof r->bound_by, "%s", bb->valuestring);
    const cJSON *ss = cJSON_GetObjectItemCaseSensitive(o, "softmax_step");
    if (cJSON_IsString(ss)) snprintf(r->softmax_step, sizeof r->softmax_step, "%s", ss->valuestring);
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "tune_source");
    static const char *const sources[] = {"default", "flag", "wisdom", "flag+wisdom", NULL};
    int si = cJSON_IsString(ts) ? hr_choice(sources, ts->valuestring) : 0;
    r->tune_source = sources[si < 0 ? 0 : si];
    if (num(o, "flops", &r->flops) || num(o, "bytes", &r->bytes) ||
        num(o, "workspace_bytes", &r->workspace_bytes) || num(o, "iters", &v))
        return HR_EUSAGE;
    if (!(v >= 0 && v <= 1e18)) return hr_fail("field 'iters' out of range");
    r->timing.iters = (long)v;
    const cJSON *rt = cJSON_GetObjectItemCaseSensitive(o, "rep_time"), *x;
    if (!cJSON_IsArray(rt)) return hr_fail("field 'rep_time' missing");
    cJSON_ArrayForEach(x, rt)
    {
        if (!cJSON_IsNumber(x) || r->timing.reps >= HR_MAX_REPS) return hr_fail("field 'rep_time' malformed");
        r->timing.rep_time[r->timing.reps++] = x->valuedouble;
    }
    if (r->timing.reps < 1) return hr_fail("field 'rep_time' is empty");
    const cJSON *rc = cJSON_GetObjectItemCaseSensitive(o, "rep_cpu"); /* absent in older rows */
    if (rc && (!cJSON_IsArray(rc) || cJSON_GetArraySize(rc) != r->timing.reps))
        return hr_fail("field 'rep_cpu' malformed");
    int nc = 0;
    cJSON_ArrayForEach(x, rc)
    {
        if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0)) return hr_fail("field 'rep_cpu' malformed");
        r->timing.rep_cpu[nc++] = x->valuedouble;
    }
    hr_summarize(r->timing.rep_time, r->timing.reps, &r->timing.s);
    const cJSON *pk = cJSON_GetObjectItemCaseSensitive(o, "probe_kind");
    if (pk) {
        /* Probed: the per-repetition probes come back and the phase flags and filtered
         * statistics are recomputed from them. */
        hr_timing *t = &r->timing;
        int kind = cJSON_IsString(pk) ? hr_choice(hr_probe_kind_names, pk->valuestring) : -1;
        if (kind != HR_PROBE_FMA && kind != HR_PROBE_BW) return hr_fail("field 'probe_kind' malformed");
        double *dst2[] = {t->probe_before, t->probe_after};
        static const char *const arr[] = {"probe_before", "probe_after"};
        for (int i = 0; i < 2; i++) {
            const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, arr[i]);
            if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != t->reps) return hr_fail("field '%s' malformed", arr[i]);
            int j = 0;
            cJSON_ArrayForEach(x, a)
            {
                if (!cJSON_IsNumber(x)) return hr_fail("field '%s' malformed", arr[i]);
                dst2[i][j++] = x->valuedouble;
            }
        }
        double thr = HR_PHASE_THRESHOLD;
        if (cJSON_GetObjectItemCaseSensitive(o, "phase_threshold") && num(o, "phase_threshold", &thr)) return HR_EUSAGE;
        t->probe_kind = kind;
        hr_phase_mark(t, thr, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "phase_filter")));
    }
    const cJSON *ck = cJSON_GetObjectItemCaseSensitive(o, "check");
    if (cJSON_IsObject(ck)) {
        hr_check *c = &r->check;
        double f[11];
        static const char *const names[] = {"max_abs_err", "max_rel_err", "nmse", "tol_pass", "tol_warn",
                                            "nonfinite", "input_nonfinite", "masked_nonzero",
                                            "rows_checked", "rows_total", "verdict"};
        for (int i = 0; i < 11; i++)
            if (num(ck, names[i], &f[i])) return HR_EUSAGE;
        for (int i = 5; i < 10; i++) /* counts: a cast out of range is UB */
            if (!(f[i] >= 0 && f[i] <= 1e18)) return hr_fail("field 'check.%s' out of range", names[i]);
        if (f[10] != HR_CHECK_PASS && f[10] != HR_CHECK_WARN && f[10] != HR_CHECK_FAIL)
            return hr_fail("field 'check.verdict' is not 0, 1 or 2"); /* indexes hr_check_names */
        *c = (hr_check){f[0], f[1], f[2], f[3], f[4], (long)f[5], (long)f[6], (long)f[7], (long)f[8],
                        (long)f[9], (int)f[10]};
        r->checked = true;
    }
    const cJSON *cs = cJSON_GetObjectItemCaseSensitive(o, "counters");
    if (cs && !cJSON_IsObject(cs)) return hr_fail("field 'counters' is not an object");
    cJSON_ArrayForEach(x, cs)
    {
        const char *nm = cJSON_IsNumber(x) && x->string ? intern(x->string) : NULL;
        if (nm) hr_result_set(r, nm, x->valuedouble);
    }
    return HR_OK;
}

/* cmd_run.c — `headroom run`: time one kernel on one shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ceilings.h"
#include "cli.h"
#include "commands.h"
#include "counts.h"
#include "files.h"
#include "phase.h"
#include "probe.h"
#include "results.h"
#include "roofline.h"
#include "sysinfo.h"
#include "threads.h"
#include "wisdom.h"

static const char *const formats[] = {"table", "csv", "json", NULL};

int cmd_run(int argc, char **argv)
{
    const hr_kernel *k = NULL;
    const char *save_dir = NULL;
    hr_shape_flags shape;
    hr_timing_flags tf;
    hr_probe_flags pf;
    hr_wisdom_flags wf;
    hr_shape_flags_init(&shape);
    hr_timing_flags_init(&tf, HR_TF_ALL);
    hr_probe_flags_init(&pf, HR_PF_ALL);
    hr_wisdom_flags_init(&wf, true);
    int threads = 0, block_q = 0, block_kv = 0;
    hr_format format = HR_FMT_TABLE;
    double max_mem = 0;
    bool check = false, aggs = false, quiet = false;
    hr_worker_flags wk;
    hr_worker_flags_init(&wk, "60");
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_KERNEL, &k, 0, 0, NULL, "NAME", "kernel to run (headroom list)"},
        {"shape", HR_OPT_GROUP, shape.opts, 0, 0, NULL, NULL, NULL},
        {"--threads", HR_OPT_INT, &threads, 1, HR_THREADS_MAX, NULL, "T", "threads (OMP_NUM_THREADS or all CPUs)"},
        {"--block-q", HR_OPT_INT, &block_q, 1, 1 << 16, NULL, "BQ", "query rows per tile (kernel default)"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "keys per tile (kernel default)"},
        {"timing", HR_OPT_GROUP, tf.opts, 0, 0, NULL, NULL, NULL},
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL, "verify against the oracle first; exit 1 if it fails"},
        {"--save", HR_OPT_STR, &save_dir, 0, 0, NULL, "DIR", "write q.npy k.npy v.npy o.npy to DIR"},
        HR_MAX_MEM_OPT(&max_mem),
        HR_FORMAT_OPT(&format, formats),
        {"--aggregates-only", HR_OPT_FLAG, &aggs, 0, 0, NULL, NULL, "with --format json: aggregate rows only, no per-repetition rows"},
        {"wisdom", HR_OPT_GROUP, wf.opts, 0, 0, NULL, NULL, NULL},
        {"probes", HR_OPT_GROUP, pf.opts, 0, 0, NULL, NULL, NULL},
        {"--quiet", HR_OPT_FLAG, &quiet, 0, 0, NULL, NULL, "warnings only into the JSON's context, not stderr"},
        {"workers", HR_OPT_GROUP, wk.opts, 0, 0, NULL, NULL, NULL},
        HR_PLUGIN_OPT,
        {NULL},
    };
    int st = hr_parse(argc, argv, opts, "run --kernel NAME [options]", NULL, 0, NULL);
    if (st) goto err; /* -1 after --help: hr_cmd_status returns HR_OK */
    if (!k) {
        st = hr_fail("--kernel: required (see headroom list)");
        goto err;
    }
    if ((st = hr_probe_flags_check(&pf))) goto err;
    if (aggs && format != HR_FMT_JSON) {
        st = hr_fail("--aggregates-only: only with --format json (table and csv hold medians only)");
        goto err;
    }
    hr_bench_spec s = {
        .prob = hr_shape_flags_problem(&shape),
        .layout = (hr_layout)shape.layout,
        .tune = {block_q, block_kv, threads},
        .dist = (hr_dist)tf.dist,
        .seed = (uint64_t)tf.seed,
        .timer = hr_timing_flags_timer(&tf),
        .check = check,
        .max_mem = max_mem,
        .save_dir = save_dir,
        .probe = hr_probe_flags_kind(&pf),
        .phase_threshold = pf.pct / 100,
        .phase_filter = pf.filter,
    };
    /* Wisdom fills the parameters no flag set; the source says which came from where. */
    if ((st = hr_wisdom_apply(wf.path, wf.off, k, &s.prob, &s.tune, &s.tune_source))) goto err;
    hr_result r;
    hr_proc w;
    st = wk.in_process ? hr_bench_run(k, &s, &r) : hr_bench_run_worker(k, &s, &r, wk.timeout, &w);
    if (st == HR_EWORKER) {
        char who[80];
        snprintf(who, sizeof who, "kernel %s", k->name);
        return hr_worker_failed("run", who, &w);
    }
    if (st) goto err;
    /* Roofline counters when this machine's ceilings were measured (headroom roofline). */
    static hr_ceilings ceilings;
    char cpath[512];
    hr_ceilings_default_path(cpath, sizeof cpath);
    const bool have_ceilings = hr_ceilings_load(cpath, &ceilings) == HR_OK;
    if (have_ceilings) hr_roofline_attach(&r, &ceilings);

    char warn[16][200];
    int nw = 0;
    hr_env_warnings(warn, 16, &nw);
    hr_bench_warnings(&r, warn, 16, &nw);
    if (have_ceilings && nw < 16 && hr_phase_short_note(&r, &ceilings, warn[nw], 200)) nw++;
    for (int i = 0; i < nw && !quiet; i++) fprintf(stderr, "headroom run: warning: %s\n", warn[i]);
    if (format == HR_FMT_TABLE) {
        hr_table_header(stdout);
        hr_table_row(stdout, &r);
        if (r.checked) {
            char msg[256];
            hr_check_str(&r.check, msg, sizeof msg);
            printf("check: %s [%s]\n", msg, r.path);
            /* Reduced types: the format's error beside the kernel's (bench.c sets both). */
            double fr = -1, fn = -1;
            for (int i = 0; i < r.ncounters; i++) {
                if (!strcmp(r.counters[i].name, "format_max_rel")) fr = r.counters[i].value;
                if (!strcmp(r.counters[i].name, "format_nmse")) fn = r.counters[i].value;
            }
            if (fr >= 0)
                printf("format: max_rel %.2e nmse %.2e (%s against the fp32 inputs; not judged)\n", fr, fn,
                       "the kernel's output");
        }
        if (r.timing.probe_kind) {
            bool fma = r.timing.probe_kind == HR_PROBE_FMA;
            /* The compute probe runs the loop of the row's own roof or the build's FMA
             * (bench.c): name it and its unit, so a bf16 dot or int8 ceiling is not read
             * as the FMA's ("fma" is the kind's stored name: a compute probe). */
            const int roof = fma ? hr_probe_roof(r.kernel, &r.prob) : -1;
            printf("probe: %s, concurrent ceiling %.4g %s%s%s%s, frac_of_ceiling %.4f (medians); phase changes %d of %d"
                   "%s\n",
                   fma ? "compute" : hr_probe_kind_names[r.timing.probe_kind], hr_phase_median(&r, 0),
                   fma ? hr_roof_unit(roof) : "GB/s", fma ? " (" : "", fma ? hr_roof_name(roof) : "",
                   fma ? " loop)" : "", hr_phase_median(&r, 1), r.timing.nphase, r.timing.reps,
                   r.timing.nexcluded ? " (excluded)" : "");
        }
    } else if (format == HR_FMT_CSV) {
        hr_csv_header(stdout);
        hr_csv_row(stdout, &r);
    } else {
        const char *wp[16];
        for (int i = 0; i < nw; i++) wp[i] = warn[i];
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddItemToObject(doc, "context", hr_context_json(wp, nw));
        hr_result_json_rows(&r, cJSON_AddArrayToObject(doc, "benchmarks"), aggs);
        char *txt = hr_json_text(doc, 1);
        printf("%s\n", txt);
        free(txt);
        cJSON_Delete(doc);
    }
    return HR_OK;
err:
    return hr_cmd_status("run", st);
}

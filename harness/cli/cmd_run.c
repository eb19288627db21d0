/* cmd_run.c — `headroom run`: time one kernel on one shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "sysinfo.h"
#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "counts.h"
#include "phase.h"
#include "roofline.h"
#include "wisdom.h"

static const char *const formats[] = {"table", "csv", "json", NULL};

int cmd_run(int argc, char **argv)
{
    const hr_kernel *k = NULL;
    const char *save_dir = NULL, *wisdom = NULL;
    hr_shape_flags shape;
    hr_shape_flags_init(&shape);
    int threads = 0, reps = 9, seed = 1, dist = HR_DIST_NORMAL, format = 0;
    int block_q = 0, block_kv = 0;
    double min_time = 0.05, warmup = 0.1, max_mem = 0;
    bool check = false, cold = false, no_wisdom = false;
    bool probe = false, no_probe = false, phase_filter = false;
    int probe_kind = HR_PROBE_AUTO;
    double phase_pct = HR_PHASE_THRESHOLD * 100;
    const hr_opt opts[] = {
        {"--kernel", HR_OPT_KERNEL, &k, 0, 0, NULL, "NAME", "kernel to run (headroom list)"},
        {"shape", HR_OPT_GROUP, shape.opts, 0, 0, NULL, NULL, NULL},
        {"--threads", HR_OPT_INT, &threads, 1, 1024, NULL, "T", "threads (OMP_NUM_THREADS or all CPUs)"},
        {"--block-q", HR_OPT_INT, &block_q, 1, 1 << 16, NULL, "BQ", "query rows per tile (kernel default)"},
        {"--block-kv", HR_OPT_INT, &block_kv, 1, 1 << 16, NULL, "BKV", "keys per tile (kernel default)"},
        {"--reps", HR_OPT_INT, &reps, 1, HR_MAX_REPS, NULL, "R", "timed repetitions (9)"},
        {"--min-time", HR_OPT_DOUBLE, &min_time, 0, 3600, NULL, "SEC", "minimum seconds per repetition (0.05)"},
        {"--warmup", HR_OPT_DOUBLE, &warmup, 0, 3600, NULL, "SEC", "untimed warm-up seconds (0.1)"},
        {"--cold", HR_OPT_FLAG, &cold, 0, 0, NULL, NULL, "flush caches before every repetition"},
        {"--seed", HR_OPT_INT, &seed, 0, 2147483647, NULL, "S", "input seed (1)"},
        {"--dist", HR_OPT_ENUM, &dist, 0, 0, hr_dist_names, NULL, "input distribution (normal)"},
        {"--check", HR_OPT_FLAG, &check, 0, 0, NULL, NULL, "verify against the oracle first; exit 1 if it fails"},
        {"--save", HR_OPT_STR, &save_dir, 0, 0, NULL, "DIR", "write q.npy k.npy v.npy o.npy to DIR"},
        {"--max-mem", HR_OPT_BYTES, &max_mem, 1, 1e18, NULL, "BYTES", "memory budget (half of RAM)"},
        {"--format", HR_OPT_ENUM, &format, 0, 0, formats, NULL, "output format (table)"},
        {"--wisdom", HR_OPT_STR, &wisdom, 0, 0, NULL, "FILE", "tuned parameters ($HEADROOM_WISDOM or results/<machine>/wisdom.json)"},
        {"--no-wisdom", HR_OPT_FLAG, &no_wisdom, 0, 0, NULL, NULL, "ignore wisdom: kernel defaults unless flags"},
        {"--probe", HR_OPT_FLAG, &probe, 0, 0, NULL, NULL, "probe the concurrent ceiling around every repetition (default)"},
        {"--no-probe", HR_OPT_FLAG, &no_probe, 0, 0, NULL, NULL, "no probes: no frac_of_ceiling, no phase flags"},
        {"--probe-kind", HR_OPT_ENUM, &probe_kind, 0, 0, hr_probe_kind_names, NULL,
         "fma, bw, or auto: bw when AI < machine balance (auto)"},
        {"--phase-filter", HR_OPT_FLAG, &phase_filter, 0, 0, NULL, NULL, "leave repetitions that changed phase out of the medians"},
        {"--phase-threshold", HR_OPT_DOUBLE, &phase_pct, 0.1, 100, NULL, "PCT",
         "phase change: the probes before and after a repetition differ by more than PCT% (10)"},
        {NULL},
    };
    const char *syn = "run --kernel NAME [options]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st < 0) return HR_OK;
    if (st) goto err;
    if (!k) {
        st = hr_fail("--kernel: required (see headroom list)");
        goto err;
    }
    if (probe && no_probe) {
        st = hr_fail("--probe: not with --no-probe");
        goto err;
    }
    if (probe_kind == HR_PROBE_OFF) {
        st = hr_fail("--probe-kind: expected fma, bw or auto (use --no-probe for none)");
        goto err;
    }
    if (no_probe && phase_filter) {
        st = hr_fail("--phase-filter: needs the probes (not with --no-probe)");
        goto err;
    }
    hr_bench_spec s = {
        .prob = hr_shape_flags_problem(&shape),
        .layout = (hr_layout)shape.layout,
        .tune = {block_q, block_kv, threads},
        .tune_source = (block_q || block_kv) ? "flag" : "default",
        .dist = (hr_dist)dist,
        .seed = (uint64_t)seed,
        .timer = {.reps = reps, .min_time = min_time, .warmup = warmup, .cold = cold},
        .check = check,
        .max_mem = max_mem,
        .save_dir = save_dir,
        .probe = no_probe ? HR_PROBE_OFF : (hr_probe_kind)probe_kind,
        .phase_threshold = phase_pct / 100,
        .phase_filter = phase_filter,
    };
    /* Wisdom fills the parameters no flag set; the source says which came from where. */
    if (!no_wisdom) {
        hr_tune w = s.tune;
        int found = hr_wisdom_lookup(wisdom, k, &s.prob, &w);
        if (found < 0) {
            st = HR_EUSAGE;
            goto err;
        }
        if (found && memcmp(&w, &s.tune, sizeof w)) {
            s.tune_source = (block_q || block_kv) ? "flag+wisdom" : "wisdom";
            s.tune = w;
        }
    }
    hr_result r;
    st = hr_bench_run(k, &s, &r);
    if (st) goto err;
    /* Roofline counters when this machine's ceilings were measured (headroom roofline). */
    static hr_ceilings ceilings;
    char cpath[512];
    hr_ceilings_default_path(cpath, sizeof cpath);
    if (hr_ceilings_load(cpath, &ceilings) == HR_OK) hr_roofline_attach(&r, &ceilings);

    char warn[16][200];
    int nw = 0;
    hr_env_warnings(warn, 16, &nw);
    hr_bench_warnings(&r, warn, 16, &nw);
    for (int i = 0; i < nw; i++) fprintf(stderr, "headroom run: warning: %s\n", warn[i]);
    if (format == 0) {
        hr_table_header(stdout);
        hr_table_row(stdout, &r);
        if (r.checked) {
            char msg[256];
            hr_check_str(&r.check, msg, sizeof msg);
            printf("check: %s\n", msg);
        }
        if (r.timing.probe_kind) {
            bool fma = r.timing.probe_kind == HR_PROBE_FMA;
            printf("probe: %s, concurrent ceiling %.4g %s, frac_of_ceiling %.4f (medians); phase changes %d of %d"
                   "%s\n",
                   hr_probe_kind_names[r.timing.probe_kind], hr_phase_median(&r, 0), fma ? "GFLOP/s" : "GB/s",
                   hr_phase_median(&r, 1), r.timing.nphase, r.timing.reps,
                   r.timing.nexcluded ? " (excluded)" : "");
        }
    } else if (format == 1) {
        hr_csv_header(stdout);
        hr_csv_row(stdout, &r);
    } else {
        const char *wp[16];
        for (int i = 0; i < nw; i++) wp[i] = warn[i];
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddItemToObject(doc, "context", hr_context_json(wp, nw));
        hr_result_json_rows(&r, cJSON_AddArrayToObject(doc, "benchmarks"));
        char *txt = cJSON_Print(doc);
        printf("%s\n", txt);
        free(txt);
        cJSON_Delete(doc);
    }
    return HR_OK;
err:
    fprintf(stderr, "headroom run: %s\n", hr_errmsg());
    return st;
}

/* bench.c — measures one kernel on one shape: budget, allocation, oracle check, timing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "counts.h"
#include "likwid_markers.h"
#include "npy.h"
#include "sysinfo.h"

double hr_default_max_mem(void) { return 0.5 * hr_sysinfo_get()->mem_bytes; }

double hr_bench_bytes(const hr_kernel *k, const hr_problem *p, const hr_tune *t)
{
    return hr_tensors_bytes(p) + (double)k->workspace_bytes(p, t);
}

typedef struct {
    const hr_kernel *k;
    const hr_problem *p;
    const hr_tune *t;
    const hr_args *a;
    void *ws;
} call_ctx;

static void call(void *c)
{
    call_ctx *x = c;
    x->k->run(x->p, x->t, x->a, x->ws);
    /* The output is read by the caller after timing; this barrier keeps the compiler
     * from assuming the stores are dead. */
    __asm__ __volatile__("" : : "r"(x->a->o.p) : "memory");
}

static int save(const char *dir, const hr_problem *p, const hr_tensors *t)
{
    int st = hr_mkdirs(dir);
    if (st) return st;
    char path[4096];
    const struct {
        const char *name;
        hr_cview v;
        int heads, rows;
    } f[] = {{"q", t->args.q, p->heads, p->seq_q},
             {"k", t->args.k, p->kv_heads, p->seq_kv},
             {"v", t->args.v, p->kv_heads, p->seq_kv},
             {"o", hr_cv(t->args.o), p->heads, p->seq_q}};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, f[i].name);
        if ((st = hr_npy_write_view(path, f[i].v, p->batch, f[i].heads, f[i].rows, p->d_head)))
            return st;
    }
    return HR_OK;
}

int hr_bench_run(const hr_kernel *k, const hr_bench_spec *s, hr_result *out)
{
    memset(out, 0, sizeof *out);
    const hr_problem *p = &s->prob;
    int st = hr_problem_validate(p);
    if (st) return st;
    const char *why = k->applicable ? k->applicable(p) : NULL;
    if (why) return hr_fail("kernel %s cannot run this shape: %s", k->name, why);
    out->kernel = k;
    out->prob = *p;
    out->layout = s->layout;
    out->tune = hr_kernel_tune(k, p, &s->tune);
    out->tune_source = s->tune_source ? s->tune_source : "default";
    out->flops = hr_core_flops(p);
    out->bytes = hr_kernel_bytes(k, p, &out->tune);
    size_t wsb = k->workspace_bytes(p, &out->tune);
    out->workspace_bytes = (double)wsb;
    double need = hr_bench_bytes(k, p, &out->tune);
    double budget = s->max_mem > 0 ? s->max_mem : hr_default_max_mem();
    if (need > budget)
        return hr_fail("--max-mem: %s needs %.1f MiB (tensors + %.1f MiB workspace), over the "
                       "budget of %.1f MiB",
                       k->name, need / 1048576, out->workspace_bytes / 1048576, budget / 1048576);

    hr_tensors t;
    if ((st = hr_tensors_alloc(&t, p, s->layout, s->dist, s->seed))) return st;
    void *ws = hr_alloc(wsb ? wsb : 64);
    if (!ws) {
        hr_tensors_free(&t);
        return hr_fail("cannot allocate %.1f MiB of workspace", wsb / 1048576.0);
    }
    call_ctx c = {k, p, &out->tune, &t.args, ws};
    if (s->check) {
        call(&c);
        out->checked = true;
        out->check = hr_oracle_check(p, &t.args, 0);
        if (out->check.verdict == HR_CHECK_FAIL) {
            char msg[256];
            hr_check_str(&out->check, msg, sizeof msg);
            st = hr_failc(HR_EFAIL, "kernel %s failed the oracle check: %s", k->name, msg);
            goto done;
        }
    }
    /* likwid region (LIKWID=1 only), named like the result row so counters merge by name. */
    char region[256];
    hr_result_name(out, region, sizeof region);
    hr_marker_start(region, out->tune.threads);
    hr_time(call, &c, &s->timer, &out->timing);
    hr_marker_stop(region, out->tune.threads);
    if (out->timing.s.median > 0) hr_result_set(out, "GBps", out->bytes / out->timing.s.median * 1e-9);
    hr_result_set(out, "AI", out->bytes > 0 ? out->flops / out->bytes : 0);
    if (s->save_dir) st = save(s->save_dir, p, &t);
done:
    free(ws);
    hr_tensors_free(&t);
    return st;
}

void hr_bench_warnings(const hr_result *r, char (*w)[200], int max, int *n)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    char name[256];
    hr_result_name(r, name, sizeof name);
    if (*n < max && r->timing.reps > 1 && r->timing.s.cv > 0.05)
        snprintf(w[(*n)++], 200, "%.120s: CV %.1f%% > 5%%: the machine is noisy, compare medians with care",
                 name, r->timing.s.cv * 100);
    if (*n < max && r->tune.threads > si->cpus)
        snprintf(w[(*n)++], 200, "%.100s: %d threads on %d CPUs: oversubscribed",
                 name, r->tune.threads, si->cpus);
}

void hr_env_warnings(char (*w)[200], int max, int *n)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    double res = hr_timer_resolution();
    if (*n < max && si->scaling_governor_on == 1)
        snprintf(w[(*n)++], 200, "CPU frequency scaling is on (governor is not 'performance')");
    if (*n < max && res > 1e-6)
        snprintf(w[(*n)++], 200, "timer is coarse: resolution %.3g s", res);
}

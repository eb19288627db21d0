/* bench.c — measures one kernel on one shape: budget, allocation, oracle check, timing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ceilings.h"
#include "check.h"
#include "cpus.h"
#include "files.h"
#include "guard.h"
#include "counts.h"
#include "likwid_markers.h"
#include "npy.h"
#include "probe.h"
#include "sysinfo.h"
#include "threads.h"

double hr_mem_budget(double max_mem) { return max_mem > 0 ? max_mem : 0.5 * hr_sysinfo_get()->mem_bytes; }

double hr_bench_bytes(const hr_kernel *k, const hr_problem *p, const hr_tune *t)
{
    return hr_tensors_bytes(p) + (double)hr_kernel_workspace(k, p, t);
}

/* One call of the kernel under test. plant > 0 (test only, HEADROOM_PLANT_DELAY) adds
 * a busy-wait of plant x the call's own duration, so the planted slowdown is a fixed
 * fraction whatever the machine's phase. */
static void call(void *c)
{
    hr_bench_session *x = c;
    double t0 = x->plant > 0 ? hr_now() : 0;
    hr_guard_kernel(x->k->name); /* a fault in the call names it */
    if (hr_kernel_run(x->k, &x->out->prob, &x->out->tune, x->args, x->ws) && !x->failed[0])
        snprintf(x->failed, sizeof x->failed, "%s", hr_errmsg());
    hr_guard_kernel(NULL);
    /* The output is read by the caller after timing; this barrier keeps the compiler
     * from assuming the stores are dead. */
    __asm__ __volatile__("" : : "r"(x->args->o.p) : "memory");
    if (x->plant > 0) {
        double until = hr_now() + x->plant * (hr_now() - t0);
        while (hr_now() < until) {}
    }
}

/* The timer's hooks around every timed repetition: the probe (its cost counted in
 * probe_time), the spec's own hook, the likwid region; after it the same in reverse. */
static void before_rep(void *c, int rep)
{
    hr_bench_session *b = c;
    const hr_timer_opts *o = &b->spec->timer;
    double p0 = hr_now();
    if (b->probe.kind) hr_phase_before(&b->probe, rep);
    b->probe_time += hr_now() - p0;
    if (o->before_rep) o->before_rep(o->hook_ctx, rep);
    hr_marker_start(b->region, b->out->tune.threads);
}

static void after_rep(void *c, int rep)
{
    hr_bench_session *b = c;
    const hr_timer_opts *o = &b->spec->timer;
    hr_marker_stop(b->region, b->out->tune.threads);
    if (o->after_rep) o->after_rep(o->hook_ctx, rep);
    double p0 = hr_now();
    if (b->probe.kind) hr_phase_after(&b->probe, rep);
    b->probe_time += hr_now() - p0;
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

int hr_bench_open(const hr_kernel *k, const hr_bench_spec *s, const hr_tensors *shared,
                  hr_bench_session *b, hr_result *out)
{
    memset(out, 0, sizeof *out);
    memset(b, 0, sizeof *b);
    const hr_problem *p = &s->prob;
    int st = hr_kernel_validate(k, p);
    if (st) return st;
    if ((b->plant = hr_phase_plant_delay()) < 0)
        return hr_fail("HEADROOM_PLANT_DELAY: expected a fraction in (0, 1], got '%s'",
                       getenv("HEADROOM_PLANT_DELAY"));
    b->k = k;
    b->spec = s;
    b->out = out;
    b->timer = s->timer;
    b->timer.before_rep = before_rep;
    b->timer.after_rep = after_rep;
    b->timer.hook_ctx = b;
    out->kernel = k;
    out->prob = *p;
    out->layout = s->layout;
    out->tune = hr_kernel_tune(k, p, &s->tune);
    out->tune_source = s->tune_source ? s->tune_source : "default";
    /* Every count passes the one limit here, wherever it came from (flag, config, wisdom,
     * OMP_NUM_THREADS): nothing is sized from a count that was never checked. */
    st = hr_threads_check(out->tune.threads, strstr(out->tune_source, "wisdom") ? "threads (wisdom)" : "threads");
    if (st) return st;
    hr_threads_used(out->tune.threads);
    out->flops = hr_core_flops(p);
    out->bytes = hr_kernel_bytes(k, p, &out->tune);
    size_t wsb = hr_kernel_workspace(k, p, &out->tune);
    out->workspace_bytes = (double)wsb;
    double need = shared ? (double)wsb : hr_bench_bytes(k, p, &out->tune);
    if (s->check) need += hr_format_check_bytes(p); /* the original fp32 inputs, for a moment */
    double budget = hr_mem_budget(s->max_mem);
    if (need > budget)
        return hr_fail("--max-mem: %s needs %.1f MiB (tensors + %.1f MiB workspace), over the "
                       "budget of %.1f MiB",
                       k->name, need / 1048576, out->workspace_bytes / 1048576, budget / 1048576);

    /* Probes of the row's own roof: a path that runs vdpbf16ps is probed with it (the
     * kind is chosen by the row's roof, the loop by hr_probe_roof). */
    int roof = hr_roof_of(k, p, hr_isa);
    hr_probe_kind kind = s->probe;
    if (kind == HR_PROBE_AUTO) kind = hr_phase_kind_for_roof(out->flops, out->bytes, out->tune.threads, roof);
    const hr_probe_buf *pb = NULL;
    if (kind == HR_PROBE_BW && !(pb = hr_phase_bw_buf(out->tune.threads))) return HR_EUSAGE;
    b->probe = (hr_phase_probe){kind, out->tune.threads, 0, pb, &out->timing, hr_roof_loop_of(hr_probe_roof(k, p))};

    if (!shared) {
        if ((st = hr_tensors_alloc(&b->own, p, s->layout, s->dist, s->seed))) return st;
        shared = &b->own;
    }
    b->args = hr_tensors_args(shared, p, k, &out->tune, &b->targs);
    char path[512]; /* the path, and which layout was read */
    hr_copy_text(out->path, sizeof out->path, hr_kernel_path_kv(k, p, b->args->xk.tile, path, sizeof path));
    b->ws = hr_galloc(wsb, "workspace");
    if (!b->ws) {
        st = hr_fail("cannot allocate %.1f MiB of workspace", wsb / 1048576.0);
        goto fail;
    }
    if (s->check) {
        double plant = b->plant;
        b->plant = 0;
        hr_tensors_poison(p, b->args, 12345.0f);
        hr_tensors_lock(shared, true); /* the inputs read-only for the checked call */
        call(b);
        hr_tensors_lock(shared, false);
        hr_guard_verify(b->k->name);
        b->plant = plant;
        if (b->failed[0]) {
            st = hr_fail("%s", b->failed);
            goto fail;
        }
        hr_tensors_output(p, b->args);
        out->checked = true;
        out->check = hr_oracle_check_q(p, b->args, 0, hr_path_quant(out->path));
        /* Reduced types: the format's error beside the kernel's (reported, not judged). */
        hr_check f;
        if (hr_format_check_bytes(p) > 0) {
            if ((st = hr_format_check(p, b->args, s->layout, s->dist, s->seed, &f))) goto fail;
            hr_result_set(out, "format_max_rel", f.max_rel_err);
            hr_result_set(out, "format_nmse", f.nmse);
        }
        if (out->check.verdict == HR_CHECK_FAIL) {
            char msg[256];
            hr_check_str(&out->check, msg, sizeof msg);
            st = hr_failc(HR_EFAIL, "kernel %s failed the oracle check: %s", k->name, msg);
            goto fail;
        }
    }
    /* likwid region (LIKWID=1 only), named like the result row so counters merge by name. */
    hr_result_name(out, b->region, sizeof b->region);
    b->iters = hr_time_calibrate(call, b, &s->timer);
    hr_guard_verify(b->k->name);
    out->timing.iters = b->iters;
    if (b->failed[0]) {
        st = hr_fail("%s", b->failed);
        goto fail;
    }
    return HR_OK;
fail:
    hr_bench_abandon(b);
    return st;
}

void hr_bench_rep(hr_bench_session *b, int rep, bool rewarm)
{
    if (rep < 0 || rep >= HR_MAX_REPS) return;
    if (rewarm && !b->timer.cold) call(b);
    b->out->timing.rep_time[rep] = hr_time_rep(call, b, &b->timer, b->iters, rep, &b->out->timing.rep_cpu[rep]);
    hr_guard_verify(b->k->name); /* the canaries, outside the timed calls */
    if (rep + 1 > b->out->timing.reps) b->out->timing.reps = rep + 1;
}

void hr_bench_abandon(hr_bench_session *b)
{
    hr_gfree(b->ws);
    b->ws = NULL;
    hr_tensors_free(&b->own); /* zero (nothing to free) where the tensors were shared */
    b->args = NULL;
}

void hr_bench_park(hr_bench_session *b) { hr_bench_abandon(b); }

int hr_bench_unpark(hr_bench_session *b, const hr_tensors *shared)
{
    const size_t wsb = (size_t)b->out->workspace_bytes;
    if (!(b->ws = hr_galloc(wsb, "workspace")))
        return hr_fail("cannot allocate %.1f MiB of workspace", wsb / 1048576.0);
    memset(b->ws, 0, wsb ? wsb : 64);
    b->args = hr_tensors_args(shared, &b->out->prob, b->k, &b->out->tune, &b->targs);
    return HR_OK;
}

void hr_bench_rates(hr_result *out)
{
    /* GB/s and AI of the bytes every kernel of the problem must move (counts.c
     * hr_bound_bytes), so GFLOP/s = AI x GB/s on the roofline; out->bytes stays the
     * kernel's own traffic model (what its probe kind is chosen by). */
    const double bound_bytes = hr_bound_bytes(&out->prob, out->bytes);
    if (out->timing.s.median > 0) hr_result_set(out, "GBps", bound_bytes / out->timing.s.median * 1e-9);
    hr_result_set(out, "AI", bound_bytes > 0 ? out->flops / bound_bytes : 0);
}

int hr_bench_close(hr_bench_session *b, int reps)
{
    hr_result *out = b->out;
    const hr_bench_spec *s = b->spec;
    int st = HR_OK;
    if (b->failed[0]) {
        st = hr_fail("%s", b->failed);
        hr_bench_abandon(b);
        return st;
    }
    out->timing.reps = reps;
    hr_summarize(out->timing.rep_time, reps, &out->timing.s);
    hr_phase_mark(&out->timing, s->phase_threshold > 0 ? s->phase_threshold : HR_PHASE_THRESHOLD,
                  s->phase_filter);
    hr_phase_attach(out);
    /* The probes' cost in wall time: both probes of a repetition, averaged. */
    if (out->timing.probe_kind && reps > 0) hr_result_set(out, "probe_overhead_s", b->probe_time / reps);
    hr_bench_rates(out);
    if (s->save_dir) {
        hr_tensors_output(&out->prob, b->args); /* a typed O: the last call's, into o */
        hr_tensors view = {.args = *b->args};
        st = save(s->save_dir, &out->prob, &view);
    }
    hr_bench_abandon(b);
    return st;
}

int hr_bench_run(const hr_kernel *k, const hr_bench_spec *s, hr_result *out)
{
    hr_bench_session b;
    /* --save's directory is made first, so a bad path fails before the timing, not after. */
    int st = s->save_dir ? hr_mkdirs(s->save_dir) : HR_OK;
    if (st) return st;
    if ((st = hr_bench_open(k, s, NULL, &b, out))) return st;
    hr_time_reps(call, &b, &b.timer, b.iters, &out->timing);
    return hr_bench_close(&b, out->timing.reps);
}

void hr_threads_warning(const char *what, int threads, char (*w)[200], int max, int *n)
{
    const hr_cpus *c = hr_cpus_get();
    if (*n < max && threads > c->allowed)
        snprintf(w[(*n)++], 200, "%.100s: %d threads on %d allowed CPUs (%s): oversubscribed", what, threads,
                 c->allowed, c->by);
}

void hr_bench_warnings(const hr_result *r, char (*w)[200], int max, int *n)
{
    char name[256];
    hr_result_name(r, name, sizeof name);
    if (*n < max && r->timing.reps > 1 && r->timing.s.cv > 0.05)
        snprintf(w[(*n)++], 200, "%.120s: CV %.1f%% > 5%%: the machine is noisy, compare medians with care",
                 name, r->timing.s.cv * 100);
    hr_threads_warning(name, r->tune.threads, w, max, n);
    if (*n < max && hr_phase_note(r, w[*n], 200)) ++*n;
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

/* ---- in a worker ------------------------------------------------------------------------- */

static int run_call(const void *k, const void *s, void *out) { return hr_bench_run(k, s, out); }

int hr_bench_run_worker(const hr_kernel *k, const hr_bench_spec *s, hr_result *out, double timeout, hr_proc *w)
{
    int st = hr_proc_run(run_call, k, s, out, sizeof *out, timeout > 0 ? timeout : 60, w);
    if (st == HR_EFAIL) return hr_failc(HR_EWORKER, "%s", w->reason);
    if (st == HR_OK) hr_threads_used(out->tune.threads); /* the context's record of the threads, here too */
    return st;
}

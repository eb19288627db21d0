/* ab_worker.c — the worker side of `headroom ab`: a config's points measured one repetition at a time on request (ab.h's protocol). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ab.h"
#include "bench.h"
#include "config.h"
#include "files.h"
#include "results.h"
#include "sweep_points.h"
#include "sweep_worker.h"
#include "sysinfo.h"

/* Writes one protocol line (obj is consumed) and flushes it. */
static void reply(FILE *out, cJSON *obj)
{
    char *s = hr_json_text(obj, 0);
    fprintf(out, "%s\n", s ? s : "{\"error\": \"out of memory\"}");
    fflush(out);
    free(s);
    cJSON_Delete(obj);
}

static void reply_error(FILE *out, const char *msg)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "error", msg);
    reply(out, o);
}

/* The open point: at most one at a time, its session fixed in place until close. */
typedef struct {
    int k;               /* -1: none open                                              */
    hr_bench_spec spec;
    hr_bench_session sess;
    hr_result res;
    int reps;            /* repetitions run                                            */
} open_point;

static void hello(FILE *out, const hr_sweep_point *pts, int n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "ab_protocol", HR_AB_PROTOCOL);
    cJSON_AddStringToObject(o, "build_id", hr_sysinfo_get()->build_id);
    cJSON_AddStringToObject(o, "isa", hr_sysinfo_get()->isa);
    cJSON *a = cJSON_AddArrayToObject(o, "points");
    for (int i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", pts[i].name);
        cJSON_AddStringToObject(p, "skip", pts[i].skip);
        cJSON_AddItemToArray(a, p);
    }
    reply(out, o);
}

/* The spec of point pt as a sweep of config c with the worker's overrides measures it,
 * without probes: the pairs themselves see the same phases. */
static hr_bench_spec spec_of(const hr_sweep_config *c, const hr_ab_worker_opts *o, const hr_sweep_point *pt)
{
    return (hr_bench_spec){
        .prob = pt->prob,
        .layout = pt->layout,
        .tune = pt->tune,
        .tune_source = pt->tune_source ? pt->tune_source : "default",
        .dist = (hr_dist)c->dist,
        .seed = (uint64_t)(o->seed >= 0 ? o->seed : c->seed),
        .timer = {.reps = o->reps, .min_time = o->min_time >= 0 ? o->min_time : c->min_time,
                  .warmup = c->warmup, .cold = c->cold},
        .check = c->check,
        .max_mem = c->max_mem,
        .probe = HR_PROBE_OFF,
    };
}

/* With --via: the points as a sweep measures them (NULL: each its own session). */
static hr_sweep_meas *via;

/* The open, rep and close of serve through via. HR_OK, or a status with hr_errmsg. */
static int via_open(const hr_sweep_config *c, const hr_ab_worker_opts *o, const hr_sweep_point *pt, int k, long *iters)
{
    via->m.sl[k].spec = spec_of(c, o, pt);
    const int st = hr_sweep_meas_open(via, k);
    *iters = via->m.sl[k].res.timing.iters;
    return st;
}

static int via_rep(int k, int j, double *t)
{
    int st = hr_sweep_meas_ready(via, k);
    if (!st) st = hr_sweep_meas_rep(via, k, j, true);
    *t = via->m.sl[k].res.timing.rep_time[j];
    return st;
}

/* One command line; returns 1 on quit. */
static int serve(const hr_sweep_config *c, const hr_ab_worker_opts *o, hr_sweep_point *pts, int n,
                 open_point *op, const char *line, FILE *out)
{
    char cmd[16];
    int k = -1, j = -1;
    int got = sscanf(line, "%15s %d %d", cmd, &k, &j);
    if (got >= 1 && !strcmp(cmd, "quit")) return 1;
    if (got < 2 || k < 0 || k >= n) {
        reply_error(out, "bad command (expected: open K, rep K J, close K, quit)");
        return 0;
    }
    cJSON *r = cJSON_CreateObject();
    if (!strcmp(cmd, "open")) {
        if (op->k >= 0) {
            if (via) hr_sweep_meas_retire(via, op->k);
            else hr_bench_abandon(&op->sess);
            op->k = -1;
        }
        if (pts[k].skip[0]) {
            cJSON_Delete(r);
            reply_error(out, pts[k].skip);
            return 0;
        }
        op->spec = spec_of(c, o, &pts[k]);
        memset(&op->res, 0, sizeof op->res);
        int st = via ? via_open(c, o, &pts[k], k, &op->sess.iters)
                     : hr_bench_open(pts[k].kernel, &op->spec, NULL, &op->sess, &op->res);
        if (st) {
            cJSON_Delete(r);
            reply_error(out, st == HR_EFAIL ? "the oracle check failed" : hr_errmsg());
            return 0;
        }
        op->k = k;
        op->reps = 0;
        cJSON_AddBoolToObject(r, "ok", 1);
        cJSON_AddNumberToObject(r, "iters", (double)op->sess.iters);
    } else if (!strcmp(cmd, "rep") && op->k == k && got == 3 && j == op->reps && j < o->reps) {
        double t = 0;
        if (via) {
            if (via_rep(k, j, &t)) {
                op->k = -1;
                cJSON_Delete(r);
                reply_error(out, hr_errmsg());
                return 0;
            }
        } else {
            hr_bench_rep(&op->sess, j, true);
            t = op->res.timing.rep_time[j];
        }
        cJSON_AddNumberToObject(r, "t", t);
        op->reps++;
    } else if (!strcmp(cmd, "close") && op->k == k && op->reps > 0) {
        int st = via ? hr_sweep_meas_close(via, k, op->reps) : hr_bench_close(&op->sess, op->reps);
        if (via) op->res = via->m.sl[k].res;
        op->k = -1;
        if (st) {
            cJSON_Delete(r);
            reply_error(out, hr_errmsg());
            return 0;
        }
        if (pts[k].named) snprintf(op->res.label, sizeof op->res.label, "%s", pts[k].name);
        cJSON_AddItemToObject(r, "result", hr_result_to_json(&op->res));
    } else {
        cJSON_Delete(r);
        reply_error(out, "command out of order (open K, then rep K 0, 1, ..., then close K)");
        return 0;
    }
    reply(out, r);
    return 0;
}

int hr_ab_worker(const hr_ab_worker_opts *o, FILE *in, FILE *out)
{
    static hr_sweep_config c; /* large: not on the stack */
    hr_sweep_point *pts = NULL;
    int n = 0, ndup = 0, st = hr_config_load(o->config, &c);
    if (!st && c.mode != HR_MODE_ATTENTION)
        st = hr_fail("%s: ab runs attention sweeps (mode = attention), not mode = layer", o->config);
    if (!st) {
        c.wisdom = false; /* both builds run the same tunables: the config's or the defaults */
        st = hr_sweep_expand(&c, o->filter, c.max_mem, &pts, &n, &ndup);
    }
    if (st) {
        reply_error(out, hr_errmsg());
        return st;
    }
    static hr_sweep_meas meas;
    int *idx = o->via ? calloc((size_t)n + 1, sizeof *idx) : NULL;
    if (o->via) {
        for (int i = 0; i < n; i++) idx[i] = i;
        st = !idx ? hr_fail("out of memory")
                  : hr_sweep_meas_init(&meas, pts, idx, n, hr_mem_budget(c.max_mem), (hr_dist)c.dist,
                                       (uint64_t)(o->seed >= 0 ? o->seed : c.seed), o->via == 1, 0, o->reps,
                                       o->min_time >= 0 ? o->min_time : c.min_time, c.warmup);
        if (st) {
            reply_error(out, hr_errmsg());
            free(idx);
            free(pts);
            return st;
        }
        via = &meas;
    }
    hello(out, pts, n);
    static open_point op;
    op.k = -1;
    char line[256];
    while (fgets(line, sizeof line, in)) {
        /* Commands are short: a longer line is refused whole, not served as pieces. */
        if (!strchr(line, '\n') && !feof(in)) {
            int ch;
            while ((ch = getc(in)) != EOF && ch != '\n') continue;
            reply_error(out, "command line over 254 bytes");
            continue;
        }
        if (serve(&c, o, pts, n, &op, line, out)) break;
    }
    if (op.k >= 0 && !via) hr_bench_abandon(&op.sess);
    if (via) hr_sweep_meas_free(via);
    via = NULL;
    free(idx);
    free(pts);
    return HR_OK;
}

/* sweep_worker.c — a sweep's points measured in a worker process: the parent sends each
 * step of a point (open, repetition, close) and keeps the journal and the results; the
 * worker holds the tensors and sessions, so it allocates them and its threads touch them
 * first, as an in-process sweep's do. One worker serves the whole measure() and lives
 * until a step kills it (a signal, an exit from a kernel, the time limit): that point is
 * failed, and the next step forks a new worker, in which the points that were open are
 * opened again (check, warm-up, calibration) and given back their repetitions. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_shard.h"
#include "sweep_worker.h"

enum { OPEN, RESTORE, READY, REP, CLOSE, RETIRE };

typedef struct {
    int op, i, arg;
    bool flag;
    hr_bench_spec spec;  /* OPEN                                                         */
    hr_timing t;         /* RESTORE (only then sent: the other steps end before it)      */
} request;

/* The steps that change no more than one repetition of res (ready, rep, retire) send
 * the reply up to res: a round trip of a few hundred bytes, not the whole result. */
typedef struct {
    int st;
    bool open, full;
    long regenerated;
    int reps;             /* REP: res.timing.reps after it, and the repetition's values */
    double time, cpu, before, after;
    char failed[320];     /* the session's failed: a call of the kernel failed (its message) */
    char err[400];
    hr_result res;        /* full only                                                  */
} reply;

double hr_sweep_point_limit(const hr_sweep_point *pt, int reps, double min_time, double warmup)
{
    const double c = 20 * hr_shard_cost(pt, reps, min_time, warmup);
    return c > 60 ? c : 60;
}

/* ---- the worker's side ---------------------------------------------------------------------- */

/* The new worker's memory is the parent's view: nothing resident, nothing open. */
static void at_start(void *ctx)
{
    hr_sweep_meas *s = ctx;
    hr_sweep_cache *m = &s->m;
    for (int i = 0; i < m->n; i++) m->sl[i].open = m->sl[i].parked = false;
    for (int i = 0; i < 2 * m->n; i++) m->in[i] = false;
    m->head = m->tail = -1;
    m->used = 0;
    m->regenerated = 0;
}

static void serve(void *ctx, const void *rq, size_t len, void *rp, size_t *rlen)
{
    hr_sweep_meas *s = ctx;
    hr_sweep_cache *m = &s->m;
    const request *q = rq;
    reply *r = rp;
    (void)len;
    hr_sweep_slot *p = &m->sl[q->i];
    r->st = HR_OK;
    switch (q->op) {
    case OPEN:
        p->spec = q->spec;
        r->st = hr_sweep_cache_open(m, q->i);
        break;
    case RESTORE:
        for (int k = 0; k < q->t.reps; k++) {
            p->res.timing.rep_time[k] = q->t.rep_time[k];
            p->res.timing.rep_cpu[k] = q->t.rep_cpu[k];
            p->res.timing.probe_before[k] = q->t.probe_before[k];
            p->res.timing.probe_after[k] = q->t.probe_after[k];
        }
        p->res.timing.reps = q->t.reps;
        break;
    case READY: r->st = hr_sweep_cache_ready(m, q->i); break;
    case REP: hr_bench_rep(&p->ses, q->arg, q->flag); break;
    case CLOSE: r->st = hr_sweep_cache_close(m, q->i, q->arg); break;
    case RETIRE: hr_sweep_cache_retire(m, q->i); break;
    }
    snprintf(r->err, sizeof r->err, "%s", r->st ? hr_errmsg() : "");
    r->open = p->open;
    snprintf(r->failed, sizeof r->failed, "%s", p->ses.failed);
    r->regenerated = m->regenerated;
    r->full = q->op == OPEN || q->op == RESTORE || q->op == CLOSE;
    const int j = q->arg >= 0 && q->arg < HR_MAX_REPS ? q->arg : 0;
    r->reps = p->res.timing.reps;
    r->time = p->res.timing.rep_time[j], r->cpu = p->res.timing.rep_cpu[j];
    r->before = p->res.timing.probe_before[j], r->after = p->res.timing.probe_after[j];
    if (r->full) r->res = p->res;
    *rlen = r->full ? sizeof *r : offsetof(reply, res);
}

/* ---- the parent's side ---------------------------------------------------------------------- */

static double limit(const hr_sweep_meas *s, int i)
{
    return s->timeout > 0 ? s->timeout : hr_sweep_point_limit(s->m.sl[i].pt, s->reps, s->min_time, s->warmup);
}

/* The parent's view of slot i done: its shape's count of points left goes down (nothing
 * is resident here to free). */
static void done(hr_sweep_meas *s, int i)
{
    s->m.sl[i].open = false;
    s->lost[i] = false;
    hr_sweep_cache_retire(&s->m, i);
}

static int call(hr_sweep_meas *s, request *q, size_t qlen, reply *r);

/* Slot i's session died with an earlier worker: opened again in this one, its
 * repetitions handed back. */
static int reopen(hr_sweep_meas *s, int i)
{
    s->lost[i] = false;
    static request q;
    static reply r;
    q = (request){.op = OPEN, .i = i, .spec = s->m.sl[i].spec};
    const hr_timing t = s->m.sl[i].res.timing; /* the open's reply overwrites res */
    int st = call(s, &q, offsetof(request, t), &r);
    if (st) return st;
    q.op = RESTORE, q.t = t;
    return call(s, &q, sizeof q, &r);
}

static int call(hr_sweep_meas *s, request *q, size_t qlen, reply *r)
{
    const int i = q->i;
    if (s->lost[i] && q->op != OPEN) {
        int st = reopen(s, i);
        if (st) return st;
    }
    const long starts = s->w.starts;
    size_t rlen = sizeof *r;
    int st = hr_proc_call(&s->w, q, qlen, r, &rlen, limit(s, i));
    if (s->w.starts != starts && starts > 0) /* a new worker: the others' sessions are gone */
        for (int j = 0; j < s->m.n; j++) s->lost[j] = j != i && s->m.sl[j].open;
    if (st == HR_EFAIL) {
        snprintf(s->why, sizeof s->why, "%s", s->w.reason);
        s->regenerated += s->m.regenerated;
        s->m.regenerated = 0;
        for (int j = 0; j < s->m.n; j++) s->lost[j] = j != i && s->m.sl[j].open;
        done(s, i);
        return hr_failc(HR_EWORKER, "%s", s->why);
    }
    if (st) return st;
    hr_timing *t = &s->m.sl[i].res.timing;
    if (r->full) {
        s->m.sl[i].res = r->res;
    } else if (q->op == REP && q->arg >= 0 && q->arg < HR_MAX_REPS) {
        t->rep_time[q->arg] = r->time, t->rep_cpu[q->arg] = r->cpu;
        t->probe_before[q->arg] = r->before, t->probe_after[q->arg] = r->after;
        t->reps = r->reps;
    }
    s->m.regenerated = r->regenerated;
    snprintf(s->m.sl[i].ses.failed, sizeof s->m.sl[i].ses.failed, "%s", r->failed);
    /* The worker's slot closed or retired (a failed open retires it too): so is ours. */
    if (!r->open && (s->m.sl[i].open || (q->op == OPEN && r->st))) done(s, i);
    else s->m.sl[i].open = r->open;
    return r->st ? hr_failc(r->st, "%s", r->err) : HR_OK;
}

static int step(hr_sweep_meas *s, int op, int i, int arg, bool flag)
{
    static request q;
    static reply r;
    q.op = op, q.i = i, q.arg = arg, q.flag = flag;
    if (op == OPEN) q.spec = s->m.sl[i].spec;
    return call(s, &q, offsetof(request, t), &r);
}

int hr_sweep_meas_init(hr_sweep_meas *s, hr_sweep_point *pts, const int *idx, int n, double budget, hr_dist dist,
                       uint64_t seed, bool in_process, double timeout, int reps, double min_time, double warmup)
{
    memset(s, 0, sizeof *s);
    s->in_process = in_process, s->timeout = timeout;
    s->reps = reps, s->min_time = min_time, s->warmup = warmup;
    s->w = (hr_proc){.serve = serve, .at_start = at_start, .ctx = s, .max_reply = sizeof(reply),
                     .to = -1, .from = -1, .why = -1};
    int st = hr_sweep_cache_init(&s->m, pts, idx, n, budget, dist, seed);
    if (!st && !(s->lost = calloc((size_t)n + 1, sizeof *s->lost))) st = hr_fail("out of memory");
    return st;
}

int hr_sweep_meas_open(hr_sweep_meas *s, int i)
{
    if (s->in_process) return hr_sweep_cache_open(&s->m, i);
    return step(s, OPEN, i, 0, false);
}

int hr_sweep_meas_restore(hr_sweep_meas *s, int i)
{
    if (s->in_process || !s->m.sl[i].res.timing.reps) return HR_OK;
    static request q;
    static reply r;
    q.op = RESTORE, q.i = i, q.t = s->m.sl[i].res.timing;
    return call(s, &q, sizeof q, &r);
}

int hr_sweep_meas_ready(hr_sweep_meas *s, int i)
{
    return s->in_process ? hr_sweep_cache_ready(&s->m, i) : step(s, READY, i, 0, false);
}

int hr_sweep_meas_rep(hr_sweep_meas *s, int i, int rep, bool rewarm)
{
    if (!s->in_process) return step(s, REP, i, rep, rewarm);
    hr_bench_rep(&s->m.sl[i].ses, rep, rewarm);
    return HR_OK;
}

int hr_sweep_meas_close(hr_sweep_meas *s, int i, int reps)
{
    return s->in_process ? hr_sweep_cache_close(&s->m, i, reps) : step(s, CLOSE, i, reps, false);
}

void hr_sweep_meas_retire(hr_sweep_meas *s, int i)
{
    if (s->in_process) {
        hr_sweep_cache_retire(&s->m, i);
        return;
    }
    if (!s->m.sl[i].open) return; /* done already (a failed step retires its slot) */
    if (s->lost[i] || !s->w.pid) { /* nothing of it in a worker */
        done(s, i);
        return;
    }
    if (step(s, RETIRE, i, 0, false) == HR_OK && s->m.sl[i].open) done(s, i);
}

long hr_sweep_meas_regenerated(const hr_sweep_meas *s) { return s->regenerated + s->m.regenerated; }

void hr_sweep_meas_free(hr_sweep_meas *s)
{
    if (!s->in_process) {
        hr_proc_stop(&s->w);
        for (int i = 0; s->m.sl && i < s->m.n; i++) s->m.sl[i].open = false; /* views, no sessions here */
    }
    hr_sweep_cache_free(&s->m);
    free(s->lost);
    s->lost = NULL;
}

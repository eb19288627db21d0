/* sweep.c — runs a sweep: the config's points (sweep_points.c) measured, every finished row
 * recorded at once (sweep_store.c), progress, SIGINT.
 *
 * The order. With interleave (the default) every pending point of the whole sweep (all
 * shapes, kernels, threads, block sizes and passes) is opened first, in the sweep's
 * order: oracle check, warm-up and calibration, as hr_bench_run does. Then repetition
 * round r runs every open point once, in an order shuffled per round by a PRNG seeded
 * from the config's seed and r (hr_sweep_round_order), as Google Benchmark's random
 * interleaving does: a phase of the machine lands on every row a little rather than on
 * a block of rows fully. A point completes with its last repetition, in the last round;
 * it is closed and its row recorded right then (rows.jsonl, results.json/csv), so
 * --resume never measures a recorded point again. No row is final before the last round,
 * so every repetition is journaled as it finishes (sweep_journal.c): a sweep stopped in
 * any way keeps every repetition, and on resume a point opened again takes its journaled
 * repetitions 0..k-1 back and goes on from k, in the round it stopped in.
 * interleave = false measures point after point, each with all its repetitions (journaled
 * too). Layer mode (hr_layer_bench per point) is sequential and not journaled.
 *
 * Memory (sweep_cache.c): the points of one shape share one set of tensors, made when
 * first needed and freed with the shape's last point; what is resident stays within the
 * budget (max_mem, else half of RAM) by giving back the tensors and workspaces used
 * longest ago, regenerated from the seed when their turn comes again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "roofline.h"
#include "sweep.h"
#include "sweep_cache.h"
#include "sweep_journal.h"
#include "sweep_layer.h"
#include "sweep_store.h"
#include "sweep_worker.h"
#include "summary.h"

typedef struct {
    const hr_sweep_config *c;
    hr_sweep_opts *o;
    hr_sweep_store st;
    hr_sweep_journal jn;     /* every finished repetition (sweep_journal.c)            */
    hr_ceilings *ceilings;   /* NULL: no ceilings file, no roofline counters           */
    int reps;
    double max_mem, budget;  /* as configured (0: half of RAM); the bytes that means    */
    int npts, ndone, measured;
    int run_errors;          /* points whose kernel's run failed (a plugin's): exit 2   */
    long work, work_total;   /* repetitions done and to do, for the ETA                 */
    int nwarn;               /* warnings of this run (on stderr unless quiet)            */
    double t0;
    bool interrupted;
} run;

static bool stopped(const run *s) { return s->o->stop && *s->o->stop; }

static void fmt_dur(double s, char *buf, size_t len)
{
    if (s < 60) snprintf(buf, len, "%.0fs", s);
    else if (s < 3600) snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* A progress bar (terminal) or, for a finished row r, one line. */
static void progress(const run *s, const char *name, const hr_result *r)
{
    const int done = s->ndone, total = s->npts;
    if (s->o->progress_tty) {
        char eta[32] = "?";
        if (s->work > 0) fmt_dur((hr_now() - s->t0) / s->work * (s->work_total - s->work), eta, sizeof eta);
        int w = 24, fill = total ? done * w / total : w;
        fprintf(stderr, "\r\033[K[%.*s%.*s] %d/%d ETA %s %.60s", fill, "########################", w - fill,
                "........................", done, total, eta, name);
        if (done == total) fputc('\n', stderr);
    } else if (r) {
        fprintf(stderr, "headroom sweep: [%d/%d] %s  median %.4g ms  %.2f GFLOP/s  cv %.1f%%\n", done, total,
                name, r->timing.s.median * 1e3, hr_result_gflops(r), r->timing.s.cv * 100);
    }
    fflush(stderr);
}

/* A point not measured: noted in results.json and on stderr. */
static int skip(run *s, const char *what, const char *name, const char *reason, bool failed)
{
    fprintf(stderr, "%sheadroom sweep: %s %s: %s\n", s->o->progress_tty ? "\r\033[K" : "", what, name, reason);
    return hr_sweep_store_skip(&s->st, name, reason, failed);
}

/* ---- measuring ------------------------------------------------------------------------ */

/* Point pt failed in its worker (why) after done of its repetitions: FAILED, recorded
 * with the reason, the sweep goes on. */
static int crashed(run *s, const hr_sweep_point *pt, const char *why, int done)
{
    char reason[320];
    snprintf(reason, sizeof reason, "%s", why); /* skip's message may be the same buffer */
    s->ndone++;
    s->work += s->reps - done;
    fprintf(stderr, "%sheadroom sweep: FAILED %s: in its worker: %s\n", s->o->progress_tty ? "\r\033[K" : "",
            pt->name, reason);
    const int st = hr_sweep_store_crash(&s->st, pt->name, pt->key, pt->pass, reason);
    return st ? st : hr_sweep_store_write(&s->st, false);
}

/* Opens slot i: check, warm-up, calibration. A point that cannot be opened is noted (and
 * done); HR_OK then too. Other statuses: a failure to record. */
static int open_slot(run *s, hr_sweep_meas *w, int i)
{
    hr_sweep_cache *m = &w->m;
    const hr_sweep_config *c = s->c;
    hr_sweep_opts *o = s->o;
    hr_sweep_slot *p = &m->sl[i];
    const hr_sweep_point *pt = p->pt;
    progress(s, pt->name, NULL);
    p->spec = (hr_bench_spec){
        .prob = pt->prob,
        .layout = pt->layout,
        .tune = pt->tune,
        .tune_source = pt->tune_source ? pt->tune_source : "default",
        .dist = (hr_dist)c->dist,
        .seed = (uint64_t)c->seed,
        .timer = {.reps = s->reps, .min_time = o->min_time >= 0 ? o->min_time : c->min_time,
                  .warmup = c->warmup, .cold = c->cold, .stop = o->stop},
        .check = o->check || c->check,
        .max_mem = s->max_mem,
        .probe = (hr_probe_kind)s->st.probe,
        .phase_threshold = c->phase_threshold,
        .phase_filter = s->st.phase_filter,
    };
    const int rs = hr_sweep_meas_open(w, i);
    if (rs == HR_EWORKER) return crashed(s, pt, w->why, 0);
    if (!rs) {
        if (stopped(s)) s->interrupted = true; /* calibration cut short: not measured */
        return HR_OK;
    }
    s->ndone++;
    s->work += s->reps;
    /* A kernel whose run failed is not a shape it cannot take: FAILED, and exit 2. */
    const bool run_failed = rs == HR_EUSAGE && p->ses.failed[0];
    s->run_errors += run_failed;
    const int st = skip(s, rs == HR_EFAIL || run_failed ? "FAILED" : "skipped", pt->name, hr_errmsg(), rs == HR_EFAIL);
    return st ? st : hr_sweep_store_write(&s->st, false);
}

/* Closes slot i after its last repetition and records its row. */
static int finish_slot(run *s, hr_sweep_meas *w, int i, int nlive)
{
    hr_sweep_cache *m = &w->m;
    const hr_sweep_point *pt = m->sl[i].pt;
    hr_result *r = &m->sl[i].res;
    int st = hr_sweep_meas_close(w, i, s->reps);
    if (st == HR_EWORKER) return crashed(s, pt, w->why, s->reps);
    if (st) return st;
    if (s->c->passes > 1) hr_result_set(r, "pass", pt->pass);
    if (pt->named) snprintf(r->label, sizeof r->label, "%s", pt->name);
    if (nlive > 1) hr_result_set(r, "interleaved", nlive);
    if (s->ceilings) hr_roofline_attach(r, s->ceilings);
    if ((st = hr_sweep_store_row(&s->st, r, pt->pass, m->sl[i].seq))) return st;
    s->measured++;
    s->ndone++;
    s->st.nphase += r->timing.nphase;
    s->st.nexcluded += r->timing.nexcluded;
    char warn[5][200];
    int nw = 0;
    hr_bench_warnings(r, warn, 4, &nw);
    if (s->ceilings && hr_phase_short_note(r, s->ceilings, warn[nw], 200)) nw++;
    s->nwarn += nw;
    for (int j = 0; j < nw && !s->o->quiet; j++) /* quiet: in the context only (sweep_store.c) */
        fprintf(stderr, "%sheadroom sweep: warning: %s\n", s->o->progress_tty ? "\r\033[K" : "", warn[j]);
    progress(s, pt->name, r);
    return hr_sweep_store_write(&s->st, false);
}

/* Runs s->reps rounds over the open slots live[0..nlive), each once a round in the order
 * of hr_sweep_round_order (nlive == 1: plain repetitions); from[k]: the repetitions the
 * journal gave slot live[k]. */
static int rounds(run *s, hr_sweep_meas *w, const int *live, int nlive, const int *from, int *order)
{
    hr_sweep_cache *m = &w->m;
    int st = HR_OK;
    for (int r = 0; r < s->reps && !st && !s->interrupted; r++) {
        hr_sweep_round_order((uint64_t)s->c->seed, r, order, nlive);
        for (int k = 0; k < nlive && !st; k++) {
            const int i = live[order[k]];
            if (!m->sl[i].open) continue; /* given up in an earlier round */
            if (r < from[order[k]] && r < s->reps - 1) continue; /* journaled before the resume */
            if (stopped(s)) {
                s->interrupted = true;
                break;
            }
            int rs = hr_sweep_meas_ready(w, i);
            if (rs == HR_EWORKER) {
                st = crashed(s, m->sl[i].pt, w->why, r);
                continue;
            }
            if (rs) { /* no memory now: given up, noted */
                hr_sweep_meas_retire(w, i);
                s->ndone++;
                s->work += s->reps - r;
                st = skip(s, "skipped", m->sl[i].pt->name, hr_errmsg(), false);
                continue;
            }
            if (r >= from[order[k]]) {
                if ((rs = hr_sweep_meas_rep(w, i, r, nlive > 1))) {
                    st = crashed(s, m->sl[i].pt, rs == HR_EWORKER ? w->why : hr_errmsg(), r);
                    continue;
                }
                s->work++;
                st = hr_sweep_journal_rep(&s->jn, m->sl[i].pt->key, r, &m->sl[i].res.timing);
            }
            if (!st && r == s->reps - 1) st = finish_slot(s, w, i, nlive);
            else if (s->o->progress_tty) progress(s, m->sl[i].pt->name, NULL);
        }
        if (!st) st = hr_sweep_journal_sync(&s->jn); /* a round's repetitions on disk */
    }
    return st;
}

/* Opens slot i and gives it its journaled repetitions; *live gets it when it opened. */
static int open_live(run *s, hr_sweep_meas *w, int i, int *live, int *from, int *nlive)
{
    int st = open_slot(s, w, i);
    if (st || !w->m.sl[i].open) return st;
    from[*nlive] = hr_sweep_journal_restore(&s->jn, w->m.sl[i].pt->key, &w->m.sl[i].res.timing);
    s->work += from[*nlive];
    if ((st = hr_sweep_meas_restore(w, i)) == HR_EWORKER) return crashed(s, w->m.sl[i].pt, w->why, 0);
    if (!st) live[(*nlive)++] = i;
    return st;
}

/* Measures the points pts[idx[0..n)] in one worker (or in this process): together, all
 * opened, then s->reps rounds over them; else point after point, each opened and given
 * all its repetitions. */
static int measure(run *s, hr_sweep_point *pts, const int *idx, int n, bool together)
{
    hr_sweep_meas w;
    const hr_sweep_config *c = s->c;
    const double min_time = s->o->min_time >= 0 ? s->o->min_time : c->min_time;
    int st = hr_sweep_meas_init(&w, pts, idx, n, s->budget, (hr_dist)c->dist, (uint64_t)c->seed, s->o->in_process,
                                s->o->timeout, s->reps, min_time, c->warmup);
    int nlive = 0, *live = calloc((size_t)n, sizeof *live), *order = calloc((size_t)n, sizeof *order);
    int *from = calloc((size_t)n, sizeof *from); /* repetitions journaled before a resume */
    if (!st && (!live || !order || !from)) st = hr_fail("out of memory");
    if (together) {
        for (int i = 0; i < n && !st && !s->interrupted; i++) {
            if (stopped(s)) s->interrupted = true;
            else st = open_live(s, &w, i, live, from, &nlive);
        }
        if (!st && !s->interrupted && nlive > 1 && !s->o->progress_tty)
            fprintf(stderr, "headroom sweep: %d points interleaved, %d rounds\n", nlive, s->reps);
        if (!st) st = rounds(s, &w, live, nlive, from, order);
    } else {
        for (int i = 0; i < n && !st && !s->interrupted; i++) {
            nlive = 0;
            if (stopped(s)) s->interrupted = true;
            else if (!(st = open_live(s, &w, i, live, from, &nlive)) && nlive) st = rounds(s, &w, live, 1, from, order);
        }
    }
    const long regen = hr_sweep_meas_regenerated(&w);
    if (regen)
        fprintf(stderr, "%sheadroom sweep: note: the interleaved points did not fit in the memory budget "
                        "together (%.1f MiB): tensors regenerated %ld times between repetitions\n",
                s->o->progress_tty ? "\r\033[K" : "", s->budget / 1048576, regen);
    hr_sweep_meas_free(&w); /* interrupted or failed: nothing half-done is kept */
    free(live);
    free(order);
    free(from);
    return st;
}

/* Layer mode: one point, hr_sweep_layer_run, its phase rows recorded in order with the
 * total row, the point's key, last. */
static int measure_layer(run *s, hr_sweep_point *pt, int seq)
{
    const hr_sweep_config *c = s->c;
    hr_sweep_opts *o = s->o;
    char why[200];
    if (c->stop_after_crossover && hr_sweep_layer_past(pt, s->st.res, s->st.nres, why, sizeof why)) {
        s->ndone++;
        s->work += s->reps;
        return skip(s, "skipped", pt->name, why, false);
    }
    progress(s, pt->name, NULL);
    hr_bench_spec spec = {.seed = (uint64_t)c->seed,
                          .timer = {.reps = s->reps, .min_time = o->min_time >= 0 ? o->min_time : c->min_time,
                                    .warmup = c->warmup, .cold = c->cold, .stop = o->stop},
                          .check = o->check || c->check,
                          .max_mem = s->max_mem};
    hr_result rows[HR_NPHASES + 1];
    int n, st = HR_OK, rs = hr_sweep_layer_run(pt, &spec, rows, &n);
    if (rows[HR_NPHASES].timing.aborted || stopped(s)) {
        s->interrupted = true; /* the point in flight is abandoned, not recorded */
        return HR_OK;
    }
    s->ndone++;
    s->work += s->reps;
    if (rs) {
        st = skip(s, rs == HR_EFAIL ? "FAILED" : "skipped", pt->name, hr_errmsg(), rs == HR_EFAIL);
        return st ? st : hr_sweep_store_write(&s->st, false);
    }
    for (int i = 0; i < n && !st; i++) {
        if (c->passes > 1) hr_result_set(&rows[i], "pass", pt->pass);
        if (s->ceilings) hr_roofline_attach(&rows[i], s->ceilings);
        st = hr_sweep_store_row(&s->st, &rows[i], pt->pass, seq);
    }
    if (st) return st;
    s->measured++;
    progress(s, pt->name, &rows[n - 1]);
    return hr_sweep_store_write(&s->st, false);
}

void hr_sweep_round_order(uint64_t seed, int round, int *order, int n)
{
    hr_rng rng;
    hr_rng_seed(&rng, seed * 0x9e3779b97f4a7c15ull + (uint64_t)round);
    for (int i = 0; i < n; i++) order[i] = i;
    for (int k = n - 1; k > 0; k--) { /* Fisher-Yates */
        const int j = (int)(hr_rng_next(&rng) % (uint64_t)(k + 1)), t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
}

/* ---- the run ------------------------------------------------------------------------------ */

/* Measures every point not skipped and not resumed: layer points and, without
 * interleave, all points one by one; with it, the rest together. */
static int measure_all(run *s, hr_sweep_point *pts)
{
    int st = HR_OK, npend = 0;
    int *pend = calloc((size_t)s->npts + 1, sizeof *pend);
    if (!pend) return hr_fail("out of memory");
    for (int i = 0; i < s->npts && !st && !s->interrupted; i++) {
        hr_sweep_point *pt = &pts[i];
        if (pt->skip[0]) {
            st = skip(s, "skipped", pt->name, pt->skip, false);
            s->ndone++;
        } else if (hr_sweep_store_has(&s->st, pt->key)) {
            continue;
        } else if (hr_sweep_store_crashed(&s->st, pt->key)) {
            s->ndone++; /* failed in its worker before the resume: kept as failed */
        } else if (stopped(s)) {
            s->interrupted = true;
        } else if (s->c->mode == HR_MODE_LAYER) {
            st = measure_layer(s, pt, i);
        } else {
            pend[npend++] = i;
        }
    }
    if (!st && !s->interrupted && npend) st = measure(s, pts, pend, npend, s->st.interleave);
    free(pend);
    return st;
}

/* A shard: which points are its own (shard.json records the split), checked against
 * the resumed directory's manifest. *mine becomes a malloc'ed copy of the shard's points
 * in the sweep's order; owner[] the shard of every point. */
static int shard_points(const hr_sweep_config *c, hr_sweep_opts *o, int reps, const hr_sweep_point *all, int nall,
                        int *owner, hr_sweep_point **mine, int *nmine)
{
    if (o->resume_dir) {
        hr_shard was;
        char ch[17], ph[17], now[17];
        const int r = hr_shard_read(o->resume_dir, &was, ch, ph);
        if (r == HR_EUSAGE) return r;
        if (r == 1 && o->shard.n) return hr_fail("--shard: %s is not a shard's directory (no shard.json): resume it "
                                                 "without --shard", o->resume_dir);
        if (r == 0 && o->shard.n && (was.k != o->shard.k || was.n != o->shard.n))
            return hr_fail("--shard: %s holds shard %d/%d, not %d/%d", o->resume_dir, was.k, was.n, o->shard.k,
                           o->shard.n);
        if (r == 0) {
            hr_points_hash(all, nall, now);
            if (strcmp(ph, now))
                return hr_fail("--resume: %s is shard %d/%d of another point list (the config, --filter, --dtype, "
                               "--max-mem or wisdom changed)", o->resume_dir, was.k, was.n);
            o->shard = was;
        }
    }
    *mine = NULL;
    *nmine = nall;
    if (!o->shard.n) return HR_OK;
    const double min_time = o->min_time >= 0 ? o->min_time : c->min_time;
    double *cost = malloc(((size_t)nall + 1) * sizeof *cost);
    *mine = malloc(((size_t)nall + 1) * sizeof **mine);
    if (!cost || !*mine) {
        free(cost);
        return hr_fail("out of memory");
    }
    for (int i = 0; i < nall; i++) cost[i] = hr_shard_cost(&all[i], reps, min_time, c->warmup);
    int st = hr_shard_assign(cost, nall, o->shard.n, owner);
    free(cost);
    *nmine = 0;
    for (int i = 0; i < nall && !st; i++)
        if (owner[i] == o->shard.k) (*mine)[(*nmine)++] = all[i];
    return st;
}

int hr_sweep_run(const hr_sweep_config *c, hr_sweep_opts *o)
{
    run s = {.c = c, .o = o, .max_mem = o->max_mem > 0 ? o->max_mem : c->max_mem};
    hr_sweep_point *pts, *all, *mine = NULL;
    int npts = 0, nall, ndup, st, *owner = NULL;
    if ((st = hr_sweep_expand(c, o->filter, s.max_mem, &all, &nall, &ndup))) return st;
    s.reps = o->reps > 0 ? o->reps : c->reps;
    if (s.reps > HR_MAX_REPS) s.reps = HR_MAX_REPS;
    if (!(owner = calloc((size_t)nall + 1, sizeof *owner))) st = hr_fail("out of memory");
    if (!st) st = shard_points(c, o, s.reps, all, nall, owner, &mine, &npts);
    pts = mine ? mine : all;
    char shard[32] = "", chash[17] = "";
    if (o->shard.n) snprintf(shard, sizeof shard, "%d/%d", o->shard.k, o->shard.n);
    /* The config's hash goes into the context of every sweep; a shard cannot do without. */
    if (!st && hr_config_hash(c->path, chash)) {
        chash[0] = 0;
        if (o->shard.n) st = HR_EUSAGE;
    }
    if (st) goto out_pts;

    if (o->dry_run) {
        int nskip = 0;
        for (int i = 0; i < npts; i++) {
            printf("%-70s %s\n", pts[i].key, pts[i].skip[0] ? pts[i].skip : "run");
            nskip += pts[i].skip[0] != 0;
        }
        for (int i = 0; i < c->nabsent; i++) printf("%-70s %s\n", c->absent[i].name, c->absent[i].reason);
        printf("%d points: %d to run, %d skipped; %d duplicates dropped", npts, npts - nskip, nskip, ndup);
        if (o->shard.n) printf(" (shard %s of %d points)", shard, nall);
        printf("\n");
        goto out_pts;
    }

    s.budget = hr_mem_budget(s.max_mem);
    const int probe = o->probe_flag == 1 ? (c->probe ? c->probe : HR_PROBE_AUTO) : o->probe_flag == 2 ? HR_PROBE_OFF : c->probe;
    const bool phase_filter = o->phase_filter || c->phase_filter;
    if (phase_filter && !probe) {
        st = hr_fail("--phase-filter: needs the probes (probe = false or --no-probe given)");
        goto out_pts;
    }
    static hr_ceilings ceilings;
    char cpath[512];
    hr_ceilings_default_path(cpath, sizeof cpath);
    if (hr_ceilings_load(cpath, &ceilings) == HR_OK) s.ceilings = &ceilings;

    /* The timer is checked before anything is measured; environment warnings go to
     * stderr now and into every results.json written. */
    const double timer_res = hr_timer_resolution();
    char env_warn[8][200];
    int nenv = 0;
    hr_env_warnings(env_warn, 8, &nenv);
    for (int i = 0; i < nenv && !o->quiet; i++) fprintf(stderr, "headroom sweep: warning: %s\n", env_warn[i]);

    char suffix[48] = "";
    if (o->shard.n) snprintf(suffix, sizeof suffix, "-shard%dof%d", o->shard.k, o->shard.n);
    if ((st = hr_sweep_store_open(&s.st, c, o->out_dir, o->resume_dir, suffix, o->retry_failed))) goto out;
    snprintf(o->dir, sizeof o->dir, "%s", s.st.dir);
    snprintf(s.st.shard, sizeof s.st.shard, "%s", shard);
    snprintf(s.st.config_hash, sizeof s.st.config_hash, "%s", chash);
    if ((st = hr_sweep_journal_open(&s.jn, o->dir, o->resume_dir != NULL, chash, s.reps, pts, npts, &s.st))) goto out;
    if (o->shard.n) {
        const char *base = strrchr(c->path, '/');
        if ((st = hr_shard_write_manifest(o->dir, o->shard, c->name, base ? base + 1 : c->path, chash, all, owner,
                                          nall)))
            goto out;
    }
    memcpy(s.st.env_warn, env_warn, sizeof env_warn);
    s.st.nenv = nenv;
    s.st.timer_res = timer_res;
    s.st.probe = probe;
    s.st.phase_filter = phase_filter;
    s.st.aggregates_only = o->aggregates_only;
    s.st.interleave = o->interleave_flag ? o->interleave_flag == 1 : c->interleave;
    if (o->shard.n)
        fprintf(stderr, "headroom sweep: %s: shard %s: %d of %d points (%d duplicates dropped)%s -> %s\n", c->name,
                shard, npts, nall, ndup, s.st.resumed ? ", resuming" : "", o->dir);
    else
        fprintf(stderr, "headroom sweep: %s: %d points (%d duplicates dropped)%s -> %s\n", c->name, npts, ndup,
                s.st.resumed ? ", resuming" : "", o->dir);
    if (!s.ceilings)
        fprintf(stderr, "headroom sweep: note: no ceilings at %s (run headroom roofline): no roofline counters\n", cpath);

    /* Kernels the config names that are not loaded (kernels = plugins, name?). */
    for (int i = 0; i < c->nabsent && !st; i++) st = skip(&s, "skipped", c->absent[i].name, c->absent[i].reason, false);
    if (st) goto out;
    for (int i = 0; i < npts; i++)
        s.work_total += !pts[i].skip[0] && !hr_sweep_store_has(&s.st, pts[i].key) &&
                        !hr_sweep_store_crashed(&s.st, pts[i].key) ? s.reps : 0;
    s.t0 = hr_now();
    s.npts = npts;
    st = measure_all(&s, pts);
    if (o->progress_tty && !s.interrupted) {
        s.ndone = npts;
        progress(&s, "", NULL);
    }
    if (!st) st = hr_sweep_store_write(&s.st, s.interrupted);
    if (!st && c->mode == HR_MODE_LAYER) st = hr_sweep_layer_crossover(s.st.res, s.st.nres, o->dir);
    if (!st) hr_sweep_store_latest(&s.st);
    /* The summary: a failure to write it is a note, the results are what counts. */
    if (!st && s.st.nres > 0 && hr_summary_write(o->dir, NULL, o->table))
        fprintf(stderr, "headroom sweep: note: no summary: %s\n", hr_errmsg());
    if (!st)
        fprintf(stderr, "headroom sweep: %d rows (%d new, %d resumed), %d skipped, %d failed checks, %d failed in "
                        "their worker%s: %s\n", s.st.nres, s.measured, s.st.resumed,
                s.st.nskipped - s.st.failed - s.st.crashed, s.st.failed, s.st.crashed,
                s.interrupted ? ", INTERRUPTED" : "", o->dir);
    if (!st && s.st.crashed && o->table) { /* the end of the table: what it lacks, and why */
        fprintf(o->table, "\n%d point%s failed in %s worker:\n", s.st.crashed, s.st.crashed == 1 ? "" : "s",
                s.st.crashed == 1 ? "its" : "their");
        for (int i = 0; i < s.st.nskipped; i++)
            if (!strncmp(s.st.skipped[i].reason, "failed in its worker: ", 22))
                fprintf(o->table, "  FAILED %s: %s\n", s.st.skipped[i].name, s.st.skipped[i].reason + 22);
    }
    if (!st && o->quiet && s.nwarn + nenv)
        fprintf(stderr, "headroom sweep: --quiet: %d findings (noise, threads, phases) kept in summary.md and "
                        "the results' context\n", s.nwarn + nenv);
    if (!st && s.st.nphase && !o->quiet) /* quiet: the sweep object's phase_changes */
        fprintf(stderr, "headroom sweep: %d repetitions changed phase (probe before/after differ > %.0f%%), %d "
                        "excluded from the medians%s\n",
                s.st.nphase, c->phase_threshold * 100, s.st.nexcluded, phase_filter ? "" : " (use --phase-filter)");
    if (!st && s.run_errors)
        st = hr_fail("%d point%s failed to run (see FAILED above)", s.run_errors, s.run_errors == 1 ? "" : "s");
    if (!st) st = s.interrupted ? 130 : s.st.crashed ? HR_EWORKER : s.st.failed ? HR_EFAIL : HR_OK;
    /* A sweep that measured nothing is not a pass: a CI job gating on it would read an
     * empty results file as "no regression". The files are written for the record. */
    if (st == HR_OK && s.st.nres == 0 && o->shard.n)
        fprintf(stderr, "headroom sweep: note: shard %s measured nothing (%d of its %d points skipped); "
                        "merge still needs its directory\n", shard, s.st.nskipped, npts);
    else if (st == HR_OK && s.st.nres == 0)
        st = hr_fail("nothing measured: all %d points were skipped (see the notes above and "
                     "'skipped' in %s/results.json)", npts, o->dir);
out:
    hr_sweep_journal_close(&s.jn);
    hr_sweep_store_close(&s.st);
out_pts:
    free(all);
    free(mine);
    free(owner);
    return st;
}

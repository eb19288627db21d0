/* tune.c — searches a kernel's tunables (block_q, block_kv, threads) for one shape.
 *
 * The machine is noisy (throttled cores whose FMA rate swings ±40% in phases lasting
 * seconds), so no candidate is ever judged on its own timing. Two configurations are
 * compared by interleaving: round r times A then B (B then A on odd rounds, so a slow
 * drift penalizes neither), each sample long enough (min_time) to swamp the timer, and
 * the per-round ratio t(A)/t(B) cancels the phase both shared. B beats A only when the
 * median ratio exceeds 1 + margin AND more than half of the rounds do: one lucky round
 * or a phase change cannot make a winner; and a challenger that wins its first rounds
 * must win again over twice as many (duel()). A sample is the fastest of up to 5 chunks
 * of calls, which removes preemption by other processes (it only ever adds time).
 *
 * Strategies:
 *   coord  — coordinate descent from the kernel defaults: for each tunable in turn try
 *            its values nearest-first (in log2 distance from the current one), each
 *            against the best so far; repeat passes until one changes nothing or the
 *            budget is spent. Cost: a sum, not a product, of the value-set sizes.
 *   bandit — successive halving: a deterministic sample of at most 24 grid points
 *            (defaults included) is ranked by the median, over rounds, of each one's
 *            time divided by that round's median time of all survivors (every round
 *            times every survivor back to back, so each ratio shares the phase); the
 *            better half survives and the next rung doubles the rounds. The survivor
 *            must then beat the defaults by the coord rule above.
 * Every candidate is checked against the fp64 oracle before it is timed. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "counts.h"
#include "cpus.h"
#include "guard.h"
#include "stats.h"
#include "threads.h"
#include "timer.h"
#include "tune.h"

const char *const hr_tune_strategy_names[] = {"coord", "bandit", NULL};

/* ---- value sets -------------------------------------------------------------------- */

static int vector_width(void)
{
    return !strcmp(hr_isa, "avx512") ? 16 : !strcmp(hr_isa, "avx2") ? 8 : 4;
}

static int has(const int *v, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x) return 1;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int hr_tune_values(const hr_kernel *k, const hr_problem *p, unsigned cap, int def, int *v, int max)
{
    int n = 0;
    if (cap == HR_CAP_THREADED) {
        int cpus = hr_cpus_get()->allowed, lim = hr_threads_limit(); /* the CPUs it may run on */
        if (cpus > lim) cpus = lim;
        for (int t = 1; t <= cpus && n < max; t++)
            if (cpus <= 8 || (t & (t - 1)) == 0 || t == cpus) v[n++] = t;
    } else {
        long dim = cap == HR_CAP_BLOCK_Q ? p->seq_q : p->seq_kv, lim = 8;
        while (lim < dim && lim < 512) lim <<= 1;
        const int vw = vector_width();
        for (int b = 8; b <= lim && n < max; b <<= 1) v[n++] = b;
        for (int b = 24; b <= lim && n < max; b <<= 1)
            if (b % vw == 0) v[n++] = b;
    }
    if (def > 0 && n < max && !has(v, n, def)) v[n++] = def;
    qsort(v, (size_t)n, sizeof *v, cmp_int);
    (void)k;
    return n;
}

void hr_tune_str(const hr_kernel *k, const hr_tune *t, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    if ((k->caps & HR_CAP_BLOCK_Q) && o < len) o += (size_t)snprintf(buf + o, len - o, "bq=%d ", t->block_q);
    if ((k->caps & HR_CAP_BLOCK_KV) && o < len) o += (size_t)snprintf(buf + o, len - o, "bkv=%d ", t->block_kv);
    if (o < len) o += (size_t)snprintf(buf + o, len - o, "T%d", t->threads);
}

/* ---- measuring ------------------------------------------------------------------- */

typedef struct {
    const hr_kernel *k;
    const hr_tune_spec *s;
    hr_tensors ten;
    hr_args targs; /* ten's args with its tiled cache (hr_tensors_args), for the cfgs that take it */
    hr_tune_result *out;
    double t0, check_cost; /* start; seconds the last oracle check took              */
    double sample_cost;    /* mean wall seconds of one sample so far                  */
    long nsamples;
    int def_verdict;
    char failed[320]; /* non-empty: a call of the kernel failed (a plugin's run), the message */
} tctx;

/* A configuration being timed: its workspace and calibrated calls per sample. */
typedef struct {
    hr_tune t;
    void *ws;
    long iters;
    const hr_args *a; /* &tctx.ten.args or &tctx.targs (hr_tensors_args for t) */
} cfg;

static double elapsed(const tctx *c) { return hr_now() - c->t0; }

static void logf_(const tctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(const tctx *c, const char *fmt, ...)
{
    if (!c->s->log) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->s->log, "headroom tune: [%5.1fs] ", elapsed(c));
    vfprintf(c->s->log, fmt, ap);
    fprintf(c->s->log, "\n");
    va_end(ap);
}

static void run_once(tctx *c, const cfg *g)
{
    hr_guard_kernel(c->k->name);
    if (hr_kernel_run(c->k, &c->s->prob, &g->t, g->a, g->ws) && !c->failed[0])
        snprintf(c->failed, sizeof c->failed, "%s", hr_errmsg());
    hr_guard_kernel(NULL);
    __asm__ __volatile__("" : : "r"(c->ten.args.o.p) : "memory");
}

/* Allocates g's workspace and calibrates its calls per sample from the fastest of three
 * warm calls (a call stretched by preemption must not shrink the sample). Returns HR_OK
 * or HR_EUSAGE (no memory). */
static int cfg_open(tctx *c, cfg *g, const hr_tune *t)
{
    g->t = *t;
    g->a = hr_tensors_args(&c->ten, &c->s->prob, c->k, t, &c->targs);
    size_t wsb = hr_kernel_workspace(c->k, &c->s->prob, t);
    if (!(g->ws = hr_galloc(wsb, "workspace"))) return hr_fail("cannot allocate %.1f MiB of workspace", wsb / 1048576.0);
    run_once(c, g);
    double one = 1e30;
    for (int i = 0; i < 3; i++) {
        double a = hr_now();
        run_once(c, g);
        double x = hr_now() - a;
        if (x < one) one = x;
        if (one >= c->s->min_time) break; /* long calls: one is enough */
    }
    g->iters = one >= c->s->min_time ? 1 : (long)ceil(c->s->min_time / (one > 1e-9 ? one : 1e-9));
    if (g->iters > 1000000) g->iters = 1000000;
    return HR_OK;
}

static void cfg_close(cfg *g)
{
    hr_gfree(g->ws);
    g->ws = NULL;
}

/* Seconds per call of g, one sample: its calls run in up to 5 chunks and the fastest
 * chunk counts. Preemption (the machine is shared) only ever adds time, so the minimum
 * of a few chunks removes it, while a frequency phase lasting seconds slows every chunk
 * alike and is cancelled by interleaving instead. Keeps a running mean of the wall time
 * of a sample for the budget. */
static double sample(tctx *c, const cfg *g)
{
    const long nchunk = g->iters < 5 ? g->iters : 5, per = g->iters / nchunk;
    double best = 1e30, a0 = hr_now();
    for (long ch = 0; ch < nchunk; ch++) {
        double a = hr_now();
        for (long i = 0; i < per; i++) run_once(c, g);
        double x = (hr_now() - a) / (double)per;
        if (x < best) best = x;
    }
    double wall = hr_now() - a0;
    hr_guard_verify(c->k->name); /* the canaries, after the timed chunks */
    c->nsamples++;
    c->sample_cost += (wall - c->sample_cost) / c->nsamples;
    return best;
}

/* Times a and b interleaved for n rounds: ta[r], tb[r] seconds per call. */
static void interleave(tctx *c, const cfg *a, const cfg *b, int n, double *ta, double *tb)
{
    for (int r = 0; r < n; r++) {
        if (r % 2 == 0) {
            ta[r] = sample(c, a);
            tb[r] = sample(c, b);
        } else {
            tb[r] = sample(c, b);
            ta[r] = sample(c, a);
        }
    }
}

/* The win rule: median of ta/tb > 1 + margin and a majority of rounds above it. */
static int judge(const double *ta, const double *tb, int n, double margin, double *ratio, int *wins)
{
    double q[HR_MAX_REPS];
    *wins = 0;
    for (int r = 0; r < n; r++) {
        q[r] = ta[r] / tb[r];
        if (q[r] > 1 + margin) (*wins)++;
    }
    *ratio = hr_median(q, (size_t)n);
    return *ratio > 1 + margin && 2 * *wins > n;
}

/* A duel of challenger b against incumbent a: n interleaved rounds; when b wins them, n
 * more rounds, and the rule must hold over all 2n. On this machine one round's ratio
 * wanders by ±10%, so a single 5-round verdict would crown about a third of equal
 * candidates; the confirmation cuts that to a few percent while a real gain of twice
 * the margin passes both stages. Returns 1 when b wins. */
static int duel(tctx *c, const cfg *a, const cfg *b, int n, double *ratio, int *wins, int *rounds)
{
    double ta[HR_MAX_REPS], tb[HR_MAX_REPS];
    interleave(c, a, b, n, ta, tb);
    *rounds = n;
    if (!judge(ta, tb, n, c->s->margin, ratio, wins)) return 0;
    interleave(c, a, b, n, ta + n, tb + n);
    *rounds = 2 * n;
    return judge(ta, tb, 2 * n, c->s->margin, ratio, wins);
}

/* ---- checking ---------------------------------------------------------------------- */

static hr_tune_cand *find_cand(hr_tune_result *o, const hr_tune *t)
{
    for (int i = 0; i < o->ncands; i++)
        if (!memcmp(&o->cands[i].tune, t, sizeof *t)) return &o->cands[i];
    return NULL;
}

static hr_tune_cand *add_cand(hr_tune_result *o, const hr_tune *t)
{
    if (o->ncands >= HR_TUNE_MAX_CANDS) return NULL;
    hr_tune_cand *x = &o->cands[o->ncands++];
    memset(x, 0, sizeof *x);
    x->tune = *t;
    x->verdict = -1;
    return x;
}

/* Runs t once on a poisoned output and compares with the oracle. Returns 1 when t is
 * acceptable (its verdict no worse than the defaults'), 0 when rejected or over the
 * memory budget. */
static int check(tctx *c, hr_tune_cand *x)
{
    const hr_problem *p = &c->s->prob;
    char ts[64];
    hr_tune_str(c->k, &x->tune, ts, sizeof ts);
    double budget = hr_mem_budget(c->s->max_mem);
    if (hr_bench_bytes(c->k, p, &x->tune) > budget) {
        x->skipped_mem = true;
        logf_(c, "skip   %s: over the memory budget", ts);
        return 0;
    }
    cfg g;
    double a = hr_now();
    g.t = x->tune;
    g.a = hr_tensors_args(&c->ten, p, c->k, &x->tune, &c->targs);
    size_t wsb = hr_kernel_workspace(c->k, p, &x->tune);
    if (!(g.ws = hr_galloc(wsb, "workspace"))) {
        x->skipped_mem = true;
        logf_(c, "skip   %s: cannot allocate its workspace", ts);
        return 0;
    }
    /* Poison: a configuration that skips rows cannot pass on a stale correct output. */
    hr_tensors_poison(p, g.a, 12345.0f);
    hr_tensors_lock(&c->ten, true); /* the inputs read-only for the checked call */
    run_once(c, &g);
    hr_tensors_lock(&c->ten, false);
    hr_guard_verify(c->k->name);
    hr_tensors_output(p, g.a);
    hr_check r = hr_oracle_check_q(p, g.a, 0, hr_path_quant(hr_kernel_path(c->k, p)));
    cfg_close(&g);
    c->check_cost = hr_now() - a;
    c->out->nchecked++;
    x->verdict = r.verdict;
    x->max_rel_err = r.max_rel_err;
    char msg[256];
    hr_check_str(&r, msg, sizeof msg);
    int ok = c->def_verdict < 0 || r.verdict <= c->def_verdict;
    if (!ok) c->out->nrejected++;
    logf_(c, "check  %s: %s%s", ts, msg, ok ? "" : "  -> REJECTED, never chosen");
    return ok;
}

/* Seconds one duel of n rounds may take (2n when confirmed), plus a check and opening. */
static double cost(const tctx *c, int n) { return c->check_cost + 4.0 * n * c->sample_cost + 2 * c->sample_cost; }

static int over_budget(tctx *c, double need)
{
    /* Keep room for the final comparison of defaults and winner (at its minimum of 3
     * rounds; it takes more when time is left). */
    double reserve = 2.0 * 3 * c->sample_cost;
    if (elapsed(c) + need + reserve <= c->s->budget) return 0;
    c->out->budget_spent = true;
    return 1;
}

/* Compares candidate t with the best (an open cfg): checks, times, judges. Returns 1
 * when t became the best (best is then reopened on t), 0 otherwise, -1 on error. */
static int try_candidate(tctx *c, cfg *best, const hr_tune *t)
{
    hr_tune_cand *x = find_cand(c->out, t);
    if (x) return 0; /* evaluated before */
    if (!(x = add_cand(c->out, t))) return 0;
    if (!check(c, x)) return 0;
    cfg g;
    if (cfg_open(c, &g, t)) return -1;
    int won = duel(c, best, &g, c->s->rounds, &x->ratio, &x->wins, &x->rounds);
    x->timed = 1;
    c->out->ntimed++;
    char ts[64], bs[64];
    hr_tune_str(c->k, t, ts, sizeof ts);
    hr_tune_str(c->k, &best->t, bs, sizeof bs);
    logf_(c, "time   %s vs %s: x%.3f, faster by >%.0f%% in %d/%d rounds%s", ts, bs, x->ratio,
          c->s->margin * 100, x->wins, x->rounds, won ? "  -> new best" : "");
    if (!won) {
        cfg_close(&g);
        return 0;
    }
    x->adopted = true;
    cfg_close(best);
    *best = g;
    return 1;
}

/* ---- strategies ------------------------------------------------------------------ */

static int *field(hr_tune *t, unsigned cap)
{
    return cap == HR_CAP_BLOCK_Q ? &t->block_q : cap == HR_CAP_BLOCK_KV ? &t->block_kv : &t->threads;
}

/* The tunables k declares and the caller did not fix. */
static int params(const hr_kernel *k, const hr_tune *fixed, unsigned *caps)
{
    static const unsigned all[] = {HR_CAP_BLOCK_Q, HR_CAP_BLOCK_KV, HR_CAP_THREADED};
    int n = 0;
    for (int i = 0; i < 3; i++)
        if ((k->caps & all[i]) && *field((hr_tune *)fixed, all[i]) <= 0) caps[n++] = all[i];
    return n;
}

static double log2_dist(int a, int b) { return fabs(log2((double)a) - log2((double)b)); }

static int coord(tctx *c, cfg *best, const unsigned *caps, int np)
{
    int improved = 1;
    while (improved && !c->out->budget_spent) {
        improved = 0;
        c->out->passes++;
        for (int pi = 0; pi < np && !c->out->budget_spent; pi++) {
            int v[64];
            int cur = *field(&best->t, caps[pi]);
            int n = hr_tune_values(c->k, &c->s->prob, caps[pi], cur, v, 64);
            /* Nearest first: a budget-limited search explores around the current value. */
            for (int i = 1; i < n; i++)
                for (int j = i; j > 0 && log2_dist(v[j], cur) < log2_dist(v[j - 1], cur); j--) {
                    int tmp = v[j];
                    v[j] = v[j - 1];
                    v[j - 1] = tmp;
                }
            for (int i = 0; i < n; i++) {
                if (v[i] == *field(&best->t, caps[pi])) continue;
                if (over_budget(c, cost(c, c->s->rounds))) break;
                hr_tune t = best->t;
                *field(&t, caps[pi]) = v[i];
                t = hr_kernel_tune(c->k, &c->s->prob, &t);
                int st = try_candidate(c, best, &t);
                if (st < 0) return HR_EUSAGE;
                improved |= st;
            }
        }
    }
    return HR_OK;
}

/* Deterministic grid sample (splitmix-style hash of the index) of at most max points. */
static int grid(tctx *c, const hr_tune *def, const unsigned *caps, int np, hr_tune *g, int max)
{
    int vals[3][64], nv[3] = {1, 1, 1};
    for (int i = 0; i < np; i++)
        nv[i] = hr_tune_values(c->k, &c->s->prob, caps[i], *field((hr_tune *)def, caps[i]), vals[i], 64);
    long total = (long)nv[0] * nv[1] * nv[2];
    int n = 0;
    g[n++] = *def;
    hr_rng rng;
    hr_rng_seed(&rng, 0x7475u);
    for (long tries = 0; n < max && tries < 50 * max && tries < 50 * total; tries++) {
        long idx = total <= max - 1 ? tries : (long)(hr_rng_next(&rng) % (uint64_t)total);
        if (idx >= total) break;
        hr_tune t = *def;
        long r = idx;
        for (int i = 0; i < np; i++) {
            *field(&t, caps[i]) = vals[i][r % nv[i]];
            r /= nv[i];
        }
        t = hr_kernel_tune(c->k, &c->s->prob, &t);
        int dup = 0;
        for (int j = 0; j < n; j++) dup |= !memcmp(&g[j], &t, sizeof t);
        if (!dup) g[n++] = t;
    }
    return n;
}

static int bandit(tctx *c, cfg *best, const unsigned *caps, int np)
{
    enum { MAXG = 24 };
    hr_tune g[MAXG];
    int ng = grid(c, &best->t, caps, np, g, MAXG);
    cfg s[MAXG];
    int ns = 0;
    /* The defaults are g[0] and already checked; check the rest. */
    for (int i = 1; i < ng; i++) {
        if (over_budget(c, c->check_cost + 4 * c->sample_cost)) break;
        hr_tune_cand *x = find_cand(c->out, &g[i]);
        if (x || !(x = add_cand(c->out, &g[i])) || !check(c, x)) continue;
        if (cfg_open(c, &s[ns], &g[i])) return HR_EUSAGE;
        ns++;
    }
    /* best (the defaults) takes part in the ranking as survivor 0. */
    cfg *pool[MAXG + 1];
    pool[0] = best;
    for (int i = 0; i < ns; i++) pool[i + 1] = &s[i];
    int np_ = ns + 1, rounds = 1;
    double norm[HR_MAX_REPS][MAXG + 1];
    while (np_ > 1 && !c->out->budget_spent) {
        if (over_budget(c, (double)rounds * np_ * c->sample_cost * 1.5)) break;
        double t[MAXG + 1];
        for (int r = 0; r < rounds; r++) {
            /* Rotate the order so no configuration always runs first in a round. */
            for (int j = 0; j < np_; j++) {
                int w = (j + r) % np_;
                t[w] = sample(c, pool[w]);
            }
            double med = hr_median(t, (size_t)np_);
            for (int w = 0; w < np_; w++) norm[r][w] = t[w] / med;
        }
        double score[MAXG + 1];
        for (int w = 0; w < np_; w++) {
            double col[HR_MAX_REPS];
            for (int r = 0; r < rounds; r++) col[r] = norm[r][w];
            score[w] = hr_median(col, (size_t)rounds);
        }
        /* Sort the pool by score (insertion sort; small) and keep the better half. */
        for (int i = 1; i < np_; i++)
            for (int j = i; j > 0 && score[j] < score[j - 1]; j--) {
                double ts = score[j];
                score[j] = score[j - 1];
                score[j - 1] = ts;
                cfg *tp = pool[j];
                pool[j] = pool[j - 1];
                pool[j - 1] = tp;
            }
        char ts[64];
        hr_tune_str(c->k, &pool[0]->t, ts, sizeof ts);
        logf_(c, "rung   %d configurations x %d round%s: leader %s (%.3f of the round median)", np_,
              rounds, rounds > 1 ? "s" : "", ts, score[0]);
        np_ = (np_ + 1) / 2;
        if (rounds < HR_MAX_REPS / 2) rounds *= 2;
    }
    /* The leader must still beat the defaults by the pairwise rule. */
    cfg *lead = pool[0];
    int st = HR_OK;
    if (lead != best) {
        hr_tune_cand *x = find_cand(c->out, &lead->t);
        const int n = c->s->rounds;
        if (!over_budget(c, 4.0 * n * c->sample_cost)) {
            int won = duel(c, best, lead, n, &x->ratio, &x->wins, &x->rounds);
            x->timed = 1;
            c->out->ntimed++;
            char ts[64];
            hr_tune_str(c->k, &lead->t, ts, sizeof ts);
            logf_(c, "time   %s vs defaults: x%.3f, faster by >%.0f%% in %d/%d rounds%s", ts, x->ratio,
                  c->s->margin * 100, x->wins, x->rounds, won ? "  -> new best" : "");
            if (won) {
                x->adopted = true;
                cfg tmp = *best;
                *best = *lead;
                *lead = tmp; /* closed below with the others */
            }
        }
    }
    for (int i = 0; i < ns; i++) cfg_close(&s[i]);
    return st;
}

/* ---- the search ------------------------------------------------------------------ */

int hr_tune_run(const hr_kernel *k, const hr_tune_spec *s, hr_tune_result *out)
{
    memset(out, 0, sizeof *out);
    const hr_problem *p = &s->prob;
    int st = hr_kernel_validate(k, p);
    if (st) return st;
    unsigned caps[3];
    int np = params(k, &s->fixed, caps);
    if (!(k->caps & (HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV | HR_CAP_THREADED)))
        return hr_fail("--kernel: %s declares no tunable parameters (see headroom list)", k->name);
    if (!np) return hr_fail("nothing to search: every tunable of %s is fixed by a flag", k->name);
    if (s->rounds < 3 || s->rounds > HR_MAX_REPS / 2) return hr_fail("--rounds: must be in [3, %d]", HR_MAX_REPS / 2);

    tctx c = {.k = k, .s = s, .out = out, .def_verdict = -1};
    c.t0 = hr_now();
    out->final_rounds = s->rounds < 7 ? 7 : s->rounds;
    out->def = hr_kernel_tune(k, p, &s->fixed);
    if ((st = hr_threads_check(out->def.threads, s->fixed.threads ? "--threads" : "threads (default)")))
        return st;
    hr_threads_used(out->def.threads);
    double budget = hr_mem_budget(s->max_mem);
    if (hr_bench_bytes(k, p, &out->def) > budget)
        return hr_fail("--max-mem: %s with its defaults needs %.1f MiB, over the budget of %.1f MiB",
                       k->name, hr_bench_bytes(k, p, &out->def) / 1048576, budget / 1048576);
    if ((st = hr_tensors_alloc(&c.ten, p, s->layout, s->dist, s->seed))) return st;

    /* The defaults: checked (their verdict is the bar for every candidate), calibrated. */
    hr_tune_cand *d = add_cand(out, &out->def);
    check(&c, d);
    if (c.failed[0]) { /* a run that fails is not a slow configuration: exit 2 */
        hr_tensors_free(&c.ten);
        return hr_fail("%s", c.failed);
    }
    if (d->verdict == HR_CHECK_FAIL) {
        hr_tensors_free(&c.ten);
        return hr_failc(HR_EFAIL, "kernel %s fails the oracle check with its defaults", k->name);
    }
    c.def_verdict = d->verdict;
    cfg best, def;
    if ((st = cfg_open(&c, &best, &out->def))) goto done;
    sample(&c, &best); /* the first estimate of a sample's cost */

    st = s->strategy == HR_TUNE_BANDIT ? bandit(&c, &best, caps, np) : coord(&c, &best, caps, np);
    if (st) goto close;
    out->best = best.t;

    /* The reported figure comes from a fresh interleaved run, not from the comparisons
     * that chose the winner (which are biased towards it). */
    /* Fit the final rounds into what is left of the budget (at least 3, odd). */
    double left = s->budget - elapsed(&c);
    int fit = c.sample_cost > 0 ? (int)(left / (2 * c.sample_cost)) : out->final_rounds;
    if (fit < out->final_rounds) out->final_rounds = fit < 3 ? 3 : fit | 1;
    const int n = out->final_rounds;
    double ta[HR_MAX_REPS], tb[HR_MAX_REPS], q[HR_MAX_REPS];
    const double flops = hr_core_flops(p);
    if (!memcmp(&best.t, &out->def, sizeof best.t)) {
        for (int r = 0; r < n; r++) ta[r] = tb[r] = sample(&c, &best);
    } else {
        if ((st = cfg_open(&c, &def, &out->def))) goto close;
        interleave(&c, &def, &best, n, ta, tb);
        cfg_close(&def);
    }
    for (int r = 0; r < n; r++) q[r] = ta[r] / tb[r];
    out->speedup = hr_median(q, (size_t)n);
    out->def_gflops = flops / hr_median(ta, (size_t)n) * 1e-9;
    out->best_gflops = flops / hr_median(tb, (size_t)n) * 1e-9;
close:
    cfg_close(&best);
done:
    if (!st && c.failed[0]) st = hr_fail("%s", c.failed);
    out->elapsed = elapsed(&c);
    hr_tensors_free(&c.ten);
    return st;
}

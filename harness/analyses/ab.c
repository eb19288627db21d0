/* ab.c — `headroom ab`: two builds' workers driven pair by pair (ABBA), the paired log ratios judged per point and corrected over the config. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ab.h"
#include "bench.h"
#include "files.h"
#include "proc.h"
#include "results.h"
#include "stats.h"
#include "sysinfo.h"
#include "threads.h"

/* ---- one worker process ------------------------------------------------------------------ */

#define LINE_MAX_BYTES ((size_t)4 << 20) /* a reply line longer than this is refused */

typedef struct {
    const char *bin, *side; /* "base" / "new" in messages                              */
    pid_t pid;
    int to, from;           /* its stdin (we write), its stdout (we read)                */
    char *buf;
    size_t len, cap;
} worker;

/* Starts BIN ab-worker CONFIG [overrides]. HR_OK, or HR_EUSAGE naming the binary. */
static int start(worker *w, const hr_ab_opts *o)
{
    int in[2], out[2];
    if (access(w->bin, X_OK)) return hr_fail("%s: cannot run the %s binary (%s)", w->bin, w->side, strerror(errno));
    if (pipe(in) || pipe(out)) return hr_fail("ab: cannot make pipes (%s)", strerror(errno));
    char reps[32], mt[32], seed[32];
    snprintf(reps, sizeof reps, "%d", o->worker.reps);
    snprintf(mt, sizeof mt, "%.17g", o->worker.min_time);
    snprintf(seed, sizeof seed, "%d", o->worker.seed);
    const char *argv[16] = {w->bin, "ab-worker", o->worker.config, "--reps", reps};
    int a = 5;
    if (o->worker.min_time >= 0) argv[a++] = "--min-time", argv[a++] = mt;
    if (o->worker.seed >= 0) argv[a++] = "--seed", argv[a++] = seed;
    if (o->worker.filter) argv[a++] = "--filter", argv[a++] = o->worker.filter;
    argv[a] = NULL;
    cpu_set_t cpus; /* the worker's OpenMP team gets every CPU headroom started with */
    hr_threads_start_cpus(&cpus);
    fflush(NULL);
    w->pid = fork();
    if (w->pid < 0) return hr_fail("ab: cannot fork (%s)", strerror(errno));
    if (w->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        hr_threads_apply_cpus(&cpus);
        execv(w->bin, (char *const *)argv);
        fprintf(stderr, "headroom ab: %s: cannot execute (%s)\n", w->bin, strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    w->to = in[1];
    w->from = out[0];
    fcntl(w->to, F_SETFD, FD_CLOEXEC);
    fcntl(w->from, F_SETFD, FD_CLOEXEC);
    return HR_OK;
}

/* Ends a worker: its stdin closed (a worker reads EOF and exits), up to a second to exit
 * by itself, then SIGKILL. A worker that has failed is often exiting already; killing it
 * mid-exit cut short its own clean-up (under ASan, LeakSanitizer's check at exit, whose
 * tracer then printed "Unable to get registers" into the caller's stderr). */
static void stop_worker(worker *w)
{
    if (w->to > 0) close(w->to);
    w->to = -1;
    if (w->pid > 0) hr_proc_reap(w->pid, 1);
    w->pid = 0;
    if (w->from > 0) close(w->from);
    w->from = -1;
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0; /* a later round starts this worker again */
}

/* Reads the worker's next line as JSON within o->timeout seconds. NULL with a message
 * naming the side on a timeout, death, an over-long or non-JSON line, or a signal. */
static cJSON *read_reply(worker *w, const hr_ab_opts *o)
{
    for (;;) {
        char *nl = w->buf ? memchr(w->buf, '\n', w->len) : NULL;
        if (nl) {
            *nl = 0;
            cJSON *j = cJSON_ParseWithOpts(w->buf, NULL, 1); /* one JSON document per line */
            size_t used = (size_t)(nl - w->buf) + 1;
            memmove(w->buf, nl + 1, w->len - used);
            w->len -= used;
            if (!j) hr_fail("%s (%s): not a headroom ab worker (a line of its output is not JSON)", w->bin, w->side);
            return j;
        }
        if (o->stop && *o->stop) {
            hr_fail("ab: interrupted");
            return NULL;
        }
        const int r = hr_proc_readable(w->from, o->timeout);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) {
            hr_fail("%s (%s): no answer within %g s (HEADROOM_AB_TIMEOUT)", w->bin, w->side, o->timeout);
            return NULL;
        }
        if (w->len + 65536 + 1 > w->cap) {
            if (w->cap >= LINE_MAX_BYTES) {
                hr_fail("%s (%s): a reply line over %zu bytes", w->bin, w->side, LINE_MAX_BYTES);
                return NULL;
            }
            size_t nc = w->cap ? 2 * w->cap : 65536 * 2;
            char *nb = realloc(w->buf, nc);
            if (!nb) {
                hr_fail("ab: out of memory");
                return NULL;
            }
            w->buf = nb, w->cap = nc;
        }
        ssize_t got = read(w->from, w->buf + w->len, w->cap - w->len - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            int status = 0;
            waitpid(w->pid, &status, 0);
            w->pid = 0;
            hr_fail("%s (%s): the worker ended (%s %d) before answering", w->bin, w->side,
                    WIFSIGNALED(status) ? "signal" : "exit status",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            return NULL;
        }
        w->len += (size_t)got;
    }
}

/* Sends one command and reads its reply; an {"error"} reply is returned as is. */
static cJSON *ask(worker *w, const hr_ab_opts *o, const char *fmt, int k, int j)
{
    char line[64];
    int n = snprintf(line, sizeof line, fmt, k, j);
    if (write(w->to, line, (size_t)n) != n) {
        hr_fail("%s (%s): the worker stopped reading (%s)", w->bin, w->side, strerror(errno));
        return NULL;
    }
    return read_reply(w, o);
}

/* ---- judging ------------------------------------------------------------------------------ */

void hr_ab_judge_logs(const double *d, int n, double base_s, double new_s, hr_cmp_row *row)
{
    row->n_base = row->n_new = n;
    row->base = base_s * 1e9;
    row->new_ = new_s * 1e9;
    row->probe_pct = NAN;
    row->delta_pct = row->adj_delta_pct = 100 * expm1(hr_median(d, (size_t)n));
    hr_wsr_result w = hr_wilcoxon(d, (size_t)n);
    row->tested = n >= 2;
    row->can_reach = true;
    row->test = (hr_mwu_result){.u1 = w.w_plus, .p = w.p, .method = w.exact ? HR_MWU_EXACT : HR_MWU_NORMAL};
}

/* d[i] = log(new_[i] / base[i]): a pair's log ratio, the unit every verdict here is judged on. */
static void log_ratios(const double *base, const double *new_, int n, double *d)
{
    for (int i = 0; i < n; i++) d[i] = log(new_[i] / base[i]);
}

void hr_ab_judge_point(const double *base, const double *new_, int n, hr_cmp_row *row)
{
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    if (!d) {
        row->n_base = row->n_new = n;
        row->probe_pct = NAN;
        return;
    }
    log_ratios(base, new_, n, d);
    hr_ab_judge_logs(d, n, hr_median(base, (size_t)n), hr_median(new_, (size_t)n), row);
    free(d);
}

/* The median over one round's pairs of log(new / base). */
static double round_log_ratio(const double *base, const double *new_, int n)
{
    double d[HR_MAX_REPS];
    log_ratios(base, new_, n, d);
    return hr_median(d, (size_t)n);
}

/* Adds a later round's repetitions of a point to its result and summarizes them again. */
static void append_reps(hr_result *dst, const hr_result *src)
{
    hr_timing *d = &dst->timing;
    for (int i = 0; i < src->timing.reps && d->reps < HR_MAX_REPS; i++, d->reps++) {
        d->rep_time[d->reps] = src->timing.rep_time[i];
        d->rep_cpu[d->reps] = src->timing.rep_cpu[i];
    }
    hr_summarize(d->rep_time, d->reps, &d->s);
    hr_bench_rates(dst);
}

/* Verdicts after Holm/BH over the tested points, as compare's. */
static void verdicts(hr_cmp *c)
{
    double *p = malloc((size_t)(c->nrows ? c->nrows : 1) * sizeof *p), *adj = malloc((size_t)(c->nrows ? c->nrows : 1) * sizeof *adj);
    if (!p || !adj) {
        free(p), free(adj);
        return;
    }
    for (int i = 0; i < c->nrows; i++) p[i] = c->rows[i].test.p;
    hr_p_adjust(p, (size_t)c->nrows, c->opts.correction, adj);
    c->n_tested = c->nrows;
    double logsum = 0;
    for (int i = 0; i < c->nrows; i++) {
        hr_cmp_row *r = &c->rows[i];
        r->p_adj = adj[i];
        logsum += log1p(r->delta_pct / 100);
        r->verdict = hr_cmp_verdict(r, &c->opts);
        c->count[r->verdict]++;
    }
    c->geomean_delta_pct = c->nrows ? 100 * expm1(logsum / c->nrows) : 0;
    free(p), free(adj);
}

/* ---- the run ------------------------------------------------------------------------------ */

/* Reads both hellos and checks they describe the same points. On HR_OK *pts is the
 * base's points array (owned by *hb). */
static int hellos(worker *w, const hr_ab_opts *o, cJSON **hb, cJSON **hn, hr_ab_result *r)
{
    cJSON *h[2] = {NULL, NULL};
    for (int s = 0; s < 2; s++) {
        if (!(h[s] = read_reply(&w[s], o))) goto bad;
        if (hr_json_str(h[s], "error", NULL)) {
            hr_fail("%s (%s): %s", w[s].bin, w[s].side, hr_json_str(h[s], "error", NULL));
            goto bad;
        }
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(h[s], "ab_protocol");
        if (!cJSON_IsNumber(v) || v->valueint != HR_AB_PROTOCOL) {
            hr_fail("%s (%s): speaks ab protocol %d, this headroom %d (build both from one source version)",
                    w[s].bin, w[s].side, cJSON_IsNumber(v) ? v->valueint : 0, HR_AB_PROTOCOL);
            goto bad;
        }
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(h[s], "build_id");
        snprintf(s ? r->new_build : r->base_build, sizeof r->base_build, "%s", cJSON_IsString(b) ? b->valuestring : "?");
    }
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(h[0], "points"), *pn = cJSON_GetObjectItemCaseSensitive(h[1], "points");
    int n = cJSON_GetArraySize(pb);
    if (!cJSON_IsArray(pb) || !cJSON_IsArray(pn) || n != cJSON_GetArraySize(pn)) {
        hr_fail("ab: the two builds expand %s into different points (%d and %d)", o->worker.config,
                cJSON_GetArraySize(pb), cJSON_GetArraySize(pn));
        goto bad;
    }
    for (int i = 0; i < n; i++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pb, i), "name");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pn, i), "name");
        if (!cJSON_IsString(a) || !cJSON_IsString(b) || strcmp(a->valuestring, b->valuestring)) {
            hr_fail("ab: point %d differs between the builds (%s vs %s)", i, cJSON_IsString(a) ? a->valuestring : "?",
                    cJSON_IsString(b) ? b->valuestring : "?");
            goto bad;
        }
    }
    *hb = h[0], *hn = h[1];
    return HR_OK;
bad:
    cJSON_Delete(h[0]);
    cJSON_Delete(h[1]);
    return HR_EUSAGE;
}

static void add_skip(hr_ab_result *r, const char *name, const char *why)
{
    snprintf(r->skipped[r->nskipped++], sizeof r->skipped[0], "%s: %s", name, why);
}

/* Measures point k on both sides in round `round`: open (base first in even rounds, new
 * first in odd ones), reps pairs ABBA, close. 0 done, 1 skipped (a side refused to open
 * it; in round 0 only, later it is a failure), -1 failure (message set). */
static int measure(worker *w, const hr_ab_opts *o, int round, int k, const char *name, double *tb, double *tn,
                   hr_result *rb, hr_result *rn, hr_ab_result *r)
{
    cJSON *j[2] = {NULL, NULL};
    for (int t = 0; t < 2; t++) {
        int s = t ^ (round & 1);
        if (!(j[s] = ask(&w[s], o, "open %d\n", k, 0))) goto fail;
        if (hr_json_str(j[s], "error", NULL)) {
            char why[300];
            snprintf(why, sizeof why, "%s: %s", w[s].side, hr_json_str(j[s], "error", NULL));
            if (round) {
                hr_fail("ab: point %s ran in round 1 but not in round %d (%s)", name, round + 1, why);
                goto fail;
            }
            add_skip(r, name, why);
            cJSON_Delete(j[0]), cJSON_Delete(j[1]);
            return 1;
        }
    }
    cJSON_Delete(j[0]), cJSON_Delete(j[1]);
    for (int rep = 0; rep < o->worker.reps; rep++) {
        /* ABBA: pair rep runs base first when rep + round is even, new first when odd
         * (so an odd --reps is balanced over the rounds). */
        for (int t = 0; t < 2; t++) {
            int s = ((rep + round) % 2) ^ t;
            cJSON *x = ask(&w[s], o, "rep %d %d\n", k, rep);
            if (!x) goto fail0;
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "t");
            if (!cJSON_IsNumber(v) || !(v->valuedouble > 0)) {
                hr_fail("%s (%s): point %s repetition %d: %s", w[s].bin, w[s].side, name, rep,
                        hr_json_str(x, "error", NULL) ? hr_json_str(x, "error", NULL) : "no time in the reply");
                cJSON_Delete(x);
                goto fail0;
            }
            (s ? tn : tb)[rep] = v->valuedouble;
            cJSON_Delete(x);
        }
    }
    for (int s = 0; s < 2; s++) {
        cJSON *x = ask(&w[s], o, "close %d\n", k, 0);
        if (!x) goto fail0;
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(x, "result");
        if (!res || hr_result_from_json(res, s ? rn : rb)) {
            hr_fail("%s (%s): point %s: %s", w[s].bin, w[s].side, name, hr_json_str(x, "error", NULL) ? hr_json_str(x, "error", NULL) : "a result this build cannot read");
            cJSON_Delete(x);
            goto fail0;
        }
        cJSON_Delete(x);
    }
    return 0;
fail:
    cJSON_Delete(j[0]), cJSON_Delete(j[1]);
fail0:
    return -1;
}

static int write_side(const char *dir, const char *file, const hr_result *rs, int n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "context", hr_context_json(NULL, 0));
    cJSON *b = cJSON_AddArrayToObject(doc, "benchmarks");
    for (int i = 0; i < n; i++) hr_result_json_rows(&rs[i], b, false);
    int st = hr_write_json_atomic(path, doc);
    cJSON_Delete(doc);
    return st;
}

/* Ends both workers: a quit line, then stop_worker's wait or kill. */
static void stop_both(worker *w)
{
    for (int s = 0; s < 2; s++) {
        if (w[s].pid > 0 && w[s].to >= 0 && write(w[s].to, "quit\n", 5) < 0) { /* killed below anyway */
        }
        stop_worker(&w[s]);
    }
}

/* Starts both workers for a round (the base first in even rounds, the new in odd ones)
 * and reads their hellos; *hb holds the base's. */
static int start_round(worker *w, const hr_ab_opts *o, int round, cJSON **hb, hr_ab_result *r)
{
    cJSON *hn = NULL;
    int st = HR_OK;
    for (int t = 0; t < 2 && !st; t++) st = start(&w[t ^ (round & 1)], o);
    if (!st) st = hellos(w, o, hb, &hn, r);
    cJSON_Delete(hn);
    return st;
}

int hr_ab_run(const hr_ab_opts *o, hr_ab_result *r)
{
    memset(r, 0, sizeof *r);
    worker w[2] = {{.bin = o->base_bin, .side = "base", .to = -1, .from = -1},
                   {.bin = o->new_bin, .side = "new", .to = -1, .from = -1}};
    const int rounds = o->rounds > 1 ? o->rounds : 1, reps = o->worker.reps;
    cJSON *hb = NULL;
    double *tb = NULL, *tn = NULL, *dr = NULL; /* dr[i * rounds + round]: point i's round ratios */
    int *slot = NULL;                          /* point k's index among the measured, or -1 */
    hr_result *later = NULL;                   /* a later round's two results, then appended */
    int st = HR_OK;
    signal(SIGPIPE, SIG_IGN); /* a dead worker is an error line, not our death */
    if ((st = start_round(w, o, 0, &hb, r))) goto out;
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(hb, "points");
    const int n = cJSON_GetArraySize(pts);
    r->base = calloc((size_t)n + 1, sizeof *r->base);
    r->new_ = calloc((size_t)n + 1, sizeof *r->new_);
    r->skipped = calloc((size_t)n + 1, sizeof *r->skipped);
    r->cmp.rows = calloc((size_t)n + 1, sizeof *r->cmp.rows);
    tb = malloc((size_t)reps * sizeof *tb);
    tn = malloc((size_t)reps * sizeof *tn);
    dr = malloc(((size_t)n * rounds + 1) * sizeof *dr);
    slot = malloc(((size_t)n + 1) * sizeof *slot);
    later = calloc(2, sizeof *later);
    if (!r->base || !r->new_ || !r->skipped || !r->cmp.rows || !tb || !tn || !dr || !slot || !later) {
        st = hr_fail("ab: out of memory");
        goto out;
    }
    r->cmp.opts = o->judge;
    r->cmp.base_path = o->base_bin;
    r->cmp.new_path = o->new_bin;
    for (int round = 0; round < rounds; round++) {
        if (round) { /* fresh processes: their memory lands anew */
            stop_both(w);
            cJSON_Delete(hb);
            hb = NULL;
            if ((st = start_round(w, o, round, &hb, r))) goto out;
            pts = cJSON_GetObjectItemCaseSensitive(hb, "points");
            if (cJSON_GetArraySize(pts) != n) { /* a wrapper script can change between rounds */
                st = hr_fail("ab: the workers of round %d expand %s into %d points, round 1's into %d", round + 1,
                             o->worker.config, cJSON_GetArraySize(pts), n);
                goto out;
            }
        }
        for (int k = 0; k < n; k++) {
            const cJSON *p = cJSON_GetArrayItem(pts, k);
            const char *name = cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring;
            const cJSON *skip = cJSON_GetObjectItemCaseSensitive(p, "skip");
            if (!round) {
                slot[k] = -1;
                if (cJSON_IsString(skip) && skip->valuestring[0]) {
                    add_skip(r, name, skip->valuestring);
                    continue;
                }
            } else if (slot[k] < 0)
                continue;
            const int i = round ? slot[k] : r->npoints;
            int m = measure(w, o, round, k, name, tb, tn, round ? &later[0] : &r->base[i],
                            round ? &later[1] : &r->new_[i], r);
            if (m < 0) {
                st = o->stop && *o->stop ? 130 : HR_EUSAGE;
                goto out;
            }
            if (m > 0) continue;
            if (rounds > 1) dr[(size_t)i * rounds + round] = round_log_ratio(tb, tn, reps);
            if (round) {
                append_reps(&r->base[i], &later[0]);
                append_reps(&r->new_[i], &later[1]);
            } else {
                char *rn = malloc(256);
                if (!rn) {
                    st = hr_fail("ab: out of memory");
                    goto out;
                }
                hr_result_name(&r->base[i], rn, 256);
                r->cmp.rows[i].name = rn;
                if (rounds == 1) hr_ab_judge_point(tb, tn, reps, &r->cmp.rows[i]);
                slot[k] = r->npoints++;
            }
            if (rounds > 1) fprintf(stderr, "\r[round %d/%d, %d/%d] %-50.50s", round + 1, rounds, k + 1, n, name);
            else fprintf(stderr, "\r[%d/%d] %-60.60s", k + 1, n, name);
        }
    }
    fprintf(stderr, "\n");
    r->cmp.nrows = r->npoints;
    if (rounds > 1) {
        for (int i = 0; i < r->npoints; i++)
            hr_ab_judge_logs(dr + (size_t)i * rounds, rounds, r->base[i].timing.s.median, r->new_[i].timing.s.median,
                             &r->cmp.rows[i]);
        snprintf(r->title, sizeof r->title, "headroom ab (interleaved, builds %s -> %s, %d rounds of fresh workers)",
                 r->base_build, r->new_build, rounds);
    } else
        snprintf(r->title, sizeof r->title, "headroom ab (interleaved, builds %s -> %s)", r->base_build, r->new_build);
    r->cmp.title = r->title;
    r->cmp.test = rounds > 1 ? "paired two-sided Wilcoxon signed-rank over the rounds' median log ratios"
                             : "paired two-sided Wilcoxon signed-rank";
    verdicts(&r->cmp);
    snprintf(r->cmp.shift_note, sizeof r->cmp.shift_note,
             "none taken out: base and new ran interleaved pair by pair (ABBA), so both saw the same phases");
    const int units = rounds > 1 ? rounds : reps;
    if (hr_wilcoxon_min_p((size_t)units) * (o->judge.correction == HR_PADJ_HOLM ? r->npoints : 1) >= o->judge.alpha)
        snprintf(r->cmp.warn[r->cmp.nwarn++], sizeof r->cmp.warn[0], "%d %s per point cannot reach significance over %d points at alpha %g: raise %s",
                 units, rounds > 1 ? "rounds" : "pairs", r->npoints, o->judge.alpha, rounds > 1 ? "--rounds" : "--reps");
    if (r->nskipped && r->cmp.nwarn < HR_CMP_MAX_WARN)
        snprintf(r->cmp.warn[r->cmp.nwarn++], sizeof r->cmp.warn[0], "%d point%s not measured (first: %s)",
                 r->nskipped, r->nskipped == 1 ? "" : "s", r->skipped[0]);
    if (o->out_dir && !((st = write_side(o->out_dir, "base.json", r->base, r->npoints)) ||
                        (st = write_side(o->out_dir, "new.json", r->new_, r->npoints)))) {
        char path[1024];
        snprintf(path, sizeof path, "%s/ab.json", o->out_dir);
        cJSON *j = hr_cmp_json(&r->cmp);
        st = hr_write_json_atomic(path, j);
        cJSON_Delete(j);
    }
out:
    stop_both(w);
    cJSON_Delete(hb);
    free(tb), free(tn), free(dr), free(slot), free(later);
    return st;
}

void hr_ab_free(hr_ab_result *r)
{
    /* Every measured point has its name from round 1 on; nrows is set only at the end, so
     * a run that failed in a later round (or at a later point) has names beyond it. */
    for (int i = 0; r->cmp.rows && i < r->npoints; i++) free((char *)r->cmp.rows[i].name);
    free(r->cmp.rows);
    free(r->base), free(r->new_), free(r->skipped);
    memset(r, 0, sizeof *r);
}

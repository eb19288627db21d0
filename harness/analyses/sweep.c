/* sweep.c — runs a config's cartesian product point by point: skips with notes, rows.jsonl
 * appended and fsync'ed per finished row, results.json/csv rewritten atomically, resume. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files.h"
#include "bench.h"
#include "phase.h"
#include "counts.h"
#include "layer.h"
#include "roofline.h"
#include "sweep.h"
#include "sysinfo.h"

/* ---- expansion ------------------------------------------------------------------- */

void hr_sweep_key(const hr_result *r, int pass, char *buf, size_t len)
{
    char name[256];
    hr_result_name(r, name, sizeof name);
    snprintf(buf, len, "%s/bq%d/bkv%d/pass%d", name, r->tune.block_q, r->tune.block_kv, pass);
}

/* A set of strings by open addressing on FNV-1a; enough for HR_CFG_MAXPOINTS keys. */
typedef struct {
    size_t cap;
    const char **slot;
} strset;

static size_t fnv(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Adds s (not copied: it must outlive the set); returns 1 if it was already there. */
static int strset_add(strset *t, const char *s)
{
    size_t i = fnv(s) & (t->cap - 1);
    for (; t->slot[i]; i = (i + 1) & (t->cap - 1))
        if (!strcmp(t->slot[i], s)) return 1;
    t->slot[i] = s;
    return 0;
}

static int strset_has(const strset *t, const char *s)
{
    for (size_t i = fnv(s) & (t->cap - 1); t->slot[i]; i = (i + 1) & (t->cap - 1))
        if (!strcmp(t->slot[i], s)) return 1;
    return 0;
}

static int strset_init(strset *t, size_t n)
{
    t->cap = 64;
    while (t->cap < 2 * n + 2) t->cap *= 2;
    t->slot = calloc(t->cap, sizeof *t->slot);
    return t->slot ? HR_OK : hr_fail("out of memory");
}

static bool in_filter(const char *filter, const char *name)
{
    if (!filter) return true;
    size_t n = strlen(name);
    for (const char *s = filter; *s;) {
        size_t m = strcspn(s, ",");
        if (m == n && !strncmp(s, name, n)) return true;
        s += m + (s[m] == ',');
    }
    return false;
}

/* Fills the derived fields of a point: resolved name, key and skip reason. */
static void finish_point(hr_sweep_point *pt, const hr_sweep_config *c, double max_mem)
{
    const hr_kernel *k = pt->kernel;
    if (hr_sweep_point_wisdom(c, pt)) snprintf(pt->skip, sizeof pt->skip, "%s", hr_errmsg());
    hr_result r = {.kernel = k, .prob = pt->prob, .layout = pt->layout};
    bool valid = !pt->skip[0] && hr_problem_validate(&pt->prob) == HR_OK;
    if (!pt->skip[0] && !valid) snprintf(pt->skip, sizeof pt->skip, "invalid shape: %s", hr_errmsg());
    r.tune = valid ? hr_kernel_tune(k, &pt->prob, &pt->tune) : pt->tune;
    if (!valid && !(k->caps & HR_CAP_THREADED)) r.tune.threads = 1;
    hr_result_name(&r, pt->name, sizeof pt->name);
    /* compare and compare.py match rows by name: points that differ only in block sizes
     * or pass must not share one (layer mode names its rows itself) */
    const bool by_block = (c->block_q.n > 1 && (k->caps & HR_CAP_BLOCK_Q)) ||
                          (c->block_kv.n > 1 && (k->caps & HR_CAP_BLOCK_KV));
    if (c->mode != HR_MODE_LAYER && (by_block || c->passes > 1)) {
        size_t n = strlen(pt->name);
        if (by_block) n += (size_t)snprintf(pt->name + n, sizeof pt->name - n, "/bq%d/bkv%d", r.tune.block_q, r.tune.block_kv);
        if (c->passes > 1 && n < sizeof pt->name) snprintf(pt->name + n, sizeof pt->name - n, "/pass%d", pt->pass);
        snprintf(r.label, sizeof r.label, "%s", pt->name);
        pt->named = true;
    }
    hr_sweep_key(&r, pt->pass, pt->key, sizeof pt->key);
    if (c->mode == HR_MODE_LAYER) {
        hr_sweep_layer_finish(c, pt, max_mem);
        return;
    }
    if (pt->skip[0]) return;
    const char *why = k->applicable ? k->applicable(&pt->prob) : NULL;
    if (why) {
        snprintf(pt->skip, sizeof pt->skip, "not applicable: %s", why);
        return;
    }
    double need = hr_bench_bytes(k, &pt->prob, &r.tune);
    double budget = max_mem > 0 ? max_mem : hr_default_max_mem();
    if (need > budget)
        snprintf(pt->skip, sizeof pt->skip, "over the memory budget: needs %.1f MiB, budget %.1f MiB",
                 need / 1048576, budget / 1048576);
}

int hr_sweep_expand(const hr_sweep_config *c, const char *filter, double max_mem,
                    hr_sweep_point **pts, int *n, int *ndup)
{
    for (const char *s = filter; s && *s;) {
        size_t m = strcspn(s, ",");
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)(m < 63 ? m : 63), s);
        if (!hr_kernel_find(nm)) return hr_kernel_unknown("--filter", nm);
        s += m + (s[m] == ',');
    }
    size_t cap = (size_t)hr_config_points(c) + 1;
    hr_sweep_point *p = calloc(cap, sizeof *p);
    strset seen;
    if (!p || strset_init(&seen, cap)) {
        free(p);
        return hr_fail("out of memory");
    }
    int np = 0, nd = 0;
    const hr_ilist *hd = c->d_model.n ? &c->d_model : &c->heads;
    const hr_ilist one = {1, {0}};
    const hr_ilist *skv = c->seq_kv_same ? &one : &c->seq_kv;
    /* models = ...: one shape per model in place of heads|d_model x kv_heads x d_head */
    const int nshape = c->nmodels ? c->nmodels : hd->n, nkv = c->nmodels ? 1 : c->nkv,
              nd_head = c->nmodels ? 1 : c->d_head.n;
    for (int pass = 1; pass <= c->passes; pass++)
    for (int ib = 0; ib < c->batch.n; ib++)
    for (int ih = 0; ih < nshape; ih++)
    for (int ig = 0; ig < nkv; ig++)
    for (int id = 0; id < nd_head; id++)
    for (int is = 0; is < c->seq.n; is++)
    for (int im = 0; im < skv->n; im++)
    for (int ic = 0; ic < c->ncausal; ic++)
    for (int il = 0; il < c->nlayout; il++)
    for (int it = 0; it < c->threads.n; it++)
    for (int iq = 0; iq < c->block_q.n; iq++)
    for (int ik = 0; ik < c->block_kv.n; ik++)
    for (int ie = 0; ie < (c->ngemm > 0 ? c->ngemm : 1); ie++)
    for (int kk = 0; kk < c->nkernels; kk++) {
        const hr_kernel *k = c->kernels[kk];
        if (!in_filter(filter, k->name)) continue;
        hr_sweep_point *pt = &p[np];
        memset(pt, 0, sizeof *pt);
        pt->kernel = k;
        pt->gemm = c->ngemm > 0 ? c->gemm[ie] : 0;
        pt->pass = pass;
        int d = c->nmodels ? c->model[ih].d_head : c->d_head.v[id], heads = c->nmodels ? c->model[ih].heads : hd->v[ih];
        if (c->nmodels) {
            if (c->mode == HR_MODE_LAYER) pt->d_model = c->model[ih].d_model;
        } else if (c->d_model.n) {
            pt->d_model = hd->v[ih];
            heads = pt->d_model / d;
            if (pt->d_model % d)
                snprintf(pt->skip, sizeof pt->skip, "d_model %d is not a multiple of d_head %d", pt->d_model, d);
            if (heads < 1) heads = 1;
        }
        const hr_kv_spec *kv = c->nmodels ? &(const hr_kv_spec){HR_KV_COUNT, c->model[ih].kv_heads} : &c->kv[ig];
        int g = kv->kind == HR_KV_MHA ? heads : kv->kind == HR_KV_MQA ? 1 : kv->kind == HR_KV_COUNT ? kv->n : heads / kv->n;
        if (!pt->skip[0] && kv->kind == HR_KV_RATIO && (heads % kv->n || g < 1))
            snprintf(pt->skip, sizeof pt->skip, "kv_heads ratio:%d does not divide heads %d", kv->n, heads);
        if (pt->skip[0] && kv->kind == HR_KV_RATIO) g = 0; /* named G0 in the skip note */
        int seq = c->seq.v[is];
        pt->prob = (hr_problem){c->batch.v[ib], heads, g, seq, c->seq_kv_same ? seq : skv->v[im], d,
                                c->causal[ic], 0};
        pt->layout = c->layout[il];
        pt->tune = (hr_tune){(k->caps & HR_CAP_BLOCK_Q) ? c->block_q.v[iq] : 0,
                             (k->caps & HR_CAP_BLOCK_KV) ? c->block_kv.v[ik] : 0, c->threads.v[it]};
        finish_point(pt, c, max_mem);
        if (strset_add(&seen, pt->key)) {
            nd++;
            continue;
        }
        np++;
    }
    free(seen.slot);
    *pts = p;
    *n = np;
    if (ndup) *ndup = nd;
    return HR_OK;
}


/* ---- the run ------------------------------------------------------------------------ */

typedef struct {
    char name[256], reason[320];
} note;

typedef struct {
    const hr_sweep_config *c;
    hr_sweep_opts *o;
    hr_result *res;
    int *res_pass;
    int nres, capres;
    note *skipped;
    int nskipped;
    int measured, resumed, failed;
    char env_warn[8][200];
    int nenv;
    double timer_res;
    FILE *jsonl;
    /* measuring (measure_group) */
    int probe;              /* hr_probe_kind for every point                          */
    bool phase_filter, interleave;
    bool have_ceil;
    const hr_ceilings *ceilings;
    int npts, ndone, to_measure, ngroups;
    double t0;
    int nphase, nexcluded;  /* repetitions flagged / excluded over the sweep           */
} run_state;

static char *read_text(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *t = malloc(max + 1);
    size_t n = t ? fread(t, 1, max, f) : 0;
    fclose(f);
    if (t) t[n] = 0;
    return t;
}

static int add_result(run_state *s, const hr_result *r, int pass)
{
    if (s->nres == s->capres) {
        int cap = s->capres ? 2 * s->capres : 64;
        hr_result *nr = realloc(s->res, (size_t)cap * sizeof *nr);
        if (!nr) return hr_fail("out of memory");
        s->res = nr;
        int *np = realloc(s->res_pass, (size_t)cap * sizeof *np);
        if (!np) return hr_fail("out of memory");
        s->res_pass = np;
        s->capres = cap;
    }
    s->res[s->nres] = *r;
    s->res_pass[s->nres++] = pass;
    return HR_OK;
}

/* Rewrites results.json and results.csv from everything measured so far. */
static int write_outputs(run_state *s, bool interrupted)
{
    enum { MAXW = 256 };
    static char w[MAXW][200];
    const char *wp[MAXW];
    int nw = 0;
    for (int i = 0; i < s->nenv; i++) memcpy(w[nw++], s->env_warn[i], 200);
    for (int i = 0; i < s->nres && nw < MAXW; i++) hr_bench_warnings(&s->res[i], w, MAXW, &nw);
    for (int i = 0; i < nw; i++) wp[i] = w[i];
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "context", hr_context_json(wp, nw));
    cJSON *b = cJSON_AddArrayToObject(doc, "benchmarks");
    for (int i = 0; i < s->nres; i++) hr_result_json_rows(&s->res[i], b);
    cJSON *sk = cJSON_AddArrayToObject(doc, "skipped");
    for (int i = 0; i < s->nskipped; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", s->skipped[i].name);
        cJSON_AddStringToObject(o, "reason", s->skipped[i].reason);
        cJSON_AddItemToArray(sk, o);
    }
    cJSON *sw = cJSON_AddObjectToObject(doc, "sweep");
    cJSON_AddStringToObject(sw, "config", s->c->name);
    cJSON_AddStringToObject(sw, "description", s->c->description);
    cJSON_AddStringToObject(sw, "mode", hr_mode_names[s->c->mode]);
    cJSON_AddNumberToObject(sw, "rows", s->nres);
    cJSON_AddNumberToObject(sw, "resumed", s->resumed);
    cJSON_AddNumberToObject(sw, "skipped", s->nskipped);
    cJSON_AddNumberToObject(sw, "failed_checks", s->failed);
    cJSON_AddNumberToObject(sw, "timer_resolution_s", s->timer_res);
    cJSON_AddBoolToObject(sw, "interrupted", interrupted);
    cJSON_AddStringToObject(sw, "probe", hr_probe_kind_names[s->probe]);
    cJSON_AddNumberToObject(sw, "probe_seconds", s->probe ? HR_PHASE_PROBE_SECONDS : 0);
    cJSON_AddNumberToObject(sw, "phase_threshold", s->c->phase_threshold);
    cJSON_AddBoolToObject(sw, "phase_filter", s->phase_filter);
    cJSON_AddNumberToObject(sw, "phase_changes", s->nphase);
    cJSON_AddNumberToObject(sw, "phase_excluded", s->nexcluded);
    cJSON_AddBoolToObject(sw, "interleave", s->interleave);
    cJSON_AddNumberToObject(sw, "interleave_seed", s->c->seed);
    char path[1100];
    snprintf(path, sizeof path, "%s/results.json", s->o->dir);
    int st = hr_write_json_atomic(path, doc);
    cJSON_Delete(doc);
    if (st) return st;

    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    if (!f) return hr_fail("out of memory");
    hr_csv_header(f);
    for (int i = 0; i < s->nres; i++) hr_csv_row(f, &s->res[i]);
    fclose(f);
    snprintf(path, sizeof path, "%s/results.csv", s->o->dir);
    st = hr_write_atomic(path, csv);
    free(csv);
    return st;
}

/* Appends one finished result to rows.jsonl and forces it to disk. */
static int append_row(run_state *s, const hr_result *r, int pass)
{
    char key[320];
    hr_sweep_key(r, pass, key, sizeof key);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddNumberToObject(o, "pass", pass);
    cJSON_AddItemToObject(o, "result", hr_result_to_json(r));
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!line) return hr_fail("out of memory");
    int bad = fprintf(s->jsonl, "%s\n", line) < 0;
    free(line);
    bad |= fflush(s->jsonl) != 0;
    bad |= fsync(fileno(s->jsonl)) != 0;
    return bad ? hr_fail("%s/rows.jsonl: cannot write (%s)", s->o->dir, strerror(errno)) : HR_OK;
}

/* Reloads rows.jsonl of a resumed directory. A torn last line (the process was killed
 * while writing it) is dropped with a note. */
static int load_rows(run_state *s)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/rows.jsonl", s->o->dir);
    char *t = read_text(path, (size_t)1 << 30);
    if (!t) return HR_OK;
    int line = 0, st = HR_OK;
    for (char *p = t; *p && !st;) {
        char *e = strchr(p, '\n');
        line++;
        if (!e) {
            /* Cut the torn line off, so the rows appended next start on a line of their own. */
            fprintf(stderr, "headroom sweep: %s:%d: incomplete last line dropped\n", path, line);
            if (truncate(path, (off_t)(p - t))) st = hr_fail("%s: cannot truncate (%s)", path, strerror(errno));
            break;
        }
        *e = 0;
        cJSON *o = cJSON_Parse(p), *pass = cJSON_GetObjectItemCaseSensitive(o, "pass");
        hr_result r;
        if (!o || !cJSON_IsNumber(pass) ||
            hr_result_from_json(cJSON_GetObjectItemCaseSensitive(o, "result"), &r)) {
            /* hr_errmsg() is the buffer hr_fail writes: copy it before formatting. */
            char why[400] = "";
            if (o) snprintf(why, sizeof why, ": %s", cJSON_IsNumber(pass) ? hr_errmsg() : "field 'pass' missing");
            st = hr_fail("%s:%d: not a headroom row%s", path, line, why);
        } else
            st = add_result(s, &r, pass->valueint);
        cJSON_Delete(o);
        p = e + 1;
    }
    free(t);
    s->resumed = s->nres;
    return st;
}

static int make_dir(const hr_sweep_config *c, hr_sweep_opts *o)
{
    if (o->resume_dir) {
        struct stat sb;
        if (stat(o->resume_dir, &sb) || !S_ISDIR(sb.st_mode))
            return hr_fail("--resume: %s is not a directory", o->resume_dir);
        snprintf(o->dir, sizeof o->dir, "%s", o->resume_dir);
        return HR_OK;
    }
    if (o->out_dir) {
        snprintf(o->dir, sizeof o->dir, "%s", o->out_dir);
        return hr_mkdirs(o->dir);
    }
    char parent[256], stamp[32];
    snprintf(parent, sizeof parent, "results/%s", hr_sysinfo_get()->machine);
    int st = hr_mkdirs(parent);
    if (st) return st;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    /* A new directory each time: a second sweep in the same second gets a suffix. */
    for (int i = 1; i < 100; i++) {
        if (i == 1) snprintf(o->dir, sizeof o->dir, "%s/%s-%s", parent, stamp, c->name);
        else snprintf(o->dir, sizeof o->dir, "%s/%s-%s-%d", parent, stamp, c->name, i);
        if (!mkdir(o->dir, 0777)) return HR_OK;
        if (errno != EEXIST) return hr_fail("%s: cannot create (%s)", o->dir, strerror(errno));
    }
    return hr_fail("%s: too many sweeps in one second", parent);
}

/* results/<machine>/latest -> the sweep directory, when it lives in results/<machine>. */
static void update_latest(const char *dir)
{
    char parent[256], link[300], tmp[320];
    snprintf(parent, sizeof parent, "results/%s", hr_sysinfo_get()->machine);
    size_t n = strlen(parent);
    const char *base = dir + n + 1;
    if (strncmp(dir, parent, n) || dir[n] != '/' || !*base || strchr(base, '/')) return;
    snprintf(link, sizeof link, "%s/latest", parent);
    snprintf(tmp, sizeof tmp, "%s/.latest.%d", parent, (int)getpid());
    unlink(tmp);
    if (symlink(base, tmp) || rename(tmp, link)) {
        unlink(tmp);
        fprintf(stderr, "headroom sweep: note: cannot update %s (%s)\n", link, strerror(errno));
    }
}

static void fmt_dur(double s, char *buf, size_t len)
{
    if (s < 60) snprintf(buf, len, "%.0fs", s);
    else if (s < 3600) snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void progress(const hr_sweep_opts *o, int done, int total, double elapsed, int measured_now,
                     int to_measure, const char *name, const hr_result *r)
{
    if (o->progress_tty) {
        char eta[32] = "?";
        if (measured_now > 0) fmt_dur(elapsed / measured_now * (to_measure - measured_now), eta, sizeof eta);
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

static void note_line(const hr_sweep_opts *o, const char *what, const char *name, const char *reason)
{
    fprintf(stderr, "%sheadroom sweep: %s %s: %s\n", o->progress_tty ? "\r\033[K" : "", what, name, reason);
}

static int copy_config(const hr_sweep_config *c, const char *dir)
{
    const char *base = strrchr(c->path, '/');
    base = base ? base + 1 : c->path;
    char dst[1600];
    snprintf(dst, sizeof dst, "%s/%s", dir, base);
    if (!strcmp(dst, c->path)) return HR_OK;
    char *t = read_text(c->path, (size_t)1 << 22);
    if (!t) return hr_fail("%s: cannot read (%s)", c->path, strerror(errno));
    int st = hr_write_atomic(dst, t);
    free(t);
    return st;
}

/* Measures the points g[0..ng) of one shape: opens each (oracle check, warm-up,
 * calibration) on one shared set of tensors, then runs the repetitions in rounds, each
 * round every point once in an order shuffled by a PRNG seeded from the config's seed,
 * so every point sees the same phases of the machine (Google Benchmark's
 * --benchmark_enable_random_interleaving). With ng == 1 this is the plain sequence of
 * repetitions. Finished rows are written when the group is done; an interruption
 * abandons the group in flight. */
static int measure_group(run_state *s, hr_sweep_point **g, int ng, int *measured_now, bool *interrupted)
{
    const hr_sweep_config *c = s->c;
    hr_sweep_opts *o = s->o;
    double max_mem = o->max_mem > 0 ? o->max_mem : c->max_mem;
    int reps = o->reps > 0 ? o->reps : c->reps, st = HR_OK;
    if (reps > HR_MAX_REPS) reps = HR_MAX_REPS;
    hr_bench_spec *spec = calloc((size_t)ng, sizeof *spec);
    hr_result *res = calloc((size_t)ng, sizeof *res);
    hr_bench_session *ses = calloc((size_t)ng, sizeof *ses);
    int *live = calloc((size_t)ng, sizeof *live), nlive = 0;
    hr_tensors tens = {0};
    bool shared = ng > 1;
    if (!spec || !res || !ses || !live) {
        st = hr_fail("out of memory");
        goto out;
    }
    if (shared && (st = hr_tensors_alloc(&tens, &g[0]->prob, g[0]->layout, (hr_dist)c->dist, (uint64_t)c->seed))) {
        /* Not enough memory for this group's tensors: every point is noted, none measured. */
        for (int i = 0; i < ng; i++) {
            note *n = &s->skipped[s->nskipped++];
            snprintf(n->name, sizeof n->name, "%s", g[i]->name);
            snprintf(n->reason, sizeof n->reason, "%s", hr_errmsg());
            note_line(o, "skipped", g[i]->name, hr_errmsg());
        }
        st = write_outputs(s, false);
        goto out;
    }
    for (int i = 0; i < ng; i++) {
        hr_sweep_point *pt = g[i];
        if (o->stop && *o->stop) {
            *interrupted = true;
            goto out;
        }
        progress(o, s->ndone, s->npts, hr_now() - s->t0, *measured_now, s->to_measure, pt->name, NULL);
        spec[i] = (hr_bench_spec){
            .prob = pt->prob,
            .layout = pt->layout,
            .tune = pt->tune,
            .tune_source = pt->tune_source ? pt->tune_source : "default",
            .dist = (hr_dist)c->dist,
            .seed = (uint64_t)c->seed,
            .timer = {.reps = reps,
                      .min_time = o->min_time >= 0 ? o->min_time : c->min_time,
                      .warmup = c->warmup,
                      .cold = c->cold,
                      .stop = o->stop},
            .check = o->check || c->check,
            .max_mem = max_mem,
            .probe = (hr_probe_kind)s->probe,
            .phase_threshold = c->phase_threshold,
            .phase_filter = s->phase_filter,
        };
        int rs = hr_bench_open(pt->kernel, &spec[i], shared ? &tens : NULL, &ses[i], &res[i]);
        if (!rs && o->stop && *o->stop) {
            hr_bench_abandon(&ses[i]);
            *interrupted = true;
            goto out;
        }
        if (rs) {
            note *n = &s->skipped[s->nskipped++];
            snprintf(n->name, sizeof n->name, "%s", pt->name);
            snprintf(n->reason, sizeof n->reason, "%s", hr_errmsg());
            note_line(o, rs == HR_EFAIL ? "FAILED" : "skipped", pt->name, hr_errmsg());
            s->failed += rs == HR_EFAIL;
            ++*measured_now;
            s->ndone++;
            continue;
        }
        live[nlive++] = i;
    }
    hr_rng rng;
    hr_rng_seed(&rng, (uint64_t)c->seed * 0x9e3779b97f4a7c15ull + (uint64_t)s->ngroups++);
    int *order = malloc((size_t)(nlive ? nlive : 1) * sizeof *order);
    if (!order) {
        st = hr_fail("out of memory");
        goto out;
    }
    for (int r = 0; r < reps && !*interrupted; r++) {
        memcpy(order, live, (size_t)nlive * sizeof *order);
        for (int k = nlive - 1; k > 0; k--) { /* Fisher-Yates */
            int j = (int)(hr_rng_next(&rng) % (uint64_t)(k + 1)), tmp = order[k];
            order[k] = order[j];
            order[j] = tmp;
        }
        for (int k = 0; k < nlive; k++) {
            if (o->stop && *o->stop) {
                *interrupted = true;
                break;
            }
            hr_bench_rep(&ses[order[k]], r, nlive > 1);
        }
    }
    free(order);
    if (*interrupted) goto out;
    for (int k = 0; k < nlive && !st; k++) {
        int i = live[k];
        hr_result *r = &res[i];
        st = hr_bench_close(&ses[i], reps);
        live[k] = -1;
        if (st) break;
        if (c->passes > 1) hr_result_set(r, "pass", g[i]->pass);
        if (g[i]->named) snprintf(r->label, sizeof r->label, "%s", g[i]->name);
        if (nlive > 1) hr_result_set(r, "interleaved", nlive);
        if (s->have_ceil) hr_roofline_attach(r, s->ceilings);
        if ((st = add_result(s, r, g[i]->pass)) || (st = append_row(s, r, g[i]->pass))) break;
        s->measured++;
        ++*measured_now;
        s->ndone++;
        s->nphase += r->timing.nphase;
        s->nexcluded += r->timing.nexcluded;
        char w[4][200];
        int nw = 0;
        hr_bench_warnings(r, w, 4, &nw);
        for (int j = 0; j < nw; j++)
            fprintf(stderr, "%sheadroom sweep: warning: %s\n", o->progress_tty ? "\r\033[K" : "", w[j]);
        progress(o, s->ndone, s->npts, hr_now() - s->t0, *measured_now, s->to_measure, g[i]->name, r);
    }
    if (!st) st = write_outputs(s, false);
out:
    for (int k = 0; live && k < nlive; k++)
        if (live[k] >= 0) hr_bench_abandon(&ses[live[k]]);
    if (shared) hr_tensors_free(&tens);
    free(spec);
    free(res);
    free(ses);
    free(live);
    return st;
}

/* Layer mode: one point, hr_sweep_layer_run (sweep_layer.c), its phase rows recorded in
 * order with the total row, the point's key, last. */
static int measure_layer(run_state *s, hr_sweep_point *pt, int *measured_now, bool *interrupted)
{
    const hr_sweep_config *c = s->c;
    hr_sweep_opts *o = s->o;
    char why[200];
    if (c->stop_after_crossover && hr_sweep_layer_past(pt, s->res, s->nres, why, sizeof why)) {
        note *nt = &s->skipped[s->nskipped++];
        snprintf(nt->name, sizeof nt->name, "%s", pt->name);
        snprintf(nt->reason, sizeof nt->reason, "%s", why);
        note_line(o, "skipped", pt->name, why);
        s->ndone++;
        return HR_OK;
    }
    progress(o, s->ndone, s->npts, hr_now() - s->t0, *measured_now, s->to_measure, pt->name, NULL);
    hr_bench_spec spec = {.seed = (uint64_t)c->seed,
                          .timer = {.reps = o->reps > 0 ? o->reps : c->reps,
                                    .min_time = o->min_time >= 0 ? o->min_time : c->min_time,
                                    .warmup = c->warmup, .cold = c->cold, .stop = o->stop},
                          .check = o->check || c->check,
                          .max_mem = o->max_mem > 0 ? o->max_mem : c->max_mem};
    hr_result rows[HR_NPHASES + 1];
    int n, st = HR_OK, rs = hr_sweep_layer_run(pt, &spec, rows, &n);
    if (rows[HR_NPHASES].timing.aborted || (o->stop && *o->stop)) {
        *interrupted = true; /* the point in flight is abandoned, not recorded */
        return HR_OK;
    }
    ++*measured_now;
    s->ndone++;
    if (rs) {
        note *nt = &s->skipped[s->nskipped++];
        snprintf(nt->name, sizeof nt->name, "%s", pt->name);
        snprintf(nt->reason, sizeof nt->reason, "%s", hr_errmsg());
        note_line(o, rs == HR_EFAIL ? "FAILED" : "skipped", pt->name, hr_errmsg());
        s->failed += rs == HR_EFAIL;
        return write_outputs(s, false);
    }
    for (int i = 0; i < n && !st; i++) {
        if (c->passes > 1) hr_result_set(&rows[i], "pass", pt->pass);
        if (s->have_ceil) hr_roofline_attach(&rows[i], s->ceilings);
        if (!(st = add_result(s, &rows[i], pt->pass))) st = append_row(s, &rows[i], pt->pass);
    }
    if (st) return st;
    s->measured++;
    progress(o, s->ndone, s->npts, hr_now() - s->t0, *measured_now, s->to_measure, pt->name, &rows[n - 1]);
    return write_outputs(s, false);
}

int hr_sweep_run(const hr_sweep_config *c, hr_sweep_opts *o)
{
    double max_mem = o->max_mem > 0 ? o->max_mem : c->max_mem;
    hr_sweep_point *pts;
    int npts, ndup, st;
    if ((st = hr_sweep_expand(c, o->filter, max_mem, &pts, &npts, &ndup))) return st;

    if (o->dry_run) {
        int nskip = 0;
        for (int i = 0; i < npts; i++) {
            printf("%-70s %s\n", pts[i].key, pts[i].skip[0] ? pts[i].skip : "run");
            nskip += pts[i].skip[0] != 0;
        }
        printf("%d points: %d to run, %d skipped; %d duplicates dropped\n", npts, npts - nskip, nskip, ndup);
        free(pts);
        return HR_OK;
    }

    run_state s = {.c = c, .o = o};
    s.skipped = calloc((size_t)npts + 1, sizeof *s.skipped);
    if (!s.skipped) {
        free(pts);
        return hr_fail("out of memory");
    }
    static hr_ceilings ceilings;
    char cpath[512];
    hr_ceilings_default_path(cpath, sizeof cpath);
    bool have_ceil = hr_ceilings_load(cpath, &ceilings) == HR_OK;
    s.have_ceil = have_ceil;
    s.ceilings = &ceilings;
    s.probe = o->probe_flag == 1 ? (c->probe ? c->probe : HR_PROBE_AUTO) : o->probe_flag == 2 ? HR_PROBE_OFF : c->probe;
    s.phase_filter = o->phase_filter || c->phase_filter;
    s.interleave = o->interleave_flag ? o->interleave_flag == 1 : c->interleave;
    if (s.phase_filter && !s.probe) {
        st = hr_fail("--phase-filter: needs the probes (probe = false or --no-probe given)");
        free(s.skipped);
        free(pts);
        return st;
    }

    /* The timer is checked before anything is measured; environment warnings go to
     * stderr now and into every results.json written. */
    s.timer_res = hr_timer_resolution();
    hr_env_warnings(s.env_warn, 8, &s.nenv);
    for (int i = 0; i < s.nenv; i++) fprintf(stderr, "headroom sweep: warning: %s\n", s.env_warn[i]);

    if ((st = make_dir(c, o)) || (o->resume_dir && (st = load_rows(&s))) || (st = copy_config(c, o->dir)))
        goto out;
    strset done;
    if ((st = strset_init(&done, (size_t)s.nres + 1))) goto out;
    char (*keys)[320] = calloc((size_t)s.nres + 1, sizeof *keys);
    for (int i = 0; keys && i < s.nres; i++) {
        hr_sweep_key(&s.res[i], s.res_pass[i], keys[i], sizeof keys[i]);
        strset_add(&done, keys[i]);
    }
    char jpath[1100];
    snprintf(jpath, sizeof jpath, "%s/rows.jsonl", o->dir);
    if (!(s.jsonl = fopen(jpath, "a"))) {
        st = hr_fail("%s: cannot write (%s)", jpath, strerror(errno));
        goto out2;
    }
    fprintf(stderr, "headroom sweep: %s: %d points (%d duplicates dropped)%s -> %s\n", c->name, npts, ndup,
            s.resumed ? ", resuming" : "", o->dir);
    if (!have_ceil)
        fprintf(stderr, "headroom sweep: note: no ceilings at %s (run headroom roofline): no roofline counters\n", cpath);

    int to_measure = 0, measured_now = 0;
    for (int i = 0; i < npts; i++) to_measure += !pts[i].skip[0] && !strset_has(&done, pts[i].key);
    double t0 = hr_now();
    bool interrupted = false;
    s.t0 = t0;
    s.npts = npts;
    s.to_measure = to_measure;
    /* Points are measured in groups: with interleave, every not yet measured point of the
     * same shape and layout as the first one left (kernels, threads, block sizes and
     * passes), as many as the memory budget allows with one shared set of tensors; else
     * one point at a time. */
    bool *handled = calloc((size_t)npts + 1, sizeof *handled);
    hr_sweep_point **grp = calloc((size_t)npts + 1, sizeof *grp);
    if (!handled || !grp) st = hr_fail("out of memory");
    double budget = max_mem > 0 ? max_mem : hr_default_max_mem();
    for (int i = 0; i < npts && !st && !interrupted; i++) {
        hr_sweep_point *pt = &pts[i];
        if (handled[i]) continue;
        handled[i] = true;
        if (o->stop && *o->stop) {
            interrupted = true;
            break;
        }
        if (pt->skip[0]) {
            note *n = &s.skipped[s.nskipped++];
            snprintf(n->name, sizeof n->name, "%s", pt->name);
            snprintf(n->reason, sizeof n->reason, "%s", pt->skip);
            note_line(o, "skipped", pt->name, pt->skip);
            continue;
        }
        if (strset_has(&done, pt->key)) continue;
        if (c->mode == HR_MODE_LAYER) {
            st = measure_layer(&s, pt, &measured_now, &interrupted);
            continue;
        }
        int ng = 0;
        grp[ng++] = pt;
        if (s.interleave) {
            hr_tune t0r = hr_kernel_tune(pt->kernel, &pt->prob, &pt->tune);
            double need = hr_tensors_bytes(&pt->prob) + (double)pt->kernel->workspace_bytes(&pt->prob, &t0r);
            for (int j = i + 1; j < npts; j++) {
                hr_sweep_point *q = &pts[j];
                if (handled[j] || q->skip[0] || q->layout != pt->layout ||
                    memcmp(&q->prob, &pt->prob, sizeof q->prob) || strset_has(&done, q->key))
                    continue;
                hr_tune tq = hr_kernel_tune(q->kernel, &q->prob, &q->tune);
                double ws = (double)q->kernel->workspace_bytes(&q->prob, &tq);
                if (need + ws > budget) continue; /* measured in a later group */
                need += ws;
                handled[j] = true;
                grp[ng++] = q;
            }
        }
        st = measure_group(&s, grp, ng, &measured_now, &interrupted);
    }
    free(handled);
    free(grp);
    if (o->progress_tty && !interrupted) progress(o, npts, npts, hr_now() - t0, measured_now, to_measure, "", NULL);
    if (!st) st = write_outputs(&s, interrupted);
    if (!st && c->mode == HR_MODE_LAYER) st = hr_sweep_layer_crossover(s.res, s.nres, o->dir);
    if (!st) update_latest(o->dir);
    if (!st)
        fprintf(stderr, "headroom sweep: %d rows (%d new, %d resumed), %d skipped, %d failed checks%s: %s\n",
                s.nres, s.measured, s.resumed, s.nskipped - s.failed, s.failed,
                interrupted ? ", INTERRUPTED" : "", o->dir);
    if (!st && s.nphase)
        fprintf(stderr, "headroom sweep: %d repetitions changed phase (probe before/after differ > %.0f%%), %d "
                        "excluded from the medians%s\n",
                s.nphase, c->phase_threshold * 100, s.nexcluded, s.phase_filter ? "" : " (use --phase-filter)");
    if (!st) st = interrupted ? 130 : s.failed ? HR_EFAIL : HR_OK;
    /* A sweep that measured nothing is not a pass: a CI job gating on it would read an
     * empty results file as "no regression". The files are written for the record. */
    if (st == HR_OK && s.nres == 0 && !o->dry_run)
        st = hr_fail("nothing measured: all %d points were skipped (see the notes above and "
                     "'skipped' in %s/results.json)", npts, o->dir);
    fclose(s.jsonl);
out2:
    free(keys);
    free(done.slot);
out:
    free(s.skipped);
    free(s.res);
    free(s.res_pass);
    free(pts);
    return st;
}

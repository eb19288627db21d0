/* sweep_store.c — a sweep's results directory: rows.jsonl appended and fsync'ed per finished
 * row (what --resume reads back), results.json/csv rewritten atomically, the latest link.
 *
 * rows.jsonl holds one line per row in the order rows finished: {"key", "pass",
 * "result"} with the result as hr_result_to_json writes it. results.json and results.csv
 * list resumed rows first (file order), then new rows in the sweep's order, so an
 * interleaved sweep, whose points finish in a shuffled order, writes the same files as a
 * sequential one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "files.h"
#include "paths.h"
#include "phase.h"
#include "results.h"
#include "sweep_store.h"
#include "sysinfo.h"
#include "threads.h"

/* ---- recording --------------------------------------------------------------------- */

static int add_result(hr_sweep_store *s, const hr_result *r, int pass, int seq)
{
    if (s->nres == s->capres) {
        int cap = s->capres ? 2 * s->capres : 64;
        hr_result *nr = realloc(s->res, (size_t)cap * sizeof *nr);
        if (!nr) return hr_fail("out of memory");
        s->res = nr;
        int *np = realloc(s->pass, (size_t)cap * sizeof *np);
        if (!np) return hr_fail("out of memory");
        s->pass = np;
        int *ns = realloc(s->seq, (size_t)cap * sizeof *ns);
        if (!ns) return hr_fail("out of memory");
        s->seq = ns;
        s->capres = cap;
    }
    hr_threads_used(r->tune.threads); /* resumed rows too: the context says oversubscribed */
    s->res[s->nres] = *r;
    s->pass[s->nres] = pass;
    s->seq[s->nres++] = seq;
    return HR_OK;
}

/* One line appended to rows.jsonl and forced to disk; obj is consumed. */
static int append(hr_sweep_store *s, cJSON *o)
{
    char *line = hr_json_text(o, 0);
    cJSON_Delete(o);
    if (!line) return hr_fail("out of memory");
    int bad = fprintf(s->jsonl, "%s\n", line) < 0;
    free(line);
    bad |= fflush(s->jsonl) != 0;
    bad |= fsync(fileno(s->jsonl)) != 0;
    return bad ? hr_fail("%s/rows.jsonl: cannot write (%s)", s->dir, strerror(errno)) : HR_OK;
}

int hr_sweep_store_row(hr_sweep_store *s, const hr_result *r, int pass, int seq)
{
    int st = add_result(s, r, pass, seq);
    if (st) return st;
    char key[320];
    hr_sweep_key(r, pass, key, sizeof key);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddNumberToObject(o, "pass", pass);
    cJSON_AddItemToObject(o, "result", hr_result_to_json(r));
    return append(s, o);
}

static void crash_note(char *buf, size_t len, const char *why) { snprintf(buf, len, "failed in its worker: %s", why); }

int hr_sweep_store_crash(hr_sweep_store *s, const char *name, const char *key, int pass, const char *why)
{
    char note[320];
    crash_note(note, sizeof note, why);
    int st = hr_sweep_store_skip(s, name, note, false);
    if (st) return st;
    s->crashed++;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddNumberToObject(o, "pass", pass);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "failed", why);
    return append(s, o);
}

bool hr_sweep_store_crashed(const hr_sweep_store *s, const char *key)
{
    return s->crashed_keys.slot && hr_keyset_has(&s->crashed_keys, key);
}

int hr_sweep_store_skip(hr_sweep_store *s, const char *name, const char *reason, bool failed)
{
    if (s->nskipped == s->capskipped) {
        int cap = s->capskipped ? 2 * s->capskipped : 64;
        hr_sweep_note *n = realloc(s->skipped, (size_t)cap * sizeof *n);
        if (!n) return hr_fail("out of memory");
        s->skipped = n;
        s->capskipped = cap;
    }
    hr_sweep_note *n = &s->skipped[s->nskipped++];
    snprintf(n->name, sizeof n->name, "%s", name);
    snprintf(n->reason, sizeof n->reason, "%s", reason);
    s->failed += failed;
    return HR_OK;
}

bool hr_sweep_store_has(const hr_sweep_store *s, const char *key)
{
    return s->done.slot && hr_keyset_has(&s->done, key);
}

/* ---- results.json and results.csv ---------------------------------------------------- */

typedef struct {
    int seq, i;
} place;

/* Resumed rows (seq -1) first, then by the point's place in the sweep; rows of one point
 * (layer mode) keep their order. */
static int by_place(const void *a, const void *b)
{
    const place *x = a, *y = b;
    return x->seq != y->seq ? (x->seq > y->seq) - (x->seq < y->seq) : (x->i > y->i) - (x->i < y->i);
}

int hr_sweep_row_order(const int *seq, int n, int **idx)
{
    place *p = malloc(((size_t)n + 1) * sizeof *p);
    *idx = malloc(((size_t)n + 1) * sizeof **idx);
    if (!p || !*idx) {
        free(p);
        free(*idx);
        *idx = NULL;
        return hr_fail("out of memory");
    }
    for (int i = 0; i < n; i++) p[i] = (place){seq[i], i};
    qsort(p, (size_t)n, sizeof *p, by_place);
    for (int i = 0; i < n; i++) (*idx)[i] = p[i].i;
    free(p);
    return HR_OK;
}

int hr_sweep_store_write(hr_sweep_store *s, bool interrupted)
{
    int *ord;
    if (hr_sweep_row_order(s->seq, s->nres, &ord)) return HR_EUSAGE;
    enum { MAXW = 256 };
    static char w[MAXW][200];
    const char *wp[MAXW];
    int nw = 0;
    for (int i = 0; i < s->nenv; i++) memcpy(w[nw++], s->env_warn[i], 200);
    for (int i = 0; i < s->nres && nw < MAXW; i++) hr_bench_warnings(&s->res[ord[i]], w, MAXW, &nw);
    for (int i = 0; i < nw; i++) wp[i] = w[i];
    cJSON *doc = cJSON_CreateObject(), *ctx = s->context ? cJSON_Duplicate(s->context, 1) : hr_context_json(wp, nw);
    /* A merged context of a file written before the field existed is version 1. */
    if (!cJSON_HasObjectItem(ctx, "schema_version")) cJSON_AddNumberToObject(ctx, "schema_version", HR_RESULTS_SCHEMA);
    if (s->shard[0]) {
        cJSON_DeleteItemFromObjectCaseSensitive(ctx, "shard");
        cJSON_AddStringToObject(ctx, "shard", s->shard);
    }
    if (s->config_hash[0]) {
        cJSON_DeleteItemFromObjectCaseSensitive(ctx, "config_hash");
        cJSON_AddStringToObject(ctx, "config_hash", s->config_hash);
    }
    cJSON_AddItemToObject(doc, "context", ctx);
    cJSON *b = cJSON_AddArrayToObject(doc, "benchmarks");
    for (int i = 0; i < s->nres; i++) hr_result_json_rows(&s->res[ord[i]], b, s->aggregates_only);
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
    cJSON_AddNumberToObject(sw, "duplicates_dropped", s->dropped);
    cJSON_AddNumberToObject(sw, "skipped", s->nskipped);
    cJSON_AddNumberToObject(sw, "failed_checks", s->failed);
    cJSON_AddNumberToObject(sw, "failed_points", s->crashed);
    cJSON_AddNumberToObject(sw, "timer_resolution_s", s->timer_res);
    cJSON_AddBoolToObject(sw, "interrupted", interrupted);
    cJSON_AddStringToObject(sw, "probe", hr_probe_kind_names[s->probe]);
    cJSON_AddNumberToObject(sw, "probe_seconds", s->probe ? HR_PHASE_PROBE_SECONDS : 0);
    cJSON_AddNumberToObject(sw, "phase_threshold", s->c->phase_threshold);
    cJSON_AddBoolToObject(sw, "phase_filter", s->phase_filter);
    cJSON_AddNumberToObject(sw, "phase_changes", s->nphase);
    cJSON_AddNumberToObject(sw, "phase_excluded", s->nexcluded);
    cJSON_AddBoolToObject(sw, "interleave", s->interleave);
    cJSON_AddBoolToObject(sw, "aggregates_only", s->aggregates_only);
    cJSON_AddNumberToObject(sw, "interleave_seed", s->c->seed);
    char path[1100];
    snprintf(path, sizeof path, "%s/results.json", s->dir);
    int st = hr_write_json_atomic(path, doc);
    cJSON_Delete(doc);

    char *csv = NULL;
    size_t len = 0;
    FILE *f = st ? NULL : open_memstream(&csv, &len);
    if (!st && !f) st = hr_fail("out of memory");
    if (f) {
        hr_csv_header(f);
        for (int i = 0; i < s->nres; i++) hr_csv_row(f, &s->res[ord[i]]);
        fclose(f);
        snprintf(path, sizeof path, "%s/results.csv", s->dir);
        st = hr_write_atomic(path, csv);
    }
    free(csv);
    free(ord);
    return st;
}

/* ---- the directory --------------------------------------------------------------------- */

/* Reads rows.jsonl of a resumed directory back (none yet: nothing to read). A torn last
 * line (the process was killed while writing it) is cut off with a note. A key seen
 * twice (a file written twice over by a headroom that let --out append to finished rows)
 * keeps its first row: the others are dropped with a note and rows.jsonl is rewritten
 * without them, so no results file holds a point twice. */
/* The failed lines among the kept lines t[0..len): each point once, none with a row
 * (measured since, by --retry-failed), as notes and crashed_keys; none with
 * retry_failed. */
static int load_failed(hr_sweep_store *s, const char *t, size_t len, const hr_keyset *rows, int n)
{
    if (s->retry_failed) return HR_OK;
    if (!(s->ckeys = calloc((size_t)n + 1, sizeof *s->ckeys)) || hr_keyset_init(&s->crashed_keys, (size_t)n + 1))
        return hr_fail("out of memory");
    int st = HR_OK;
    for (const char *p = t; p < t + len && !st;) {
        const char *e = memchr(p, '\n', (size_t)(t + len - p));
        cJSON *o = cJSON_ParseWithLength(p, (size_t)(e - p));
        const char *key = hr_json_str(o, "key", ""), *why = hr_json_str(o, "failed", NULL);
        if (why && key[0] && !hr_keyset_has(rows, key) && !hr_keyset_has(&s->crashed_keys, key)) {
            char note[320];
            crash_note(note, sizeof note, why);
            snprintf(s->ckeys[s->crashed], sizeof s->ckeys[0], "%s", key);
            hr_keyset_add(&s->crashed_keys, s->ckeys[s->crashed]);
            s->crashed++;
            st = hr_sweep_store_skip(s, hr_json_str(o, "name", key), note, false);
        }
        cJSON_Delete(o);
        p = e + 1;
    }
    return st;
}

static int load_rows(hr_sweep_store *s, bool readonly)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/rows.jsonl", s->dir);
    struct stat sb;
    if (stat(path, &sb) && errno == ENOENT) return HR_OK;
    size_t len;
    char *t = hr_read_file(path, HR_CAP_RESULTS, "rows file", &len);
    if (!t) return HR_EUSAGE;
    size_t nlines = 1, nkept = 0, klen = 0;
    for (const char *p = t; *p; p++) nlines += *p == '\n';
    char(*keys)[320] = calloc(nlines, sizeof *keys), *kept = malloc(len + 1);
    hr_keyset seen = {0};
    int line = 0, ndup = 0, nfailed = 0, st = !keys || !kept || hr_keyset_init(&seen, nlines) ? hr_fail("out of memory") : HR_OK;
    for (char *p = t; *p && !st;) {
        char *e = strchr(p, '\n');
        line++;
        if (!e && readonly) {
            st = hr_fail("%s:%d: incomplete last line (the sweep was killed while writing it: --resume %s "
                         "cuts it off and finishes the sweep)", path, line, s->dir);
            break;
        }
        if (!e) {
            /* Cut the torn line off, so the rows appended next start on a line of their own. */
            fprintf(stderr, "headroom sweep: %s:%d: incomplete last line dropped\n", path, line);
            if (truncate(path, (off_t)(p - t))) st = hr_fail("%s: cannot truncate (%s)", path, strerror(errno));
            break;
        }
        *e = 0;
        /* One JSON document per line: anything after it on the line is not a row. */
        cJSON *o = cJSON_ParseWithOpts(p, NULL, 1), *pass = cJSON_GetObjectItemCaseSensitive(o, "pass");
        const cJSON *failed = cJSON_GetObjectItemCaseSensitive(o, "failed");
        hr_result r;
        if (o && cJSON_IsString(failed)) { /* a point failed in its worker: kept, read after the rows */
            klen += (size_t)snprintf(kept + klen, len + 1 - klen, "%s\n", p);
            nfailed++;
        } else if (!o || !cJSON_IsNumber(pass) ||
            hr_result_from_json(cJSON_GetObjectItemCaseSensitive(o, "result"), &r)) {
            /* hr_errmsg() is the buffer hr_fail writes: copy it before formatting. */
            char why[400] = "";
            if (o) snprintf(why, sizeof why, ": %s", cJSON_IsNumber(pass) ? hr_errmsg() : "field 'pass' missing");
            st = hr_fail("%s:%d: not a headroom row%s", path, line, why);
        } else {
            hr_sweep_key(&r, pass->valueint, keys[nkept], sizeof keys[0]);
            if (hr_keyset_add(&seen, keys[nkept])) {
                ndup++;
            } else {
                nkept++;
                st = add_result(s, &r, pass->valueint, -1);
                klen += (size_t)snprintf(kept + klen, len + 1 - klen, "%s\n", p);
            }
        }
        cJSON_Delete(o);
        p = e + 1;
    }
    if (!st && nfailed) st = load_failed(s, kept, klen, &seen, nfailed);
    if (!st && ndup && readonly) st = hr_fail("%s: %d point%s recorded twice (--resume %s drops the copies)", path,
                                             ndup, ndup == 1 ? "" : "s", s->dir);
    if (!st && ndup) {
        fprintf(stderr, "headroom sweep: note: %s: %d duplicate row%s dropped (a point measured twice; "
                "the first row of each is kept)\n", path, ndup, ndup == 1 ? "" : "s");
        kept[klen] = 0;
        st = hr_write_atomic(path, kept);
    }
    hr_keyset_free(&seen);
    free(keys);
    free(kept);
    free(t);
    s->resumed = s->nres;
    s->dropped = ndup;
    return st;
}

static int make_dir(hr_sweep_store *s, const char *out_dir, const char *resume_dir, const char *suffix)
{
    if (resume_dir) {
        struct stat sb;
        if (stat(resume_dir, &sb) || !S_ISDIR(sb.st_mode))
            return hr_fail("--resume: %s is not a directory", resume_dir);
        snprintf(s->dir, sizeof s->dir, "%s", resume_dir);
        return HR_OK;
    }
    if (out_dir) {
        snprintf(s->dir, sizeof s->dir, "%s", out_dir);
        /* A second sweep into a directory with rows would append every row again, and a
         * later --resume would count both copies: finishing it is --resume's job. */
        char rows[1100];
        snprintf(rows, sizeof rows, "%s/rows.jsonl", s->dir);
        struct stat sb;
        if (!stat(rows, &sb) && !S_ISREG(sb.st_mode))
            return hr_fail("--out: %s is not a regular file", rows);
        if (!stat(rows, &sb) && sb.st_size > 0)
            return hr_fail("--out: %s already holds a sweep's rows: --resume %s finishes it, or give a "
                           "new directory", out_dir, out_dir);
        return hr_mkdirs(s->dir);
    }
    char parent[800], stamp[32];
    hr_results_path(NULL, parent, sizeof parent);
    int st = hr_mkdirs(parent);
    if (st) return st;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    /* A new directory each time: a second sweep in the same second gets a suffix. */
    for (int i = 1; i < 100; i++) {
        if (i == 1) snprintf(s->dir, sizeof s->dir, "%s/%s-%s%s", parent, stamp, s->c->name, suffix);
        else snprintf(s->dir, sizeof s->dir, "%s/%s-%s%s-%d", parent, stamp, s->c->name, suffix, i);
        if (!mkdir(s->dir, 0777)) return HR_OK;
        if (errno != EEXIST) return hr_fail("%s: cannot create (%s)", s->dir, strerror(errno));
    }
    return hr_fail("%s: too many sweeps in one second", parent);
}

static int copy_config(const hr_sweep_store *s)
{
    const char *path = s->c->path, *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char dst[1600];
    snprintf(dst, sizeof dst, "%s/%s", s->dir, base);
    if (!strcmp(dst, path)) return HR_OK;
    char *t = hr_read_file(path, HR_CAP_CONFIG, "config", NULL);
    if (!t) return HR_EUSAGE;
    int st = hr_write_atomic(dst, t);
    free(t);
    return st;
}

int hr_sweep_store_load(hr_sweep_store *s, const hr_sweep_config *c, const char *dir)
{
    memset(s, 0, sizeof *s);
    s->c = c;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    return load_rows(s, true);
}

int hr_sweep_store_open(hr_sweep_store *s, const hr_sweep_config *c, const char *out_dir,
                        const char *resume_dir, const char *suffix, bool retry_failed)
{
    memset(s, 0, sizeof *s);
    s->c = c;
    s->retry_failed = retry_failed;
    int st;
    if ((st = make_dir(s, out_dir, resume_dir, suffix ? suffix : "")) || (resume_dir && (st = load_rows(s, false))) ||
        (st = copy_config(s)))
        return st;
    s->keys = calloc((size_t)s->nres + 1, sizeof *s->keys);
    if (!s->keys || (st = hr_keyset_init(&s->done, (size_t)s->nres + 1))) return hr_fail("out of memory");
    for (int i = 0; i < s->nres; i++) {
        hr_sweep_key(&s->res[i], s->pass[i], s->keys[i], sizeof s->keys[i]);
        hr_keyset_add(&s->done, s->keys[i]);
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/rows.jsonl", s->dir);
    if (!(s->jsonl = fopen(path, "a"))) return hr_fail("%s: cannot write (%s)", path, strerror(errno));
    return HR_OK;
}

void hr_sweep_store_latest(const hr_sweep_store *s)
{
    char parent[800], link[820], tmp[840];
    hr_results_path(NULL, parent, sizeof parent);
    size_t n = strlen(parent);
    const char *dir = s->dir, *base = dir + n + 1;
    if (strncmp(dir, parent, n) || dir[n] != '/' || !*base || strchr(base, '/')) return;
    snprintf(link, sizeof link, "%s/latest", parent);
    snprintf(tmp, sizeof tmp, "%s/.latest.%d", parent, (int)getpid());
    unlink(tmp);
    if (symlink(base, tmp) || rename(tmp, link)) {
        unlink(tmp);
        fprintf(stderr, "headroom sweep: note: cannot update %s (%s)\n", link, strerror(errno));
    }
}

void hr_sweep_store_close(hr_sweep_store *s)
{
    if (s->jsonl) fclose(s->jsonl);
    hr_keyset_free(&s->done);
    hr_keyset_free(&s->crashed_keys);
    free(s->ckeys);
    free(s->keys);
    free(s->res);
    free(s->pass);
    free(s->seq);
    free(s->skipped);
    memset(s, 0, sizeof *s);
}

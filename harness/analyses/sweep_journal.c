/* sweep_journal.c — every finished repetition of a sweep appended to reps.jsonl as it
 * completes, read back by --resume, so a sweep stopped in any way (SIGINT, SIGTERM,
 * SIGKILL, a power loss) keeps every repetition it measured.
 *
 * Why a journal beside rows.jsonl rather than in it: rows.jsonl holds one finished row a
 * line, and every reader of a results directory (resume, merge, the schema check,
 * scripts) takes it as that. A repetition is not a row: an interleaved point completes
 * with its last repetition, in the last round, so without the journal a stopped sweep
 * keeps no row of its interleaved points.
 *
 * Each line is one repetition: {"key", "rep", "time_s", "cpu_s", "iters", the probes
 * around it, "reps", "config_hash", "build_id"} (docs/reference/rows.schema.json,
 * $defs/rep). A line is written with one write(2) on an O_APPEND descriptor, so it is in
 * the page cache, safe from a SIGKILL, when the call returns; fdatasync at most once a
 * second (HEADROOM_JOURNAL_SYNC) and at the end of every round bounds what a power loss
 * takes. Numbers are printed so they read back to the same double: a resumed point's
 * statistics are those of its repetitions as measured.
 *
 * On --resume a point is matched by its resume key; its journaled repetitions 0..k-1 go
 * into its timing arrays and it goes on from repetition k, in the round it stopped in.
 * Each line carries the identity of the sweep that wrote it, so repetitions of another
 * binary, config or repetition count are refused rather than mixed into a median. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "sweep_journal.h"
#include "sysinfo.h"

/* ---- reading back ---------------------------------------------------------------------- */

static const hr_sweep_journal *sort_j; /* qsort's comparator has no context */

static int by_key_rep(const void *a, const void *b)
{
    const hr_journal_rep *x = a, *y = b;
    int c = x->key == y->key ? 0 : strcmp(sort_j->keys[x->key], sort_j->keys[y->key]);
    return c ? c : x->line != y->line ? (x->line > y->line) - (x->line < y->line) : 0;
}

static size_t fnv(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The index of key in j->keys, added when new; -1 when out of memory. */
static int key_index(hr_sweep_journal *j, const char *key)
{
    if (2 * ((size_t)j->nkeys + 1) > j->nslot) { /* grow the table, rehash */
        const size_t ns = j->nslot ? 2 * j->nslot : 128;
        int *sl = malloc(ns * sizeof *sl);
        if (!sl) return -1;
        for (size_t i = 0; i < ns; i++) sl[i] = -1;
        for (int k = 0; k < j->nkeys; k++) {
            size_t i = fnv(j->keys[k]) & (ns - 1);
            while (sl[i] >= 0) i = (i + 1) & (ns - 1);
            sl[i] = k;
        }
        free(j->slot);
        j->slot = sl;
        j->nslot = ns;
    }
    size_t i = fnv(key) & (j->nslot - 1);
    for (; j->slot[i] >= 0; i = (i + 1) & (j->nslot - 1))
        if (!strcmp(j->keys[j->slot[i]], key)) return j->slot[i];
    if (j->nkeys == j->capkeys) {
        const int nc = j->capkeys ? 2 * j->capkeys : 64;
        char(*nk)[320] = realloc(j->keys, (size_t)nc * sizeof *nk);
        if (!nk) return -1;
        j->keys = nk;
        j->capkeys = nc;
    }
    snprintf(j->keys[j->nkeys], sizeof j->keys[0], "%s", key);
    return j->slot[i] = j->nkeys++;
}

/* One line into rec: HR_OK or HR_EUSAGE naming FILE:LINE and what is wrong. */
static int parse_line(hr_sweep_journal *j, const char *p, int line, hr_journal_rep *rec)
{
    cJSON *o = cJSON_ParseWithOpts(p, NULL, 1);
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(o, "key"), *rep = cJSON_GetObjectItemCaseSensitive(o, "rep"),
                *t = cJSON_GetObjectItemCaseSensitive(o, "time_s"), *reps = cJSON_GetObjectItemCaseSensitive(o, "reps");
    const char *bad = !o ? "" : !cJSON_IsString(key) || strlen(key->valuestring) >= 320 ? ": field 'key'"
                              : !cJSON_IsNumber(rep) || rep->valuedouble < 0 || rep->valuedouble >= HR_MAX_REPS ||
                                        rep->valuedouble != floor(rep->valuedouble) ? ": field 'rep'"
                              : !cJSON_IsNumber(t) || !isfinite(t->valuedouble) || t->valuedouble < 0 ? ": field 'time_s'"
                              : !cJSON_IsNumber(reps) ? ": field 'reps'"
                              : !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "config_hash")) ? ": field 'config_hash'"
                              : !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "build_id")) ? ": field 'build_id'"
                              : NULL;
    int st = HR_OK;
    if (bad) {
        st = hr_fail("%s:%d: not a headroom repetition%s", j->path, line, bad);
    } else {
        *rec = (hr_journal_rep){.rep = rep->valueint, .line = line, .time = t->valuedouble,
                                .cpu = hr_json_num(o, "cpu_s", 0), .iters = (long)hr_json_num(o, "iters", 0),
                                .before = hr_json_num(o, "probe_before", 0), .after = hr_json_num(o, "probe_after", 0),
                                .probed = cJSON_GetObjectItemCaseSensitive(o, "probe_before") != NULL};
        /* The identity is checked later, for the points still to measure only: a finished
         * sweep resumed by another binary measures nothing and mixes nothing. */
        rec->reps = reps->valueint;
        hr_copy_text(rec->config_hash, sizeof rec->config_hash, hr_json_str(o, "config_hash", ""));
        hr_copy_text(rec->build_id, sizeof rec->build_id, hr_json_str(o, "build_id", ""));
        if ((rec->key = key_index(j, key->valuestring)) < 0) st = hr_fail("out of memory");
    }
    cJSON_Delete(o);
    return st;
}

/* Why repetition r cannot be resumed by this sweep (a one-line message), or HR_OK. */
static int foreign(const hr_sweep_journal *j, const hr_journal_rep *r)
{
    if (strcmp(r->build_id, j->build_id))
        return hr_fail("--resume: %s:%d: repetitions measured by another binary (build_id %s, this one %s): resume "
                       "with that binary, or start a new sweep", j->path, r->line, r->build_id, j->build_id);
    if (strcmp(r->config_hash, j->config_hash))
        return hr_fail("--resume: %s:%d: repetitions of another config (config_hash %s, now %s): resume with the "
                       "config they were measured with, or start a new sweep", j->path, r->line, r->config_hash,
                       j->config_hash);
    if (r->reps != j->reps)
        return hr_fail("--resume: %s:%d: measured with %d repetitions a point, not %d (--reps %d resumes it)", j->path,
                       r->line, r->reps, j->reps, r->reps);
    return HR_OK;
}

static int load(hr_sweep_journal *j)
{
    struct stat sb;
    if (stat(j->path, &sb) && errno == ENOENT) return HR_OK;
    size_t len;
    char *t = hr_read_file(j->path, HR_CAP_RESULTS, "journal", &len);
    if (!t) return HR_EUSAGE;
    size_t nlines = 1;
    for (const char *p = t; *p; p++) nlines += *p == '\n';
    int st = (j->rec = malloc(nlines * sizeof *j->rec)) ? HR_OK : hr_fail("out of memory"), line = 0;
    for (char *p = t; *p && !st;) {
        char *e = strchr(p, '\n');
        line++;
        if (!e) {
            /* Cut the torn line off, so the repetitions appended next start on a line of their own. */
            fprintf(stderr, "headroom sweep: %s:%d: incomplete last line dropped\n", j->path, line);
            if (truncate(j->path, (off_t)(p - t))) st = hr_fail("%s: cannot truncate (%s)", j->path, strerror(errno));
            break;
        }
        *e = 0;
        st = parse_line(j, p, line, &j->rec[j->nrec]);
        j->nrec += !st;
        p = e + 1;
    }
    free(t);
    if (st) return st;
    sort_j = j;
    qsort(j->rec, (size_t)j->nrec, sizeof *j->rec, by_key_rep);
    return HR_OK;
}

/* The first of key's repetitions in j->rec (sorted), or -1. */
static int first_of(const hr_sweep_journal *j, const char *key)
{
    int lo = 0, hi = j->nrec;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (strcmp(j->keys[j->rec[mid].key], key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < j->nrec && !strcmp(j->keys[j->rec[lo].key], key) ? lo : -1;
}

/* Checks key's run of repetitions: this sweep's identity, 0, 1, 2, ... in file order, at
 * most j->reps of them. *n gets their number. */
static int check_run(const hr_sweep_journal *j, const char *key, int *n)
{
    *n = 0;
    int i = first_of(j, key);
    for (; i >= 0 && i < j->nrec && !strcmp(j->keys[j->rec[i].key], key); i++, ++*n) {
        const hr_journal_rep *r = &j->rec[i];
        int bad = foreign(j, r);
        if (bad) return bad;
        if (r->rep != *n)
            return hr_fail("%s:%d: repetition %d of %s where repetition %d comes next (a journal edited or written "
                           "twice over)", j->path, r->line, r->rep, key, *n);
        if (*n >= j->reps)
            return hr_fail("%s:%d: more than %d repetitions of %s", j->path, r->line, j->reps, key);
    }
    return HR_OK;
}

int hr_sweep_journal_open(hr_sweep_journal *j, const char *dir, bool resume, const char *config_hash, int reps,
                          const hr_sweep_point *pts, int n, const hr_sweep_store *st)
{
    memset(j, 0, sizeof *j);
    j->fd = -1;
    j->sync_every = 1;
    j->reps = reps;
    snprintf(j->path, sizeof j->path, "%s/reps.jsonl", dir);
    snprintf(j->config_hash, sizeof j->config_hash, "%s", config_hash);
    snprintf(j->build_id, sizeof j->build_id, "%s", hr_sysinfo_get()->build_id);
    const char *e = getenv("HEADROOM_JOURNAL_SYNC");
    if (e && *e) {
        char *end;
        j->sync_every = strtod(e, &end);
        if (!strcmp(e, "off")) j->off = true;
        else if (*end || !(j->sync_every >= 0) || !isfinite(j->sync_every))
            return hr_fail("HEADROOM_JOURNAL_SYNC: expected seconds >= 0 or off, got '%s'", e);
    }
    /* A new sweep into a directory holding another's repetitions would append its own to
     * them: a later --resume would read a point's repetitions twice over. */
    struct stat sb;
    if (!resume && !stat(j->path, &sb) && (!S_ISREG(sb.st_mode) || sb.st_size > 0))
        return hr_fail("--out: %s already holds a sweep's repetitions: --resume %s finishes it, or give a new "
                       "directory", j->path, dir);
    int r = resume ? load(j) : HR_OK, k;
    for (int i = 0; i < n && !r && j->nrec; i++)
        if (!pts[i].skip[0] && !hr_sweep_store_has(st, pts[i].key)) {
            r = check_run(j, pts[i].key, &k);
            j->restored += k;
            j->npoints += k > 0;
        }
    if (!r && j->restored)
        fprintf(stderr, "headroom sweep: %d repetitions of %d unfinished point%s read back from %s\n", j->restored,
                j->npoints, j->npoints == 1 ? "" : "s", j->path);
    return r;
}

int hr_sweep_journal_restore(hr_sweep_journal *j, const char *key, hr_timing *t)
{
    int k = 0;
    for (int i = first_of(j, key); i >= 0 && i < j->nrec && !strcmp(j->keys[j->rec[i].key], key) && k < j->reps; i++) {
        const hr_journal_rep *r = &j->rec[i];
        t->rep_time[k] = r->time;
        t->rep_cpu[k] = r->cpu;
        t->probe_before[k] = t->probe_kind && r->probed ? r->before : 0;
        t->probe_after[k] = t->probe_kind && r->probed ? r->after : 0;
        k++;
    }
    t->reps = k;
    return k;
}

/* ---- writing -------------------------------------------------------------------------- */

static int sync_now(hr_sweep_journal *j)
{
    if (j->fd < 0 || !j->dirty) return HR_OK;
    j->dirty = false;
    j->last_sync = hr_now();
    return fdatasync(j->fd) ? hr_fail("%s: cannot write (%s)", j->path, strerror(errno)) : HR_OK;
}

int hr_sweep_journal_rep(hr_sweep_journal *j, const char *key, int rep, const hr_timing *t)
{
    if (j->off) return HR_OK;
    if (j->fd < 0) {
        if ((j->fd = open(j->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)) < 0)
            return hr_fail("%s: cannot write (%s)", j->path, strerror(errno));
        j->last_sync = hr_now();
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddNumberToObject(o, "rep", rep);
    cJSON_AddNumberToObject(o, "time_s", t->rep_time[rep]);
    cJSON_AddNumberToObject(o, "cpu_s", t->rep_cpu[rep]);
    cJSON_AddNumberToObject(o, "iters", (double)t->iters);
    if (t->probe_kind) {
        cJSON_AddNumberToObject(o, "probe_before", t->probe_before[rep]);
        cJSON_AddNumberToObject(o, "probe_after", t->probe_after[rep]);
    }
    cJSON_AddNumberToObject(o, "reps", j->reps);
    cJSON_AddStringToObject(o, "config_hash", j->config_hash);
    cJSON_AddStringToObject(o, "build_id", j->build_id);
    char *text = hr_json_text(o, 0);
    cJSON_Delete(o);
    if (!text) return hr_fail("out of memory");
    const size_t len = strlen(text);
    text[len] = '\n'; /* hr_json_text's buffer ends in the NUL this overwrites: written by length */
    const ssize_t w = write(j->fd, text, len + 1);
    free(text);
    if (w != (ssize_t)(len + 1)) return hr_fail("%s: cannot write (%s)", j->path, w < 0 ? strerror(errno) : "short write");
    j->dirty = true;
    return hr_now() - j->last_sync >= j->sync_every ? sync_now(j) : HR_OK;
}

int hr_sweep_journal_sync(hr_sweep_journal *j) { return sync_now(j); }

void hr_sweep_journal_close(hr_sweep_journal *j)
{
    if (!j->path[0]) return; /* never opened (zeroed: fd 0 is not ours) */
    sync_now(j);
    if (j->fd >= 0) close(j->fd);
    free(j->keys);
    free(j->slot);
    free(j->rec);
    memset(j, 0, sizeof *j);
    j->fd = -1;
}

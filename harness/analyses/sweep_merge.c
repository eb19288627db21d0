/* sweep_merge.c — joins the results directories of a sweep's shards into one results set,
 * written by the sweep's own writer (sweep_store.c) as one unsharded sweep writes it.
 *
 * The shards' manifests (shard.json, sweep_shard.c) carry the whole point list with the
 * owner of every point, so the merge needs neither the config's expansion nor wisdom
 * on this node: it checks that the shards agree (config, binary, point list, machine,
 * N), that each K of 1..N is there once, that every point is measured or skipped in its
 * own shard and nowhere else, then writes the union in the sweep's order. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "files.h"
#include "phase.h"
#include "results.h"
#include "sweep_layer.h"
#include "sweep_merge.h"
#include "sweep_store.h"

typedef struct {
    const char *dir;
    cJSON *man, *res; /* shard.json; results.json                                   */
    int k, n;
} shard_in;

typedef struct {
    const char *s;
    int i;
} named;

static int by_s(const void *a, const void *b) { return strcmp(((const named *)a)->s, ((const named *)b)->s); }

/* The index of s in a sorted table, or -1. */
static int lookup(const named *t, int n, const char *s)
{
    const named key = {s, 0}, *hit = bsearch(&key, t, (size_t)n, sizeof *t, by_s);
    return hit ? hit->i : -1;
}

/* Reads DIR/name as JSON into *doc. Returns 1 when the file does not exist. */
static int read_json(const char *dir, const char *name, const char *what, cJSON **doc)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat sb;
    *doc = NULL;
    if (stat(path, &sb)) return 1;
    *doc = hr_read_json(path, HR_CAP_RESULTS, what);
    return *doc ? HR_OK : HR_EUSAGE;
}

/* shard.json of one directory, checked for the fields the merge reads. */
static int read_manifest(shard_in *s)
{
    struct stat sb;
    if (stat(s->dir, &sb) || !S_ISDIR(sb.st_mode)) return hr_fail("%s: not a directory", s->dir);
    int st = read_json(s->dir, "shard.json", "shard manifest", &s->man);
    if (st == 1)
        return hr_fail("%s: not a shard's directory (no shard.json: written by headroom sweep --shard K/N)", s->dir);
    if (st) return st;
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(s->man, "points");
    s->k = (int)hr_json_num(s->man, "shard", 0), s->n = (int)hr_json_num(s->man, "shards", 0);
    if (s->n < 1 || s->k < 1 || s->k > s->n || !cJSON_IsArray(pts) || !*hr_json_str(s->man, "config_hash", "") ||
        !*hr_json_str(s->man, "config_file", "") || !*hr_json_str(s->man, "build_id", ""))
        return hr_fail("%s/shard.json: not a headroom shard manifest (shard, shards, points, config_hash, "
                       "config_file or build_id missing)", s->dir);
    return HR_OK;
}

/* Shards a and b must come from one sweep: the first field that differs is named. */
static int same_sweep(const shard_in *a, const shard_in *b)
{
    static const struct {
        const char *key, *what;
    } f[] = {{"config_hash", "different configs"},
             {"build_id", "different binaries"},
             {"points_hash", "different point lists (--filter, --dtype, --max-mem or wisdom differ)"},
             {"machine", "different machines (merge the shards of one node type; report compares machines)"}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (strcmp(hr_json_str(a->man, f[i].key, ""), hr_json_str(b->man, f[i].key, "")))
            return hr_fail("shard %d/%d (%s) and shard %d/%d (%s) come from %s: %s %s and %s", a->k, a->n, a->dir,
                           b->k, b->n, b->dir, f[i].what, f[i].key, hr_json_str(a->man, f[i].key, ""), hr_json_str(b->man, f[i].key, ""));
    if (a->n != b->n)
        return hr_fail("%s and %s split the sweep %d and %d ways", a->dir, b->dir, a->n, b->n);
    return HR_OK;
}

/* Every K of 1..N exactly once; *by_k[k-1] is shard k. */
static int all_shards(shard_in *in, int n, shard_in **by_k)
{
    const int nn = in[0].n;
    for (int i = 0; i < n; i++) {
        shard_in *o = by_k[in[i].k - 1];
        if (o) return hr_fail("shard %d/%d given twice: %s and %s", in[i].k, nn, o->dir, in[i].dir);
        by_k[in[i].k - 1] = &in[i];
    }
    for (int k = 1; k <= nn; k++)
        if (!by_k[k - 1]) {
            char given[200] = "";
            size_t l = 0;
            for (int j = 1; j <= nn && l < sizeof given - 16; j++)
                if (by_k[j - 1]) l += (size_t)snprintf(given + l, sizeof given - l, "%s%d", l ? ", " : "", j);
            return hr_fail("shard %d of %d absent (given: %s)", k, nn, given);
        }
    return HR_OK;
}

/* The merged set being built. */
typedef struct {
    const named *keys, *names;
    const int *owner;
    int npts;
    char *covered;
    hr_sweep_store *out;
    hr_result *rows;
    int *pass, *seq, nrows, cap;
    hr_sweep_note *skips;
    int *skip_seq, nskips, capskips;
} merged;

static int grow(void **p, int cap, size_t size)
{
    void *q = realloc(*p, (size_t)cap * size);
    if (!q) return hr_fail("out of memory");
    *p = q;
    return HR_OK;
}

/* The rows of shard s (rows.jsonl) placed at their points; rows without a point of
 * their own (a layer point's phase rows) take the point of the row that follows. */
static int take_rows(merged *m, const shard_in *s, const hr_sweep_config *c)
{
    hr_sweep_store ld;
    int st = hr_sweep_store_load(&ld, c, s->dir), first_pending = m->nrows;
    for (int i = 0; i < ld.nres && !st; i++) {
        if (m->nrows == m->cap) {
            m->cap = m->cap ? 2 * m->cap : 64;
            if ((st = grow((void **)&m->rows, m->cap, sizeof *m->rows)) ||
                (st = grow((void **)&m->pass, m->cap, sizeof *m->pass)) ||
                (st = grow((void **)&m->seq, m->cap, sizeof *m->seq)))
                break;
        }
        char key[320];
        hr_sweep_key(&ld.res[i], ld.pass[i], key, sizeof key);
        const int p = lookup(m->keys, m->npts, key);
        m->rows[m->nrows] = ld.res[i];
        m->pass[m->nrows++] = ld.pass[i];
        if (p < 0) continue;
        if (m->owner[p] != s->k)
            st = hr_fail("%s/rows.jsonl: row %s belongs to shard %d/%d, not %d/%d", s->dir, key, m->owner[p], s->n,
                         s->k, s->n);
        for (int j = first_pending; j < m->nrows; j++) m->seq[j] = p;
        first_pending = m->nrows;
        m->covered[p] = 1;
    }
    if (!st && first_pending < m->nrows) {
        char name[256];
        hr_result_name(&m->rows[first_pending], name, sizeof name);
        st = hr_fail("%s/rows.jsonl: row %s belongs to no point of the sweep", s->dir, name);
    }
    hr_sweep_store_close(&ld);
    return st;
}

/* The skipped points of shard s (its results.json) and the sweep facts it reports. */
static int take_skips(merged *m, const shard_in *s)
{
    const cJSON *sk = cJSON_GetObjectItemCaseSensitive(s->res, "skipped"), *e;
    cJSON_ArrayForEach(e, sk)
    {
        if (m->nskips == m->capskips) {
            m->capskips = m->capskips ? 2 * m->capskips : 64;
            int st = grow((void **)&m->skips, m->capskips, sizeof *m->skips);
            if (!st) st = grow((void **)&m->skip_seq, m->capskips, sizeof *m->skip_seq);
            if (st) return st;
        }
        const int p = lookup(m->names, m->npts, hr_json_str(e, "name", ""));
        if (p >= 0 && m->owner[p] != s->k)
            return hr_fail("%s/results.json: skipped point %s belongs to shard %d/%d, not %d/%d", s->dir,
                           hr_json_str(e, "name", ""), m->owner[p], s->n, s->k, s->n);
        if (p >= 0) m->covered[p] = 1;
        bool again = false; /* a kernel the config names but no shard loaded: every shard notes it */
        for (int i = 0; p < 0 && i < m->nskips && !again; i++) again = !strcmp(m->skips[i].name, hr_json_str(e, "name", ""));
        if (again) continue;
        hr_sweep_note *n = &m->skips[m->nskips];
        snprintf(n->name, sizeof n->name, "%s", hr_json_str(e, "name", ""));
        snprintf(n->reason, sizeof n->reason, "%s", hr_json_str(e, "reason", ""));
        m->skip_seq[m->nskips++] = p >= 0 ? p : m->npts;
    }
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(s->res, "sweep");
    hr_sweep_store *o = m->out;
    o->resumed += (int)hr_json_num(sw, "resumed", 0);
    o->dropped += (int)hr_json_num(sw, "duplicates_dropped", 0);
    o->failed += (int)hr_json_num(sw, "failed_checks", 0);
    o->nphase += (int)hr_json_num(sw, "phase_changes", 0);
    o->nexcluded += (int)hr_json_num(sw, "phase_excluded", 0);
    if (hr_json_num(sw, "timer_resolution_s", 0) > o->timer_res) o->timer_res = hr_json_num(sw, "timer_resolution_s", 0);
    o->phase_filter |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sw, "phase_filter"));
    o->interleave |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sw, "interleave"));
    for (int i = 0; hr_probe_kind_names[i]; i++)
        if (!strcmp(hr_json_str(sw, "probe", ""), hr_probe_kind_names[i])) o->probe = i;
    return HR_OK;
}

/* Shard 1's context with the shard field gone, "shards", the hosts and every shard's
 * warnings (each once). */
static cJSON *merged_context(shard_in **by_k, int n)
{
    cJSON *ctx = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(by_k[0]->res, "context"), 1);
    if (!ctx) ctx = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(ctx, "shard");
    cJSON_DeleteItemFromObjectCaseSensitive(ctx, "warnings");
    cJSON_AddNumberToObject(ctx, "shards", n);
    cJSON *hosts = cJSON_AddArrayToObject(ctx, "hosts"), *w = cJSON_AddArrayToObject(ctx, "warnings"), *e;
    for (int k = 0; k < n; k++) {
        const char *h = hr_json_str(by_k[k]->man, "host", "");
        bool seen = false;
        cJSON_ArrayForEach(e, hosts) seen |= !strcmp(e->valuestring, h);
        if (!seen) cJSON_AddItemToArray(hosts, cJSON_CreateString(h));
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(by_k[k]->res, "context"),
                                                          "warnings"), *x;
        cJSON_ArrayForEach(x, ws)
        {
            if (!cJSON_IsString(x)) continue;
            seen = false;
            cJSON_ArrayForEach(e, w) seen |= !strcmp(e->valuestring, x->valuestring);
            if (!seen) cJSON_AddItemToArray(w, cJSON_CreateString(x->valuestring));
        }
    }
    return ctx;
}

/* The points of shard 1's manifest: key and name tables and owners. */
static int point_tables(const shard_in *s, named **keys, named **names, int **owner, int *npts)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(s->man, "points"), *e;
    const int n = cJSON_GetArraySize(pts);
    *keys = malloc(((size_t)n + 1) * sizeof **keys);
    *names = malloc(((size_t)n + 1) * sizeof **names);
    *owner = malloc(((size_t)n + 1) * sizeof **owner);
    if (!*keys || !*names || !*owner) return hr_fail("out of memory");
    int i = 0;
    cJSON_ArrayForEach(e, pts)
    {
        const int o = (int)hr_json_num(e, "shard", 0);
        if (!*hr_json_str(e, "key", "") || !*hr_json_str(e, "name", "") || o < 1 || o > s->n)
            return hr_fail("%s/shard.json: point %d: name, key or shard missing or wrong", s->dir, i + 1);
        (*keys)[i] = (named){hr_json_str(e, "key", ""), i};
        (*names)[i] = (named){hr_json_str(e, "name", ""), i};
        (*owner)[i++] = o;
    }
    qsort(*keys, (size_t)n, sizeof **keys, by_s);
    qsort(*names, (size_t)n, sizeof **names, by_s);
    *npts = n;
    return HR_OK;
}

int hr_sweep_merge(char *const *dirs, int n, const char *out_dir, int *nrows)
{
    if (n < 1) return hr_fail("give the shard directories (SHARD_DIR...)");
    if (n > HR_MERGE_MAX) return hr_fail("at most %d shard directories", HR_MERGE_MAX);
    shard_in *in = calloc((size_t)n, sizeof *in), **by_k = NULL;
    named *keys = NULL, *names = NULL;
    int *owner = NULL, npts = 0, *ri = NULL, *si = NULL, st = in ? HR_OK : hr_fail("out of memory");
    static hr_sweep_config cfg;
    hr_sweep_store out = {0};
    merged m = {0};
    char rout[PATH_MAX], rin[PATH_MAX];
    const bool have_out = realpath(out_dir, rout) != NULL; /* NULL: not made yet, so no shard */
    for (int i = 0; i < n && !st; i++) {
        in[i].dir = dirs[i];
        if (have_out && realpath(dirs[i], rin) && !strcmp(rin, rout))
            st = hr_fail("--out: %s is one of the shards (give a new directory)", out_dir);
        if (st) break;
        if (!(st = read_manifest(&in[i])) && i) st = same_sweep(&in[0], &in[i]);
    }
    if (!st && !(by_k = calloc((size_t)in[0].n, sizeof *by_k))) st = hr_fail("out of memory");
    if (!st) st = all_shards(in, n, by_k);
    char path[1100];
    if (!st) {
        snprintf(path, sizeof path, "%s/%s", by_k[0]->dir, hr_json_str(by_k[0]->man, "config_file", ""));
        st = hr_config_load(path, &cfg);
    }
    if (!st) st = point_tables(by_k[0], &keys, &names, &owner, &npts);
    if (!st && !(m.covered = calloc((size_t)npts + 1, 1))) st = hr_fail("out of memory");
    m.keys = keys, m.names = names, m.owner = owner, m.npts = npts, m.out = &out;
    for (int k = 0; k < n && !st; k++) {
        shard_in *s = by_k[k];
        int r = read_json(s->dir, "results.json", "results file", &s->res);
        if (r == 1)
            r = hr_fail("%s: no results.json (shard %d/%d has not finished: --resume %s)", s->dir, s->k, s->n, s->dir);
        st = r ? r : take_rows(&m, s, &cfg);
        if (!st) st = take_skips(&m, s);
        int mine = 0, missing = 0;
        for (int p = 0; p < npts && !st; p++) {
            mine += owner[p] == s->k;
            missing += owner[p] == s->k && !m.covered[p];
        }
        if (!st && missing)
            st = hr_fail("shard %d/%d (%s) is incomplete: %d of its %d points neither measured nor skipped "
                         "(--resume %s finishes it)", s->k, s->n, s->dir, missing, mine, s->dir);
    }
    /* The output, through the sweep's own writer. */
    if (!st) st = hr_sweep_row_order(m.seq, m.nrows, &ri);
    if (!st) st = hr_sweep_row_order(m.skip_seq, m.nskips, &si);
    hr_sweep_store facts = out; /* take_skips summed them into out, which open zeroes */
    if (!st) st = hr_sweep_store_open(&out, &cfg, out_dir, NULL, NULL, false);
    if (!st) {
        out.resumed = facts.resumed, out.dropped = facts.dropped, out.nphase = facts.nphase;
        out.nexcluded = facts.nexcluded, out.timer_res = facts.timer_res, out.phase_filter = facts.phase_filter;
        out.interleave = facts.interleave, out.probe = facts.probe;
        snprintf(out.config_hash, sizeof out.config_hash, "%s", hr_json_str(by_k[0]->man, "config_hash", ""));
        out.context = merged_context(by_k, in[0].n);
    }
    for (int i = 0; i < m.nrows && !st; i++) st = hr_sweep_store_row(&out, &m.rows[ri[i]], m.pass[ri[i]], m.seq[ri[i]]);
    for (int i = 0; i < m.nskips && !st; i++)
        st = hr_sweep_store_skip(&out, m.skips[si[i]].name, m.skips[si[i]].reason, false);
    out.failed = facts.failed;
    if (!st) st = hr_sweep_store_write(&out, false);
    if (!st && cfg.mode == HR_MODE_LAYER) st = hr_sweep_layer_crossover(out.res, out.nres, out.dir);
    if (nrows) *nrows = out.nres;
    cJSON_Delete(out.context);
    hr_sweep_store_close(&out);
    for (int i = 0; in && i < n; i++) {
        cJSON_Delete(in[i].man);
        cJSON_Delete(in[i].res);
    }
    free(m.covered), free(m.rows), free(m.pass), free(m.seq), free(m.skips), free(m.skip_seq);
    free(ri), free(si), free(keys), free(names), free(owner), free(by_k), free(in);
    return st;
}

/* wisdom.c — the wisdom file: tuned parameters keyed by machine, binary and shape class.
 *
 * Like FFTW's wisdom, an entry is only trusted by the binary and machine that measured
 * it: each carries the CPU model, ISA, CPU count and build_id (hash of flags, compiler
 * and kernel registry). Entries of other machines/builds stay in the file (it may be
 * shared) but are never used. Format:
 *   {"format": "headroom-wisdom-1", "entries": [{"class": "flash/full/d64/g1/nq2048/
 *     nkv2048/bh16", "kernel": "flash", "fixed_threads": 0, "cpu_model": ..., "isa": ...,
 *     "cpus": 2, "build_id": ..., "block_q": 64, "block_kv": 128, "threads": 2,
 *     "gflops": 51.2, "default_gflops": 44.0, "date": ..., "shape": ...}, ...]} */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "files.h"
#include "paths.h"
#include "results.h"
#include "sysinfo.h"
#include "threads.h"
#include "wisdom.h"

#define WISDOM_FORMAT "headroom-wisdom-1"

static long pow2_ceil(long x)
{
    long p = 1;
    while (p < x) p <<= 1;
    return p;
}

hr_shape_class hr_shape_class_of(const hr_kernel *k, const hr_problem *p)
{
    hr_shape_class c = {0};
    snprintf(c.kernel, sizeof c.kernel, "%s", k->name);
    c.causal = p->causal;
    c.dtype = p->dtype;
    c.kv_dtype = p->kv_dtype;
    c.d_head = p->d_head;
    c.group = p->kv_heads > 0 ? p->heads / p->kv_heads : 1;
    c.nq = pow2_ceil(p->seq_q);
    c.nkv = pow2_ceil(p->seq_kv);
    c.bh = pow2_ceil((long)p->batch * p->heads);
    c.window = p->window, c.softcap = p->softcap, c.alibi = p->alibi;
    return c;
}

void hr_shape_class_key(const hr_shape_class *c, char *buf, size_t len)
{
    char types[32], var[64];
    hr_dtype_seg(&(hr_problem){.dtype = c->dtype, .kv_dtype = c->kv_dtype}, types, sizeof types);
    hr_variant_seg(&(hr_problem){.window = c->window, .softcap = c->softcap, .alibi = c->alibi}, var, sizeof var);
    snprintf(buf, len, "%s/%s%s/d%d%s/g%d/nq%ld/nkv%ld/bh%ld", c->kernel, c->causal ? "causal" : "full", var,
             c->d_head, types, c->group, c->nq, c->nkv, c->bh);
}

const char *hr_wisdom_default_path(void)
{
    static char path[512];
    const char *e = getenv("HEADROOM_WISDOM");
    if (e && *e) return e;
    hr_results_path("wisdom.json", path, sizeof path);
    return path;
}

/* Reads and parses the file. *doc = NULL when it does not exist. -1 on a read or parse
 * error or a wrong structure (message names the file). */
static int load(const char *path, cJSON **doc)
{
    *doc = NULL;
    if (access(path, F_OK) && errno == ENOENT) return 0;
    size_t len = 0;
    char *text = hr_read_file(path, HR_CAP_SMALL, "wisdom file", &len);
    if (!text) return -1;
    cJSON *d = hr_json_parse(text, len, path);
    free(text);
    if (!d) {
        /* "PATH: corrupt wisdom file (why)", the parser's "PATH:" or "PATH:LINE:" moved
         * inside as "line LINE". hr_fail formats into the buffer hr_errmsg returns. */
        char why[512];
        const char *e = hr_errmsg(), *rest = e + strlen(path);
        long line = 0;
        if (!strncmp(e, path, strlen(path)) && *rest == ':') {
            line = strtol(rest + 1, (char **)&rest, 10);
            rest += strspn(rest, ": ");
        } else {
            rest = e;
        }
        if (line) snprintf(why, sizeof why, "line %ld: %s", line, rest);
        else snprintf(why, sizeof why, "%s", rest);
        hr_fail("%s: corrupt wisdom file (%s); delete it or re-run headroom tune", path, why);
        return -1;
    }
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(d, "format");
    const cJSON *ents = cJSON_GetObjectItemCaseSensitive(d, "entries");
    if (!cJSON_IsObject(d)) {
        cJSON_Delete(d);
        hr_fail("%s: corrupt wisdom file (not a JSON object); delete it or re-run headroom tune", path);
        return -1;
    }
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, WISDOM_FORMAT) || !cJSON_IsArray(ents)) {
        cJSON_Delete(d);
        hr_fail("%s: corrupt wisdom file (expected \"format\": \"%s\" and an \"entries\" array)",
                path, WISDOM_FORMAT);
        return -1;
    }
    static const char *const strs[] = {"class", "kernel", "cpu_model", "isa", "build_id", NULL};
    /* The counts pass the limits their flags have (--threads, --block-q/kv): an entry is
     * a source of thread counts like any other, and nothing is sized from it unchecked. */
    static const struct {
        const char *name;
        double max;
    } nums[] = {{"fixed_threads", HR_THREADS_MAX}, {"cpus", 1 << 20},     {"block_q", 1 << 16},
                {"block_kv", 1 << 16},            {"threads", HR_THREADS_MAX}, {NULL, 0}};
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ents)
    {
        for (int j = 0; strs[j]; j++)
            if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, strs[j]))) goto bad;
        for (int j = 0; nums[j].name; j++) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(e, nums[j].name);
            if (!cJSON_IsNumber(x)) goto bad;
            const double v = x->valuedouble;
            if (!(v >= 0 && v <= nums[j].max) || v != (double)(int)v) {
                cJSON_Delete(d);
                hr_fail("%s: wisdom entry %d: \"%s\": %.17g, expected an integer in [0, %.0f]", path,
                        i, nums[j].name, v, nums[j].max);
                return -1;
            }
        }
        i++;
        continue;
    bad:
        cJSON_Delete(d);
        hr_fail("%s: corrupt wisdom file (entry %d lacks a field or has a wrong type)", path, i);
        return -1;
    }
    *doc = d;
    return 0;
}

/* Whether entry e was made by this machine and binary. */
static int ours(const cJSON *e)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    return !strcmp(hr_json_str(e, "cpu_model", ""), si->cpu_model) && !strcmp(hr_json_str(e, "isa", ""), si->isa) &&
           (int)hr_json_num(e, "cpus", 0) == si->cpus && !strcmp(hr_json_str(e, "build_id", ""), si->build_id);
}

/* One note per file per process about entries that are not ours. */
static void note_foreign(const char *path, const cJSON *ents)
{
    static char noted[8][512];
    static int nnoted;
    int foreign = 0;
    const cJSON *e, *first = NULL;
    cJSON_ArrayForEach(e, ents) if (!ours(e)) foreign++, first = first ? first : e;
    if (!foreign) return;
    for (int i = 0; i < nnoted; i++)
        if (!strcmp(noted[i], path)) return;
    if (nnoted < 8) snprintf(noted[nnoted++], sizeof noted[0], "%s", path);
    const hr_sysinfo *si = hr_sysinfo_get();
    fprintf(stderr,
            "headroom: note: %s: ignoring %d wisdom entr%s from another machine or build "
            "(e.g. '%s' %s %dc build %s; this is '%s' %s %dc build %s)\n",
            path, foreign, foreign == 1 ? "y" : "ies", hr_json_str(first, "cpu_model", ""), hr_json_str(first, "isa", ""),
            (int)hr_json_num(first, "cpus", 0), hr_json_str(first, "build_id", ""), si->cpu_model, si->isa, si->cpus,
            si->build_id);
}

int hr_wisdom_find(const char *path, const hr_kernel *k, const hr_problem *p,
                   int fixed_threads, hr_wisdom_entry *out)
{
    if (!path) path = hr_wisdom_default_path();
    cJSON *doc;
    if (load(path, &doc)) return -1;
    if (!doc) return 0;
    const cJSON *ents = cJSON_GetObjectItemCaseSensitive(doc, "entries");
    note_foreign(path, ents);
    char key[160];
    hr_shape_class c = hr_shape_class_of(k, p);
    hr_shape_class_key(&c, key, sizeof key);
    const cJSON *e, *hit = NULL;
    cJSON_ArrayForEach(e, ents)
    {
        if (!ours(e) || strcmp(hr_json_str(e, "class", ""), key)) continue;
        if ((int)hr_json_num(e, "fixed_threads", 0) != fixed_threads) continue;
        hit = e; /* the last one wins: stores replace in place, so there is one */
    }
    if (hit && out) {
        memset(out, 0, sizeof *out);
        out->tune = (hr_tune){(int)hr_json_num(hit, "block_q", 0), (int)hr_json_num(hit, "block_kv", 0),
                              (int)hr_json_num(hit, "threads", 0)};
        out->fixed_threads = (int)hr_json_num(hit, "fixed_threads", 0);
        out->gflops = hr_json_num(hit, "gflops", 0);
        out->default_gflops = hr_json_num(hit, "default_gflops", 0);
        snprintf(out->date, sizeof out->date, "%s", hr_json_str(hit, "date", ""));
        snprintf(out->shape, sizeof out->shape, "%s", hr_json_str(hit, "shape", ""));
    }
    cJSON_Delete(doc);
    return hit != NULL;
}

int hr_wisdom_lookup(const char *path, const hr_kernel *k, const hr_problem *p, hr_tune *out)
{
    hr_wisdom_entry e;
    int found = 0;
    /* An explicit thread count first asks for wisdom tuned at exactly that count. */
    if (out->threads > 0) found = hr_wisdom_find(path, k, p, out->threads, &e);
    if (found == 0) found = hr_wisdom_find(path, k, p, 0, &e);
    if (found != 1) return found;
    if (out->block_q <= 0 && (k->caps & HR_CAP_BLOCK_Q)) out->block_q = e.tune.block_q;
    if (out->block_kv <= 0 && (k->caps & HR_CAP_BLOCK_KV)) out->block_kv = e.tune.block_kv;
    if (out->threads <= 0 && (k->caps & HR_CAP_THREADED)) out->threads = e.tune.threads;
    return 1;
}

int hr_wisdom_apply(const char *path, bool off, const hr_kernel *k, const hr_problem *p,
                    hr_tune *t, const char **source)
{
    const bool set = t->block_q || t->block_kv;
    *source = set ? "flag" : "default";
    if (off) return HR_OK;
    hr_tune w = *t;
    const int found = hr_wisdom_lookup(path, k, p, &w);
    if (found < 0) return HR_EUSAGE;
    if (found && memcmp(&w, t, sizeof w)) {
        *t = w;
        *source = set ? "flag+wisdom" : "wisdom";
    }
    return HR_OK;
}

int hr_wisdom_store(const char *path, const hr_kernel *k, const hr_problem *p,
                    const hr_wisdom_entry *w)
{
    if (!path) path = hr_wisdom_default_path();
    cJSON *doc;
    if (load(path, &doc)) return HR_EUSAGE;
    if (!doc) {
        doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "format", WISDOM_FORMAT);
        cJSON_AddArrayToObject(doc, "entries");
    }
    cJSON *ents = cJSON_GetObjectItemCaseSensitive(doc, "entries");
    char key[160];
    hr_shape_class c = hr_shape_class_of(k, p);
    hr_shape_class_key(&c, key, sizeof key);

    const hr_sysinfo *si = hr_sysinfo_get();
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "class", key);
    cJSON_AddStringToObject(e, "kernel", k->name);
    cJSON_AddNumberToObject(e, "fixed_threads", w->fixed_threads);
    cJSON_AddStringToObject(e, "cpu_model", si->cpu_model);
    cJSON_AddStringToObject(e, "isa", si->isa);
    cJSON_AddNumberToObject(e, "cpus", si->cpus);
    cJSON_AddStringToObject(e, "build_id", si->build_id);
    cJSON_AddNumberToObject(e, "block_q", w->tune.block_q);
    cJSON_AddNumberToObject(e, "block_kv", w->tune.block_kv);
    cJSON_AddNumberToObject(e, "threads", w->tune.threads);
    cJSON_AddNumberToObject(e, "gflops", w->gflops);
    cJSON_AddNumberToObject(e, "default_gflops", w->default_gflops);
    char date[40];
    if (w->date[0]) snprintf(date, sizeof date, "%s", w->date);
    else hr_date_iso(date, sizeof date);
    cJSON_AddStringToObject(e, "date", date);
    char shape[96];
    hr_problem_str(p, shape, sizeof shape);
    cJSON_AddStringToObject(e, "shape", w->shape[0] ? w->shape : shape);

    int i = 0, replaced = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, ents)
    {
        if (ours(x) && !strcmp(hr_json_str(x, "class", ""), key) &&
            (int)hr_json_num(x, "fixed_threads", 0) == w->fixed_threads) {
            cJSON_ReplaceItemInArray(ents, i, e);
            replaced = 1;
            break;
        }
        i++;
    }
    if (!replaced) cJSON_AddItemToArray(ents, e);
    int st = hr_write_json_atomic(path, doc);
    cJSON_Delete(doc);
    return st;
}

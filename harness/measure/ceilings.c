/* ceilings.c — the ceilings file (written by `headroom roofline`, read by every rate's roof) and its look-ups. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ceilings.h"
#include "files.h"
#include "headroom.h"
#include "paths.h"
#include "sysinfo.h"

const char *const hr_fma_isa_names[] = {"avx512", "avx2", "sse2", "scalar", NULL};

const char *const hr_cache_names[] = {"L1", "L2", "L3", NULL};

const hr_dot_info hr_dots[HR_DOT_N] = {
    [HR_DOT_BF16] = {"avx512_bf16", "bf16_gflops", "GFLOP/s",
                     "vdpbf16ps zmm: 32 bf16 multiply-adds into fp32 = 64 FLOPs", HR_FMA_AVX512,
                     "avx512_bf16+avx512"},
    [HR_DOT_VNNI512] = {"avx512_vnni", "int8_gops", "GOP/s",
                        "vpdpbusd zmm: 64 u8 x s8 multiply-adds into int32 = 128 ops", HR_FMA_AVX512,
                        "avx512_vnni+avx512"},
    [HR_DOT_AVXVNNI] = {"avx_vnni", "int8_gops", "GOP/s",
                        "vpdpbusd ymm (VEX): 32 u8 x s8 multiply-adds into int32 = 64 ops", HR_FMA_AVX2,
                        "avx_vnni+avx2"},
    [HR_DOT_AMX] = {"amx_bf16", "bf16_gflops", "GFLOP/s",
                    "tdpbf16ps tiles: 16 x 16 x 32 bf16 multiply-adds = 16384 FLOPs", -1, NULL},
    [HR_DOT_MADDUBS] = {"avx2_maddubs", "int8_gops", "GOP/s",
                        "vpmaddubsw + vpmaddwd + vpaddd ymm: 32 u8 x s8 multiply-adds into int32 = 64 ops",
                        HR_FMA_AVX2, "avx2_maddubs+avx2"},
};

static const char *const pick_suffix[3] = {"", "_median", "_worst"};

static double picked(const hr_roof_stat *s, int pick)
{
    return pick == 0 ? s->best : pick == 1 ? s->median : s->worst;
}

static void add_stat(cJSON *o, const char *name, const hr_roof_stat *s)
{
    char key[64];
    for (int pick = 0; pick < 3; pick++) {
        snprintf(key, sizeof key, "%s%s", name, pick_suffix[pick]);
        cJSON_AddNumberToObject(o, key, picked(s, pick));
    }
}

/* Adds {key: {name: v}} to o, the object key created on first use. */
static void add_named(cJSON *o, const char *key, const char *name, double v)
{
    cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!f) f = cJSON_AddObjectToObject(o, key);
    cJSON_AddNumberToObject(f, name, v);
}

/* Adds name: {isa: v} over the measured ISAs, and the measured dots under their keys;
 * pick selects best, median or worst. */
static void add_compute(cJSON *o, const hr_ceiling_row *r, int pick)
{
    char key[64];
    snprintf(key, sizeof key, "fma_gflops%s", pick_suffix[pick]);
    cJSON_AddObjectToObject(o, key);
    for (int m = 0; m < HR_FMA_NISA; m++)
        if (r->fma[m].best > 0) add_named(o, key, hr_fma_isa_names[m], picked(&r->fma[m], pick));
    for (int i = 0; i < HR_DOT_N; i++) {
        if (r->dot[i].best <= 0) continue;
        snprintf(key, sizeof key, "%s%s", hr_dots[i].key, pick_suffix[pick]);
        add_named(o, key, hr_dots[i].name, picked(&r->dot[i], pick));
    }
}

/* Adds "cache_roofs": {level: {working_set_bytes, load_gbs..., triad_gbs...}} over the
 * measured levels (none: no key). */
static void add_cache(cJSON *o, const hr_ceiling_row *r)
{
    cJSON *cr = NULL;
    for (int l = 0; l < HR_CACHE_N; l++) {
        const hr_cache_roof *k = &r->cache[l];
        if (!(k->ws_bytes > 0)) continue;
        if (!cr) cr = cJSON_AddObjectToObject(o, "cache_roofs");
        cJSON *lv = cJSON_AddObjectToObject(cr, hr_cache_names[l]);
        cJSON_AddNumberToObject(lv, "working_set_bytes", k->ws_bytes);
        add_stat(lv, "load_gbs", &k->load);
        add_stat(lv, "triad_gbs", &k->triad);
    }
}

/* Where the cache levels come from, and the topology's sizes beside the measured ones. */
static void add_levels_head(cJSON *root, const hr_ceilings *c)
{
    bool curve = false, measured = false;
    for (int i = 0; i < c->nrows; i++) curve |= c->rows[i].ncurve > 0, measured |= c->rows[i].nlevels > 0;
    cJSON_AddStringToObject(root, "levels_source", measured ? "measured" : "topology");
    if (curve)
        cJSON_AddStringToObject(root, "bandwidth_curve_counting",
                                "per thread count: load and triad GB/s of the team (best of the repetitions) over "
                                "the team's working set, split evenly over its threads, in geometric steps; "
                                "measured_levels: the knees of the triad curve (size_bytes: the team's bytes at "
                                "the knee; GB/s: best of the level's flat part); reported_bytes: the topology's");
    const hr_sysinfo *si = hr_sysinfo_get();
    cJSON *rep = cJSON_AddObjectToObject(root, "reported_levels");
    cJSON_AddNumberToObject(rep, "L1", (double)si->l1d);
    cJSON_AddNumberToObject(rep, "L2", (double)si->l2);
    cJSON_AddNumberToObject(rep, "L3", (double)si->l3);
    cJSON_AddNumberToObject(rep, "l3_shared_threads", si->l3_shared);
    if (c->level_note[0]) cJSON_AddStringToObject(root, "level_note", c->level_note);
}

cJSON *hr_ceilings_json(const hr_ceilings *c)
{
    const char *warn[2];
    int nw = 0;
    if (c->quick) warn[nw++] = "measured with --quick: tiny sizes, not the machine's ceilings";
    if (c->level_note[0]) warn[nw++] = c->level_note;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "context", hr_context_json(warn, nw));
    cJSON_AddNumberToObject(root, "headroom_ceilings", 1);
    cJSON_AddBoolToObject(root, "quick", c->quick);
    cJSON_AddNumberToObject(root, "repetitions", c->reps);
    cJSON_AddNumberToObject(root, "min_rep_time_s", c->min_rep_time);
    cJSON_AddNumberToObject(root, "triad_bytes", c->triad_bytes);
    cJSON_AddStringToObject(root, "triad_counting",
                            "STREAM: 12 bytes per element (read b, c; write a); triad_wa_gbs "
                            "adds the write-allocate read of a: 16 bytes per element; load_gbs: a "
                            "read-only sum over the same three arrays, 4 bytes per element");
    char exp_note[128];
    snprintf(exp_note, sizeof exp_note,
             "hr_vexp of the build's vector path (%s), 2048 floats in and out of L1 per thread", hr_isa);
    cJSON_AddStringToObject(root, "exp", exp_note);
    cJSON_AddStringToObject(root, "cache_roofs_counting",
                            "per thread count, per level: each thread's working set (working_set_bytes) "
                            "sized to half the level (L3: half over the threads sharing it); load_gbs: "
                            "read-only vector sum, 4 bytes per element; triad_gbs: a = b + s*c, 12 bytes "
                            "per element; GB/s of the team; source: headroom");
    add_levels_head(root, c);
    hr_softmax_head_json(root, c);
    cJSON *dots = cJSON_AddObjectToObject(root, "dot_roofs");
    for (int i = 0; i < HR_DOT_N; i++) {
        cJSON *d = cJSON_AddObjectToObject(dots, hr_dots[i].name);
        cJSON_AddStringToObject(d, "instruction", hr_dots[i].instruction);
        cJSON_AddStringToObject(d, "counting", "2 operations per multiply-add, as FMA");
        cJSON_AddStringToObject(d, "figures", hr_dots[i].key);
        bool any = false;
        for (int k = 0; k < c->nrows; k++) any |= c->rows[k].dot[i].best > 0;
        cJSON_AddBoolToObject(d, "measured", any);
        if (!any) cJSON_AddStringToObject(d, "absent", c->dot_absent[i][0] ? c->dot_absent[i] : "not measured");
    }
    cJSON *rows = cJSON_AddArrayToObject(root, "ceilings");
    for (int i = 0; i < c->nrows; i++) {
        const hr_ceiling_row *r = &c->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "threads", r->threads);
        for (int pick = 0; pick < 3; pick++) add_compute(o, r, pick);
        add_stat(o, "triad_gbs", &r->triad);
        cJSON_AddNumberToObject(o, "triad_wa_gbs", r->triad.best * 16.0 / 12.0);
        if (r->load.best > 0) add_stat(o, "load_gbs", &r->load);
        if (r->exp.best > 0) add_stat(o, "exp_gelems", &r->exp);
        hr_softmax_row_json(o, r);
        add_cache(o, r);
        hr_curve_to_json(o, r);
        cJSON_AddItemToArray(rows, o);
    }
    return root;
}

int hr_ceilings_save(const hr_ceilings *c, const char *path)
{
    cJSON *root = hr_ceilings_json(c);
    int rc = hr_write_json_atomic(path, root);
    cJSON_Delete(root);
    return rc;
}

void hr_ceilings_default_path(char *buf, size_t len)
{
    hr_results_path("ceilings.json", buf, len);
}

int hr_ceilings_load_opt(const char *path, hr_ceilings *c, bool *have)
{
    *have = false;
    if (path) {
        int st = hr_ceilings_load(path, c);
        *have = !st;
        return st;
    }
    char def[512];
    hr_ceilings_default_path(def, sizeof def);
    *have = access(def, R_OK) == 0 && hr_ceilings_load(def, c) == HR_OK;
    return HR_OK;
}

/* Reads o[key][name] (both optional) into *dst: a number >= 0. */
static int read_named(const cJSON *o, const char *key, const char *name, double *dst,
                      const char *path, int idx)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!f) return HR_OK;
    if (!cJSON_IsObject(f)) return hr_fail("%s: ceilings[%d].%s is not an object", path, idx, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, name);
    if (!v) return HR_OK;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble))
        return hr_fail("%s: ceilings[%d].%s.%s is not a number >= 0", path, idx, key, name);
    *dst = v->valuedouble;
    return HR_OK;
}

/* Reads the FMA and dot figures (best, median, worst) of one row. */
static int read_compute(const cJSON *o, hr_ceiling_row *r, const char *path, int idx)
{
    char key[64];
    int rc = HR_OK;
    for (int pick = 0; pick < 3 && !rc; pick++) {
        snprintf(key, sizeof key, "fma_gflops%s", pick_suffix[pick]);
        for (int m = 0; m < HR_FMA_NISA && !rc; m++) {
            hr_roof_stat *st = &r->fma[m];
            rc = read_named(o, key, hr_fma_isa_names[m], pick == 0 ? &st->best : pick == 1 ? &st->median : &st->worst,
                            path, idx);
        }
        for (int i = 0; i < HR_DOT_N && !rc; i++) {
            hr_roof_stat *st = &r->dot[i];
            snprintf(key, sizeof key, "%s%s", hr_dots[i].key, pick_suffix[pick]);
            rc = read_named(o, key, hr_dots[i].name, pick == 0 ? &st->best : pick == 1 ? &st->median : &st->worst,
                            path, idx);
        }
    }
    return rc;
}

/* The dot roofs' absence: the file's reasons, or why a roof has no figure. */
static int read_dot_absent(const cJSON *root, hr_ceilings *c, const char *path)
{
    const cJSON *dots = cJSON_GetObjectItemCaseSensitive(root, "dot_roofs");
    if (dots && !cJSON_IsObject(dots)) return hr_fail("%s: \"dot_roofs\" is not an object", path);
    for (int i = 0; i < HR_DOT_N; i++) {
        bool any = false;
        for (int k = 0; k < c->nrows; k++) any |= c->rows[k].dot[i].best > 0;
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(dots, hr_dots[i].name), "absent");
        if (any) c->dot_absent[i][0] = 0;
        else if (cJSON_IsString(why) && why->valuestring[0])
            snprintf(c->dot_absent[i], sizeof c->dot_absent[i], "%s", why->valuestring);
        else
            snprintf(c->dot_absent[i], sizeof c->dot_absent[i], "%s",
                     dots ? "no figure in this ceilings file"
                          : "not in this ceilings file (written before the dot-product roofs; "
                            "headroom roofline measures them)");
    }
    return HR_OK;
}

/* Reads name, name_median, name_worst; name is required when `required`. */
static int read_stat(const cJSON *o, const char *name, hr_roof_stat *s, bool required,
                     const char *path, int idx)
{
    char key[64];
    double *dst[3] = {&s->best, &s->median, &s->worst};
    const char *suffix[3] = {"", "_median", "_worst"};
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof key, "%s%s", name, suffix[k]);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        if (!v) {
            if (k == 0 && required)
                return hr_fail("%s: ceilings[%d] has no \"%s\"", path, idx, key);
            continue;
        }
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble) ||
            (k == 0 && required && v->valuedouble <= 0))
            return hr_fail("%s: ceilings[%d].%s is not a positive number", path, idx, key);
        *dst[k] = v->valuedouble;
    }
    return HR_OK;
}

/* Reads "cache_roofs" of a row (optional: absent in files from before them). */
static int read_cache(const cJSON *o, hr_ceiling_row *r, const char *path, int idx)
{
    const cJSON *cr = cJSON_GetObjectItemCaseSensitive(o, "cache_roofs");
    if (!cr) return HR_OK;
    if (!cJSON_IsObject(cr)) return hr_fail("%s: ceilings[%d].cache_roofs is not an object", path, idx);
    int rc = HR_OK;
    for (int l = 0; l < HR_CACHE_N && !rc; l++) {
        const cJSON *lv = cJSON_GetObjectItemCaseSensitive(cr, hr_cache_names[l]);
        if (!lv) continue;
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(lv, "working_set_bytes");
        if (!cJSON_IsObject(lv) || !cJSON_IsNumber(ws) || !(ws->valuedouble > 0) || !isfinite(ws->valuedouble))
            return hr_fail("%s: ceilings[%d].cache_roofs.%s has no positive \"working_set_bytes\"", path, idx,
                           hr_cache_names[l]);
        r->cache[l].ws_bytes = ws->valuedouble;
        rc = read_stat(lv, "load_gbs", &r->cache[l].load, true, path, idx);
        if (!rc) rc = read_stat(lv, "triad_gbs", &r->cache[l].triad, true, path, idx);
    }
    return rc;
}

/* A file from before the bandwidth curve reads as it did, cache levels from the
 * topology, with one notice per process. */
static void old_file_notice(const hr_ceilings *c)
{
    static bool told;
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i].ncurve) return;
    if (told) return;
    told = true;
    fprintf(stderr, "headroom: note: %s has no bandwidth curve (written before it): cache levels are taken from "
                    "the topology; 'headroom roofline' measures them\n", c->path);
}

int hr_ceilings_load(const char *path, hr_ceilings *c)
{
    memset(c, 0, sizeof *c);
    cJSON *root = hr_read_json(path, HR_CAP_SMALL, "ceilings file");
    if (!root) {
        char why[512];
        snprintf(why, sizeof why, "%s", hr_errmsg());
        return hr_fail("%s; 'headroom roofline' measures them", why);
    }
    int rc = HR_OK;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "headroom_ceilings");
    if (!cJSON_IsNumber(ver) || ver->valueint != 1) {
        rc = hr_fail("%s: not a headroom ceilings file (no \"headroom_ceilings\": 1)", path);
        goto out;
    }
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "ceilings");
    int n = cJSON_IsArray(rows) ? cJSON_GetArraySize(rows) : 0;
    if (n < 1 || n > HR_ROOF_MAX_ROWS) {
        rc = hr_fail("%s: \"ceilings\" must be an array of 1 to %d thread counts", path,
                     HR_ROOF_MAX_ROWS);
        goto out;
    }
    for (int i = 0; i < n && rc == HR_OK; i++) {
        const cJSON *o = cJSON_GetArrayItem(rows, i);
        hr_ceiling_row *r = &c->rows[i];
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "threads");
        if (!cJSON_IsObject(o) || !cJSON_IsNumber(t) || t->valuedouble < 1 ||
            t->valuedouble > 1e6 || t->valuedouble != floor(t->valuedouble)) {
            rc = hr_fail("%s: ceilings[%d] has no integer \"threads\" >= 1", path, i);
            break;
        }
        r->threads = t->valueint;
        if (i && r->threads <= c->rows[i - 1].threads) {
            rc = hr_fail("%s: ceilings[%d]: thread counts must increase", path, i);
            break;
        }
        if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "fma_gflops"))) {
            rc = hr_fail("%s: ceilings[%d] has no \"fma_gflops\" object", path, i);
            break;
        }
        rc = read_compute(o, r, path, i);
        if (!rc) rc = read_stat(o, "triad_gbs", &r->triad, true, path, i);
        if (!rc) rc = read_stat(o, "load_gbs", &r->load, false, path, i);
        if (!rc) rc = read_stat(o, "exp_gelems", &r->exp, false, path, i);
        if (!rc) rc = hr_softmax_row_read(o, r, path, i);
        if (!rc) rc = read_cache(o, r, path, i);
        if (!rc) rc = hr_curve_from_json(o, r, path, i);
    }
    if (rc) goto out;
    c->nrows = n;
    if ((rc = read_dot_absent(root, c, path))) goto out;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(root, "quick");
    c->quick = cJSON_IsTrue(q);
    const cJSON *v;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(root, "repetitions"))) c->reps = v->valueint;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(root, "min_rep_time_s")))
        c->min_rep_time = v->valuedouble;
    if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(root, "triad_bytes")))
        c->triad_bytes = v->valuedouble;
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(root, "context");
    const cJSON *mach = cJSON_GetObjectItemCaseSensitive(ctx, "machine");
    if (cJSON_IsString(mach)) snprintf(c->machine, sizeof c->machine, "%s", mach->valuestring);
    snprintf(c->path, sizeof c->path, "%s", path);
    const cJSON *ln = cJSON_GetObjectItemCaseSensitive(root, "level_note");
    if (cJSON_IsString(ln)) snprintf(c->level_note, sizeof c->level_note, "%s", ln->valuestring);
    old_file_notice(c);
    hr_softmax_head_read(root, c);
out:
    if (rc) memset(c, 0, sizeof *c);
    cJSON_Delete(root);
    return rc;
}

/* ---- lookups and the roofline bound ------------------------------------------------ */

static const hr_ceiling_row *row_for(const hr_ceilings *c, int threads)
{
    const hr_ceiling_row *best = NULL;
    for (int i = 0; i < c->nrows; i++) {
        const hr_ceiling_row *r = &c->rows[i];
        /* rows increase, so on a tie the lower count, met first, stays */
        if (!best || abs(r->threads - threads) < abs(best->threads - threads)) best = r;
    }
    return best;
}

int hr_ceiling_threads(const hr_ceilings *c, int threads)
{
    const hr_ceiling_row *r = row_for(c, threads);
    return r ? r->threads : 0;
}

double hr_ceiling_fma(const hr_ceilings *c, int threads, const char *isa)
{
    const hr_ceiling_row *r = row_for(c, threads);
    int m = hr_choice(hr_fma_isa_names, isa);
    if (m < 0 && isa && !strcmp(isa, "generic")) m = HR_FMA_SSE2;
    return r && m >= 0 ? r->fma[m].best : 0;
}

double hr_ceiling_bw(const hr_ceilings *c, int threads)
{
    const hr_ceiling_row *r = row_for(c, threads);
    return r ? r->triad.best : 0;
}

double hr_ceiling_cache_bw(const hr_ceilings *c, int threads, int level)
{
    const hr_ceiling_row *r = row_for(c, threads);
    if (!r || level < 0 || level > HR_CACHE_N) return 0;
    if (r->nlevels && level < HR_CACHE_N) return level < r->nlevels ? r->levels[level].triad : 0;
    return level == HR_CACHE_N ? r->triad.best : r->cache[level].triad.best;
}

double hr_ceiling_cache_load(const hr_ceilings *c, int threads, int level)
{
    const hr_ceiling_row *r = row_for(c, threads);
    if (!r || level < 0 || level > HR_CACHE_N) return 0;
    if (r->nlevels && level < HR_CACHE_N) return level < r->nlevels ? r->levels[level].load : 0;
    return level == HR_CACHE_N ? r->load.best : r->cache[level].load.best;
}

int hr_cache_level_of(double ws, int threads)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    if (threads < 1) threads = 1;
    double per = ws / threads;
    if (si->l1d && per <= (double)si->l1d) return HR_CACHE_L1;
    if (si->l2 && per <= (double)si->l2) return HR_CACHE_L2;
    int share = si->l3_shared > 0 ? si->l3_shared : 1;
    double l3 = (double)si->l3 * ((threads + share - 1) / share);
    if (si->l3 && ws <= l3) return HR_CACHE_L3;
    return HR_CACHE_N;
}

const char *hr_level_name(int level)
{
    return level >= 0 && level < HR_CACHE_N ? hr_cache_names[level] : level == HR_CACHE_N ? "DRAM" : "?";
}

/* ---- the roof of a row's own type -------------------------------------------------- */

/* Whether path (lower-cased) names any of the NULL-terminated words. */
static bool names_any(const char *path, const char *const *words)
{
    for (; *words; words++)
        if (strstr(path, *words)) return true;
    return false;
}

const char *hr_roof_unit(int roof)
{
    const int dot = roof >= HR_ROOF_SERIES ? roof - HR_ROOF_SERIES : roof - HR_ROOF_DOT;
    return roof >= HR_ROOF_DOT && dot >= 0 && dot < HR_DOT_N ? hr_dots[dot].unit : "GFLOP/s";
}

int hr_roof_for_path(const char *path, const char *isa)
{
    char low[128];
    size_t n = 0;
    for (; path && path[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)path[n]);
    low[n] = 0;
    static const char *const amx[] = {"amx", NULL};
    static const char *const bf16[] = {"vdpbf16ps", "avx512-bf16", "avx512_bf16", NULL};
    static const char *const avxvnni[] = {"avx-vnni", "avx_vnni", "avxvnni", NULL};
    static const char *const vnni[] = {"vpdpbusd", "vnni", NULL};
    static const char *const maddubs[] = {"vpmaddubsw", "maddubs", NULL};
    if (names_any(low, amx)) return HR_ROOF_DOT + HR_DOT_AMX;
    /* P·V by FMA after int8 scores: the VNNI roof alone would be far too high where VNNI
     * runs several times the FMA rate, the FMA roof alone too low (perf-log 0242).
     * decode's int8 P·V ("P·V vpdpbusd", both dots int8) names no FMA: the VNNI roof.
     * decode's bf16 cache the other way round: scores by FMA, P·V by vdpbf16ps. */
    const int series = strstr(low, "fma") ? HR_ROOF_SERIES - HR_ROOF_DOT : 0;
    if (names_any(low, bf16)) return series + HR_ROOF_DOT + HR_DOT_BF16;
    if (names_any(low, maddubs)) return series + HR_ROOF_DOT + HR_DOT_MADDUBS;
    if (names_any(low, avxvnni)) return series + HR_ROOF_DOT + HR_DOT_AVXVNNI;
    if (names_any(low, vnni)) return series + HR_ROOF_DOT + HR_DOT_VNNI512;
    int m = isa ? hr_choice(hr_fma_isa_names, isa) : -1;
    return m >= 0 ? m : HR_FMA_SSE2; /* "generic" and unknown builds issue SSE2 */
}

/* The FMA roof a series roof's dot is paired with (hr_dots: the same vector width);
 * -1 for any other roof. */
static int series_fma(int roof)
{
    return roof >= HR_ROOF_SERIES && roof < HR_ROOF_SERIES + HR_DOT_N ? hr_dots[roof - HR_ROOF_SERIES].series_fma : -1;
}

const char *hr_roof_name(int roof)
{
    if (series_fma(roof) >= 0) return hr_dots[roof - HR_ROOF_SERIES].series;
    if (roof >= 0 && roof < HR_FMA_NISA) return hr_fma_isa_names[roof];
    if (roof >= HR_ROOF_DOT && roof < HR_NROOFS) return hr_dots[roof - HR_ROOF_DOT].name;
    return "?";
}

double hr_ceiling_roof(const hr_ceilings *c, int threads, int roof)
{
    const hr_ceiling_row *r = row_for(c, threads);
    if (!r) return 0;
    const int f = series_fma(roof);
    if (f >= 0) { /* half the operations at each roof */
        const double dot = r->dot[roof - HR_ROOF_SERIES].best, fma = r->fma[f].best;
        return dot > 0 && fma > 0 ? 2 / (1 / dot + 1 / fma) : 0;
    }
    if (roof >= 0 && roof < HR_FMA_NISA) return r->fma[roof].best;
    if (roof >= HR_ROOF_DOT && roof < HR_NROOFS) return r->dot[roof - HR_ROOF_DOT].best;
    return 0;
}

/* ceilings_curve.c — the bandwidth curve and the cache levels read off it, in the ceilings file, and the level a working set lives in. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ceilings.h"
#include "headroom.h"
#include "sysinfo.h"

static const hr_ceiling_row *row_of(const hr_ceilings *c, int threads)
{
    int t = hr_ceiling_threads(c, threads);
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i].threads == t) return &c->rows[i];
    return NULL;
}

int hr_ceiling_levels_measured(const hr_ceilings *c, int threads)
{
    const hr_ceiling_row *r = row_of(c, threads);
    return r && r->nlevels > 0;
}

int hr_ceiling_level_of(const hr_ceilings *c, double ws, int threads)
{
    const hr_ceiling_row *r = row_of(c, threads);
    if (!r || !r->nlevels) return hr_cache_level_of(ws, threads);
    for (int l = 0; l < r->nlevels; l++)
        if (ws <= r->levels[l].size) return l;
    return HR_CACHE_N;
}

double hr_reported_level_bytes(int level, int threads)
{
    const hr_sysinfo *si = hr_sysinfo_get();
    if (threads < 1) threads = 1;
    if (level == HR_CACHE_L1) return (double)si->l1d * threads;
    if (level == HR_CACHE_L2) return (double)si->l2 * threads;
    if (level != HR_CACHE_L3) return 0;
    int share = si->l3_shared > 0 ? si->l3_shared : 1;
    return (double)si->l3 * ((threads + share - 1) / share);
}

static void mib(char *buf, size_t len, double b)
{
    if (b >= 1048576) snprintf(buf, len, "%.3g MiB", b / 1048576);
    else snprintf(buf, len, "%.3g KiB", b / 1024);
}

int hr_ceiling_levels_check(hr_ceilings *c)
{
    int bad = 0;
    for (int i = 0; i < c->nrows; i++) {
        const hr_ceiling_row *r = &c->rows[i];
        for (int l = 0; l < r->nlevels; l++) {
            double rep = hr_reported_level_bytes(l, r->threads);
            if (!(rep > 0) || !(r->levels[l].size > rep * 2 || rep > r->levels[l].size * 2)) continue;
            char a[32], b[32], add[160];
            mib(a, sizeof a, r->levels[l].size), mib(b, sizeof b, rep);
            snprintf(add, sizeof add, "%sT%d %s measured %s, reported %s", c->level_note[0] ? "; " : "", r->threads,
                     hr_cache_names[l], a, b);
            size_t n = strlen(c->level_note);
            snprintf(c->level_note + n, sizeof c->level_note - n, "%s", add);
            bad++;
        }
    }
    return bad;
}

static cJSON *num_array(const hr_curve_point *p, int n, int field)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(field == 0 ? p[i].ws_bytes : field == 1 ? p[i].load : p[i].triad));
    return a;
}

void hr_curve_to_json(cJSON *o, const hr_ceiling_row *r)
{
    if (!r->ncurve) return;
    cJSON *cv = cJSON_AddObjectToObject(o, "bandwidth_curve");
    cJSON_AddItemToObject(cv, "working_set_bytes", num_array(r->curve, r->ncurve, 0));
    cJSON_AddItemToObject(cv, "load_gbs", num_array(r->curve, r->ncurve, 1));
    cJSON_AddItemToObject(cv, "triad_gbs", num_array(r->curve, r->ncurve, 2));
    cJSON *ml = cJSON_AddObjectToObject(o, "measured_levels");
    for (int l = 0; l < r->nlevels; l++) {
        cJSON *lv = cJSON_AddObjectToObject(ml, hr_cache_names[l]);
        cJSON_AddNumberToObject(lv, "size_bytes", r->levels[l].size);
        cJSON_AddNumberToObject(lv, "load_gbs", r->levels[l].load);
        cJSON_AddNumberToObject(lv, "triad_gbs", r->levels[l].triad);
        cJSON_AddNumberToObject(lv, "reported_bytes", hr_reported_level_bytes(l, r->threads));
    }
    if (r->beyond_gbs > 0) cJSON_AddNumberToObject(o, "beyond_gbs", r->beyond_gbs);
}

/* o[key] as an array of n numbers > 0 (n: its size, at most HR_CURVE_MAX). */
static int read_array(const cJSON *cv, const char *key, hr_curve_point *p, int *n, int field, const char *path,
                      int idx)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(cv, key);
    int m = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (m < 1 || m > HR_CURVE_MAX || (*n && m != *n))
        return hr_fail("%s: ceilings[%d].bandwidth_curve.%s must be an array of 1 to %d numbers, as long as the others",
                       path, idx, key, HR_CURVE_MAX);
    for (int i = 0; i < m; i++) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble))
            return hr_fail("%s: ceilings[%d].bandwidth_curve.%s[%d] is not a positive number", path, idx, key, i);
        double *d = field == 0 ? &p[i].ws_bytes : field == 1 ? &p[i].load : &p[i].triad;
        *d = v->valuedouble;
    }
    *n = m;
    return HR_OK;
}

static double pos_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 && isfinite(v->valuedouble) ? v->valuedouble : -1;
}

int hr_curve_from_json(const cJSON *o, hr_ceiling_row *r, const char *path, int idx)
{
    const cJSON *cv = cJSON_GetObjectItemCaseSensitive(o, "bandwidth_curve");
    if (!cv) return HR_OK;
    int n = 0, rc;
    if (!cJSON_IsObject(cv)) return hr_fail("%s: ceilings[%d].bandwidth_curve is not an object", path, idx);
    if ((rc = read_array(cv, "working_set_bytes", r->curve, &n, 0, path, idx)) ||
        (rc = read_array(cv, "load_gbs", r->curve, &n, 1, path, idx)) ||
        (rc = read_array(cv, "triad_gbs", r->curve, &n, 2, path, idx)))
        return rc;
    r->ncurve = n;
    const cJSON *ml = cJSON_GetObjectItemCaseSensitive(o, "measured_levels");
    if (ml && !cJSON_IsObject(ml)) return hr_fail("%s: ceilings[%d].measured_levels is not an object", path, idx);
    for (int l = 0; l < HR_CACHE_N; l++) {
        const cJSON *lv = cJSON_GetObjectItemCaseSensitive(ml, hr_cache_names[l]);
        if (!lv) break; /* levels are L1, L2, ... in order: the first missing ends them */
        hr_level *v = &r->levels[l];
        v->size = pos_num(lv, "size_bytes"), v->load = pos_num(lv, "load_gbs"), v->triad = pos_num(lv, "triad_gbs");
        if (!(v->size > 0) || !(v->load > 0) || !(v->triad > 0) || (l && v->size <= r->levels[l - 1].size))
            return hr_fail("%s: ceilings[%d].measured_levels.%s needs size_bytes (above the level before), load_gbs "
                           "and triad_gbs, all positive", path, idx, hr_cache_names[l]);
        r->nlevels = l + 1;
    }
    double b = pos_num(o, "beyond_gbs");
    r->beyond_gbs = b > 0 ? b : 0;
    return HR_OK;
}

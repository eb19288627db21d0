/* ceilings.c — the ceilings file (written by `headroom roofline`, read by every rate's roof) and its look-ups. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ceilings.h"
#include "files.h"
#include "headroom.h"
#include "sysinfo.h"

const char *const hr_fma_isa_names[] = {"avx512", "avx2", "sse2", "scalar", NULL};

/* Adds name: {isa: v} over the measured ISAs; pick selects best, median or worst. */
static void add_fma(cJSON *o, const char *name, const hr_ceiling_row *r, int pick)
{
    cJSON *f = cJSON_AddObjectToObject(o, name);
    for (int m = 0; m < HR_FMA_NISA; m++) {
        const hr_roof_stat *s = &r->fma[m];
        if (s->best <= 0) continue;
        cJSON_AddNumberToObject(f, hr_fma_isa_names[m], pick == 0 ? s->best : pick == 1 ? s->median : s->worst);
    }
}

static void add_stat(cJSON *o, const char *name, const hr_roof_stat *s)
{
    char key[64];
    cJSON_AddNumberToObject(o, name, s->best);
    snprintf(key, sizeof key, "%s_median", name);
    cJSON_AddNumberToObject(o, key, s->median);
    snprintf(key, sizeof key, "%s_worst", name);
    cJSON_AddNumberToObject(o, key, s->worst);
}

cJSON *hr_ceilings_json(const hr_ceilings *c)
{
    const char *warn[2];
    int nw = 0;
    if (c->quick) warn[nw++] = "measured with --quick: tiny sizes, not the machine's ceilings";
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "context", hr_context_json(warn, nw));
    cJSON_AddNumberToObject(root, "headroom_ceilings", 1);
    cJSON_AddBoolToObject(root, "quick", c->quick);
    cJSON_AddNumberToObject(root, "repetitions", c->reps);
    cJSON_AddNumberToObject(root, "min_rep_time_s", c->min_rep_time);
    cJSON_AddNumberToObject(root, "triad_bytes", c->triad_bytes);
    cJSON_AddStringToObject(root, "triad_counting",
                            "STREAM: 12 bytes per element (read b, c; write a); triad_wa_gbs "
                            "adds the write-allocate read of a: 16 bytes per element");
    char exp_note[128];
    snprintf(exp_note, sizeof exp_note,
             "hr_vexp of the build's vector path (%s), 2048 floats in and out of L1 per thread", hr_isa);
    cJSON_AddStringToObject(root, "exp", exp_note);
    cJSON *rows = cJSON_AddArrayToObject(root, "ceilings");
    for (int i = 0; i < c->nrows; i++) {
        const hr_ceiling_row *r = &c->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "threads", r->threads);
        add_fma(o, "fma_gflops", r, 0);
        add_fma(o, "fma_gflops_median", r, 1);
        add_fma(o, "fma_gflops_worst", r, 2);
        add_stat(o, "triad_gbs", &r->triad);
        cJSON_AddNumberToObject(o, "triad_wa_gbs", r->triad.best * 16.0 / 12.0);
        if (r->exp.best > 0) add_stat(o, "exp_gelems", &r->exp);
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
    snprintf(buf, len, "results/%s/ceilings.json", hr_sysinfo_get()->machine);
}

/* Reads {isa: number} into s (field picked by pick) for each known ISA name. */
static int read_fma(const cJSON *o, const char *key, hr_ceiling_row *r, int pick, const char *path,
                    int idx)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!f) return HR_OK;
    if (!cJSON_IsObject(f)) return hr_fail("%s: ceilings[%d].%s is not an object", path, idx, key);
    for (int m = 0; m < HR_FMA_NISA; m++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, hr_fma_isa_names[m]);
        if (!v) continue;
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble))
            return hr_fail("%s: ceilings[%d].%s.%s is not a number >= 0", path, idx, key,
                           hr_fma_isa_names[m]);
        double *dst = pick == 0 ? &r->fma[m].best : pick == 1 ? &r->fma[m].median : &r->fma[m].worst;
        *dst = v->valuedouble;
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

int hr_ceilings_load(const char *path, hr_ceilings *c)
{
    memset(c, 0, sizeof *c);
    size_t len = 0;
    char *text = hr_read_file(path, HR_CAP_SMALL, "ceilings file", &len);
    if (!text) {
        char why[512];
        snprintf(why, sizeof why, "%s", hr_errmsg());
        return hr_fail("%s; 'headroom roofline' measures them", why);
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    int rc = HR_OK;
    if (!root) {
        const char *e = cJSON_GetErrorPtr();
        long at = e && e >= text && e <= text + len ? (long)(e - text) : -1;
        rc = hr_fail("%s: not valid JSON (near byte %ld)", path, at);
        goto out;
    }
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
        rc = read_fma(o, "fma_gflops", r, 0, path, i);
        if (!rc) rc = read_fma(o, "fma_gflops_median", r, 1, path, i);
        if (!rc) rc = read_fma(o, "fma_gflops_worst", r, 2, path, i);
        if (!rc) rc = read_stat(o, "triad_gbs", &r->triad, true, path, i);
        if (!rc) rc = read_stat(o, "exp_gelems", &r->exp, false, path, i);
    }
    if (rc) goto out;
    c->nrows = n;
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
out:
    if (rc) memset(c, 0, sizeof *c);
    cJSON_Delete(root);
    free(text);
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


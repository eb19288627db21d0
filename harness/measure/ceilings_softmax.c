/* ceilings_softmax.c — the softmax ceilings (each kernel family's own online-softmax step, in scores/s) in the ceilings file, and the attainable rate, min of three. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ceilings.h"
#include "headroom.h"
#include "isa.h"

#define FLASH_CODE "flash_softmax.h ft_row_chunk: max, lazy-rescale test, exp2 (hr_vexp2_fin), P stored, lane sums"
#define DECODE_CODE "decode_block.h block_softmax per 64-key block: max, exp2 (hr_vexp2), sum, rescale test"
const hr_softmax_info hr_softmaxes[HR_SMX_N] = {
    [HR_SMX_FLASH_AVX512] = {"flash_avx512", "avx512", HR_SMS_FLASH, FLASH_CODE},
    [HR_SMX_FLASH_AVX2] = {"flash_avx2", "avx2", HR_SMS_FLASH, FLASH_CODE},
    [HR_SMX_FLASH_GENERIC] = {"flash_generic", "generic", HR_SMS_FLASH, FLASH_CODE},
    [HR_SMX_DECODE_AVX512] = {"decode_avx512", "avx512", HR_SMS_DECODE, DECODE_CODE},
    [HR_SMX_DECODE_AVX2] = {"decode_avx2", "avx2", HR_SMS_DECODE, DECODE_CODE},
    [HR_SMX_DECODE_GENERIC] = {"decode_generic", "generic", HR_SMS_DECODE, DECODE_CODE},
    [HR_SMX_BF16DOT] = {"bf16dot", "avx512", HR_SMS_BF16DOT,
                        "flash_bf16_exp.h exp_job: FMA into log2 units, exp2 (hr_vexp2_bf16), P rounded to bf16, sums"},
    [HR_SMX_AMX] = {"amx", "avx512", HR_SMS_AMX,
                    "flash_bf16_exp.h exp_row: the amx block softmax's exp pass, P rounded to bf16, sums"},
    [HR_SMX_F16] = {"avx512_fp16", "avx512", -1, "none: no kernel path runs AVX512-FP16"},
};

const char *const hr_bound_names[] = {"matmul", "softmax", "memory", NULL};

int hr_attainable3(double matmul_gflops, double softmax_gflops, double memory_gflops, double *att)
{
    const double v[3] = {matmul_gflops, softmax_gflops, memory_gflops};
    int least = 0;
    *att = 0;
    for (int i = 0; i < 3; i++) {
        if (!(v[i] > 0) || !isfinite(v[i])) return -1;
        if (v[i] < v[least]) least = i;
    }
    *att = v[least];
    return least;
}

int hr_softmax_for(int roof, const char *kernel, const char *isa)
{
    if (roof == HR_ROOF_DOT + HR_DOT_AMX) return HR_SMX_AMX;
    if (roof == HR_ROOF_DOT + HR_DOT_BF16) return HR_SMX_BF16DOT;
    int decode = kernel && !strcmp(kernel, "decode");
    for (int i = 0; i < HR_SMX_N; i++) {
        const hr_softmax_info *s = &hr_softmaxes[i];
        if (s->step == (decode ? HR_SMS_DECODE : HR_SMS_FLASH) && isa && !strcmp(s->level, isa)) return i;
    }
    return -1;
}

double hr_ceiling_softmax(const hr_ceilings *c, int threads, int i)
{
    if (i < 0 || i >= HR_SMX_N) return 0;
    int t = hr_ceiling_threads(c, threads);
    for (int k = 0; k < c->nrows; k++)
        if (c->rows[k].threads == t) return c->rows[k].softmax[i].best;
    return 0;
}

static const char *const suffix[3] = {"", "_median", "_worst"};

void hr_softmax_head_json(cJSON *root, const hr_ceilings *c)
{
    cJSON *h = cJSON_AddObjectToObject(root, "softmax_ceilings");
    cJSON_AddStringToObject(h, "counting", "Gscores/s of the team: scores through the step per second, "
                                           "2048 scores a thread resident in L1, the running max steady");
    for (int i = 0; i < HR_SMX_N; i++) {
        cJSON *d = cJSON_AddObjectToObject(h, hr_softmaxes[i].name);
        cJSON_AddStringToObject(d, "level", hr_softmaxes[i].level);
        cJSON_AddStringToObject(d, "code", hr_softmaxes[i].code);
        bool any = false;
        for (int k = 0; k < c->nrows; k++) any |= c->rows[k].softmax[i].best > 0;
        cJSON_AddBoolToObject(d, "measured", any);
        if (!any)
            cJSON_AddStringToObject(d, "absent", c->softmax_absent[i][0] ? c->softmax_absent[i] : "not measured");
    }
}

void hr_softmax_row_json(cJSON *o, const hr_ceiling_row *r)
{
    char key[48];
    for (int pick = 0; pick < 3; pick++) {
        snprintf(key, sizeof key, "softmax_gscores%s", suffix[pick]);
        cJSON *f = cJSON_AddObjectToObject(o, key);
        for (int i = 0; i < HR_SMX_N; i++) {
            const hr_roof_stat *s = &r->softmax[i];
            if (s->best > 0)
                cJSON_AddNumberToObject(f, hr_softmaxes[i].name, pick == 0 ? s->best : pick == 1 ? s->median : s->worst);
        }
    }
}

int hr_softmax_row_read(const cJSON *o, hr_ceiling_row *r, const char *path, int idx)
{
    char key[48];
    for (int pick = 0; pick < 3; pick++) {
        snprintf(key, sizeof key, "softmax_gscores%s", suffix[pick]);
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
        if (!f) continue;
        if (!cJSON_IsObject(f)) return hr_fail("%s: ceilings[%d].%s is not an object", path, idx, key);
        for (int i = 0; i < HR_SMX_N; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, hr_softmaxes[i].name);
            if (!v) continue;
            if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble))
                return hr_fail("%s: ceilings[%d].%s.%s is not a number >= 0", path, idx, key, hr_softmaxes[i].name);
            hr_roof_stat *s = &r->softmax[i];
            *(pick == 0 ? &s->best : pick == 1 ? &s->median : &s->worst) = v->valuedouble;
        }
    }
    return HR_OK;
}

/* Records which softmax ceilings the file has; a file from before them gives its rows no
 * attainable_path_gflops (hr_softmax_tell_missing says so once). */
void hr_softmax_head_read(const cJSON *root, hr_ceilings *c)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "softmax_ceilings");
    c->softmax_in_file = cJSON_IsObject(h);
    for (int i = 0; i < HR_SMX_N; i++) {
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h, hr_softmaxes[i].name), "absent");
        if (cJSON_IsString(why)) snprintf(c->softmax_absent[i], sizeof c->softmax_absent[i], "%s", why->valuestring);
        else if (!c->softmax_in_file)
            snprintf(c->softmax_absent[i], sizeof c->softmax_absent[i], "not in this ceilings file");
    }
}

/* One notice per process, at the first row that misses its attainable figure, so a command
 * that fails before it measures still prints only its error line. */
void hr_softmax_tell_missing(const hr_ceilings *c)
{
    static bool told;
    if (c->softmax_in_file || told) return;
    told = true;
    fprintf(stderr, "headroom: note: %s has no softmax ceilings (written before them): rows get no attainable_path_gflops "
                    "or bound_by; 'headroom roofline' measures them\n", c->path[0] ? c->path : "the ceilings file");
}

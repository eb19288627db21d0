/* cmd_kvcache.c — `headroom kvcache`: KV-cache memory of model presets by context length, precision and MHA vs GQA/MQA. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "counts.h"
#include "headroom.h"
#include "models.h"

static const char *const formats[] = {"table", "csv", "json", NULL};

/* The precisions shown: fp32, fp16/bf16 (same size), int8 (scales not counted). */
static const struct {
    const char *name, *key;
    double bytes;
} dtypes[] = {{"fp32", "fp32", 4}, {"fp16/bf16", "fp16", 2}, {"int8", "int8", 1}};
#define NDT 3

#define MAX_CONTEXTS 64

/* Parses a comma list of token counts, each an integer with an optional binary K or M
 * suffix ("1K,4096,128K"). HR_OK or HR_EUSAGE naming --context. */
static int parse_contexts(const char *s, long *out, int max, int *n)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno) goto bad;
        if (*end == 'K' || *end == 'k') v *= 1024, end++;
        else if (*end == 'M' || *end == 'm') v *= 1048576, end++;
        if (v < 1 || v > HR_MAX_SEQ)
            return hr_fail("--context: token counts must be in [1, %d], got '%s'", HR_MAX_SEQ, s);
        if (*n >= max) return hr_fail("--context: at most %d lengths, got '%s'", max, s);
        out[(*n)++] = v;
        p = end;
        if (*p == ',' && p[1]) p++;
        else if (*p) goto bad;
    }
    if (*n) return HR_OK;
bad:
    return hr_fail("--context: expected a list of token counts like 1K,4096,128K, got '%s'", s);
}

/* "18.00 GiB", "512.0 MiB", "96.0 KiB": binary units, 4 significant digits or so. */
static void human(double b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) b /= 1024, u++;
    if (u == 0) snprintf(buf, len, "%.0f B", b);
    else snprintf(buf, len, b >= 100 ? "%.1f %s" : "%.2f %s", b, unit[u]);
}

static const char *attn_kind(const hr_model *m)
{
    return m->kv_heads == m->heads ? "MHA" : m->kv_heads == 1 ? "MQA" : "GQA";
}

static void print_table(const hr_model *const *ms, int nm, const long *ctx, int nc, int batch)
{
    for (int i = 0; i < nm; i++) {
        const hr_model *m = ms[i];
        char ctxs[48] = "";
        if (m->context) snprintf(ctxs, sizeof ctxs, ", context %ld", m->context);
        printf("%s%s: %d layers, d_model %d, Hq %d, Hkv %d (%s), d_head %d%s, batch %d\n",
               i ? "\n" : "", m->name, m->layers, m->d_model, m->heads, m->kv_heads,
               attn_kind(m), m->d_head, ctxs, batch);
        printf("  %9s  %11s  %11s  %11s  %13s  %7s\n", "tokens", "fp32", "fp16/bf16", "int8",
               "MHA fp16", "saving");
        bool beyond = false;
        for (int c = 0; c < nc; c++) {
            char cell[NDT][32], mha[32];
            for (int t = 0; t < NDT; t++)
                human(hr_kv_cache_bytes(m->layers, batch, m->kv_heads, m->d_head, ctx[c],
                                        dtypes[t].bytes),
                      cell[t], sizeof cell[t]);
            human(hr_kv_cache_bytes(m->layers, batch, m->heads, m->d_head, ctx[c], 2), mha,
                  sizeof mha);
            bool over = m->context && ctx[c] > m->context;
            beyond |= over;
            printf("  %8ld%s  %11s  %11s  %11s  %13s  %6.1fx\n", ctx[c], over ? "*" : " ",
                   cell[0], cell[1], cell[2], mha, (double)m->heads / m->kv_heads);
        }
        if (beyond) printf("  * beyond the model's published context (%ld tokens)\n", m->context);
    }
    printf("\nKV-cache bytes = 2 (K and V) x layers x batch x Hkv x d_head x tokens x bytes per "
           "element;\nMHA fp16 = the same model with Hkv = Hq; saving = Hq / Hkv. int8 excludes "
           "quantization scales.\n");
}

static void print_csv(const hr_model *const *ms, int nm, const long *ctx, int nc, int batch)
{
    printf("model,attention,layers,d_model,heads,kv_heads,d_head,model_context,batch,tokens,"
           "bytes_fp32,bytes_fp16,bytes_int8,mha_bytes_fp32,mha_bytes_fp16,mha_bytes_int8,"
           "saving,beyond_context\n");
    for (int i = 0; i < nm; i++) {
        const hr_model *m = ms[i];
        for (int c = 0; c < nc; c++) {
            printf("%s,%s,%d,%d,%d,%d,%d,%ld,%d,%ld", m->name, attn_kind(m), m->layers,
                   m->d_model, m->heads, m->kv_heads, m->d_head, m->context, batch, ctx[c]);
            for (int t = 0; t < NDT; t++)
                printf(",%.0f", hr_kv_cache_bytes(m->layers, batch, m->kv_heads, m->d_head,
                                                  ctx[c], dtypes[t].bytes));
            for (int t = 0; t < NDT; t++)
                printf(",%.0f", hr_kv_cache_bytes(m->layers, batch, m->heads, m->d_head,
                                                  ctx[c], dtypes[t].bytes));
            printf(",%g,%d\n", (double)m->heads / m->kv_heads,
                   m->context && ctx[c] > m->context);
        }
    }
}

static int print_json(const hr_model *const *ms, int nm, const long *ctx, int nc, int batch)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "formula",
                            "2 * layers * batch * kv_heads * d_head * tokens * bytes_per_element");
    cJSON_AddNumberToObject(root, "batch", batch);
    cJSON *arr = cJSON_AddArrayToObject(root, "models");
    for (int i = 0; i < nm; i++) {
        const hr_model *m = ms[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", m->name);
        cJSON_AddStringToObject(o, "attention", attn_kind(m));
        cJSON_AddNumberToObject(o, "layers", m->layers);
        cJSON_AddNumberToObject(o, "d_model", m->d_model);
        cJSON_AddNumberToObject(o, "heads", m->heads);
        cJSON_AddNumberToObject(o, "kv_heads", m->kv_heads);
        cJSON_AddNumberToObject(o, "d_head", m->d_head);
        if (m->context) cJSON_AddNumberToObject(o, "context", (double)m->context);
        cJSON_AddNumberToObject(o, "saving", (double)m->heads / m->kv_heads);
        cJSON *rows = cJSON_AddArrayToObject(o, "rows");
        for (int c = 0; c < nc; c++) {
            cJSON *r = cJSON_CreateObject();
            cJSON_AddNumberToObject(r, "tokens", (double)ctx[c]);
            cJSON *b = cJSON_AddObjectToObject(r, "bytes");
            cJSON *mb = cJSON_AddObjectToObject(r, "mha_bytes");
            for (int t = 0; t < NDT; t++) {
                cJSON_AddNumberToObject(b, dtypes[t].key,
                                        hr_kv_cache_bytes(m->layers, batch, m->kv_heads,
                                                          m->d_head, ctx[c], dtypes[t].bytes));
                cJSON_AddNumberToObject(mb, dtypes[t].key,
                                        hr_kv_cache_bytes(m->layers, batch, m->heads, m->d_head,
                                                          ctx[c], dtypes[t].bytes));
            }
            cJSON_AddBoolToObject(r, "beyond_context", m->context && ctx[c] > m->context);
            cJSON_AddItemToArray(rows, r);
        }
        cJSON_AddItemToArray(arr, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return hr_fail("out of memory writing JSON");
    printf("%s\n", text);
    free(text);
    return HR_OK;
}

int cmd_kvcache(int argc, char **argv)
{
    const char *model = "all", *models_flag = NULL, *context = "1K,2K,4K,8K,16K,32K,64K,128K";
    int batch = 1;
    hr_format format = HR_FMT_TABLE;
    const hr_opt opts[] = {
        {"--model", HR_OPT_STR, &model, 0, 0, NULL, "NAME|all", "a preset from the models file (all)"},
        {"--context", HR_OPT_STR, &context, 0, 0, NULL, "LIST",
         "token counts, K/M suffixes binary (1K,2K,4K,8K,16K,32K,64K,128K)"},
        {"--batch", HR_OPT_INT, &batch, 1, HR_MAX_BATCH, NULL, "B", "sequences in the batch (1)"},
        {"--models", HR_OPT_STR, &models_flag, 0, 0, NULL, "FILE",
         "model presets (configs/model-presets.ini)"},
        HR_FORMAT_OPT(&format, formats),
        {NULL},
    };
    const char *syn = "kvcache [--model NAME|all] [--context LIST] [--batch B] [--format table|csv|json]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st < 0) return HR_OK;
    if (st) goto err;
    long ctx[MAX_CONTEXTS];
    int nc = 0;
    if ((st = parse_contexts(context, ctx, MAX_CONTEXTS, &nc))) goto err;
    hr_models ms;
    if ((st = hr_models_open(models_flag, &ms))) goto err;
    const hr_model **sel = malloc((size_t)ms.n * sizeof *sel);
    int nm = 0;
    if (!sel) {
        st = hr_fail("out of memory");
    } else if (!strcmp(model, "all")) {
        for (int i = 0; i < ms.n; i++) sel[nm++] = &ms.v[i];
    } else if ((sel[0] = hr_models_find(&ms, model))) {
        nm = 1;
    } else {
        char names[512] = "";
        size_t len = 0;
        for (int i = 0; i < ms.n && len + 70 < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                    ms.v[i].name);
        st = hr_fail("--model: unknown model '%s' (known: %s, all)", model, names);
    }
    if (!st) {
        if (format == HR_FMT_TABLE) print_table(sel, nm, ctx, nc, batch);
        else if (format == HR_FMT_CSV) print_csv(sel, nm, ctx, nc, batch);
        else st = print_json(sel, nm, ctx, nc, batch);
    }
    free(sel);
    hr_models_free(&ms);
    if (!st) return HR_OK;
err:
    fprintf(stderr, "headroom kvcache: %s\n", hr_errmsg());
    return st;
}

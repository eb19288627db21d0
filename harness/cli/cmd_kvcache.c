/* cmd_kvcache.c — `headroom kvcache`: KV-cache memory of model presets by context length, stored type (f32, f16, bf16, q8_0, q4_0; scales included) and MHA vs GQA/MQA. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "files.h"
#include "headroom.h"
#include "kvcache.h"
#include "layer.h"
#include "models.h"

static const char *const formats[] = {"table", "csv", "json", NULL};

/* The stored types shown, widest first: every type a KV cache can hold (headroom.h). */
static const hr_dtype kv_types[] = {HR_F32, HR_F16, HR_BF16, HR_Q8_0, HR_Q4_0};
#define NDT ((int)(sizeof kv_types / sizeof kv_types[0]))

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

/* Layers of m with a sliding window (hr_layer_window: 0, every, 2 every, ...). */
static int windowed_layers(const hr_model *m)
{
    int n = 0;
    for (int l = 0; l < m->layers; l++) n += hr_layer_window(m->window, m->window_every, l) > 0;
    return n;
}

/* Bytes of m's cache at `tokens` in type t with kv_heads heads (-1: t cannot store d_head).
 * A sliding-window layer's cache holds its last W tokens (a rolling cache), so those
 * layers count min(W, tokens); the others count every token. */
static double kv_bytes(const hr_model *m, int kv_heads, int batch, long tokens, hr_dtype t)
{
    const int nw = windowed_layers(m);
    const long wt = nw && m->window < tokens ? m->window : tokens;
    const double full = hr_kv_bytes_of(m->layers - nw, batch, kv_heads, m->d_head, tokens, t),
                 win = hr_kv_bytes_of(nw, batch, kv_heads, m->d_head, wt, t);
    return full < 0 || win < 0 ? -1 : full + win;
}

static void print_table(const hr_model *const *ms, int nm, const long *ctx, int nc, int batch)
{
    bool blockless = false;
    for (int i = 0; i < nm; i++) {
        const hr_model *m = ms[i];
        char ctxs[48] = "";
        if (m->context) snprintf(ctxs, sizeof ctxs, ", context %ld", m->context);
        printf("%s%s: %d layers, d_model %d, Hq %d, Hkv %d (%s), d_head %d%s, batch %d\n",
               i ? "\n" : "", m->name, m->layers, m->d_model, m->heads, m->kv_heads,
               attn_kind(m), m->d_head, ctxs, batch);
        if (m->window)
            printf("  sliding window %d on %d of %d layers: those hold min(%d, tokens)\n", m->window,
                   windowed_layers(m), m->layers, m->window);
        printf("  %9s", "tokens");
        for (int t = 0; t < NDT; t++) printf("  %10s", hr_dtype_names[kv_types[t]]);
        printf("  %11s  %7s\n", "MHA f16", "saving");
        bool beyond = false;
        for (int c = 0; c < nc; c++) {
            bool over = m->context && ctx[c] > m->context;
            beyond |= over;
            printf("  %8ld%s", ctx[c], over ? "*" : " ");
            for (int t = 0; t < NDT; t++) {
                char cell[32] = "-";
                double b = kv_bytes(m, m->kv_heads, batch, ctx[c], kv_types[t]);
                if (b >= 0) human(b, cell, sizeof cell);
                else blockless = true;
                printf("  %10s", cell);
            }
            char mha[32];
            human(kv_bytes(m, m->heads, batch, ctx[c], HR_F16), mha, sizeof mha);
            printf("  %11s  %6.1fx\n", mha, (double)m->heads / m->kv_heads);
        }
        if (beyond) printf("  * beyond the model's published context (%ld tokens)\n", m->context);
    }
    printf("\nKV-cache bytes = 2 (K and V) x layers x batch x Hkv x tokens x d_head x bytes per value\n"
           "(a sliding-window layer: min(window, tokens) tokens),\n"
           "scales included: f32 4, f16 and bf16 2, q8_0 1.0625 (34 bytes per block of 32 values:\n"
           "32 int8 and an fp16 scale), q4_0 0.5625 (18 per 32: 32 nibbles and an fp16 scale),\n"
           "llama.cpp's block formats. MHA f16 = the same model with Hkv = Hq; saving = Hq / Hkv.\n");
    if (blockless) printf("-: q8_0 and q4_0 need d_head a multiple of 32 (their block along d).\n");
}

/* The bytes of m at ctx in every type, as CSV fields (empty: the type cannot store d_head). */
static void csv_bytes(const hr_model *m, int kv_heads, int batch, long tokens)
{
    for (int t = 0; t < NDT; t++) {
        double b = kv_bytes(m, kv_heads, batch, tokens, kv_types[t]);
        if (b >= 0) printf(",%.0f", b);
        else printf(",");
    }
}

static void print_csv(const hr_model *const *ms, int nm, const long *ctx, int nc, int batch)
{
    printf("model,attention,layers,d_model,heads,kv_heads,d_head,model_context,batch,tokens");
    for (int t = 0; t < NDT; t++) printf(",bytes_%s", hr_dtype_names[kv_types[t]]);
    for (int t = 0; t < NDT; t++) printf(",mha_bytes_%s", hr_dtype_names[kv_types[t]]);
    printf(",saving,beyond_context\n");
    for (int i = 0; i < nm; i++) {
        const hr_model *m = ms[i];
        for (int c = 0; c < nc; c++) {
            printf("%s,%s,%d,%d,%d,%d,%d,%ld,%d,%ld", m->name, attn_kind(m), m->layers,
                   m->d_model, m->heads, m->kv_heads, m->d_head, m->context, batch, ctx[c]);
            csv_bytes(m, m->kv_heads, batch, ctx[c]);
            csv_bytes(m, m->heads, batch, ctx[c]);
            printf(",%g,%d\n", (double)m->heads / m->kv_heads,
                   m->context && ctx[c] > m->context);
        }
    }
}

/* {type: bytes} of m at tokens, null where the type cannot store d_head. */
static void json_bytes(cJSON *o, const char *key, const hr_model *m, int kv_heads, int batch, long tokens)
{
    cJSON *b = cJSON_AddObjectToObject(o, key);
    for (int t = 0; t < NDT; t++) {
        double v = kv_bytes(m, kv_heads, batch, tokens, kv_types[t]);
        if (v >= 0) cJSON_AddNumberToObject(b, hr_dtype_names[kv_types[t]], v);
        else cJSON_AddNullToObject(b, hr_dtype_names[kv_types[t]]);
    }
}

static int print_json(const hr_model *const *ms, int nm, const long *ctx, int nc, int batch)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "formula",
                            "2 * layers * batch * kv_heads * tokens * bytes of a row of d_head "
                            "values (scales included); a sliding-window layer counts min(window, tokens)");
    cJSON *bpv = cJSON_AddObjectToObject(root, "bytes_per_value");
    for (int t = 0; t < NDT; t++) cJSON_AddNumberToObject(bpv, hr_dtype_names[kv_types[t]], hr_dtype_bytes(kv_types[t]));
    cJSON_AddStringToObject(root, "blocks", "q8_0, q4_0: llama.cpp's blocks of 32 values along d_head, "
                                            "one fp16 scale each; null where d_head is not a multiple of 32");
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
        if (m->window) { /* those layers' caches hold min(window, tokens) */
            cJSON_AddNumberToObject(o, "window", m->window);
            cJSON_AddNumberToObject(o, "windowed_layers", windowed_layers(m));
        }
        cJSON_AddNumberToObject(o, "saving", (double)m->heads / m->kv_heads);
        cJSON *rows = cJSON_AddArrayToObject(o, "rows");
        for (int c = 0; c < nc; c++) {
            cJSON *r = cJSON_CreateObject();
            cJSON_AddNumberToObject(r, "tokens", (double)ctx[c]);
            json_bytes(r, "bytes", m, m->kv_heads, batch, ctx[c]);
            json_bytes(r, "mha_bytes", m, m->heads, batch, ctx[c]);
            cJSON_AddBoolToObject(r, "beyond_context", m->context && ctx[c] > m->context);
            cJSON_AddItemToArray(rows, r);
        }
        cJSON_AddItemToArray(arr, o);
    }
    char *text = hr_json_text(root, 1);
    cJSON_Delete(root);
    if (!text) return hr_fail("out of memory writing JSON");
    printf("%s\n", text);
    free(text);
    return HR_OK;
}

/* ---- the paged model (--page-size): allocated against used bytes of a mixed batch ---- */

#define MAX_PAGES 16

/* Parses --page-size's comma list: each a power of two in [HR_PAGE_MIN, HR_PAGE_MAX]. */
static int parse_pages(const char *s, int *out, int *n)
{
    *n = 0;
    for (const char *p = s; *p;) {
        char *end;
        errno = 0;
        const long v = strtol(p, &end, 10);
        if (end == p || errno || (*end && *end != ',') || (*end == ',' && !end[1]) || *n >= MAX_PAGES)
            return hr_fail("--page-size: expected a list of up to %d page sizes like 16,64,256, got '%s'", MAX_PAGES, s);
        const int st = hr_page_size_check(v);
        if (st) return st;
        out[(*n)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return *n ? HR_OK : hr_fail("--page-size: expected a list of page sizes like 16,64,256, got ''");
}

/* One line of the model: page 0 is the contiguous cache (every sequence at the longest). */
typedef struct {
    int page;
    double blocks, used, alloc; /* blocks (paged), tokens used and allocated per head */
} paged_row;

static paged_row paged_of(const long *len, int n, int page)
{
    paged_row r = {page, page > 0 ? hr_kv_alloc_tokens(len, n, page) / page : 0, 0, hr_kv_alloc_tokens(len, n, page)};
    for (int i = 0; i < n; i++) r.used += (double)len[i];
    return r;
}

/* The batch: every --context length --batch times. */
static long *batch_lengths(const long *ctx, int nc, int batch, int *n)
{
    long *len = malloc(sizeof(long) * (size_t)nc * (size_t)batch);
    *n = 0;
    if (len)
        for (int i = 0; i < nc; i++)
            for (int b = 0; b < batch; b++) len[(*n)++] = ctx[i];
    return len;
}

static int print_paged(const hr_model *const *ms, int nm, const long *ctx, int nc, int batch, const int *pages,
                       int np, hr_dtype t, hr_format format)
{
    int n;
    long *len = batch_lengths(ctx, nc, batch, &n);
    if (!len) return hr_fail("out of memory");
    cJSON *root = format == HR_FMT_JSON ? cJSON_CreateObject() : NULL, *jm = root ? cJSON_AddArrayToObject(root, "models") : NULL;
    if (format == HR_FMT_CSV)
        printf("model,kv_dtype,sequences,page_size,blocks,used_tokens,allocated_tokens,used_bytes,allocated_bytes,"
               "waste_bytes,waste_fraction\n");
    for (int i = 0; i < nm; i++) {
        const hr_model *m = ms[i];
        const double tok = hr_kv_bytes_of(m->layers, 1, m->kv_heads, m->d_head, 1, t); /* bytes a token, all layers */
        if (tok < 0) continue; /* t cannot store d_head: no bytes to show */
        if (format == HR_FMT_TABLE)
            printf("%s%s: %d layers, Hkv %d, d_head %d, %s; a batch of %d sequences, %.0f tokens\n"
                   "page       blocks      used     allocated       waste  waste%%\n",
                   i ? "\n" : "", m->name, m->layers, m->kv_heads, m->d_head, hr_dtype_names[t], n,
                   paged_of(len, n, 0).used);
        cJSON *mo = jm ? cJSON_CreateObject() : NULL, *rows = NULL;
        if (mo) {
            cJSON_AddItemToArray(jm, mo);
            cJSON_AddStringToObject(mo, "model", m->name);
            cJSON_AddStringToObject(mo, "kv_dtype", hr_dtype_names[t]);
            cJSON_AddNumberToObject(mo, "sequences", n);
            rows = cJSON_AddArrayToObject(mo, "pages");
        }
        for (int k = -1; k < np; k++) {
            const paged_row r = paged_of(len, n, k < 0 ? 0 : pages[k]);
            const double ub = r.used * tok, ab = r.alloc * tok, frac = ab > 0 ? (ab - ub) / ab : 0;
            if (format == HR_FMT_TABLE) {
                char u[24], a[24], w[24], pg[16] = "contig", bl[24] = "-";
                human(ub, u, sizeof u), human(ab, a, sizeof a), human(ab - ub, w, sizeof w);
                if (r.page) snprintf(pg, sizeof pg, "%d", r.page), snprintf(bl, sizeof bl, "%.0f", r.blocks);
                printf("%-6s %10s %10s %13s %11s %6.2f%%\n", pg, bl, u, a, w, 100 * frac);
            } else if (format == HR_FMT_CSV) {
                printf("%s,%s,%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.6f\n", m->name, hr_dtype_names[t], n, r.page,
                       r.blocks, r.used, r.alloc, ub, ab, ab - ub, frac);
            } else if (rows) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddItemToArray(rows, o);
                cJSON_AddNumberToObject(o, "page_size", r.page);
                cJSON_AddNumberToObject(o, "blocks", r.blocks);
                cJSON_AddNumberToObject(o, "used_bytes", ub);
                cJSON_AddNumberToObject(o, "allocated_bytes", ab);
                cJSON_AddNumberToObject(o, "waste_fraction", frac);
            }
        }
    }
    if (format == HR_FMT_TABLE)
        printf("\ncontig: each sequence at the batch's longest; a page of P tokens wastes at most P - 1 a sequence\n");
    free(len);
    if (!root) return HR_OK;
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
    const char *page_list = NULL;
    int batch = 1, kv_dtype = HR_F16;
    hr_format format = HR_FMT_TABLE;
    const hr_opt opts[] = {
        {"--model", HR_OPT_STR, &model, 0, 0, NULL, "NAME|all", "a preset from the models file (all)"},
        {"--context", HR_OPT_STR, &context, 0, 0, NULL, "LIST",
         "token counts, K/M suffixes binary (1K,2K,4K,8K,16K,32K,64K,128K)"},
        {"--batch", HR_OPT_INT, &batch, 1, HR_MAX_BATCH, NULL, "B", "sequences in the batch (1)"},
        {"--models", HR_OPT_STR, &models_flag, 0, 0, NULL, "FILE",
         "model presets (configs/model-presets.ini)"},
        {"--page-size", HR_OPT_STR, &page_list, 0, 0, NULL, "LIST",
         "paged model: --context lists the batch's sequence lengths; allocated against used bytes per page size"},
        {"--kv-dtype", HR_OPT_ENUM, &kv_dtype, 0, 0, hr_dtype_names, NULL, "the paged model's stored type (f16)"},
        HR_FORMAT_OPT(&format, formats),
        {NULL},
    };
    const char *syn = "kvcache [--model NAME|all] [--context LIST] [--batch B] [--page-size LIST [--kv-dtype T]] "
                      "[--format table|csv|json]";
    int st = hr_parse(argc, argv, opts, syn, NULL, 0, NULL);
    if (st) goto err; /* -1 after --help: hr_cmd_status returns HR_OK */
    long ctx[MAX_CONTEXTS];
    int nc = 0;
    if ((st = parse_contexts(context, ctx, MAX_CONTEXTS, &nc))) goto err;
    int pages[MAX_PAGES], np = 0;
    if (page_list && (st = parse_pages(page_list, pages, &np))) goto err;
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
        if (np) st = print_paged(sel, nm, ctx, nc, batch, pages, np, (hr_dtype)kv_dtype, format);
        else if (format == HR_FMT_TABLE) print_table(sel, nm, ctx, nc, batch);
        else if (format == HR_FMT_CSV) print_csv(sel, nm, ctx, nc, batch);
        else st = print_json(sel, nm, ctx, nc, batch);
    }
    free(sel);
    hr_models_free(&ms);
err:
    return hr_cmd_status("kvcache", st);
}

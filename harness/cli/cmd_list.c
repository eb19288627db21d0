/* cmd_list.c — `headroom list`: the kernel registry as a table or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "files.h"
#include "headroom.h"
#include "isa.h"

static const char *const formats[] = {"table", "json", NULL};
static const char *const traffic_names[] = {"scores", "kv-per-head", "kv-per-group"};
static const struct {
    unsigned cap;
    const char *name;
} caps[] = {{HR_CAP_CAUSAL, "causal"},     {HR_CAP_GQA, "gqa"},
            {HR_CAP_DECODE, "decode"},     {HR_CAP_THREADED, "threaded"},
            {HR_CAP_BLOCK_Q, "block_q"},   {HR_CAP_BLOCK_KV, "block_kv"},
            {HR_CAP_WINDOW, "window"},     {HR_CAP_SOFTCAP, "softcap"},
            {HR_CAP_ALIBI, "alibi"},       {HR_CAP_PAGED, "paged"}};
#define NCAPS (sizeof caps / sizeof caps[0])

/* A kernel's capabilities as "causal,threaded,..." in buf (CAPS_TEXT bytes: every name
 * with its comma fits), "-" for none. */
#define CAPS_TEXT 128
static const char *caps_text(const hr_kernel *k, char *buf)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < NCAPS; j++)
        if (k->caps & caps[j].cap) n += (size_t)snprintf(buf + n, CAPS_TEXT - n, "%s%s", n ? "," : "", caps[j].name);
    return buf[0] ? buf : "-";
}

/* The types a kernel accepts as "f32,bf16" (dtypes) and its kv_dtypes. */
static void types_str(unsigned mask, char *buf, size_t len)
{
    buf[0] = 0;
    for (int t = 0; t < HR_NDTYPES; t++)
        if ((mask ? mask : 1u << HR_F32) >> t & 1) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, "%s%s", n ? "," : "", hr_dtype_names[t]);
        }
}

/* Calls f for every (dtype, kv_dtype) combination k declares with the problem that
 * stands for it (B1 H8 N512 d128: d a multiple of every block; Nq 1 where the kernel
 * refuses 512 query rows, as decode does) and its path here. */
static void each_type(const hr_kernel *k, void (*f)(void *, const hr_problem *, const char *, const char *), void *ctx)
{
    const unsigned dts = k->dtypes ? k->dtypes : 1u << HR_F32, kvs = k->kv_dtypes ? k->kv_dtypes : 1u << HR_F32;
    for (int dt = 0; dt < HR_NDTYPES; dt++)
        for (int kt = 0; kt < HR_NDTYPES; kt++) {
            if (!(dts >> dt & 1) || !(kvs >> kt & 1)) continue;
            hr_problem p = {1, 8, 8, 512, 512, 128, false, 0, (hr_dtype)dt, (hr_dtype)kt, 0, 0, 0, 0};
            char name[32];
            if (dt == HR_F32 && kt == HR_F32) snprintf(name, sizeof name, "f32");
            else if (dt == kt) snprintf(name, sizeof name, "%s", hr_dtype_names[dt]);
            else snprintf(name, sizeof name, "%s/kv=%s", hr_dtype_names[dt], hr_dtype_names[kt]);
            const char *why = hr_kernel_why_not(k, &p);
            if (why) { /* a decode kernel: one query row stands for it */
                p.seq_q = 1;
                why = hr_kernel_why_not(k, &p);
            }
            char path[512];
            const hr_tune t = hr_kernel_tune(k, &p, &(hr_tune){0});
            /* with the tiles run would hand it */
            f(ctx, &p, name, why ? why : hr_kernel_path_kv(k, &p, hr_kernel_kv_tile(k, &p, &t), path, sizeof path));
        }
}

static void json_path(void *ctx, const hr_problem *p, const char *name, const char *path)
{
    (void)p;
    cJSON_AddStringToObject(ctx, name, path);
}

static void text_path(void *ctx, const hr_problem *p, const char *name, const char *path)
{
    (void)p;
    printf("%-8s   %-18s %s\n", "", name, path);
}

int cmd_list(int argc, char **argv)
{
    hr_format format = HR_FMT_TABLE;
    const hr_opt opts[] = {
        HR_FORMAT_OPT(&format, formats),
        HR_PLUGIN_OPT,
        {NULL},
    };
    int st = hr_parse(argc, argv, opts, "list [--format table|json] [--plugin FILE.so]", NULL, 0, NULL);
    if (st) return hr_cmd_status("list", st);
    if (format == HR_FMT_JSON) {
        cJSON *arr = cJSON_CreateArray();
        const hr_kernel *k;
        for (int i = 0; (k = hr_kernel_at(i)); i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", k->name);
            cJSON_AddStringToObject(o, "summary", k->summary);
            cJSON_AddStringToObject(o, "traffic", traffic_names[k->traffic]);
            cJSON *c = cJSON_AddArrayToObject(o, "caps");
            for (size_t j = 0; j < NCAPS; j++)
                if (k->caps & caps[j].cap) cJSON_AddItemToArray(c, cJSON_CreateString(caps[j].name));
            cJSON *dt = cJSON_AddArrayToObject(o, "dtypes"), *kv = cJSON_AddArrayToObject(o, "kv_dtypes");
            for (int t = 0; t < HR_NDTYPES; t++) {
                if ((k->dtypes ? k->dtypes : 1u << HR_F32) >> t & 1) cJSON_AddItemToArray(dt, cJSON_CreateString(hr_dtype_names[t]));
                if ((k->kv_dtypes ? k->kv_dtypes : 1u << HR_F32) >> t & 1) cJSON_AddItemToArray(kv, cJSON_CreateString(hr_dtype_names[t]));
            }
            each_type(k, json_path, cJSON_AddObjectToObject(o, "paths"));
            if (k->plugin) {
                cJSON *pl = cJSON_AddObjectToObject(o, "plugin");
                cJSON_AddStringToObject(pl, "file", k->plugin->file);
                cJSON_AddStringToObject(pl, "library", k->plugin->library);
                cJSON_AddStringToObject(pl, "version", k->plugin->version);
            }
            cJSON_AddItemToArray(arr, o);
        }
        char *txt = hr_json_text(arr, 1);
        printf("%s\n", txt);
        free(txt);
        cJSON_Delete(arr);
        return HR_OK;
    }
    /* the name and capability columns as wide as their longest entries (a plugin's name too) */
    int nw = 8, cw = (int)strlen("capabilities");
    const hr_kernel *k;
    for (int i = 0; (k = hr_kernel_at(i)); i++) {
        char cbuf[CAPS_TEXT];
        const int n = (int)strlen(caps_text(k, cbuf)), m = (int)strlen(k->name);
        cw = n > cw ? n : cw;
        nw = m > nw ? m : nw;
    }
    printf("%-*s %-*s %-13s %s  (ISA: %s)\n", nw, "kernel", cw, "capabilities", "traffic", "summary", hr_isa);
    for (int i = 0; (k = hr_kernel_at(i)); i++) {
        char cbuf[CAPS_TEXT];
        printf("%-*s %-*s %-13s %s\n", nw, k->name, cw, caps_text(k, cbuf), traffic_names[k->traffic], k->summary);
        if (k->plugin)
            printf("%-8s   plugin %s (%s %s, ABI %u.%u)\n", "", k->plugin->file, k->plugin->library,
                   k->plugin->version, k->plugin->abi_major, k->plugin->abi_minor);
        char dts[64], kvs[64];
        types_str(k->dtypes, dts, sizeof dts);
        types_str(k->kv_dtypes, kvs, sizeof kvs);
        if (!k->dtypes && !k->kv_dtypes) { /* f32 only: one line */
            const hr_problem p = {1, 8, 8, 512, 512, 128, false, 0, HR_F32, HR_F32, 0, 0, 0, 0};
            printf("%-8s   types f32, path %s\n", "", hr_kernel_path(k, &p));
            continue;
        }
        printf("%-8s   types %s, kv %s; path on this CPU per type:\n", "", dts, kvs);
        each_type(k, text_path, NULL);
    }
    /* The ISA levels of this binary (isa.h): which this CPU runs, which runs now. */
    printf("\nISA levels in this binary (--isa LEVEL or HEADROOM_ISA=LEVEL picks one):\n");
    for (int i = 0; i < hr_isa_count(); i++) {
        const hr_isa_level *l = hr_isa_at(i);
        const char *lacks = hr_isa_lacks(l);
        char why[96] = "runs on this CPU";
        if (lacks) snprintf(why, sizeof why, "not on this CPU: it lacks %s", lacks);
        printf("  %-8s %s%s%s%s\n", l->name, why, l == hr_isa_now() ? "; running (" : "",
               l == hr_isa_now() ? hr_isa_how() : "", l == hr_isa_now() ? ")" : "");
    }
    return HR_OK;
}

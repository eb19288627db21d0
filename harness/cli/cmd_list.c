/* cmd_list.c — `headroom list`: the kernel registry as a table or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "headroom.h"

static const char *const formats[] = {"table", "json", NULL};
static const char *const traffic_names[] = {"scores", "kv-per-head", "kv-per-group"};
static const struct {
    unsigned cap;
    const char *name;
} caps[] = {{HR_CAP_CAUSAL, "causal"},     {HR_CAP_GQA, "gqa"},
            {HR_CAP_DECODE, "decode"},     {HR_CAP_THREADED, "threaded"},
            {HR_CAP_BLOCK_Q, "block_q"},   {HR_CAP_BLOCK_KV, "block_kv"}};
#define NCAPS (sizeof caps / sizeof caps[0])

int cmd_list(int argc, char **argv)
{
    hr_format format = HR_FMT_TABLE;
    const hr_opt opts[] = {
        HR_FORMAT_OPT(&format, formats),
        {NULL},
    };
    int st = hr_parse(argc, argv, opts, "list [--format table|json]", NULL, 0, NULL);
    if (st < 0) return HR_OK;
    if (st) {
        fprintf(stderr, "headroom list: %s\n", hr_errmsg());
        return st;
    }
    if (format == HR_FMT_JSON) {
        cJSON *arr = cJSON_CreateArray();
        for (int i = 0; hr_kernels[i]; i++) {
            const hr_kernel *k = hr_kernels[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", k->name);
            cJSON_AddStringToObject(o, "summary", k->summary);
            cJSON_AddStringToObject(o, "traffic", traffic_names[k->traffic]);
            cJSON *c = cJSON_AddArrayToObject(o, "caps");
            for (size_t j = 0; j < NCAPS; j++)
                if (k->caps & caps[j].cap) cJSON_AddItemToArray(c, cJSON_CreateString(caps[j].name));
            cJSON_AddItemToArray(arr, o);
        }
        char *txt = cJSON_Print(arr);
        printf("%s\n", txt);
        free(txt);
        cJSON_Delete(arr);
        return HR_OK;
    }
    printf("%-8s %-44s %-13s %s  (ISA: %s)\n", "kernel", "capabilities", "traffic", "summary", hr_isa);
    for (int i = 0; hr_kernels[i]; i++) {
        const hr_kernel *k = hr_kernels[i];
        char cbuf[128] = "";
        for (size_t j = 0; j < NCAPS; j++)
            if (k->caps & caps[j].cap) {
                if (cbuf[0]) strcat(cbuf, ",");
                strcat(cbuf, caps[j].name);
            }
        printf("%-8s %-44s %-13s %s\n", k->name, cbuf[0] ? cbuf : "-", traffic_names[k->traffic],
               k->summary);
    }
    return HR_OK;
}

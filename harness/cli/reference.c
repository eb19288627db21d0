/* reference.c — every command's synopsis and option table as one JSON document (headroom
 * help --reference), from which scripts/gen-docs.py writes docs/reference/cli.md and
 * docs/headroom.1: the reference comes from the tables themselves, so it cannot drift. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "commands.h"
#include "files.h"
#include "headroom.h"

/* The entries of opts as JSON, a group as {"group": name, "options": [...]}. */
static cJSON *opts_json(const hr_opt *opts)
{
    cJSON *arr = cJSON_CreateArray();
    for (const hr_opt *o = opts; o && o->name; o++) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, j);
        if (o->kind == HR_OPT_GROUP) {
            cJSON_AddStringToObject(j, "group", o->name);
            cJSON_AddItemToObject(j, "options", opts_json(o->dst));
            continue;
        }
        cJSON_AddStringToObject(j, "name", o->name);
        cJSON_AddStringToObject(j, "kind", hr_opt_kind_name(o->kind));
        if (o->metavar) cJSON_AddStringToObject(j, "metavar", o->metavar);
        if (o->kind == HR_OPT_INT || o->kind == HR_OPT_DOUBLE || o->kind == HR_OPT_BYTES) {
            cJSON_AddNumberToObject(j, "min", o->lo);
            cJSON_AddNumberToObject(j, "max", o->hi);
        }
        if (o->choices) {
            cJSON *c = cJSON_AddArrayToObject(j, "choices");
            for (int i = 0; o->choices[i]; i++) cJSON_AddItemToArray(c, cJSON_CreateString(o->choices[i]));
        }
        cJSON_AddStringToObject(j, "help", o->help ? o->help : "");
    }
    return arr;
}

typedef struct {
    cJSON *cmd; /* the command's object, filled by the sink */
    int calls;
} sink_ctx;

static void sink(const char *synopsis, const hr_opt *opts, void *ctx)
{
    sink_ctx *s = ctx;
    s->calls++;
    cJSON_AddStringToObject(s->cmd, "synopsis", synopsis);
    cJSON_AddItemToObject(s->cmd, "options", opts_json(opts));
}

int hr_reference(FILE *f, const hr_command *cmds, size_t n, const hr_opt *global)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddItemToObject(doc, "global_options", opts_json(global));
    cJSON *arr = cJSON_AddArrayToObject(doc, "commands");
    int st = HR_OK;
    for (size_t i = 0; i < n && !st; i++) {
        sink_ctx s = {cJSON_CreateObject(), 0};
        cJSON_AddItemToArray(arr, s.cmd);
        cJSON_AddStringToObject(s.cmd, "name", cmds[i].name);
        if (cmds[i].summary) cJSON_AddStringToObject(s.cmd, "summary", cmds[i].summary);
        else cJSON_AddBoolToObject(s.cmd, "hidden", 1);
        char *argv[] = {(char *)cmds[i].name, NULL};
        hr_parse_sink(sink, &s);
        cmds[i].fn(1, argv);
        hr_parse_sink(NULL, NULL);
        if (s.calls != 1) st = hr_fail("help --reference: %s built %d option tables, expected one", cmds[i].name, s.calls);
    }
    char *txt = st ? NULL : hr_json_text(doc, 1);
    if (txt) fprintf(f, "%s\n", txt);
    else if (!st) st = hr_fail("help --reference: out of memory");
    free(txt);
    cJSON_Delete(doc);
    return st;
}

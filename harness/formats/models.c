/* models.c — the model presets loader: INI parsing (ini.c) with file:line validation. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>


#include "headroom.h"
#include "files.h"
#include "ini.h"
#include "models.h"
#include "paths.h"

/* The integer keys of a section and their ranges. */
static const struct {
    const char *key;
    size_t off;
    long lo, hi;
    bool required;
} keys[] = {
    {"layers", offsetof(hr_model, layers), 1, 4096, true},
    {"d_model", offsetof(hr_model, d_model), 1, 1 << 20, true},
    {"heads", offsetof(hr_model, heads), 1, HR_MAX_HEADS, true},
    {"kv_heads", offsetof(hr_model, kv_heads), 1, HR_MAX_HEADS, true},
    {"d_head", offsetof(hr_model, d_head), 1, HR_MAX_DHEAD, true},
    {"context", offsetof(hr_model, context), 1, HR_MAX_SEQ, false},
    {"window", offsetof(hr_model, window), 1, HR_MAX_SEQ, false},
    {"window_every", offsetof(hr_model, window_every), 1, 4096, false},
    {"softcap", offsetof(hr_model, softcap), 1, 1 << 20, false},
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Parser state. */
typedef struct {
    const char *path;
    int line;
    hr_models m;
    unsigned *seen;     /* per model: bit k set when keys[k] was given */
    int cap;
    int err;            /* line of the first error (0: none; 1 for file-wide errors) */
    char msg[512];
} parser;

static void perr(parser *P, int line, const char *fmt, const char *a, const char *b)
{
    if (P->err) return; /* the first error (the earliest line) is the one reported */
    char what[400];
    snprintf(what, sizeof what, fmt, a, b);
    if (line > 0) snprintf(P->msg, sizeof P->msg, "%s:%d: %s", P->path, line, what);
    else snprintf(P->msg, sizeof P->msg, "%s: %s", P->path, what);
    P->err = line > 0 ? line : 1;
}

static int valid_name(const char *s)
{
    if (!*s || strlen(s) >= sizeof(((hr_model *)0)->name)) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._-", *s)) return 0;
    return 1;
}

/* A [section] header: a new model (checked for a valid, unique name). */
static void new_section(parser *P, char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    for (char *e = s + strlen(s); e > s && isspace((unsigned char)e[-1]);) *--e = 0;
    if (!valid_name(s)) {
        perr(P, P->line, "bad model name '[%s]' (1-63 letters, digits, '.', '_', '-')%s", s, "");
        return;
    }
    if (hr_models_find(&P->m, s)) {
        perr(P, P->line, "duplicate model [%s]%s", s, "");
        return;
    }
    if (P->m.n == P->cap) {
        int cap = P->cap ? 2 * P->cap : 16;
        hr_model *v = realloc(P->m.v, (size_t)cap * sizeof *v);
        unsigned *seen = realloc(P->seen, (size_t)cap * sizeof *seen);
        if (v) P->m.v = v;
        if (seen) P->seen = seen;
        if (!v || !seen) {
            perr(P, P->line, "out of memory%s%s", "", "");
            return;
        }
        P->cap = cap;
    }
    hr_model *m = &P->m.v[P->m.n];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", s);
    m->line = P->line;
    P->seen[P->m.n++] = 0;
}

static int handler(void *user, const hr_ini_item *it)
{
    parser *P = user;
    const char *section = it->section, *name = it->name, *value = it->value;
    P->line = it->line;
    if (!name) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", section);
        new_section(P, buf);
        return P->err != 0;
    }
    hr_model *m = P->m.n ? &P->m.v[P->m.n - 1] : NULL;
    if (!*section || !m || strcasecmp(m->name, section)) {
        perr(P, P->line, "'%s' outside a [model] section%s", name, "");
        return 1;
    }
    size_t k = 0;
    while (k < NKEYS && strcmp(keys[k].key, name)) k++;
    if (k == NKEYS) {
        perr(P, P->line, "[%s]: unknown key '%s' (layers, d_model, heads, kv_heads, d_head, context, window, window_every, softcap)",
             m->name, name);
        return 1;
    }
    if (P->seen[P->m.n - 1] & (1u << k)) {
        perr(P, P->line, "[%s]: duplicate key '%s'", m->name, name);
        return 1;
    }
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end || v < keys[k].lo || v > keys[k].hi) {
        char range[160];
        snprintf(range, sizeof range, "[%.63s]: %s: expected an integer in [%ld, %ld]", m->name,
                 name, keys[k].lo, keys[k].hi);
        perr(P, P->line, "%s, got '%s'", range, value);
        return 1;
    }
    if (keys[k].off == offsetof(hr_model, context)) m->context = v;
    else *(int *)((char *)m + keys[k].off) = (int)v;
    P->seen[P->m.n - 1] |= 1u << k;
    return 0;
}

int hr_models_load(const char *path, hr_models *out)
{
    memset(out, 0, sizeof *out);
    parser P = {.path = path};
    /* Read through the one reader (regular file, size cap, no NUL), parsed from memory. */
    size_t len = 0;
    char *text = hr_read_file(path, HR_CAP_CONFIG, "model presets file", &len);
    if (!text) return HR_EUSAGE;
    int rc = hr_ini_parse(text, handler, &P);
    free(text);
    /* The reader's own syntax errors (no '=' or ']') come back as a line number only. */
    if (rc > 0 && (!P.err || rc < P.err)) {
        P.err = 0;
        perr(&P, rc, "syntax error: expected [model] or key = value%s%s", "", "");
    }
    for (int i = 0; !P.err && i < P.m.n; i++) {
        const hr_model *m = &P.m.v[i];
        for (size_t k = 0; k < NKEYS; k++)
            if (keys[k].required && !(P.seen[i] & (1u << k))) {
                perr(&P, m->line, "[%s]: missing key '%s'", m->name, keys[k].key);
                break;
            }
        if (!P.err && m->heads % m->kv_heads) {
            char h[32];
            snprintf(h, sizeof h, "%d", m->heads);
            perr(&P, m->line, "[%s]: kv_heads does not divide heads (%s)", m->name, h);
        }
        if (!P.err && m->window_every && !m->window)
            perr(&P, m->line, "[%s]: window_every needs a window%s", m->name, "");
        if (!P.err && m->window && !m->window_every) P.m.v[i].window_every = 1;
    }
    if (!P.err && P.m.n == 0) perr(&P, 0, "no [model] sections%s%s", "", "");
    free(P.seen);
    if (P.err) {
        free(P.m.v);
        return hr_fail("%s", P.msg);
    }
    *out = P.m;
    return HR_OK;
}

const hr_model *hr_models_find(const hr_models *m, const char *name)
{
    for (int i = 0; i < m->n; i++)
        if (!strcasecmp(m->v[i].name, name)) return &m->v[i];
    return NULL;
}

void hr_models_free(hr_models *m)
{
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* configs/model-presets.ini where hr_data_path finds it (beside the binary, the installed
 * prefix, the current directory), so headroom works from any directory. */
int hr_models_open(const char *path, hr_models *out)
{
    char buf[PATH_MAX + 32];
    if (!path) {
        hr_data_path("configs/model-presets.ini", NULL, buf, sizeof buf);
        path = buf;
    }
    return hr_models_load(path, out);
}

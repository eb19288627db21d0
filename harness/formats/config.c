/* config.c — sweep configuration files (ini.c): value lists, ranges, file:line errors. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "config.h"
#include "ini.h"
#include "files.h"
#include "paths.h"
#include "gemm.h"
#include "inputs.h"
#include "phase.h"
#include "threads.h"
#include "timer.h"

const char *const hr_mode_names[] = {"attention", "layer", NULL};

/* The keys of [sweep]; the index is the bit in the "seen" mask. */
static const char *const keys[] = {
    "description", "mode",   "kernels", "batch",    "heads",   "kv_heads", "seq",
    "seq_kv",      "d_head", "d_model", "causal",   "layout",  "threads",  "block_q",
    "block_kv",    "reps",   "passes",  "min_time", "warmup",  "dist",     "seed",
    "check",       "cold",   "max_mem", "probe",   "phase_filter", "phase_threshold",
    "interleave",  "gemm",  "stop_after_crossover", "models", "models_file", "dtype", "kv_dtype", "shapes",
    "window",      "softcap", "alibi", NULL,
};

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    size_t i = 0;
    while (isspace((unsigned char)s[i])) i++;
    memmove(s, s + i, n - i + 1);
}

/* Splits s at commas into at most max trimmed items (pointers into s). -1 when there are
 * more, or an item is empty. */
int hr_list_split(char *s, char **items, int max)
{
    int n = 0;
    for (char *p = s;;) {
        char *c = strchr(p, ',');
        if (c) *c = 0;
        trim(p);
        if (!*p || n >= max) return -1;
        items[n++] = p;
        if (!c) return n;
        p = c + 1;
    }
}

static int parse_int(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno) return -1;
    *out = v;
    return 0;
}

static int ilist_parse(char *buf, int lo, int hi, hr_ilist *l)
{
    char *items[HR_CFG_MAXV];
    int n = hr_list_split(buf, items, HR_CFG_MAXV);
    if (n < 0) return hr_fail("expected a comma-separated list of at most %d values, none empty", HR_CFG_MAXV);
    l->n = 0;
    for (int i = 0; i < n; i++) {
        char *it = items[i], *dots = strstr(it, "..");
        long long a, b, step;
        if (!dots) {
            if (parse_int(it, &a)) return hr_fail("'%s' is not an integer", it);
            if (a < lo || a > hi) return hr_fail("%lld is outside [%d, %d]", a, lo, hi);
            if (l->n >= HR_CFG_MAXV) return hr_fail("more than %d values", HR_CFG_MAXV);
            l->v[l->n++] = (int)a;
            continue;
        }
        /* A range: START..END*FACTOR (geometric) or START..END+STEP (arithmetic). */
        *dots = 0;
        char *rest = dots + 2, *op = strpbrk(rest, "*+");
        if (!op) return hr_fail("range '%s..%s' needs a step: START..END*FACTOR or START..END+STEP", it, rest);
        char opc = *op;
        *op = 0;
        trim(it);
        trim(rest);
        char *stp = op + 1;
        trim(stp);
        if (parse_int(it, &a) || parse_int(rest, &b) || parse_int(stp, &step))
            return hr_fail("range '%s..%s%c%s': expected integers", it, rest, opc, stp);
        if (a < lo || b > hi || a > hi)
            return hr_fail("range %lld..%lld is outside [%d, %d]", a, b, lo, hi);
        if (b < a) return hr_fail("range %lld..%lld ends below its start", a, b);
        if (opc == '*' && step < 2)
            return hr_fail("range %lld..%lld*%lld never ends: the factor must be >= 2", a, b, step);
        if (opc == '+' && step < 1)
            return hr_fail("range %lld..%lld+%lld never ends: the step must be >= 1", a, b, step);
        if (opc == '*' && a < 1)
            return hr_fail("range %lld..%lld*%lld never ends: a geometric range starts at >= 1", a, b, step);
        for (long long v = a;;) {
            if (l->n >= HR_CFG_MAXV)
                return hr_fail("range %lld..%lld%c%lld has more than %d values", a, b, opc, step, HR_CFG_MAXV);
            l->v[l->n++] = (int)v;
            /* Stop when the next value would pass b, tested without computing it (a huge
             * step would overflow); a <= v <= b holds throughout. */
            if (opc == '*' ? v > b / step : step > b - v) break;
            v = opc == '*' ? v * step : v + step;
        }
    }
    return HR_OK;
}

int hr_ilist_parse(const char *s, int lo, int hi, hr_ilist *l)
{
    char *buf = strdup(s); /* a list as long as its line */
    if (!buf) return hr_fail("out of memory");
    int st = ilist_parse(buf, lo, hi, l);
    free(buf);
    return st;
}

static int parse_bool(const char *s, bool *b)
{
    static const char *const t[] = {"true", "yes", "on", "1", NULL}, *const f[] = {"false", "no", "off", "0", NULL};
    for (int i = 0; t[i]; i++)
        if (!strcmp(s, t[i])) return *b = true, 0;
    for (int i = 0; f[i]; i++)
        if (!strcmp(s, f[i])) return *b = false, 0;
    return -1;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v)) return hr_fail("'%s' is not a number", s);
    if (v < lo || v > hi) return hr_fail("%s is outside [%g, %g]", s, lo, hi);
    *out = v;
    return HR_OK;
}

/* A byte count with an optional binary K/M/G/T suffix ("512M", "4GiB"). */
static int parse_bytes(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end != s && *end) {
        const char *k = strchr("KMGT", toupper((unsigned char)*end));
        if (k) {
            v *= pow(1024.0, (double)(k - "KMGT" + 1));
            end++;
            if (*end == 'i') end++;
            if (*end == 'B') end++;
        }
    }
    if (end == s || *end || !isfinite(v) || v < 1)
        return hr_fail("'%s' is not a byte count (e.g. 512M, 4G)", s);
    *out = v;
    return HR_OK;
}

/* Parse state: the config being filled, the value being read, keys seen. */
typedef struct {
    hr_sweep_config *c;
    int seen_line[40];
    int pend_key;     /* the key whose value is being read (-1: none): a value */
    int pend_line;    /* continues on indented lines, and is parsed once whole */
    char *pend;       /* its text so far, any length                           */
    size_t pend_len, pend_cap;
    char err[400];
} parse_ctx;

/* Appends s to the pending value (a blank between pieces). 0, or -1 out of memory. */
static int pend_add(parse_ctx *x, const char *s)
{
    const size_t n = strlen(s), need = x->pend_len + 1 + n + 1;
    if (need > x->pend_cap) {
        size_t cap = x->pend_cap ? x->pend_cap : 256;
        while (cap < need) cap *= 2;
        char *p = realloc(x->pend, cap);
        if (!p) return -1;
        x->pend = p, x->pend_cap = cap;
    }
    if (x->pend_len) x->pend[x->pend_len++] = ' ';
    memcpy(x->pend + x->pend_len, s, n + 1);
    x->pend_len += n;
    return 0;
}

/* Adds k to the config's kernels unless it is there already. */
static int add_kernel(hr_sweep_config *c, const hr_kernel *k)
{
    for (int i = 0; i < c->nkernels; i++)
        if (c->kernels[i] == k) return HR_OK;
    if (c->nkernels >= HR_CFG_MAXKERNELS) return hr_fail("more than %d kernels", HR_CFG_MAXKERNELS);
    c->kernels[c->nkernels++] = k;
    return HR_OK;
}

/* Notes a kernel the config names that is not measured (kernels = plugins, name?). */
static void add_absent(hr_sweep_config *c, const char *name, const char *reason)
{
    if (c->nabsent >= HR_CFG_MAXKERNELS) return;
    hr_cfg_absent *a = &c->absent[c->nabsent++];
    snprintf(a->name, sizeof a->name, "%s", name);
    snprintf(a->reason, sizeof a->reason, "%s", reason);
}

/* kernels = NAME, ...: `all`, `plugins`, NAME? (optional: skipped with the reason). */
static int set_kernels(hr_sweep_config *c, char **items, int n)
{
    c->nkernels = c->nabsent = 0;
    for (int i = 0; i < n; i++) {
        const bool all = !strcmp(items[i], "all"), plugins = !strcmp(items[i], "plugins");
        if (all || plugins) { /* every loaded kernel, or every loaded plugin's */
            int added = 0;
            for (int j = 0; hr_kernel_at(j); j++)
                if (all || hr_kernel_at(j)->plugin) {
                    if (add_kernel(c, hr_kernel_at(j))) return HR_EUSAGE;
                    added++;
                }
            if (plugins && !added)
                add_absent(c, "plugins", "no plugin is loaded (--plugin FILE.so, HEADROOM_PLUGIN_PATH)");
            continue;
        }
        const size_t len = strlen(items[i]);
        const bool optional = len > 1 && items[i][len - 1] == '?';
        if (optional) items[i][len - 1] = 0;
        const hr_kernel *k = hr_kernel_find(items[i]);
        const char *absent = k ? NULL : hr_kernel_absent(items[i]);
        if (absent) { /* an optional dependency: degrade */
            fprintf(stderr, "headroom: note: kernel '%s' left out of this sweep: %s\n", items[i], absent);
            continue;
        }
        if (!k && optional) { /* a peer that was not built: skipped, with the reason */
            char why[200];
            snprintf(why, sizeof why, "not loaded: no plugin declares kernel '%.40s' (optional in the config; "
                     "--plugin FILE.so, HEADROOM_PLUGIN_PATH)", items[i]);
            add_absent(c, items[i], why);
            continue;
        }
        if (!k) return hr_kernel_unknown(NULL, items[i]);
        if (add_kernel(c, k)) return HR_EUSAGE;
    }
    return HR_OK;
}

static int set_value(hr_sweep_config *c, int key, char *val)
{
    char *items[HR_CFG_MAXV];
    int n;
    if (!strcmp(keys[key], "stop_after_crossover")) {
        if (parse_bool(val, &c->stop_after_crossover)) return hr_fail("'%s': expected true or false", val);
        return HR_OK;
    }
    if (!strcmp(keys[key], "models")) { /* names now; looked up in the presets at the end */
        if ((n = hr_list_split(val, items, HR_CFG_MAXV)) < 0) return hr_fail("expected a list of model names");
        c->nmodels = 0;
        for (int i = 0; i < n; i++) {
            if (strlen(items[i]) >= sizeof c->model[0].name) return hr_fail("'%.40s...': name too long", items[i]);
            snprintf(c->model[c->nmodels++].name, sizeof c->model[0].name, "%s", items[i]);
        }
        return HR_OK;
    }
    if (!strcmp(keys[key], "shapes")) {
        if ((n = hr_list_split(val, items, HR_CFG_MAXV)) < 0)
            return hr_fail("expected a list of at most %d shapes, none empty", HR_CFG_MAXV);
        c->nshapes = 0;
        for (int i = 0; i < n; i++)
            if (hr_cfg_shape_parse(items[i], &c->shape[c->nshapes++])) return HR_EUSAGE;
        return HR_OK;
    }
    if (!strcmp(keys[key], "models_file")) {
        if (strlen(val) >= sizeof c->models_file) return hr_fail("path too long");
        snprintf(c->models_file, sizeof c->models_file, "%s", val);
        return HR_OK;
    }
    if (!strcmp(keys[key], "dtype") || !strcmp(keys[key], "kv_dtype")) { /* element types */
        const bool kv = keys[key][0] == 'k';
        int *nt = kv ? &c->nkv_dtype : &c->ndtype;
        hr_dtype *t = kv ? c->kv_dtype : c->dtype;
        if ((n = hr_list_split(val, items, HR_CFG_MAXV)) < 0) return hr_fail("expected a list of element types");
        *nt = 0;
        for (int i = 0; i < n; i++) {
            int x = hr_choice(hr_dtype_names, items[i]);
            if (x < 0 || (!kv && hr_dtype_block((hr_dtype)x) != 1))
                return hr_fail("'%s': expected %s", items[i], kv ? "f32, bf16, f16, q8_0 or q4_0" : "f32, bf16 or f16 (block formats go in kv_dtype)");
            t[(*nt)++] = (hr_dtype)x;
        }
        return HR_OK;
    }
    if (!strcmp(keys[key], "window") || !strcmp(keys[key], "softcap") || !strcmp(keys[key], "alibi"))
        return hr_cfg_variant_parse(keys[key], val, c);
    if (!strcmp(keys[key], "gemm")) { /* layer mode: the projections' GEMM back ends */
        if ((n = hr_list_split(val, items, HR_CFG_MAXV)) < 0 || n > HR_CFG_MAXGEMM) return hr_fail("expected a list of own, blas");
        c->ngemm = 0;
        for (int i = 0; i < n; i++)
            if ((c->gemm[c->ngemm++] = hr_choice(hr_gemm_names, items[i])) < 0)
                return hr_fail("'%s': expected own or blas", items[i]);
        return HR_OK;
    }
    switch (key) {
    case 0: snprintf(c->description, sizeof c->description, "%.199s", val); return HR_OK;
    case 1: {
        int m = hr_choice(hr_mode_names, val);
        if (m < 0) return hr_fail("expected attention or layer, got '%s'", val);
        c->mode = (hr_sweep_mode)m;
        return HR_OK;
    }
    case 2: { /* a kernel named twice is measured once, so the list is as long as its line */
        int most = 1;
        for (const char *p = val; *p; p++) most += *p == ',';
        char **names = malloc((size_t)most * sizeof *names);
        if (!names) return hr_fail("out of memory");
        int st = (n = hr_list_split(val, names, most)) < 0 ? hr_fail("expected a list of kernel names")
                                                          : set_kernels(c, names, n);
        free(names);
        return st;
    }
    case 3: return hr_ilist_parse(val, 1, HR_MAX_BATCH, &c->batch);
    case 4: return hr_ilist_parse(val, 1, HR_MAX_HEADS, &c->heads);
    case 5:
        if ((n = hr_list_split(val, items, HR_CFG_MAXV)) < 0) return hr_fail("expected a list");
        c->nkv = 0;
        for (int i = 0; i < n; i++) {
            hr_kv_spec *s = &c->kv[c->nkv++];
            long long v;
            if (!strcmp(items[i], "mha")) *s = (hr_kv_spec){HR_KV_MHA, 0};
            else if (!strcmp(items[i], "mqa")) *s = (hr_kv_spec){HR_KV_MQA, 1};
            else if (!strncmp(items[i], "ratio:", 6) && !parse_int(items[i] + 6, &v) && v >= 1 && v <= HR_MAX_HEADS)
                *s = (hr_kv_spec){HR_KV_RATIO, (int)v};
            else if (!parse_int(items[i], &v) && v >= 1 && v <= HR_MAX_HEADS)
                *s = (hr_kv_spec){HR_KV_COUNT, (int)v};
            else
                return hr_fail("'%s': expected mha, mqa, a count or ratio:R (R = Hq/Hkv)", items[i]);
        }
        return HR_OK;
    case 6: return hr_ilist_parse(val, 1, HR_MAX_SEQ, &c->seq);
    case 7:
        c->seq_kv_same = !strcmp(val, "same");
        return c->seq_kv_same ? HR_OK : hr_ilist_parse(val, 1, HR_MAX_SEQ, &c->seq_kv);
    case 8: return hr_ilist_parse(val, 1, HR_MAX_DHEAD, &c->d_head);
    case 9: return hr_ilist_parse(val, 1, HR_MAX_HEADS * HR_MAX_DHEAD / 16, &c->d_model);
    case 10:
        if ((n = hr_list_split(val, items, HR_CFG_MAXV)) < 0) return hr_fail("expected a list of true/false");
        c->ncausal = 0;
        for (int i = 0; i < n; i++)
            if (parse_bool(items[i], &c->causal[c->ncausal++]))
                return hr_fail("'%s': expected true or false", items[i]);
        return HR_OK;
    case 11:
        if ((n = hr_list_split(val, items, HR_CFG_MAXV)) < 0) return hr_fail("expected a list of layouts");
        c->nlayout = 0;
        for (int i = 0; i < n; i++) {
            int l = hr_choice(hr_layout_names, items[i]);
            if (l < 0) return hr_fail("'%s': expected bhnd or bnhd", items[i]);
            c->layout[c->nlayout++] = (hr_layout)l;
        }
        return HR_OK;
    case 12: return hr_ilist_parse(val, 0, HR_THREADS_MAX, &c->threads);
    case 13: return hr_ilist_parse(val, 0, 1 << 16, &c->block_q);
    case 14: return hr_ilist_parse(val, 0, 1 << 16, &c->block_kv);
    case 15:
    case 16:
    case 20: {
        long long v;
        int hi = key == 15 ? HR_MAX_REPS : key == 16 ? 100 : 2147483647, lo = key == 20 ? 0 : 1;
        if (parse_int(val, &v) || v < lo || v > hi) return hr_fail("expected an integer in [%d, %d], got '%s'", lo, hi, val);
        *(key == 15 ? &c->reps : key == 16 ? &c->passes : &c->seed) = (int)v;
        return HR_OK;
    }
    case 17: return parse_double(val, 0, 3600, &c->min_time);
    case 18: return parse_double(val, 0, 3600, &c->warmup);
    case 19:
        if ((c->dist = hr_choice(hr_dist_names, val)) < 0) return hr_fail("'%s': expected normal, uniform or large", val);
        return HR_OK;
    case 21:
    case 22:
        if (parse_bool(val, key == 21 ? &c->check : &c->cold)) return hr_fail("'%s': expected true or false", val);
        return HR_OK;
    case 23: return parse_bytes(val, &c->max_mem);
    case 24: {
        bool b;
        int k = hr_choice(hr_probe_kind_names, val);
        if (!parse_bool(val, &b)) c->probe = b ? HR_PROBE_AUTO : HR_PROBE_OFF;
        else if (k == HR_PROBE_FMA || k == HR_PROBE_BW || k == HR_PROBE_AUTO) c->probe = k;
        else return hr_fail("'%s': expected true, false, auto, fma or bw", val);
        return HR_OK;
    }
    case 25:
    case 27:
        if (parse_bool(val, key == 25 ? &c->phase_filter : &c->interleave))
            return hr_fail("'%s': expected true or false", val);
        return HR_OK;
    case 26: {
        double pct = 0;
        if (parse_double(val, 0.1, 100, &pct)) return HR_EUSAGE;
        c->phase_threshold = pct / 100;
        return HR_OK;
    }
    }
    return hr_fail("unhandled key");
}

/* Parses the value read for the pending key, now that no more lines continue it. */
static int flush(parse_ctx *x)
{
    const int key = x->pend_key;
    if (key < 0) return 1;
    x->pend_key = -1;
    if (!x->pend[0] && key != 0) {
        snprintf(x->err, sizeof x->err, "%d: %s: empty value", x->pend_line, keys[key]);
        return 0;
    }
    if (set_value(x->c, key, x->pend)) {
        snprintf(x->err, sizeof x->err, "%d: %s: %s", x->pend_line, keys[key], hr_errmsg());
        return 0;
    }
    return 1;
}

static int handler(void *user, const hr_ini_item *it)
{
    parse_ctx *x = user;
    if (!it->name) return 0; /* a section line: its keys say whether it is [sweep] */
    if (strcmp(it->section, "sweep")) {
        snprintf(x->err, sizeof x->err, "%d: %s '%.100s': only a [sweep] section is understood", it->line,
                 *it->section ? "section" : "key outside a section", *it->section ? it->section : it->name);
        return 1;
    }
    int key = hr_choice(keys, it->name);
    if (key < 0) {
        snprintf(x->err, sizeof x->err, "%d: unknown key '%.100s' in [sweep]", it->line, it->name);
        return 1;
    }
    if (it->continued && key == x->pend_key) { /* an indented line continues the value */
        if (!pend_add(x, it->value)) return 0;
        snprintf(x->err, sizeof x->err, "%d: %s: out of memory", it->line, it->name);
        return 1;
    }
    if (!flush(x)) return 1;
    if (x->seen_line[key]) {
        snprintf(x->err, sizeof x->err, "%d: key '%s' given twice (first on line %d)", it->line, it->name,
                 x->seen_line[key]);
        return 1;
    }
    x->seen_line[key] = it->line;
    x->pend_len = 0;
    if (pend_add(x, it->value)) {
        snprintf(x->err, sizeof x->err, "%d: %s: out of memory", it->line, it->name);
        return 1;
    }
    x->pend_key = key;
    x->pend_line = it->line;
    return 0;
}

/* models = ...: each name looked up in the presets file; the shape keys it replaces must
 * not be given too. */
static int resolve_models(hr_sweep_config *c, const char *path, const parse_ctx *x)
{
    const int lm = x->seen_line[hr_choice(keys, "models")];
    static const char *const shape_keys[] = {"heads", "kv_heads", "d_head", "d_model"};
    for (int i = 0; i < 4; i++) {
        const int l = x->seen_line[hr_choice(keys, shape_keys[i])];
        if (l) return hr_fail("%s:%d: give models or %s, not both (a model fixes heads, kv_heads, d_head, d_model)",
                              path, l > lm ? l : lm, shape_keys[i]);
    }
    hr_models ms;
    if (hr_models_open(c->models_file[0] ? c->models_file : NULL, &ms)) {
        char why[512]; /* hr_fail formats into the buffer hr_errmsg returns */
        snprintf(why, sizeof why, "%s", hr_errmsg());
        return hr_fail("%s:%d: models: %s", path, lm, why);
    }
    int st = HR_OK;
    for (int i = 0; i < c->nmodels && !st; i++) {
        const hr_model *m = hr_models_find(&ms, c->model[i].name);
        if (!m) {
            char known[400] = "";
            size_t len = 0;
            for (int j = 0; j < ms.n && len < sizeof known; j++)
                len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", j ? ", " : "", ms.v[j].name);
            st = hr_fail("%s:%d: models: unknown model '%s' (presets: %s)", path, lm, c->model[i].name, known);
        } else {
            c->model[i] = *m;
        }
    }
    hr_models_free(&ms);
    return st;
}

double hr_config_points(const hr_sweep_config *c)
{
    const hr_ilist *shape = c->d_model.n ? &c->d_model : &c->heads;
    const double shapes = c->nshapes ? c->nshapes
                          : (c->nmodels ? c->nmodels : (double)shape->n * c->nkv * c->d_head.n) * c->seq.n *
                                (c->seq_kv_same ? 1 : c->seq_kv.n) * c->ncausal;
    return (double)c->nkernels * c->batch.n * shapes * c->nlayout * c->threads.n *
           c->block_q.n * c->block_kv.n * c->passes * (c->ngemm > 1 ? c->ngemm : 1) *
           c->ndtype * (c->nkv_dtype ? c->nkv_dtype : 1) * c->window.n * c->nsoftcap * c->nalibi;
}

int hr_config_parse(const char *text, const char *path, hr_sweep_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    const char *base = strrchr(path, '/');
    snprintf(c->name, sizeof c->name, "%s", base ? base + 1 : path);
    char *dot = strrchr(c->name, '.');
    if (dot && dot != c->name) *dot = 0;
    for (char *s = c->name; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_') *s = '_';

    c->batch = (hr_ilist){1, {1}};
    c->heads = (hr_ilist){1, {8}};
    c->d_head = (hr_ilist){1, {64}};
    c->seq = (hr_ilist){1, {512}};
    c->seq_kv_same = true;
    c->threads = c->block_q = c->block_kv = (hr_ilist){1, {0}};
    c->nkv = 1;
    c->kv[0] = (hr_kv_spec){HR_KV_MHA, 0};
    c->ncausal = 1;
    c->nlayout = 1;
    c->ngemm = 1;
    c->ndtype = 1; /* dtype = f32; kv_dtype unset: the same as dtype */
    c->window = (hr_ilist){1, {0}}; /* no variants: one value 0 of each axis */
    c->nsoftcap = c->nalibi = 1;
    c->reps = 9;
    c->passes = 1;
    c->seed = 1;
    c->min_time = 0.05;
    c->warmup = 0.1;
    c->probe = HR_PROBE_AUTO;
    c->phase_threshold = HR_PHASE_THRESHOLD;
    c->interleave = true;
    for (int j = 0; hr_kernel_at(j) && c->nkernels < HR_CFG_MAXKERNELS; j++) c->kernels[c->nkernels++] = hr_kernel_at(j);

    parse_ctx x = {.c = c, .pend_key = -1};
    char *copy = strdup(text); /* hr_ini_parse cuts it into lines in place */
    if (!copy) return hr_fail("%s: out of memory", path);
    int rc = hr_ini_parse(copy, handler, &x);
    if (!x.err[0] && rc == 0) flush(&x);
    free(copy);
    free(x.pend);
    if (x.err[0]) return hr_fail("%s:%s", path, x.err);
    if (rc > 0) return hr_fail("%s:%d: not an INI line (expected [section] or key = value)", path, rc);
    int nseen = 0;
    for (int k = 0; keys[k]; k++) nseen += x.seen_line[k] != 0;
    if (!nseen) /* an empty or truncated file must not silently run the default sweep */
        return hr_fail("%s: no settings: a sweep config needs a [sweep] section with at least one key", path);
    int kh = hr_choice(keys, "heads"), km = hr_choice(keys, "d_model");
    if (x.seen_line[kh] && x.seen_line[km]) {
        int l = x.seen_line[kh] > x.seen_line[km] ? x.seen_line[kh] : x.seen_line[km];
        return hr_fail("%s:%d: give heads or d_model, not both (with d_model, heads = d_model / d_head)", path, l);
    }
    const int lsh = x.seen_line[hr_choice(keys, "shapes")];
    if (lsh) { /* shapes replaces the keys whose product it lists */
        static const char *const shape_keys[] = {"heads", "kv_heads", "d_head", "d_model", "seq", "seq_kv", "causal", "models"};
        for (int i = 0; i < 8; i++) {
            const int l = x.seen_line[hr_choice(keys, shape_keys[i])];
            if (l) return hr_fail("%s:%d: give shapes or %s, not both (each shape fixes heads, kv_heads, seq, seq_kv, "
                                  "d_head and causal)", path, l > lsh ? l : lsh, shape_keys[i]);
        }
        if (c->mode == HR_MODE_LAYER) return hr_fail("%s:%d: shapes: only with mode = attention", path, lsh);
    }
    const int lmf = x.seen_line[hr_choice(keys, "models_file")];
    if (lmf && !x.seen_line[hr_choice(keys, "models")]) /* a file named is read, never ignored */
        return hr_fail("%s:%d: models_file: needs models = NAME, ... (the presets to take from it)", path, lmf);
    if (x.seen_line[hr_choice(keys, "models")]) {
        int st = resolve_models(c, path, &x);
        if (st) return st;
    }
    int kk = hr_choice(keys, "kernels");
    if (x.seen_line[kk] && !c->nkernels) /* every kernel named is left out of this build or not loaded */
        return hr_fail("%s:%d: kernels: none of these kernels is in this build or loaded%s%s", path, x.seen_line[kk],
                       c->nabsent ? ": " : "", c->nabsent ? c->absent[0].reason : "");
    if (c->mode == HR_MODE_LAYER && !c->d_model.n && !c->nmodels)
        return hr_fail("%s:%d: mode = layer needs d_model (or models)", path, x.seen_line[hr_choice(keys, "mode")]);
    for (int i = hr_choice(keys, "gemm"), j = 0; j < 2; j++, i = hr_choice(keys, "stop_after_crossover"))
        if (c->mode != HR_MODE_LAYER && x.seen_line[i])
            return hr_fail("%s:%d: %s: only with mode = layer", path, x.seen_line[i], keys[i]);
    double pts = hr_config_points(c);
    if (pts > HR_CFG_MAXPOINTS)
        return hr_fail("%s: the cartesian product has %.0f points, more than %d: split the sweep",
                       path, pts, HR_CFG_MAXPOINTS);
    return HR_OK;
}

int hr_config_load(const char *path, hr_sweep_config *c)
{
    /* A relative path that is not here ("configs/ci.ini" run from elsewhere) is looked
     * for where the data files are: beside the binary, the installed prefix. */
    char found[4096];
    if (path[0] != '/' && access(path, F_OK) && hr_data_path(path, NULL, found, sizeof found)) path = found;
    char *text = hr_read_file(path, HR_CAP_CONFIG, "sweep config", NULL);
    if (!text) return HR_EUSAGE;
    int st = hr_config_parse(text, path, c);
    free(text);
    return st;
}

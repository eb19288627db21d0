/* cli.c — option tables: parsing with type and range checks, one-line errors, --help. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "headroom.h"


static void choices_str(const char *const *c, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; c && c[i]; i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s", i ? "|" : "", c[i]);
    }
}

/* Parses a number; for HR_OPT_BYTES accepts a K/M/G/T (binary) suffix. */
static int parse_num(const hr_opt *o, const char *s, double *out)
{
    if (!*s) return hr_fail("%s: expected a number, got an empty string", o->name);
    char *end;
    errno = 0;
    double v;
    if (o->kind == HR_OPT_INT) {
        long long x = strtoll(s, &end, 10);
        if (errno == ERANGE || *end)
            return hr_fail("%s: expected an integer in [%.0f, %.0f], got '%s'", o->name, o->lo,
                           o->hi, s);
        v = (double)x;
    } else {
        v = strtod(s, &end);
        if (o->kind == HR_OPT_BYTES && end != s && *end) {
            static const char sfx[] = "KMGT";
            const char *k = strchr(sfx, *end == 'k' ? 'K' : *end);
            if (k && *end) {
                v *= pow(1024.0, (double)(k - sfx + 1));
                end++;
                if (*end == 'i') end++;
                if (*end == 'B') end++;
            }
        }
        if (end == s || *end || !isfinite(v))
            return hr_fail("%s: expected a number%s, got '%s'", o->name,
                           o->kind == HR_OPT_BYTES ? " of bytes (e.g. 512M, 4G)" : "", s);
    }
    if (v < o->lo || v > o->hi) {
        if (o->kind == HR_OPT_INT)
            return hr_fail("%s: must be in [%.0f, %.0f], got %s", o->name, o->lo, o->hi, s);
        return hr_fail("%s: must be in [%g, %g], got %s", o->name, o->lo, o->hi, s);
    }
    *out = v;
    return HR_OK;
}

static int set_opt(const hr_opt *o, const char *val)
{
    double v;
    int st;
    switch (o->kind) {
    case HR_OPT_INT:
        if ((st = parse_num(o, val, &v))) return st;
        *(int *)o->dst = (int)v;
        return HR_OK;
    case HR_OPT_DOUBLE:
    case HR_OPT_BYTES:
        if ((st = parse_num(o, val, &v))) return st;
        *(double *)o->dst = v;
        return HR_OK;
    case HR_OPT_STR:
        if (!*val) return hr_fail("%s: expected a value, got an empty string", o->name);
        *(const char **)o->dst = val;
        return HR_OK;
    case HR_OPT_ENUM: {
        int i = hr_choice(o->choices, val);
        if (i < 0) {
            char buf[256];
            choices_str(o->choices, buf, sizeof buf);
            return hr_fail("%s: expected one of %s, got '%s'", o->name, buf, val);
        }
        *(int *)o->dst = i;
        return HR_OK;
    }
    case HR_OPT_FLAG: *(bool *)o->dst = true; return HR_OK;
    case HR_OPT_GROUP: break;
    case HR_OPT_KERNEL: {
        const hr_kernel *k = hr_kernel_find(val);
        if (!k) return hr_kernel_unknown(o->name, val);
        *(const hr_kernel **)o->dst = k;
        return HR_OK;
    }
    }
    return hr_fail("%s: unknown option kind", o->name);
}

static void print_opts(FILE *f, const hr_opt *opts)
{
    for (const hr_opt *o = opts; o && o->name; o++) {
        if (o->kind == HR_OPT_GROUP) {
            print_opts(f, o->dst);
            continue;
        }
        char left[96];
        if (o->kind == HR_OPT_FLAG) snprintf(left, sizeof left, "%s", o->name);
        else if (o->kind == HR_OPT_ENUM) {
            char buf[80];
            choices_str(o->choices, buf, sizeof buf);
            snprintf(left, sizeof left, "%s %s", o->name, buf);
        } else
            snprintf(left, sizeof left, "%s %s", o->name, o->metavar ? o->metavar : "X");
        fprintf(f, "  %-30s %s\n", left, o->help ? o->help : "");
    }
}

void hr_usage(FILE *f, const char *synopsis, const hr_opt *opts)
{
    fprintf(f, "usage: headroom %s\n", synopsis);
    if (opts && opts[0].name) fprintf(f, "\noptions:\n");
    print_opts(f, opts);
    fprintf(f, "  %-30s %s\n", "--help", "show this help");
}

/* The option called name[0..len) in opts or the groups it splices in, or NULL. */
static const hr_opt *find_opt(const hr_opt *opts, const char *name, size_t len)
{
    const hr_opt *found = NULL;
    for (const hr_opt *x = opts; x && x->name; x++) {
        const hr_opt *o = x->kind == HR_OPT_GROUP ? find_opt(x->dst, name, len)
                          : strlen(x->name) == len && !strncmp(x->name, name, len) ? x
                                                                                  : NULL;
        if (o) found = o;
    }
    return found;
}

int hr_parse(int argc, char **argv, const hr_opt *opts, const char *synopsis, char **pos,
             int maxpos, int *npos)
{
    int np = 0;
    bool only_pos = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || !a[1]) {
            if (np >= maxpos) return hr_fail("unexpected argument '%s'", a);
            pos[np++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            only_pos = true;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            hr_usage(stdout, synopsis, opts);
            return -1;
        }
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const hr_opt *o = find_opt(opts, a, len);
        if (!o) return hr_fail("unknown option '%.*s' (see --help)", (int)len, a);
        const char *val = NULL;
        if (o->kind == HR_OPT_FLAG) {
            if (eq) return hr_fail("%s: takes no value", o->name);
        } else if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc) return hr_fail("%s: missing value", o->name);
            val = argv[++i];
        }
        int st = set_opt(o, val);
        if (st) return st;
    }
    if (npos) *npos = np;
    return HR_OK;
}

void hr_shape_flags_init(hr_shape_flags *f)
{
    *f = (hr_shape_flags){.batch = 1, .heads = 8, .seq = 512, .d_head = 64};
    const hr_opt o[] = {
        {"--batch", HR_OPT_INT, &f->batch, 1, HR_MAX_BATCH, NULL, "B", "batch size (1)"},
        {"--heads", HR_OPT_INT, &f->heads, 1, HR_MAX_HEADS, NULL, "H", "query heads (8)"},
        {"--kv-heads", HR_OPT_INT, &f->kv_heads, 1, HR_MAX_HEADS, NULL, "G", "KV heads, divides H (H)"},
        {"--seq", HR_OPT_INT, &f->seq, 1, HR_MAX_SEQ, NULL, "N", "query rows Nq (512)"},
        {"--seq-kv", HR_OPT_INT, &f->seq_kv, 1, HR_MAX_SEQ, NULL, "M", "key rows Nkv (N)"},
        {"--d-head", HR_OPT_INT, &f->d_head, 1, HR_MAX_DHEAD, NULL, "D", "head dimension (64)"},
        {"--scale", HR_OPT_DOUBLE, &f->scale, 0, 1e30, NULL, "S", "softmax scale (1/sqrt(D))"},
        {"--causal", HR_OPT_FLAG, &f->causal, 0, 0, NULL, NULL, "causal mask, bottom-right aligned"},
        {"--layout", HR_OPT_ENUM, &f->layout, 0, 0, hr_layout_names, NULL, "tensor layout (bhnd)"},
        {NULL},
    };
    _Static_assert(sizeof o <= sizeof f->opts, "hr_shape_flags.opts too small");
    memcpy(f->opts, o, sizeof o);
}

hr_problem hr_shape_flags_problem(const hr_shape_flags *f)
{
    return (hr_problem){f->batch,  f->heads,  f->kv_heads ? f->kv_heads : f->heads,
                        f->seq,    f->seq_kv ? f->seq_kv : f->seq,
                        f->d_head, f->causal, (float)f->scale};
}

/* cli.c — option tables: parsing with type and range checks, one-line errors, --help. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "headroom.h"
#include "inputs.h"
#include "plugins.h"

const char *const hr_format_names[] = {"table", "csv", "json", "markdown", NULL};

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
    case HR_OPT_ENUM:
    case HR_OPT_FORMAT: {
        int i = hr_choice(o->choices, val);
        if (i < 0) {
            char buf[256];
            choices_str(o->choices, buf, sizeof buf);
            return hr_fail("%s: expected one of %s, got '%s'", o->name, buf, val);
        }
        if (o->kind == HR_OPT_FORMAT) *(hr_format *)o->dst = (hr_format)hr_choice(hr_format_names, val);
        else *(int *)o->dst = i;
        return HR_OK;
    }
    case HR_OPT_FLAG: *(bool *)o->dst = true; return HR_OK;
    case HR_OPT_GROUP: break;
    case HR_OPT_PLUGIN: return HR_OK; /* loaded before parsing (load_plugins) */
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
        else if (o->kind == HR_OPT_ENUM || o->kind == HR_OPT_FORMAT) {
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

hr_opt *hr_opt_help(hr_opt *opts, const char *name, const char *help)
{
    hr_opt *o = opts;
    while (o->name && strcmp(o->name, name)) o++;
    assert(o->name && "hr_opt_help: no such option in the group");
    o->help = help;
    return o;
}

/* For a table with --plugin: every --plugin FILE / --plugin=FILE of argv (up to "--"),
 * and HEADROOM_PLUGIN_PATH, loaded before any option is parsed. -1 when a kernel's name
 * clashed (its line printed): the command stops, main's exit is the plugins' 2. */
static int load_plugins(int argc, char **argv, const hr_opt *opts)
{
    const hr_opt *o = find_opt(opts, "--plugin", 8);
    if (!o || o->kind != HR_OPT_PLUGIN) return 0;
    const char **files = calloc((size_t)argc, sizeof *files);
    int n = 0;
    for (int i = 1; files && i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--plugin") && i + 1 < argc) files[n++] = argv[++i];
        else if (!strncmp(argv[i], "--plugin=", 9)) files[n++] = argv[i] + 9;
    }
    hr_plugins_load_all(files, n, argv[0], stderr);
    free(files);
    return hr_plugins_clashed() ? -1 : 0;
}

static hr_opt_sink ref_sink;
static void *ref_ctx;

void hr_parse_sink(hr_opt_sink fn, void *ctx)
{
    ref_sink = fn, ref_ctx = ctx;
}

const char *hr_opt_kind_name(hr_opt_kind k)
{
    static const char *const names[] = {"int", "double", "str", "flag", "enum", "bytes", "group", "kernel", "format", "plugin"};
    _Static_assert(sizeof names / sizeof names[0] == HR_OPT_PLUGIN + 1, "a name for every hr_opt_kind");
    return (unsigned)k <= HR_OPT_PLUGIN ? names[k] : "?";
}

int hr_cmd_status(const char *cmd, int st)
{
    if (st <= 0) return HR_OK;
    fprintf(stderr, "headroom %s: %s\n", cmd, hr_errmsg());
    return st;
}

int hr_parse(int argc, char **argv, const hr_opt *opts, const char *synopsis, char **pos,
             int maxpos, int *npos)
{
    if (ref_sink) {
        ref_sink(synopsis, opts, ref_ctx);
        return -1;
    }
    int np = 0;
    if (load_plugins(argc, argv, opts)) return -1;
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
        if (!o && ((len == 10 && !strncmp(a, "--kv-dtype", 10)) || (len == 7 && !strncmp(a, "--dtype", 7))))
            return hr_fail("%.*s: this command takes no element types (they apply to run, sweep, tune, "
                           "decode-loop, check and layer)", (int)len, a);
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
        {"types", HR_OPT_GROUP, f->types.opts, 0, 0, NULL, NULL, NULL},
        {"variants", HR_OPT_GROUP, f->variants.opts, 0, 0, NULL, NULL, NULL},
        {NULL},
    };
    _Static_assert(sizeof o <= sizeof f->opts, "hr_shape_flags.opts too small");
    memcpy(f->opts, o, sizeof o);
    hr_dtype_flags_init(&f->types, NULL, NULL);
    hr_variant_flags_init(&f->variants);
}

void hr_variant_flags_init(hr_variant_flags *f)
{
    *f = (hr_variant_flags){0};
    const hr_opt o[] = {
        {"--window", HR_OPT_INT, &f->window, 1, HR_MAX_SEQ, NULL, "W", "sliding window: a causal row sees its last W keys"},
        {"--softcap", HR_OPT_DOUBLE, &f->softcap, 1e-6, 1e6, NULL, "C", "soft cap: scores become C tanh(s / C)"},
        {"--alibi", HR_OPT_DOUBLE, &f->alibi, 1e-6, 1e3, NULL, "B", "ALiBi biases of max bias B (8: the paper's slopes)"},
        {"--page-size", HR_OPT_INT, &f->page_size, 1, HR_MAX_SEQ, NULL, "P", "paged KV cache: P keys a block (a power of two >= 16), blocks shuffled"},
        {NULL},
    };
    _Static_assert(sizeof o <= sizeof f->opts, "hr_variant_flags.opts too small");
    memcpy(f->opts, o, sizeof o);
}

void hr_variant_flags_apply(const hr_variant_flags *f, hr_problem *p)
{
    p->window = f->window;
    p->softcap = (float)f->softcap;
    p->alibi = (float)f->alibi;
    p->page_size = f->page_size;
}

/* --dtype takes the float types, the first three of hr_dtype_names (the same indices). */
static const char *const float_dtype_names[] = {"f32", "bf16", "f16", NULL};

void hr_dtype_flags_init(hr_dtype_flags *f, const char *dtype_help, const char *kv_help)
{
    _Static_assert(HR_F32 == 0 && HR_BF16 == 1 && HR_F16 == 2, "float_dtype_names follows hr_dtype");
    *f = (hr_dtype_flags){.dtype = -1, .kv_dtype = -1};
    const hr_opt o[] = {
        {"--dtype", HR_OPT_ENUM, &f->dtype, 0, 0, float_dtype_names, NULL, "element type of Q, K, V, O (f32)"},
        {"--kv-dtype", HR_OPT_ENUM, &f->kv_dtype, 0, 0, hr_dtype_names, NULL, "stored K/V type (--dtype)"},
        {NULL},
    };
    _Static_assert(sizeof o <= sizeof f->opts, "hr_dtype_flags.opts too small");
    memcpy(f->opts, o, sizeof o);
    if (dtype_help) f->opts[0].help = dtype_help;
    if (kv_help) f->opts[1].help = kv_help;
}

void hr_dtype_flags_apply(const hr_dtype_flags *f, hr_problem *p)
{
    p->dtype = f->dtype < 0 ? HR_F32 : (hr_dtype)f->dtype;
    p->kv_dtype = f->kv_dtype < 0 ? p->dtype : (hr_dtype)f->kv_dtype;
}

const char *hr_opt_given(int argc, char **argv, const hr_opt *opts, const char *except)
{
    for (const hr_opt *o = opts; o->name; o++) {
        if (except && !strcmp(o->name, except)) continue;
        const size_t n = strlen(o->name);
        for (int i = 1; i < argc; i++) {
            if (!strcmp(argv[i], "--")) break;
            if (!strncmp(argv[i], o->name, n) && (argv[i][n] == 0 || argv[i][n] == '=')) return o->name;
        }
    }
    return NULL;
}

hr_problem hr_shape_flags_problem(const hr_shape_flags *f)
{
    hr_problem p = {f->batch,  f->heads,  f->kv_heads ? f->kv_heads : f->heads,
                    f->seq,    f->seq_kv ? f->seq_kv : f->seq,
                    f->d_head, f->causal, (float)f->scale, HR_F32, HR_F32, 0, 0, 0, 0};
    hr_dtype_flags_apply(&f->types, &p);
    hr_variant_flags_apply(&f->variants, &p);
    return p;
}

/* Copies into out the entries of all[0..n) that the command takes: need[i] == 0 (always)
 * or a bit of members; then the end entry. out has room for n + 1. */
static void keep(const hr_opt *all, const unsigned *need, size_t n, unsigned members, hr_opt *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!need[i] || (need[i] & members)) out[m++] = all[i];
    out[m] = (hr_opt){NULL};
}

void hr_timing_flags_init(hr_timing_flags *f, unsigned members)
{
    *f = (hr_timing_flags){.reps = 9, .seed = 1, .dist = HR_DIST_NORMAL, .min_time = 0.05, .warmup = 0.1};
    const hr_opt all[] = {
        {"--reps", HR_OPT_INT, &f->reps, 1, HR_MAX_REPS, NULL, "R", "timed repetitions (9)"},
        {"--min-time", HR_OPT_DOUBLE, &f->min_time, 0, 3600, NULL, "SEC", "minimum seconds per repetition (0.05)"},
        {"--warmup", HR_OPT_DOUBLE, &f->warmup, 0, 3600, NULL, "SEC", "untimed warm-up seconds (0.1)"},
        {"--cold", HR_OPT_FLAG, &f->cold, 0, 0, NULL, NULL, "flush caches before every repetition"},
        {"--seed", HR_OPT_INT, &f->seed, 0, 2147483647, NULL, "S", "input seed (1)"},
        {"--dist", HR_OPT_ENUM, &f->dist, 0, 0, hr_dist_names, NULL, "input distribution (normal)"},
    };
    static const unsigned need[] = {HR_TF_REPS, HR_TF_MIN_TIME, HR_TF_WARMUP, HR_TF_COLD, HR_TF_SEED, HR_TF_DIST};
    _Static_assert(sizeof all / sizeof all[0] == sizeof need / sizeof need[0], "need[]");
    _Static_assert(sizeof need / sizeof need[0] < sizeof f->opts / sizeof f->opts[0], "hr_timing_flags.opts");
    keep(all, need, sizeof need / sizeof need[0], members, f->opts);
}

hr_timer_opts hr_timing_flags_timer(const hr_timing_flags *f)
{
    return (hr_timer_opts){.reps = f->reps, .min_time = f->min_time, .warmup = f->warmup, .cold = f->cold};
}

void hr_worker_flags_init(hr_worker_flags *f, const char *default_help)
{
    *f = (hr_worker_flags){0};
    snprintf(f->help, sizeof f->help, "seconds a measurement may take in its worker before it is stopped and failed (%s)",
             default_help);
    f->opts[0] = (hr_opt){"--timeout", HR_OPT_DOUBLE, &f->timeout, 0.001, 1e9, NULL, "SECONDS", f->help};
    f->opts[1] = (hr_opt){"--in-process", HR_OPT_FLAG, &f->in_process, 0, 0, NULL, NULL,
                          "measure in this process, not in a worker (for a debugger; a crash ends the command)"};
}

int hr_worker_failed(const char *cmd, const char *who, const hr_proc *w)
{
    if (w->status != -1 && WIFEXITED(w->status) && WEXITSTATUS(w->status) == 3) return 3;
    fprintf(stderr, "headroom %s: %s: failed in its worker: %s\n", cmd, who, w->reason);
    return HR_EWORKER;
}

void hr_probe_flags_init(hr_probe_flags *f, unsigned members)
{
    *f = (hr_probe_flags){.kind = HR_PROBE_AUTO, .pct = HR_PHASE_THRESHOLD * 100};
    const hr_opt all[] = {
        {"--probe", HR_OPT_FLAG, &f->probe, 0, 0, NULL, NULL, "probe the concurrent ceiling around every repetition (default)"},
        {"--no-probe", HR_OPT_FLAG, &f->no_probe, 0, 0, NULL, NULL, "no probes: no frac_of_ceiling, no phase flags"},
        {"--probe-kind", HR_OPT_ENUM, &f->kind, 0, 0, hr_probe_kind_names, NULL,
         "fma, bw, or auto: bw when AI < machine balance (auto)"},
        {"--phase-filter", HR_OPT_FLAG, &f->filter, 0, 0, NULL, NULL, "leave repetitions that changed phase out of the medians"},
        {"--phase-threshold", HR_OPT_DOUBLE, &f->pct, 0.1, 100, NULL, "PCT",
         "phase change: the probes before and after a repetition differ by more than PCT% (10)"},
    };
    static const unsigned need[] = {0, 0, HR_PF_KIND, 0, HR_PF_THRESHOLD};
    _Static_assert(sizeof all / sizeof all[0] == sizeof need / sizeof need[0], "need[]");
    _Static_assert(sizeof need / sizeof need[0] < sizeof f->opts / sizeof f->opts[0], "hr_probe_flags.opts");
    keep(all, need, sizeof need / sizeof need[0], members, f->opts);
}

int hr_probe_flags_check(const hr_probe_flags *f)
{
    if (f->probe && f->no_probe) return hr_fail("--probe: not with --no-probe");
    if (f->kind == HR_PROBE_OFF) return hr_fail("--probe-kind: expected fma, bw or auto (use --no-probe for none)");
    if (f->no_probe && f->filter) return hr_fail("--phase-filter: needs the probes (not with --no-probe)");
    return HR_OK;
}

hr_probe_kind hr_probe_flags_kind(const hr_probe_flags *f)
{
    return f->no_probe ? HR_PROBE_OFF : (hr_probe_kind)f->kind;
}

void hr_wisdom_flags_init(hr_wisdom_flags *f, bool with_off)
{
    *f = (hr_wisdom_flags){0};
    const hr_opt all[] = {
        {"--wisdom", HR_OPT_STR, &f->path, 0, 0, NULL, "FILE", "tuned parameters ($HEADROOM_WISDOM or results/<machine>/wisdom.json)"},
        {"--no-wisdom", HR_OPT_FLAG, &f->off, 0, 0, NULL, NULL, "ignore wisdom: kernel defaults unless flags"},
    };
    static const unsigned need[] = {0, 1};
    keep(all, need, 2, with_off ? 1u : 0u, f->opts);
}

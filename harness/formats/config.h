/* config.h — sweep configuration files: an INI [sweep] section of value lists and ranges. */
#ifndef HR_CONFIG_H
#define HR_CONFIG_H

#include <stdbool.h>

#include "headroom.h"
#include "models.h"

#define HR_CFG_MAXV 64       /* values per dimension (a range may expand to this many) */
#define HR_CFG_MAXPOINTS 20000 /* the cartesian product is refused beyond this         */
#define HR_CFG_MAXKERNELS 32
#define HR_CFG_MAXGEMM 4

/* A list of integers: "128, 256", a geometric range "128..4096*2" (start, start*f, ...
 * up to end) or an arithmetic one "1..8+1". Values keep their order; duplicates stay. */
typedef struct {
    int n;
    int v[HR_CFG_MAXV];
} hr_ilist;

/* How the KV heads follow from the query heads: mha (Hkv = Hq), mqa (1), a count, or
 * ratio:r (Hkv = Hq / r). */
typedef enum { HR_KV_MHA, HR_KV_MQA, HR_KV_COUNT, HR_KV_RATIO } hr_kv_kind;
typedef struct {
    hr_kv_kind kind;
    int n;
} hr_kv_spec;

/* One shape of shapes = ...: "H32/G8/N2048/M2048/d128/causal" (G, M, causal optional:
 * G = H, M = N, full), the row names' segments, so a shape is copied from a row name. */
typedef struct {
    int heads, kv_heads, seq_q, seq_kv, d_head;
    bool causal;
} hr_cfg_shape;

/* A kernel the config names that is not measured, and why: an optional one ("name?")
 * no plugin declares, or "plugins" with none loaded. The sweep lists them in skipped. */
typedef struct {
    char name[40];
    char reason[200];
} hr_cfg_absent;

typedef enum { HR_MODE_ATTENTION = 0, HR_MODE_LAYER = 1 } hr_sweep_mode;
extern const char *const hr_mode_names[]; /* "attention", "layer", NULL */

typedef struct {
    char path[512];
    char name[96];          /* file name without directory and ".ini"               */
    char description[200];
    hr_sweep_mode mode;
    int nkernels;
    const hr_kernel *kernels[HR_CFG_MAXKERNELS];
    hr_ilist batch, heads, d_head, d_model, seq, seq_kv, threads, block_q, block_kv;
    bool seq_kv_same;       /* seq_kv = same (the default): Nkv = Nq                 */
    int nkv;
    hr_kv_spec kv[HR_CFG_MAXV];
    int ncausal;
    bool causal[HR_CFG_MAXV];
    int nlayout;
    hr_layout layout[HR_CFG_MAXV];
    int reps, passes, seed;
    double min_time, warmup, max_mem; /* max_mem 0: half of RAM                    */
    int dist;               /* hr_dist                                               */
    bool check, cold;
    int probe;              /* hr_probe_kind: probe = true|auto (auto), fma, bw, false */
    bool phase_filter;      /* phase_filter = true: drop repetitions that changed phase */
    double phase_threshold; /* phase_threshold = PCT (10), stored as a fraction       */
    bool interleave;        /* interleave = true: spread repetitions over rounds      */
    int ndtype;             /* dtype = f32, bf16: Q, K, V, O element types (f32)      */
    hr_dtype dtype[HR_CFG_MAXV];
    int nkv_dtype;          /* kv_dtype = q8_0, q4_0: the stored K/V types; 0 (unset): */
    hr_dtype kv_dtype[HR_CFG_MAXV]; /* the same as each point's dtype              */
    int ngemm;              /* mode = layer: gemm = own, blas (hr_gemm_backend; own)  */
    int gemm[HR_CFG_MAXGEMM];
    int nmodels;            /* models = NAME, ...: each model's (heads, kv_heads, d_head,
                             * and in layer mode d_model) is one shape, in place of the
                             * product of those keys; from models_file (the presets)   */
    hr_model model[HR_CFG_MAXV];
    char models_file[512];  /* "" : configs/model-presets.ini (hr_models_open's default)    */
    int nshapes;            /* shapes = H8/N1024/d64, ...: a list of distinct shapes in place
                             * of the product of heads, kv_heads, d_head, seq, seq_kv, causal */
    hr_cfg_shape shape[HR_CFG_MAXV];
    hr_ilist window;        /* window = 0, 1024, 4096: sliding windows (0: none; a window
                             * is causal: on a full point the point is refused)         */
    int nsoftcap, nalibi;   /* softcap = 0, 50 and alibi = 0, 8: soft caps and ALiBi max
                             * biases (0: none); each axis defaults to the one value 0  */
    double softcap[HR_CFG_MAXV], alibi[HR_CFG_MAXV];
    int nabsent;            /* kernels named but not measured (kernels = plugins, name?)  */
    hr_cfg_absent absent[HR_CFG_MAXKERNELS];
    bool stop_after_crossover; /* mode = layer: once a series' core is slower than its
                              * projections at some N, larger N are skipped with a note */
    /* Not from the file; the caller sets them (headroom sweep --wisdom, --no-wisdom). */
    bool wisdom;            /* fill tunables the config leaves 0 from the wisdom file */
    const char *wisdom_path; /* NULL: hr_wisdom_default_path()                       */
} hr_sweep_config;

/* Reads a sweep config. kernels = takes names, "all" (every kernel loaded, built-in and
 * plugin), "plugins" (every loaded plugin's kernels; none loaded: noted in absent) and
 * "name?" (optional: a kernel no plugin declares is noted in absent, not an error; an
 * unknown name without "?" is an error). A value continues on indented lines (joined
 * with a space), so a long list ends each line with a comma. Defaults: kernels = all, batch = 1, heads = 8, kv_heads = mha,
 * seq = 512, seq_kv = same, d_head = 64, causal = false, layout = bhnd, dtype = f32,
 * kv_dtype = dtype, window = softcap = alibi = 0 (none), threads = 0 (the
 * kernel's default), block_q = block_kv = 0 (defaults), reps = 9, passes = 1,
 * min_time = 0.05, warmup = 0.1, dist = normal, seed = 1, check = false, cold = false,
 * probe = auto, phase_filter = false, phase_threshold = 10 (%), interleave = true.
 * On error returns HR_EUSAGE with "FILE:LINE: message" (unknown section or key, a key
 * given twice, a bad value, a range that never ends, a product over HR_CFG_MAXPOINTS). */
int hr_config_load(const char *path, hr_sweep_config *c);
/* Same, from text (path is only used in messages and for the name). */
int hr_config_parse(const char *text, const char *path, hr_sweep_config *c);
/* Parses one integer list or range into l, values in [lo, hi]. HR_EUSAGE with a message
 * (no file:line) on error. */
int hr_ilist_parse(const char *s, int lo, int hi, hr_ilist *l);
/* Splits s in place at commas into at most max trimmed items (pointers into s): the one
 * parser of comma lists (configs, and the CLI's lists of names). -1 when there are more
 * items, or an item is empty ("a,,b", "a,"). */
int hr_list_split(char *s, char **items, int max);
/* Parses one shape of shapes = ("H32/G8/N2048/d128/causal") into *s. HR_EUSAGE with a
 * message (no file:line) for a token that is not H, G, N, M, d with a number in range,
 * causal or full, a token given twice, or H, N or d missing. */
int hr_cfg_shape_parse(const char *text, hr_cfg_shape *s);
/* Parses the value of a variant axis (key "window", "softcap" or "alibi") into c: a list
 * of windows (integers in [0, HR_MAX_SEQ], ranges as for hr_ilist_parse) or of soft caps
 * (numbers in [0, 1e6]) or ALiBi max biases ([0, 1000]); 0 is the point without it.
 * HR_EUSAGE with a message (no file:line) on error. */
int hr_cfg_variant_parse(const char *key, char *val, hr_sweep_config *c);
/* Points in the cartesian product (before skipping and deduplication). */
double hr_config_points(const hr_sweep_config *c);

#endif

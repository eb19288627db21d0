/* headroom.h — the attention problem, strided tensor views and the kernel interface. */
#ifndef HEADROOM_H
#define HEADROOM_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- status codes and the last error message -------------------------------- */

enum {
    HR_OK = 0,
    HR_EFAIL = 1,  /* a check or a regression failed                       */
    HR_EUSAGE = 2, /* bad usage or input: the message names the flag/file  */
};

/* Records a one-line message (printf format) and returns HR_EUSAGE. */
int hr_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, returning the given status. */
int hr_failc(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Index of s in a NULL-terminated list of names (hr_layout_names, ...), or -1. */
int hr_choice(const char *const *choices, const char *s);
/* The message recorded by the last hr_fail on this thread ("" if none). */
const char *hr_errmsg(void);

/* ---- the problem ------------------------------------------------------------ */

/* Sane upper limits, checked by hr_problem_validate before anything is allocated. */
#define HR_MAX_BATCH 4096
#define HR_MAX_HEADS 4096
#define HR_MAX_SEQ (1 << 24)
#define HR_MAX_DHEAD 4096

/* ---- element types ------------------------------------------------------------ */

/* How a tensor's values are stored. f32 is IEEE binary32; bf16 and f16 are the upper
 * half of binary32 (round to nearest even) and IEEE binary16; q8_0 and q4_0 are
 * llama.cpp's block formats: 32 consecutive values along d per block, one fp16 scale d
 * per block, value = d * q with q an int8 (q8_0: 34 bytes per block) or a nibble minus 8
 * (q4_0: 18 bytes; byte j holds value j in its low nibble and value j + 16 in its high
 * one). A row of d values takes hr_dtype_row_bytes(t, d) bytes. */
typedef enum { HR_F32 = 0, HR_BF16, HR_F16, HR_Q8_0, HR_Q4_0, HR_NDTYPES } hr_dtype;
extern const char *const hr_dtype_names[]; /* "f32", "bf16", "f16", "q8_0", "q4_0", NULL */
#define HR_QBLOCK 32 /* values per q8_0 / q4_0 block */
/* Values per block: 1, or HR_QBLOCK for the block formats. */
int hr_dtype_block(hr_dtype t);
/* Bytes of a row of n values (n a multiple of hr_dtype_block(t)). */
size_t hr_dtype_row_bytes(hr_dtype t, int n);
/* Bytes per value, scales included: 4, 2, 2, 34/32, 18/32. */
double hr_dtype_bytes(hr_dtype t);
/* Stores n floats as a row of type t (n a multiple of its block) and back. Quantization
 * follows llama.cpp's reference (quantize_row_q8_0_ref, quantize_row_q4_0_ref), so a
 * row's bytes and its error match llama.cpp's one to one. */
void hr_dtype_store_row(hr_dtype t, const float *x, void *row, int n);
void hr_dtype_load_row(hr_dtype t, const void *row, float *x, int n);
/* Scalar conversions (round to nearest even; NaN stays NaN). */
uint16_t hr_f32_to_bf16(float x);
float hr_bf16_to_f32(uint16_t h);
uint16_t hr_f32_to_f16(float x);
float hr_f16_to_f32(uint16_t h);

/* One multi-head attention problem. Q: [B][Hq][Nq][d], K, V: [B][Hkv][Nkv][d].
 * Query head h reads KV head h / (Hq / Hkv). Causal is bottom-right aligned: key j is
 * visible to query i iff j <= i' = i + (Nkv - Nq); a row that sees no key is all zeros.
 * The variants people deploy, each 0 when off (docs/explanation/variants.md):
 *   window   W >= 1, causal only: row i sees keys i' - W < j <= i' (Mistral, Gemma 2);
 *   softcap  c > 0: each scaled score s becomes c tanh(s / c) (Gemma 2);
 *   alibi    max bias b > 0: query head h's score of key j gains -m_h |i' - j|, the
 *            slopes m_h of ALiBi's rule (hr_alibi_slope; b = 8 is the paper's). */
typedef struct {
    int batch, heads, kv_heads; /* B, Hq, Hkv                       */
    int seq_q, seq_kv, d_head;  /* Nq, Nkv, d                       */
    bool causal;
    float scale;        /* 0 means 1/sqrt(d)                 */
    hr_dtype dtype;     /* Q, O (and K, V unless kv_dtype says otherwise): f32, bf16, f16 */
    hr_dtype kv_dtype;  /* the stored K and V: any type; block types need d % 32 == 0  */
    int window;         /* sliding window W (keys a row sees), 0: none              */
    float softcap;      /* soft cap c of the scaled scores, 0: none                 */
    float alibi;        /* ALiBi max bias, 0: none                                  */
    int page_size;      /* paged KV cache: P keys a block (hr_kv_page_row), 0: contiguous */
} hr_problem;

/* Page sizes (--page-size): a power of two in [HR_PAGE_MIN, HR_PAGE_MAX], at most Nkv.
 * HR_PAGE_MIN is HR_KV_TILE, so a q8_0/q4_0 cache's 16-key tiles never cross a page. */
#define HR_PAGE_MIN 16
#define HR_PAGE_MAX 65536
/* HR_OK where P is such a page size (the cache's length aside), else hr_fail's one line
 * naming --page-size and the rule: the one check every reader of the flag makes. */
int hr_page_size_check(long P);

/* Checks the element types (dtype f32, bf16 or f16; d a multiple of 32 for a block
 * kv_dtype), sizes >= 1, limits, Hkv | Hq and that every tensor's element count fits in
 * size_t and ptrdiff_t. On error returns HR_EUSAGE with a message naming the flag. */
int hr_problem_validate(const hr_problem *p);
/* The softmax scale actually used (p->scale, or 1/sqrt(d) when it is 0). */
float hr_problem_scale(const hr_problem *p);
/* Query heads per KV head (Hq / Hkv). */
static inline int hr_group(const hr_problem *p) { return p->heads / p->kv_heads; }
/* Last key visible to query row i, plus one (0..Nkv): keys [0, end) are visible. */
static inline int hr_causal_end(const hr_problem *p, int i)
{
    if (!p->causal) return p->seq_kv;
    long e = (long)i + 1 + (long)p->seq_kv - (long)p->seq_q;
    return e < 0 ? 0 : e > p->seq_kv ? p->seq_kv : (int)e;
}
/* First key visible to query row i (0..Nkv): keys [begin, end) are visible. */
static inline int hr_window_begin(const hr_problem *p, int i)
{
    if (p->window <= 0) return 0;
    long b = (long)i + 1 + (long)p->seq_kv - (long)p->seq_q - p->window;
    return b < 0 ? 0 : b > p->seq_kv ? p->seq_kv : (int)b;
}
/* Whether p has none of the variants (window, softcap, alibi). */
static inline bool hr_problem_plain(const hr_problem *p)
{
    return p->window <= 0 && !(p->softcap > 0) && !(p->alibi > 0);
}
/* ALiBi's slope m_h of query head h for p->alibi = b (ggml's rule, the paper's for b = 8):
 * with n = 2^floor(log2 Hq), m_h = 2^(-b (h + 1) / n) for h < n, else
 * 2^(-b (2 (h - n) + 1) / (2 n)). 0 when p has no alibi. */
float hr_alibi_slope(const hr_problem *p, int h);
/* The score of key j for row i of query head h (slope hr_alibi_slope(p, h)) from its
 * scaled dot product s: the soft cap, then ALiBi's bias. For scalar code (the reference
 * kernels, tails); the vector kernels apply the same in log2 units. */
static inline float hr_score_variants(const hr_problem *p, float slope, int i, int j, float s)
{
    if (p->softcap > 0) s = p->softcap * tanhf(s / p->softcap);
    if (slope > 0) s -= slope * fabsf((float)((long)i + p->seq_kv - p->seq_q - j));
    return s;
}
/* A short text form: "B1 H16/4 N256x256 d64 causal window 4096". */
void hr_problem_str(const hr_problem *p, char *buf, size_t len);
/* p's variants as text (" window 4096 softcap 50 alibi 8"; "" when plain). */
void hr_problem_variants_str(const hr_problem *p, char *buf, size_t len);

/* ---- strided views ------------------------------------------------------------ */

/* A 4-D tensor [batch][head][row][col] with unit stride inside a row. Strides are in
 * elements. BHND and BNHD (what a projection produces) are both plain views. */
typedef struct {
    const float *p;
    ptrdiff_t sb, sh, sn;
} hr_cview;
typedef struct {
    float *p;
    ptrdiff_t sb, sh, sn;
} hr_view;

typedef enum { HR_LAYOUT_BHND = 0, HR_LAYOUT_BNHD = 1 } hr_layout;
extern const char *const hr_layout_names[]; /* "bhnd", "bnhd", NULL */

/* The view of a densely packed [B][H][N][d] tensor stored in the given layout. */
hr_view hr_view_dense(float *base, hr_layout layout, int batch, int heads, int rows, int d);
static inline hr_cview hr_cv(hr_view v) { return (hr_cview){v.p, v.sb, v.sh, v.sn}; }
static inline const float *hr_crow(hr_cview v, int b, int h, int n)
{
    return v.p + b * v.sb + h * v.sh + n * v.sn;
}
static inline float *hr_row(hr_view v, int b, int h, int n)
{
    return v.p + b * v.sb + h * v.sh + n * v.sn;
}

/* A tensor stored in a type other than f32: rows of hr_dtype_row_bytes(t, d) bytes,
 * strides in bytes. tile 0: key n's row at hr_xcrow(v, b, h, n). tile HR_KV_TILE (a
 * q8_0 or q4_0 K or V cache, dense, sn the row bytes): keys in tiles of 16, the rows'
 * bytes rearranged (hr_kv_tile_offset) from hr_xcrow(v, b, h, 16 t) on; hr_xc_key_row
 * reads a key's row back from either. */
typedef struct {
    const void *p;
    ptrdiff_t sb, sh, sn;
    int tile;
} hr_xcview;
typedef struct {
    void *p;
    ptrdiff_t sb, sh, sn;
} hr_xview;
/* The view of a densely packed [B][H][N] tensor of rows of row_bytes bytes. */
hr_xview hr_xview_dense(void *base, hr_layout layout, int batch, int heads, int rows,
                        size_t row_bytes);
static inline const void *hr_xcrow(hr_xcview v, int b, int h, int n)
{
    return (const char *)v.p + b * v.sb + h * v.sh + n * v.sn;
}
static inline void *hr_xrow(hr_xview v, int b, int h, int n)
{
    return (char *)v.p + b * v.sb + h * v.sh + n * v.sn;
}
/* The read-only view of rows (tile 0). */
static inline hr_xcview hr_xcv(hr_xview v) { return (hr_xcview){v.p, v.sb, v.sh, v.sn, 0}; }

/* q8_0 and q4_0 caches in tiles of HR_KV_TILE keys, for decode's int8 step (decode_i8sc.h,
 * decode_i8pv.h; the avx512 and avx2 levels): the 16 keys' row bytes (per block its fp16 scale
 * and the 32 values' bytes, q4_0's as nibbles), nb = d / 32 blocks, the same 16 x bb x nb
 * bytes (bb 34 or 18) rearranged so that the step loads what it computes on. K (v 0):
 * per block b at 16 bb b, the 16 scales, then the data bytes dword by dword, a lane per
 * key (byte e of key L at 32 + 4 (16 (e / 4) + L) + e % 4). V (v 1): the 16 scales of
 * block b at 32 b, then per pair of blocks (2P, 2P + 1) and quad of keys q (q4_0: 128
 * bytes, q8_0: 256, from 32 nb + 4 (4P + q) of them; a lone last block where nb is odd:
 * half as many) P·V's 4 vectors in its transposed order, dword p of a 128-bit lane one d
 * of the quad's 4 keys (dtype.c). hr_kv_tile_offset: the tile byte of row byte `byte` (0..1 the
 * scale, then the data) of block blk of the key in slot (0..15); hr_kv_tiles(t): 1 for
 * the types that have tiles (q8_0, q4_0). */
#define HR_KV_TILE 16
static inline long hr_kv_tile_keys(long n) { return (n + HR_KV_TILE - 1) / HR_KV_TILE * HR_KV_TILE; } /* n keys' whole tiles */
size_t hr_kv_tile_offset(hr_dtype t, int v, int nb, int slot, int blk, int byte);
void hr_kv_tile_put(hr_dtype t, int v, const void *row, void *tile, int slot, int d);
void hr_kv_tile_get(hr_dtype t, int v, const void *tile, int slot, void *row, int d);
int hr_kv_tiles(hr_dtype t);
/* Key n's row (hr_dtype_row_bytes(t, d) bytes) of (b, h) into row: a copy from a tiled
 * view (v 1: a V cache's), else the row itself (no copy). */
const void *hr_xc_key_row(hr_xcview x, int v, hr_dtype t, int d, int b, int h, int n, void *row);

/* The operands of one call. q, k, v, o are the f32 tensors; when p->dtype is not f32,
 * xq and xo hold Q and O in that type, and when p->kv_dtype is not f32, xk and xv hold
 * K and V in it. A kernel reads the operands of the types it declared (hr_kernel
 * dtypes, kv_dtypes); the harness fills q, k, v with the values the stored ones
 * represent (dequantized), so the oracle sees exactly what the kernel was given. */
typedef struct {
    hr_cview q, k, v;
    hr_view o;
    hr_xcview xq, xk, xv;
    hr_xview xo;
    /* A paged cache (p->page_size P > 0; vLLM's PagedAttention): k, v, xk, xv then view a
     * pool of blocks, each P keys of every KV head (sb: a block's stride; sh, sn within
     * it), and block_table[b * table_stride + n / P] is the block holding key n of
     * sequence b. NULL and 0 for a contiguous cache. */
    const int32_t *block_table;
    int table_stride; /* blocks per sequence: ceil(Nkv / P) */
} hr_args;

/* Where key n of (b, h) lives in a K or V view (strides sb, sh, sn, in the view's units):
 * b sb + h sh + n sn contiguous; paged, block table[b stride + n / P], row n % P. The one
 * rule every reader of a cache uses (the oracle, the inputs, the decode kernel). */
static inline ptrdiff_t hr_kv_page_row(const hr_problem *p, const hr_args *a, ptrdiff_t sb, ptrdiff_t sh,
                                       ptrdiff_t sn, int b, int h, int n)
{
    if (p->page_size <= 0 || !a->block_table) return b * sb + h * sh + n * sn;
    const int P = p->page_size;
    return (ptrdiff_t)a->block_table[(ptrdiff_t)b * a->table_stride + n / P] * sb + h * sh + (ptrdiff_t)(n % P) * sn;
}
/* Key n's row of (b, h) in an fp32 K/V view (a->k, a->v) or a typed one (a->xk, a->xv;
 * tile 0), through the block table where p is paged. */
static inline const float *hr_kv_crow(const hr_problem *p, const hr_args *a, hr_cview v, int b, int h, int n)
{
    return v.p + hr_kv_page_row(p, a, v.sb, v.sh, v.sn, b, h, n);
}
static inline const void *hr_kv_xcrow(const hr_problem *p, const hr_args *a, hr_xcview v, int b, int h, int n)
{
    return (const char *)v.p + hr_kv_page_row(p, a, v.sb, v.sh, v.sn, b, h, n);
}
/* hr_xc_key_row for p's cache under a: key n's row through the block table where p is
 * paged (a tile lies inside its page: P is a multiple of 16). */
const void *hr_kv_key_row(const hr_problem *p, const hr_args *a, hr_xcview x, int v, int b, int h, int n, void *row);

/* ---- tunables ------------------------------------------------------------------ */

/* A kernel's knobs. 0 means "the kernel's default"; kernel->resolve fills them in. */
typedef struct {
    int block_q;  /* query rows per tile                         */
    int block_kv; /* keys per tile                               */
    int threads;  /* OpenMP threads (0: the machine's default)   */
} hr_tune;

/* What a kernel's defaults may know of the machine; a 0 field is unknown, and the kernel
 * then assumes a fixed size (blocked, simd: 32 KiB L1d, 1 MiB L2).
 * An argument of resolve, not a field of hr_tune: a tune holds knobs, the values users
 * set and wisdom, results and `headroom tune` store, print and compare (memcmp); a cache
 * size is a fact, and as a field it would ride along into all of those. Kernels never
 * ask the harness: the harness reads the caches once (sysinfo) and hands them over at
 * start with hr_kernel_set_machine (harness/cli/main.c; gbench's main likewise), and
 * hr_kernel_tune passes them to every resolve. Programs that never set it (the unit
 * tests) get the fixed sizes on every machine. */
typedef struct {
    size_t l1d; /* L1 data cache bytes of one core             */
    size_t l2;  /* L2 cache bytes of one instance              */
    int threads; /* the default thread count, checked against the limit and the
                  * environment by the harness (0: omp_get_max_threads())       */
    size_t l3;  /* last-level (L3) cache bytes of one instance, 0 when unknown */
    int l3_shared;    /* logical CPUs sharing one L3 instance (0: unknown)           */
    int l3_instances; /* L3 instances on the machine (0: unknown, taken as 1)        */
} hr_machine;
/* The L3 bytes T threads reach: one instance per l3_shared threads (threads bound close,
 * so they fill an instance before the next; with SMT a core's two CPUs count as two, so
 * this errs small), at most l3_instances of them. 0 when l3 is unknown. */
double hr_machine_l3_reach(const hr_machine *m, int threads);
/* Sets the machine hr_kernel_tune gives every resolve. Call before any kernel is
 * resolved (not thread-safe); until then all fields are 0. */
void hr_kernel_set_machine(const hr_machine *m);

/* ---- the kernel interface ------------------------------------------------------ */

enum {
    HR_CAP_CAUSAL = 1u << 0,   /* handles causal masking                     */
    HR_CAP_GQA = 1u << 1,      /* exploits Hkv < Hq (K/V tile shared by group) */
    HR_CAP_DECODE = 1u << 2,   /* built for small Nq against a long cache    */
    HR_CAP_THREADED = 1u << 3, /* uses tune.threads                          */
    HR_CAP_BLOCK_Q = 1u << 4,  /* reads tune.block_q                         */
    HR_CAP_BLOCK_KV = 1u << 5, /* reads tune.block_kv                        */
    HR_CAP_WINDOW = 1u << 6,   /* handles a sliding window (hr_problem.window) */
    HR_CAP_SOFTCAP = 1u << 7,  /* handles soft-capped scores (softcap)        */
    HR_CAP_ALIBI = 1u << 8,    /* handles ALiBi biases (alibi)                */
    HR_CAP_PAGED = 1u << 9,    /* reads a paged KV cache (page_size, block_table) */
};

/* How a kernel moves data, for the central byte counts (counts.c). */
typedef enum {
    HR_TRAFFIC_SCORES,     /* materializes the Nq x Nkv scores of a head in memory */
    HR_TRAFFIC_KV_PER_HEAD,/* streams K/V once per query head                     */
    HR_TRAFFIC_KV_PER_GROUP/* streams K/V once per KV head (whole group at once)  */
} hr_traffic;

/* Where a kernel loaded from a plugin comes from (hr_kernel.plugin; include/headroom/
 * plugin.h is the ABI, harness/base/plugins.c the loader). */
typedef struct {
    const char *file;              /* the shared object, as it was given          */
    const char *library, *version; /* what the plugin wraps, and its version      */
    unsigned abi_major, abi_minor; /* the ABI the plugin was built against        */
    const void *impl;              /* its hrp_kernel (kernels/plugin_kernel.c)    */
    const char *(*last_error)(void); /* the plugin's message after a failed run, or NULL */
} hr_plugin_origin;

typedef struct hr_kernel {
    const char *name;    /* "flash"                               */
    const char *summary; /* one line                              */
    unsigned caps;       /* HR_CAP_*                              */
    hr_traffic traffic;
    /* NULL when the kernel can run p, else a short reason it cannot. */
    const char *(*applicable)(const hr_problem *p);
    /* Replaces 0 fields of t by this kernel's defaults for p (threads included); m is
     * the machine (never NULL, fields may be 0). */
    void (*resolve)(const hr_problem *p, const hr_machine *m, hr_tune *t);
    /* Scratch bytes run() needs for p and a resolved t; allocated by the caller,
     * 64-byte aligned, outside any timed region. */
    size_t (*workspace_bytes)(const hr_problem *p, const hr_tune *t);
    /* Computes a->o. ws has workspace_bytes(p, t) bytes. Returns HR_OK. */
    int (*run)(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws);
    /* Element types accepted, as bit masks of 1u << hr_dtype: dtypes for Q/O, kv_dtypes
     * for K/V; 0 means f32 only. hr_kernel_why_not refuses any other combination
     * before applicable is asked, which may refuse more. */
    unsigned dtypes, kv_dtypes;
    /* The code path that runs p on this CPU, e.g. "avx512-bf16 vdpbf16ps" or "f16c
     * convert"; NULL (or a NULL function) means the kernel's one path for hr_isa. */
    const char *(*path)(const hr_problem *p);
    /* NULL for a kernel built in. For a plugin's kernel, where it came from; its function
     * pointers above are then NULL and the calls go through the adapter: call a kernel
     * only through hr_kernel_why_not (applicable), hr_kernel_tune (resolve),
     * hr_kernel_workspace, hr_kernel_run and hr_kernel_path. */
    const hr_plugin_origin *plugin;
    /* NULL or 0: K/V caches in rows. HR_KV_TILE: this kernel reads p's cache faster in
     * tiles (headroom.h's hr_kv_tile_offset) under tune t; the harness then passes a
     * tiled copy (hr_kernel_kv_tile), and the kernel reads either (args' xk.tile). */
    int (*kv_tile)(const hr_problem *p, const hr_tune *t);
} hr_kernel;

/* The registry: a NULL-terminated table of every kernel built into this binary, as
 * compiled for the ISA level that runs (isa.h; set before main). */
extern const hr_kernel *const *hr_kernels;
/* Every kernel, built-in ones first (in hr_kernels order), then those of plugins in the
 * order they were loaded: the i-th, or NULL past the end. Iterate with this, not
 * hr_kernels, wherever plugin kernels belong (list, check, sweeps, reports). */
const hr_kernel *hr_kernel_at(int i);
/* Appends a plugin's kernel to the registry (k must outlive it). HR_EUSAGE when its name
 * is not a valid kernel name or is taken (by a built-in kernel, one absent from this
 * build, or another plugin's), with the rule in the message. */
int hr_kernel_add(const hr_kernel *k);
/* The kernel called name (built-in or loaded), or NULL. */
const hr_kernel *hr_kernel_find(const char *name);
/* For a suite kernel left out of this build (blas without OpenBLAS), why; else NULL. */
const char *hr_kernel_absent(const char *name);
/* hr_fail for a name hr_kernel_find did not know: "WHERE: unknown kernel 'x' (see
 * headroom list)" or, for a kernel left out of this build, why it is missing. */
int hr_kernel_unknown(const char *where, const char *name);
/* Why k cannot run p, or NULL when it can. The one place that decides it: p's own
 * validity (hr_problem_validate's message, naming the flag), a capability p needs that
 * k lacks (causal masking without HR_CAP_CAUSAL, a variant without its HR_CAP_*), then
 * k->applicable's reason. The text
 * is static or the thread's error message: copy it before the next hr_fail. */
const char *hr_kernel_why_not(const hr_kernel *k, const hr_problem *p);
/* hr_kernel_why_not as a status: HR_OK, or HR_EUSAGE with an invalid p's own message
 * (naming the flag) or "kernel K cannot run this shape: WHY" in hr_errmsg. */
int hr_kernel_validate(const hr_kernel *k, const hr_problem *p);
/* Calls k->resolve on a copy of *t with the machine of hr_kernel_set_machine, and also
 * sets threads (1 for unthreaded kernels). */
hr_tune hr_kernel_tune(const hr_kernel *k, const hr_problem *p, const hr_tune *t);

/* The path k takes on p: k->path(p), or hr_isa (a plugin's kernel: its library). */
const char *hr_kernel_path(const hr_kernel *k, const hr_problem *p);
/* hr_kernel_path into buf (len bytes), ending in ", K/V in 16-key tiles" where the kernel
 * reads its cache in tiles (tile: the args' xk.tile, or hr_kernel_kv_tile); returns buf.
 * The path results, check lines, decode-loop and list print. */
const char *hr_kernel_path_kv(const hr_kernel *k, const hr_problem *p, int tile, char *buf, size_t len);
/* k's workspace_bytes(p, t) (0 when it declares none). */
size_t hr_kernel_workspace(const hr_kernel *k, const hr_problem *p, const hr_tune *t);
/* k's kv_tile(p, t): HR_KV_TILE where k asks for its K/V cache in tiles, else 0 (plugins
 * and kernels without kv_tile: rows). */
int hr_kernel_kv_tile(const hr_kernel *k, const hr_problem *p, const hr_tune *t);
/* k's run(p, t, a, ws): HR_OK, or HR_EUSAGE with "kernel K (plugin FILE): run failed: WHY"
 * in hr_errmsg when a plugin's kernel fails (built-in kernels fail only when handed a
 * tiled cache they did not ask for). */
int hr_kernel_run(const hr_kernel *k, const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws);

/* The vector ISA level that runs (isa.h): "avx512", "avx2" or "generic"; the best one
 * this CPU runs unless --isa or HEADROOM_ISA chose a lower one. */
extern const char *hr_isa;

#endif

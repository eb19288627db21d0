/* headroom/plugin.h — the plugin ABI: how a shared object declares attention kernels to headroom.
 *
 * Self-contained C (C99 or later, C++ too): it includes only standard headers, and a
 * plugin is compiled with nothing but this file (`cc -shared -fPIC -I include ...`).
 * A plugin exports one symbol, HRP_ENTRY ("headroom_plugin_v1"), a function returning
 * a descriptor (hrp_plugin) that lists one or more kernels (hrp_kernel): the same
 * fields as a kernel built into headroom. headroom loads it with dlopen (`--plugin
 * FILE.so`, HEADROOM_PLUGIN_PATH) and runs its kernels through the same list, run,
 * check, sweep, tune and layer as its own. docs/reference/plugin-abi.md has the rules
 * and the versioning policy:
 *   - HRP_ABI_MAJOR changes when an existing field changes meaning, type or place;
 *     headroom refuses a plugin of another major version.
 *   - HRP_ABI_MINOR changes when a field is appended to a struct. Every struct that
 *     crosses the boundary starts with its size (`size`, set by whoever filled it):
 *     a reader uses a field added in a later minor only when the size covers it
 *     (HRP_HAS(s, field)), so old plugins run in new headroom and the reverse.
 *   - The entry's name stays "headroom_plugin_v1" across versions ("v1" is the entry's
 *     calling convention); the version a plugin was built against is in its descriptor.
 * Everything a plugin receives is borrowed for the duration of the call. */
#ifndef HEADROOM_PLUGIN_H
#define HEADROOM_PLUGIN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HRP_ABI_MAJOR 1
#define HRP_ABI_MINOR 1

/* The exported entry point, by name and type. */
#define HRP_ENTRY "headroom_plugin_v1"
struct hrp_plugin;
typedef const struct hrp_plugin *(*hrp_entry_fn)(void);

/* Whether the struct *s (whose first member is its size) holds member f. */
#define HRP_HAS(s, f) ((s)->size >= offsetof(__typeof__(*(s)), f) + sizeof((s)->f))

/* run's status: HRP_OK, anything else is a failure (headroom names the kernel and the
 * plugin, with hrp_plugin.last_error's message when there is one). */
enum { HRP_OK = 0, HRP_ERROR = 1 };

/* Element types. Stable values (equal to headroom's own, checked at its build):
 * f32 IEEE binary32; bf16 its upper half; f16 IEEE binary16; q8_0 and q4_0 llama.cpp's
 * block formats (32 values along d per block with one fp16 scale: 34 and 18 bytes). */
enum { HRP_F32 = 0, HRP_BF16 = 1, HRP_F16 = 2, HRP_Q8_0 = 3, HRP_Q4_0 = 4 };
#define HRP_TYPE_BIT(t) (1u << (t))

/* Capabilities (hrp_kernel.caps). THREADED, BLOCK_Q and BLOCK_KV decide which of
 * hrp_tune's fields headroom sets and searches; the rest are descriptive. */
enum {
    HRP_CAP_CAUSAL = 1u << 0,   /* handles causal masking (else causal problems are refused) */
    HRP_CAP_GQA = 1u << 1,      /* exploits Hkv < Hq                                         */
    HRP_CAP_DECODE = 1u << 2,   /* built for few query rows against a long cache            */
    HRP_CAP_THREADED = 1u << 3, /* uses hrp_tune.threads (else it is called with 1)          */
    HRP_CAP_BLOCK_Q = 1u << 4,  /* reads hrp_tune.block_q                                    */
    HRP_CAP_BLOCK_KV = 1u << 5, /* reads hrp_tune.block_kv                                   */
    /* 1.1: the variants (hrp_problem.window, softcap, alibi); a problem with one is refused
     * to a kernel without its capability, so a 1.0 plugin never sees one. */
    HRP_CAP_WINDOW = 1u << 6,   /* handles a sliding window                                  */
    HRP_CAP_SOFTCAP = 1u << 7,  /* handles soft-capped scores                                */
    HRP_CAP_ALIBI = 1u << 8,    /* handles ALiBi biases                                      */
    /* 1.1: a paged KV cache (hrp_problem.page_size, hrp_args.block_table), refused to a
     * kernel without it likewise. */
    HRP_CAP_PAGED = 1u << 9,    /* reads K/V through a block table                           */
};

/* How the kernel moves data, for headroom's byte counts and roofline. */
enum {
    HRP_TRAFFIC_SCORES = 0,      /* materializes the Nq x Nkv scores of a head      */
    HRP_TRAFFIC_KV_PER_HEAD = 1, /* streams K/V once per query head                 */
    HRP_TRAFFIC_KV_PER_GROUP = 2 /* streams K/V once per KV head (the whole group)  */
};

/* One attention problem. Q: [B][Hq][Nq][d]; K, V: [B][Hkv][Nkv][d]; O like Q.
 * Query head h reads KV head h / (Hq / Hkv). s_j = scale * <q_i, k_j>, O = softmax(s) V.
 * Causal is bottom-right aligned: key j is visible to query i iff j <= i + (Nkv - Nq);
 * a row that sees no key is written as zeros. */
typedef struct hrp_problem {
    uint32_t size; /* sizeof(hrp_problem) of headroom's build */
    int32_t batch, heads, kv_heads;
    int32_t seq_q, seq_kv, d_head;
    int32_t causal;   /* 0 or 1                                                */
    float scale;      /* the softmax scale to use (never 0: 1/sqrt(d) resolved) */
    int32_t dtype;    /* Q and O: HRP_F32, HRP_BF16, HRP_F16                   */
    int32_t kv_dtype; /* K and V: any HRP_* type                               */
    /* 1.1 (HRP_HAS): the variants, 0 when off. window W: causal, row i sees keys
     * i' - W < j <= i' (i' = i + Nkv - Nq); softcap c: s becomes c tanh(s / c) after the
     * scale; alibi b: query head h's score of key j gains -m_h |i' - j|, with n =
     * 2^floor(log2 Hq), m_h = 2^(-b (h + 1) / n) for h < n, else 2^(-b (2 (h - n) + 1) / (2 n)). */
    int32_t window;
    float softcap;
    float alibi;
    /* 1.1: a paged KV cache, P keys a block (a power of two >= 16), 0: contiguous
     * (hrp_args.block_table). */
    int32_t page_size;
} hrp_problem;

/* ALiBi's slope m_h of query head h of `heads` under max bias b (the rule above; ggml's and
 * the paper's), 0 where b is not > 0: what a plugin multiplies |i' - j| by. */
static inline float hrp_alibi_slope_of(int heads, double b, int h)
{
    if (!(b > 0)) return 0.0f;
    const int n = 1 << (int)floor(log2((double)heads));
    return (float)(h < n ? exp2(-b * (h + 1) / n) : exp2(-b * (2 * (h - n) + 1) / (2.0 * n)));
}
/* The same for p (0 where p has no alibi). */
static inline float hrp_alibi_slope(const hrp_problem *p, int h)
{
    return hrp_alibi_slope_of(p->heads, HRP_HAS(p, alibi) ? p->alibi : 0.0, h);
}

/* A 4-D tensor [batch][head][row][element]: the elements of a row are contiguous; the
 * strides between batches, heads and rows are in BYTES (layouts BHND and BNHD are both
 * plain views). Rows of a block type hold whole blocks. */
typedef struct hrp_view {
    void *data;
    int64_t sb, sh, sn;
} hrp_view;

/* The address of row (b, h, n) of v. */
static inline void *hrp_row(hrp_view v, int b, int h, int n)
{
    return (char *)v.data + (int64_t)b * v.sb + (int64_t)h * v.sh + (int64_t)n * v.sn;
}

/* The operands of one call. q, k, v, o are always f32 (for a reduced type: the values
 * the stored ones represent). When the problem's dtype is not f32, xq and xo hold Q and
 * O in it and the kernel writes xo; when kv_dtype is not f32, xk and xv hold K and V in
 * it. Views of the types not in use have data NULL. q, k, v, xq, xk, xv are read only. */
typedef struct hrp_args {
    uint32_t size; /* sizeof(hrp_args) of headroom's build */
    hrp_view q, k, v, o;
    hrp_view xq, xk, xv, xo;
    /* 1.1, page_size P > 0: k, v, xk, xv view a pool of blocks of P keys of every KV
     * head, sb a block's stride; key n of sequence b, head h is row n % P of block
     * block_table[b * table_stride + n / P] (hrp_kv_row). NULL and 0 when contiguous. */
    const int32_t *block_table;
    int32_t table_stride; /* blocks per sequence: ceil(Nkv / P) */
} hrp_args;

/* The address of key n of sequence b, head h in a K or V view of a problem with page
 * size P (0: contiguous, hrp_row). */
static inline void *hrp_kv_row(const hrp_args *a, int32_t P, hrp_view v, int b, int h, int n)
{
    if (P <= 0 || !a->block_table) return hrp_row(v, b, h, n);
    return (char *)v.data + (int64_t)a->block_table[(int64_t)b * a->table_stride + n / P] * v.sb +
           (int64_t)h * v.sh + (int64_t)(n % P) * v.sn;
}

/* A kernel's knobs; 0 means the kernel's default, which resolve fills in. */
typedef struct hrp_tune {
    uint32_t size;    /* sizeof(hrp_tune) of headroom's build                     */
    int32_t block_q;  /* query rows per tile (HRP_CAP_BLOCK_Q)                    */
    int32_t block_kv; /* keys per tile (HRP_CAP_BLOCK_KV)                         */
    int32_t threads;  /* threads to use: set by headroom, 1 without HRP_CAP_THREADED */
} hrp_tune;

/* What headroom knows of the machine (0: unknown). */
typedef struct hrp_machine {
    uint32_t size;
    int32_t threads; /* the default thread count      */
    uint64_t l1d;    /* L1 data cache bytes of a core */
    uint64_t l2;     /* L2 cache bytes of an instance */
} hrp_machine;

/* One kernel. name: lower case, no '/', ',' or spaces, unique among headroom's kernels
 * and every plugin's. Function pointers marked optional may be NULL. */
typedef struct hrp_kernel {
    uint32_t size;       /* sizeof(hrp_kernel) the plugin was compiled with */
    const char *name;    /* "example_naive"                                 */
    const char *summary; /* one line for `headroom list`                    */
    uint32_t caps;       /* HRP_CAP_*                                       */
    uint32_t traffic;    /* HRP_TRAFFIC_*                                   */
    /* Element types accepted, masks of HRP_TYPE_BIT: dtypes for Q/O, kv_dtypes for K/V;
     * 0 means f32 only. headroom refuses other combinations before applicable. */
    uint32_t dtypes, kv_dtypes;
    /* Optional. NULL when the kernel runs p, else a short reason it cannot (a string
     * that outlives the call). p is valid and of accepted types. */
    const char *(*applicable)(const hrp_problem *p);
    /* Optional. Replaces the 0 fields of t by the kernel's defaults for p. */
    void (*resolve)(const hrp_problem *p, const hrp_machine *m, hrp_tune *t);
    /* Optional (NULL: none). Scratch bytes run needs; headroom allocates them, 64-byte
     * aligned, outside any timed region, not zeroed, reused from call to call. */
    size_t (*workspace_bytes)(const hrp_problem *p, const hrp_tune *t);
    /* Required. Computes O for an applicable p and a resolved t; returns HRP_OK, or
     * another value on failure. Must not keep pointers past the call. */
    int (*run)(const hrp_problem *p, const hrp_tune *t, const hrp_args *a, void *ws);
    /* Optional. The code path that runs p ("avx512 onednn graph"), for the results (which
     * keep 255 bytes of it, cut at a UTF-8 character). */
    const char *(*path)(const hrp_problem *p);
} hrp_kernel;

/* What HRP_ENTRY returns: a descriptor that lives as long as the library is loaded. */
typedef struct hrp_plugin {
    uint32_t abi_major;   /* HRP_ABI_MAJOR the plugin was built with           */
    uint32_t abi_minor;   /* HRP_ABI_MINOR                                     */
    uint32_t size;        /* sizeof(hrp_plugin) the plugin was compiled with   */
    const char *library;  /* what it wraps: "libtorch", "ggml", "example"      */
    const char *version;  /* that library's version: "2.5.1", "0.1"            */
    uint32_t nkernels;
    const hrp_kernel *const *kernels; /* nkernels pointers                        */
    /* Optional. After a run that failed, a one-line reason (thread-local or static). */
    const char *(*last_error)(void);
} hrp_plugin;

/* Convenience for the plugin's own source: declares the entry with C linkage and
 * default visibility, e.g. HRP_EXPORT const hrp_plugin *headroom_plugin_v1(void) {...} */
#if defined(__GNUC__)
#define HRP_EXPORT __attribute__((visibility("default")))
#else
#define HRP_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif

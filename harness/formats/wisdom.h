/* wisdom.h — tuned parameters remembered per machine, binary and shape class (JSON file). */
#ifndef HR_WISDOM_H
#define HR_WISDOM_H

#include <stddef.h>

#include "headroom.h"

/* A shape class: problems that share their best parameters. Kernel, causality, d_head,
 * Hq/Hkv, the element types and the variants are exact; Nq, Nkv and B*Hq are rounded up
 * to a power of two. */
typedef struct {
    char kernel[32];
    bool causal;
    hr_dtype dtype, kv_dtype; /* bf16 wisdom is not f32 wisdom                  */
    int d_head, group;       /* group = Hq / Hkv                               */
    long nq, nkv, bh;        /* next power of two >= Nq, Nkv, B*Hq              */
    int window;              /* the variants: a windowed (or capped, or ALiBi)  */
    float softcap, alibi;    /* tune is not a dense one's (0: none)             */
} hr_shape_class;

/* The class of p for kernel k. */
hr_shape_class hr_shape_class_of(const hr_kernel *k, const hr_problem *p);
/* Its key, "flash/causal/d64/g1/nq2048/nkv2048/bh16", with the types' name segment
 * after d when they are not f32 ("flash/causal/d64/bf16/kv=q8_0/g1/...") and the
 * variants' after causal ("flash/causal/w4096/cap50/d64/...", hr_variant_seg). */
void hr_shape_class_key(const hr_shape_class *c, char *buf, size_t len);

/* One remembered winner. */
typedef struct {
    hr_tune tune;           /* the winning parameters (resolved)                  */
    int fixed_threads;      /* 0: threads were searched; T: tuned at T threads     */
    double gflops;          /* its median GFLOP/s when tuned                       */
    double default_gflops;  /* the kernel defaults' median GFLOP/s, same run       */
    char date[40];
    char shape[96];         /* the exact shape it was tuned on (hr_problem_str)    */
} hr_wisdom_entry;

/* The wisdom file to use: $HEADROOM_WISDOM if set, else results/<machine>/wisdom.json. */
const char *hr_wisdom_default_path(void);

/* Looks up k on p in the wisdom file at path (NULL: hr_wisdom_default_path()).
 * On entry, nonzero fields of *out are the caller's explicit settings (flags): they win
 * over wisdom. out->threads > 0 asks for an entry tuned at that thread count first,
 * else one whose threads were searched (its block sizes are then used with the
 * caller's threads). On 1 (found) the zero fields of *out are filled from the entry.
 * Entries from another machine (cpu model, ISA, CPUs) or another build (build_id) are
 * ignored, with a one-line note on stderr once per file. A missing file is not an error.
 * Returns 1 found, 0 not found, -1 when the file is unreadable or corrupt (message
 * naming the file in hr_errmsg; *out unchanged). */
int hr_wisdom_lookup(const char *path, const hr_kernel *k, const hr_problem *p, hr_tune *out);

/* The one wisdom step of run, layer and a sweep point: unless off, fills the parameters
 * of *t that no flag set (its zero fields; threads as in hr_wisdom_lookup) from the
 * wisdom at path (NULL: the default) for k on p. *source becomes where *t came from:
 * "default" or "flag" (block sizes set on entry), "wisdom" or "flag+wisdom" when wisdom
 * changed *t. Returns HR_OK, or HR_EUSAGE when the file is unreadable or corrupt
 * (message naming it in hr_errmsg; *t unchanged, *source as without wisdom). */
int hr_wisdom_apply(const char *path, bool off, const hr_kernel *k, const hr_problem *p,
                    hr_tune *t, const char **source);

/* Same, returning the whole entry (e may be NULL); does not merge into a tune. */
int hr_wisdom_find(const char *path, const hr_kernel *k, const hr_problem *p,
                   int fixed_threads, hr_wisdom_entry *e);

/* Records e for k on p in the file at path (NULL: the default; parent directories are
 * created), replacing an entry of the same machine, build, class and fixed_threads and
 * keeping every other entry. Written atomically. Returns HR_OK, or HR_EUSAGE when the
 * existing file is corrupt or cannot be written (message names the file). */
int hr_wisdom_store(const char *path, const hr_kernel *k, const hr_problem *p,
                    const hr_wisdom_entry *e);

#endif

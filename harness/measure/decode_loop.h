/* decode_loop.h — token-by-token generation over a growing KV cache, timed step by step. */
#ifndef HR_DECODE_LOOP_H
#define HR_DECODE_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "headroom.h"
#include "inputs.h"
#include "oracle.h"
#include "result.h"

/* The simulation: a prompt of `prompt` tokens is already in every layer's cache (filled
 * in place, untimed). Then each of `tokens` steps, for every layer: append the new
 * token's K and V (a copy, as a model writes its projection output into the cache) and
 * run the kernel for the new query against the whole cache, zero-copy through the
 * cache's views. A step's time is that loop over the layers (one repetition of the
 * timer, one call); its attention time is the kernel calls alone. Projections, MLP and
 * sampling are not simulated: tokens/s is the attention ceiling of generation, the part
 * that grows with the context. The new tokens' Q/K/V come from a small pool of
 * pre-generated rows, so the PRNG is never timed. */
typedef struct {
    const hr_kernel *kernel;
    int batch, heads, kv_heads, d_head, layers;
    int prompt, tokens;   /* cache rows before the first step; steps (tokens generated) */
    hr_tune tune;         /* 0 fields: the kernel's defaults (block_q is not used)       */
    hr_dist dist;
    uint64_t seed;
    bool check;           /* after the loop, every layer's last step against the oracle */
    hr_dtype dtype;       /* Q and O (f32, bf16, f16; 0: f32)                             */
    hr_dtype kv_dtype;    /* the stored cache: every new K/V row is converted (quantized)
                           * into it as it is appended, inside the step's time; the
                           * kernel reads args.xk/xv, and args.k/v are empty views (the
                           * check dequantizes the cache for the oracle)                 */
    double max_mem;       /* bytes, 0: half of RAM (hr_mem_budget)                      */
    int window;           /* sliding window W of the windowed layers (0: none)            */
    int window_every;     /* the window is on layers 0, every, 2 every, ... (0, 1: all;
                           * hr_layer_window); the other layers attend the whole cache   */
    float softcap, alibi; /* every layer's soft cap and ALiBi max bias (0: none)          */
    int page_size;        /* a paged cache of P keys a block (0: contiguous): every
                           * (layer, sequence) takes a block from the pool's shuffled
                           * free list as its length crosses a page, the block table
                           * updated in place, and the kernel reads through it (kvcache.h) */
} hr_decode_spec;

typedef struct {
    hr_tune tune;         /* resolved                                                    */
    int prompt, tokens;
    double *step;         /* [tokens] seconds of each step                               */
    double *attn;         /* [tokens] seconds of its kernel calls                        */
    double *bytes;        /* [tokens] bytes its kernel calls move (counts.c model)       */
    double seconds, attn_seconds, total_bytes; /* sums over the steps                    */
    double cache_bytes;   /* the KV cache at the end, as stored (scales included)        */
    bool checked;
    hr_check check;       /* the worst layer's                                           */
    bool format_checked;  /* reduced types: the format's error of the worst layer       */
    hr_check format;      /* (the oracle on the original fp32 rows; not judged)          */
    char path[HR_PATH_LEN]; /* the kernel's path (hr_kernel_path), cut at a character       */
    /* paged (page_size > 0): the pool's blocks held at the end and at most, and the
     * bytes they hold against the bytes the tokens use (kvcache --page-size's model) */
    long blocks, blocks_peak, pool_blocks;
    double used_bytes, alloc_bytes;
} hr_decode_result;

/* Steps [first, last] summarized: medians and minimum per step, rates over the range. */
typedef struct {
    int first, last;      /* steps                                                       */
    int len0, len1;       /* cache length seen by the first and last step                */
    double step_med, step_min, attn_med, tokens_per_s, kv_gbps;
} hr_decode_range;

/* Validates the spec (sizes, prompt + tokens within HR_MAX_SEQ, the kernel on the step's
 * problem, the memory budget), allocates, runs the loop and fills out. Returns HR_OK
 * (a failed check is out->check's verdict, not an error), or HR_EUSAGE with a message
 * naming the flag; out then holds nothing to free. */
int hr_decode_loop(const hr_decode_spec *s, hr_decode_result *out);
/* Splits the steps into n (<= tokens) ranges of near-equal length into rows[0..n). */
void hr_decode_ranges(const hr_decode_result *r, int n, hr_decode_range *rows);
void hr_decode_free(hr_decode_result *r);

#endif

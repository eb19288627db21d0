/* decode_cont.h — continuous batching: sequences arrive, decode token by token in one
 * fused ragged batch a step, leave after their output length, and free slots refill. */
#ifndef HR_DECODE_CONT_H
#define HR_DECODE_CONT_H

#include <stdbool.h>
#include <stdint.h>

#include "oracle.h"
#include "ragged.h"

/* The simulation, one layer's attention: `requests` sequences, each with a context
 * (prompt) length drawn from dist in [len_min, len_max] and an output length from the
 * lognormal of chat replies in [out_min, out_max] (ragged.c), arrive at seeded times
 * (a Poisson process of `arrival` sequences a step; 0: all at the start). A step appends
 * one token's K/V to every sequence in the batch and runs the decode kernel's fused
 * batch over them (decode_batch.h, threads split by cost); a sequence that has made its
 * output leaves, and waiting ones take the free slots, at most max_batch at once. A
 * sequence's prompt is written into its slot's cache untimed when it is admitted (prefill
 * is another kernel's work); the clock is the sum of the steps' times. Q/O are f32; the
 * cache is any kv_dtype (tiled where decode asks). */
typedef struct {
    int heads, kv_heads, d_head, threads;
    int max_batch, requests;
    double arrival;
    hr_ragged_dist dist;
    int len_min, len_max, out_min, out_max;
    hr_dtype kv_dtype;
    uint64_t seed;
    bool check;        /* one step (the first with the fullest batch) against the oracle */
    double max_mem;    /* bytes, 0: half of RAM (hr_mem_budget)                         */
    int page_size;     /* a paged cache of P keys a block (0: contiguous slots): one pool
                        * of max_batch ceil(capacity / P) blocks that a sequence takes
                        * from a page at a time and gives back when it leaves (kvcache.h) */
} hr_cont_spec;

typedef struct {
    long steps, tokens;         /* steps run; tokens generated (one per sequence a step) */
    double seconds, bytes;      /* the steps' time; the bytes every kernel must read      */
    double tokens_per_s;        /* tokens / seconds                                       */
    double seq_tps_median, seq_tps_p90; /* per sequence: its output tokens over the time
                                 * from its first step to its last (stats.c)             */
    double occupancy;           /* mean sequences in a step / max_batch                   */
    double wait_median;         /* median steps a sequence waited for a slot after arriving */
    int capacity;               /* rows a slot's cache holds                              */
    int threads;                /* the threads the batches ran with (resolved)            */
    double cache_bytes;         /* every slot's cache, as stored                          */
    bool checked;
    int check_batch;            /* sequences in the checked step                          */
    hr_check check;             /* its worst sequence                                      */
    /* paged: the pool's blocks, the most held at once, the most the live sequences needed
     * at once (the sum of their ceil(length / P), counted apart from the pool), blocks
     * taken in all (more than the peak: freed blocks were reused), held at the end */
    long pool_blocks, blocks_peak, need_peak, allocs, blocks_end;
} hr_cont_result;

/* Validates (exit-2 rules, naming the flag: sizes >= 1, len_min <= len_max, out_min <=
 * out_max, arrival >= 0, the budget), runs and fills out. HR_OK (a failed check is
 * out->check's verdict), or HR_EUSAGE with a message. */
int hr_decode_cont(const hr_cont_spec *s, hr_cont_result *out);

#endif

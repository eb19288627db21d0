/* result.h — one measured kernel x shape (hr_result): what ran, its timing, its check, named counters. */
#ifndef HR_RESULT_H
#define HR_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "headroom.h"
#include "oracle.h"
#include "timer.h"

#define HR_MAX_COUNTERS 24

/* A named number attached to a result row ("GFLOPS", "ceiling_gflops", ...). */
typedef struct {
    const char *name;
    double value;
} hr_counter;

/* Room for a kernel's code path in a result: the longest built-in path is ~60 bytes; a
 * plugin's may be longer (or its library's file name), and is cut at a character. */
#define HR_PATH_LEN 256

/* One measured kernel x shape. */
typedef struct {
    const hr_kernel *kernel;
    hr_problem prob;
    hr_layout layout;
    hr_tune tune;          /* resolved parameters that ran                           */
    const char *tune_source; /* "default", "flag" or "wisdom"                        */
    char path[HR_PATH_LEN]; /* the kernel's code path that ran (hr_kernel_path); "" unknown */
    double flops;          /* from counts.c                                          */
    double bytes;          /* from counts.c (the kernel's traffic model; GBps and AI
                            * count the compulsory bytes, hr_bound_bytes)             */
    double workspace_bytes;
    hr_timing timing;
    bool checked;          /* the oracle comparison ran                               */
    hr_check check;
    int ncounters;         /* extra counters (roofline, probes, ...)                   */
    hr_counter counters[HR_MAX_COUNTERS];
    /* Non-empty: the row's benchmark name, for rows of a composite benchmark that the
     * kernel x shape name cannot tell apart (one phase of a full layer:
     * "layer/flash/blas/B1/N1024/D512/H8/G8/d64/full/T2/core", see hr_layer_name).
     * Empty: the kernel x shape name below. */
    char label[256];
    /* The roof that binds the row given its working set (hr_roofline_attach): "L1", "L2",
     * "L3", "DRAM" or "compute"; "" when unknown (no ceilings, no cache roofs). */
    char bound_level[8];
    /* The least of the three ceilings of the row's attainable_path_gflops
     * (hr_roofline_attach): "matmul", "softmax" or "memory"; "" when it has none. */
    char bound_by[8];
    /* The softmax ceiling it was held to (hr_softmaxes[].name: "flash_avx512", ...); "". */
    char softmax_step[16];
} hr_result;

/* Sets counter name to value (adds it, or replaces an existing one). */
void hr_result_set(hr_result *r, const char *name, double value);
/* Benchmark name shared by every row of this result, the key compare matches on:
 * r->label when set, else "flash/B1/H16/G16/N2048/M2048/d64/causal/bhnd/T2", with the
 * element types after d when they are not f32 (hr_dtype_seg). */
void hr_result_name(const hr_result *r, char *buf, size_t len);
/* The kernel x shape name of a result that has no label, from its parts: what
 * hr_result_name writes, and what the Google Benchmark front end registers. */
void hr_row_name(const hr_kernel *k, const hr_problem *p, hr_layout layout, int threads, char *buf, size_t len);
/* The element types as a name segment: "" for f32, "/bf16" (K/V the same), "/kv=q8_0"
 * (Q/O f32), "/bf16/kv=q4_0"; row names, layer labels and wisdom keys use it. */
void hr_dtype_seg(const hr_problem *p, char *buf, size_t len);
/* The variants' segments after causal/full: "/w4096", "/cap50", "/alibi8" (each when set;
 * "" for the plain problem, whose names stay as they were). */
void hr_variant_seg(const hr_problem *p, char *buf, size_t len);
/* Median GFLOP/s (flops / median time). */
double hr_result_gflops(const hr_result *r);

#endif

/* decode_path.c — decode's paths in one table per kind of cache (q8_0/q4_0: int8, emu; bf16: bf16dot; each: convert), sharing HEADROOM_DECODE_PATH; the choice among them. */
/*
 * The tables share one variable, and a value that names another table's row chooses as
 * unset does here: int8 asks nothing of a bf16 cache, bf16dot nothing of a q8_0 one.
 *   int8     decode_i8.c's vpdpbusd step (AVX512-VNNI, AVX-VNNI) where the CPU has it;
 *            forced, the vpmaddubsw step stands in where it has not (emu's alias)
 *   emu      its vpmaddubsw copy (the avx2 level, AVX2 without AVX-VNNI); forced, on any
 *            CPU the avx2 level runs on (tests, A/B)
 *   bf16dot  decode_bf16.c's vdpbf16ps step, d a multiple of 32; chosen where the CPU's
 *            vdpbf16ps runs at its FMAs' rate (not an Intel core: perf-log 0230), forced
 *            wherever the CPU has AVX512-BF16
 *   convert  decode_kv.c's conversion path, every type (the fallback)
 * The pick runs once per call (decode.c's ctx_init); the block loop branches on its
 * result, as it did on the predicates it replaces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_vendor.h"
#include "decode_block.h"
#include "path.h"

static const hr_decode_step vnni_step = {&hr_decode_i8_vnni, 0};
static const hr_decode_step emu_step = {&hr_decode_i8_emu, 0};
static const hr_decode_step bf16_step = {NULL, 1};
static const hr_decode_step convert_step = {NULL, 0};

static const char *vnni_why_not(const hr_problem *p) { return hr_decode_i8_vnni.why_not(); }
static const char *emu_why_not(const hr_problem *p) { return hr_decode_i8_emu.why_not(); }
static const char *bf16_why_not(const hr_problem *p) { return hr_decode_bf16_why_not(); }

static const char *i8_roof(const hr_decode_i8_step *s, const hr_problem *p)
{
    return s->path ? s->path(p->kv_dtype) : HR_VEC_ISA;
}
static const char *vnni_roof(const hr_problem *p) { return i8_roof(&hr_decode_i8_vnni, p); }
static const char *emu_roof(const hr_problem *p) { return i8_roof(&hr_decode_i8_emu, p); }

static int bf16_fits(const hr_problem *p, int forced)
{
    static int intel = -1; /* a benign race: every thread stores the same value */
    if (p->d_head % 32) return 0;
    if (intel < 0) intel = hr_cpu_intel();
    return forced || !intel;
}

static const char *const values[] = {"convert", "int8", "bf16dot", "emu", NULL};
static const char bad[] = "HEADROOM_DECODE_PATH must be auto, convert, int8, bf16dot or emu";

static const hr_path block_rows[] = {
    {"int8", vnni_why_not, &vnni_step, vnni_roof, NULL, NULL},
    {"emu", emu_why_not, &emu_step, emu_roof, "int8", NULL},
    {"convert", NULL, &convert_step, hr_decode_kv_path, NULL, NULL},
};
static const hr_path bf16_rows[] = {
    {"bf16dot", bf16_why_not, &bf16_step, hr_decode_bf16_path, NULL, bf16_fits},
    {"convert", NULL, &convert_step, hr_decode_kv_path, NULL, NULL},
};
static const hr_path other_rows[] = {
    {"convert", NULL, &convert_step, hr_decode_kv_path, NULL, NULL},
};
#define TABLE(rows) {"HEADROOM_DECODE_PATH", 1, rows, (int)(sizeof rows / sizeof *rows), NULL, values, bad}
static const hr_path_table block_paths = TABLE(block_rows), bf16_paths = TABLE(bf16_rows),
                           other_paths = TABLE(other_rows);

static const hr_path_table *table(const hr_problem *p)
{
    return p->kv_dtype == HR_Q8_0 || p->kv_dtype == HR_Q4_0 ? &block_paths
           : p->kv_dtype == HR_BF16                          ? &bf16_paths
                                                             : &other_paths;
}

const hr_decode_step *hr_decode_pick(const hr_problem *p) { return hr_path_pick(table(p), p)->step; }

const char *hr_decode_why_not(const hr_problem *p) { return hr_path_why_not(table(p), p); }

/* The path's roof, with ", prefetch into L1" where the block steps prefetch there: one
 * composed string per path (each a string constant, a handful), made on first use. */
const char *hr_decode_path(const hr_problem *p)
{
    const hr_path *r = hr_path_pick(table(p), p);
    const char *base = r->roof(p);
    if (!hr_decode_pf_l1(r->step)) return base;
    static struct {
        const char *base;
        char s[200];
    } memo[32];
    for (int i = 0; i < 32; i++) {
        if (!memo[i].base) {
            snprintf(memo[i].s, sizeof memo[i].s, "%s, prefetch into L1", base);
            memo[i].base = base;
        }
        if (memo[i].base == base) return memo[i].s;
    }
    return base;
}

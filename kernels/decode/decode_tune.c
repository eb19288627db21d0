/* decode_tune.c — decode's defaults per problem: keys per block (hr_decode_default_block) and whether it asks for a q8_0 / q4_0 cache in 16-key tiles (hr_decode_kv_tile). */
#include <stdlib.h>
#include <string.h>

#include "cpu_vendor.h"
#include "decode_block.h"

/* Keys per block by default. fp32: 64, but 8 KiB of K rows (16 keys at d 128; 64 KiB
 * where the steps prefetch into L1, and at the avx2 level 128 keys, below) where the
 * cache streams from DRAM (K + V past the machine's L3) with R <= 4 rows per group.
 * From DRAM one core streams better in short blocks (why is not pinned down: the phases
 * of a block, K loads with FMAs, the softmax, V loads with FMAs, alternate 4x as often,
 * so the miss stream has shorter gaps); from L3 the block's fixed work (softmax,
 * rescale, tile set-up) shows, hence only past L3; with 16 rows (Nq 4) the step is
 * compute-bound, hence R <= 4. Typed caches keep 256 there (typed_block). At the avx2
 * level (8 lanes, twice the ops per key) longer blocks are faster from DRAM instead: 128
 * keys where the rule applies (why the two levels want opposite directions from 64 is
 * not known). The generic level keeps 64 (not measured). Where the steps prefetch into
 * L1 (hr_decode_pf_l1) the short blocks lose: 64 KiB of K rows (128 keys at d 128), at
 * most 256 keys, and the avx2 level's 128 keys capped at 64 KiB of K too (perf-log
 * 0232). */
/* A typed cache's keys per block: `keys` (its default), but on an Intel core at the avx512
 * level, once K + V are past the L2s of the threads, `bytes` of K rows a block, 16 to
 * `keys` keys: f16 and bf16 on the conversion step (decode_kv.c) 32 KiB, 128 keys at
 * d 128, 64 at d 256, d 64 keeps 256; q8_0 in tiles (decode_i8.c) its 256 keys' 34 KiB
 * at d 128, so 128 at d 256. Streamed blocks want their K rows in 16-32 KiB there (not
 * pinned down without counters); in L2 the longer block is faster, hence only past the
 * L2s. fp32 from DRAM reads 16 and 32 KiB alike and near its 8 KiB rule, so that rule
 * stays. AMD keeps 256: 16-64 keys were slower from DRAM there (perf-log 0233). */
/* Bytes of p's K and V caches as stored (rows of `row` bytes). */
static double kv_bytes(const hr_problem *p, size_t row)
{
    return 2.0 * p->batch * p->kv_heads * (double)p->seq_kv * (double)row;
}

static int typed_block(const hr_problem *p, const hr_machine *m, int threads, int keys, size_t bytes)
{
    if (HR_VW < 16 || !bytes || !m || !m->l2 || !hr_cpu_intel()) return keys;
    const size_t row = hr_dtype_row_bytes(p->kv_dtype, p->d_head);
    if (kv_bytes(p, row) <= (double)m->l2 * (threads > 0 ? threads : 1)) return keys;
    const int kb = (int)(bytes / row) & ~15;
    return kb < 16 ? 16 : kb > keys ? keys : kb;
}

int hr_decode_default_block(const hr_problem *p, const hr_machine *m, int threads)
{
    /* The int8 step at the avx512 level: q4_0 512 keys (the block's fixed work, ~0.2 µs,
     * over twice the keys); q8_0 in rows 128 keys, so that a block's K and V rows (34 KiB
     * at d 128) stay in L1 between its passes (once pv_quant takes whole groups 2 and 1
     * at a time); read in tiles (hr_decode_kv_tile, the default), q8_0 takes 256 keys.
     * q4_0 takes 512 at the avx2 level's int8 step too (AVX-VNNI or vpmaddubsw), q8_0
     * keeps 256 there (perf-log 0234). */
    const hr_decode_step *path = hr_decode_pick(p);
    if (p->kv_dtype == HR_Q4_0 && path->i8) return DECODE_BLOCK_KV_Q4;
    if (p->kv_dtype == HR_Q8_0 && HR_VW >= 16 && path->i8)
        return hr_decode_kv_tile(p, NULL) ? typed_block(p, m, threads, DECODE_BLOCK_KV_Q8T,
                                                        DECODE_BLOCK_KV_Q8T * hr_dtype_row_bytes(HR_Q8_0, 128))
                                          : DECODE_BLOCK_KV_Q8;
    if (p->kv_dtype != HR_F32) {
        const int conv = (p->kv_dtype == HR_F16 || p->kv_dtype == HR_BF16) && !path->bf16;
        return typed_block(p, m, threads, DECODE_BLOCK_KV_TYPED, conv ? DECODE_TYPED_BLOCK_BYTES : 0);
    }
    const size_t row = hr_dtype_row_bytes(HR_F32, p->d_head);
    const double cache = kv_bytes(p, row);
    /* the L3 the threads reach: on a machine of several instances (AMD's CCDs) more
     * threads reach more of it */
    const double l3 = m ? hr_machine_l3_reach(m, threads) : 0;
    if (HR_VW < 8 || !(l3 > 0) || cache <= l3 || hr_group(p) * p->seq_q > DECODE_STREAM_MAX_R)
        return DECODE_BLOCK_KV;
    /* long blocks: up to 64 KiB of K rows (AVX2, or the prefetches into L1) */
    const int longer = HR_VW == 8 || hr_decode_pf_l1(path);
    const int hi = HR_VW == 8 ? DECODE_STREAM_KEYS_AVX2 : longer ? DECODE_STREAM_KEYS_MAX : DECODE_BLOCK_KV;
    const int kb = (int)((longer ? DECODE_STREAM_BLOCK_BYTES_L1 : DECODE_STREAM_BLOCK_BYTES) / row);
    return kb < 8 ? 8 : kb > hi ? hi : kb;
}

/* HR_KV_TILE where decode_i8.c's int8 step with int8 P·V (the avx512 level, or the avx2
 * level's AVX-VNNI or vpmaddubsw instance) would run p's q8_0 / q4_0 cache
 * (decode_i8sc.h scores_tiles, decode_i8pv.h PV_QUAD_T) and its blocks start tiles
 * (block_kv a multiple of 16, or 0: the default); else 0 (rows). */
int hr_decode_kv_env(void)
{
    const char *e = getenv("HEADROOM_DECODE_KV");
    return !e || !*e || !strcmp(e, "auto") ? 0 : !strcmp(e, "rows") ? 1 : -1;
}

int hr_decode_kv_tile(const hr_problem *p, const hr_tune *t)
{
    if (hr_decode_kv_env()) return 0; /* HEADROOM_DECODE_KV=rows: llama.cpp's rows, as a peer reads them */
    if (!hr_kv_tiles(p->kv_dtype) || (t && t->block_kv > 0 && t->block_kv < p->seq_kv && t->block_kv % HR_KV_TILE))
        return 0;
    const hr_decode_i8_step *s = hr_decode_pick(p)->i8; /* NULL at the generic level */
    return s && s->pv8() ? HR_KV_TILE : 0;
}

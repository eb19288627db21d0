/* decode_tune.c — decode's defaults per problem: keys per block (hr_decode_default_block) and whether it asks for a q8_0 / q4_0 cache in 16-key tiles (hr_decode_kv_tile). */
#include <stdlib.h>
#include <string.h>

#include "cpu_vendor.h"
#include "decode_block.h"

/* Keys per block by default. fp32: 64, but 8 KiB of K rows (16 keys at d 128; 64 KiB
 * where the steps prefetch into L1, and at the avx2 level 128 keys, below) where the
 * cache streams from DRAM (K + V past the machine's L3) with R <= 4 rows per group.
 * On the Zen 4 (2 vCPUs, 32 MiB L3; `headroom ab` of a 64-key build against a 16-key
 * one, 21 ABBA pairs, H32/8 d128 Nq 1, 2026-11-27): from DRAM at one thread -12.9 / -14.9%
 * at L16384 / L65536 (and -9.9% at L8192, 64 MiB), two threads same or noise; from L3
 * +6.4% at L4096 (32 MiB) and +16% at L1024, where the block's fixed work (softmax,
 * rescale, tile set-up) shows, hence only past L3. d 64 with 32 keys (the same 8 KiB)
 * H32/8 L65536 one thread 11.5 against 12.1-15.2 ms (3 interleaved rounds); with 16 rows
 * (Nq 4) 16-key blocks cost +20% (compute-bound), hence R <= 4. Why one core streams
 * better in short blocks is not pinned down (no counters): the phases of a block (K
 * loads with FMAs, the softmax, V loads with FMAs) alternate 4x as often, so the miss
 * stream has shorter gaps. Typed caches keep 256 there (16 to 64 keys: slower; typed_block).
 * At the avx2 level (8 lanes, twice the ops per key) 16-key blocks were slower from DRAM
 * too (same ab, avx2 builds: L16384 +16.0 / +6.9% at one / two threads, L8192 +6.8% at
 * one), and longer ones faster: 128 keys against 64 where the rule applies, 21 pairs,
 * one thread L8192 -11.5%, L16384 -18.2%, L65536 -13.3%, d 64 (15 pairs) -5.1 / -5.8%
 * (H8/8 Nq 4, H32/8 Nq 1), the rest same or noise, L4096 (not streamed) same. Why the
 * two levels want opposite directions from 64 is not known either. The generic level
 * keeps 64 (not measured).
 * Where the steps prefetch into L1 (hr_decode_pf_l1, a Zen 5 by default) the short
 * blocks lose: on the Zen 5 VM (2026-11-30, `headroom ab` of 16-key blocks against
 * fixed 64 / 128 / 256, H32/8 Nq 1, one and two threads, 15-21 ABBA pairs) d 128 took
 * 128 keys -4.2 / -5.4% at L16384 (T1 / T2; T2 noise), -5.1 / -2.5% at L65536 (64
 * keys -3.8 / -4.7%; 256 keys +12 to +27% against 128); d 256 (L8192) 64 keys -18.5 /
 * -11.5% against 8, 128 keys +20 / +17% against 64; d 64 (L32768) 32 to 256 keys
 * within 3%, noise. So 64 KiB of K rows (128 keys at d 128), at most 256 keys. The
 * avx2 level on that VM, d 256 L8192 (5 interleaved rounds): 64 keys -23 / -14%
 * against 128, so its 128 keys are capped at 64 KiB of K too (d 256 not measured on a
 * Zen 4). */
/* A typed cache's keys per block: `keys` (its default), but on an Intel core at the avx512
 * level, once K + V are past the L2s of the threads, `bytes` of K rows a block, 16 to
 * `keys` keys: f16 and bf16 on the conversion step (decode_kv.c) 32 KiB, 128 keys at
 * d 128, 64 at d 256, d 64 keeps 256; q8_0 in tiles (decode_i8.c) its 256 keys' 34 KiB
 * at d 128, so 128 at d 256. On an SPR-class Xeon
 * (2 vCPUs, 2 MiB L2 each, 2026-11-30; `headroom run --kernel decode --heads 32
 * --kv-heads 8 --seq Nq --seq-kv L --d-head D --threads T --kv-dtype X --block-kv B
 * --reps 9 --no-probe`, Nq 1 but where said, 3 interleaved rounds, medians, against 256
 * keys, T1 / T2):
 *   d 128 f16  L65536 (256 MiB) 128 keys -19.1 / -16.3%, 64 -17.3 / -9.8%; bf16 128
 *              -15.2 / -10.3%; L32768 -9.5 / -2.6%; L16384 -2.6 / +1.9% (bf16 -2.2 /
 *              +1.8%); L4096 -0.7 / -0.4%; L1024 (4 MiB) -2.2 / +3.8%; L256 (1 MiB,
 *              in L2) +4.6% at one thread, hence only past the L2s
 *   d 256 f16  (256 keys: 128 KiB of K) L32768 64 keys -24.3 / -28.7% (128 -4.0 / -4.6%),
 *              bf16 -28.4 / -19.7%; L4096 (32 MiB) 64 keys -8.1 / -8.8%
 *   d 64 f16   (256 keys: 32 KiB) L131072 512 keys +17.7 / +14.7%, 128 +1.5 / -5.9%
 *   d 96 f16   (160 keys; 2 rounds) L65536 (192 MiB) -9.3 / -0.9%, 128 -5.4 / -2.3%;
 *              L4096 +0.3% (bf16 +0.1%)
 *   Nq 4 f16   (R = 16) d 128 L65536 128 keys -3.7 / -3.0%, L16384 -1.6% at one thread
 *   d 256 q8_0 (tiles: 68 KiB of K) 128 keys L65536 (285 MiB) -3.8 / -6.0%, L32768 -5.6 /
 *              -9.9%, L16384 -1.9 / -1.2%, L4096 +1.5 / -0.7%; at d 128 (L65536) 128
 *              keys +4.7 / +9.1%, and at d 64 (L262144) 512 keys -0.9 / -1.3%: its
 *              256 keys' bytes at every d (d 64 kept at 256 keys)
 * so about 32 KiB of K rows. Why streamed blocks want their K rows in 16-32 KiB here is
 * not pinned down without counters. fp32 from DRAM there reads 16 and 32 KiB alike and
 * its stream rule's 8 KiB within 1-4%, so that rule stays (d 128 L65536: 64 keys; 128
 * +7.9 / +13.7%, 256 +13.5 / +18.2%, 32 -1.1 / +1.7%, 16 +2.0 / +2.7%; d 256 L32768
 * against 16 keys: 32 -4.2 / -4.3%, 64 +6.7 / +13.1%; d 64 L131072 against 64 keys: 128
 * -4.4 / +0.2%, 32 +0.9 / +1.8%). AMD keeps 256: a Zen 4 found 16-64 keys slower from
 * DRAM, and the avx2 level's 128-key sub-blocks (decode_kv.c) no faster at the avx512
 * level; 128 from DRAM and d 256 were not measured there. */
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
     * over twice the keys; on a Zen 5, 5 interleaved rounds, H32/8 d128: -1.5 / -1.4%
     * at L16384 T1 / T2, -3.6% at L4096 T1; q8_0's 272-byte key pairs lost 5% there);
     * q8_0 128 keys, so that a block's K and V rows (34 KiB at d 128) stay in
     * L1 between its passes (scripts/decode-i8-phases.sh: the scores took 4.1 ns a key
     * at 256 keys, 3.4 at 128); it paid once pv_quant took whole groups 2 and 1 at a
     * time (a 128-key block had gone through its general loop, +0.7 ns a key). Zen 5,
     * 5 interleaved rounds, H32/8 d128, against 256: L16384 T1 10.2 / 11.1, T2 5.0 / 5.4
     * ns a key, L4096 T1 9.9 / 10.4 (64 keys: 10.6). That was the rows' case: read in
     * tiles (hr_decode_kv_tile, the default), q8_0 takes 256 keys (Zen 5, 2026-11-30,
     * `headroom run` 5 interleaved rounds, H32/8, ms against 128: d128 L4096 T1 0.215 /
     * 0.236, L16384 T1 0.982 / 1.030, T2 0.476 / 0.479, d64 L16384 T1 0.473 / 0.516; 384
     * and 512 keys were faster at L4096 and d 64 but not at L16384 T1), and q4_0 keeps 512
     * (256 and 384 2-6% slower, 768 the same). q4_0 takes 512 at the avx2 level's int8 step
     * too (AVX-VNNI or vpmaddubsw; same VM, `headroom --isa avx2 run`, 5 interleaved
     * rounds, d128, against 256: AVX-VNNI -5.1 / -4.3% at L4096 / L16384 one thread, -4.6 /
     * -2.9% at two; vpmaddubsw (HEADROOM_DECODE_PATH=emu) -2.6 / -2.5%, -4.7 / -3.1%), q8_0
     * keeps 256 there (128 and 512 within 4% either way). On the SPR-class Xeon (2026-11-30,
     * H32/8 d128 L16384, 5 interleaved rounds of `headroom run --block-kv B`, T1 / T2):
     * q4_0 256 +1.3 / +1.8%, 1024 +2.6 / -1.1% against 512; q8_0 in tiles 128 +4.2 /
     * +4.8%, 512 +1.3 / +0.3% against 256: the defaults stand there too. */
    if (p->kv_dtype == HR_Q4_0 && hr_decode_i8_pick(HR_Q4_0)) return DECODE_BLOCK_KV_Q4;
    if (p->kv_dtype == HR_Q8_0 && HR_VW >= 16 && hr_decode_i8_pick(HR_Q8_0))
        return hr_decode_kv_tile(p, NULL) ? typed_block(p, m, threads, DECODE_BLOCK_KV_Q8T,
                                                        DECODE_BLOCK_KV_Q8T * hr_dtype_row_bytes(HR_Q8_0, 128))
                                          : DECODE_BLOCK_KV_Q8;
    if (p->kv_dtype != HR_F32) {
        const int conv =
            (p->kv_dtype == HR_F16 || p->kv_dtype == HR_BF16) && !hr_decode_bf16_on(p->kv_dtype, p->d_head);
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
    const int longer = HR_VW == 8 || hr_decode_pf_l1(HR_F32);
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
    const hr_decode_i8_step *s = hr_decode_i8_pick(p->kv_dtype); /* NULL at the generic level */
    return s && s->on(p->kv_dtype) == 2 ? HR_KV_TILE : 0;
}

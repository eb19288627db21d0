/* flash_tile.c — the tile machinery every flash path shares (flash.c's fp32 path, flash_bf16.c, flash_amx.c): the default tiles, the next tile's prefetch, a row block's keys. */
#include <stdint.h>

#include "flash_tile.h"
#include "headroom.h"
#include "vec.h" /* HR_VEC_*: the defaults below are the level's own (perf-log 0301) */

/* Bq, the rows of a work item (a multiple of MR): a K/V tile's packing (2*d*Bkv moves and
 * their misses) is spread over Bq*Bkv*d*2 FMAs, so a larger stack spends less on the K/V
 * stream. Its Q and O (2*Bq*d*4 B) are reread once per tile, 4/Bkv B per FMA whatever Bq
 * (~1 GB/s at 120 GFLOP/s and Bkv 256; L3 would feed it), so the stack need not sit in
 * L2: Bq is 3/4 of hr_machine's L2 (1 MiB when unknown) over 8d bytes a row, 12 to 768
 * rows (generic: 192), and hr_ft_default_rows shrinks it, not below 192, where a
 * shape would leave a thread fewer than FT_ITEMS items. Bkv: the packed tile kt + vp
 * (2*d*Bkv*4 B) is reread by every micro-tile group, so it stays within a quarter of L2:
 * on AVX-512 256 keys halved until it does (d 128 on 1 MiB: 256), fewer per-tile O loads
 * and stores and tile set-ups; AVX2 64 (256 level there). 768 rows by 256 keys beat
 * smaller stacks and tiles (perf-log 0219). */
static size_t l2_of(const hr_machine *m) { return m && m->l2 ? m->l2 : (size_t)1 << 20; }
#if defined(HR_VEC_AVX2) || defined(HR_VEC_AVX512)
#define BQ_MAX 768
#else
#define BQ_MAX 192
#endif

int hr_ft_default_block_kv(const hr_machine *m, int d)
{
#if defined(HR_VEC_AVX512)
    int bkv = 256; /* halved until kt + vp fit a quarter of L2 */
    while (bkv > 64 && 2L * d * bkv * 4 > (long)(l2_of(m) / 4)) bkv /= 2;
    return bkv;
#else
    (void)m, (void)d;
    return 64;
#endif
}

int hr_ft_default_block_q(const hr_machine *m, int d)
{
    long bq = (long)(l2_of(m) / 4 * 3) / (8L * d) / 12 * 12;
    return bq > BQ_MAX ? BQ_MAX : bq < 12 ? 12 : (int)bq;
}

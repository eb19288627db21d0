/* flash_path.c — flash's (and gqa's) paths in one table: amx, bf16dot (bf16 Q, K, V), convert (every type pair); the choice among them. */
#include <stdlib.h>

#include "flash_tile.h"
#include "headroom.h"
#include "path.h"
#include "vec.h"

static const hr_ft_step convert_step = {HR_FT_CONVERT, NULL, NULL, NULL};
static const hr_ft_step bf16dot_step = {HR_FT_BF16DOT, hr_ft_dot_load_q, hr_ft_dot_attend, NULL};
static const hr_ft_step amx_step = {HR_FT_AMX, hr_ft_amx_load_q, hr_ft_amx_attend, hr_ft_amx_bind};

static const char *amx_why_not(const hr_problem *p) { return hr_ft_amx_why_not(); }
static const char *bf16dot_why_not(const hr_problem *p) { return hr_ft_bf16_why_not(); }

static const char *amx_roof(const hr_problem *p) { return "amx tdpbf16ps, fp32 accumulate, P in bf16"; }
static const char *bf16dot_roof(const hr_problem *p) { return "avx512-bf16 vdpbf16ps, fp32 accumulate, P in bf16"; }
static const char *convert_roof(const hr_problem *p)
{
    if (p->dtype == HR_F32 && p->kv_dtype == HR_F32) return HR_VEC_ISA " fp32";
    return "convert to fp32 in packing, " HR_VEC_ISA " fp32 FMA";
}

/* The dot paths take bf16 Q and K/V of the plain problem; every other pair, and every
 * variant (window, soft cap, ALiBi: softmax_tile's), is converted in packing. */
static int bf16_pair(const hr_problem *p)
{
    return p->dtype == HR_BF16 && p->kv_dtype == HR_BF16 && hr_problem_plain(p);
}

static const hr_path rows[] = {
    {"amx", amx_why_not, &amx_step, amx_roof, NULL, NULL},
    {"bf16dot", bf16dot_why_not, &bf16dot_step, bf16dot_roof, NULL, NULL},
    {"convert", NULL, &convert_step, convert_roof, NULL, NULL},
};
static const hr_path_table flash_paths = {"HEADROOM_FLASH_PATH", 0, rows, 3, bf16_pair, NULL, NULL};

const char *hr_ft_why_not(const hr_problem *p) { return hr_path_why_not(&flash_paths, p); }

int hr_ft_dot_ok(const hr_problem *p) { return ((const hr_ft_step *)hr_path_pick(&flash_paths, p)->step)->dot; }

const char *hr_ft_path(const hr_problem *p) { return hr_path_pick(&flash_paths, p)->roof(p); }

void hr_ft_set_path(hr_ft_ws *w, int path)
{
    for (int i = 0; i < flash_paths.n; i++) {
        const hr_ft_step *s = flash_paths.rows[i].step;
        if (s->dot != path) continue;
        w->dot = path;
        w->step = s;
        if (s->bind) s->bind(w);
    }
}

static size_t up(size_t a, size_t b) { return (a + b - 1) / b * b; }

/* amx: the Q (bf16) + O (fp32) stack within half of L2 (as flash.c's default), at most 512
 * rows: per row block of 32 the packing of a K/V tile (~Bkv*d/4 vector ops) is shared by
 * Bq/32 blocks; 384-512 rows beat 192 and 1024 (perf-log 0231). */
int hr_ft_path_block_q(const hr_problem *p, const hr_machine *m)
{
    if (hr_ft_dot_ok(p) != HR_FT_AMX) return hr_ft_default_block_q(m, p->d_head);
    const long l2 = m && m->l2 ? (long)m->l2 : 1L << 20, bq = l2 / 2 / (6L * (long)up((size_t)p->d_head, 32));
    return bq >= 512 ? 512 : bq < 32 ? 32 : (int)(bq / 32 * 32);
}

/* amx: 128 keys a tile, twice flash.c's 64: the O tiles (loaded and stored once per K/V
 * tile and column pair) and the per-tile work move half as often: faster at d 128,
 * neutral at d 64 (perf-log 0231). */
int hr_ft_path_block_kv(const hr_problem *p, const hr_machine *m)
{
    return hr_ft_dot_ok(p) == HR_FT_AMX ? 128 : hr_ft_default_block_kv(m, p->d_head);
}


/* plugin_kernel.c — the one adapter between the plugin ABI (include/headroom/plugin.h) and
 * headroom's own types: a plugin's hrp_kernel checked and wrapped as an hr_kernel, and
 * every call converted (problem, views in bytes, tunables, machine) on the way. */
#include <stddef.h>
#include <stdio.h>

#include "headroom/plugin.h"
#include "plugin_kernel.h"

/* The ABI's values are frozen; headroom's own must agree with them, or the adapter
 * would need a table where a cast suffices. */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(HRP_F32, HR_F32) && SAME(HRP_BF16, HR_BF16) && SAME(HRP_F16, HR_F16) &&
                   SAME(HRP_Q8_0, HR_Q8_0) && SAME(HRP_Q4_0, HR_Q4_0) && HR_NDTYPES == 5,
               "plugin ABI element types differ from hr_dtype");
_Static_assert(SAME(HRP_CAP_CAUSAL, HR_CAP_CAUSAL) && SAME(HRP_CAP_GQA, HR_CAP_GQA) &&
                   SAME(HRP_CAP_DECODE, HR_CAP_DECODE) && SAME(HRP_CAP_THREADED, HR_CAP_THREADED) &&
                   SAME(HRP_CAP_BLOCK_Q, HR_CAP_BLOCK_Q) && SAME(HRP_CAP_BLOCK_KV, HR_CAP_BLOCK_KV) &&
                   SAME(HRP_CAP_WINDOW, HR_CAP_WINDOW) && SAME(HRP_CAP_SOFTCAP, HR_CAP_SOFTCAP) &&
                   SAME(HRP_CAP_ALIBI, HR_CAP_ALIBI) && SAME(HRP_CAP_PAGED, HR_CAP_PAGED),
               "plugin ABI capabilities differ from HR_CAP_*");
_Static_assert(SAME(HRP_TRAFFIC_SCORES, HR_TRAFFIC_SCORES) && SAME(HRP_TRAFFIC_KV_PER_HEAD, HR_TRAFFIC_KV_PER_HEAD) &&
                   SAME(HRP_TRAFFIC_KV_PER_GROUP, HR_TRAFFIC_KV_PER_GROUP),
               "plugin ABI traffic models differ from hr_traffic");

/* The hrp_kernel of ABI 1.0 ends with path: a smaller one is not a 1.x kernel. Fields a
 * later minor appends are read only when pk->size covers them (HRP_HAS). */
#define PK_MIN_SIZE (offsetof(hrp_kernel, path) + sizeof(((hrp_kernel *)0)->path))
#define ALL_CAPS ((unsigned)HR_CAP_ALIBI * 2 - 1) /* through ABI 1.1's variant caps */
#define ALL_TYPES ((1u << HR_NDTYPES) - 1)

static const hrp_kernel *impl(const hr_kernel *k) { return k->plugin->impl; }

const char *hr_pk_make(const void *vpk, hr_plugin_origin *o, hr_kernel *k)
{
    const hrp_kernel *pk = vpk;
    static _Thread_local char why[160];
    if (!pk) return "a kernel pointer is NULL";
    if (pk->size < PK_MIN_SIZE) {
        snprintf(why, sizeof why, "struct size too small: hrp_kernel.size %u < %zu (ABI 1.0)", (unsigned)pk->size,
                 (size_t)PK_MIN_SIZE);
        return why;
    }
    if (!pk->name || !pk->name[0]) return "a kernel has no name";
    if (!pk->run) {
        snprintf(why, sizeof why, "kernel '%.40s' has no run function", pk->name);
        return why;
    }
    if (pk->caps & ~ALL_CAPS || pk->traffic > HRP_TRAFFIC_KV_PER_GROUP || pk->dtypes & ~ALL_TYPES ||
        pk->kv_dtypes & ~ALL_TYPES) {
        snprintf(why, sizeof why, "kernel '%.40s': unknown bits in caps, traffic, dtypes or kv_dtypes", pk->name);
        return why;
    }
    o->impl = pk;
    *k = (hr_kernel){
        .name = pk->name,
        .summary = pk->summary ? pk->summary : "",
        .caps = pk->caps,
        .traffic = (hr_traffic)pk->traffic,
        .dtypes = pk->dtypes,
        .kv_dtypes = pk->kv_dtypes,
        .plugin = o,
    };
    return NULL;
}

/* ---- headroom's types as the ABI's ------------------------------------------------- */

static hrp_problem problem(const hr_problem *p)
{
    return (hrp_problem){sizeof(hrp_problem), p->batch, p->heads, p->kv_heads, p->seq_q, p->seq_kv,
                         p->d_head, p->causal, hr_problem_scale(p), p->dtype, p->kv_dtype,
                         p->window, p->softcap, p->alibi, p->page_size};
}

static hrp_tune tune(const hr_tune *t) { return (hrp_tune){sizeof(hrp_tune), t->block_q, t->block_kv, t->threads}; }

/* f32 views count strides in floats, the ABI in bytes. */
static hrp_view fview(const float *p, ptrdiff_t sb, ptrdiff_t sh, ptrdiff_t sn)
{
    const int64_t e = (int64_t)sizeof(float);
    return (hrp_view){(void *)p, sb * e, sh * e, sn * e};
}

static hrp_view xview(const void *p, ptrdiff_t sb, ptrdiff_t sh, ptrdiff_t sn)
{
    return (hrp_view){(void *)p, sb, sh, sn};
}

static hrp_args args(const hr_args *a)
{
    return (hrp_args){
        sizeof(hrp_args),
        fview(a->q.p, a->q.sb, a->q.sh, a->q.sn),
        fview(a->k.p, a->k.sb, a->k.sh, a->k.sn),
        fview(a->v.p, a->v.sb, a->v.sh, a->v.sn),
        fview(a->o.p, a->o.sb, a->o.sh, a->o.sn),
        xview(a->xq.p, a->xq.sb, a->xq.sh, a->xq.sn),
        xview(a->xk.p, a->xk.sb, a->xk.sh, a->xk.sn),
        xview(a->xv.p, a->xv.sb, a->xv.sh, a->xv.sn),
        xview(a->xo.p, a->xo.sb, a->xo.sh, a->xo.sn),
        a->block_table,
        a->table_stride,
    };
}

/* ---- the calls ------------------------------------------------------------------- */

const char *hr_pk_applicable(const hr_kernel *k, const hr_problem *p)
{
    const hrp_kernel *pk = impl(k);
    if (!pk->applicable) return NULL;
    const hrp_problem q = problem(p);
    return pk->applicable(&q);
}

void hr_pk_resolve(const hr_kernel *k, const hr_problem *p, const hr_machine *m, hr_tune *t)
{
    const hrp_kernel *pk = impl(k);
    if (!pk->resolve) return;
    const hrp_problem q = problem(p);
    const hrp_machine hm = {sizeof(hrp_machine), m->threads, m->l1d, m->l2};
    hrp_tune ht = tune(t);
    pk->resolve(&q, &hm, &ht);
    /* A plugin may set its knobs, never the thread count headroom chose and recorded. */
    t->block_q = ht.block_q;
    t->block_kv = ht.block_kv;
}

size_t hr_pk_workspace(const hr_kernel *k, const hr_problem *p, const hr_tune *t)
{
    const hrp_kernel *pk = impl(k);
    if (!pk->workspace_bytes) return 0;
    const hrp_problem q = problem(p);
    const hrp_tune ht = tune(t);
    return pk->workspace_bytes(&q, &ht);
}

int hr_pk_run(const hr_kernel *k, const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    const hr_plugin_origin *o = k->plugin;
    const hrp_problem q = problem(p);
    const hrp_tune ht = tune(t);
    const hrp_args ha = args(a);
    int st = impl(k)->run(&q, &ht, &ha, ws);
    if (st == HRP_OK) return HR_OK;
    const char *why = o->last_error ? o->last_error() : NULL;
    if (why && why[0]) return hr_fail("kernel %s (plugin %s): run failed: %.200s", k->name, o->file, why);
    return hr_fail("kernel %s (plugin %s): run failed with status %d", k->name, o->file, st);
}

const char *hr_pk_path(const hr_kernel *k, const hr_problem *p)
{
    const hrp_kernel *pk = impl(k);
    if (!pk->path) return NULL;
    const hrp_problem q = problem(p);
    return pk->path(&q);
}

/* sweep_points.c — a sweep config's cartesian product as points: wisdom merged, names and
 * resume keys from the resolved tunables, skip reasons, duplicates dropped. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "sweep_points.h"
#include "threads.h"
#include "wisdom.h"

/* ---- keys ------------------------------------------------------------------------ */

void hr_sweep_key(const hr_result *r, int pass, char *buf, size_t len)
{
    char name[256];
    hr_result_name(r, name, sizeof name);
    snprintf(buf, len, "%s/bq%d/bkv%d/pass%d", name, r->tune.block_q, r->tune.block_kv, pass);
}

static size_t fnv(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int hr_keyset_init(hr_keyset *t, size_t n)
{
    t->cap = 64;
    while (t->cap < 2 * n + 2) t->cap *= 2;
    t->slot = calloc(t->cap, sizeof *t->slot);
    return t->slot ? HR_OK : hr_fail("out of memory");
}

int hr_keyset_add(hr_keyset *t, const char *s)
{
    size_t i = fnv(s) & (t->cap - 1);
    for (; t->slot[i]; i = (i + 1) & (t->cap - 1))
        if (!strcmp(t->slot[i], s)) return 1;
    t->slot[i] = s;
    return 0;
}

bool hr_keyset_has(const hr_keyset *t, const char *s)
{
    for (size_t i = fnv(s) & (t->cap - 1); t->slot[i]; i = (i + 1) & (t->cap - 1))
        if (!strcmp(t->slot[i], s)) return true;
    return false;
}

void hr_keyset_free(hr_keyset *t)
{
    free(t->slot);
    t->slot = NULL;
}

/* ---- points ---------------------------------------------------------------------- */

static bool in_filter(const char *filter, const char *name)
{
    if (!filter) return true;
    size_t n = strlen(name);
    for (const char *s = filter; *s;) {
        size_t m = strcspn(s, ",");
        if (m == n && !strncmp(s, name, n)) return true;
        s += m + (s[m] == ',');
    }
    return false;
}

/* Merges wisdom into pt->tune when c->wisdom (fields the config set win) and sets
 * pt->tune_source. HR_OK, or HR_EUSAGE when the wisdom file is corrupt. */
static int merge_wisdom(const hr_sweep_config *c, hr_sweep_point *pt)
{
    pt->threads = pt->tune.threads;
    const bool off = !c->wisdom || pt->skip[0] || hr_problem_validate(&pt->prob);
    return hr_wisdom_apply(c->wisdom_path, off, pt->kernel, &pt->prob, &pt->tune, &pt->tune_source);
}

hr_layer_spec hr_sweep_layer_spec(const hr_sweep_point *pt)
{
    const hr_problem *p = &pt->prob;
    return (hr_layer_spec){.batch = p->batch, .seq = p->seq_q, .d_model = pt->d_model,
                           .heads = p->heads, .kv_heads = p->kv_heads, .d_head = p->d_head,
                           .causal = p->causal, .window = p->window, .softcap = p->softcap,
                           .alibi = p->alibi, .dtype = p->dtype, .kv_dtype = p->kv_dtype,
                           .kernel = pt->kernel, .tune = pt->tune,
                           .gemm = (hr_gemm_backend)pt->gemm, .threads = pt->threads};
}

static int gemm_threads(const hr_layer_spec *s) { return s->threads > 0 ? s->threads : hr_threads_default(); }

/* Layer mode: names the point ("layer/<kernel>/<gemm>/B/N/D/H/G/d/causal|full/T", with
 * "/passP" when the sweep has several passes, as attention rows have), its resume key
 * (that of its "total" row) and the skip reason, if any. */
static void finish_layer(const hr_sweep_config *c, hr_sweep_point *pt, double max_mem)
{
    hr_layer_spec s = hr_sweep_layer_spec(pt);
    hr_layer_result lr = {.prob = pt->prob, .gemm_threads = gemm_threads(&s)};
    hr_layer_name(&s, &lr, pt->name, sizeof pt->name);
    if (c->passes > 1) {
        const size_t n = strlen(pt->name);
        if (n < sizeof pt->name) snprintf(pt->name + n, sizeof pt->name - n, "/pass%d", pt->pass);
        pt->named = true; /* hr_sweep_layer_run names the rows after it */
    }
    /* The key: the total row's name and the core's resolved block sizes (as hr_layer_bench
     * resolves them: threads follow the GEMMs' unless set). */
    hr_result r = {.kernel = pt->kernel, .prob = pt->prob, .layout = HR_LAYOUT_BNHD, .tune = pt->tune};
    if (!pt->skip[0] && hr_problem_validate(&pt->prob) == HR_OK) {
        hr_tune t = pt->tune;
        if (t.threads <= 0) t.threads = s.threads;
        r.tune = hr_kernel_tune(pt->kernel, &pt->prob, &t);
    }
    r.tune.threads = lr.gemm_threads;
    snprintf(r.label, sizeof r.label, "%.200s/total", pt->name);
    hr_sweep_key(&r, pt->pass, pt->key, sizeof pt->key);
    if (pt->skip[0]) return;
    if (!c->seq_kv_same) {
        snprintf(pt->skip, sizeof pt->skip, "mode = layer attends the sequence to itself: seq_kv must be same");
        return;
    }
    if (!hr_gemm_available((hr_gemm_backend)pt->gemm)) {
        snprintf(pt->skip, sizeof pt->skip, "gemm %s is not built into this binary (no OpenBLAS)",
                 hr_gemm_names[pt->gemm]);
        return;
    }
    const double need = hr_layer_bytes(&s); /* 0: invalid, the reason in hr_errmsg */
    const double budget = hr_mem_budget(max_mem);
    if (!(need > 0)) snprintf(pt->skip, sizeof pt->skip, "%s", hr_errmsg());
    else if (need > budget)
        snprintf(pt->skip, sizeof pt->skip, "over the memory budget: the layer needs %.1f MiB, budget %.1f MiB",
                 need / 1048576, budget / 1048576);
}

/* Fills the derived fields of a point: resolved name, key and skip reason. */
static void finish_point(hr_sweep_point *pt, const hr_sweep_config *c, double max_mem)
{
    const hr_kernel *k = pt->kernel;
    if (merge_wisdom(c, pt)) snprintf(pt->skip, sizeof pt->skip, "%s", hr_errmsg());
    hr_result r = {.kernel = k, .prob = pt->prob, .layout = pt->layout};
    bool valid = !pt->skip[0] && hr_problem_validate(&pt->prob) == HR_OK;
    if (!pt->skip[0] && !valid) snprintf(pt->skip, sizeof pt->skip, "invalid shape: %s", hr_errmsg());
    r.tune = valid ? hr_kernel_tune(k, &pt->prob, &pt->tune) : pt->tune;
    if (!valid && !(k->caps & HR_CAP_THREADED)) r.tune.threads = 1;
    hr_result_name(&r, pt->name, sizeof pt->name);
    /* compare and compare.py match rows by name: points that differ only in block sizes
     * or pass must not share one (layer mode names its rows itself) */
    const bool by_block = (c->block_q.n > 1 && (k->caps & HR_CAP_BLOCK_Q)) ||
                          (c->block_kv.n > 1 && (k->caps & HR_CAP_BLOCK_KV));
    if (c->mode != HR_MODE_LAYER && (by_block || c->passes > 1)) {
        size_t n = strlen(pt->name);
        if (by_block) n += (size_t)snprintf(pt->name + n, sizeof pt->name - n, "/bq%d/bkv%d", r.tune.block_q, r.tune.block_kv);
        if (c->passes > 1 && n < sizeof pt->name) snprintf(pt->name + n, sizeof pt->name - n, "/pass%d", pt->pass);
        snprintf(r.label, sizeof r.label, "%s", pt->name);
        pt->named = true;
    }
    hr_sweep_key(&r, pt->pass, pt->key, sizeof pt->key);
    if (c->mode == HR_MODE_LAYER) {
        finish_layer(c, pt, max_mem);
        return;
    }
    if (pt->skip[0]) return;
    const char *why = hr_kernel_why_not(k, &pt->prob);
    if (why) {
        snprintf(pt->skip, sizeof pt->skip, "not applicable: %s", why);
        return;
    }
    double need = hr_bench_bytes(k, &pt->prob, &r.tune);
    double budget = hr_mem_budget(max_mem);
    if (need > budget)
        snprintf(pt->skip, sizeof pt->skip, "over the memory budget: needs %.1f MiB, budget %.1f MiB",
                 need / 1048576, budget / 1048576);
}

int hr_sweep_expand(const hr_sweep_config *c, const char *filter, double max_mem,
                    hr_sweep_point **pts, int *n, int *ndup)
{
    for (const char *s = filter; s && *s;) {
        size_t m = strcspn(s, ",");
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", (int)(m < 63 ? m : 63), s);
        if (!hr_kernel_find(nm)) return hr_kernel_unknown("--filter", nm);
        s += m + (s[m] == ',');
    }
    size_t cap = (size_t)hr_config_points(c) + 1;
    hr_sweep_point *p = calloc(cap, sizeof *p);
    hr_keyset seen;
    if (!p || hr_keyset_init(&seen, cap)) {
        free(p);
        return hr_fail("out of memory");
    }
    int np = 0, nd = 0;
    const hr_ilist *hd = c->d_model.n ? &c->d_model : &c->heads;
    const hr_ilist one = {1, {0}};
    const hr_ilist *skv = c->seq_kv_same ? &one : &c->seq_kv;
    /* models = ...: one shape per model in place of heads|d_model x kv_heads x d_head;
     * shapes = ...: one point per listed shape in place of those and seq x seq_kv x causal */
    const bool listed = c->nshapes > 0;
    const int nshape = listed ? c->nshapes : c->nmodels ? c->nmodels : hd->n, nkv = c->nmodels || listed ? 1 : c->nkv,
              nd_head = c->nmodels || listed ? 1 : c->d_head.n, nseq = listed ? 1 : c->seq.n,
              nskv = listed ? 1 : skv->n, ncausal = listed ? 1 : c->ncausal;
    for (int pass = 1; pass <= c->passes; pass++)
    for (int ib = 0; ib < c->batch.n; ib++)
    for (int ih = 0; ih < nshape; ih++)
    for (int ig = 0; ig < nkv; ig++)
    for (int id = 0; id < nd_head; id++)
    for (int is = 0; is < nseq; is++)
    for (int im = 0; im < nskv; im++)
    for (int ic = 0; ic < ncausal; ic++)
    for (int il = 0; il < c->nlayout; il++)
    for (int it = 0; it < c->threads.n; it++)
    for (int iq = 0; iq < c->block_q.n; iq++)
    for (int ik = 0; ik < c->block_kv.n; ik++)
    for (int ie = 0; ie < (c->ngemm > 0 ? c->ngemm : 1); ie++)
    for (int it0 = 0; it0 < c->ndtype; it0++)
    for (int it1 = 0; it1 < (c->nkv_dtype ? c->nkv_dtype : 1); it1++)
    for (int iw = 0; iw < c->window.n; iw++)
    for (int ic2 = 0; ic2 < c->nsoftcap; ic2++)
    for (int ia = 0; ia < c->nalibi; ia++)
    for (int kk = 0; kk < c->nkernels; kk++) {
        const hr_kernel *k = c->kernels[kk];
        if (!in_filter(filter, k->name)) continue;
        hr_sweep_point *pt = &p[np];
        memset(pt, 0, sizeof *pt);
        pt->kernel = k;
        pt->gemm = c->ngemm > 0 ? c->gemm[ie] : 0;
        pt->pass = pass;
        int d = c->nmodels ? c->model[ih].d_head : listed ? c->shape[ih].d_head : c->d_head.v[id],
            heads = c->nmodels ? c->model[ih].heads : listed ? c->shape[ih].heads : hd->v[ih];
        if (c->nmodels) {
            if (c->mode == HR_MODE_LAYER) pt->d_model = c->model[ih].d_model;
        } else if (c->d_model.n) {
            pt->d_model = hd->v[ih];
            heads = pt->d_model / d;
            if (pt->d_model % d)
                snprintf(pt->skip, sizeof pt->skip, "d_model %d is not a multiple of d_head %d", pt->d_model, d);
            if (heads < 1) heads = 1;
        }
        const hr_kv_spec *kv = c->nmodels ? &(const hr_kv_spec){HR_KV_COUNT, c->model[ih].kv_heads} : &c->kv[ig];
        int g = kv->kind == HR_KV_MHA ? heads : kv->kind == HR_KV_MQA ? 1 : kv->kind == HR_KV_COUNT ? kv->n : heads / kv->n;
        if (!pt->skip[0] && kv->kind == HR_KV_RATIO && (heads % kv->n || g < 1))
            snprintf(pt->skip, sizeof pt->skip, "kv_heads ratio:%d does not divide heads %d", kv->n, heads);
        if (pt->skip[0] && kv->kind == HR_KV_RATIO) g = 0; /* named G0 in the skip note */
        int seq = listed ? 0 : c->seq.v[is], seq_kv = listed || c->seq_kv_same ? seq : skv->v[im];
        bool causal = listed ? false : c->causal[ic];
        if (listed) {
            const hr_cfg_shape *sh = &c->shape[ih];
            g = sh->kv_heads, seq = sh->seq_q, seq_kv = sh->seq_kv, causal = sh->causal;
        }
        pt->prob = (hr_problem){c->batch.v[ib], heads, g, seq, seq_kv, d,
                                causal, 0, c->dtype[it0], c->nkv_dtype ? c->kv_dtype[it1] : c->dtype[it0],
                                c->window.v[iw], (float)c->softcap[ic2], (float)c->alibi[ia], 0};
        pt->layout = c->layout[il];
        pt->tune = (hr_tune){(k->caps & HR_CAP_BLOCK_Q) ? c->block_q.v[iq] : 0,
                             (k->caps & HR_CAP_BLOCK_KV) ? c->block_kv.v[ik] : 0, c->threads.v[it]};
        finish_point(pt, c, max_mem);
        if (hr_keyset_add(&seen, pt->key)) {
            nd++;
            continue;
        }
        np++;
    }
    hr_keyset_free(&seen);
    *pts = p;
    *n = np;
    if (ndup) *ndup = nd;
    return HR_OK;
}


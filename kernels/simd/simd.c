/* simd.c — the blocked algorithm written once with vec.h (AVX-512, AVX2 or portable); 1 thread.
 *
 * Per query tile of block_q rows (as in blocked.c, only a block_q x Nkv score block is
 * materialized):
 *   1. scores: Kᵀ of the KV head is packed once, [d][ldkt], so a score block is an
 *      outer-product update with no horizontal sums: for each c, a vector of keys
 *      kt[c][j..j+2W) times a broadcast q[i][c], 4 query rows x 2 vectors of keys held
 *      in registers, K in tiles of block_kv keys reused by every row of the tile;
 *   2. softmax: per row, vector max, then exp(s - max) by hr_vexp (hr_expf_poly on the
 *      tail, which is bit-identical) and its sum. Keys past the row's causal end but
 *      inside the tile's range are set to 0, so step 3 runs one key range for all rows;
 *   3. P·V: 2 query rows x 4 vectors of d accumulate in registers over a V tile of
 *      block_kv keys; the accumulators live in acc [bq][ldv] between tiles; finally
 *      O = acc / sum (a row with no visible key is written as zeros).
 * d not a multiple of the width W: Kᵀ has no d tail; V is packed with zero padding to
 * whole vectors, and only O's store is masked.
 *
 * Defaults: block_kv = L1d / (8 d) rounded to 2W (a Kᵀ or V tile takes half of L1d),
 * block_q such that the score block and accumulators take half of L2, a multiple of 4;
 * the cache sizes are resolve's hr_machine (32 KiB and 1 MiB when unknown). */
#include <math.h>

#include "headroom.h"
#include "simd_body.h"
#include "vec.h"

#define SB_MAX_Q 256
#define SB_MAX_KV 1024
#define SB_ROWS_S 4  /* query rows per score micro-tile (x 2 vectors of keys)   */
#define SB_ROWS_PV 2 /* query rows per P·V micro-tile (x 4 vectors of d)       */
#define SB_VECS_PV 4

#define SB_INLINE static inline __attribute__((always_inline))

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
static int imin(int x, int y) { return x < y ? x : y; }

void hr_simd_resolve(const hr_problem *p, const hr_machine *m, hr_tune *t)
{
    size_t l1 = m->l1d ? m->l1d : 32768, l2 = m->l2 ? m->l2 : 1u << 20;
    if (t->block_kv <= 0) {
        size_t kv = l1 / (8 * (size_t)p->d_head) / (2 * HR_VW) * (2 * HR_VW);
        t->block_kv = kv < 2 * HR_VW ? 2 * HR_VW : kv > SB_MAX_KV ? SB_MAX_KV : (int)kv;
    }
    if (t->block_q <= 0) {
        size_t q = l2 / 2 / (sizeof(float) * ((size_t)p->seq_kv + (size_t)p->d_head)) / 4 * 4;
        t->block_q = q < 4 ? 4 : q > SB_MAX_Q ? SB_MAX_Q : (int)q;
    }
}

/* Slice lengths in floats, each a multiple of 16 (64 bytes). */
typedef struct {
    int bq;
    size_t lds, ldkt, ldv, s, kt, vp, acc, lsum;
} sb_layout;

static sb_layout sb_layout_of(const hr_problem *p, const hr_tune *t)
{
    sb_layout L;
    const size_t nkv = (size_t)p->seq_kv, d = (size_t)p->d_head;
    L.bq = imin(t->block_q, p->seq_q);
    L.lds = round_up(nkv, 16);
    /* A score micro-tile reads 2W columns from any start j < Nkv: pad by 2W zeros. */
    L.ldkt = round_up(nkv, 2 * HR_VW) + 2 * HR_VW;
    L.ldv = round_up(d, HR_VW);
    L.s = (size_t)L.bq * L.lds;
    L.kt = round_up(d * L.ldkt, 16);
    L.vp = L.ldv == d ? 0 : round_up(nkv * L.ldv, 16);
    L.acc = round_up((size_t)L.bq * L.ldv, 16);
    L.lsum = round_up((size_t)L.bq, 16);
    return L;
}

size_t hr_simd_scratch_bytes(const hr_problem *p, const hr_tune *t)
{
    sb_layout L = sb_layout_of(p, t);
    return (L.s + L.kt + L.vp + L.acc + L.lsum) * sizeof(float);
}

hr_simd_scratch hr_simd_scratch_at(const hr_problem *p, const hr_tune *t, void *mem)
{
    sb_layout L = sb_layout_of(p, t);
    hr_simd_scratch sc;
    sc.s = mem;
    sc.kt = sc.s + L.s;
    sc.vp = sc.kt + L.kt;
    sc.acc = sc.vp + L.vp;
    sc.lsum = sc.acc + L.acc;
    sc.lds = L.lds, sc.ldkt = L.ldkt, sc.ldv = L.ldv;
    sc.bq = L.bq, sc.kt_b = -1, sc.kt_g = -1;
    return sc;
}

/* Packs Kᵀ (zero columns past Nkv) and, when d has a tail, V with zero-padded rows. */
static void pack_kv(const hr_problem *p, const hr_args *a, int b, int g, hr_simd_scratch *sc)
{
    const int nkv = p->seq_kv, d = p->d_head;
    /* 16 keys at a time: reads 16 rows of K (in L1), writes runs of 16 floats of Kᵀ. */
    for (int j0 = 0; j0 < nkv; j0 += 16) {
        const int j1 = imin(j0 + 16, nkv);
        for (int c = 0; c < d; c++) {
            float *dst = sc->kt + (size_t)c * sc->ldkt;
            for (int j = j0; j < j1; j++) dst[j] = hr_crow(a->k, b, g, j)[c];
        }
    }
    for (int c = 0; c < d; c++)
        for (size_t j = (size_t)nkv; j < sc->ldkt; j++) sc->kt[(size_t)c * sc->ldkt + j] = 0;
    if (sc->ldv != (size_t)d)
        for (int j = 0; j < nkv; j++) {
            const float *v = hr_crow(a->v, b, g, j);
            float *dst = sc->vp + (size_t)j * sc->ldv;
            for (int c = 0; c < d; c++) dst[c] = v[c];
            for (size_t c = (size_t)d; c < sc->ldv; c++) dst[c] = 0;
        }
    sc->kt_b = b, sc->kt_g = g;
}

/* s[r][j0, j1) = scale · <q[r], k_j> for R query rows, keys from the packed Kᵀ. */
SB_INLINE void score_tile(const int R, const float *const *q, const float *kt, size_t ldkt,
                          int d, int j0, int j1, float scale, float *const *s)
{
    const hr_vf vs = hr_vset1(scale);
    for (int j = j0; j < j1; j += 2 * HR_VW) {
        hr_vf a0[SB_ROWS_S], a1[SB_ROWS_S];
        for (int r = 0; r < R; r++) a0[r] = hr_vzero(), a1[r] = hr_vzero();
        const float *kc = kt + j;
        for (int c = 0; c < d; c++, kc += ldkt) {
            const hr_vf k0 = hr_vload(kc), k1 = hr_vload(kc + HR_VW);
            for (int r = 0; r < R; r++) {
                const hr_vf qv = hr_vset1(q[r][c]);
                a0[r] = hr_vfma(qv, k0, a0[r]);
                a1[r] = hr_vfma(qv, k1, a1[r]);
            }
        }
        const int w = j1 - j;
        for (int r = 0; r < R; r++) {
            const hr_vf x0 = hr_vmul(a0[r], vs), x1 = hr_vmul(a1[r], vs);
            if (w >= 2 * HR_VW) {
                hr_vstore(s[r] + j, x0);
                hr_vstore(s[r] + j + HR_VW, x1);
            } else if (w >= HR_VW) {
                hr_vstore(s[r] + j, x0);
                if (w > HR_VW) hr_vstore_n(s[r] + j + HR_VW, x1, w - HR_VW);
            } else {
                hr_vstore_n(s[r] + j, x0, w);
            }
        }
    }
}

/* acc[r][0, V·W) += sum over j in [j0, j1) of p[r][j] · v_j[0, V·W), R rows. */
SB_INLINE void pv_tile(const int R, const int V, const float *const *pr, float *const *acc,
                       const float *v, size_t ldv, int j0, int j1)
{
    hr_vf o[SB_ROWS_PV][SB_VECS_PV];
    for (int r = 0; r < R; r++)
        for (int x = 0; x < V; x++) o[r][x] = hr_vload(acc[r] + x * HR_VW);
    for (int j = j0; j < j1; j++) {
        const float *vr = v + (size_t)j * ldv;
        hr_vf vv[SB_VECS_PV];
        for (int x = 0; x < V; x++) vv[x] = hr_vload(vr + x * HR_VW);
        for (int r = 0; r < R; r++) {
            const hr_vf pv = hr_vset1(pr[r][j]);
            for (int x = 0; x < V; x++) o[r][x] = hr_vfma(pv, vv[x], o[r][x]);
        }
    }
    for (int r = 0; r < R; r++)
        for (int x = 0; x < V; x++) hr_vstore(acc[r] + x * HR_VW, o[r][x]);
}

/* R rows of P·V over keys [j0, j1) and all of d: chunks of 4 vectors, then single ones. */
SB_INLINE void pv_rows(const int R, const float *const *pr, float *const *acc, const float *v,
                       size_t ldv, int nvec, int j0, int j1)
{
    int x = 0;
    for (; x + SB_VECS_PV <= nvec; x += SB_VECS_PV) {
        float *ax[SB_ROWS_PV];
        for (int r = 0; r < R; r++) ax[r] = acc[r] + x * HR_VW;
        pv_tile(R, SB_VECS_PV, pr, ax, v + x * HR_VW, ldv, j0, j1);
    }
    for (; x < nvec; x++) {
        float *ax[SB_ROWS_PV];
        for (int r = 0; r < R; r++) ax[r] = acc[r] + x * HR_VW;
        pv_tile(R, 1, pr, ax, v + x * HR_VW, ldv, j0, j1);
    }
}

/* Row softmax numerators in place over [0, e), zeros over [e, emax); returns their sum
 * (0 when e = 0). */
static float softmax_row(float *s, int e, int emax)
{
    float sum = 0;
    if (e > 0) {
        const int ev = e / HR_VW * HR_VW;
        hr_vf vm = hr_vset1(-INFINITY);
        for (int j = 0; j < ev; j += HR_VW) vm = hr_vmax(vm, hr_vload(s + j));
        float m = hr_vreduce_max(vm);
        for (int j = ev; j < e; j++) m = s[j] > m ? s[j] : m;
        const hr_vf vmx = hr_vset1(m);
        hr_vf vsum = hr_vzero();
        for (int j = 0; j < ev; j += HR_VW) {
            const hr_vf x = hr_vexp(hr_vsub(hr_vload(s + j), vmx));
            hr_vstore(s + j, x);
            vsum = hr_vadd(vsum, x);
        }
        sum = hr_vreduce_add(vsum);
        for (int j = ev; j < e; j++) {
            s[j] = hr_expf_poly(s[j] - m);
            sum += s[j];
        }
    }
    for (int j = e; j < emax; j++) s[j] = 0;
    return sum;
}

void hr_simd_rows(const hr_problem *p, const hr_tune *t, const hr_args *a, int b, int h,
                  int i_begin, int i_end, hr_simd_scratch *sc)
{
    const int d = p->d_head, g = h / hr_group(p), bkv = t->block_kv;
    const int nvec = (int)(sc->ldv / HR_VW);
    const float scale = hr_problem_scale(p);
    if (sc->kt_b != b || sc->kt_g != g) pack_kv(p, a, b, g, sc);
    const float *v = sc->vp;
    size_t ldv = sc->ldv;
    if (sc->ldv == (size_t)d) v = hr_crow(a->v, b, g, 0), ldv = (size_t)a->v.sn;

    for (int i0 = i_begin; i0 < i_end; i0 += sc->bq) {
        const int i1 = imin(i0 + sc->bq, i_end), nq = i1 - i0;
        /* Keys [0, emax) are visible to some row of the tile (ends grow with i). */
        const int emax = hr_causal_end(p, i1 - 1);
        const float *q[SB_ROWS_S];
        float *s[SB_ROWS_S];

        /* 1. Scores, one K tile at a time across every row of the query tile. */
        for (int j0 = 0; j0 < emax; j0 += bkv) {
            const int j1 = imin(j0 + bkv, emax);
            int r0 = 0;
            for (; r0 + SB_ROWS_S <= nq; r0 += SB_ROWS_S) {
                for (int r = 0; r < SB_ROWS_S; r++) {
                    q[r] = hr_crow(a->q, b, h, i0 + r0 + r);
                    s[r] = sc->s + (size_t)(r0 + r) * sc->lds;
                }
                score_tile(SB_ROWS_S, q, sc->kt, sc->ldkt, d, j0, j1, scale, s);
            }
            for (; r0 < nq; r0++) {
                q[0] = hr_crow(a->q, b, h, i0 + r0);
                s[0] = sc->s + (size_t)r0 * sc->lds;
                score_tile(1, q, sc->kt, sc->ldkt, d, j0, j1, scale, s);
            }
        }
        /* 2. Softmax numerators; entries past a row's causal end become 0. */
        for (int r = 0; r < nq; r++)
            sc->lsum[r] = softmax_row(sc->s + (size_t)r * sc->lds, hr_causal_end(p, i0 + r), emax);

        /* 3. acc = P·V, one V tile at a time across every row. */
        for (size_t x = 0; x < (size_t)nq * sc->ldv; x++) sc->acc[x] = 0;
        for (int j0 = 0; j0 < emax; j0 += bkv) {
            const int j1 = imin(j0 + bkv, emax);
            const float *pr[SB_ROWS_PV];
            float *ac[SB_ROWS_PV];
            int r0 = 0;
            for (; r0 + SB_ROWS_PV <= nq; r0 += SB_ROWS_PV) {
                for (int r = 0; r < SB_ROWS_PV; r++) {
                    pr[r] = sc->s + (size_t)(r0 + r) * sc->lds;
                    ac[r] = sc->acc + (size_t)(r0 + r) * sc->ldv;
                }
                pv_rows(SB_ROWS_PV, pr, ac, v, ldv, nvec, j0, j1);
            }
            for (; r0 < nq; r0++) {
                pr[0] = sc->s + (size_t)r0 * sc->lds;
                ac[0] = sc->acc + (size_t)r0 * sc->ldv;
                pv_rows(1, pr, ac, v, ldv, nvec, j0, j1);
            }
        }
        /* 4. O = acc / sum; a row with no visible key (sum 0) is all zeros. */
        for (int r = 0; r < nq; r++) {
            float *o = hr_row(a->o, b, h, i0 + r);
            const float sum = sc->lsum[r];
            const hr_vf inv = hr_vset1(sum > 0 ? 1.0f / sum : 0.0f);
            const float *ar = sc->acc + (size_t)r * sc->ldv;
            int c = 0;
            for (; c + HR_VW <= d; c += HR_VW) hr_vstore(o + c, hr_vmul(hr_vload(ar + c), inv));
            if (c < d) hr_vstore_n(o + c, hr_vmul(hr_vload(ar + c), inv), d - c);
        }
    }
}

static size_t simd_workspace(const hr_problem *p, const hr_tune *t)
{
    return hr_simd_scratch_bytes(p, t);
}

static int simd_run(const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    hr_simd_scratch sc = hr_simd_scratch_at(p, t, ws);
    for (int b = 0; b < p->batch; b++)
        for (int h = 0; h < p->heads; h++) hr_simd_rows(p, t, a, b, h, 0, p->seq_q, &sc);
    return HR_OK;
}

const hr_kernel hr_kernel_simd = {
    .name = "simd",
    .summary = "blocked, vectorized with vec.h (packed K^T, vector exp); 1 thread",
    .caps = HR_CAP_CAUSAL | HR_CAP_BLOCK_Q | HR_CAP_BLOCK_KV,
    .traffic = HR_TRAFFIC_KV_PER_HEAD,
    .resolve = hr_simd_resolve,
    .workspace_bytes = simd_workspace,
    .run = simd_run,
};

/* flash_micro.h — flash's fp32 register-tile micro-kernels, S = Q Kt and O += P V, per ISA level. */
#ifndef HR_FLASH_MICRO_H
#define HR_FLASH_MICRO_H

/* Included by flash.c only (its budget at the top says what limits them). */

#include <math.h>

#include "flash_softmax.h"
#include "vec.h"
#include "vec_tanh.h"

/* ---- micro-kernels ---------------------------------------------------------------- */

/* C[mr][nv*VW] = (add ? C : 0) + A[mr][0..n) * B[0..n)[nv*VW]: a rows lda apart, b rows
 * ldb, c rows ldc. S = Q Kᵀ is (d, q, kt, s) with add 0, O += P V is (nk, p, vp, o) with
 * add 1; add is a constant in every instance, so each compiles to its own loop. mm_acc is
 * the k loop on accumulators held by the caller (mm_body, qk_exp). */
FT_INLINE void mm_acc(int mr, int nv, int n, const float *a, int lda, const float *b, int ldb,
                      hr_vf acc[MR][NV])
{
    for (int k = 0; k < n; k++) {
        hr_vf bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) bv[v] = hr_vload(b + (ptrdiff_t)k * ldb + v * HR_VW);
#pragma GCC unroll 8
        for (int r = 0; r < mr; r++) {
            hr_vf ab = hr_vset1(a[r * lda + k]);
#pragma GCC unroll 4
            for (int v = 0; v < nv; v++) acc[r][v] = hr_vfma(ab, bv[v], acc[r][v]);
        }
    }
}

FT_INLINE void mm_body(int mr, int nv, int n, const float *a, int lda, const float *b, int ldb,
                       float *c, int ldc, int add)
{
    hr_vf acc[MR][NV];
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) acc[r][v] = add ? hr_vload(c + r * ldc + v * HR_VW) : hr_vzero();
    mm_acc(mr, nv, n, a, lda, b, ldb, acc);
#pragma GCC unroll 8
    for (int r = 0; r < mr; r++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) hr_vstore(c + r * ldc + v * HR_VW, acc[r][v]);
}

/* The variants of a chunk (flash.c's variants_row applies the same on its edges): cap,
 * inv the soft cap in log2 units and its inverse (0: none); slope, pos the MR rows' ALiBi
 * slopes (log2 units) and key positions i'; key the key of the chunk's first column. */
typedef struct {
    float cap, inv;
    const float *slope;
    const int *pos;
    int key;
} ft_var;
static const float ft_iota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* S = Q Kt of one MR-row chunk (kt at the chunk's first key, s at the rows' column 0,
 * the chunk at column c0) whose scores are all visible (no mask), the variants of va on
 * S's registers (NULL: none), and the online-softmax step in its registers (ft_row_chunk,
 * the same operations in the same order as flash.c's softmax_tile, so the same bits),
 * without writing S to L1 and reading it back twice. Rows r0.. of the stack: m, l (HR_VW
 * a row), o (ldo a row). Inlined into qk_exp (va NULL, the variants compiled away) and
 * qk_exp_var. */
FT_INLINE void qk_exp_body(int d, const float *q, const float *kt, int ldk, float *s, int lds, int c0, float *m,
                           float *l, float *o, int ldo, const ft_var *va)
{
    hr_vf acc[MR][NV];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) acc[r][v] = hr_vzero();
    mm_acc(MR, NV, d, q, d, kt, ldk, acc);
    if (va) {
        const hr_vf cap = hr_vset1(va->cap), inv = hr_vset1(va->inv), lane = hr_vload(ft_iota);
        for (int r = 0; r < MR; r++) {
            const hr_vf neg_m = hr_vset1(-va->slope[r]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                acc[r][v] = hr_vscore_variants(acc[r][v], va->cap > 0, cap, inv, va->slope[r] > 0, neg_m,
                                               hr_vadd(hr_vset1((float)(va->key + v * HR_VW - va->pos[r])), lane));
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
        ft_row_chunk(NV, acc[r], s + (ptrdiff_t)r * lds, c0, m + r, l + r * HR_VW, o + (ptrdiff_t)r * ldo, ldo);
}
static void qk_exp(int d, const float *q, const float *kt, int ldk, float *s, int lds, int c0, float *m,
                   float *l, float *o, int ldo)
{
    qk_exp_body(d, q, kt, ldk, s, lds, c0, m, l, o, ldo, NULL);
}
static void qk_exp_var(int d, const float *q, const float *kt, int ldk, float *s, int lds, int c0, float *m,
                       float *l, float *o, int ldo, const ft_var *va)
{
    qk_exp_body(d, q, kt, ldk, s, lds, c0, m, l, o, ldo, va);
}

/* One instance per (rows, width): the full NV-vector width ("w") and a 1-vector
 * remainder ("n"), for every row count 1..MR (the last micro-tile may be short). */
#define QK_PARAMS int d, const float *q, int ldq, const float *kt, int ldk, float *s, int lds
#define QK_ARGS d, q, ldq, kt, ldk, s, lds
#define PV_PARAMS int nk, const float *p, int ldp, const float *vp, int ldv, float *o, int ldo
#define PV_ARGS nk, p, ldp, vp, ldv, o, ldo
typedef void qk_fn(QK_PARAMS);
typedef void pv_fn(PV_PARAMS);
/* qk<R>w / qk<R>n: S's micro-kernel for R rows, NV vectors wide or one; pv<R>w, pv<R>n: O's. */
#define QK_FN(R, X, W) static void qk##R##X(QK_PARAMS) { mm_body(R, W, QK_ARGS, 0); }
#define PV_FN(R, X, W) static void pv##R##X(PV_PARAMS) { mm_body(R, W, PV_ARGS, 1); }
QK_FN(1, w, NV) QK_FN(2, w, NV) QK_FN(3, w, NV) QK_FN(4, w, NV)
QK_FN(1, n, 1) QK_FN(2, n, 1) QK_FN(3, n, 1) QK_FN(4, n, 1)
PV_FN(1, w, NV) PV_FN(2, w, NV) PV_FN(3, w, NV) PV_FN(4, w, NV)
PV_FN(1, n, 1) PV_FN(2, n, 1) PV_FN(3, n, 1) PV_FN(4, n, 1)
#if MR == 6
QK_FN(5, w, NV) QK_FN(6, w, NV) QK_FN(5, n, 1) QK_FN(6, n, 1)
PV_FN(5, w, NV) PV_FN(6, w, NV) PV_FN(5, n, 1) PV_FN(6, n, 1)
static qk_fn *const qk_wide[MR + 1] = {NULL, qk1w, qk2w, qk3w, qk4w, qk5w, qk6w};
static qk_fn *const qk_one[MR + 1] = {NULL, qk1n, qk2n, qk3n, qk4n, qk5n, qk6n};
static pv_fn *const pv_wide[MR + 1] = {NULL, pv1w, pv2w, pv3w, pv4w, pv5w, pv6w};
static pv_fn *const pv_one[MR + 1] = {NULL, pv1n, pv2n, pv3n, pv4n, pv5n, pv6n};
#else
static qk_fn *const qk_wide[MR + 1] = {NULL, qk1w, qk2w, qk3w, qk4w};
static qk_fn *const qk_one[MR + 1] = {NULL, qk1n, qk2n, qk3n, qk4n};
static pv_fn *const pv_wide[MR + 1] = {NULL, pv1w, pv2w, pv3w, pv4w};
static pv_fn *const pv_one[MR + 1] = {NULL, pv1n, pv2n, pv3n, pv4n};
#endif

#endif

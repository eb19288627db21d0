/* oracle.h — the double-precision reference and the comparison against it. */
#ifndef HR_ORACLE_H
#define HR_ORACLE_H

#include "headroom.h"

/* The score of key j for query row i of a head of ALiBi slope `slope` (hr_alibi_slope)
 * from its scaled dot product x, in double: p's soft cap c tanh(x / c), then ALiBi's
 * -slope |i' - j| (headroom.h). Every fp64 reference applies the variants through it. */
double hr_oracle_logit(const hr_problem *p, double slope, int i, int j, double x);
/* Computes one output row O[b,h,i] (d doubles) in double precision with the exact
 * semantics of headroom.h. Also returns, through dot_abs (may be NULL), the largest
 * scale * sum_k |q_k * k_k| over the row's visible keys: the size of the logits'
 * rounding error that any fp32 kernel must make. */
void hr_oracle_row(const hr_problem *p, const hr_args *a, int b, int h, int i, double *out,
                   double *dot_abs);

typedef struct {
    double max_abs_err;  /* max |O - ref|                                */
    double max_rel_err;  /* max |O - ref| / max |ref|                    */
    double nmse;         /* sum (O - ref)^2 / sum ref^2                  */
    double tol_pass;     /* max_rel_err <= tol_pass: pass                */
    double tol_warn;     /* tol_pass < max_rel_err <= tol_warn: warn     */
    long nonfinite;      /* NaN or inf in O                              */
    long input_nonfinite;/* NaN or inf in Q, K or V (the check then fails) */
    long masked_nonzero; /* rows that see no key but are not exactly zero */
    long rows_checked;   /* rows compared (a deterministic sample for big shapes) */
    long rows_total;
    int verdict;         /* HR_CHECK_PASS, _WARN or _FAIL                 */
} hr_check;

enum { HR_CHECK_PASS = 0, HR_CHECK_WARN = 1, HR_CHECK_FAIL = 2 };
extern const char *const hr_check_names[]; /* "pass", "warn", "fail" */

/* Tolerance terms of a reduced-type problem (oracle.c derives them): the rounding of O
 * to p->dtype (0 for f32) and the unit roundoff u of P or V rounded inside the kernel
 * (0 when p is all f32), which counts as 2·u·max_c Σ_j P_j|V_jc| / max|O_ref|.
 *   dtype/kv_dtype   O term   P·V u
 *   f32/f32          0        0
 *   bf16/bf16        2^-8     2^-8
 *   f16/f16          2^-11    2^-11
 *   f32/q8_0, q4_0   0        0      (exact dequantization; hr_oracle_check_q adds
 *                                      the exact effect of Q quantized to q8_0, oracle.c)
 *   bf16/q8_0        2^-8     2^-8 */
double hr_tol_out(const hr_problem *p);
double hr_tol_pv(const hr_problem *p);

/* Compares a->o with the oracle (for a typed O, convert a->xo into a->o first:
 * hr_tensors_output). The tolerance follows p's element types (above). Rows are all checked while the oracle's work stays
 * under max_work multiply-adds (0: a default of about 2e8); beyond that a deterministic
 * spread of rows (always including the first and last of each head) is checked.
 * Inputs containing NaN or inf fail with a message saying so. */
hr_check hr_oracle_check(const hr_problem *p, const hr_args *a, double max_work);
/* What a kernel's path says it rounds beyond its element types (hr_path_quant): Q to q8_0
 * on a q8_0/q4_0 cache (it names "Q as q8_0": decode's int8 path), and with it P·dv to
 * s8 per group of pv8_group keys (it names "P·dv s8 per G keys": decode's int8 P·V; 0
 * when P·V is fp32). */
typedef struct {
    bool q8_query;
    int pv8_group;
    bool bf16_query; /* Q rounded to bf16 (it names "Q as bf16": decode on a bf16 cache) */
    bool pv8_u8;     /* it names "P·dv u8 per G keys": the weights u8 (c = max/255) where every
                      * V scale is >= 0, s8 elsewhere (decode's q8_0 int8 P·V) */
} hr_quant_path;
hr_quant_path hr_path_quant(const char *path);
/* hr_oracle_check for such a kernel: the pass tolerance adds Q's quantization's exact
 * effect on O and, for pv8_group > 0, the bound of the weights' rounding (oracle.c; it
 * reads a->xv's block scales). hr_oracle_check is this with nothing quantized: a kernel
 * that keeps Q in fp32 is held to the fp32 terms, which see a dropped key. */
hr_check hr_oracle_check_q(const hr_problem *p, const hr_args *a, double max_work, hr_quant_path qp);
/* One line: "pass max_rel 1.2e-07 (tol 2.4e-05) nmse 3e-15". */
void hr_check_str(const hr_check *c, char *buf, size_t len);

#endif

/* oracle.h — the double-precision reference and the comparison against it. */
#ifndef HR_ORACLE_H
#define HR_ORACLE_H

#include "headroom.h"

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
/* hr_oracle_check for a kernel that quantizes Q to q8_0 on a q8_0/q4_0 cache (q8_query;
 * decode's int8 path): the pass tolerance adds that quantization's exact effect on O
 * (oracle.c). hr_oracle_check is this with q8_query false: a kernel that keeps Q in fp32
 * is held to the fp32 terms, which see a dropped key. hr_path_quantizes_q: whether a
 * kernel's path says it quantizes Q (it names "Q as q8_0"): 0 when it does not, else
 * 1 + 2·G where the path also names "P·dv s8 per G keys" (an int8 P·V whose weights are
 * rounded per group of G keys: the tolerance adds that bound, needing a->xv's block
 * scales), 1 + 0 otherwise; pass it as q8_path. */
hr_check hr_oracle_check_q(const hr_problem *p, const hr_args *a, double max_work, int q8_path);
int hr_path_quantizes_q(const char *path);
/* One line: "pass max_rel 1.2e-07 (tol 2.4e-05) nmse 3e-15". */
void hr_check_str(const hr_check *c, char *buf, size_t len);

#endif

/* oracle.c — the double-precision reference attention and the comparison against it.
 *
 * The reference computes each output row independently in double: logits, the row max,
 * exp(s - max), their sum, and the weighted sum of V rows — the textbook softmax, stable
 * for any logit magnitude. Semantics are those of headroom.h (GQA mapping, bottom-right
 * causal alignment, all-zero rows when no key is visible, the sliding window, the soft cap
 * and ALiBi's biases: each exactly, in double). The variants add to the logit term what an
 * fp32 kernel rounds in them: |bias| (ALiBi's product) and 32c (a soft cap's tanh in
 * fp32 to within 2^-17 c: 2·eps32·32c; vec_tanh.h's is ~2^-21 c).
 *
 * Tolerance (fp32 kernels): relative to max|O_ref| over the checked rows,
 *   pass = eps32 · (8·sqrt(d) + 16·log2(Nkv + 1) + 16) + logit term,
 *   warn = 10 · pass,
 * where the first part covers fp32 dot products and sums over up to Nkv keys, and the
 * logit term 2·eps32·max_row(scale·Σ|q·k|)·max|V| / max|O_ref| covers the rounding any
 * fp32 kernel must make in logits of large magnitude (the `large` distribution): a logit
 * error δ (about eps32·scale·Σ|q·k| for an fp32 dot product) perturbs the softmax weights
 * by a relative δ, and O_i by at most δ·max|V_j - O_i|.
 *
 * Reduced types (p->dtype, p->kv_dtype not f32): the oracle runs on the dequantized
 * inputs (what the kernel was given, exactly), so the fp32 terms stay, and two more
 * cover what a kernel with fp32 accumulation may round on top:
 *   O stored in dtype:  + u(dtype)                    (bf16 2^-8, f16 2^-11: one rounding)
 *   P (or V) rounded to the narrower of the float types dtype and kv_dtype inside the
 *   kernel (vdpbf16ps takes P in bf16; a q8_0/q4_0 cache dequantizes exactly to fp32 and
 *   adds nothing, so long decode caches keep the fp32 tolerance):
 *                       + 2·u·max_c Σ_j P_j·|V_jc| / max|O_ref|
 *   (each weight off by at most u relative: |Σ P_j δ_j V_jc| <= u·Σ P_j |V_jc|; the
 *   normalizer computed from the rounded or the unrounded weights another u). The same
 *   2u covers a short exp2 ahead of the rounding (flash's bf16dot and amx softmax,
 *   vec_softmax.h's hr_vexp2_bf16, relative error e = 7.5e-5): the weights are p_j(1+e_j)
 *   rounded, the normalizer the sum of the unrounded p_j(1+e_j), so each normalized
 *   weight is off by at most u + 2e relative, within 2u while e <= u/2 (bf16: 2e-3; a
 *   degree-2 polynomial's 2.5e-3 would not be). Not loosened for it.
 * A q8_0/q4_0 cache also lets the kernel quantize Q to q8_0 per 32-value block, as
 * llama.cpp does to score with int8 dot products (decode's VNNI path, on the scaled
 * fp32 rows): dq = amax_b/127, q~ = dq·round(q/dq), so |q~_c - q_c| <= amax_b/254 for
 * c in block b. A row's logit then moves by at most
 *     delta = max_j sum_b (amax_b/254)·sum_{c in b} |K_jc|,
 * each weight by a factor within e^(±2·delta) (the normalizer moves too), and since both
 * weight sets sum to 1, O_c by Σ_j (P~_j - P_j)(V_jc - O_c): at most
 * (e^(2·delta) - 1)·Σ_j P_j |V_jc - O_c|. That worst case (every rounding aligned with
 * the key's signs) is ~1 of max|O| at d 128, Nkv 1000 on normal inputs, 250x the error
 * the kernel shows (the roundings' signs are not aligned with the keys'): no test at all.
 * So for a kernel whose path says it quantizes Q (hr_oracle_check_q; every other kernel
 * keeps the fp32 terms, which see one dropped key) the oracle computes the term exactly: O~, the output in fp64 with the query
 * quantized by that rule (query_term), and adds
 *                       + max_c |O~_c - O_c| / max|O_ref|      (the worst row's)
 * which by the triangle inequality leaves the kernel the fp32 terms against O~. A kernel
 * that rounds ties differently may differ in a rare element by one step (the worst
 * case's bound for that element); the check would then warn, not pass.
 * A kernel whose path also says "P·dv s8 per G keys" (decode_i8.c's int8 P·V) rounds the
 * weights: per row, V block b (scale dv_jb, values v_jc) and group g of at most G
 * contiguous keys, x_j = P_j dv_jb becomes c_gb w_jb with c_gb = max_{j in g} |x_j|/127
 * and w = round(x/c) (the kernel's P unnormalized; it divides by l = sum P once, so take
 * P normalized): each weight is off by at most min(c_gb/2, |x_j|) (below c/2 it rounds
 * to 0: a peaked row's small weights; the group's largest is 127 c, exact but for fp32's
 * roundings, which the fp32 terms hold), and O_c by
 *     |dO_c| <= sum_g sum_{j in g} min(c_gb/2, |x_j|) |v_jc|,  |v_jc| = |V_jc|/|dv_jb|
 * (pv8_term, with c bounded by the max over keys within G-1 of j, as the oracle does not
 * know where the kernel's groups start). The kernel's P come from Q quantized to q8_0
 * (the term above): to first order the bound scales with them, so it is taken
 * PV8_MARGIN (1 + 1/16) times. A worst case again (every rounding of a group aligned
 * with V's signs); on random roundings the error is ~sqrt(3/G) of it per group and
 * sqrt(groups) less over a long context (the battery's ratios: README).
 * A bf16 cache likewise lets the kernel round an f32/f16 Q to bf16 (nearest even, each
 * value; it names "Q as bf16": decode's vdpbf16ps scores, as llama.cpp rounds Q to the
 * type of K's dot product): the same exact term, O~ from the rounded query (the scale
 * applied to the sum). A logit moves by at most 2^-9 scale Σ|q_c K_jc|, 2^-9 of the
 * logit term's Σ, so the term is ~1/60 of bf16's own P·V allowance on normal inputs.
 * Not covered: Q rounded otherwise inside the kernel (its logits must be fp32 dot
 * products of the values given, of Q's q8_0 blocks on a block cache, or of Q in bf16 on
 * a bf16 cache). The format's own error (the stored inputs against
 * the original fp32 ones) is measured separately and not judged (hr_format_check in
 * harness/measure/check.c). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "oracle.h"

#define PV8_MARGIN (1.0 + 1.0 / 16)

const char *const hr_check_names[] = {"pass", "warn", "fail", NULL};

/* One output row; dot_abs (may be NULL) as hr_oracle_row's, pv_abs (may be NULL) gets
 * max over c of sum_j P_j |V[j][c]| (P the normalized softmax weights): the size of the
 * error of P·V when P or V is rounded to a narrower type inside a kernel. */
/* max_c |O~_c - O_c| for the row, O~ the output (in fp64) with the query quantized as
 * the kernel quantizes it (the comment above): a q8_0/q4_0 cache's q8_0 rule (x = q·scale
 * in fp32, per block dq = amax/127 and v = nearbyint(x·(127/amax)) in fp32, |v| <= 127),
 * or with bf16 each value of q rounded to bf16, the scale applied to the sum. out is the
 * row's normalized output with the query as given, end its causal end. */
/* The score of key j for query row i of head h from its scaled dot product x, with p's
 * variants (headroom.h): the soft cap c tanh(x / c), then ALiBi's -m_h |i' - j|. */
double hr_oracle_logit(const hr_problem *p, double slope, int i, int j, double x)
{
    if (p->softcap > 0) x = p->softcap * tanh(x / p->softcap);
    if (slope > 0) x -= slope * fabs((double)i + p->seq_kv - p->seq_q - j);
    return x;
}

static double query_term(const hr_problem *p, const hr_args *a, int b, int h, int i, const float *q,
                         const double *out, int end, bool bf16)
{
    const int g = h / hr_group(p), beg = hr_window_begin(p, i);
    const double slope = hr_alibi_slope(p, h);
    const int d = p->d_head;
    if ((!bf16 && d % HR_QBLOCK) || end <= 0) return 0; /* validation refuses such d */
    const float fscale = (float)hr_problem_scale(p);
    double *qt = malloc(sizeof(double) * ((size_t)2 * d + (size_t)end));
    if (!qt) return INFINITY;
    double *ot = qt + d, *st = ot + d, mt = -INFINITY, sumt = 0, err = 0;
    if (bf16) /* the rows unscaled, each value to nearest even; the scale after the sum */
        for (int c = 0; c < d; c++) qt[c] = (double)hr_bf16_to_f32(hr_f32_to_bf16(q[c])) * fscale;
    else for (int c0 = 0; c0 < d; c0 += HR_QBLOCK) {
        float amax = 0;
        for (int c = c0; c < c0 + HR_QBLOCK; c++) amax = fmaxf(amax, fabsf(q[c] * fscale));
        const float dq = amax / 127.0f, id = amax > 0 ? 127.0f / amax : 0.0f;
        for (int c = c0; c < c0 + HR_QBLOCK; c++) {
            const float v = fminf(fmaxf(nearbyintf(q[c] * fscale * id), -127.0f), 127.0f);
            qt[c] = (double)dq * v;
        }
    }
    for (int j = beg; j < end; j++) {
        const float *k = hr_kv_crow(p, a, a->k, b, g, j);
        double acc = 0;
        for (int c = 0; c < d; c++) acc += qt[c] * k[c];
        st[j] = hr_oracle_logit(p, slope, i, j, acc);
        mt = st[j] > mt ? st[j] : mt;
    }
    for (int c = 0; c < d; c++) ot[c] = 0;
    for (int j = beg; j < end; j++) {
        const double w = exp(st[j] - mt);
        const float *v = hr_kv_crow(p, a, a->v, b, g, j);
        sumt += w;
        for (int c = 0; c < d; c++) ot[c] += w * v[c];
    }
    for (int c = 0; c < d; c++) err = fmax(err, fabs(ot[c] / sumt - out[c]));
    free(qt);
    return err;
}

/* A q8_0/q4_0 cache whose P·V is int8 (decode_i8.c): max_c of the bound on |dO_c| from
 * the weights' quantization, the comment above. x_j = p_j |dv_jb| (p normalized, dv the
 * stored block scale of V row j), c_gb <= wmax_j / 127 with wmax_j the max of x over
 * keys within G - 1 of j (every contiguous group of at most G keys that holds j lies
 * there, however the kernel's threads and blocks cut the keys), |v_jc| = |V_jc| / |dv_jb|. */
static double pv8_term(const hr_problem *p, const hr_args *a, int b, int g, const double *s, double m,
                       double sum, int end, int grp, bool u8)
{
    const int d = p->d_head, nb = d / HR_QBLOCK;
    const size_t bb = p->kv_dtype == HR_Q4_0 ? 2 + HR_QBLOCK / 2 : 2 + HR_QBLOCK;
    unsigned char rowb[HR_MAX_DHEAD / HR_QBLOCK * (2 + HR_QBLOCK)]; /* a tiled cache's row, read back */
    /* u8 weights (c = max/255) only where the kernel can have taken them: every V scale
     * of the head's keys without its sign bit (it decides per block step; -0 counts as
     * negative here, so the bound is the looser one) */
    double half = 254; /* 2 x the weights' largest level */
    if (u8) {
        half = 510;
        for (int j = 0; j < p->seq_kv && half > 254; j++)
            for (int blk = 0; blk < nb; blk++) {
                uint16_t h;
                memcpy(&h, (const unsigned char *)hr_kv_key_row(p, a, a->xv, 1, b, g, j, rowb) + (size_t)blk * bb, 2);
                if (h & 0x8000) half = 254;
            }
    }
    double *x = malloc(sizeof(double) * (size_t)(end > 0 ? 2 * end : 1)), *dv = x + end, worst = 0;
    double *t = calloc((size_t)d, sizeof(double));
    if (!x || !t) {
        free(x);
        free(t);
        return INFINITY;
    }
    for (int blk = 0; blk < nb; blk++) {
        for (int j = 0; j < end; j++) {
            uint16_t h;
            memcpy(&h, (const unsigned char *)hr_kv_key_row(p, a, a->xv, 1, b, g, j, rowb) + (size_t)blk * bb, 2);
            dv[j] = fabs((double)hr_f16_to_f32(h));
            x[j] = exp(s[j] - m) / sum * dv[j];
        }
        for (int j = 0; j < end; j++) {
            if (dv[j] == 0) continue;
            double w = 0;
            for (int i = j - grp + 1 > 0 ? j - grp + 1 : 0; i < end && i < j + grp; i++) w = x[i] > w ? x[i] : w;
            const float *v = hr_kv_crow(p, a, a->v, b, g, j);
            /* |x| < c/2 rounds to 0: off by |x|; the window's max is its group's, w = 127 (255) */
            const double e = x[j] >= w ? 0 : w / half < x[j] ? w / half : x[j];
            for (int c = blk * HR_QBLOCK; c < (blk + 1) * HR_QBLOCK; c++) t[c] += e * fabs((double)v[c]) / dv[j];
        }
    }
    for (int c = 0; c < d; c++) worst = t[c] > worst ? t[c] : worst;
    free(x);
    free(t);
    return worst;
}

static void oracle_row(const hr_problem *p, const hr_args *a, int b, int h, int i, double *out,
                       double *dot_abs, double *pv_abs, double *qt_abs, bool bf16_q, int pv8_grp, bool pv8_u8,
                       double *pv8_abs)
{
    const int d = p->d_head, g = h / hr_group(p), end = hr_causal_end(p, i), beg = hr_window_begin(p, i);
    const double scale = hr_problem_scale(p), slope = hr_alibi_slope(p, h);
    const float *q = hr_crow(a->q, b, h, i);
    double m = -INFINITY, dabs = 0;
    double *s = malloc(sizeof(double) * (size_t)(end > 0 ? end : 1));
    double *pva = pv_abs ? calloc((size_t)d, sizeof(double)) : NULL;
    for (int j = 0; j < beg; j++) s[j] = -INFINITY; /* outside the window: weight 0 */
    for (int j = beg; j < end; j++) {
        const float *k = hr_kv_crow(p, a, a->k, b, g, j);
        double acc = 0, aabs = 0;
        for (int c = 0; c < d; c++) {
            acc += (double)q[c] * k[c];
            aabs += fabs((double)q[c] * k[c]);
        }
        s[j] = hr_oracle_logit(p, slope, i, j, acc * scale);
        if (s[j] > m) m = s[j];
        /* an fp32 kernel rounds the logit's parts: the dot product and the bias */
        aabs = aabs * scale + slope * fabs((double)i + p->seq_kv - p->seq_q - j) + 32.0 * p->softcap;
        if (aabs > dabs) dabs = aabs;
    }
    for (int c = 0; c < d; c++) out[c] = 0;
    double sum = 0;
    for (int j = beg; j < end; j++) {
        double w = exp(s[j] - m);
        sum += w;
        const float *v = hr_kv_crow(p, a, a->v, b, g, j);
        for (int c = 0; c < d; c++) out[c] += w * v[c];
        if (pva)
            for (int c = 0; c < d; c++) pva[c] += w * fabs((double)v[c]);
    }
    double pmax = 0;
    if (end > 0)
        for (int c = 0; c < d; c++) {
            out[c] /= sum;
            if (pva && pva[c] / sum > pmax) pmax = pva[c] / sum;
        }
    if (qt_abs) *qt_abs = query_term(p, a, b, h, i, q, out, end, bf16_q);
    if (pv8_abs) *pv8_abs = end > 0 ? pv8_term(p, a, b, g, s, m, sum, end, pv8_grp, pv8_u8) : 0;
    free(s);
    free(pva);
    if (dot_abs) *dot_abs = dabs;
    if (pv_abs) *pv_abs = pmax;
}

void hr_oracle_row(const hr_problem *p, const hr_args *a, int b, int h, int i, double *out,
                   double *dot_abs)
{
    oracle_row(p, a, b, h, i, out, dot_abs, NULL, NULL, false, 0, false, NULL);
}

/* Unit roundoff of a float type (2^-p for p significand bits, round to nearest): what
 * one rounding to it costs, relative. */
static double unit_roundoff(hr_dtype t)
{
    return t == HR_BF16 ? 0x1p-8 : t == HR_F16 ? 0x1p-11 : 0x1p-24;
}

double hr_tol_out(const hr_problem *p) { return p->dtype == HR_F32 ? 0 : unit_roundoff(p->dtype); }

double hr_tol_pv(const hr_problem *p)
{
    /* The float types a kernel may compute P·V in: dtype's, and a bf16/f16 cache's. A
     * block-format cache dequantizes exactly to fp32 (an fp16 scale times an int8 or a
     * nibble needs at most 19 bits), so it allows no rounding of its own. */
    double u = p->dtype != HR_F32 ? unit_roundoff(p->dtype) : 0;
    if ((p->kv_dtype == HR_BF16 || p->kv_dtype == HR_F16) && unit_roundoff(p->kv_dtype) > u)
        u = unit_roundoff(p->kv_dtype);
    return u;
}

/* Counts NaN/inf in a [B][H][N][d] view and returns max |x|. */
static double scan(hr_cview v, int B, int H, int N, int d, long *nonfinite, const hr_problem *kp, const hr_args *a)
{
    double mx = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int n = 0; n < N; n++) {
                const float *r = kp ? hr_kv_crow(kp, a, v, b, h, n) : hr_crow(v, b, h, n); /* kp: p's K/V */
                for (int c = 0; c < d; c++) {
                    if (!isfinite(r[c])) (*nonfinite)++;
                    else if (fabsf(r[c]) > mx) mx = fabsf(r[c]);
                }
            }
    return mx;
}

hr_quant_path hr_path_quant(const char *path)
{
    hr_quant_path qp = {0};
    if (path && strstr(path, "Q as bf16")) qp.bf16_query = true;
    if (!path || !strstr(path, "Q as q8_0")) return qp;
    qp.q8_query = true;
    const char *pv = strstr(path, "P·dv s8 per "), *pu = strstr(path, "P·dv u8 per ");
    if (pu) qp.pv8_u8 = true, pv = pu;
    if (pv && sscanf(pv + strlen("P·dv s8 per "), "%d", &qp.pv8_group) != 1) qp.pv8_group = 0; /* u8: as long */
    if (qp.pv8_group < 0) qp.pv8_group = 0;
    return qp;
}

hr_check hr_oracle_check(const hr_problem *p, const hr_args *a, double max_work)
{
    return hr_oracle_check_q(p, a, max_work, (hr_quant_path){0});
}

hr_check hr_oracle_check_q(const hr_problem *p, const hr_args *a, double max_work, hr_quant_path qp)
{
    hr_check c = {0};
    const int B = p->batch, H = p->heads, G = p->kv_heads, Nq = p->seq_q, Nk = p->seq_kv;
    const int d = p->d_head;
    if (max_work <= 0) max_work = 2e8;
    scan(a->q, B, H, Nq, d, &c.input_nonfinite, NULL, a);
    scan(a->k, B, G, Nk, d, &c.input_nonfinite, p, a);
    double vmax = scan(a->v, B, G, Nk, d, &c.input_nonfinite, p, a);
    scan(hr_cv(a->o), B, H, Nq, d, &c.nonfinite, NULL, a);

    /* Check every row while the work is small, else every stride-th row plus the first
     * and last row of every head (the causal edge cases live there). */
    double work = (double)B * H * d * hr_visible_pairs(p) * 2;
    long stride = work <= max_work ? 1 : (long)ceil(work / max_work);
    c.rows_total = (long)B * H * Nq;
    double *ref = malloc(sizeof(double) * (size_t)d);
    double omax = 0, dabs_max = 0, pv_max = 0, qt_max = 0, pv8_max = 0, err2 = 0, ref2 = 0;
    const double u_pv = hr_tol_pv(p);
    const bool q8_query = qp.q8_query && (p->kv_dtype == HR_Q8_0 || p->kv_dtype == HR_Q4_0);
    const bool bf16_query = qp.bf16_query && !q8_query && p->dtype != HR_BF16; /* a bf16 Q is exact */
    const int pv8_grp = q8_query && a->xv.p ? qp.pv8_group : 0;
    long r = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < Nq; i++, r++) {
                if (r % stride && i != 0 && i != Nq - 1) continue;
                double dabs, pv = 0, qterm = 0, pv8 = 0;
                oracle_row(p, a, b, h, i, ref, &dabs, u_pv > 0 ? &pv : NULL, q8_query || bf16_query ? &qterm : NULL,
                           bf16_query, pv8_grp, qp.pv8_u8, pv8_grp ? &pv8 : NULL);
                if (pv > pv_max) pv_max = pv;
                if (pv8 > pv8_max) pv8_max = pv8;
                if (qterm > qt_max) qt_max = qterm;
                const float *o = hr_crow(hr_cv(a->o), b, h, i);
                int masked = hr_causal_end(p, i) == 0;
                for (int k = 0; k < d; k++) {
                    double e = fabs((double)o[k] - ref[k]);
                    if (masked && o[k] != 0.0f) {
                        c.masked_nonzero++;
                        break;
                    }
                    if (!(e <= c.max_abs_err)) c.max_abs_err = isnan(e) ? INFINITY : e;
                    if (fabs(ref[k]) > omax) omax = fabs(ref[k]);
                    err2 += e * e;
                    ref2 += ref[k] * ref[k];
                }
                if (dabs > dabs_max) dabs_max = dabs;
                c.rows_checked++;
            }
    free(ref);
    const double eps = FLT_EPSILON;
    c.max_rel_err = omax > 0 ? c.max_abs_err / omax : c.max_abs_err;
    c.nmse = ref2 > 0 ? err2 / ref2 : err2;
    c.tol_pass = eps * (8 * sqrt((double)d) + 16 * log2((double)Nk + 1) + 16);
    if (omax > 0) c.tol_pass += 2 * eps * dabs_max * vmax / omax + 2 * u_pv * pv_max / omax;
    c.tol_pass += omax > 0 ? qt_max / omax : qt_max; /* the rounded query's term */
    c.tol_pass += PV8_MARGIN * (omax > 0 ? pv8_max / omax : pv8_max);
    c.tol_pass += hr_tol_out(p);
    c.tol_warn = 10 * c.tol_pass;
    if (c.nonfinite || c.input_nonfinite || c.masked_nonzero || !(c.max_rel_err <= c.tol_warn))
        c.verdict = HR_CHECK_FAIL;
    else if (c.max_rel_err > c.tol_pass)
        c.verdict = HR_CHECK_WARN;
    else
        c.verdict = HR_CHECK_PASS;
    return c;
}

void hr_check_str(const hr_check *c, char *buf, size_t len)
{
    if (c->input_nonfinite)
        snprintf(buf, len, "fail: the input contains %ld NaN/inf values", c->input_nonfinite);
    else if (c->nonfinite)
        snprintf(buf, len, "fail: the output contains %ld NaN/inf values", c->nonfinite);
    else if (c->masked_nonzero)
        snprintf(buf, len, "fail: %ld fully masked rows are not zero", c->masked_nonzero);
    else
        snprintf(buf, len, "%s max_rel %.2e (pass <= %.2e, warn <= %.2e) max_abs %.2e nmse %.2e%s",
                 hr_check_names[c->verdict], c->max_rel_err, c->tol_pass, c->tol_warn,
                 c->max_abs_err, c->nmse, c->rows_checked < c->rows_total ? " (sampled rows)" : "");
}

/* test_vec.c — the SIMD layer: lane operations, masked tails, reductions, hr_vexp and hr_vexp2
 * accuracy, the block transpose. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "headroom.h"
#include "t.h"
#include "isa.h"
#include "vec.h"
#include "vec_bf16.h"
#include "vec_eo.h"
#include "vec_int8.h"
#include "vec_tanh.h"
#include "vec_softmax.h"

/* The bound stated in vec.h (measured 8.5e-8 exhaustively); a dense sweep must meet it. */
#define EXP_REL_TOL 1.0e-7

/* Checks hr_vexp on x[0..n) (n <= HR_VW, tails through hr_vload_n) against exp in double
 * and bit for bit against hr_expf_poly; keeps the worst relative error. */
static long exp_check(const float *x, int n, double *worst, double *worst_x)
{
    float y[HR_VW];
    long mismatch = 0;
    hr_vstore(y, hr_vexp(n == HR_VW ? hr_vload(x) : hr_vload_n(x, n)));
    for (int i = 0; i < n; i++) {
        double e = exp((double)x[i]);
        double rel = fabs((double)y[i] - e) / e;
        if (!(rel <= *worst)) *worst = rel, *worst_x = x[i];
        float s = hr_expf_poly(x[i]);
        if (memcmp(&s, &y[i], sizeof s) != 0) mismatch++;
    }
    return mismatch;
}

/* exp over [lo, hi] in steps of step. */
static void exp_sweep(double lo, double hi, double step)
{
    float x[HR_VW];
    double worst = 0, worst_x = 0;
    long mismatch = 0;
    int k = 0;
    long steps = (long)((hi - lo) / step);
    for (long s = 0; s <= steps; s++) {
        x[k++] = (float)(lo + (double)s * step);
        if (k == HR_VW) mismatch += exp_check(x, k, &worst, &worst_x), k = 0;
    }
    if (k) mismatch += exp_check(x, k, &worst, &worst_x);
    CHECKF(worst <= EXP_REL_TOL, "hr_vexp max rel err %.3g at x = %.9g over [%g, %g]", worst,
           worst_x, lo, hi);
    CHECKF(mismatch == 0, "%ld lanes where hr_expf_poly differs from hr_vexp", mismatch);
}

HR_TEST(vec_exp_nonpositive) { exp_sweep(-87.0, 0.0, 3.7e-5); }
HR_TEST(vec_exp_near_zero) { exp_sweep(-1e-3, 1e-3, 1.1e-7); }
HR_TEST(vec_exp_positive) { exp_sweep(0.0, 88.0, 1.3e-3); }

/* The soft cap c·tanh(s/c) within 2^-19 c of tanh in double (vec_tanh.h), for caps of
 * 1 and 50 in the kernels' log2 units, across the bend, far past it and through 0. */
HR_TEST(vec_softcap_tanh)
{
    const float caps[] = {1.4426950f, 72.134752f};
    for (int ci = 0; ci < 2; ci++) {
        const float c = caps[ci];
        double worst = 0;
        for (int i = -20000; i < 20000; i += HR_VW) {
            float x[16], y[16];
            for (int l = 0; l < HR_VW; l++) x[l] = (float)(i + l) * c / 2000.0f;
            hr_vstore(y, hr_vsoftcap(hr_vload(x), hr_vset1(c), hr_vset1(1.0f / c)));
            for (int l = 0; l < HR_VW; l++) {
                const double e = fabs(y[l] - c * tanh((double)x[l] / c)) / c;
                worst = e > worst ? e : worst;
            }
        }
        CHECKF(worst <= 0x1p-19, "cap %g: worst %.3g of c", c, worst);
    }
}

HR_TEST(vec_exp_special)
{
    const float in[] = {-INFINITY, -1e30f, -1000.0f, -87.5f, -87.34f, 0.0f, -0.0f,
                        100.0f,    INFINITY, -FLT_MIN, 88.0f, -87.3f, -20.0f, 1.0f, -1.0f, NAN};
    const int n = (int)(sizeof in / sizeof in[0]);
    for (int i = 0; i < n; i++) {
        float buf[HR_VW] = {0}, out[HR_VW];
        buf[0] = in[i];
        hr_vstore(out, hr_vexp(hr_vload(buf)));
        float s = hr_expf_poly(in[i]);
        CHECKF(memcmp(&s, &out[0], sizeof s) == 0, "exp(%g): scalar %g vector %g", in[i], s,
               out[0]);
        CHECKF(out[1] == 1.0f, "exp(0) lane next to %g is %g", in[i], out[1]);
        if (isnan(in[i])) {
            CHECKF(isnan(out[0]), "exp(NaN) = %g", out[0]);
        } else if (in[i] < -87.33654f) {
            CHECKF(out[0] == 0.0f && !signbit(out[0]), "exp(%g) = %g, want +0", in[i], out[0]);
        } else if (in[i] > 88.0f) {
            CHECKF(isfinite(out[0]) && out[0] > 1e38f, "exp(%g) = %g, want finite saturation",
                   in[i], out[0]);
        } else {
            double e = exp((double)in[i]);
            CHECKF(fabs(out[0] - e) <= EXP_REL_TOL * e, "exp(%g) = %.9g, want %.9g", in[i],
                   out[0], e);
        }
    }
    CHECK(hr_expf_poly(0.0f) == 1.0f);
    CHECK(hr_expf_poly(-INFINITY) == 0.0f);
}

/* The worst ratio of fn's relative error to its bound tol + per_x |x| against exp2 in
 * double over 9M points of [-126, 0]; *at: where. */
static double exp2_sweep(hr_vf (*fn)(hr_vf), double tol, double per_x, double *at)
{
    float x[HR_VW], y[HR_VW];
    double worst = 0;
    const long steps = 9000000;
    for (long s0 = 0; s0 <= steps; s0 += HR_VW) {
        for (int i = 0; i < HR_VW; i++)
            x[i] = (float)(-126.0 * (double)(s0 + i < steps ? s0 + i : steps) / (double)steps);
        hr_vstore(y, fn(hr_vload(x)));
        for (int i = 0; i < HR_VW; i++) {
            double e = exp2((double)x[i]), rel = fabs((double)y[i] - e) / e;
            double excess = rel / (tol + per_x * fabs((double)x[i]));
            if (!(excess <= worst)) worst = excess, *at = x[i];
        }
    }
    return worst;
}

/* hr_vexp2 against exp2 in double over [-126, 0], where results are normal floats: the
 * bound vec.h states (7.9e-8 measured on AVX-512 and AVX2; on the portable path the
 * rounding of x ln 2 adds up to |x| * 4.5e-8). */
HR_TEST(vec_exp2_nonpositive)
{
#if defined(HR_VEC_GENERIC_PATH)
    const double per_x = 4.5e-8;
#else
    const double per_x = 0.0;
#endif
    double worst_x = 0, worst = exp2_sweep(hr_vexp2, EXP_REL_TOL, per_x, &worst_x);
    CHECKF(worst <= 1.0, "hr_vexp2 error %.3g times its bound at x = %.9g", worst, worst_x);
}

/* The softmax exp2s' two ends: a masked score (-1e30) gives exactly +0, and x on (0, 8]
 * (the lazy rescale's slack lets x pass 0) keeps the bound tol + per_x * x. */
static void masked_and_slack(hr_vf (*fn)(hr_vf), const char *name, double tol, double per_x)
{
    float buf[HR_VW], out[HR_VW];
    for (int i = 0; i < HR_VW; i++) buf[i] = i == 0 ? -1e30f : 8.0f * (float)i / (HR_VW - 1);
    hr_vstore(out, fn(hr_vload(buf)));
    CHECKF(out[0] == 0.0f && !signbit(out[0]), "%s(-1e30) = %g", name, out[0]);
    for (int i = 1; i < HR_VW; i++) {
        const double e = exp2((double)buf[i]);
        CHECKF(fabs(out[i] - e) / e <= tol + per_x * buf[i], "%s(%g) = %.9g", name, buf[i], out[i]);
    }
}

/* hr_vexp2_fin (flash's softmax, vec_softmax.h): the bound it states over [-126, 0]
 * (AVX-512 and AVX2, degree 4: 3e-6; portable hr_vexp2's), the same on
 * (0, 8] (the lazy rescale's slack lets x pass 0), a masked -1e30 gives exactly 0; and
 * hr_vgt_any sees one lane above the bound and none at it. */
/* hr_vexp2_fin's stated bound on this level: relative, plus per_x per unit of |x|. */
static void exp2_fin_bound(double *tol, double *per_x)
{
#if defined(HR_VEC_AVX512) || defined(HR_VEC_AVX2)
    *tol = 3e-6, *per_x = 0.0;
#else
    *tol = EXP_REL_TOL, *per_x = 4.5e-8;
#endif
}

HR_TEST(vec_exp2_fin)
{
    double tol, per_x;
    exp2_fin_bound(&tol, &per_x);
    double worst_x = 0, worst = exp2_sweep(hr_vexp2_fin, tol, per_x, &worst_x);
    CHECKF(worst <= 1.0, "hr_vexp2_fin error %.3g times its bound at x = %.9g", worst, worst_x);
    masked_and_slack(hr_vexp2_fin, "exp2_fin", tol, per_x);
    float buf[HR_VW];
    for (int i = 0; i < HR_VW; i++) buf[i] = (float)i;
    CHECK(hr_vgt_any(hr_vload(buf), HR_VW - 1.5f));
    CHECK(!hr_vgt_any(hr_vload(buf), HR_VW - 1.0f));
}

#if defined(HR_HAVE_BF16DOT)
/* hr_vstore_bf16x2 against two hr_vstore_bf16, on values that round (ties included). */
static HR_BF16_TARGET int bf16x2_same(void)
{
    float a[HR_VW], b[HR_VW];
    uint16_t one[2 * HR_VW], two[2 * HR_VW];
    for (int i = 0; i < HR_VW; i++) a[i] = 1.0f + (float)i / 1024.0f, b[i] = -3.0f - (float)i / 512.0f;
    hr_vstore_bf16x2(two, hr_vload(a), hr_vload(b));
    hr_vstore_bf16(one, hr_vload(a));
    hr_vstore_bf16(one + HR_VW, hr_vload(b));
    return memcmp(one, two, sizeof one) == 0 && two[0] == 0x3f80 && two[HR_VW] == 0xc040;
}

/* decode_bf16.c's P·V step: two rows of 32 bf16 interleaved, a pair of weights broadcast,
 * vdpbf16ps, the accumulators back in order give p x_c + q y_c for every c (small
 * integers: exact); the pair order round-trips; hr_vstore_bf16x2_n writes the first n
 * values rounded and zeros after. Returns the number of mismatches. */
static HR_BF16_TARGET int bf16_pairs_bad(void)
{
    uint16_t x[32], y[32], w[2];
    float fx[32], fy[32], in[48];
    hr_vf A, B;
    int bad = 0;
    for (int c = 0; c < 32; c++) fx[c] = (float)(c - 7), fy[c] = (float)(3 * c % 11);
    hr_vstore_bf16x2_n(x, fx, 32); /* exact: small integers */
    hr_vstore_bf16x2_n(y, fy, 32);
    const float p = 2.0f, q = -3.0f, pq[32] = {p, q};
    hr_vstore_bf16x2_n(w, pq, 2); /* (p, q), then zeros past the pair: w holds the first 2 */
    hr_vbf lo, hi;
    hr_vbf_interleave(hr_vbf_load(x), hr_vbf_load(y), &lo, &hi);
    const hr_vbf pr = hr_vbf_pair1(w);
    hr_vbf_from_pair_order(hr_vdot_bf16(hr_vzero(), pr, lo), hr_vdot_bf16(hr_vzero(), pr, hi), &A, &B);
    hr_vstore(in, A);
    hr_vstore(in + HR_VW, B);
    for (int c = 0; c < 32; c++) bad += in[c] != p * fx[c] + q * fy[c];
    for (int c = 0; c < 32; c++) in[c] = (float)c * 0.5f;
    hr_vf l, h;
    hr_vbf_to_pair_order(hr_vload(in), hr_vload(in + HR_VW), &l, &h);
    hr_vbf_from_pair_order(l, h, &A, &B);
    float back[32];
    hr_vstore(back, A);
    hr_vstore(back + HR_VW, B);
    for (int c = 0; c < 32; c++) bad += back[c] != in[c];
    for (int c = 0; c < 48; c++) in[c] = 1.0f + (float)c / 1024.0f;
    const int ns[] = {0, 1, 16, 17, 31, 32, 40};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        uint16_t got[32], one[HR_VW];
        hr_vstore_bf16x2_n(got, in, ns[k]);
        for (int c = 0; c < 32; c++) {
            hr_vstore_bf16(one, hr_vset1(in[c]));
            bad += got[c] != (c < ns[k] ? one[0] : 0);
        }
    }
    /* hr_vstore_bf16_exact_n gives hr_f32_to_bf16's bits (ties both ways, denormals, which
     * vcvtneps2bf16 flushes, infinities, NaNs quieted) and leaves memory past n alone;
     * hr_vbf_load_n / store_n move the first n bf16 only. */
    const float sp[HR_VW] = {1.0f + 1.0f / 256, 1.0f + 3.0f / 256, -1.0f - 1.0f / 256, 1e-40f, -3e-39f,
                             FLT_MIN, INFINITY, -INFINITY, NAN, 65504.0f, 3.4e38f, 0.0f, -0.0f,
                             1.0f / 3, -7.1e-6f, 2.5f};
    for (int n = 0; n <= HR_VW; n++) {
        uint16_t got[HR_VW + 1];
        for (int c = 0; c <= HR_VW; c++) got[c] = 0xdead;
        hr_vstore_bf16_exact_n(got, hr_vload(sp), n);
        for (int c = 0; c <= HR_VW; c++) bad += got[c] != (c < n ? hr_f32_to_bf16(sp[c]) : 0xdead);
    }
    uint16_t src[40], dst[40];
    for (int c = 0; c < 40; c++) src[c] = (uint16_t)(0x3f00 + c);
    for (int n = 0; n <= 32; n += 7) {
        for (int c = 0; c < 40; c++) dst[c] = 0xdead;
        hr_vbf_store_n(dst, hr_vbf_load_n(src, n), 32);
        for (int c = 0; c < 32; c++) bad += dst[c] != (c < n ? src[c] : 0);
        for (int c = 0; c < 40; c++) dst[c] = 0xdead;
        hr_vbf_store_n(dst, hr_vbf_load(src), n);
        for (int c = 0; c < 40; c++) bad += dst[c] != (c < n ? src[c] : 0xdead);
    }
    return bad;
}
#endif

/* hr_vexp2_bf16 (the amx path's softmax, vec_softmax.h): the bound it states over
 * [-126, 0] and on (0, 8] (AVX-512 with DQ, degree 3 on [0, 1): 7.6e-5, 1/51 of bf16's
 * 2^-8; elsewhere hr_vexp2_fin's), exact powers of two to that bound on both sides of
 * every integer step (the polynomial's ends meet), a masked -1e30 gives exactly 0, and
 * x past 128 gives +inf on AVX-512 (the amx softmax's overflow test, a lane sum above
 * 2^8, must see it; the other paths take x <= 64 only, and no amx softmax runs there);
 * and hr_vstore_bf16x2 rounds as hr_vstore_bf16 does, a's lanes first. */
HR_TEST(vec_exp2_bf16)
{
    double tol, per_x;
#if defined(HR_VEC_AVX512) && defined(__AVX512DQ__)
    tol = 7.6e-5, per_x = 0.0;
#else
    exp2_fin_bound(&tol, &per_x);
#endif
    double worst_x = 0, worst = exp2_sweep(hr_vexp2_bf16, tol, per_x, &worst_x);
    CHECKF(worst <= 1.0, "hr_vexp2_bf16 error %.3g times its bound at x = %.9g", worst, worst_x);
    masked_and_slack(hr_vexp2_bf16, "exp2_bf16", tol, per_x);
    float buf[HR_VW], out[HR_VW];
    for (int k = -8; k <= 8; k++)
        for (int side = -1; side <= 1; side++) {
            const float x = side ? nextafterf((float)k, side * INFINITY) : (float)k;
            for (int i = 0; i < HR_VW; i++) buf[i] = x;
            hr_vstore(out, hr_vexp2_bf16(hr_vload(buf)));
            const double e = exp2((double)x);
            CHECKF(fabs(out[0] - e) / e <= tol + per_x * fabsf(x), "exp2_bf16(%.9g) = %.9g", x, out[0]);
        }
#if defined(HR_VEC_AVX512) && defined(__AVX512DQ__)
    for (int i = 0; i < HR_VW; i++) buf[i] = 129.0f + 1000.0f * (float)i;
    hr_vstore(out, hr_vexp2_bf16(hr_vload(buf)));
    for (int i = 0; i < HR_VW; i++) CHECKF(isinf(out[i]) && out[i] > 0, "exp2_bf16(%g) = %g", buf[i], out[i]);
#endif
#if defined(HR_HAVE_BF16DOT)
    if (hr_cpu_bf16()) CHECK(bf16x2_same());
#endif
}

HR_TEST(vec_bf16_pairs)
{
#if defined(HR_HAVE_BF16DOT)
    if (!hr_cpu_bf16()) {
        printf("     note: the CPU has no AVX512-BF16: the bf16 pair helpers not run\n");
        return;
    }
    const int bad = bf16_pairs_bad();
    CHECKF(bad == 0, "%d mismatches in the bf16 pair helpers", bad);
#else
    printf("     note: this build level has no AVX512-BF16 code\n");
#endif
}

/* -inf gives +0 exactly, 0 gives 1 exactly, results below 2^-126 (denormals or 0, by
 * path) stay in [0, FLT_MIN], and below 2^-150 they are 0 on every path. */
HR_TEST(vec_exp2_special)
{
    const float in[] = {-INFINITY, -1e30f, -1000.0f, -200.0f, -150.0f, -149.0f, -140.0f,
                        -127.5f,   -127.0f, -126.5f, 0.0f,    -0.0f,   -1.0f,   -0.5f};
    const int n = (int)(sizeof in / sizeof in[0]);
    for (int i = 0; i < n; i++) {
        float buf[HR_VW], out[HR_VW];
        for (int j = 0; j < HR_VW; j++) buf[j] = j ? -1.0f : in[i];
        hr_vstore(out, hr_vexp2(hr_vload(buf)));
        CHECKF(fabsf(out[1] - 0.5f) <= 0.5f * EXP_REL_TOL, "exp2(-1) next to %g is %.9g", in[i],
               out[1]);
        if (in[i] == 0.0f) {
            CHECKF(out[0] == 1.0f, "exp2(%g) = %.9g", in[i], out[0]);
        } else if (in[i] < -126.0f) {
            CHECKF(out[0] >= 0.0f && out[0] <= FLT_MIN && !signbit(out[0]),
                   "exp2(%g) = %g, want [0, FLT_MIN]", in[i], out[0]);
            if (in[i] < -150.0f) CHECKF(out[0] == 0.0f, "exp2(%g) = %g, want 0", in[i], out[0]);
        } else {
            double e = exp2((double)in[i]);
            CHECKF(fabs(out[0] - e) <= (EXP_REL_TOL + 4.5e-8 * fabsf(in[i])) * e,
                   "exp2(%g) = %.9g, want %.9g", in[i], out[0], e);
        }
    }
}

/* One HR_VW x HR_VW block between strided buffers; nothing around it is touched. */
HR_TEST(vec_transpose)
{
    enum { SS = HR_VW + 3, DS = HR_VW + 5 };
    float src[HR_VW * SS], dst[(HR_VW + 1) * DS];
    for (int i = 0; i < HR_VW * SS; i++) src[i] = (float)i;
    for (int i = 0; i < (HR_VW + 1) * DS; i++) dst[i] = -1.0f;
    hr_vtranspose(src, SS, dst, DS);
    for (int r = 0; r < HR_VW + 1; r++)
        for (int c = 0; c < DS; c++) {
            float want = r < HR_VW && c < HR_VW ? src[c * SS + r] : -1.0f;
            CHECKF(dst[r * DS + c] == want, "dst[%d][%d] = %g, want %g", r, c, dst[r * DS + c], want);
        }
}

HR_TEST(vec_masked_tails)
{
    float src[HR_VW], dst[HR_VW + 1], out[HR_VW];
    for (int i = 0; i < HR_VW; i++) src[i] = (float)(i + 1);
    for (int n = 0; n < HR_VW; n++) {
        hr_vstore(out, hr_vload_n(src, n));
        for (int i = 0; i < HR_VW; i++)
            CHECKF(out[i] == (i < n ? src[i] : 0.0f), "load_n(%d) lane %d = %g", n, i, out[i]);
        for (int i = 0; i <= HR_VW; i++) dst[i] = -7.0f;
        hr_vstore_n(dst, hr_vset1(3.0f), n);
        for (int i = 0; i <= HR_VW; i++)
            CHECKF(dst[i] == (i < n ? 3.0f : -7.0f), "store_n(%d) wrote lane %d = %g", n, i,
                   dst[i]);
    }
}

HR_TEST(vec_arith_and_reduce)
{
    float a[HR_VW], b[HR_VW], c[HR_VW], out[HR_VW];
    double sum = 0;
    float mx = -INFINITY;
    for (int i = 0; i < HR_VW; i++) {
        a[i] = (float)(i * 3 % 7) - 2.5f;
        b[i] = 0.5f * (float)i - 1.0f;
        c[i] = (float)(HR_VW - i);
        sum += a[i];
        mx = a[i] > mx ? a[i] : mx;
    }
    hr_vf va = hr_vload(a), vb = hr_vload(b), vc = hr_vload(c);
    hr_vstore(out, hr_vfma(va, vb, vc));
    for (int i = 0; i < HR_VW; i++) CHECK_NEAR(out[i], a[i] * b[i] + c[i], 1e-6);
    hr_vstore(out, hr_vadd(va, vb));
    for (int i = 0; i < HR_VW; i++) CHECK(out[i] == a[i] + b[i]);
    hr_vstore(out, hr_vsub(va, vb));
    for (int i = 0; i < HR_VW; i++) CHECK(out[i] == a[i] - b[i]);
    hr_vstore(out, hr_vmul(va, vb));
    for (int i = 0; i < HR_VW; i++) CHECK(out[i] == a[i] * b[i]);
    hr_vstore(out, hr_vmax(va, vb));
    for (int i = 0; i < HR_VW; i++) CHECK(out[i] == (a[i] > b[i] ? a[i] : b[i]));
    hr_vstore(out, hr_vzero());
    for (int i = 0; i < HR_VW; i++) CHECK(out[i] == 0.0f);
    CHECK_NEAR(hr_vreduce_add(va), sum, 1e-5);
    CHECK(hr_vreduce_max(va) == mx);
    CHECK(hr_vreduce_max(hr_vset1(-INFINITY)) == -INFINITY);
    /* The maximum sits in every lane position in turn. */
    for (int j = 0; j < HR_VW; j++) {
        float m[HR_VW];
        for (int i = 0; i < HR_VW; i++) m[i] = -1e4f + (float)i;
        m[j] = 5.0f;
        CHECKF(hr_vreduce_max(hr_vload(m)) == 5.0f, "max in lane %d missed", j);
    }
}

/* The horizontal sums a decode score tile ends in: hr_vreduce_add4's four and
 * hr_vreduce_add16's 4 x 4 (one tree on AVX-512), each sum in its row and place, the
 * entries between the rows (ld > 4) untouched. Integers: every order of adds is exact. */
HR_TEST(vec_reduce_tiles)
{
    float x[16][HR_VW], out[4 * 6];
    hr_vf v[16];
    double want[16];
    for (int k = 0; k < 16; k++) {
        want[k] = 0;
        for (int i = 0; i < HR_VW; i++) x[k][i] = (float)((k * 37 + i * 11) % 23) - 11.0f + 100.0f * (float)(k + 1) * (i == k % HR_VW);
        for (int i = 0; i < HR_VW; i++) want[k] += x[k][i];
        v[k] = hr_vload(x[k]);
    }
    hr_vreduce_add4(v[0], v[1], v[2], v[3], out);
    for (int k = 0; k < 4; k++) CHECKF(out[k] == want[k], "add4 %d: %g, want %g", k, out[k], want[k]);
    for (int i = 0; i < 24; i++) out[i] = -999.0f;
    hr_vreduce_add16(v, out, 6);
    for (int r = 0; r < 4; r++) {
        for (int u = 0; u < 4; u++)
            CHECKF(out[r * 6 + u] == want[4 * r + u], "add16 row %d key %d: %g, want %g", r, u, out[r * 6 + u],
                   want[4 * r + u]);
        if (r < 3) CHECK(out[r * 6 + 4] == -999.0f && out[r * 6 + 5] == -999.0f);
    }
}

/* vec_eo.h: 2 HR_VW bf16 values split even/odd exactly as hr_bf16_to_f32 converts them
 * (signs, tiny and huge values, NaN bits kept), and split / merge of fp32 vectors each
 * other's inverse, in the order the load gives. */
HR_TEST(vec_bf16_even_odd)
{
    uint16_t h[2 * HR_VW];
    float x[2 * HR_VW], fe[HR_VW], fo[HR_VW];
    for (int i = 0; i < 2 * HR_VW; i++) {
        x[i] = (i % 3 ? -1.0f : 1.0f) * (float)(i + 1) * (i % 5 == 4 ? 1e-30f : 1.375f);
        h[i] = hr_f32_to_bf16(x[i]);
    }
    h[3] = 0x7fc1; /* a NaN: its bits must pass through */
    hr_vf e, o, a, b;
    hr_vload_bf16_eo(h, &e, &o);
    hr_vstore(fe, e), hr_vstore(fo, o);
    for (int i = 0; i < HR_VW; i++) {
        const float we = hr_bf16_to_f32(h[2 * i]), wo = hr_bf16_to_f32(h[2 * i + 1]);
        CHECKF(memcmp(&fe[i], &we, 4) == 0 && memcmp(&fo[i], &wo, 4) == 0, "lane %d", i);
    }
    for (int i = 0; i < 2 * HR_VW; i++) x[i] = (float)i + 0.5f;
    hr_vsplit_eo(hr_vload(x), hr_vload(x + HR_VW), &e, &o);
    hr_vstore(fe, e), hr_vstore(fo, o);
    for (int i = 0; i < HR_VW; i++) CHECKF(fe[i] == x[2 * i] && fo[i] == x[2 * i + 1], "split lane %d", i);
    hr_vmerge_eo(e, o, &a, &b);
    float y[2 * HR_VW];
    hr_vstore(y, a), hr_vstore(y + HR_VW, b);
    for (int i = 0; i < 2 * HR_VW; i++) CHECKF(y[i] == x[i], "merge value %d", i);
}

/* This file is compiled with the harness's flags: the vector path they give, and in a
 * fixed build (one ISA level) the level that runs is that path. The portable build's
 * levels are tested in test_isa.c. */
HR_TEST(vec_isa_name)
{
#if defined(__AVX512F__) && !defined(HR_VEC_GENERIC)
    CHECK(HR_VW == 16 && strcmp(HR_VEC_ISA, "avx512") == 0);
#elif defined(__AVX2__) && defined(__FMA__) && !defined(HR_VEC_GENERIC)
    CHECK(HR_VW == 8 && strcmp(HR_VEC_ISA, "avx2") == 0);
#else
    CHECK(HR_VW == 4 && strcmp(HR_VEC_ISA, "generic") == 0);
#endif
    if (hr_isa_count() == 1) CHECK(strcmp(hr_isa, HR_VEC_ISA) == 0);
}

#if defined(HR_HAVE_I8DOT)

/* hr_vload_f16_pair on HR_VW dwords of (low, high) fp16 pairs: each half converted as
 * hr_f16_to_f32 does, in lane order (signs, subnormals, the largest finite, zero).
 * Returns the number of mismatching lanes. The helper uses only AVX2 + F16C (AVX-512:
 * AVX512BW) instructions, so it runs whether or not this CPU has VNNI. */
static HR_I8_TARGET int f16_pair_bad(void)
{
    uint32_t w[HR_VW];
    uint16_t a[HR_VW], b[HR_VW];
    float lo[HR_VW], hi[HR_VW];
    const uint16_t pick[] = {0x3c00, 0xbc00, 0x0001, 0x83ff, 0x7bff, 0x0000, 0x3555, 0xc800};
    for (int i = 0; i < HR_VW; i++) {
        a[i] = (uint16_t)(pick[i % 8] ^ (i / 8 % 2 ? 0x8000 : 0)); /* finite: no NaN to quiet */
        b[i] = (uint16_t)(pick[(i + 3) % 8] ^ (uint16_t)(i << 4));
        w[i] = a[i] | (uint32_t)b[i] << 16;
    }
    hr_vf l, h;
    hr_vload_f16_pair(w, &l, &h);
    hr_vstore(lo, l);
    hr_vstore(hi, h);
    int bad = 0;
    for (int i = 0; i < HR_VW; i++) {
        const float ea = hr_f16_to_f32(a[i]), eb = hr_f16_to_f32(b[i]);
        bad += memcmp(&lo[i], &ea, sizeof ea) != 0;
        bad += memcmp(&hi[i], &eb, sizeof eb) != 0;
    }
    return bad;
}

HR_TEST(vec_f16_pairs)
{
    const int bad = f16_pair_bad();
    CHECKF(bad == 0, "%d of %d lanes differ from hr_f16_to_f32", bad, 2 * HR_VW);
}
#endif

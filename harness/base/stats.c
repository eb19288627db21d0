/* stats.c — median, timing summaries, MAD, geometric mean, the two-sided Mann-Whitney U test, sign test, Holm and BH. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const hr_mwu_method_names[] = {"none", "exact", "normal", NULL};
const char *const hr_padj_names[] = {"holm", "bh", "none", NULL};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double hr_median(const double *x, size_t n)
{
    if (n == 0) return NAN;
    double small[64], *s = n <= 64 ? small : malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    if (s != small) free(s);
    return m;
}

double hr_quantile(const double *x, size_t n, double q)
{
    if (n == 0 || !(q >= 0 && q <= 1)) return NAN;
    double small[64], *s = n <= 64 ? small : malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    const double h = q * (double)(n - 1);
    const size_t i = (size_t)h;
    const double v = i + 1 < n ? s[i] + (h - (double)i) * (s[i + 1] - s[i]) : s[n - 1];
    if (s != small) free(s);
    return v;
}

void hr_summarize(const double *x, int n, hr_summary *s)
{
    memset(s, 0, sizeof *s);
    if (n < 1) return;
    double sum = 0;
    s->n = n;
    s->min = s->max = x[0];
    for (int i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < s->min) s->min = x[i];
        if (x[i] > s->max) s->max = x[i];
    }
    s->median = hr_median(x, (size_t)n);
    s->mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (x[i] - s->mean) * (x[i] - s->mean);
    s->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
    s->cv = s->mean > 0 ? s->stddev / s->mean : 0;
}

double hr_geomean(const double *x, size_t n)
{
    if (n == 0) return NAN;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += log(x[i]);
    return exp(sum / (double)n);
}

double hr_mad(const double *x, size_t n, double center)
{
    if (n == 0) return NAN;
    double small[64], *dev = n <= 64 ? small : malloc(n * sizeof *dev);
    if (!dev) return NAN;
    for (size_t i = 0; i < n; i++) dev[i] = fabs(x[i] - center);
    double m = hr_median(dev, n);
    if (dev != small) free(dev);
    return m;
}

double hr_sign_test_p(int npos, int nneg)
{
    int n = npos + nneg, k = npos > nneg ? npos : nneg;
    if (n <= 0) return 1;
    /* P(X >= k) = sum C(n, j) / 2^n, each term exp(log C(n, j) - n log 2) */
    double tail = 0;
    for (int j = k; j <= n; j++)
        tail += exp(lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) - n * log(2.0));
    return fmin(1.0, 2 * tail);
}

/* A p-value and its position in the family, for sorting. */
typedef struct {
    double p;
    size_t at;
} ranked_p;

static int cmp_ranked_p(const void *a, const void *b)
{
    const ranked_p *x = a, *y = b;
    int c = cmp_double(&x->p, &y->p);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

int hr_p_adjust(const double *p, size_t n, hr_padj method, double *adj)
{
    if (adj != p) memcpy(adj, p, n * sizeof *adj);
    if (method == HR_PADJ_NONE || n == 0) return 0;
    ranked_p *r = malloc(n * sizeof *r);
    if (!r) return -1;
    for (size_t i = 0; i < n; i++) r[i] = (ranked_p){p[i], i};
    qsort(r, n, sizeof *r, cmp_ranked_p);
    if (method == HR_PADJ_HOLM) {
        /* step down from the smallest p: each adjusted value at least the one before */
        double run = 0;
        for (size_t k = 0; k < n; k++) {
            run = fmax(run, fmin(1.0, (double)(n - k) * r[k].p));
            adj[r[k].at] = run;
        }
    } else {
        /* step up from the largest p: each adjusted value at most the one after */
        double run = 1;
        for (size_t k = n; k-- > 0;) {
            run = fmin(run, fmin(1.0, (double)n * r[k].p / (double)(k + 1)));
            adj[r[k].at] = run;
        }
    }
    free(r);
    return 0;
}

/* A pooled value and which sample it came from, for ranking. */
typedef struct {
    double v;
    int from_x;
} pooled;

static int cmp_pooled(const void *a, const void *b)
{
    return cmp_double(&((const pooled *)a)->v, &((const pooled *)b)->v);
}

/* P(U >= k) under H0 for sizes m, n (no ties), by counting arrangements.
 * Invariant after layer i: cur[j][u] = number of orderings of i x's and j y's whose
 * U (pairs with x above y) equals u. The largest pooled value is either an x, which
 * beats all j y's (u - j from layer i-1), or a y, which adds nothing (same layer, j-1).
 * Counts reach C(m+n, m) (< 1e30 for m, n <= 50) and are only ever added, so doubles
 * keep ~15 significant digits. Returns NAN if memory runs out. */
static double mwu_exact_sf(size_t m, size_t n, size_t k)
{
    size_t w = m * n + 1; /* u ranges over 0..m*n */
    double *prev = calloc((n + 1) * w, sizeof *prev);
    double *cur = calloc((n + 1) * w, sizeof *cur);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return NAN;
    }
    for (size_t j = 0; j <= n; j++) prev[j * w] = 1; /* zero x's: only u = 0 */
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * w * sizeof *cur);
        cur[0] = 1; /* zero y's: only u = 0 */
        for (size_t j = 1; j <= n; j++) {
            size_t umax = i * j;
            for (size_t u = 0; u <= umax; u++) {
                double c = cur[(j - 1) * w + u];
                if (u >= j) c += prev[j * w + u - j];
                cur[j * w + u] = c;
            }
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double tail = 0, total = 0;
    for (size_t u = 0; u < w; u++) {
        total += prev[n * w + u];
        if (u >= k) tail += prev[n * w + u];
    }
    free(prev);
    free(cur);
    return tail / total;
}

/* The test of hr_mwu; asymptotic: the normal approximation whatever the sizes. */
static hr_mwu_result mwu(const double *x, size_t n1, const double *y, size_t n2, bool asymptotic)
{
    hr_mwu_result r = {.u1 = 0, .p = 1, .method = HR_MWU_NONE, .ties = 0};
    size_t n = n1 + n2;
    if (n1 == 0 || n2 == 0) return r;
    pooled *a = malloc(n * sizeof *a);
    if (!a) return r;
    for (size_t i = 0; i < n1; i++) a[i] = (pooled){x[i], 1};
    for (size_t j = 0; j < n2; j++) a[n1 + j] = (pooled){y[j], 0};
    qsort(a, n, sizeof *a, cmp_pooled);

    /* Average ranks (1-based) over runs of equal values; tie term sum(t^3 - t). */
    double r1 = 0, tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && a[e].v == a[i].v) e++;
        double t = (double)(e - i), rank = 0.5 * ((double)i + 1 + (double)e);
        for (size_t q = i; q < e; q++)
            if (a[q].from_x) r1 += rank;
        if (t > 1) {
            tie_term += t * t * t - t;
            r.ties = 1;
        }
        i = e;
    }
    free(a);

    double dn1 = (double)n1, dn2 = (double)n2, dn = (double)n;
    r.u1 = r1 - dn1 * (dn1 + 1) / 2;
    double u = fmax(r.u1, dn1 * dn2 - r.u1); /* two-sided: the larger of U1, U2 */

    if (!asymptotic && !r.ties && n1 <= HR_MWU_EXACT_MAX && n2 <= HR_MWU_EXACT_MAX) {
        double sf = mwu_exact_sf(n1, n2, (size_t)llround(u));
        if (!isnan(sf)) {
            r.method = HR_MWU_EXACT;
            r.p = fmin(1.0, 2 * sf);
            return r;
        }
    }
    r.method = HR_MWU_NORMAL;
    double var = dn1 * dn2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
    if (var <= 0) { /* every value equal: no evidence of any difference */
        r.p = 1;
        return r;
    }
    double z = (u - dn1 * dn2 / 2 - 0.5) / sqrt(var);
    r.p = fmin(1.0, erfc(z / sqrt(2.0)));
    return r;
}

hr_mwu_result hr_mwu(const double *x, size_t n1, const double *y, size_t n2)
{
    return mwu(x, n1, y, n2, false);
}

hr_mwu_result hr_mwu_asymptotic(const double *x, size_t n1, const double *y, size_t n2)
{
    return mwu(x, n1, y, n2, true);
}

double hr_mwu_min_p(size_t n1, size_t n2)
{
    size_t n = n1 + n2;
    if (n1 == 0 || n2 == 0) return 1;
    double *v = malloc(n * sizeof *v);
    if (!v) return 1;
    for (size_t i = 0; i < n; i++) v[i] = (double)i; /* x entirely below y */
    double p = hr_mwu(v, n1, v + n1, n2).p;
    free(v);
    return p;
}

/* ---- Wilcoxon signed-rank ----------------------------------------------------------------- */

static int cmp_abs(const void *a, const void *b)
{
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return (x > y) - (x < y);
}

hr_wsr_result hr_wilcoxon(const double *d, size_t n)
{
    hr_wsr_result r = {0, 1, 0, false};
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return r;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0 && !isnan(d[i])) v[m++] = d[i];
    r.n_used = (int)m;
    if (!m) {
        free(v);
        return r;
    }
    qsort(v, m, sizeof *v, cmp_abs);
    /* Average ranks over runs of equal |d|; the tie term sum(t^3 - t) for the variance. */
    double tie_term = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        while (j < m && fabs(v[j]) == fabs(v[i])) j++;
        double rank = 0.5 * (double)(i + 1 + j), t = (double)(j - i);
        for (size_t k = i; k < j; k++)
            if (v[k] > 0) r.w_plus += rank;
        tie_term += t * t * t - t;
        i = j;
    }
    free(v);
    const double dm = (double)m, mean = dm * (dm + 1) / 4;
    if (tie_term == 0 && m <= HR_WSR_EXACT_MAX) {
        /* count[s]: subsets of the ranks 1..m with sum s, over 2^m (doubles: m <= 50). */
        const size_t top = m * (m + 1) / 2;
        double *count = calloc(top + 1, sizeof *count);
        if (count) {
            count[0] = 1;
            for (size_t k = 1; k <= m; k++)
                for (size_t s = top; s >= k; s--) count[s] += count[s - k];
            const size_t w = (size_t)llround(r.w_plus);
            double lo = 0, hi = 0, total = ldexp(1.0, (int)m);
            for (size_t s = 0; s <= top; s++) {
                if (s <= w) lo += count[s];
                if (s >= w) hi += count[s];
            }
            free(count);
            r.exact = true;
            r.p = fmin(1.0, 2 * fmin(lo, hi) / total);
            return r;
        }
    }
    double var = dm * (dm + 1) * (2 * dm + 1) / 24 - tie_term / 48;
    if (var <= 0) return r;
    double z = (r.w_plus - mean) / sqrt(var);
    r.p = fmin(1.0, erfc(fabs(z) / sqrt(2.0)));
    return r;
}

double hr_wilcoxon_min_p(size_t n) { return n ? fmin(1.0, 2 * ldexp(1.0, -(int)n)) : 1; }

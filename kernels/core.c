/* core.c — the error convention, problem validation and dense tensor views. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "headroom.h"

static _Thread_local char errbuf[512];

static int vfail(int status, const char *fmt, va_list ap)
{
    vsnprintf(errbuf, sizeof errbuf, fmt, ap);
    return status;
}

int hr_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int s = vfail(HR_EUSAGE, fmt, ap);
    va_end(ap);
    return s;
}

int hr_failc(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int s = vfail(status, fmt, ap);
    va_end(ap);
    return s;
}

const char *hr_errmsg(void) { return errbuf; }

const char *const hr_layout_names[] = {"bhnd", "bnhd", NULL};

/* Multiplies into *acc, returning 0 if the product would exceed limit. */
static int mul_ok(double *acc, double x, double limit)
{
    *acc *= x;
    return *acc <= limit;
}

int hr_page_size_check(long P)
{
    if (P < HR_PAGE_MIN || P > HR_PAGE_MAX || (P & (P - 1)))
        return hr_fail("--page-size: must be a power of two in [%d, %d] keys, got %ld", HR_PAGE_MIN, HR_PAGE_MAX, P);
    return HR_OK;
}

int hr_problem_validate(const hr_problem *p)
{
    if ((unsigned)p->dtype >= HR_NDTYPES || (unsigned)p->kv_dtype >= HR_NDTYPES)
        return hr_fail("--dtype: unknown element type %d", (int)p->dtype);
    if (hr_dtype_block(p->dtype) != 1)
        return hr_fail("--dtype: %s is a cache format; Q, K, V take f32, bf16 or f16 (use --kv-dtype)",
                       hr_dtype_names[p->dtype]);
    static const struct {
        const char *flag;
        size_t off;
        int max;
    } dims[] = {
        {"--batch", offsetof(hr_problem, batch), HR_MAX_BATCH},
        {"--heads", offsetof(hr_problem, heads), HR_MAX_HEADS},
        {"--kv-heads", offsetof(hr_problem, kv_heads), HR_MAX_HEADS},
        {"--seq", offsetof(hr_problem, seq_q), HR_MAX_SEQ},
        {"--seq-kv", offsetof(hr_problem, seq_kv), HR_MAX_SEQ},
        {"--d-head", offsetof(hr_problem, d_head), HR_MAX_DHEAD},
    };
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        int v = *(const int *)((const char *)p + dims[i].off);
        if (v < 1 || v > dims[i].max)
            return hr_fail("%s: must be in [1, %d], got %d", dims[i].flag, dims[i].max, v);
    }
    if (p->d_head % hr_dtype_block(p->kv_dtype))
        return hr_fail("--kv-dtype: %s stores blocks of %d values along d; --d-head %d is not a multiple",
                       hr_dtype_names[p->kv_dtype], hr_dtype_block(p->kv_dtype), p->d_head);
    if (p->heads % p->kv_heads)
        return hr_fail("--kv-heads: %d does not divide --heads %d", p->kv_heads, p->heads);
    if (!(p->scale >= 0) || !isfinite(p->scale))
        return hr_fail("--scale: must be a finite number >= 0 (0 means 1/sqrt(d))");
    if (p->window < 0) return hr_fail("--window: must be >= 1 keys, got %d", p->window);
    if (p->window > 0 && !p->causal)
        return hr_fail("--window: a sliding window is causal (keys i' - W < j <= i'); add --causal");
    if (p->page_size != 0) {
        const int P = p->page_size;
        const int st = hr_page_size_check(P);
        if (st) return st;
        if (P > p->seq_kv)
            return hr_fail("--page-size: %d keys a block is over the cache (--seq-kv %d)", P, p->seq_kv);
    }
    if (!(p->softcap >= 0) || !isfinite(p->softcap))
        return hr_fail("--softcap: must be a finite number > 0");
    if (!(p->alibi >= 0) || !isfinite(p->alibi) || p->alibi > 1e3)
        return hr_fail("--alibi: the max bias must be a number in (0, 1000]");
    /* Element counts of Q/O and K/V must stay far inside ptrdiff_t/size_t (2^48
     * elements, 1 PiB of fp32); checked in double, which is exact far beyond. The
     * memory budget then refuses what does not fit this machine. */
    const double limit = 0x1p48;
    double q = 1, kv = 1;
    if (!mul_ok(&q, p->batch, limit) || !mul_ok(&q, p->heads, limit) ||
        !mul_ok(&q, p->seq_q, limit) || !mul_ok(&q, p->d_head, limit))
        return hr_fail("--seq: Q/O size B*Hq*Nq*d = %.3g elements overflows the 2^48 limit",
                       (double)p->batch * p->heads * p->seq_q * p->d_head);
    if (!mul_ok(&kv, p->batch, limit) || !mul_ok(&kv, p->kv_heads, limit) ||
        !mul_ok(&kv, p->seq_kv, limit) || !mul_ok(&kv, p->d_head, limit))
        return hr_fail("--seq-kv: K/V size B*Hkv*Nkv*d = %.3g elements overflows the 2^48 limit",
                       (double)p->batch * p->kv_heads * p->seq_kv * p->d_head);
    return HR_OK;
}

float hr_problem_scale(const hr_problem *p)
{
    return p->scale > 0 ? p->scale : (float)(1.0 / sqrt((double)p->d_head));
}

float hr_alibi_slope(const hr_problem *p, int h)
{
    if (!(p->alibi > 0)) return 0;
    int n = 1;
    while (2 * n <= p->heads) n *= 2;
    const double b = p->alibi;
    return (float)(h < n ? exp2(-b * (h + 1) / n) : exp2(-b * (2 * (h - n) + 1) / (2.0 * n)));
}

void hr_problem_variants_str(const hr_problem *p, char *buf, size_t len)
{
    int n = 0;
    buf[0] = 0;
    if (p->window > 0 && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, " window %d", p->window);
    if (p->softcap > 0 && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, " softcap %g", p->softcap);
    if (p->alibi > 0 && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, " alibi %g", p->alibi);
    if (p->page_size > 0 && n >= 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, " page %d", p->page_size);
}

void hr_problem_str(const hr_problem *p, char *buf, size_t len)
{
    char types[32] = "";
    if (p->dtype != HR_F32 || p->kv_dtype != HR_F32) {
        if (p->kv_dtype == p->dtype) snprintf(types, sizeof types, " %s", hr_dtype_names[p->dtype]);
        else snprintf(types, sizeof types, " %s/kv %s", hr_dtype_names[p->dtype], hr_dtype_names[p->kv_dtype]);
    }
    char var[64];
    hr_problem_variants_str(p, var, sizeof var);
    snprintf(buf, len, "B%d H%d/%d N%dx%d d%d%s%s%s", p->batch, p->heads, p->kv_heads, p->seq_q,
             p->seq_kv, p->d_head, p->causal ? " causal" : "", var, types);
}

hr_xview hr_xview_dense(void *base, hr_layout layout, int batch, int heads, int rows,
                        size_t row_bytes)
{
    (void)batch;
    ptrdiff_t R = (ptrdiff_t)row_bytes, H = heads, N = rows;
    if (layout == HR_LAYOUT_BNHD) return (hr_xview){base, N * H * R, R, H * R};
    return (hr_xview){base, H * N * R, N * R, R};
}

hr_view hr_view_dense(float *base, hr_layout layout, int batch, int heads, int rows, int d)
{
    (void)batch;
    ptrdiff_t D = d, H = heads, N = rows;
    if (layout == HR_LAYOUT_BNHD) return (hr_view){base, N * H * D, D, H * D};
    return (hr_view){base, H * N * D, N * D, D};
}

int hr_choice(const char *const *choices, const char *s)
{
    for (int i = 0; choices && choices[i]; i++)
        if (!strcmp(choices[i], s)) return i;
    return -1;
}

double hr_machine_l3_reach(const hr_machine *m, int threads)
{
    if (!m->l3) return 0;
    int n = m->l3_shared > 0 && threads > 0 ? (threads + m->l3_shared - 1) / m->l3_shared : 1;
    const int most = m->l3_instances > 0 ? m->l3_instances : 1;
    return (double)m->l3 * (n < most ? n : most);
}

/* result.c — one measured kernel x shape: its counters, its name, its rate. */
#include <stdio.h>
#include <string.h>

#include "result.h"

void hr_result_set(hr_result *r, const char *name, double value)
{
    for (int i = 0; i < r->ncounters; i++)
        if (!strcmp(r->counters[i].name, name)) {
            r->counters[i].value = value;
            return;
        }
    if (r->ncounters < HR_MAX_COUNTERS) r->counters[r->ncounters++] = (hr_counter){name, value};
}

void hr_dtype_seg(const hr_problem *p, char *buf, size_t len)
{
    int n = p->dtype != HR_F32 ? snprintf(buf, len, "/%s", hr_dtype_names[p->dtype]) : 0;
    if (n >= 0 && (size_t)n < len) {
        if (p->kv_dtype != p->dtype) snprintf(buf + n, len - (size_t)n, "/kv=%s", hr_dtype_names[p->kv_dtype]);
        else buf[n] = 0;
    }
}

void hr_result_name(const hr_result *r, char *buf, size_t len)
{
    const hr_problem *p = &r->prob;
    if (r->label[0]) {
        snprintf(buf, len, "%s", r->label);
        return;
    }
    hr_row_name(r->kernel, p, r->layout, r->tune.threads, buf, len);
}

void hr_row_name(const hr_kernel *k, const hr_problem *p, hr_layout layout, int threads, char *buf, size_t len)
{
    char types[32], var[64];
    hr_dtype_seg(p, types, sizeof types);
    hr_variant_seg(p, var, sizeof var);
    snprintf(buf, len, "%s/B%d/H%d/G%d/N%d/M%d/d%d%s/%s%s/%s/T%d", k->name, p->batch, p->heads, p->kv_heads,
             p->seq_q, p->seq_kv, p->d_head, types, p->causal ? "causal" : "full", var, hr_layout_names[layout],
             threads);
}

void hr_variant_seg(const hr_problem *p, char *buf, size_t len)
{
    int n = 0;
    buf[0] = 0;
    if (p->window > 0) n += snprintf(buf, len, "/w%d", p->window);
    if (p->softcap > 0 && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, "/cap%g", p->softcap);
    if (p->alibi > 0 && n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, "/alibi%g", p->alibi);
    if (p->page_size > 0 && n >= 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, "/page%d", p->page_size);
}

double hr_result_gflops(const hr_result *r)
{
    return r->timing.s.median > 0 ? r->flops / r->timing.s.median * 1e-9 : 0;
}

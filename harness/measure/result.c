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

void hr_result_name(const hr_result *r, char *buf, size_t len)
{
    const hr_problem *p = &r->prob;
    if (r->label[0]) {
        snprintf(buf, len, "%s", r->label);
        return;
    }
    snprintf(buf, len, "%s/B%d/H%d/G%d/N%d/M%d/d%d/%s/%s/T%d", r->kernel->name, p->batch,
             p->heads, p->kv_heads, p->seq_q, p->seq_kv, p->d_head, p->causal ? "causal" : "full",
             hr_layout_names[r->layout], r->tune.threads);
}

double hr_result_gflops(const hr_result *r)
{
    return r->timing.s.median > 0 ? r->flops / r->timing.s.median * 1e-9 : 0;
}

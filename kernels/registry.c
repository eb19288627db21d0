/* registry.c — the one table of kernels built into this binary, and what every caller asks
 * of a kernel: by name, whether it can run a problem, its resolved tunables. */
#include <stdio.h>
#include <string.h>

#include <omp.h>

#include "headroom.h"

extern const hr_kernel hr_kernel_naive;
extern const hr_kernel hr_kernel_blocked;
extern const hr_kernel hr_kernel_simd;
extern const hr_kernel hr_kernel_omp;
extern const hr_kernel hr_kernel_flash, hr_kernel_gqa;
extern const hr_kernel hr_kernel_decode;
#if HR_HAVE_BLAS
extern const hr_kernel hr_kernel_blas;
#endif

/* Reference first; the order is the order `headroom list` prints. */
const hr_kernel *const hr_kernels[] = {
    &hr_kernel_naive,
    &hr_kernel_blocked,
    &hr_kernel_simd,
    &hr_kernel_omp,
    &hr_kernel_flash,
    &hr_kernel_gqa,
    &hr_kernel_decode,
#if HR_HAVE_BLAS
    &hr_kernel_blas,
#endif
    NULL,
};

const hr_kernel *hr_kernel_find(const char *name)
{
    for (int i = 0; hr_kernels[i]; i++)
        if (!strcmp(hr_kernels[i]->name, name)) return hr_kernels[i];
    return NULL;
}

const char *hr_kernel_absent(const char *name)
{
#if !HR_HAVE_BLAS
    if (!strcmp(name, "blas")) return "OpenBLAS was not found when it was built (install libopenblas-dev, rebuild)";
#endif
    (void)name;
    return NULL;
}

int hr_kernel_unknown(const char *where, const char *name)
{
    const char *why = hr_kernel_absent(name);
    if (why) return hr_fail("%s%skernel '%s' is not in this build: %s", where ? where : "", where ? ": " : "", name, why);
    return hr_fail("%s%sunknown kernel '%s' (see headroom list)", where ? where : "", where ? ": " : "", name);
}

/* What the harness told us of the machine (hr_kernel_set_machine); zeros: unknown. */
static hr_machine machine;

void hr_kernel_set_machine(const hr_machine *m) { machine = *m; }

const char *hr_kernel_why_not(const hr_kernel *k, const hr_problem *p)
{
    if (hr_problem_validate(p)) return hr_errmsg();
    if (p->causal && !(k->caps & HR_CAP_CAUSAL)) return "no causal masking (capability 'causal')";
    unsigned dt = k->dtypes ? k->dtypes : 1u << HR_F32, kvt = k->kv_dtypes ? k->kv_dtypes : 1u << HR_F32;
    static _Thread_local char why[96];
    if (!(dt >> p->dtype & 1)) {
        snprintf(why, sizeof why, "no %s Q/K/V (--dtype)", hr_dtype_names[p->dtype]);
        return why;
    }
    if (!(kvt >> p->kv_dtype & 1)) {
        snprintf(why, sizeof why, "no %s K/V cache (--kv-dtype)", hr_dtype_names[p->kv_dtype]);
        return why;
    }
    return k->applicable ? k->applicable(p) : NULL;
}

int hr_kernel_validate(const hr_kernel *k, const hr_problem *p)
{
    int st = hr_problem_validate(p);
    if (st) return st; /* its own message, naming the flag */
    const char *why = hr_kernel_why_not(k, p);
    return why ? hr_fail("kernel %s cannot run this shape: %s", k->name, why) : HR_OK;
}

hr_tune hr_kernel_tune(const hr_kernel *k, const hr_problem *p, const hr_tune *t)
{
    hr_tune r = t ? *t : (hr_tune){0};
    if (!(k->caps & HR_CAP_THREADED)) r.threads = 1;
    else if (r.threads <= 0) r.threads = machine.threads > 0 ? machine.threads : omp_get_max_threads();
    if (k->resolve) k->resolve(p, &machine, &r);
    return r;
}

const char *hr_kernel_path(const hr_kernel *k, const hr_problem *p)
{
    const char *s = k->path ? k->path(p) : NULL;
    return s ? s : hr_isa;
}

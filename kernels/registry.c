/* registry.c — the one table of kernels: those built into this binary, then a dynamic tail
 * of plugins' kernels; and what every caller asks of a kernel: by name, whether it can
 * run a problem, its resolved tunables, its workspace, a call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "headroom.h"
#include "plugin_kernel.h"

/* The built-in kernels: hr_kernels, the table of the ISA level that runs (isa_level.c,
 * dispatch.c); the same names in the same order on every level. */
static int nbuiltin(void)
{
    int n = 0;
    while (hr_kernels[n]) n++;
    return n;
}

/* The dynamic tail: plugins' kernels in the order they were added. Grown by
 * hr_kernel_add before any command runs; never shrinks (the libraries stay loaded). */
static const hr_kernel **added;
static int nadded, cap_added;

const hr_kernel *hr_kernel_at(int i)
{
    if (i < 0) return NULL;
    int nb = nbuiltin();
    if (i < nb) return hr_kernels[i];
    return i - nb < nadded ? added[i - nb] : NULL;
}

const hr_kernel *hr_kernel_find(const char *name)
{
    const hr_kernel *k;
    for (int i = 0; (k = hr_kernel_at(i)); i++)
        if (!strcmp(k->name, name)) return k;
    return NULL;
}

/* A kernel name: 1..31 of a-z 0-9 _ - . starting with a letter (rows split on '/',
 * config lists on ',', tables are aligned on short names). */
static bool valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 31 || !(s[0] >= 'a' && s[0] <= 'z')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr("_-.", *s))) return false;
    return true;
}

int hr_kernel_add(const hr_kernel *k)
{
    const char *from = k->plugin ? k->plugin->file : "?";
    if (!valid_name(k->name))
        return hr_fail("plugin %s: kernel name '%.40s' is not a valid name (1-31 of a-z 0-9 _ - . starting with a letter)",
                       from, k->name);
    if (!strcmp(k->name, "all") || !strcmp(k->name, "plugins")) /* a sweep config's words for sets of kernels */
        return hr_fail("plugin %s: kernel name '%s' is reserved (kernels = %s in a sweep config)", from, k->name, k->name);
    const hr_kernel *old = hr_kernel_find(k->name);
    if (old && !old->plugin)
        return hr_fail("plugin %s: kernel name '%s' clashes with a built-in kernel", from, k->name);
    if (old) return hr_fail("plugin %s: kernel name '%s' clashes with plugin %s", from, k->name, old->plugin->file);
    if (hr_kernel_absent(k->name))
        return hr_fail("plugin %s: kernel name '%s' is reserved for a built-in kernel", from, k->name);
    if (nadded == cap_added) {
        int ncap = cap_added ? 2 * cap_added : 8;
        const hr_kernel **a = realloc(added, (size_t)ncap * sizeof *a);
        if (!a) return hr_fail("plugin %s: out of memory", from);
        added = a;
        cap_added = ncap;
    }
    added[nadded++] = k;
    return HR_OK;
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
    if (p->window > 0 && !(k->caps & HR_CAP_WINDOW)) return "no sliding window (--window; capability 'window')";
    if (p->softcap > 0 && !(k->caps & HR_CAP_SOFTCAP)) return "no soft-capped scores (--softcap; capability 'softcap')";
    if (p->alibi > 0 && !(k->caps & HR_CAP_ALIBI)) return "no ALiBi biases (--alibi; capability 'alibi')";
    if (p->page_size > 0 && !(k->caps & HR_CAP_PAGED)) return "no paged KV cache (--page-size; capability 'paged')";
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
    if (k->plugin) return hr_pk_applicable(k, p);
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
    if (k->plugin) hr_pk_resolve(k, p, &machine, &r);
    else if (k->resolve) k->resolve(p, &machine, &r);
    return r;
}

const char *hr_kernel_path(const hr_kernel *k, const hr_problem *p)
{
    if (k->plugin) { /* a plugin's code was not built for hr_isa: without a path, its library */
        const char *s = hr_pk_path(k, p);
        return s ? s : k->plugin->library;
    }
    const char *s = k->path ? k->path(p) : NULL;
    return s ? s : hr_isa;
}

const char *hr_kernel_path_kv(const hr_kernel *k, const hr_problem *p, int tile, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", hr_kernel_path(k, p), tile ? ", K/V in 16-key tiles" : "");
    return buf;
}

size_t hr_kernel_workspace(const hr_kernel *k, const hr_problem *p, const hr_tune *t)
{
    if (k->plugin) return hr_pk_workspace(k, p, t);
    return k->workspace_bytes ? k->workspace_bytes(p, t) : 0;
}

int hr_kernel_kv_tile(const hr_kernel *k, const hr_problem *p, const hr_tune *t)
{
    return !k->plugin && k->kv_tile ? k->kv_tile(p, t) : 0;
}

int hr_kernel_run(const hr_kernel *k, const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws)
{
    return k->plugin ? hr_pk_run(k, p, t, a, ws) : k->run(p, t, a, ws);
}

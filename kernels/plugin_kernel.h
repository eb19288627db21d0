/* plugin_kernel.h — the adapter: a plugin's kernel (include/headroom/plugin.h) as an hr_kernel. */
#ifndef HR_PLUGIN_KERNEL_H
#define HR_PLUGIN_KERNEL_H

#include "headroom.h"

/* Checks the plugin's kernel pk (an hrp_kernel) and makes *k stand for it, with origin
 * o (which must outlive k; o->impl is set to pk). NULL when it is usable, else the rule
 * it breaks (a static string or the thread's error text). */
const char *hr_pk_make(const void *pk, hr_plugin_origin *o, hr_kernel *k);

/* The calls of a plugin's kernel k (k->plugin set), in headroom's types. Called by the
 * registry's hr_kernel_* functions only. */
const char *hr_pk_applicable(const hr_kernel *k, const hr_problem *p);
void hr_pk_resolve(const hr_kernel *k, const hr_problem *p, const hr_machine *m, hr_tune *t);
size_t hr_pk_workspace(const hr_kernel *k, const hr_problem *p, const hr_tune *t);
int hr_pk_run(const hr_kernel *k, const hr_problem *p, const hr_tune *t, const hr_args *a, void *ws);
const char *hr_pk_path(const hr_kernel *k, const hr_problem *p);

#endif

/* path.c — the one way a kernel family chooses its path from its table (path.h). */
#include "path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hr_path_forced(const hr_path_table *t)
{
    const char *e = getenv(t->env);
    if (!e || !*e || (t->auto_ok && !strcmp(e, "auto"))) return NULL;
    return e;
}

static const hr_path *named(const hr_path_table *t, const char *e)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].name, e)) return &t->rows[i];
    return NULL;
}

const char *hr_path_why_not(const hr_path_table *t, const hr_problem *p)
{
    static _Thread_local char why[320];
    const char *e = hr_path_forced(t);
    if (!e) return NULL;
    const hr_path *r = named(t, e);
    if (!r) { /* the names from the fallback up: "convert, bf16dot, amx" */
        int at = snprintf(why, sizeof why, "%s=%.60s: not one of ", t->env, e);
        for (int i = t->n - 1; i >= 0 && at > 0 && (size_t)at < sizeof why; i--)
            at += snprintf(why + at, sizeof why - (size_t)at, "%s%s", t->rows[i].name, i ? ", " : "");
        return why;
    }
    if (t->chooses && !t->chooses(p)) return NULL; /* not a problem the table chooses for */
    const char *no = r->why_not ? r->why_not(p) : NULL;
    if (!no) return NULL;
    snprintf(why, sizeof why, "%s=%s: %s", t->env, e, no);
    return why;
}

const hr_path *hr_path_pick(const hr_path_table *t, const hr_problem *p)
{
    const hr_path *last = &t->rows[t->n - 1];
    if ((t->chooses && !t->chooses(p)) || hr_path_why_not(t, p)) return last;
    const char *e = hr_path_forced(t);
    if (e) return named(t, e);
    for (int i = 0; i < t->n - 1; i++)
        if (!t->rows[i].why_not || !t->rows[i].why_not(p)) return &t->rows[i];
    return last;
}

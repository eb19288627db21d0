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

static int names(const hr_path *r, const char *e) { return !strcmp(r->name, e) || (r->alias && !strcmp(r->alias, e)); }
static int available(const hr_path *r, const hr_problem *p) { return !r->why_not || !r->why_not(p); }

/* The first row e names, from row i on (NULL: none). */
static const hr_path *named(const hr_path_table *t, const char *e, int i)
{
    for (; i < t->n; i++)
        if (names(&t->rows[i], e)) return &t->rows[i];
    return NULL;
}

/* A value no row names: one of a sibling table's (NULL: it chooses as unset), or refused. */
static const char *unnamed(const hr_path_table *t, const char *e, char *why, size_t len)
{
    for (const char *const *v = t->values; v && *v; v++)
        if (!strcmp(*v, e)) return NULL;
    if (t->bad) return t->bad;
    int at = snprintf(why, len, "%s=%.60s: not one of ", t->env, e); /* the names from the fallback up */
    for (int i = t->n - 1; i >= 0 && at > 0 && (size_t)at < len; i--)
        at += snprintf(why + at, len - (size_t)at, "%s%s", t->rows[i].name, i ? ", " : "");
    return why;
}

const char *hr_path_why_not(const hr_path_table *t, const hr_problem *p)
{
    static _Thread_local char why[320];
    const char *e = hr_path_forced(t);
    if (!e) return NULL;
    const hr_path *r = named(t, e, 0);
    if (!r) return unnamed(t, e, why, sizeof why);
    if (t->chooses && !t->chooses(p)) return NULL; /* not a problem the table chooses for */
    const char *no = r->why_not ? r->why_not(p) : NULL;
    if (!no) return NULL;
    for (const hr_path *a = named(t, e, (int)(r - t->rows) + 1); a; a = named(t, e, (int)(a - t->rows) + 1))
        if (available(a, p)) return NULL; /* a later row of that name runs it */
    snprintf(why, sizeof why, "%s=%s: %s", t->env, e, no);
    return why;
}

const hr_path *hr_path_pick(const hr_path_table *t, const hr_problem *p)
{
    const hr_path *last = &t->rows[t->n - 1];
    if ((t->chooses && !t->chooses(p)) || hr_path_why_not(t, p)) return last;
    const char *e = hr_path_forced(t);
    for (const hr_path *r = e ? named(t, e, 0) : NULL; r; r = named(t, e, (int)(r - t->rows) + 1))
        if (available(r, p)) {
            if (!r->fits || r->fits(p, 1)) return r;
            break; /* available, but not for p: chosen as unset */
        }
    for (int i = 0; i < t->n - 1; i++)
        if (available(&t->rows[i], p) && (!t->rows[i].fits || t->rows[i].fits(p, 0))) return &t->rows[i];
    return last;
}

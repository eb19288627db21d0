/* path.h — a kernel family's paths in one table (name, available, step, roof, env name) and the one way a path is chosen. */
#ifndef HR_PATH_H
#define HR_PATH_H

#include "headroom.h"

/* One path of a family: the instructions it runs a problem with. */
typedef struct {
    const char *name;                            /* the value of the table's env variable that forces it */
    const char *(*why_not)(const hr_problem *p); /* available: NULL where this build level, CPU and
                                                  * OS run it for p, else why not (NULL: always) */
    const void *step;                            /* the family's step for it, of the family's own type */
    const char *(*roof)(const hr_problem *p);    /* the path as hr_kernel.path prints it, which names
                                                  * the roof its rows are held to (hr_roof_for_path) */
    const char *alias;                           /* a second value that forces it, where no earlier row
                                                  * of that name is available (NULL: none) */
    int (*fits)(const hr_problem *p, int forced); /* whether an available row runs p, forced (1) or
                                                  * chosen (0); else p is chosen for as unset
                                                  * (NULL: always) */
} hr_path;

/* A family's paths, best first; the last takes every problem (the fallback). */
typedef struct {
    const char *env;                     /* the variable that forces a path by name; "auto" or
                                          * unset chooses, where auto is one of the values */
    int auto_ok;                         /* 1: "auto" is a value (as unset) */
    const hr_path *rows;
    int n;
    int (*chooses)(const hr_problem *p); /* the problems the table chooses for; every other takes
                                          * the last row, whatever the env says (NULL: all) */
    const char *const *values;           /* where tables for different problems share the env:
                                          * every value it takes, NULL-terminated; one that names
                                          * no row here chooses as unset (NULL: the rows' names) */
    const char *bad;                     /* the refusal of any other value (NULL: "ENV=V: not one
                                          * of a, b, c") */
} hr_path_table;

/* The env's value, NULL where unset, empty or (auto_ok) "auto". */
const char *hr_path_forced(const hr_path_table *t);
/* NULL, or why p cannot run as the env forces it: a value that names no row ("ENV=V: not one
 * of a, b, c", or the table's `bad`), or a path this build level or CPU lacks ("ENV=V: why",
 * the reason of the first row the value names). A kernel's `applicable` returns it, so a
 * forced path is refused with its reason, never run on another. */
const char *hr_path_why_not(const hr_path_table *t, const hr_problem *p);
/* The row p runs on: the last where the table does not choose for p or the env is refused,
 * the first available row the env names (by name or alias) where it fits p, else the first
 * available row that fits p as chosen. */
const hr_path *hr_path_pick(const hr_path_table *t, const hr_problem *p);

#endif

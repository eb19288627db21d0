/* check.h — the oracle battery: shapes every kernel must get right. */
#ifndef HR_CHECK_H
#define HR_CHECK_H

#include "inputs.h"
#include "oracle.h"

#define HR_MAX_CASES 512

typedef struct {
    hr_problem prob;
    hr_layout layout;
    hr_dist dist;
} hr_case;

/* Fills cases with the battery (the quick one omits the larger shapes); returns the count. */
int hr_battery(hr_case *cases, int max, bool quick);
/* Runs k on one case with the tunables t (0 fields: the kernel's defaults; threads 0:
 * all CPUs) and compares with the oracle. Returns the verdict (HR_CHECK_*), or -1 when
 * the kernel is not applicable. line gets a one-line description of the case, the
 * tunables that ran and its errors. */
int hr_check_case(const hr_kernel *k, const hr_case *c, const hr_tune *t, uint64_t seed,
                  hr_check *res, char *line, size_t len);

#endif

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
/* The variant battery (docs/explanation/variants.md): shapes where the edges of each
 * variant in caps (HR_CAP_WINDOW, HR_CAP_SOFTCAP, HR_CAP_ALIBI) show, each case carrying
 * its variant: windows smaller than, equal to and larger than Nkv (odd ones among them),
 * soft caps 5 and 50, ALiBi max biases 8 and 4.5 over power-of-two and other head counts;
 * with all three in caps (and no fixed), only cases with the three at once. With fixed,
 * the batteries of the variants in caps, every case taking fixed's window, softcap and
 * alibi instead (a window makes it causal). Returns the count. */
int hr_variant_battery(hr_case *cases, int max, unsigned caps, const hr_problem *fixed);
/* The format's error for a reduced-type p: the fp64 oracle on the original fp32 inputs
 * (drawn again with the same layout, dist and seed, never stored in p's types) against
 * the kernel's output in a->o (fp32; hr_tensors_output first). What the types cost in
 * accuracy whatever the kernel: reported, not judged (out->verdict is meaningless; read
 * max_rel_err and nmse). HR_EUSAGE (message set) when the originals cannot be allocated. */
int hr_format_check(const hr_problem *p, const hr_args *a, hr_layout layout, hr_dist dist,
                    uint64_t seed, hr_check *out);
/* Bytes hr_format_check allocates for p (0 for an all-f32 p). */
double hr_format_check_bytes(const hr_problem *p);
/* "format max_rel 3.1e-03 nmse 2.0e-06" */
void hr_format_str(const hr_check *c, char *buf, size_t len);

/* Runs k on one case with the tunables t (0 fields: the kernel's defaults; threads 0:
 * all CPUs) and compares with the oracle. Returns the verdict (HR_CHECK_*), or -1 when
 * the kernel is not applicable, or HR_CHECK_ERROR when its run failed (a plugin's:
 * line and hr_errmsg hold the message, kernel and plugin named). line gets a one-line description of the case, the
 * tunables and the path (hr_kernel_path) that ran, its errors and, for reduced types,
 * the format's error (hr_format_check). */
#define HR_CHECK_ERROR (-2)
int hr_check_case(const hr_kernel *k, const hr_case *c, const hr_tune *t, uint64_t seed,
                  hr_check *res, char *line, size_t len);

#endif

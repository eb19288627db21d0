/* phase.h — per-repetition concurrent-ceiling probes, phase-change detection and the normalized metric (frac_of_ceiling). */
#ifndef HR_PHASE_H
#define HR_PHASE_H

#include <stdbool.h>
#include <stddef.h>

#include "ceilings.h"
#include "probe.h"
#include "result.h"

/* Which probe brackets each timed repetition. The values of hr_timing.probe_kind are
 * HR_PROBE_OFF, HR_PROBE_FMA and HR_PROBE_BW; HR_PROBE_AUTO is only a request: FMA for
 * a kernel whose arithmetic intensity (counts.c FLOPs / traffic-model bytes) is at or
 * above the machine balance, bandwidth below it (hr_phase_kind_for). */
typedef enum { HR_PROBE_OFF = 0, HR_PROBE_FMA = 1, HR_PROBE_BW = 2, HR_PROBE_AUTO = 3 } hr_probe_kind;
extern const char *const hr_probe_kind_names[]; /* "none", "fma", "bw", "auto", NULL */

#define HR_PHASE_PROBE_SECONDS 0.0015 /* each probe: 1.5 ms on each side of a repetition */
#define HR_PHASE_THRESHOLD 0.10       /* default phase-change threshold (relative)      */

/* The timer hooks' context (hr_timer_opts.before_rep/after_rep = hr_phase_before/after).
 * They write t->probe_before[rep] / t->probe_after[rep]: for FMA the slowest thread's
 * GFLOP/s of a team of `threads` (the kernel's team size) running `loop`, for BW the team's triad GB/s
 * over buf. t must have been cleared before the first hook runs (hr_time does). */
typedef struct {
    hr_probe_kind kind;     /* HR_PROBE_FMA or HR_PROBE_BW                        */
    int threads;
    double seconds;         /* 0: HR_PHASE_PROBE_SECONDS                           */
    const hr_probe_buf *buf;/* BW only: hr_phase_bw_buf()                          */
    hr_timing *t;
    /* FMA only: the compute loop of the row's own roof (hr_roof_loop_of(hr_roof_of(k,
     * p, hr_isa)): a bf16 dot for a path that runs vdpbf16ps); NULL: the build's FMA. */
    const hr_roof_loop *loop;
} hr_phase_probe;
void hr_phase_before(void *probe, int rep);
void hr_phase_after(void *probe, int rep);

/* The process-wide buffer of the bandwidth probe: three arrays of max(4 x L3,
 * hr_probe_buf_default_bytes()) bytes together, so the triad streams from memory, not
 * from the last-level cache; allocated on first use (first-touched by `threads`).
 * NULL with a message (hr_errmsg) when it cannot be allocated. */
const hr_probe_buf *hr_phase_bw_buf(int threads);

/* Machine balance in FLOP/byte at `threads` for compute roof `roof` (ceilings.h): that
 * roof's ceiling over the triad bandwidth, from results/<machine>/ceilings.json when it
 * has both, else measured once per thread count and roof with the two probes (10 ms
 * each; a roof this CPU cannot run is measured as the build's FMA). 0 when neither is
 * available. */
double hr_phase_balance(int threads, int roof);
/* HR_PROBE_BW when the traffic (bytes) exceeds the last-level cache and flops / bytes <
 * hr_phase_balance(threads, roof) (memory-bound by the DRAM roofline of the row's own
 * roof), else HR_PROBE_FMA: a working set that stays in cache is judged against the
 * compute probe, whatever its AI. */
hr_probe_kind hr_phase_kind_for_roof(double flops, double bytes, int threads, int roof);
/* hr_phase_kind_for_roof with the build ISA's FMA roof. */
hr_probe_kind hr_phase_kind_for(double flops, double bytes, int threads);

/* Flags every repetition of t whose two probes differ by more than threshold relative
 * to the larger, |after - before| / max(before, after) > threshold, and, when filter is
 * set, recomputes t->s without them (unless every repetition is flagged: then nothing
 * is excluded). Records threshold and filter in t. No-op when t was not probed. */
void hr_phase_mark(hr_timing *t, double threshold, bool filter);
/* Whether repetition rep is left out of the result's statistics. */
bool hr_phase_excluded(const hr_timing *t, int rep);

/* The concurrent ceiling of repetition rep: FMA, threads x mean(before, after) of the
 * slowest thread's GFLOP/s; BW, mean(before, after) of the team's GB/s. 0 when not
 * probed. */
double hr_phase_ceiling(const hr_result *r, int rep);
/* The normalized metric of repetition rep (higher is better):
 *   FMA: (flops / rep_time) / hr_phase_ceiling   (GFLOP/s over concurrent GFLOP/s)
 *   BW:  (bytes / rep_time) / hr_phase_ceiling   (GB/s over concurrent triad GB/s)
 * 0 when not probed. */
double hr_phase_frac(const hr_result *r, int rep);
/* The median of ceiling (which 0) or frac (1) over the repetitions not excluded. */
double hr_phase_median(const hr_result *r, int which);
/* Sets the result counters frac_of_ceiling and probe_gflops (FMA) or probe_gbs (BW)
 * to the medians over the kept repetitions, and phase_changes / phase_excluded. No-op
 * when r was not probed. */
void hr_phase_attach(hr_result *r);
/* A one-line note about r's phase changes into buf (len >= 200); returns whether
 * there is one (at least one repetition flagged). */
bool hr_phase_note(const hr_result *r, char *buf, size_t len);
/* A one-line note into buf (len >= 200) when r's compute probe read less than
 * HR_PHASE_SHORT of the ceiling c saved at the same thread count for the probe's own loop:
 * the run had less of the machine than it asked for (another tenant, a CPU quota, two
 * threads on one core), which frac_of_ceiling cannot show, since its probe had as little.
 * false when r has no FMA probe, c is NULL or has no row at r's thread count. (Bandwidth
 * probes are left out: a shared machine's triad moves by a third between its phases.) */
#define HR_PHASE_SHORT 0.6
bool hr_phase_short_note(const hr_result *r, const hr_ceilings *c, char *buf, size_t len);

/* Test-only: HEADROOM_PLANT_DELAY=F (0 < F <= 1) makes the benchmark harness busy-wait
 * F x the kernel's own duration inside every timed call, a planted slowdown of F that
 * scales with the machine's phases as a slower kernel would. Returns F, 0 when unset,
 * -1 when set to anything else. */
double hr_phase_plant_delay(void);

#endif

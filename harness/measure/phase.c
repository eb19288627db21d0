/* phase.c — per-repetition concurrent-ceiling probes, phase-change flags and the normalized metric. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"
#include "phase.h"
#include "ceilings.h"
#include "stats.h"
#include "sysinfo.h"

const char *const hr_probe_kind_names[] = {"none", "fma", "bw", "auto", NULL};

/* ---- probes around repetitions ----------------------------------------------------- */

static void probe_into(hr_phase_probe *pr, double *slot, int rep)
{
    if (rep < 0 || rep >= HR_MAX_REPS) return;
    double sec = pr->seconds > 0 ? pr->seconds : HR_PHASE_PROBE_SECONDS;
    int t = pr->threads > 0 ? pr->threads : 1;
    if (pr->kind == HR_PROBE_BW && pr->buf) slot[rep] = hr_probe_bw(t, pr->buf, sec, NULL);
    else if (pr->loop) slot[rep] = hr_probe_run_loop(pr->loop, t, sec, NULL);
    else slot[rep] = hr_probe_run(t, sec, NULL);
    pr->t->probe_kind = pr->kind == HR_PROBE_BW && pr->buf ? HR_PROBE_BW : HR_PROBE_FMA;
}

void hr_phase_before(void *probe, int rep)
{
    hr_phase_probe *pr = probe;
    probe_into(pr, pr->t->probe_before, rep);
}

void hr_phase_after(void *probe, int rep)
{
    hr_phase_probe *pr = probe;
    probe_into(pr, pr->t->probe_after, rep);
}

const hr_probe_buf *hr_phase_bw_buf(int threads)
{
    static hr_probe_buf buf;
    if (buf.n) return &buf;
    size_t bytes = hr_probe_buf_default_bytes(), l3 = hr_sysinfo_get()->l3;
    if (bytes < 4 * l3) bytes = 4 * l3;
    return hr_probe_buf_alloc(&buf, bytes, threads) == HR_OK ? &buf : NULL;
}

/* ---- which probe ---------------------------------------------------------------------- */

double hr_phase_balance(int threads, int roof)
{
    /* Cached per thread count and roof: the ceilings file is read once, live probes run
     * once. */
    enum { NCACHE = 16 };
    static int cached_t[NCACHE], cached_r[NCACHE];
    static double cached_b[NCACHE];
    static int ncached, loaded;
    static hr_ceilings ceil;
    for (int i = 0; i < ncached; i++)
        if (cached_t[i] == threads && cached_r[i] == roof) return cached_b[i];
    if (!loaded) {
        char path[512];
        hr_ceilings_default_path(path, sizeof path);
        loaded = hr_ceilings_load(path, &ceil) == HR_OK ? 1 : -1;
    }
    double peak = 0, bw = 0;
    if (loaded > 0) {
        peak = hr_ceiling_roof(&ceil, threads, roof);
        bw = hr_ceiling_bw(&ceil, threads);
    }
    if (!(peak > 0 && bw > 0)) {
        const hr_probe_buf *pb = hr_phase_bw_buf(threads);
        const hr_roof_loop *L = hr_roof_loop_of(roof);
        peak = threads * (L ? hr_probe_run_loop(L, threads, 0.01, NULL) : hr_probe_run(threads, 0.01, NULL));
        bw = pb ? hr_probe_bw(threads, pb, 0.01, NULL) : 0;
    }
    double b = peak > 0 && bw > 0 ? peak / bw : 0;
    if (ncached < NCACHE) {
        cached_t[ncached] = threads;
        cached_r[ncached] = roof;
        cached_b[ncached++] = b;
    }
    return b;
}

hr_probe_kind hr_phase_kind_for_roof(double flops, double bytes, int threads, int roof)
{
    if (!(bytes > 0)) return HR_PROBE_FMA;
    /* Traffic that fits in the last-level cache never reaches DRAM: the triad is not its
     * roof, and near the balance a live balance estimate made the kind flip from run to
     * run (13 of the 28 ci.ini rows), which moved frac_of_ceiling by 25%. */
    if (bytes <= (double)hr_sysinfo_get()->l3) return HR_PROBE_FMA;
    double balance = hr_phase_balance(threads < 1 ? 1 : threads, roof);
    return balance > 0 && flops / bytes < balance ? HR_PROBE_BW : HR_PROBE_FMA;
}

hr_probe_kind hr_phase_kind_for(double flops, double bytes, int threads)
{
    return hr_phase_kind_for_roof(flops, bytes, threads, hr_fma_build_loop());
}

/* ---- phase changes ---------------------------------------------------------------------- */

void hr_phase_mark(hr_timing *t, double threshold, bool filter)
{
    if (!t->probe_kind) return;
    t->phase_threshold = threshold;
    t->phase_filter = filter;
    t->nphase = t->nexcluded = 0;
    for (int r = 0; r < t->reps; r++) {
        double a = t->probe_before[r], b = t->probe_after[r], hi = fmax(a, b);
        t->phase_change[r] = hi > 0 && fabs(a - b) / hi > threshold;
        t->nphase += t->phase_change[r];
    }
    if (!filter || t->nphase == 0 || t->nphase == t->reps) {
        hr_summarize(t->rep_time, t->reps, &t->s);
        return;
    }
    double kept[HR_MAX_REPS];
    int n = 0;
    for (int r = 0; r < t->reps; r++)
        if (!t->phase_change[r]) kept[n++] = t->rep_time[r];
    t->nexcluded = t->reps - n;
    hr_summarize(kept, n, &t->s);
}

bool hr_phase_excluded(const hr_timing *t, int rep)
{
    return t->nexcluded > 0 && t->phase_change[rep];
}

/* ---- the normalized metric --------------------------------------------------------------- */

double hr_phase_ceiling(const hr_result *r, int rep)
{
    const hr_timing *t = &r->timing;
    if (!t->probe_kind || rep < 0 || rep >= t->reps) return 0;
    double m = 0.5 * (t->probe_before[rep] + t->probe_after[rep]);
    return t->probe_kind == HR_PROBE_FMA ? m * (r->tune.threads > 0 ? r->tune.threads : 1) : m;
}

double hr_phase_frac(const hr_result *r, int rep)
{
    double c = hr_phase_ceiling(r, rep), dt = rep >= 0 && rep < r->timing.reps ? r->timing.rep_time[rep] : 0;
    if (!(c > 0) || !(dt > 0)) return 0;
    double work = r->timing.probe_kind == HR_PROBE_FMA ? r->flops : r->bytes;
    return work / dt * 1e-9 / c;
}

double hr_phase_median(const hr_result *r, int which)
{
    double v[HR_MAX_REPS];
    int n = 0;
    for (int i = 0; i < r->timing.reps; i++)
        if (!hr_phase_excluded(&r->timing, i)) v[n++] = which ? hr_phase_frac(r, i) : hr_phase_ceiling(r, i);
    if (!n) return 0;
    return hr_median(v, (size_t)n);
}

void hr_phase_attach(hr_result *r)
{
    if (!r->timing.probe_kind) return;
    hr_result_set(r, r->timing.probe_kind == HR_PROBE_FMA ? "probe_gflops" : "probe_gbs", hr_phase_median(r, 0));
    hr_result_set(r, "frac_of_ceiling", hr_phase_median(r, 1));
    hr_result_set(r, "phase_changes", r->timing.nphase);
    hr_result_set(r, "phase_excluded", r->timing.nexcluded);
}

bool hr_phase_note(const hr_result *r, char *buf, size_t len)
{
    const hr_timing *t = &r->timing;
    if (!t->probe_kind || !t->nphase) return false;
    char name[256];
    hr_result_name(r, name, sizeof name);
    const char *what = t->nexcluded ? "excluded from the statistics (--phase-filter)"
                       : !t->phase_filter ? "kept (--phase-filter would exclude them)"
                                          : "kept: all repetitions changed phase";
    snprintf(buf, len, "%.100s: %d of %d repetitions changed phase (%s probe before/after differ > %.0f%%): %s",
             name, t->nphase, t->reps, hr_probe_kind_names[t->probe_kind], t->phase_threshold * 100, what);
    return true;
}

bool hr_phase_short_note(const hr_result *r, const hr_ceilings *c, char *buf, size_t len)
{
    const int T = r->tune.threads > 0 ? r->tune.threads : 1;
    if (r->timing.probe_kind != HR_PROBE_FMA || !c || c->quick || hr_ceiling_threads(c, T) != T) return false;
    const int roof = hr_probe_roof(r->kernel, &r->prob); /* the loop the probe ran */
    const double saved = hr_ceiling_roof(c, T, roof), got = hr_phase_median(r, 0);
    if (!(saved > 0 && got > 0) || got >= HR_PHASE_SHORT * saved) return false;
    char name[256];
    hr_result_name(r, name, sizeof name);
    const char *rn = hr_roof_name(roof);
    snprintf(buf, len, "%.90s: probe at %.0f%% of the %s ceiling saved for %d thread%s (%.4g %s): the run had less "
             "of the machine than asked", name, 100 * got / saved, rn, T, T > 1 ? "s" : "", got,
             hr_roof_unit(roof));
    return true;
}

double hr_phase_plant_delay(void)
{
    const char *s = getenv("HEADROOM_PLANT_DELAY");
    if (!s || !*s) return 0;
    char *end;
    double f = strtod(s, &end);
    return *end || !(f > 0) || f > 1 ? -1 : f;
}

/* sweep_cache.h — the memory of interleaved sweep points: tensors per shape, workspaces per point, the least recently used given back within a budget. */
#ifndef HR_SWEEP_CACHE_H
#define HR_SWEEP_CACHE_H

#include "bench.h"
#include "sweep_points.h"

/* A point being measured. spec is the caller's to fill before hr_sweep_cache_open; ses
 * and res must not move between open and close (the slots array is never reallocated). */
typedef struct {
    const hr_sweep_point *pt;
    int seq, shape;           /* the point's place in the sweep; its shape           */
    hr_bench_spec spec;
    hr_bench_session ses;
    hr_result res;
    double ws;                /* workspace bytes                                      */
    bool open, parked;        /* open: opened, not yet closed; parked: memory given back */
} hr_sweep_slot;

/* A shape (problem and layout): its tensors and its points. */
typedef struct {
    const hr_sweep_point *pt; /* one of its points, for the problem and layout        */
    hr_tensors t;             /* t.mem != NULL: resident                              */
    int first, n, left;       /* its slots: by_shape[first..first+n), left not done    */
    bool made;                /* the tensors were made once (again: regenerated)      */
} hr_sweep_shape;

typedef struct {
    hr_sweep_slot *sl;
    hr_sweep_shape *sh;
    int n, nshape, *by_shape;
    double budget, used;      /* bytes allowed; resident (tensors + open workspaces)   */
    hr_dist dist;
    uint64_t seed;
    long regenerated;         /* tensor sets made again after being given back         */
    /* least recently used first: items 0..nshape-1 are shapes' tensors, nshape+i slot
     * i's workspace */
    int *prev, *next, head, tail;
    bool *in;
} hr_sweep_cache;

/* Slots for the points pts[idx[0..n)] in that order (slot i: pts[idx[i]], seq idx[i]),
 * grouped into shapes; nothing is allocated for them yet. Inputs are drawn from dist and
 * seed. HR_OK, or HR_EUSAGE when out of memory (hr_sweep_cache_free frees either way). */
int hr_sweep_cache_init(hr_sweep_cache *m, hr_sweep_point *pts, const int *idx, int n, double budget,
                        hr_dist dist, uint64_t seed);
/* Opens slot i (hr_bench_open with its spec on its shape's tensors: check, warm-up,
 * calibration), making room first. Returns hr_bench_open's status or HR_EUSAGE when the
 * tensors cannot be allocated; on any error the slot is done (hr_sweep_cache_retire). */
int hr_sweep_cache_open(hr_sweep_cache *m, int i);
/* Makes open slot i ready for a repetition: its tensors and workspace resident, made
 * again if they were given back. HR_OK, or HR_EUSAGE when the memory cannot be had. */
int hr_sweep_cache_ready(hr_sweep_cache *m, int i);
/* Closes slot i after reps repetitions (hr_bench_close) and retires it. */
int hr_sweep_cache_close(hr_sweep_cache *m, int i, int reps);
/* Slot i is done without a result: whatever it holds is freed, and its shape's tensors
 * with the shape's last slot. */
void hr_sweep_cache_retire(hr_sweep_cache *m, int i);
/* Frees everything (open slots are abandoned). */
void hr_sweep_cache_free(hr_sweep_cache *m);

#endif

/* sweep_worker.h — a sweep's points measured in a worker process (proc.h) that holds their memory, or in this process (--in-process). */
#ifndef HR_SWEEP_WORKER_H
#define HR_SWEEP_WORKER_H

#include "proc.h"
#include "sweep_cache.h"

/* The points of one measure() of sweep.c. In-process, m is their memory as sweep_cache.h
 * keeps it. With a worker, the worker holds that memory and this process's m is its
 * view: every slot's spec (filled by the caller before open), res as the worker last
 * sent it, open and ses.failed (the rest of ses is the worker's); the worker is forked at the first step, so the caller's pts and
 * specs are in it, and again after a failure, when the points that were open are opened
 * afresh in the new one and given back their repetitions (before their next step). */
typedef struct {
    hr_sweep_cache m;
    bool in_process;
    double timeout;          /* > 0: seconds a step may take; 0: hr_sweep_point_limit's */
    int reps;                /* for the default limit                                  */
    double min_time, warmup;
    hr_proc w;
    bool *lost;              /* open slots whose session died with a worker           */
    long regenerated;        /* by workers that ended                                  */
    char why[320];           /* after HR_EWORKER: the reason                           */
} hr_sweep_meas;

/* As hr_sweep_cache_init, with the mode and the time limit. */
int hr_sweep_meas_init(hr_sweep_meas *s, hr_sweep_point *pts, const int *idx, int n, double budget, hr_dist dist,
                       uint64_t seed, bool in_process, double timeout, int reps, double min_time, double warmup);
/* The steps, as their sweep_cache.h and bench.h namesakes, or HR_EWORKER: open slot i;
 * hand it the repetitions in its res.timing (the journal's, restored by the caller after
 * open); make it ready; repetition rep; close after reps; retire. A failed slot is done
 * (retired). */
int hr_sweep_meas_open(hr_sweep_meas *s, int i);
int hr_sweep_meas_restore(hr_sweep_meas *s, int i);
int hr_sweep_meas_ready(hr_sweep_meas *s, int i);
int hr_sweep_meas_rep(hr_sweep_meas *s, int i, int rep, bool rewarm);
int hr_sweep_meas_close(hr_sweep_meas *s, int i, int reps);
void hr_sweep_meas_retire(hr_sweep_meas *s, int i);
/* Tensor sets made again between repetitions, over every worker. */
long hr_sweep_meas_regenerated(const hr_sweep_meas *s);
/* Ends the worker and frees everything. */
void hr_sweep_meas_free(hr_sweep_meas *s);

/* The default time limit of a step of point pt: 60 s, or 20 times the point's estimated
 * cost (hr_shard_cost) where that is more. */
double hr_sweep_point_limit(const hr_sweep_point *pt, int reps, double min_time, double warmup);

#endif

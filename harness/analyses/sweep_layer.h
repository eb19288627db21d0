/* sweep_layer.h — layer-mode sweep points measured (one row per phase and a total), stop_after_crossover, and the sweep's crossover files. */
#ifndef HR_SWEEP_LAYER_H
#define HR_SWEEP_LAYER_H

#include "bench.h"
#include "sweep_points.h"

/* Measures the point with hr_layer_bench (timer, check, seed and budget from spec) and
 * fills rows[0..HR_NPHASES] with one result per phase (hr_phase_names) and the total,
 * each named "<point name>/<phase>". Returns hr_layer_bench's status; rows[HR_NPHASES]
 * .timing.aborted is set when the timer's stop flag cut it short. */
int hr_sweep_layer_run(const hr_sweep_point *pt, const hr_bench_spec *spec, hr_result *rows, int *nrows);
/* stop_after_crossover: when an earlier row of pt's series (same name but N, same pass)
 * at a smaller N had core time > projection time, writes why pt is skipped to buf and
 * returns it; else NULL. */
const char *hr_sweep_layer_past(const hr_sweep_point *pt, const hr_result *res, int nres, char *buf, size_t len);
/* After a layer sweep: crossover.csv and crossover_table.csv (the columns of headroom
 * crossover) in dir, from the layer phase rows among res. HR_OK, or HR_EUSAGE when a
 * file cannot be written. */
int hr_sweep_layer_crossover(const hr_result *res, int nres, const char *dir);

#endif

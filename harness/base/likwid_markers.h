/* likwid_markers.h — likwid Marker API regions (make LIKWID=1), no-ops otherwise.
 *
 * likwid counts a region per thread, so a region has to be started and stopped on every
 * thread that does the region's work. headroom's kernels open their own OpenMP region
 * per call, so hr_marker_start/stop open a separate, small parallel region of the same
 * size (threads) around the measured code and start/stop the region on each of its
 * threads. With OMP_PROC_BIND / likwid-pin keeping OpenMP threads on the same cores
 * from one region to the next (libgomp reuses its pool), those are the threads that
 * run the kernel. Caveats: the OpenBLAS back end runs on its own pthreads, which likwid
 * attributes by core (use likwid-perfctr -C so counting is per core, not per thread);
 * and a region spans the whole hr_time call (warm-up and calibration included), so
 * derive rates from the counters' own FLOP and time figures, not from headroom's.
 *
 * The Marker API is initialized on the first start and closed at exit. Build with
 * make LIKWID=1 (adds -DLIKWID_PERFMON -llikwid) and run under likwid-perfctr -m. */
#ifndef HR_LIKWID_MARKERS_H
#define HR_LIKWID_MARKERS_H

#ifdef LIKWID_PERFMON
#include <likwid-marker.h>
/* Starts region name on each of threads OpenMP threads (threads < 1: 1). */
void hr_marker_start(const char *name, int threads);
/* Stops region name on each of threads OpenMP threads. */
void hr_marker_stop(const char *name, int threads);
#else
#define LIKWID_MARKER_INIT
#define LIKWID_MARKER_THREADINIT
#define LIKWID_MARKER_REGISTER(regionTag)
#define LIKWID_MARKER_START(regionTag)
#define LIKWID_MARKER_STOP(regionTag)
#define LIKWID_MARKER_CLOSE
static inline void hr_marker_start(const char *name, int threads) { (void)name, (void)threads; }
static inline void hr_marker_stop(const char *name, int threads) { (void)name, (void)threads; }
#endif

#endif

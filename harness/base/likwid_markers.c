/* likwid_markers.c — the Marker API calls behind likwid_markers.h (only with make LIKWID=1). */
#include "likwid_markers.h"

#ifdef LIKWID_PERFMON
#include <stdlib.h>

#include <omp.h>

static void close_markers(void) { LIKWID_MARKER_CLOSE; }

/* Once per process: likwid_markerInit reads the environment likwid-perfctr -m set up
 * (without it, likwid prints a note and the regions count nothing). */
static void init_once(void)
{
    static int done;
    if (done) return;
    done = 1;
    LIKWID_MARKER_INIT;
    atexit(close_markers);
}

void hr_marker_start(const char *name, int threads)
{
    init_once();
#pragma omp parallel num_threads(threads < 1 ? 1 : threads)
    {
        LIKWID_MARKER_THREADINIT;
        LIKWID_MARKER_START(name);
    }
}

void hr_marker_stop(const char *name, int threads)
{
#pragma omp parallel num_threads(threads < 1 ? 1 : threads)
    LIKWID_MARKER_STOP(name);
}
#else
/* Without LIKWID_PERFMON the header's inline no-ops are all there is. */
typedef int hr_likwid_markers_unused;
#endif

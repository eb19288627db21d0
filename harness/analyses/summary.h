/* summary.h — a results file summed up where people look: a shape x kernel table (GFLOP/s,
 * % of roof) on stdout, summary.md and a self-contained index.html beside results.json. */
#ifndef HR_SUMMARY_H
#define HR_SUMMARY_H

#include <stdio.h>

/* Reads dir/results.json (headroom's Google Benchmark-schema file: one row per point, its
 * "median" aggregate) and writes dir/summary.md and dir/index.html atomically: the
 * context (machine, CPU, ISA, commit, date), the shape x kernel table, every row (median
 * time, GFLOP/s, % of roof, threads, CPU time over real time, CV), the warnings of the
 * context, the skipped points, and in index.html every chart found in plots_dir (NULL:
 * dir/plots) inline: an SVG as it is, else a PNG as a base64 data URI. table (may be
 * NULL) gets the shape x kernel table as text. HR_OK, or HR_EUSAGE with a one-line
 * message naming the file that could not be read or written. */
int hr_summary_write(const char *dir, const char *plots_dir, FILE *table);


#endif

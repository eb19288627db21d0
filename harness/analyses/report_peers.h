/* report_peers.h — the "peer / headroom" table: each plugin kernel's median time over the fastest built-in kernel's on the same shape and thread count. */
#ifndef HR_REPORT_PEERS_H
#define HR_REPORT_PEERS_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* The cell of kernel on shape s, machine m at exactly `threads`; NULL when none. */
const hr_report_cell *hr_report_cell_at(const hr_report *r, int s, int m, const char *kernel, int threads);
/* The built-in kernel (a cell without peer) with the least median time on (s, m, threads);
 * NULL when none has a time. */
const hr_report_cell *hr_report_best_builtin(const hr_report *r, int s, int m, int threads);
/* peer_kernel's median time over the best built-in's on (s, m, threads) (*best: that
 * built-in's cell, may be NULL); NAN when either is missing. Above 1: headroom is faster. */
double hr_report_peer_ratio(const hr_report *r, int s, int m, int threads, const char *peer_kernel,
                            const hr_report_cell **best);
/* The distinct plugin kernels of machine m (first cell of each), in order of appearance;
 * returns the count (at most max). */
int hr_report_peer_kernels(const hr_report *r, int m, const hr_report_cell **peers, int max);
/* Whether any machine's results hold a plugin kernel's rows. */
bool hr_report_has_peers(const hr_report *r);

/* Per machine with peers: a heading (level `hashes`, e.g. "##"), lines naming the machine,
 * headroom's version and commit, the load when the run started and every plugin loaded
 * (library, version, file), then one table: rows shape x thread count, columns the
 * fastest built-in kernel (name, GFLOP/s, % of the roofline bound) and per peer its time
 * over headroom's. Nothing when no machine has peers. */
void hr_report_peers_markdown(const hr_report *r, FILE *f, const char *hashes);
/* The same table as aligned text. */
void hr_report_peers_text(const hr_report *r, FILE *f);
/* One CSV row per machine x shape x threads x peer: the times and the ratio. */
void hr_report_peers_csv(const hr_report *r, FILE *f);

#endif

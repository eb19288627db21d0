/* gnuplot.h — the one way headroom finds and runs gnuplot (`headroom plot`, `headroom report`). */
#ifndef HR_GNUPLOT_H
#define HR_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

/* The gnuplot executable: $HEADROOM_GNUPLOT when set and not empty, else "gnuplot". */
const char *hr_gnuplot_exe(void);

/* Quiet probe: runs `exe --version` (looked up in PATH) with its output discarded.
 * Returns 1 when it ran and exited 0, else 0. */
int hr_gnuplot_works(const char *exe);

/* Finds plots/<name> (e.g. "report.gp") through hr_data_path (paths.h): under
 * $HEADROOM_PLOTS, else beside the binary, else the installed prefix's
 * share/headroom/plots/, else under the current directory. Writes the path into buf (the
 * plots/ directory is everything before its last '/'). Returns 1 when the file is
 * readable there, 0 when not found (buf then holds "plots/<name>"). */
int hr_plot_script(const char *name, char *buf, size_t len);

/* Runs `exe -e vars script` and waits (vars NULL: no -e). With log_path, gnuplot's stdout
 * and stderr go to that file (truncated), which is removed when gnuplot succeeds and kept
 * when it fails; without, they are inherited. Returns gnuplot's exit status (0 ok); -1
 * when it could not be started (errno says why); -2 when it died or could not be waited for. */
int hr_gnuplot_run(const char *exe, const char *script, const char *vars, const char *log_path);

/* gnuplot strings are passed single-quoted: false for a path or label holding a single
 * quote or a newline, which the callers refuse. */
bool hr_gnuplot_quotable(const char *s);

#endif

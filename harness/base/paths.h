/* paths.h — the one place headroom decides where its data files are read from (configs,
 * model presets, plot scripts) and where its results go (the results root). */
#ifndef HR_PATHS_H
#define HR_PATHS_H

#include <stddef.h>

/* The directory of the running binary (from /proc/self/exe), "" when unknown. */
const char *hr_exe_dir(void);

/* Finds the data file rel ("plots/report.gp", "configs/model-presets.ini"), first match:
 *   1. $env/<rel without its first component> when env names a set variable
 *      (HEADROOM_PLOTS replaces "plots/");
 *   2. beside the binary: <exe dir>/rel, then <exe dir>/../../rel (build/<isa>/headroom);
 *   3. the installed prefix: <exe dir>/../share/headroom/rel (make install);
 *   4. the current directory: rel.
 * Writes the path into buf and returns 1 when the file is readable there; 0 when not
 * found (buf then holds rel). env may be NULL. */
int hr_data_path(const char *rel, const char *env, char *buf, size_t len);

/* The results root: $HEADROOM_RESULTS when set and not empty; else, for an installed
 * binary (<prefix>/share/headroom/configs beside its bin/), $XDG_DATA_HOME/headroom/results
 * or ~/.local/share/headroom/results; else "results" (relative to the current directory). */
const char *hr_results_root(void);

/* <results root>/<machine>/<name> into buf (name NULL or "": the machine directory). */
void hr_results_path(const char *name, char *buf, size_t len);

#endif

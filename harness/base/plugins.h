/* plugins.h — loads plugins (include/headroom/plugin.h) with dlopen into the kernel registry. */
#ifndef HR_PLUGINS_H
#define HR_PLUGINS_H

#include <stdbool.h>
#include <stdio.h>

/* Loads the shared object file and adds its kernels to the registry (hr_kernel_add).
 * A file already loaded is not loaded twice. HR_OK, or HR_EUSAGE with a one-line
 * message "plugin FILE: RULE" in hr_errmsg: not a shared object (dlopen's reason), no
 * entry symbol headroom_plugin_v1, an entry that returns NULL, another ABI major
 * version, a descriptor or kernel struct smaller than ABI 1.0's, no kernels, a bad or
 * clashing kernel name. A plugin with a bad kernel keeps its good ones. */
int hr_plugin_load(const char *file);

/* Loads every plugin of HEADROOM_PLUGIN_PATH (a colon-separated list of files and of
 * directories, whose *.so load in name order) and then the files given (--plugin),
 * printing one line "headroom WHO: plugin FILE: RULE" to err per failure and going on
 * with the others. Returns HR_OK, or HR_EUSAGE when any failed. Loads once per process:
 * a second call returns the first one's status. */
int hr_plugins_load_all(const char *const *files, int nfiles, const char *who, FILE *err);

/* Whether a plugin's kernel was refused for a name that another kernel has: a built-in,
 * one left out of this build (blas), or another plugin's. The command then stops before
 * it runs anything (hr_parse), with that one line and exit 2: a user asking for the
 * name would otherwise measure the other kernel. */
bool hr_plugins_clashed(void);

/* The status of hr_plugins_load_all so far (HR_OK before any call); main makes it the
 * least exit status of the command. */
int hr_plugins_status(void);

#endif

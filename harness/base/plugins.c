/* plugins.c — the plugin loader: dlopen, the entry symbol, the ABI version and sizes,
 * then each kernel through the adapter (kernels/plugin_kernel.c) into the registry. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "headroom.h"
#include "headroom/plugin.h"
#include "plugin_kernel.h"
#include "plugins.h"

/* The hrp_plugin of ABI 1.0 ends with last_error; a smaller one is not a 1.x plugin. */
#define PLUGIN_MIN_SIZE (offsetof(hrp_plugin, last_error) + sizeof(((hrp_plugin *)0)->last_error))
#define MAX_KERNELS 256 /* per plugin: more is a corrupt descriptor */

/* The handles loaded, so that a file named twice (flag and path) loads once. */
static void **handles;
static int nhandles;
/* A kernel was refused for a name another kernel has (or a built-in left out of this
 * build has): a command asked for that name would run the other one. */
static bool clashed;

bool hr_plugins_clashed(void) { return clashed; }

static bool seen(void *h)
{
    for (int i = 0; i < nhandles; i++)
        if (handles[i] == h) return true;
    return false;
}

/* dlerror's text without the file name it repeats ("FILE: invalid ELF header"). */
static const char *dl_reason(const char *file)
{
    const char *e = dlerror();
    if (!e) return "unknown reason";
    size_t n = strlen(file);
    if (!strncmp(e, file, n) && !strncmp(e + n, ": ", 2)) e += n + 2;
    return e;
}

int hr_plugin_load(const char *file)
{
    struct stat sb;
    if (stat(file, &sb)) return hr_fail("plugin %s: no such file", file);
    if (!S_ISREG(sb.st_mode)) return hr_fail("plugin %s: not a regular file", file);
    /* dlopen searches the library path for a name without '/': a file given is a file. */
    char path[4096];
    snprintf(path, sizeof path, "%s%s", strchr(file, '/') ? "" : "./", file);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return hr_fail("plugin %s: not a loadable shared object (%.200s)", file, dl_reason(path));
    if (seen(h)) {
        dlclose(h); /* drops the reference this call added */
        return HR_OK;
    }
    dlerror();
    void *sym = dlsym(h, HRP_ENTRY);
    if (!sym) {
        dlclose(h);
        return hr_fail("plugin %s: no entry symbol %s (not a headroom plugin)", file, HRP_ENTRY);
    }
    hrp_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* ISO C has no object-to-function pointer cast */
    const hrp_plugin *d = entry();
    int st = HR_OK;
    if (!d) st = hr_fail("plugin %s: %s returned NULL", file, HRP_ENTRY);
    else if (d->abi_major != HRP_ABI_MAJOR)
        st = hr_fail("plugin %s: ABI major version %u, this headroom speaks %d (rebuild it against include/headroom/plugin.h)",
                     file, (unsigned)d->abi_major, HRP_ABI_MAJOR);
    else if (d->size < PLUGIN_MIN_SIZE)
        st = hr_fail("plugin %s: struct size too small: hrp_plugin.size %u < %zu (ABI 1.0)", file, (unsigned)d->size,
                     (size_t)PLUGIN_MIN_SIZE);
    else if (!d->nkernels || !d->kernels)
        st = hr_fail("plugin %s: declares no kernels", file);
    else if (d->nkernels > MAX_KERNELS)
        st = hr_fail("plugin %s: declares %u kernels (at most %d)", file, (unsigned)d->nkernels, MAX_KERNELS);
    void **nh = st ? NULL : realloc(handles, (size_t)(nhandles + 1) * sizeof *nh);
    if (!st && !nh) st = hr_fail("plugin %s: out of memory", file);
    if (st) {
        dlclose(h);
        return st;
    }
    handles = nh;
    handles[nhandles++] = h; /* never closed: its kernels stay in the registry */

    /* One origin and one hr_kernel per kernel, alive as long as the process. */
    char *fname = strdup(file);
    const char *lib = d->library ? d->library : "?", *ver = d->version ? d->version : "?";
    int first = HR_OK, added = 0;
    for (uint32_t i = 0; i < d->nkernels; i++) {
        hr_plugin_origin *o = calloc(1, sizeof *o);
        hr_kernel *k = calloc(1, sizeof *k);
        if (!o || !k || !fname) {
            free(o), free(k);
            if (!first) first = hr_fail("plugin %s: out of memory", file);
            break;
        }
        *o = (hr_plugin_origin){fname, lib, ver, d->abi_major, d->abi_minor, NULL, d->last_error};
        const char *why = hr_pk_make(d->kernels[i], o, k);
        st = why ? hr_fail("plugin %s: %s", file, why) : hr_kernel_add(k);
        if (st && !why && (hr_kernel_find(k->name) || hr_kernel_absent(k->name))) clashed = true;
        if (st) {
            free(o), free(k);
            if (!first) first = st; /* the first rule broken is the one reported */
            continue;
        }
        added++;
    }
    if (!added) free(fname);
    return first;
}

static int status;
static bool loaded;

int hr_plugins_status(void) { return status; }

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* One entry of HEADROOM_PLUGIN_PATH: a file, or a directory whose *.so load in name order. */
static void load_entry(const char *e, const char *who, FILE *err)
{
    struct stat sb;
    DIR *dir = stat(e, &sb) == 0 && S_ISDIR(sb.st_mode) ? opendir(e) : NULL;
    if (!dir) {
        if (hr_plugin_load(e)) fprintf(err, "headroom %s: %s (HEADROOM_PLUGIN_PATH)\n", who, hr_errmsg()), status = HR_EUSAGE;
        return;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dir))) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 3, ".so")) continue;
        char **nn = realloc(names, (n + 1) * sizeof *nn);
        if (!nn) break;
        names = nn;
        size_t m = strlen(e) + len + 2;
        if (!(names[n] = malloc(m))) break;
        snprintf(names[n++], m, "%s/%s", e, de->d_name);
    }
    closedir(dir);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (hr_plugin_load(names[i])) fprintf(err, "headroom %s: %s (HEADROOM_PLUGIN_PATH)\n", who, hr_errmsg()), status = HR_EUSAGE;
        free(names[i]);
    }
    free(names);
}

int hr_plugins_load_all(const char *const *files, int nfiles, const char *who, FILE *err)
{
    if (loaded) return status;
    loaded = true;
    const char *env = getenv("HEADROOM_PLUGIN_PATH");
    if (env && env[0]) {
        char *list = strdup(env);
        for (char *save = NULL, *e = list ? strtok_r(list, ":", &save) : NULL; e; e = strtok_r(NULL, ":", &save))
            load_entry(e, who, err);
        free(list);
    }
    for (int i = 0; i < nfiles; i++)
        if (hr_plugin_load(files[i])) fprintf(err, "headroom %s: %s\n", who, hr_errmsg()), status = HR_EUSAGE;
    return status;
}

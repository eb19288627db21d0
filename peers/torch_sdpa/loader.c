/* loader.c — the torch_sdpa plugin as headroom loads it (build/plugins/torch_sdpa.so): a
 * small C entry that opens the real kernel, torch_sdpa.libs/torch_sdpa_impl.so beside it
 * (torch_sdpa.cpp, linked with libtorch_cpu.so), with RTLD_DEEPBIND.
 *
 * Why: libtorch_cpu.so carries MKL inside and calls its BLAS/LAPACK through exported,
 * interposable names (sgemm_, sgemv_, ...). Opened the ordinary way, those calls bind to
 * the first definition in the global scope, which is the headroom executable's own
 * libopenblas.so.0: SDPA's fp32 GEMMs would run OpenBLAS, a library no PyTorch user gets
 * (seen with LD_DEBUG=bindings; it changed the measured time by 2x). DEEPBIND puts the
 * library's own scope first, so libtorch binds to its MKL as it does under Python. The
 * OpenMP runtime stays one: libtorch_cpu's NEEDED libgomp.so.1 is, by soname, the one
 * headroom already loaded, and it is in that scope too (tests/sh_peer_torch_sdpa.sh).
 * The sanitizer runtime refuses RTLD_DEEPBIND (it would abort the process): under it the
 * plugin declines to load, with one line. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "headroom/plugin.h"

#define IMPL_DIR "torch_sdpa.libs"
#define IMPL_SO "torch_sdpa_impl.so"
#define IMPL_ENTRY "torch_sdpa_plugin" /* not HRP_ENTRY: the impl is not a plugin by itself */

static const hrp_plugin *desc;

HRP_EXPORT const hrp_plugin *headroom_plugin_v1(void)
{
    if (desc) return desc;
    if (dlsym(RTLD_DEFAULT, "__asan_init")) {
        fprintf(stderr, "torch_sdpa: not loaded under AddressSanitizer (libtorch needs RTLD_DEEPBIND, which the "
                        "sanitizer runtime refuses)\n");
        return NULL;
    }
    Dl_info di;
    if (!dladdr(&desc, &di) || !di.dli_fname) {
        fprintf(stderr, "torch_sdpa: cannot find where this plugin was loaded from\n");
        return NULL;
    }
    const char *slash = strrchr(di.dli_fname, '/');
    int dir = slash ? (int)(slash - di.dli_fname) : 1;
    char path[4096];
    int n = snprintf(path, sizeof path, "%.*s/%s/%s", dir, slash ? di.dli_fname : ".", IMPL_DIR, IMPL_SO);
    if (n < 0 || (size_t)n >= sizeof path) {
        fprintf(stderr, "torch_sdpa: path of %s too long\n", IMPL_SO);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        fprintf(stderr, "torch_sdpa: cannot load libtorch: %.300s\n", dlerror());
        return NULL;
    }
    void *sym = dlsym(h, IMPL_ENTRY);
    if (!sym) {
        fprintf(stderr, "torch_sdpa: %s has no %s\n", path, IMPL_ENTRY);
        dlclose(h);
        return NULL;
    }
    hrp_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* ISO C has no object-to-function pointer cast */
    desc = entry();                     /* h stays open as long as the process runs */
    return desc;
}

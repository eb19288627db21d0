/* fuzz_models.c — libFuzzer target: the model presets reader (hr_models_load, ini.c) on
 * arbitrary bytes; every accepted preset must satisfy what the loader promises. */
#include <stdint.h>
#include <stdlib.h>

#include "headroom.h"
#include "memfile.h"
#include "models.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (hr_memfile(data, size, path, sizeof path)) return 0;
    hr_models m;
    int st = hr_models_load(path, &m);
    if (st != HR_OK && st != HR_EUSAGE) abort();
    if (st == HR_EUSAGE && (!hr_errmsg()[0] || m.n)) abort();
    for (int i = 0; st == HR_OK && i < m.n; i++) {
        const hr_model *x = &m.v[i];
        if (x->layers < 1 || x->d_model < 1 || x->heads < 1 || x->kv_heads < 1 ||
            x->d_head < 1 || x->heads % x->kv_heads || x->context < 0)
            abort();
        if (hr_models_find(&m, x->name) == NULL) abort();
    }
    hr_models_free(&m);
    return 0;
}

/* fuzz_config.c — libFuzzer target: the sweep config parser (hr_config_parse, ini.c) on
 * arbitrary bytes, then the derived point count; must return a status, never crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The parser takes a C string, as hr_config_load hands it: bytes up to a NUL. */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    static hr_sweep_config c; /* ~20 KB: keep it off the fuzzer's stack */
    int st = hr_config_parse(text, "fuzz.ini", &c);
    if (st != HR_OK && st != HR_EUSAGE) abort();
    if (st == HR_EUSAGE && !hr_errmsg()[0]) abort(); /* every refusal says why */
    if (st == HR_OK) {
        /* What the parser promised: counts within the arrays, a bounded product. */
        if (c.nkernels < 1 || c.nkernels > HR_CFG_MAXKERNELS) abort();
        if (c.seq.n < 1 || c.seq.n > HR_CFG_MAXV || c.nkv < 1 || c.nkv > HR_CFG_MAXV) abort();
        if (hr_config_points(&c) > HR_CFG_MAXPOINTS) abort();
    }
    free(text);
    return 0;
}

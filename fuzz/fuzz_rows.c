/* fuzz_rows.c — libFuzzer target: what sweep --resume reads back from a torn or edited
 * rows.jsonl, hr_result_from_json on each line, then the round trip of what it accepts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "headroom.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        cJSON *o = cJSON_ParseWithLength(p, len);
        if (o) {
            static hr_result r; /* large: keep it off the fuzzer's stack */
            const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "result");
            int st = hr_result_from_json(res ? res : o, &r);
            if (st != HR_OK && st != HR_EUSAGE) abort();
            if (st == HR_EUSAGE && !hr_errmsg()[0]) abort();
            if (st == HR_OK) cJSON_Delete(hr_result_to_json(&r)); /* what it accepted writes back */
            cJSON_Delete(o);
        }
        p += len + 1;
    }
    return 0;
}

/* fuzz_json.c — libFuzzer target: the one whole-file reader (hr_read_file: NUL and bad
 * UTF-8 refused), the one JSON-document parser (hr_json_parse: trailing data refused),
 * the JSON writer (hr_json_text: always UTF-8, parses back), the ceilings loader, and
 * the markdown/CSV escapers on arbitrary bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "files.h"
#include "headroom.h"
#include "memfile.h"

/* Whether md (an escaped markdown cell) holds a raw line break or an unescaped '|'. */
static int md_breaks_row(const char *md)
{
    for (const char *s = md; *s; s++) {
        if (*s == '\n' || *s == '\r') return 1;
        if (*s == '|' && (s == md || s[-1] != '\\')) return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    if (hr_memfile(data, size, path, sizeof path)) return 0;
    size_t len = 0;
    char *text = hr_read_file(path, HR_CAP_RESULTS, "fuzz file", &len);
    if (!text) {
        if (!hr_errmsg()[0]) abort();
        /* refused: it held a NUL or bytes that are not UTF-8 */
        if (!memchr(data, 0, size) && hr_utf8_invalid((const char *)data, size) == size) abort();
    } else {
        if (len != size || memcmp(text, data, size) || hr_utf8_invalid(text, len) != len) abort();
        cJSON *doc = hr_json_parse(text, len, path);
        if (!doc && !hr_errmsg()[0]) abort();
        if (doc) {
            /* what headroom writes parses back as one document, as valid UTF-8 */
            for (int pretty = 0; pretty < 2; pretty++) {
                char *out = hr_json_text(doc, pretty);
                if (!out) abort();
                size_t n = strlen(out);
                if (hr_utf8_invalid(out, n) != n) abort();
                cJSON *back = hr_json_parse(out, n, "written");
                if (!back) abort();
                cJSON_Delete(back);
                free(out);
            }
            cJSON_Delete(doc);
        }
        /* the escapers keep a table row one row */
        char *md = NULL;
        size_t mdlen = 0;
        FILE *m = open_memstream(&md, &mdlen);
        if (m) {
            for (int mode = HR_MD_PLAIN; mode <= HR_MD_CODE; mode++) {
                rewind(m);
                hr_md_cell(m, text, (hr_md_mode)mode);
                fputc(0, m);
                fflush(m);
                if (md_breaks_row(md)) abort();
            }
            hr_csv_field(m, text);
            fclose(m);
            free(md);
        }
        free(text);
    }
    hr_ceilings c;
    if (hr_ceilings_load(path, &c) != HR_OK && !hr_errmsg()[0]) abort();
    return 0;
}

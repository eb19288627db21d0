/* test_files.c — the one reader's UTF-8 rule, the one JSON-document parser and writer,
 * the escapers and the atomic writer's refusals (harness/base/files.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "headroom.h"
#include "t.h"

HR_TEST(utf8_rfc3629)
{
    static const struct {
        const char *s;
        size_t bad; /* offset of the first invalid byte; strlen(s) when valid */
    } cases[] = {
        {"plain ascii", 11},
        {"caf\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80", 14}, /* 2, 3 and 4 bytes          */
        {"caf\xe9", 3},                                     /* Latin-1                    */
        {"\xc0\xaf", 0},                                    /* overlong '/'               */
        {"\xe0\x80\xaf", 0},                                /* overlong, 3 bytes          */
        {"a\xed\xa0\x80", 1},                               /* surrogate U+D800           */
        {"\xf4\x90\x80\x80", 0},                            /* past U+10FFFF              */
        {"ok\xe2\x98", 2},                                  /* cut off                    */
        {"\x80", 0},                                        /* a lone continuation byte   */
        {"\xef\xbf\xbd", 3},                                /* U+FFFD itself              */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i].s);
        size_t want = cases[i].bad == strlen(cases[i].s) ? n : cases[i].bad;
        CHECKF(hr_utf8_invalid(cases[i].s, n) == want, "case %zu: %zu, expected %zu", i,
               hr_utf8_invalid(cases[i].s, n), want);
    }
}

HR_TEST(copy_text_cuts_at_a_character)
{
    char b[8];
    CHECK(hr_copy_text(b, sizeof b, "avx512") == 0 && !strcmp(b, "avx512"));
    CHECK(hr_copy_text(b, sizeof b, "1234567") == 0 && !strcmp(b, "1234567"));
    CHECK(hr_copy_text(b, sizeof b, "12345678") == 1 && !strcmp(b, "1234567"));
    /* "P·V" is P, 0xC2 0xB7, V: a cut inside the middle dot drops all of it. */
    CHECK(hr_copy_text(b, sizeof b, "abcde" "P\xC2\xB7V") == 1 && !strcmp(b, "abcdeP"));
    CHECK(hr_copy_text(b, sizeof b, "abcdP\xC2\xB7V") == 1 && !strcmp(b, "abcdP\xC2\xB7"));
    CHECK(hr_utf8_invalid(b, strlen(b)) == strlen(b));
    char one[1];
    CHECK(hr_copy_text(one, sizeof one, "x") == 1 && one[0] == 0);
}

HR_TEST(json_one_document_per_file)
{
    const char *two = "{\"a\": 1}\n\n{\"b\": 2}\n";
    CHECK(hr_json_parse(two, strlen(two), "two.json") == NULL);
    CHECKF(strstr(hr_errmsg(), "two.json:3: data after the end of the JSON document"), "%s", hr_errmsg());
    const char *ws = "  {\"a\": [1, 2]}\r\n\t \n";
    cJSON *d = hr_json_parse(ws, strlen(ws), "ws.json");
    CHECK(d != NULL);
    cJSON_Delete(d);
    CHECK(hr_json_parse("", 0, "e.json") == NULL && strstr(hr_errmsg(), "empty file"));
    CHECK(hr_json_parse("{\"a\": [", 7, "t.json") == NULL && strstr(hr_errmsg(), "JSON ends before"));
}

HR_TEST(json_text_is_always_utf8_and_escaped)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", "a\nb\x01|caf\xe9");
    char *t = hr_json_text(o, 0);
    CHECK(t != NULL);
    CHECKF(t && strcmp(t, "{\"name\":\"a\\nb\\u0001|caf\xef\xbf\xbd\"}") == 0, "%s", t ? t : "(null)");
    cJSON *back = t ? hr_json_parse(t, strlen(t), "back") : NULL;
    CHECK(back != NULL);
    cJSON_Delete(back);
    free(t);
    cJSON_Delete(o);
}

/* s written by fn into a buffer. */
static void escaped(char *buf, size_t len, const char *s, int mode, int csv)
{
    FILE *f = fmemopen(buf, len, "w");
    if (!f) return;
    if (csv) hr_csv_field(f, s);
    else hr_md_cell(f, s, (hr_md_mode)mode);
    fclose(f);
}

HR_TEST(markdown_and_csv_escapes)
{
    char b[128];
    escaped(b, sizeof b, "a\nb|c\td\x02_e", HR_MD_PLAIN, 0);
    CHECKF(!strcmp(b, "a\\nb\\|c\\td\\x02_e"), "%s", b);
    escaped(b, sizeof b, "x_y*z", HR_MD_TEXT, 0);
    CHECKF(!strcmp(b, "x\\_y\\*z"), "%s", b);
    escaped(b, sizeof b, "n`|m", HR_MD_CODE, 0);
    CHECKF(!strcmp(b, "`n'\\|m`"), "%s", b);
    escaped(b, sizeof b, "plain", 0, 1);
    CHECKF(!strcmp(b, "plain"), "%s", b);
    escaped(b, sizeof b, "a,\"b\"\nc", 0, 1);
    CHECKF(!strcmp(b, "\"a,\"\"b\"\"\nc\""), "%s", b);
}

HR_TEST(atomic_write_never_replaces_a_non_regular_file)
{
    CHECK(hr_write_atomic("/dev/null", "x") == HR_EUSAGE);
    CHECKF(strstr(hr_errmsg(), "/dev/null: exists and is not a regular file"), "%s", hr_errmsg());
    CHECK(hr_write_atomic("/tmp", "x") == HR_EUSAGE && strstr(hr_errmsg(), "a directory"));
    CHECK(hr_mkdirs("/dev/null") == HR_EUSAGE && strstr(hr_errmsg(), "not a directory"));
    CHECK(hr_read_file("/dev/zero", HR_CAP_SMALL, "wisdom file", NULL) == NULL);
    CHECKF(!strcmp(hr_errmsg(), "/dev/zero: not a regular file (a wisdom file must be one)"), "%s", hr_errmsg());
}

HR_TEST(files_fmt_ns_readable_units)
{
    static const struct {
        double ns;
        const char *want;
    } cases[] = {{1234567, "1.235 ms"}, {12, "12 ns"}, {2.5e9, "2.5 s"}, {999.9, "999.9 ns"}, {0, "0 ns"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        hr_fmt_ns(cases[i].ns, buf, sizeof buf);
        CHECKF(!strcmp(buf, cases[i].want), "%g ns: '%s', want '%s'", cases[i].ns, buf, cases[i].want);
    }
}

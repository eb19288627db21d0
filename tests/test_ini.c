/* test_ini.c — the INI reader (ini.c): inih's rules, lines of any length. */
#include <stdlib.h>
#include <string.h>

#include "ini.h"
#include "t.h"

/* Each item as "LINE SECTION NAME=VALUE" (+ for a continuation, [S] for a section). */
typedef struct {
    char out[16384];
    size_t len, longest;
    int stop_at;
} seen;

static int collect(void *user, const hr_ini_item *it)
{
    seen *s = user;
    size_t room = sizeof s->out - s->len;
    int w = !it->name ? snprintf(s->out + s->len, room, "%d [%s]\n", it->line, it->section)
                      : snprintf(s->out + s->len, room, "%d %s %s%s=%.64s\n", it->line, it->section,
                                 it->continued ? "+" : "", it->name, it->value);
    if (it->name && strlen(it->value) > s->longest) s->longest = strlen(it->value);
    if (w > 0) s->len += (size_t)w < room ? (size_t)w : room - 1;
    return s->stop_at && it->line >= s->stop_at;
}

static int parse(const char *text, seen *s)
{
    char *copy = strdup(text);
    memset(s, 0, sizeof *s);
    int rc = hr_ini_parse(copy, collect, s);
    free(copy);
    return rc;
}

HR_TEST(ini_rules)
{
    seen s;
    CHECK(parse("\xEF\xBB\xBF[a]\nk = v ; note\n; c\n# c\n\n  more ;x\nj:w;not\n[b]\nx=\n", &s) == 0);
    CHECK(!strcmp(s.out, "1 [a]\n2 a k=v\n6 a +k=more\n7 a j=w;not\n8 [b]\n9 b x=\n"));
    CHECK(parse("k = ;c\n", &s) == 0); /* a comment right after '=' leaves the value empty */
    CHECK(!strcmp(s.out, "1  k=\n"));
    CHECK(parse("[a]\n  k = v\n", &s) == 0); /* no key before it: an indented line is a key */
    CHECK(!strcmp(s.out, "1 [a]\n2 a k=v\n"));
    CHECK(parse("[a]\nno equals here\n", &s) == 2);
    CHECK(parse("[a\n", &s) == 1);
    CHECK(parse("k=1\r\nj=2", &s) == 0 && !strcmp(s.out, "1  k=1\n2  j=2\n"));
    s.stop_at = 2;
    char *copy = strdup("a=1\nb=2\nc=3\n");
    CHECK(hr_ini_parse(copy, collect, &s) == -1 && !strstr(s.out, "c=3"));
    free(copy);
}

HR_TEST(ini_any_length)
{
    const size_t n = 100000;
    char *text = malloc(n + 16);
    memcpy(text, "k = ", 4);
    memset(text + 4, 'x', n);
    strcpy(text + 4 + n, "\nj = 1\n");
    seen s;
    memset(&s, 0, sizeof s);
    CHECK(hr_ini_parse(text, collect, &s) == 0);
    CHECK(strstr(s.out, "2  j=1\n") != NULL);
    CHECK(s.longest == n); /* the long value came whole */
    free(text);
}

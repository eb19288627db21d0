/* ini.c — the INI reader of sweep configs and model presets: inih's rules, no line limit. */
#include <ctype.h>
#include <string.h>

#include "ini.h"

static char *lskip(char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

static char *rstrip(char *s)
{
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
    return s;
}

/* The first of `chars` in s, or an inline comment (';' after a blank), or the end. */
static char *find_or_comment(char *s, const char *chars)
{
    bool was_space = false;
    while (*s && (!chars || !strchr(chars, *s)) && !(was_space && *s == ';')) {
        was_space = isspace((unsigned char)*s);
        s++;
    }
    return s;
}

int hr_ini_parse(char *text, int (*fn)(void *user, const hr_ini_item *it), void *user)
{
    const char *section = "", *prev = NULL;
    if (!strncmp(text, "\xEF\xBB\xBF", 3)) text += 3;
    for (int lineno = 1; *text; lineno++) {
        char *line = text, *nl = strchr(text, '\n');
        if (nl) *nl = 0, text = nl + 1;
        else text += strlen(text);
        char *start = lskip(rstrip(line));
        if (!*start || *start == ';' || *start == '#') continue;
        hr_ini_item it = {.line = lineno, .section = section};
        if (prev && start > line) { /* an indented line: the previous key's value goes on */
            char *end = find_or_comment(start, NULL);
            *end = 0;
            it.name = prev, it.value = rstrip(start), it.continued = true;
        } else if (*start == '[') {
            char *end = find_or_comment(start + 1, "]");
            if (*end != ']') return lineno;
            *end = 0;
            it.section = section = start + 1, prev = NULL;
        } else {
            char *end = find_or_comment(start, "=:");
            if (*end != '=' && *end != ':') return lineno;
            *end = 0;
            char *value = end + 1;
            *find_or_comment(value, NULL) = 0; /* before the blanks go: "k = ;c" is empty */
            it.name = prev = rstrip(start), it.value = rstrip(lskip(value));
        }
        if (fn(user, &it)) return -1;
    }
    return 0;
}

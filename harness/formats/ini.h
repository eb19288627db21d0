/* ini.h — the INI reader of sweep configs and model presets: lines of any length, inih's
 * rules otherwise. */
#ifndef HR_INI_H
#define HR_INI_H

#include <stdbool.h>

/* One key = value line, one indented line continuing the key before it, or a section line
 * (name NULL). */
typedef struct {
    int line;            /* 1-based line number                                        */
    const char *section; /* the section it is in ("" before any [section] line)         */
    const char *name;    /* the key (for a continuation line, the key it continues);
                          * NULL for a "[section]" line, section then being the new one */
    char *value;         /* the value, without blanks around it or an inline comment    */
    bool continued;      /* an indented line continuing `name`'s value                  */
} hr_ini_item;

/* Parses text (changed in place: lines end at their newline, there is no limit on their
 * length) by inih's rules as Debian builds it: a UTF-8 byte-order mark at the start is
 * skipped; blank lines and lines starting with ';' or '#' are comments; "[name]" starts
 * a section (fn with name NULL); "key = value" or "key : value" calls fn, the value ending at a ';' that
 * follows a blank (an inline comment); a line that starts with a blank after a key line
 * continues that key's value (fn with continued set). fn returns 0 to go on.
 * Returns 0; the line number of the first line that is none of these (a "[" without "]",
 * a line without '=' or ':'); or -1 when fn stopped it. */
int hr_ini_parse(char *text, int (*fn)(void *user, const hr_ini_item *it), void *user);

#endif

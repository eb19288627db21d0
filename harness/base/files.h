/* files.h — the one way headroom reads and writes whole files: a capped, checked reader, atomic writes, mkdir -p. */
#ifndef HR_FILES_H
#define HR_FILES_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* Size caps per kind of file: no real file of the kind comes near its cap, so a larger
 * one is refused before it is read rather than allocated blindly. */
#define HR_CAP_CONFIG ((size_t)1 << 20)   /* sweep configs, model presets      */
#define HR_CAP_SMALL ((size_t)64 << 20)   /* ceilings, wisdom                  */
#define HR_CAP_RESULTS ((size_t)1 << 30)  /* results.json, rows.jsonl, CSVs    */

/* Reads the whole regular file at path (at most cap bytes) into a NUL-terminated buffer
 * the caller frees; *len (may be NULL) gets its length. Refused, with a one-line message
 * naming the file (hr_errmsg) and NULL returned: a missing or unreadable file, a
 * directory or other non-regular file, a file over cap, a read error, and text holding
 * a NUL byte or a byte sequence that is not UTF-8 (reported as FILE:LINE). `what` names the kind in messages ("config",
 * "results file"). */
char *hr_read_file(const char *path, size_t cap, const char *what, size_t *len);
/* Offset of the first byte of text that is not well-formed UTF-8 (RFC 3629: no overlong
 * forms, surrogates or code points past U+10FFFF), or len if all of it is. */
size_t hr_utf8_invalid(const char *text, size_t len);
/* Copies text into dst (n > 0 bytes, NUL-terminated); where it does not fit it is cut at
 * a character boundary, never inside a UTF-8 sequence. Returns 1 when it was cut. */
/* The first line of path in buf (len bytes), without its newline; 0 when it cannot be read
 * (sysfs and cgroup files: one short line each). */
int hr_read_first_line(const char *path, char *buf, size_t len);
int hr_copy_text(char *dst, size_t n, const char *text);

/* The one JSON-document parser: text (len bytes) must hold exactly one JSON value, white
 * space around it. NULL with a message naming path: empty, truncated (ends inside a
 * string or bracket), invalid (line and column), or data after the document (path:line). */
cJSON *hr_json_parse(const char *text, size_t len, const char *path);
/* hr_read_file + hr_json_parse. */
cJSON *hr_read_json(const char *path, size_t cap, const char *what);

/* Writes text to path atomically (temp file in the same directory, fsync, rename),
 * making the directory first if needed. HR_OK, or HR_EUSAGE with a message naming the
 * file; on error the old file is left as it was. A path that exists and is not a
 * regular file (a directory, /dev/null, a fifo) is refused, never replaced. */
int hr_write_atomic(const char *path, const char *text);
/* doc as JSON text (indented when pretty) the caller frees, or NULL when out of memory:
 * strings escaped by cJSON, and any byte that is not UTF-8 (a path, a host name) written
 * as U+FFFD, so every JSON headroom writes is valid JSON. Every writer goes through it. */
char *hr_json_text(const cJSON *doc, int pretty);
/* Member k of object o (NULL-safe): as a string, def when absent or not a string; as a
 * number, def when absent or neither a number nor a bool (true reads 1). */
const char *hr_json_str(const cJSON *o, const char *k, const char *def);
double hr_json_num(const cJSON *o, const char *k, double def);
/* Writes doc, indented and ending in a newline, to path atomically. */
int hr_write_json_atomic(const char *path, const cJSON *doc);
/* How hr_md_cell writes a string into markdown. */
typedef enum {
    HR_MD_PLAIN, /* as is but for '|', control characters and <, >, & (as entities)   */
    HR_MD_TEXT,  /* also the characters markdown treats specially backslash-escaped      */
    HR_MD_CODE,  /* inside a code span (a backquote becomes ')                           */
} hr_md_mode;
/* Writes s into markdown, in a table cell or not: '|' escaped (GitHub splits cells first,
 * even in code spans) and every control character written as a visible escape (\n, \t,
 * \xHH), so no name breaks a row or a table. */
void hr_md_cell(FILE *f, const char *s, hr_md_mode mode);
/* Writes s as one CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma,
 * a quote or a line break. */
void hr_csv_field(FILE *f, const char *s);
/* A time of ns nanoseconds in readable units into buf: "1.234 ms" (s, ms, us or ns,
 * 4 significant digits). */
void hr_fmt_ns(double ns, char *buf, size_t len);
/* Text as HTML: <, >, &, " and ' as entities, a control character other than tab and
 * newline as U+FFFD. */
void hr_html_put(FILE *f, const char *s);
/* mkdir -p. HR_OK, or HR_EUSAGE with a message naming the directory (also when path
 * exists and is not a directory). */
int hr_mkdirs(const char *path);

#endif

/* files.c — the one whole-file reader (regular files, a size cap per kind, no NUL, UTF-8), the one JSON-document parser, and the atomic writers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "headroom.h"

/* 1-based line of offset off in text. */
static long line_of(const char *text, size_t off)
{
    long line = 1;
    for (size_t i = 0; i < off; i++) line += text[i] == '\n';
    return line;
}

size_t hr_utf8_invalid(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        /* n continuation bytes; lo/hi bound the first of them (no overlong forms, no
         * surrogates U+D800..DFFF, nothing past U+10FFFF: RFC 3629). */
        size_t n;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) n = 1;
        else if (c >= 0xE0 && c <= 0xEF) n = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        else if (c >= 0xF0 && c <= 0xF4) n = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        else return i;
        if (len - i <= n || s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t k = 2; k <= n; k++)
            if ((s[i + k] & 0xC0) != 0x80) return i;
        i += n + 1;
    }
    return len;
}

int hr_copy_text(char *dst, size_t n, const char *text)
{
    size_t len = strlen(text), cut = len < n ? len : n - 1;
    while (cut < len && cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80) cut--;
    memcpy(dst, text, cut);
    dst[cut] = 0;
    return cut < len;
}

char *hr_read_file(const char *path, size_t cap, const char *what, size_t *len)
{
    /* O_NONBLOCK: opening a fifo with no writer would wait for one forever; it is
     * refused below like any file that is not regular. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        hr_fail("%s: cannot read %s (%s)", path, what, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        hr_fail("%s: not a regular file (a %s must be one)", path, what);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        hr_fail("%s: cannot read %s (%s)", path, what, strerror(errno));
        return NULL;
    }
    if ((unsigned long long)st.st_size > cap) {
        fclose(f);
        hr_fail("%s: %lld bytes, more than a %s can be (%zu)", path, (long long)st.st_size, what, cap);
        return NULL;
    }
    /* The size is a hint (a file can grow while read): read up to cap + 1 and judge. */
    size_t size = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(size + 1);
    while (buf) {
        n += fread(buf + n, 1, size - n, f);
        if (n < size || ferror(f)) break;
        if (n > cap) break;
        size_t nsize = size * 2 > cap + 1 ? cap + 1 : size * 2;
        char *nb = realloc(buf, nsize + 1);
        if (!nb) free(buf);
        buf = nb;
        size = nsize;
    }
    const char *why = !buf ? "out of memory" : ferror(f) ? "read error" : NULL;
    fclose(f);
    if (why) {
        free(buf);
        hr_fail("%s: cannot read %s (%s)", path, what, why);
        return NULL;
    }
    if (n > cap) {
        free(buf);
        hr_fail("%s: more than a %s can be (%zu bytes)", path, what, cap);
        return NULL;
    }
    buf[n] = 0;
    const char *nul = memchr(buf, 0, n);
    if (nul) {
        long line = line_of(buf, (size_t)(nul - buf));
        free(buf);
        hr_fail("%s:%ld: NUL byte in a %s (binary file?)", path, line, what);
        return NULL;
    }
    size_t bad = hr_utf8_invalid(buf, n);
    if (bad < n) {
        long line = line_of(buf, bad);
        unsigned byte = (unsigned char)buf[bad];
        free(buf);
        hr_fail("%s:%ld: invalid UTF-8 in a %s (byte 0x%02x; text files must be UTF-8)", path, line, what, byte);
        return NULL;
    }
    if (len) *len = n;
    return buf;
}

/* Whether text ends inside a string or with a bracket left open: a JSON document cut
 * off before its end (an interrupted write). */
static int json_unclosed(const char *text, size_t len)
{
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_str) {
            if (ch == '\\') i++;
            else if (ch == '"') in_str = 0;
        } else if (ch == '"') {
            in_str = 1;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            depth--;
        }
    }
    return in_str || depth > 0;
}

/* Line and column (1-based) of offset off in text. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

cJSON *hr_json_parse(const char *text, size_t len, const char *path)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    if (root) {
        /* One document per file: anything but white space after it (a second results
         * file appended to the first) is refused, never silently ignored. */
        while (off < len && text[off] && strchr(" \t\r\n", text[off])) off++;
        if (off == len) return root;
        cJSON_Delete(root);
        int line, col;
        line_col(text, off, &line, &col);
        hr_fail("%s:%d: data after the end of the JSON document (column %d; two files concatenated?)", path, line, col);
        return NULL;
    }
    int line, col;
    line_col(text, off, &line, &col);
    size_t blank = 0;
    while (blank < len && strchr(" \t\r\n", text[blank]) && text[blank]) blank++;
    if (blank == len)
        hr_fail("%s: empty file, not JSON", path);
    else if (json_unclosed(text, len))
        hr_fail("%s: JSON ends before its closing brackets (truncated file?)", path);
    else
        hr_fail("%s: invalid JSON at line %d, column %d", path, line, col);
    return NULL;
}

cJSON *hr_read_json(const char *path, size_t cap, const char *what)
{
    size_t len = 0;
    char *text = hr_read_file(path, cap, what, &len);
    if (!text) return NULL;
    cJSON *root = hr_json_parse(text, len, path);
    free(text);
    return root;
}

int hr_write_atomic(const char *path, const char *text)
{
    /* Only a regular file (or nothing) is replaced: rename over /dev/null, a fifo or a
     * directory would swap a device node for a file, or fail half-way. */
    struct stat sb;
    if (!stat(path, &sb) && !S_ISREG(sb.st_mode))
        return hr_fail("%s: exists and is not a regular file (%s); not replaced", path,
                       S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a fifo" : "a device or socket");
    /* The file's directory is made first (results/<machine>/ may not exist yet). */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        int st = hr_mkdirs(dir);
        if (st) return st;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return hr_fail("%s: cannot write (%s)", path, strerror(errno));
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fflush(f) != 0;
    bad |= fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        unlink(tmp);
        return hr_fail("%s: cannot write (%s)", path, strerror(errno));
    }
    return HR_OK;
}

const char *hr_json_str(const cJSON *o, const char *k, const char *def)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(x) ? x->valuestring : def;
}

double hr_json_num(const cJSON *o, const char *k, double def)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsNumber(x)) return x->valuedouble;
    if (cJSON_IsBool(x)) return cJSON_IsTrue(x);
    return def;
}

char *hr_json_text(const cJSON *doc, int pretty)
{
    char *text = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
    if (!text) return NULL;
    size_t len = strlen(text), bad = hr_utf8_invalid(text, len);
    if (bad == len) return text;
    /* cJSON escapes control characters and quotes but copies bytes >= 0x80 as they are:
     * each byte of a sequence that is not UTF-8 becomes U+FFFD, so the text is JSON for
     * every parser (Python's json, jq, compare.py). At most 3 bytes for 1. */
    char *out = malloc(3 * len + 1);
    if (out) {
        size_t o = 0;
        for (size_t i = 0; i < len;) {
            size_t ok = hr_utf8_invalid(text + i, len - i);
            memcpy(out + o, text + i, ok);
            o += ok, i += ok;
            if (i < len) memcpy(out + o, "\xef\xbf\xbd", 3), o += 3, i++;
        }
        out[o] = 0;
    }
    cJSON_free(text);
    return out;
}

int hr_write_json_atomic(const char *path, const cJSON *doc)
{
    char *text = hr_json_text(doc, 1);
    if (!text) return hr_fail("%s: out of memory formatting JSON", path);
    size_t n = strlen(text);
    char *nl = realloc(text, n + 2);
    if (nl) {
        text = nl;
        memcpy(text + n, "\n", 2);
    }
    int st = hr_write_atomic(path, text);
    free(text);
    return st;
}

void hr_md_cell(FILE *f, const char *s, hr_md_mode mode)
{
    const int code = mode == HR_MD_CODE;
    if (code) fputc('`', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\n') fputs("\\n", f);
        else if (ch == '\t') fputs("\\t", f);
        else if (ch < 0x20 || ch == 0x7f) fprintf(f, "\\x%02x", ch);
        else if (ch == '|') fputs("\\|", f);
        else if (code) fputc(ch == '`' ? '\'' : ch, f);
        else if (ch == '<') fputs("&lt;", f); /* never raw HTML in a rendered table */
        else if (ch == '>') fputs("&gt;", f);
        else if (ch == '&') fputs("&amp;", f);
        else {
            if (mode == HR_MD_TEXT && strchr("\\`*_<>[]#", ch)) fputc('\\', f);
            fputc(ch, f);
        }
    }
    if (code) fputc('`', f);
}

void hr_html_put(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '<') fputs("&lt;", f);
        else if (*p == '>') fputs("&gt;", f);
        else if (*p == '&') fputs("&amp;", f);
        else if (*p == '"') fputs("&quot;", f);
        else if (*p == '\'') fputs("&#39;", f);
        else if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f) fputs("&#xFFFD;", f);
        else fputc(*p, f);
    }
}

void hr_fmt_ns(double ns, char *buf, size_t len)
{
    static const struct {
        double ns;
        const char *unit;
    } u[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    size_t i = 0;
    while (i + 1 < sizeof u / sizeof u[0] && ns < u[i].ns) i++;
    snprintf(buf, len, "%.4g %s", ns / u[i].ns, u[i].unit);
}

void hr_csv_field(FILE *f, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int hr_mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) return hr_fail("%s: cannot create (%s)", buf, strerror(errno));
        *s = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST) return hr_fail("%s: cannot create (%s)", buf, strerror(errno));
    struct stat sb; /* EEXIST: there already, but a directory? (--out /dev/null, a file) */
    if (stat(buf, &sb) || !S_ISDIR(sb.st_mode)) return hr_fail("%s: exists and is not a directory", buf);
    return HR_OK;
}

int hr_read_first_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = 0;
    return ok;
}

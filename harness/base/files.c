/* files.c — the one whole-file reader (regular files, a size cap per kind, no NUL) and the atomic writers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "headroom.h"

char *hr_read_file(const char *path, size_t cap, const char *what, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        hr_fail("%s: cannot read %s (%s)", path, what, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        hr_fail("%s: not a regular file (a %s must be one)", path, what);
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
        long line = 1;
        for (const char *s = buf; s < nul; s++) line += *s == '\n';
        free(buf);
        hr_fail("%s:%ld: NUL byte in a %s (binary file?)", path, line, what);
        return NULL;
    }
    if (len) *len = n;
    return buf;
}

int hr_write_atomic(const char *path, const char *text)
{
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

int hr_write_json_atomic(const char *path, const cJSON *doc)
{
    char *text = cJSON_Print(doc);
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
    return HR_OK;
}

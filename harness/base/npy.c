/* npy.c — NumPy .npy format 1.0 for float32 C-order arrays (numpy.lib.format). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"

int hr_npy_write_view(const char *path, hr_cview v, int batch, int heads, int rows, int d)
{
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d, %d, %d), }",
                     batch, heads, rows, d);
    /* Magic (6) + version (2) + length (2) + header, padded with spaces and a final
     * newline so the data starts on a 64-byte boundary. */
    int total = (10 + n + 1 + 63) / 64 * 64;
    int hlen = total - 10;
    memset(hdr + n, ' ', (size_t)(hlen - n));
    hdr[hlen - 1] = '\n';
    struct stat sb;
    if (!stat(path, &sb) && !S_ISREG(sb.st_mode))
        return hr_fail("--save: %s exists and is not a regular file; not replaced", path);
    FILE *f = fopen(path, "wb");
    if (!f) return hr_fail("--save: cannot write %s (%s)", path, strerror(errno));
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 255),
                             (unsigned char)(hlen >> 8)};
    int bad = fwrite(pre, 1, 10, f) != 10;
    bad |= fwrite(hdr, 1, (size_t)hlen, f) != (size_t)hlen;
    for (int b = 0; b < batch; b++)
        for (int h = 0; h < heads; h++)
            for (int r = 0; r < rows && !bad; r++)
                bad |= fwrite(hr_crow(v, b, h, r), sizeof(float), (size_t)d, f) != (size_t)d;
    bad |= fclose(f) != 0;
    if (bad) return hr_fail("--save: error writing %s", path);
    return HR_OK;
}

int hr_npy_read(const char *path, float **data, long shape[4], int *ndim)
{
    *data = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a fifo must not block the open */
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd);
        return hr_fail("%s: cannot open (%s)", path, strerror(e));
    }
    unsigned char pre[10];
    char hdr[4096];
    int st = HR_OK;
    /* A regular file, so its size is known: the header says how much data follows, and
     * the file must hold exactly that (nothing read from an endless device). */
    struct stat sb;
    if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode)) {
        st = hr_fail("%s: not a regular file (a .npy file must be one)", path);
        goto out;
    }
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) || pre[6] != 1) {
        st = hr_fail("%s: not a .npy version 1.0 file", path);
        goto out;
    }
    size_t hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    if (hlen >= sizeof hdr || fread(hdr, 1, hlen, f) != hlen) {
        st = hr_fail("%s: truncated header", path);
        goto out;
    }
    hdr[hlen] = 0;
    if (hlen == 0 || hdr[hlen - 1] != '\n' || memchr(hdr, 0, hlen)) {
        st = hr_fail("%s: header of %zu bytes does not end in a newline", path, hlen);
        goto out;
    }
    if (!strstr(hdr, "'descr': '<f4'") || !strstr(hdr, "'fortran_order': False")) {
        st = hr_fail("%s: only little-endian float32 C-order arrays are read", path);
        goto out;
    }
    const char *s = strstr(hdr, "'shape': (");
    if (!s) {
        st = hr_fail("%s: no shape in header", path);
        goto out;
    }
    s += 10;
    *ndim = 0;
    size_t count = 1;
    while (*s && *s != ')') {
        char *end;
        long x = strtol(s, &end, 10);
        /* count never passes the file's size, so the product cannot overflow. */
        size_t room = (size_t)sb.st_size / sizeof(float);
        if (end == s || x < 0 || *ndim >= 4 || (x && count > room / (size_t)x)) {
            st = hr_fail("%s: bad shape (or more data than the file holds)", path);
            goto out;
        }
        shape[(*ndim)++] = x;
        count *= (size_t)x;
        s = end;
        while (*s == ',' || *s == ' ') s++;
    }
    if ((size_t)sb.st_size != 10 + hlen + count * sizeof(float)) {
        st = hr_fail("%s: %lld bytes, the header's shape needs %zu", path, (long long)sb.st_size,
                     10 + hlen + count * sizeof(float));
        goto out;
    }
    *data = malloc(count * sizeof(float) + 1);
    if (!*data || fread(*data, sizeof(float), count, f) != count) {
        free(*data);
        *data = NULL;
        st = hr_fail("%s: truncated data", path);
    }
out:
    fclose(f);
    return st;
}

/* memfile.h — hands a fuzz input to a reader that only takes a path: a memfd, seen as
 * /proc/self/fd/N (a regular file to stat and fopen). */
#ifndef HR_FUZZ_MEMFILE_H
#define HR_FUZZ_MEMFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Rewrites the memfd (created on first use) with data; path gets its /proc name.
 * Returns 0, or -1 when the file cannot be written (the input is then skipped). */
static int hr_memfile(const uint8_t *data, size_t size, char *path, size_t len)
{
    static int fd = -1;
    if (fd < 0 && (fd = memfd_create("hr-fuzz", 0)) < 0) return -1;
    if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) != 0) return -1;
    for (size_t off = 0; off < size;) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) return -1;
        off += (size_t)w;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return 0;
}

#endif

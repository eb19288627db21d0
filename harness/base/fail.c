/* fail.c — the one-line reason of a process that cannot go on, written with write(2) alone. */
#include <unistd.h>

#include "fail.h"

static int also = -1; /* a worker's reasons pipe (hr_fail_to_fd) */

void hr_fail_to_fd(int fd) { also = fd; }

static void put_fd(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) return;
        s += w, n -= (size_t)w;
    }
}

void hr_fail_report(const char *reason)
{
    size_t n = 0;
    while (reason[n]) n++; /* strlen is not on every system's async-signal-safe list */
    put_fd(STDERR_FILENO, "headroom: ", 10);
    put_fd(STDERR_FILENO, reason, n);
    put_fd(STDERR_FILENO, "\n", 1);
    if (also >= 0) {
        put_fd(also, reason, n);
        put_fd(also, "\n", 1);
    }
}

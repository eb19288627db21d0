/* fail.c — the one-line reason of a process that cannot go on, written with write(2) alone. */
#include <unistd.h>

#include "fail.h"

static void put(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w, n -= (size_t)w;
    }
}

void hr_fail_report(const char *reason)
{
    put("headroom: ", 10);
    size_t n = 0;
    while (reason[n]) n++; /* strlen is not on every system's async-signal-safe list */
    put(reason, n);
    put("\n", 1);
}

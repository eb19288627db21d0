/* test_guard.c — the guarded allocator (harness/base/guard.c): where the data and the guard
 * pages lie, the canaries, read-only buffers, the reports, and the handler in a child. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "t.h"

static size_t round64(size_t n) { return (n + 63) / 64 * 64; }

HR_TEST(guard_ranges_and_alignment)
{
    static const size_t sizes[] = {1, 60, 64, 100, 4096, 4100, (size_t)2 << 20, ((size_t)2 << 20) + 100, (size_t)5 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        const size_t n = sizes[i];
        unsigned char *p = hr_galloc(n, "T");
        hr_guard_range r;
        CHECKF(p && hr_guard_info(p, &r) == 0, "%zu bytes: no buffer", n);
        if (!p) continue;
        const uintptr_t a = (uintptr_t)p;
        CHECKF(a % 64 == 0, "%zu bytes: start %#lx not 64-byte aligned", n, (unsigned long)a);
        CHECKF(r.back == a + round64(n), "%zu bytes: the back guard is not at the 64-byte end", n);
        CHECKF(r.back % r.page == 0 && r.front % r.page == 0, "%zu bytes: guards off page boundaries", n);
        const size_t huge = (size_t)2 << 20, step = n >= huge ? huge : r.page;
        CHECKF(r.front + r.page <= a && a - (r.front + r.page) < step, "%zu bytes: the front guard is not before the data's pages", n);
        if (n >= huge) CHECKF((r.front + r.page) % huge == 0, "%zu bytes: the data's pages not whole 2 MiB pages", n);
        CHECKF(r.canary == round64(n) - n, "%zu bytes: %zu canary bytes", n, r.canary);
        if (n >= huge) CHECKF(r.back % huge == 0, "%zu bytes: end not on 2 MiB", n);
        memset(p, 0x11, n); /* every byte asked for is writable */
        CHECK(hr_guard_canary_damage(p) == 0);
        hr_gfree(p);
    }
    unsigned char *s = hr_galloc_set(1000, "T", (size_t)4 << 20); /* one of a set of 4 MiB */
    hr_guard_range r;
    CHECK(s && hr_guard_info(s, &r) == 0 && r.back % ((size_t)2 << 20) == 0 && (r.front + r.page) % ((size_t)2 << 20) == 0);
    hr_gfree(s);
    void *z = hr_galloc(0, "T"); /* no bytes: still a valid 64-byte buffer */
    CHECK(z && hr_guard_info(z, &r) == 0 && r.canary == 0);
    memset(z, 0, 64);
    hr_gfree(z);
    hr_gfree(NULL);
    int local;
    CHECK(hr_guard_info(&local, &r) == -1 && hr_gprotect(&local, true) == -1);
}

HR_TEST(guard_canary_counts_bytes)
{
    unsigned char *p = hr_galloc(60, "O");
    CHECK(p && hr_guard_canary_damage(p) == 0);
    if (!p) return;
    p[60] = 0;
    CHECK(hr_guard_canary_damage(p) == 1);
    p[63] = 0; /* damage counts to the last changed byte */
    CHECK(hr_guard_canary_damage(p) == 4);
    hr_gfree(p);
}

HR_TEST(guard_describes_faults)
{
    char m[256];
    float *p = hr_galloc(4096, "O");
    hr_guard_range r;
    CHECK(p && hr_guard_info(p, &r) == 0);
    if (!p) return;
    hr_guard_kernel("bad");
    CHECK(hr_guard_describe(r.back, 1, m, sizeof m) && !strcmp(m, "kernel bad wrote past O (byte 0 after its end)"));
    CHECK(hr_guard_describe(r.back + 8, 0, m, sizeof m) && !strcmp(m, "kernel bad read past O (byte 8 after its end)"));
    CHECK(hr_guard_describe(r.back, -1, m, sizeof m) && !strcmp(m, "kernel bad touched past O (byte 0 after its end)"));
    CHECK(hr_guard_describe((uintptr_t)p - 4, 1, m, sizeof m) && !strcmp(m, "kernel bad wrote before O (4 bytes before its start)"));
    CHECK(hr_guard_describe((uintptr_t)p + 8, 1, m, sizeof m) == 0); /* writable: no fault of ours */
    CHECK(hr_gprotect(p, true) == 0);
    CHECK(hr_guard_describe((uintptr_t)p + 8, 1, m, sizeof m) && !strcmp(m, "kernel bad wrote into O (byte 8)"));
    CHECK(p[2] == 0); /* still readable */
    CHECK(hr_gprotect(p, false) == 0);
    p[2] = 1; /* writable again */
    hr_guard_kernel(NULL);
    CHECK(hr_guard_describe(r.back, 1, m, sizeof m) && !strcmp(m, "headroom wrote past O (byte 0 after its end)"));
    CHECK(hr_guard_describe(r.back, 1, m, 12) == 11 && !strcmp(m, "headroom wr")); /* cut, NUL-ended */
    hr_gfree(p);
    CHECK(hr_guard_describe(r.back, 1, m, sizeof m) == 0); /* freed: no longer a guard */
}

/* In a child: the handler reports the fault through hr_fail_report and exits with 3. */
static int child_fault(int what, char *out, size_t len)
{
    int fd[2];
    if (pipe(fd)) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        float *o = hr_galloc(4096, "O");
        unsigned char *c = hr_galloc(60, "workspace");
        hr_guard_kernel("bad");
        if (what == 0) o[1024] = 1.0f;
        if (what == 1) {
            hr_gprotect(o, true);
            o[3] = 1.0f;
        }
        if (what == 2) {
            memset(c + 60, 0, 4);
            hr_guard_verify("bad");
        }
        _exit(0);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = read(fd[0], out + n, len - 1 - n)) > 0) n += (size_t)r;
    out[n] = 0;
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

HR_TEST(guard_handler_reports_in_a_child)
{
#if defined(__SANITIZE_ADDRESS__)
    return; /* ASan keeps SIGSEGV for its own reports */
#endif
    char m[256];
    CHECKF(child_fault(0, m, sizeof m) == 3 && !strcmp(m, "headroom: kernel bad wrote past O (byte 0 after its end)\n"), "%s", m);
    CHECKF(child_fault(1, m, sizeof m) == 3 && !strcmp(m, "headroom: kernel bad wrote into O (byte 12)\n"), "%s", m);
    CHECKF(child_fault(2, m, sizeof m) == 3 && !strcmp(m, "headroom: kernel bad wrote 4 bytes past workspace\n"), "%s", m);
}

/* guard.c — guarded buffers (Electric Fence's guard pages, a canary for the last bytes) and the SIGSEGV/SIGBUS handler that names what a kernel touched. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "fail.h"
#include "guard.h"

#define HUGE_BYTES ((size_t)2 << 20)
#define CANARY 0xa5
/* Live buffers at once: a sweep's resident shapes (up to ten buffers each), the
 * workspaces and caches. One past it is still allocated, only not named in reports. */
#define MAX_BUFS 1024

typedef struct {
    uintptr_t map;       /* the mapping (0: a free slot)       */
    size_t map_len;      /* its length                         */
    uintptr_t data;      /* the first byte handed out          */
    size_t bytes;        /* bytes asked for                    */
    uintptr_t pages;     /* the data's pages: [pages, end)     */
    uintptr_t end;       /* the back guard page's first byte   */
    const char *name;
    volatile int ro;     /* read-only now (hr_gprotect)        */
} buf;

static buf bufs[MAX_BUFS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *volatile kernel;
static struct sigaction old_segv, old_bus;
static int installed;

static size_t page_size(void)
{
    static size_t pg;
    if (!pg) {
        long p = sysconf(_SC_PAGESIZE);
        pg = p > 0 ? (size_t)p : 4096;
    }
    return pg;
}

/* --- formatting without stdio (the handler's) --- */

static size_t put(char *b, size_t at, size_t len, const char *s)
{
    while (*s && at + 1 < len) b[at++] = *s++;
    b[at < len ? at : len - 1] = 0;
    return at;
}

static size_t put_u(char *b, size_t at, size_t len, size_t v)
{
    char d[24];
    int n = 0;
    do d[n++] = (char)('0' + v % 10); while ((v /= 10) && n < 23);
    while (n && at + 1 < len) b[at++] = d[--n];
    b[at < len ? at : len - 1] = 0;
    return at;
}

/* "kernel K " or "headroom " (no kernel: the harness's own access). */
static size_t put_who(char *b, size_t len, const char *k)
{
    size_t at = put(b, 0, len, k ? "kernel " : "headroom ");
    if (k) at = put(b, put(b, at, len, k), len, " ");
    return at;
}

static const char *verb(int is_write) { return is_write > 0 ? "wrote" : is_write == 0 ? "read" : "touched"; }

size_t hr_guard_describe(uintptr_t a, int is_write, char *b, size_t len)
{
    const size_t pg = page_size();
    if (!len) return 0;
    b[0] = 0;
    for (int i = 0; i < MAX_BUFS; i++) {
        const buf *x = &bufs[i];
        if (!x->map) continue;
        size_t at;
        if (a >= x->end && a < x->end + pg) { /* the back guard */
            at = put(b, put_who(b, len, kernel), len, verb(is_write));
            at = put(b, put(b, put(b, at, len, " past "), len, x->name), len, " (byte ");
            at = put(b, put_u(b, at, len, a - (x->data + x->bytes)), len, " after its end)");
            return at;
        }
        if (a >= x->pages - pg && a < x->pages) { /* the front guard */
            at = put(b, put_who(b, len, kernel), len, verb(is_write));
            at = put(b, put(b, put(b, at, len, " before "), len, x->name), len, " (");
            at = put(b, put_u(b, at, len, x->data - a), len, " bytes before its start)");
            return at;
        }
        if (x->ro && a >= x->pages && a < x->end && is_write != 0) { /* a read-only input */
            at = put_who(b, len, kernel);
            if (a >= x->data + x->bytes) {
                at = put(b, put(b, put(b, at, len, "wrote past "), len, x->name), len, " (byte ");
                at = put(b, put_u(b, at, len, a - (x->data + x->bytes)), len, " after its end)");
            } else if (a >= x->data) {
                at = put(b, put(b, put(b, at, len, "wrote into "), len, x->name), len, " (byte ");
                at = put(b, put_u(b, at, len, a - x->data), len, ")");
            } else {
                at = put(b, put(b, put(b, at, len, "wrote before "), len, x->name), len, " (");
                at = put(b, put_u(b, at, len, x->data - a), len, " bytes before its start)");
            }
            return at;
        }
    }
    return 0;
}

/* 1 where the faulting access wrote, 0 where it read, -1 where the CPU does not say. */
static int fault_wrote(void *uc)
{
#if defined(__x86_64__) && defined(REG_ERR)
    /* The page-fault error code: bit 1 is set for a write (Intel SDM vol. 3, 4.7). */
    return (((ucontext_t *)uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)uc;
    return -1;
#endif
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    static char msg[256];
    if (hr_guard_describe((uintptr_t)si->si_addr, fault_wrote(uc), msg, sizeof msg)) {
        hr_fail_report(msg);
        _exit(3);
    }
    /* Not ours: the handler before ours (or the default action) takes the fault when
     * the instruction runs again. */
    sigaction(sig, sig == SIGBUS ? &old_bus : &old_segv, NULL);
}

static void install(void)
{
    if (installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    installed = 1;
}

void *hr_galloc(size_t bytes, const char *name) { return hr_galloc_set(bytes, name, bytes); }

void *hr_galloc_set(size_t bytes, const char *name, size_t set_bytes)
{
    if (!bytes) bytes = 64; /* a kernel without a workspace still gets a valid pointer */
    const size_t pg = page_size(), n = (bytes + 63) / 64 * 64;
    const int huge = set_bytes >= HUGE_BYTES || bytes >= HUGE_BYTES;
    if (n < bytes || n > SIZE_MAX / 4) return NULL;
    /* The data's pages: whole 2 MiB pages for a huge buffer (as hr_alloc rounds), so all
     * of it is on huge pages; the bytes before the data are slack, not a guard. */
    const size_t align = huge ? HUGE_BYTES : pg, dlen = (n + align - 1) / align * align;
    const size_t len = dlen + 2 * pg + (huge ? HUGE_BYTES : 0);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    const uintptr_t base = (uintptr_t)m;
    /* The data's end on the boundary, the guards around its pages. */
    const uintptr_t end = (base + pg + dlen + align - 1) / align * align, pages = end - dlen;
    const uintptr_t lo = pages - pg, hi = end + pg;
    if (lo > base) munmap(m, lo - base);
    if (base + len > hi) munmap((void *)hi, base + len - hi);
    if (mprotect((void *)lo, pg, PROT_NONE) || mprotect((void *)end, pg, PROT_NONE)) {
        munmap((void *)lo, hi - lo);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    /* advice only: failure changes nothing (perf-log 0244: decode needs huge pages) */
    if (huge) madvise((void *)pages, dlen, MADV_HUGEPAGE);
#endif
    const uintptr_t data = end - n;
    if (n > bytes) memset((void *)(data + bytes), CANARY, n - bytes);
    int slot = -1;
    pthread_mutex_lock(&lock);
    install();
    for (int i = 0; i < MAX_BUFS && slot < 0; i++)
        if (!bufs[i].map) {
            bufs[i] = (buf){lo, hi - lo, data, bytes, pages, end, name ? name : "a buffer", 0};
            slot = i;
        }
    pthread_mutex_unlock(&lock);
    if (slot < 0) { /* the table is full: a buffer hr_gfree could not find is refused */
        munmap((void *)lo, hi - lo);
        return NULL;
    }
    return (void *)data;
}

static buf *find(const void *p)
{
    for (int i = 0; p && i < MAX_BUFS; i++)
        if (bufs[i].map && bufs[i].data == (uintptr_t)p) return &bufs[i];
    return NULL;
}

void hr_gfree(void *p)
{
    if (!p) return;
    pthread_mutex_lock(&lock);
    buf *x = find(p);
    uintptr_t map = 0;
    size_t len = 0;
    if (x) {
        map = x->map, len = x->map_len;
        x->map = 0;
    }
    pthread_mutex_unlock(&lock);
    if (map) munmap((void *)map, len);
}

int hr_gprotect(const void *p, bool ro)
{
    buf *x = find(p);
    if (!x) return -1;
    if (mprotect((void *)x->pages, x->end - x->pages, ro ? PROT_READ : PROT_READ | PROT_WRITE)) return -1;
    x->ro = ro;
    return 0;
}

void hr_guard_kernel(const char *name) { kernel = name; }

size_t hr_guard_canary_damage(const void *p)
{
    const buf *x = find(p);
    if (!x) return 0;
    const unsigned char *c = (const unsigned char *)(x->data + x->bytes);
    const size_t n = x->end - (x->data + x->bytes);
    size_t last = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i] != CANARY) last = i + 1;
    return last;
}

void hr_guard_verify(const char *k)
{
    for (int i = 0; i < MAX_BUFS; i++) {
        if (!bufs[i].map) continue;
        size_t bad = hr_guard_canary_damage((const void *)bufs[i].data);
        if (!bad) continue;
        char msg[256];
        size_t at = put(msg, put_who(msg, sizeof msg, k), sizeof msg, "wrote ");
        at = put_u(msg, at, sizeof msg, bad);
        at = put(msg, put(msg, at, sizeof msg, bad == 1 ? " byte past " : " bytes past "), sizeof msg, bufs[i].name);
        hr_fail_report(msg);
        _exit(3);
    }
}

int hr_guard_info(const void *p, hr_guard_range *out)
{
    const buf *x = find(p);
    if (!x) return -1;
    *out = (hr_guard_range){x->pages - page_size(), x->end, page_size(), x->end - (x->data + x->bytes)};
    return 0;
}

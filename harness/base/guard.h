/* guard.h — the buffers a kernel is called with: guard pages at both ends, canaries, read-only inputs, and the one-line report of a fault. */
#ifndef HR_GUARD_H
#define HR_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Allocates bytes (64-byte aligned) in a mapping of its own: the data ends where a
 * PROT_NONE guard page begins, with a guard page before its pages too, and the bytes
 * between the end and the 64-byte boundary (fewer than 64) hold canary bytes. From 2 MiB
 * up the data's pages are whole 2 MiB pages marked for transparent huge pages (the end on
 * a 2 MiB boundary), placed as hr_alloc places them. Nothing of the data is touched: the
 * code that uses it places it. name ("O", "K", "workspace", a string that outlives the
 * buffer) is what a report calls the buffer. NULL on failure (no memory); free with
 * hr_gfree. */
void *hr_galloc(size_t bytes, const char *name);
/* The same for one buffer of a set that hr_alloc would have taken as one allocation of
 * set_bytes (Q, K, V, O): on huge pages where the set is 2 MiB or more. */
void *hr_galloc_set(size_t bytes, const char *name, size_t set_bytes);
void hr_gfree(void *p); /* NULL: nothing */

/* Makes the buffer read-only (ro) or writable again; a write into a read-only buffer is
 * reported as "wrote into NAME". Returns 0, or -1 where p is no guarded buffer. */
int hr_gprotect(const void *p, bool ro);

/* The kernel whose call the buffers serve, named in reports ("kernel K wrote past O");
 * NULL: no kernel is running (a fault is then the harness's own). */
void hr_guard_kernel(const char *name);

/* Checks the canary bytes of every live buffer; where one is damaged, reports it
 * ("kernel K wrote 4 bytes past O", K the kernel just called) through hr_fail_report and
 * ends the process with status 3. Called after a kernel call, outside any timed loop. */
void hr_guard_verify(const char *kernel);

/* The report of a fault at addr: is_write 1 (a write), 0 (a read), -1 (unknown).
 * Async-signal-safe. Writes at most len - 1 characters and a NUL into buf; returns
 * the length, 0 where addr is in no guard page and no read-only buffer. */
size_t hr_guard_describe(uintptr_t addr, int is_write, char *buf, size_t len);

/* The damaged canary bytes of p's buffer: the count past its end up to the last
 * changed byte, 0 where intact or p is no guarded buffer. */
size_t hr_guard_canary_damage(const void *p);

/* Where p's buffer lies (for the tests): its guard pages [front, front + page) and
 * [back, back + page), and the canary bytes after the data. Returns -1 where p is no
 * guarded buffer. */
typedef struct {
    uintptr_t front, back; /* the two guard pages' first bytes */
    size_t page;           /* the guard page's size            */
    size_t canary;         /* canary bytes after the data      */
} hr_guard_range;
int hr_guard_info(const void *p, hr_guard_range *out);

#endif

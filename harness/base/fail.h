/* fail.h — how a process that cannot go on leaves its one-line reason. */
#ifndef HR_FAIL_H
#define HR_FAIL_H

/* Hands reason (one line, no newline) on: in-process it prints "headroom: REASON" to
 * stderr. Async-signal-safe (write(2) only), so a signal handler may call it; the
 * caller ends the process after it. */
void hr_fail_report(const char *reason);

#endif

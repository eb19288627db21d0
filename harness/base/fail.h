/* fail.h — how a process that cannot go on leaves its one-line reason. */
#ifndef HR_FAIL_H
#define HR_FAIL_H

/* Hands reason (one line, no newline) on: in-process it prints "headroom: REASON" to
 * stderr. Async-signal-safe (write(2) only), so a signal handler may call it; the
 * caller ends the process after it. */
void hr_fail_report(const char *reason);
/* In a worker process (proc.c): the reason also goes to fd, where the parent reads it
 * as the worker's reason when it ends. -1: stderr only. */
void hr_fail_to_fd(int fd);

#endif

/* proc.h — worker processes: a forked child serving requests, its replies read within a time limit, its end told in words. */
#ifndef HR_PROC_H
#define HR_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The status of a measurement whose worker crashed, exited or ran past its time limit
 * (the exit status of a command with such a point). */
#define HR_EWORKER 4

/* The child's side: answers request req (reqlen bytes) into reply (at most *replylen
 * bytes; set *replylen to the bytes written). Runs in the worker; what it does to memory
 * stays there. */
typedef void (*hr_proc_serve)(void *ctx, const void *req, size_t reqlen, void *reply, size_t *replylen);

/* A worker forked from this process (no exec: it has the parent's memory as it was at the
 * fork, loaded plugins included). The parent must not have entered an OpenMP parallel
 * region before the fork: libgomp's team does not survive it and the child's first
 * region would hang. */
typedef struct {
    hr_proc_serve serve;
    void (*at_start)(void *ctx); /* run first in the child (NULL: none)                   */
    void *ctx;
    size_t max_reply;          /* the largest reply                                       */
    pid_t pid;                 /* 0: not running                                          */
    int to, from, why;         /* requests, replies, the child's one-line reasons          */
    char reason[320];          /* after a failed call: why ("signal SIGSEGV", "exit status 0",
                                * "time limit 60 s", or the line the child reported)       */
    int status;                /* after a failed call: the waitpid status (-1: killed on
                                * the time limit)                                           */
    long starts;               /* workers started                                          */
} hr_proc;

/* Forks the worker. HR_OK, or HR_EUSAGE with a message (no pipe, no fork). */
int hr_proc_start(hr_proc *w);
/* Sends a request and reads its reply within timeout seconds (<= 0: no limit); starts
 * the worker first when none runs. HR_OK with *replylen set; HR_EFAIL when the worker
 * died, exited or ran past the limit: it is reaped (killed on the limit), w->reason says
 * why, and the next call starts a new one; HR_EUSAGE when no worker can be started. */
int hr_proc_call(hr_proc *w, const void *req, size_t reqlen, void *reply, size_t *replylen, double timeout);
/* One call in a worker of its own: fn(ctx) answers into reply (size bytes at most)
 * within timeout seconds (<= 0: no limit), and the worker ends. HR_OK; HR_EFAIL with
 * w->reason and w->status (it died, exited or ran past the limit); HR_EUSAGE when it
 * cannot start. */
int hr_proc_once(hr_proc_serve fn, void *ctx, void *reply, size_t size, double timeout, hr_proc *w);
/* A call that returns a status, in a worker of its own: fn(a, b, out) runs there (a, b:
 * a kernel and its spec, say), and its status, its message (hr_errmsg) and the size bytes
 * it wrote to out come back. fn's status, with its message as this process's; HR_EFAIL
 * with w->reason and w->status; HR_EUSAGE when the worker cannot start. */
typedef int (*hr_proc_fn)(const void *a, const void *b, void *out);
int hr_proc_run(hr_proc_fn fn, const void *a, const void *b, void *out, size_t size, double timeout, hr_proc *w);
/* Ends the worker: its requests closed (it exits at their end), up to a second to go,
 * then SIGKILL. Nothing when none runs. */
void hr_proc_stop(hr_proc *w);

/* Waits up to grace seconds for pid to end, then SIGKILLs and reaps it. Returns its
 * waitpid status (-1 where it had to be killed). */
int hr_proc_reap(pid_t pid, double grace);
/* How a waitpid status ended: "signal SIGSEGV", "exit status 7". */
void hr_proc_describe(int status, char *buf, size_t len);
/* 1 when fd has something to read (or its end) within timeout seconds (< 0: no limit),
 * 0 when the time passed, -1 on an error (errno EINTR: a signal came first). */
int hr_proc_readable(int fd, double timeout);

#endif

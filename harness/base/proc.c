/* proc.c — worker processes: a forked child serving length-framed requests on a pipe, its
 * replies read within a time limit, its end (a signal, an exit, the limit) told in words.
 *
 * A frame is a size_t byte count, then the bytes. The child reads a request, calls serve,
 * writes the reply, and exits 0 at the end of its requests; anything else it does (a
 * signal, exit(any status) from a kernel, a hang) is a failed call for the parent, which
 * reaps it and starts another at the next call. The child's one-line reasons
 * (hr_fail_report: a memory guard's report) come back on a third pipe. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "fail.h"
#include "headroom.h"
#include "proc.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int hr_proc_readable(int fd, double timeout)
{
    int ms = -1;
    if (timeout >= 0) ms = timeout > 2e6 ? 2000000000 : (int)(timeout * 1000 + 0.5);
    struct pollfd p = {fd, POLLIN, 0};
    const int r = poll(&p, 1, ms);
    return r < 0 ? -1 : r > 0;
}

int hr_proc_reap(pid_t pid, double grace)
{
    int status = 0;
    for (int i = 0; i < (int)(grace * 1000); i++) { /* a worker told to go is gone within a millisecond or so */
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) return status;
        usleep(1000);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
    return -1;
}

void hr_proc_describe(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status)) {
        const char *n = sigabbrev_np(WTERMSIG(status));
        if (n) snprintf(buf, len, "signal SIG%s", n);
        else snprintf(buf, len, "signal %d", WTERMSIG(status));
    } else {
        snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
    }
}

/* Whole reads and writes (a pipe may move a frame in pieces). 0, or -1 at an end or error. */
static int put_all(int fd, const void *p, size_t n)
{
    for (const char *c = p; n > 0;) {
        const ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

static int get_all(int fd, void *p, size_t n)
{
    for (char *c = p; n > 0;) {
        const ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        c += r, n -= (size_t)r;
    }
    return 0;
}

/* The child: requests until their end, then exit 0. Never returns. */
static void child(hr_proc *w, int in, int out)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the parent gone: nobody reads our replies */
#endif
    signal(SIGPIPE, SIG_DFL);
    if (w->at_start) w->at_start(w->ctx);
    char *req = NULL, *rep = malloc(w->max_reply + 1);
    size_t cap = 0, n;
    while (rep && !get_all(in, &n, sizeof n)) {
        if (n > cap) {
            free(req);
            if (!(req = malloc(n + 1))) break;
            cap = n;
        }
        if (get_all(in, req, n)) break;
        size_t rn = w->max_reply;
        w->serve(w->ctx, req, n, rep, &rn);
        if (put_all(out, &rn, sizeof rn) || put_all(out, rep, rn)) break;
    }
    _exit(0);
}

int hr_proc_start(hr_proc *w)
{
    int in[2], out[2], why[2];
    if (pipe(in)) return hr_fail("worker: cannot make a pipe (%s)", strerror(errno));
    if (pipe(out)) {
        close(in[0]), close(in[1]);
        return hr_fail("worker: cannot make a pipe (%s)", strerror(errno));
    }
    if (pipe(why)) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return hr_fail("worker: cannot make a pipe (%s)", strerror(errno));
    }
    fflush(NULL); /* what stdio holds is printed once, not once more by the child's exit */
    const pid_t pid = fork();
    if (pid < 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]), close(why[0]), close(why[1]);
        return hr_fail("worker: cannot fork (%s)", strerror(errno));
    }
    if (pid == 0) {
        close(in[1]), close(out[0]), close(why[0]);
        hr_fail_to_fd(why[1]);
        child(w, in[0], out[1]);
    }
    close(in[0]), close(out[1]), close(why[1]);
    w->pid = pid, w->to = in[1], w->from = out[0], w->why = why[0];
    fcntl(w->to, F_SETFD, FD_CLOEXEC);
    fcntl(w->from, F_SETFD, FD_CLOEXEC);
    fcntl(w->why, F_SETFD, FD_CLOEXEC);
    fcntl(w->why, F_SETFL, O_NONBLOCK);
    w->starts++;
    return HR_OK;
}

static void close_fds(hr_proc *w)
{
    if (w->to >= 0) close(w->to);
    if (w->from >= 0) close(w->from);
    if (w->why >= 0) close(w->why);
    w->to = w->from = w->why = -1;
    w->pid = 0;
}

/* The worker is gone or to go: reaped, and w->reason says why. */
static int failed(hr_proc *w, double limit)
{
    char line[320] = "";
    if (limit > 0) {
        kill(w->pid, SIGKILL);
        hr_proc_reap(w->pid, 1);
        w->status = -1;
        snprintf(w->reason, sizeof w->reason, "time limit %g s", limit);
    } else {
        w->status = hr_proc_reap(w->pid, 5);
        /* The child's own line (a guard's report) says more than its exit status. */
        ssize_t n = read(w->why, line, sizeof line - 1);
        line[n > 0 ? n : 0] = 0;
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        if (line[0]) snprintf(w->reason, sizeof w->reason, "%s", line);
        else if (w->status == -1) snprintf(w->reason, sizeof w->reason, "the worker stopped answering");
        else hr_proc_describe(w->status, w->reason, sizeof w->reason);
    }
    close_fds(w);
    return HR_EFAIL;
}

int hr_proc_call(hr_proc *w, const void *req, size_t reqlen, void *reply, size_t *replylen, double timeout)
{
    int st;
    if (!w->pid && (st = hr_proc_start(w))) return st;
    void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* a dead worker is a failed call, not our death */
    const int sent = put_all(w->to, &reqlen, sizeof reqlen) || put_all(w->to, req, reqlen);
    signal(SIGPIPE, old);
    if (sent) return failed(w, 0);
    const double end = now() + timeout;
    int r;
    do { /* a signal (SIGINT reaches the worker too, which stops its timer) waits on */
        r = hr_proc_readable(w->from, timeout > 0 ? fmax(end - now(), 0) : -1);
    } while (r < 0 && errno == EINTR);
    if (r == 0) return failed(w, timeout);
    size_t n;
    if (r < 0 || get_all(w->from, &n, sizeof n) || n > *replylen || get_all(w->from, reply, n)) return failed(w, 0);
    *replylen = n;
    return HR_OK;
}

void hr_proc_stop(hr_proc *w)
{
    if (!w->pid) return;
    close(w->to);
    w->to = -1;
    hr_proc_reap(w->pid, 1);
    close_fds(w);
}

int hr_proc_once(hr_proc_serve fn, void *ctx, void *reply, size_t size, double timeout, hr_proc *w)
{
    *w = (hr_proc){.serve = fn, .ctx = ctx, .max_reply = size, .to = -1, .from = -1, .why = -1};
    size_t n = size;
    const char go = 1;
    const int st = hr_proc_call(w, &go, 1, reply, &n, timeout);
    hr_proc_stop(w);
    return st;
}

typedef struct {
    hr_proc_fn fn;
    const void *a, *b;
    size_t size;
} run_job;

typedef struct {
    int st;
    char err[400];
} run_head;

#define RUN_OUT ((sizeof(run_head) + 15) & ~(size_t)15) /* out, aligned as malloc's */

static void serve_job(void *ctx, const void *req, size_t n, void *out, size_t *len)
{
    const run_job *j = ctx;
    run_head *h = out;
    (void)req, (void)n;
    h->st = j->fn(j->a, j->b, (char *)out + RUN_OUT);
    snprintf(h->err, sizeof h->err, "%s", h->st ? hr_errmsg() : "");
    fflush(NULL); /* what the kernel printed, before the worker ends */
    *len = RUN_OUT + j->size;
}

int hr_proc_run(hr_proc_fn fn, const void *a, const void *b, void *out, size_t size, double timeout, hr_proc *w)
{
    run_job j = {fn, a, b, size};
    char *buf = malloc(RUN_OUT + size);
    if (!buf) return hr_fail("out of memory for a worker's reply of %zu bytes", size);
    int st = hr_proc_once(serve_job, &j, buf, RUN_OUT + size, timeout, w);
    if (!st) {
        const run_head *h = (const run_head *)buf;
        memcpy(out, buf + RUN_OUT, size);
        st = h->st ? hr_failc(h->st, "%s", h->err) : HR_OK;
    }
    free(buf);
    return st;
}

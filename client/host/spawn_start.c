/* Inside the spawner: starting servers (CMD_SPAWN). Each is forked,
 * joins its group's cgroups and CPUs, execs, and is ready when its ready
 * line comes; at most start_parallel start at once, each within
 * start_timeout_ms. Every result goes back to the client as one record,
 * with the client's ends of the server's pipe pair. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/util.h"
#include "host/machine.h"
#include "host/spawn.h"
#include "host/spawn_impl.h"

struct pending {
    unsigned index;
    const char *log_prefix; /* of its log's name: "s", or its group's */
    const char *noun;       /* "server", or its group's */
    bool stdio;             /* spawn_group.stdio_pipes */
    pid_t pid;
    int fd;
    int pipe_fds[2]; /* the client's ends of its pipe pair, or -1 */
    /* spawn_group.ready_marker, and the server's log for the lines
     * before the ready one (-1 without a marker) */
    const char *marker;
    int log_fd;
    int64_t t0;
    size_t len;
    char line[SPAWN_MAX_LINE];
};

/* One record, with the descriptors `fds` (nfds of them) attached. */
static int send_record(int rep_fd, const void *rec, size_t len,
                       const int *fds, size_t nfds)
{
    struct iovec iov = {.iov_base = (void *)rec, .iov_len = len};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        msg.msg_control = u.buf;
        msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
    }
    for (;;) {
        /* SEQPACKET: the record goes whole or not at all. */
        ssize_t n = sendmsg(rep_fd, &msg, MSG_NOSIGNAL);
        if (n == (ssize_t)len)
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 ? -errno : -EIO;
    }
}

/* Send a result; `fds` (2, or NULL) go with it and are closed here:
 * the client owns them now, the spawner keeps no copy. */
static void send_result(int rep_fd, const struct spawn_result *r, int *fds,
                        bool *gone)
{
    if (!*gone && send_record(rep_fd, r, sizeof *r, fds, fds ? 2 : 0) != 0)
        *gone = true; /* the client closed its end: it is stopping */
    for (int i = 0; fds && i < 2; i++) {
        close(fds[i]);
        fds[i] = -1;
    }
}

static void child_exec(const struct spawn_group *g, char **argv,
                       int out_fd, int log_fd, int in_fd, pid_t spawner,
                       const int *srv_fds, int cpu)
{
    dup2(in_fd, 0); /* /dev/null, or a caller's command pipe */
    /* With a ready marker the ready line comes on stderr. */
    dup2(g->ready_marker ? log_fd : out_fd, 1);
    dup2(g->ready_marker ? out_fd : log_fd, 2);
    if (srv_fds) {
        /* After 0..2 (null_fd and the others may sit on 3 or 4), and out
         * of the way of 3 and 4 first, so that neither dup2 overwrites
         * the other end; dup2 clears close-on-exec on 3 and 4. */
        int r = fcntl(srv_fds[0], F_DUPFD, 10);
        int w = fcntl(srv_fds[1], F_DUPFD, 10);
        if (r < 0 || w < 0 || dup2(r, SPAWN_PIPE_SERVER_RFD) < 0 ||
            dup2(w, SPAWN_PIPE_SERVER_WFD) < 0)
            _exit(124);
        close(r);
        close(w);
    }
    /* exec keeps ignored signals and the mask: give the server defaults. */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != spawner)
        _exit(126);
    /* Charges do not follow a moved process: join before exec. */
    int rc = g->machine ? machine_enter_server(g->machine) : 0;
    if (rc) {
        fprintf(stderr, "orbbench spawner: cannot join cgroup or CPUs: %s\n",
                strerror(-rc));
        _exit(125);
    }
    /* One CPU of the group's (machine.cpus): never a CPU outside it. */
    if (cpu >= 0) {
        cpu_set_t have, one;
        CPU_ZERO(&one);
        if (cpu < CPU_SETSIZE)
            CPU_SET(cpu, &one);
        if (cpu >= CPU_SETSIZE ||
            sched_getaffinity(0, sizeof have, &have) != 0 ||
            !CPU_ISSET(cpu, &have) ||
            sched_setaffinity(0, sizeof one, &one) != 0) {
            fprintf(stderr, "orbbench spawner: cannot pin the server to "
                    "CPU %d (not among its CPUs?)\n", cpu);
            _exit(125);
        }
    }
    execv(argv[0], argv);
    fprintf(stderr, "orbbench spawner: cannot exec %s: %s\n", argv[0],
            strerror(errno));
    _exit(127);
}

/* Close the descriptors of fds[0..n-1] that are open; mark them -1. */
static void close_fds(int *fds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
        fds[i] = -1;
    }
}

/* Fork server `index`; fill *p, or return -errno with r->why set. */
static int launch(const struct spawn_config *cfg, int group, unsigned index,
                  int cpu, int null_fd, struct pending *p,
                  struct spawn_result *r)
{
    char *argv[SPAWN_MAX_ARGS + 1];
    char buf[4096], path[600];
    int pfd[2];
    /* A pipe pair: to_srv carries requests, from_srv replies; a caller's
     * stdin is to_srv (its stdout is pfd, handed over once ready). */
    int to_srv[2] = {-1, -1}, from_srv[2] = {-1, -1};
    const struct spawn_group *g = &cfg->groups[group];
    const char *prefix = g->log_prefix ? g->log_prefix : "s";
    (g->make_argv ? g->make_argv : cfg->make_argv)(g->make_argv_arg, index,
                                                   argv, buf, sizeof buf);
    if (g->stdio_pipes && pipe2(to_srv, O_CLOEXEC) != 0) {
        int e = errno;
        snprintf(r->why, sizeof r->why, "stdin pipe for %s%u: %s", prefix,
                 index, strerror(e));
        return -e;
    }
    if (g->pipe_pair && (pipe2(to_srv, O_CLOEXEC) != 0 ||
                         pipe2(from_srv, O_CLOEXEC) != 0)) {
        int e = errno;
        snprintf(r->why, sizeof r->why, "pipe pair for server %u: %s",
                 index, strerror(e));
        close_fds(to_srv, 2);
        return -e;
    }
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        int e = errno;
        snprintf(r->why, sizeof r->why, "pipe for server %u: %s", index,
                 strerror(e));
        close_fds(to_srv, 2);
        close_fds(from_srv, 2);
        return -e;
    }
    snprintf(path, sizeof path, "%s/%s%u.log", cfg->log_dir, prefix, index);
    /* O_APPEND: the spawner may write to it too (ready_marker). */
    int log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
                                O_CLOEXEC, 0600);
    if (log_fd < 0) {
        int e = errno;
        snprintf(r->why, sizeof r->why, "open %s: %s", path, strerror(e));
        close(pfd[0]);
        close(pfd[1]);
        close_fds(to_srv, 2);
        close_fds(from_srv, 2);
        return -e;
    }
    pid_t self = getpid();
    int srv_fds[2] = {to_srv[0], from_srv[1]};
    p->t0 = now_ns();
    pid_t pid = fork();
    if (pid == 0)
        child_exec(g, argv, pfd[1], log_fd,
                   g->stdio_pipes ? to_srv[0] : null_fd, self,
                   g->pipe_pair ? srv_fds : NULL, cpu);
    int e = errno;
    close(pfd[1]);
    p->marker = g->ready_marker;
    p->log_prefix = prefix;
    p->noun = g->noun ? g->noun : "server";
    p->stdio = g->stdio_pipes;
    p->log_fd = -1;
    if (pid > 0 && g->ready_marker)
        p->log_fd = log_fd; /* closed once the ready line is in */
    else
        close(log_fd);
    close_fds(srv_fds, 2); /* the server's ends: only the server keeps them */
    p->pipe_fds[0] = from_srv[0];
    p->pipe_fds[1] = to_srv[1];
    if (pid < 0) {
        snprintf(r->why, sizeof r->why, "fork for server %u: %s", index,
                 strerror(e));
        close(pfd[0]);
        close_fds(p->pipe_fds, 2);
        return -e;
    }
    fcntl(pfd[0], F_SETFL, O_NONBLOCK);
    p->index = index;
    p->pid = pid;
    p->fd = pfd[0];
    p->len = 0;
    return 0;
}

/* The pending start p has ended: stdout closed, timed out or failed. */
static void fail_pending(const struct spawn_config *cfg, struct pending *p,
                         int err, struct spawn_result *r)
{
    char status[96] = "", tail[256];
    r->index = p->index;
    r->pid = p->pid;
    r->err = err;
    if (err == -ETIMEDOUT || err == -EPROTO)
        kill(p->pid, SIGKILL);
    /* A server that closed stdout is dying; give it a moment to finish. */
    if (spawn_reap(p->pid, err == -ETIMEDOUT ? 5000 : 2000, &r->wstatus) != 1) {
        kill(p->pid, SIGKILL);
        spawn_reap(p->pid, 5000, &r->wstatus);
    }
    spawn_describe_status(r->wstatus, status, sizeof status);
    if (p->log_fd >= 0) {
        /* Its last words before the ready line belong in its log. */
        (void)!write(p->log_fd, p->line, p->len);
        close(p->log_fd);
        p->log_fd = -1;
    }
    spawn_log_tail(cfg->log_dir, p->log_prefix, p->index, tail, sizeof tail);
    if (err == -ETIMEDOUT)
        snprintf(r->why, sizeof r->why,
                 "%s %u (pid %d) printed no ready line within %lld ms "
                 "and was killed%s%s",
                 p->noun, p->index, (int)p->pid,
                 (long long)cfg->start_timeout_ms,
                 tail[0] ? "; its last words: " : "", tail);
    else if (err == -EPROTO)
        snprintf(r->why, sizeof r->why, "%s %u (pid %d) %s and was killed",
                 p->noun, p->index, (int)p->pid, p->line);
    else
        snprintf(r->why, sizeof r->why,
                 "%s %u (pid %d) %s before printing its ready line%s%s",
                 p->noun, p->index, (int)p->pid, status,
                 tail[0] ? ": " : "", tail);
    close(p->fd);
    close_fds(p->pipe_fds, 2);
}

/* With a ready marker: is the first line in p->line (ending at nl) the
 * ready one? Then it becomes p->line from the marker on; else it goes to
 * the server's log and the bytes after it move up. */
static bool marked_line(struct pending *p, char *nl)
{
    *nl = 0;
    char *at = strstr(p->line, p->marker);
    size_t rest = p->len - (size_t)(nl + 1 - p->line);
    if (at) {
        p->len = (size_t)(nl - at);
        memmove(p->line, at, p->len + 1);
        return true;
    }
    *nl = '\n';
    (void)!write(p->log_fd, p->line, (size_t)(nl + 1 - p->line));
    memmove(p->line, nl + 1, rest);
    p->len = rest;
    return false;
}

/* Read what server p printed. 1 when its line is complete, 0 for more,
 * -errno when it ended without one. */
static int read_ready(struct pending *p)
{
    for (;;) {
        if (p->len >= sizeof p->line - 1)
            return -E2BIG;
        ssize_t n = read(p->fd, p->line + p->len, sizeof p->line - 1 - p->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN ? 0 : -errno;
        if (n == 0)
            return -ECHILD;
        char *nl = memchr(p->line + p->len, '\n', (size_t)n);
        p->len += (size_t)n;
        p->line[p->len] = 0;
        /* Bounded: each pass drops a line from the buffer. */
        while (nl && p->marker) {
            if (marked_line(p, nl))
                return 1;
            nl = memchr(p->line, '\n', p->len);
        }
        if (nl) {
            *nl = 0;
            return 1;
        }
    }
}

/* Pending start p ended with rc, 1 (its ready line: it is live) or
 * -errno (it failed, and stops the batch: *stop): its result to the
 * client (*gone once the client is), in r. */
static void settle(const struct spawn_config *cfg, int rep_fd,
                   struct pending *p, int rc, struct spawn_result *r,
                   struct live *live, bool *stop, bool *gone)
{
    memset(r, 0, sizeof *r);
    int *fds = NULL;
    if (rc == 1 && p->stdio && strlen(p->line) + 1 < p->len) {
        /* Bytes after the ready line: read here, lost to the client,
         * which would wait for them. */
        rc = -EPROTO;
        snprintf(p->line, sizeof p->line, "wrote more than its ready line "
                 "before any command");
        p->len = strlen(p->line);
    }
    if (rc == 1) {
        r->index = p->index;
        r->pid = p->pid;
        r->start_ns = now_ns() - p->t0;
        memcpy(r->line, p->line, strlen(p->line) + 1);
        if (p->stdio) {
            /* Its stdout is the client's from here on. */
            p->pipe_fds[0] = p->fd;
            p->fd = -1;
        } else {
            close(p->fd);
        }
        if (p->log_fd >= 0)
            close(p->log_fd);
        if (spawn_live_add(live, p->pid) != 0)
            _exit(3);
        if (p->pipe_fds[0] >= 0)
            fds = p->pipe_fds;
    } else {
        fail_pending(cfg, p, rc, r);
        *stop = true;
    }
    send_result(rep_fd, r, fds, gone);
}

/* A pending start the client no longer waits for: killed, reaped, its
 * descriptors closed. */
static void abandon(struct pending *p)
{
    int st;
    kill(p->pid, SIGKILL);
    spawn_reap(p->pid, 5000, &st);
    close(p->fd);
    if (p->log_fd >= 0)
        close(p->log_fd);
    close_fds(p->pipe_fds, 2);
}

/* Serve one CMD_SPAWN. Returns -1 when the client went away meanwhile. */
int spawn_serve_start(const struct spawn_config *cfg, int cmd_fd,
                      int rep_fd, int null_fd, int group, unsigned first,
                      unsigned count, int cpu, struct live *live)
{
    enum { MAX_PAR = 64 };
    struct pending *pend = calloc(MAX_PAR, sizeof *pend);
    struct spawn_result *r = calloc(1, sizeof *r);
    struct pollfd pfds[MAX_PAR + 1];
    int par = cfg->start_parallel < MAX_PAR ? cfg->start_parallel : MAX_PAR;
    unsigned next = first, end = first + count;
    size_t npend = 0;
    bool stop = false, gone = false;
    if (!pend || !r)
        _exit(3);

    while (!gone && (npend > 0 || (!stop && next < end))) {
        while (!stop && npend < (size_t)par && next < end) {
            memset(r, 0, sizeof *r);
            int rc = launch(cfg, group, next, cpu, null_fd, &pend[npend],
                            r);
            if (rc) {
                r->index = next;
                r->err = rc;
                send_result(rep_fd, r, NULL, &gone);
                stop = true;
            } else {
                npend++;
            }
            next++;
        }
        if (npend == 0)
            break;
        int64_t deadline = INT64_MAX;
        for (size_t i = 0; i < npend; i++) {
            pfds[i] = (struct pollfd){.fd = pend[i].fd, .events = POLLIN};
            int64_t d = pend[i].t0 + cfg->start_timeout_ms * 1000000;
            deadline = d < deadline ? d : deadline;
        }
        pfds[npend] = (struct pollfd){.fd = cmd_fd, .events = POLLIN};
        int n = poll(pfds, npend + 1, ms_until(deadline));
        if (n < 0 && errno != EINTR)
            _exit(3);
        if (n > 0 && pfds[npend].revents)
            gone = true; /* a STOP, or the client closed its pipe */
        for (size_t i = npend; i-- > 0;) {
            struct pending *p = &pend[i];
            int rc = 0;
            if (n > 0 && pfds[i].revents)
                rc = read_ready(p);
            if (rc == 0 && now_ns() >= p->t0 + cfg->start_timeout_ms * 1000000)
                rc = -ETIMEDOUT;
            if (rc == 0)
                continue;
            settle(cfg, rep_fd, p, rc, r, live, &stop, &gone);
            pend[i] = pend[--npend];
        }
    }
    /* Starts not attempted after a failure: say so, one result each. */
    for (; !gone && next < end; next++) {
        memset(r, 0, sizeof *r);
        r->index = next;
        r->err = -ECANCELED;
        snprintf(r->why, sizeof r->why, "not started after an earlier failure");
        send_result(rep_fd, r, NULL, &gone);
    }
    /* The client left mid-batch: these never became live; end them. */
    for (size_t i = 0; i < npend; i++)
        abandon(&pend[i]);
    free(pend);
    free(r);
    return gone ? -1 : 0;
}

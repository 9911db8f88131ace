/* The spawner process: see spawn.h. The client sends fixed-size command
 * records over a pipe; the spawner answers over a SOCK_SEQPACKET
 * socketpair, one record per message, so that a spawn result can carry
 * the client's ends of a server's pipe pair (SCM_RIGHTS: descriptors
 * cannot cross a pipe). It ends (killing every server) when the client
 * says stop or goes away. */
#include "host/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/machine.h"
#include "core/util.h"

enum { CMD_SPAWN = 1, CMD_CHECK = 2, CMD_STOP = 3, CMD_KILL = 4 };

struct cmd {
    int32_t op;
    uint32_t first;
    uint32_t count;
    int32_t pid;
    int64_t ms;    /* CHECK: how long to wait; STOP: grace */
    int32_t group; /* SPAWN: which of the config's groups */
    /* SPAWN: pin each server to CPU cpu_plus_one - 1; 0: no pin. */
    int32_t cpu_plus_one;
};

struct check_reply {
    int32_t rc;
    int32_t wstatus;
};

struct spawner {
    pid_t pid;
    int cmd_fd; /* client -> spawner */
    int rep_fd; /* spawner -> client */
    int64_t start_timeout_ms;
    /* Its config (valid until spawner_stop): what to clean up after it
     * when it died without doing so itself. */
    const struct spawn_config *cfg;
};

void spawn_describe_status(int wstatus, char *buf, size_t len)
{
    if (WIFEXITED(wstatus))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(wstatus));
    else if (WIFSIGNALED(wstatus))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(wstatus),
                 strsignal(WTERMSIG(wstatus)));
    else
        snprintf(buf, len, "stopped (wait status 0x%x)", wstatus);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* ---- inside the spawner ------------------------------------------------ */

struct live {
    pid_t *pids;
    size_t len;
    size_t cap;
};

struct pending {
    unsigned index;
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

static int live_add(struct live *l, pid_t pid)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        pid_t *p = realloc(l->pids, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        l->pids = p;
        l->cap = cap;
    }
    l->pids[l->len++] = pid;
    return 0;
}

static void live_remove(struct live *l, pid_t pid)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->pids[i] == pid) {
            l->pids[i] = l->pids[--l->len];
            return;
        }
}

/* The last non-empty line a server wrote to its log, for error messages. */
static void log_tail(const char *dir, unsigned index, char *out, size_t cap)
{
    char path[600], buf[1024];
    out[0] = 0;
    snprintf(path, sizeof path, "%s/s%u.log", dir, index);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1
                                              : 0;
    ssize_t n = pread(fd, buf, sizeof buf - 1, from);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = 0;
    char *last = strrchr(buf, '\n');
    str_escape(out, cap, last ? last + 1 : buf);   /* the server's text */
}

/* Remove a folder (server logs and sockets) and its files, and the
 * files of folders in it `depth` levels down (a server's data folder:
 * omniEvents keeps its database there). */
static void remove_dir(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno == EISDIR &&
                depth > 0) {
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
                remove_dir(sub, depth - 1);
            }
        }
        closedir(d);
    }
    rmdir(dir);
}

/* A run folder this client made (orbbench-PID-XXXXXX, see runcmd), of
 * this user: removed with its files. */
static bool remove_run_dir(int dfd, const char *name, const char *path)
{
    struct stat st;
    if (!strchr(name + sizeof "orbbench-", '-') ||
        fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return false;
    remove_dir(path, 1);
    return access(path, F_OK) != 0;
}

int spawn_remove_leftover_dirs(const char *parent, char *list, size_t len)
{
    return machine_each_leftover(parent, remove_run_dir, list, len);
}

/* Reap pid, waiting at most wait_ms. 1 when reaped (*wstatus set). */
static int reap(pid_t pid, long wait_ms, int *wstatus)
{
    for (long waited = 0;; waited += 2) {
        pid_t r = waitpid(pid, wstatus, WNOHANG);
        if (r == pid)
            return 1;
        if (r < 0)
            return -errno;
        if (waited >= wait_ms)
            return 0;
        sleep_ms(2);
    }
}

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
                       int out_fd, int log_fd, int null_fd, pid_t spawner,
                       const int *srv_fds, int cpu)
{
    dup2(null_fd, 0);
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
    /* A pipe pair: to_srv carries requests, from_srv replies. */
    int to_srv[2] = {-1, -1}, from_srv[2] = {-1, -1};
    const struct spawn_group *g = &cfg->groups[group];
    cfg->make_argv(g->make_argv_arg, index, argv, buf, sizeof buf);
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
    snprintf(path, sizeof path, "%s/s%u.log", cfg->log_dir, index);
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
        child_exec(g, argv, pfd[1], log_fd, null_fd, self,
                   g->pipe_pair ? srv_fds : NULL, cpu);
    int e = errno;
    close(pfd[1]);
    p->marker = g->ready_marker;
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
    if (err == -ETIMEDOUT)
        kill(p->pid, SIGKILL);
    /* A server that closed stdout is dying; give it a moment to finish. */
    if (reap(p->pid, err == -ETIMEDOUT ? 5000 : 2000, &r->wstatus) != 1) {
        kill(p->pid, SIGKILL);
        reap(p->pid, 5000, &r->wstatus);
    }
    spawn_describe_status(r->wstatus, status, sizeof status);
    if (p->log_fd >= 0) {
        /* Its last words before the ready line belong in its log. */
        (void)!write(p->log_fd, p->line, p->len);
        close(p->log_fd);
        p->log_fd = -1;
    }
    log_tail(cfg->log_dir, p->index, tail, sizeof tail);
    if (err == -ETIMEDOUT)
        snprintf(r->why, sizeof r->why,
                 "server %u (pid %d) printed no ready line within %lld ms "
                 "and was killed%s%s",
                 p->index, (int)p->pid, (long long)cfg->start_timeout_ms,
                 tail[0] ? "; its last words: " : "", tail);
    else
        snprintf(r->why, sizeof r->why,
                 "server %u (pid %d) %s before printing its ready line%s%s",
                 p->index, (int)p->pid, status, tail[0] ? ": " : "", tail);
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

/* Serve one CMD_SPAWN. Returns -1 when the client went away meanwhile. */
static int do_spawn(const struct spawn_config *cfg, int cmd_fd, int rep_fd,
                    int null_fd, int group, unsigned first, unsigned count,
                    int cpu, struct live *live)
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
            memset(r, 0, sizeof *r);
            int *fds = NULL;
            if (rc == 1) {
                r->index = p->index;
                r->pid = p->pid;
                r->start_ns = now_ns() - p->t0;
                memcpy(r->line, p->line, p->len + 1);
                close(p->fd);
                if (p->log_fd >= 0)
                    close(p->log_fd);
                if (live_add(live, p->pid) != 0)
                    _exit(3);
                if (p->pipe_fds[0] >= 0)
                    fds = p->pipe_fds;
            } else {
                fail_pending(cfg, p, rc, r);
                stop = true;
            }
            send_result(rep_fd, r, fds, &gone);
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
    for (size_t i = 0; i < npend; i++) {
        kill(pend[i].pid, SIGKILL);
        reap(pend[i].pid, 5000, &r->wstatus);
        close(pend[i].fd);
        if (pend[i].log_fd >= 0)
            close(pend[i].log_fd);
        close_fds(pend[i].pipe_fds, 2);
    }
    free(pend);
    free(r);
    return gone ? -1 : 0;
}

static void do_check(int rep_fd, const struct cmd *c, struct live *live)
{
    struct check_reply rep = {0, 0};
    int rc = reap(c->pid, (long)c->ms, &rep.wstatus);
    rep.rc = rc;
    if (rc == 1)
        live_remove(live, c->pid);
    write_full(rep_fd, &rep, sizeof rep);
}

static bool is_live(const struct live *live, pid_t pid)
{
    for (size_t i = 0; i < live->len; i++)
        if (live->pids[i] == pid)
            return true;
    return false;
}

/* CMD_KILL: c->count pids follow the command. SIGKILL those that are ours
 * and live (never anything else), reap them within c->ms each, and reply
 * how many were stopped. */
static int do_kill(int cmd_fd, int rep_fd, const struct cmd *c,
                   struct live *live)
{
    struct check_reply rep = {0, 0};
    int32_t *pids = calloc(c->count ? c->count : 1, sizeof *pids);
    if (!pids || read_full(cmd_fd, pids, c->count * sizeof *pids) != 0) {
        free(pids);
        return -1;
    }
    for (uint32_t i = 0; i < c->count; i++)
        if (is_live(live, pids[i]))
            kill(pids[i], SIGKILL);
        else
            pids[i] = 0;
    for (uint32_t i = 0; i < c->count; i++) {
        int st;
        if (pids[i] && reap(pids[i], (long)c->ms, &st) == 1) {
            live_remove(live, pids[i]);
            rep.rc++;
        }
    }
    free(pids);
    return write_full(rep_fd, &rep, sizeof rep) == 0 ? 0 : -1;
}

/* SIGTERM every live server, SIGKILL what is left after grace_ms, reap. */
static void stop_all(struct live *live, int64_t grace_ms)
{
    /* SIGCONT too: a stopped server (SIGSTOP) would hold SIGTERM
     * pending until the SIGKILL after grace_ms. */
    for (size_t i = 0; i < live->len; i++) {
        kill(live->pids[i], SIGTERM);
        kill(live->pids[i], SIGCONT);
    }
    int64_t deadline = now_ns() + grace_ms * 1000000;
    size_t left = live->len;
    while (left > 0) {
        int st;
        pid_t r = waitpid(-1, &st, WNOHANG);
        if (r > 0) {
            live_remove(live, r);
            left = live->len;
        } else if (r < 0) {
            break; /* ECHILD: nothing left */
        } else if (now_ns() >= deadline) {
            for (size_t i = 0; i < live->len; i++)
                kill(live->pids[i], SIGKILL);
            /* SIGKILL always lands; bound the wait anyway. */
            deadline = now_ns() + 10 * 1000000000LL;
            grace_ms = -1;
        } else {
            sleep_ms(1);
        }
        if (grace_ms < 0 && now_ns() >= deadline)
            break;
    }
}

bool spawn_env_unsafe(const char *name, size_t len)
{
    static const char endpoint[] = "ORBendPoint";
    return (len >= sizeof endpoint - 1 &&
            strncasecmp(name, endpoint, sizeof endpoint - 1) == 0) ||
           (len == 14 && strncmp(name, "OMNIORB_CONFIG", 14) == 0) ||
           (len == 15 && strncmp(name, "TAO_ORBENDPOINT", 15) == 0) ||
           (len == 15 && strncmp(name, "ORBIT_SOCKETDIR", 15) == 0) ||
           (len == 6 && strncmp(name, "MICORC", 6) == 0);
}

/* Servers listen where their arguments say: what the environment would
 * add is not passed on (the client warned of it). */
static void drop_unsafe_env(void)
{
    for (size_t i = 0; environ[i];) {
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        if (!spawn_env_unsafe(environ[i], len)) {
            i++;
            continue;
        }
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)len, environ[i]);
        if (unsetenv(name) != 0)
            i++; /* cannot happen for a name without '='; never loop */
    }
}

static void spawner_main(const struct spawn_config *cfg, int cmd_fd,
                         int rep_fd)
{
    drop_unsafe_env();
    struct live live = {0};
    int64_t grace_ms = 2000;
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    signal(SIGPIPE, SIG_IGN);
    /* Ctrl-C is the client's to handle; it then tells us to stop. */
    signal(SIGINT, SIG_IGN);
    for (;;) {
        struct cmd c;
        if (read_full(cmd_fd, &c, sizeof c) != 0)
            break;
        if (c.op == CMD_SPAWN) {
            if (c.group < 0 || c.group >= cfg->ngroups)
                _exit(3);
            if (do_spawn(cfg, cmd_fd, rep_fd, null_fd, c.group, c.first,
                         c.count, c.cpu_plus_one - 1, &live) != 0)
                break;
        } else if (c.op == CMD_CHECK) {
            do_check(rep_fd, &c, &live);
        } else if (c.op == CMD_KILL) {
            if (do_kill(cmd_fd, rep_fd, &c, &live) != 0)
                break;
        } else {
            grace_ms = c.ms;
            break;
        }
    }
    stop_all(&live, grace_ms);
    remove_dir(cfg->log_dir, 1);
    for (int g = 0; g < cfg->ngroups; g++) {
        if (!cfg->groups[g].machine)
            continue;
        machine_remove_cgroup(cfg->groups[g].machine->cgroup_dir);
        machine_remove_cgroup(cfg->groups[g].machine->acct_dir);
    }
    _exit(0);
}

/* ---- in the client ----------------------------------------------------- */

int spawner_start(struct spawner **out, const struct spawn_config *cfg)
{
    int to_sp[2], from_sp[2];
    struct spawner *sp = calloc(1, sizeof *sp);
    if (!sp)
        return -ENOMEM;
    if (pipe2(to_sp, O_CLOEXEC) != 0) {
        free(sp);
        return -errno;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, from_sp) !=
        0) {
        int e = errno;
        close(to_sp[0]);
        close(to_sp[1]);
        free(sp);
        return -e;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(to_sp[0]);
        close(to_sp[1]);
        close(from_sp[0]);
        close(from_sp[1]);
        free(sp);
        return -e;
    }
    if (pid == 0) {
        close(to_sp[1]);
        close(from_sp[0]);
        /* Its own process group, so the servers can be found as one, and
         * a terminal's Ctrl-C reaches only the client. */
        setpgid(0, 0);
        /* No parent-death signal here: when the client dies, however it
         * dies, its pipe ends close and the spawner sees that at once (it
         * never blocks anywhere else for long), then cleans up. */
        if (getppid() != parent)
            _exit(1);
        spawner_main(cfg, to_sp[0], from_sp[1]);
    }
    setpgid(pid, pid); /* also here: no race with the first killpg */
    close(to_sp[0]);
    close(from_sp[1]);
    sp->pid = pid;
    sp->cmd_fd = to_sp[1];
    sp->rep_fd = from_sp[0];
    sp->start_timeout_ms = cfg->start_timeout_ms;
    sp->cfg = cfg;
    *out = sp;
    return 0;
}

pid_t spawner_pgid(const struct spawner *sp) { return sp->pid; }

/* Read one reply record, waiting at most timeout_ms. */
static int read_reply(struct spawner *sp, void *buf, size_t len,
                      int64_t timeout_ms)
{
    struct pollfd p = {.fd = sp->rep_fd, .events = POLLIN};
    int rc = poll(&p, 1, (int)timeout_ms);
    if (rc < 0)
        return -errno; /* -EINTR: the client is being interrupted */
    if (rc == 0)
        return -ETIMEDOUT;
    return read_full(sp->rep_fd, buf, len);
}

/* Read one spawn result and the descriptors that came with it (into
 * r->fds, close-on-exec), waiting at most timeout_ms. */
static int read_result(struct spawner *sp, struct spawn_result *r,
                       int64_t timeout_ms)
{
    struct pollfd p = {.fd = sp->rep_fd, .events = POLLIN};
    int rc = poll(&p, 1, (int)timeout_ms);
    if (rc < 0)
        return -errno;
    if (rc == 0)
        return -ETIMEDOUT;
    struct iovec iov = {.iov_base = r, .iov_len = sizeof *r};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1,
                         .msg_control = u.buf,
                         .msg_controllen = sizeof u.buf};
    ssize_t n;
    do
        n = recvmsg(sp->rep_fd, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    if (n != (ssize_t)sizeof *r)
        return n == 0 ? -EPIPE : -EPROTO;
    r->fds[0] = r->fds[1] = -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
        c->cmsg_len == CMSG_LEN(2 * sizeof(int)))
        memcpy(r->fds, CMSG_DATA(c), 2 * sizeof(int));
    if ((msg.msg_flags & MSG_CTRUNC) && r->err == 0) {
        /* The kernel dropped the descriptors: this process is at its
         * RLIMIT_NOFILE. The server runs on; the spawner ends it. */
        for (int i = 0; i < 2; i++)
            if (r->fds[i] >= 0)
                close(r->fds[i]);
        r->fds[0] = r->fds[1] = -1;
        r->err = -EMFILE;
        snprintf(r->why, sizeof r->why, "server %u (pid %d): the client "
                 "could not take its pipe pair", r->index, (int)r->pid);
    }
    return 0;
}

int spawner_spawn(struct spawner *sp, int group, unsigned first,
                  unsigned count, struct spawn_result *res)
{
    return spawner_spawn_on(sp, group, first, count, -1, res);
}

int spawner_spawn_on(struct spawner *sp, int group, unsigned first,
                     unsigned count, int cpu, struct spawn_result *res)
{
    struct cmd c = {CMD_SPAWN, first, count, 0, 0, group,
                    cpu < 0 ? 0 : cpu + 1};
    struct spawn_result *r = malloc(sizeof *r);
    for (unsigned i = 0; i < count; i++)
        res[i].fds[0] = res[i].fds[1] = -1; /* results never received */
    int rc = r ? write_full(sp->cmd_fd, &c, sizeof c) : -ENOMEM;
    int first_err = 0;
    for (unsigned got = 0; rc == 0 && got < count; got++) {
        /* The spawner bounds every start; this only guards against it
         * hanging itself. */
        rc = read_result(sp, r, sp->start_timeout_ms + 15000);
        if (rc == 0 && (r->index < first || r->index >= first + count))
            rc = -EPROTO;
        if (rc)
            break;
        res[r->index - first] = *r;
        /* Report the root failure, not the starts cancelled after it. */
        if (r->err && (!first_err || first_err == -ECANCELED))
            first_err = r->err;
    }
    free(r);
    if (rc == -EPIPE || rc == -ETIMEDOUT || rc == -EPROTO)
        return -EPIPE;
    return rc ? rc : first_err;
}

int spawn_parse_limit(char *line, const char *what, int64_t *value,
                      char *reason, size_t reason_len)
{
    static const char tag[] = "orbbench-limit ";
    size_t wlen = strlen(what);
    const char *p = line;
    line[strcspn(line, "\r\n")] = 0;
    if (strncmp(p, tag, sizeof tag - 1) != 0)
        return 0;
    p += sizeof tag - 1;
    if (strncmp(p, what, wlen) != 0 || p[wlen] != ' ')
        return 0;
    p += wlen + 1;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (errno || end == p || *p == '-' || *p == '+' || v <= 0 ||
        (*end && *end != ':')) {
        char shown[200];
        str_escape(shown, sizeof shown, line);
        snprintf(reason, reason_len, "declared \"%s\": not \"orbbench-limit "
                 "%s N: REASON\" with N a positive integer", shown, what);
        return -EINVAL;
    }
    *value = v;
    if (*end == ':')
        end += 1 + strspn(end + 1, " ");
    /* The server's own words: escaped (valid UTF-8 for the result file,
     * no ESC for the terminal). */
    str_escape(reason, reason_len, end);
    return 1;
}

int spawner_declared_limit(const struct spawner *sp, unsigned index,
                           const char *what, int64_t *value, char *reason,
                           size_t reason_len)
{
    char path[600], line[512];
    int found = 0;
    reason[0] = 0;
    if (!sp->cfg->log_dir)
        return 0;
    snprintf(path, sizeof path, "%s/s%u.log", sp->cfg->log_dir, index);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    /* Bounded: only the first few hundred lines are looked at. A line
     * longer than the buffer comes in pieces; only a piece that starts a
     * line may be a declaration (never the tail of a longer line). */
    bool at_start = true;
    for (int k = 0; k < 256 && !found && fgets(line, sizeof line, f); k++) {
        bool starts = at_start;
        at_start = strchr(line, '\n') != NULL;
        if (starts)
            found = spawn_parse_limit(line, what, value, reason, reason_len);
    }
    fclose(f);
    if (found < 0) {
        char why[400];
        str_copy(why, sizeof why, reason);
        snprintf(reason, reason_len, "server %u %s", index, why);
    }
    return found;
}

int spawner_check(struct spawner *sp, pid_t pid, int64_t wait_ms,
                  int *wstatus)
{
    struct cmd c = {CMD_CHECK, 0, 0, (int32_t)pid, wait_ms, 0, 0};
    struct check_reply rep;
    int rc = write_full(sp->cmd_fd, &c, sizeof c);
    if (!rc)
        rc = read_reply(sp, &rep, sizeof rep, wait_ms + 5000);
    if (rc)
        return rc;
    *wstatus = rep.wstatus;
    return rep.rc;
}

int spawner_kill(struct spawner *sp, const pid_t *pids, unsigned count,
                 int64_t wait_ms)
{
    struct cmd c = {CMD_KILL, 0, count, 0, wait_ms, 0, 0};
    int32_t *buf = malloc((count ? count : 1) * sizeof *buf);
    struct check_reply rep;
    if (!buf)
        return -ENOMEM;
    for (unsigned i = 0; i < count; i++)
        buf[i] = (int32_t)pids[i];
    int rc = write_full(sp->cmd_fd, &c, sizeof c);
    if (!rc)
        rc = write_full(sp->cmd_fd, buf, count * sizeof *buf);
    free(buf);
    if (!rc)
        rc = read_reply(sp, &rep, sizeof rep,
                        wait_ms * (int64_t)count + 5000);
    if (rc)
        return rc == -EINTR ? rc : -EPIPE;
    return rep.rc == (int32_t)count ? 0 : -ESRCH;
}

void spawner_stop(struct spawner *sp, int64_t grace_ms)
{
    if (!sp)
        return;
    struct cmd c = {CMD_STOP, 0, 0, 0, grace_ms, 0, 0};
    /* If the spawner is busy it sees the pipe close instead. */
    fcntl(sp->cmd_fd, F_SETFL, O_NONBLOCK);
    (void)!write(sp->cmd_fd, &c, sizeof c);
    close(sp->cmd_fd);
    close(sp->rep_fd);
    int st = 0;
    if (reap(sp->pid, grace_ms + 15000, &st) != 1) {
        kill(sp->pid, SIGKILL);
        reap(sp->pid, 5000, &st);
    }
    /* Whatever escaped the spawner's own cleanup is still in its group. */
    kill(-sp->pid, SIGKILL);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        /* It died before its cleanup (spawner_main ends with _exit(0)
         * only after it): whichever outlives the other removes the run
         * folder and the cgroups, here the client. Its servers die with
         * it (PR_SET_PDEATHSIG) and leave the cgroups as they go. */
        char how[96];
        spawn_describe_status(st, how, sizeof how);
        fprintf(stderr, "orbbench: the spawner (pid %d) died: %s; the "
                "client removed its servers, run folder and cgroups\n",
                (int)sp->pid, how);
        if (sp->cfg->log_dir)
            remove_dir(sp->cfg->log_dir, 1);
        for (int g = 0; g < sp->cfg->ngroups; g++) {
            const struct machine *m = sp->cfg->groups[g].machine;
            if (!m)
                continue;
            machine_remove_cgroup(m->cgroup_dir);
            machine_remove_cgroup(m->acct_dir);
        }
    }
    free(sp);
}

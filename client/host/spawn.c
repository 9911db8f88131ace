/* The spawner, the client's side: see spawn.h. The client sends
 * fixed-size command records over a pipe; the spawner answers over a
 * SOCK_SEQPACKET socketpair, one record per message, so that a spawn
 * result can carry the client's ends of a server's pipe pair
 * (SCM_RIGHTS: descriptors cannot cross a pipe). It ends (killing every
 * server) when the client says stop or goes away. The spawner's own
 * side: spawn_loop.c (its command loop) and spawn_start.c (starting
 * servers); spawn_files.c the run folder and the servers' logs. */
#include "host/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "host/machine.h"
#include "host/spawn_impl.h"

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
    if (spawn_reap(sp->pid, grace_ms + 15000, &st) != 1) {
        kill(sp->pid, SIGKILL);
        spawn_reap(sp->pid, 5000, &st);
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
            spawn_remove_dir(sp->cfg->log_dir, 1);
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

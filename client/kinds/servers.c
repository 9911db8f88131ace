/* Start servers and connect to them: see servers.h. */
#include "kinds/servers.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/result.h"
#include "core/util.h"
#include "host/machine.h"
#include "host/probe.h"

bool servers_resource_errno(int e)
{
    switch (e) {
    case EMFILE:        /* RLIMIT_NOFILE */
    case ENFILE:        /* the system's file table */
    case EAGAIN:        /* fork, threads: RLIMIT_NPROC, pids.max, pid_max */
    case ENOMEM:        /* memory, or the kernel's */
    case ENOSPC:        /* a disk, or a kernel table (epoll watches) */
    case EDQUOT:        /* a disk quota */
    case ENOBUFS:       /* socket buffers */
    case EADDRINUSE:    /* no local port left to bind */
    case EADDRNOTAVAIL: /* no ephemeral port left to connect from */
        return true;
    default:
        return false;
    }
}

static unsigned long long rlim_ull(rlim_t v)
{
    return (unsigned long long)v;
}

/* EAGAIN: which task limit. RLIMIT_NPROC counts the tasks of the real
 * uid; it is named when they are within 5% (or 8 tasks) of it. Then a
 * pids cgroup that refused a fork, then the machine's pid_max and
 * threads-max; failing all three, every figure, so the reader can tell. */
static void task_note(char *buf, size_t len)
{
    struct rlimit rl;
    char note[600];
    int64_t mine = -1;
    bool nproc = getrlimit(RLIMIT_NPROC, &rl) == 0 &&
                 rl.rlim_cur != RLIM_INFINITY;
    if (nproc) {
        mine = probe_user_tasks(getuid());
        int64_t lim = (int64_t)rl.rlim_cur;
        if (mine >= 0 && (mine * 100 >= lim * 95 || mine + 8 >= lim)) {
            snprintf(buf, len, " (RLIMIT_NPROC %llu: uid %d has %lld tasks)",
                     rlim_ull(rl.rlim_cur), (int)getuid(), (long long)mine);
            return;
        }
    }
    if (probe_task_limit(getpid(), note, sizeof note)) {
        snprintf(buf, len, " (%s)", note);
        return;
    }
    char np[96] = "unlimited";
    if (nproc)
        snprintf(np, sizeof np, "%llu, uid %d has %lld tasks",
                 rlim_ull(rl.rlim_cur), (int)getuid(), (long long)mine);
    snprintf(buf, len,
             " (threads in use %lld of pid_max %lld, threads-max %lld; "
             "RLIMIT_NPROC %s; no pids cgroup refused a task)",
             (long long)probe_tasks_total(), (long long)probe_pid_max(),
             (long long)probe_threads_max(), np);
}

void servers_limit_note(int e, char *buf, size_t len)
{
    struct rlimit rl;
    int64_t used, max;
    buf[0] = 0;
    switch (e) {
    case EMFILE:
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
            snprintf(buf, len,
                     " (client descriptors %lld of RLIMIT_NOFILE %llu)",
                     (long long)probe_own_fds(), rlim_ull(rl.rlim_cur));
        break;
    case ENFILE:
        probe_file_table(&used, &max);
        snprintf(buf, len,
                 " (the system file table: %lld files open of fs.file-max "
                 "%lld)",
                 (long long)used, (long long)max);
        break;
    case EAGAIN:
        task_note(buf, len);
        break;
    case ENOMEM: {
        struct machine_mem m = {0};
        probe_machine_mem(&m);
        snprintf(buf, len, " (memory: MemAvailable %lld kB)",
                 (long long)m.mem_available_kb);
        break;
    }
    case ENOSPC:
        snprintf(buf, len, " (no space: a disk, or a kernel table such as "
                           "fs.epoll.max_user_watches)");
        break;
    case EDQUOT:
        snprintf(buf, len, " (a disk quota)");
        break;
    case ENOBUFS:
        snprintf(buf, len, " (the kernel's socket buffers: net.core.*mem, "
                           "net.ipv4.tcp_mem)");
        break;
    case EADDRINUSE:
        snprintf(buf, len, " (no local port left to bind: "
                           "net.ipv4.ip_local_port_range)");
        break;
    case EADDRNOTAVAIL:
        snprintf(buf, len, " (ephemeral ports exhausted?)");
        break;
    default:
        break;
    }
}

bool servers_resource_stop(struct run_outcome *o, int err, const char *why,
                           const char *at)
{
    if (err >= 0 || !servers_resource_errno(-err))
        return false;
    char note[700];
    servers_limit_note(-err, note, sizeof note);
    run_stop(o, STOP_RESOURCE, 0, "%s%s%s", why, at ? at : "", note);
    return true;
}

const struct server_source *servers_source(const struct side *s,
                                           struct server_source *own)
{
    if (s->src)
        return s->src;
    server_source_spawner(own, s->sp);
    return own;
}

void servers_failed(struct side *s, struct run_outcome *o,
                    const struct servers_failure *f)
{
    struct server_source own;
    const struct server_source *src = servers_source(s, &own);
    const char *at = f->at ? f->at : "", *why = f->why ? f->why : "";
    char who[160], status[96], note[600];
    if (f->name)
        snprintf(who, sizeof who, "%s", f->name);
    else
        snprintf(who, sizeof who, "%s %u", f->who ? f->who : "server",
                 f->index);
    if (f->err == -EINTR && *s->interrupted) {
        /* Before any wait on the server: an interrupt stops at once. */
        run_stop(o, STOP_INTERRUPTED, 130, "interrupted%s", at);
        return;
    }
    int st = f->wstatus;
    bool gone = f->exited || (f->pid > 0 &&
                              src->ops->check(src->ctx, f->pid, 200, &st) == 1);
    int64_t oom0 = f->oom_kills < 0 ? 0 : f->oom_kills;
    if (!src->ops->started_here) {
        /* Not ours: no wait status, no cgroup; say which server it was. */
        src->ops->describe(src->ctx, f->index, note, sizeof note);
        run_stop(o, gone ? STOP_SERVER_DIED : STOP_CALL_FAILED, 1,
                 "external %s (%s)%s%s: %s", who, note,
                 gone ? " is not running" : "", at, why);
    } else if (gone && s->machine && st != -1 && WIFSIGNALED(st) &&
               WTERMSIG(st) == SIGKILL &&
               machine_oom_kills(s->machine) > oom0) {
        run_stop(o, STOP_MEMORY, 0,
                 "%s (pid %d) was killed by the OOM killer in the %lld MB "
                 "memory cgroup%s (OOM kills so far: %lld)", who, (int)f->pid,
                 (long long)(s->machine->limit_bytes / (1024 * 1024)), at,
                 (long long)machine_oom_kills(s->machine));
    } else if (gone) {
        if (st == -1)
            snprintf(status, sizeof status, "is not running");
        else
            spawn_describe_status(st, status, sizeof status);
        run_stop(o, STOP_SERVER_DIED, 1, "%s (pid %d) %s%s: %s", who,
                 (int)f->pid, status, at, why);
    } else if (f->pid > 0 && probe_task_limit(f->pid, note, sizeof note)) {
        /* A live server that dropped its connection: it could not start
         * a thread for it. */
        run_stop(o, STOP_RESOURCE, 0, "%s%s: %s", why, at, note);
    } else {
        run_stop(o, STOP_CALL_FAILED, 1, "%s%s", why, at);
    }
}

/* The default for a connect that failed: as each kind did. */
static void connect_failed(struct side *s, struct run_outcome *o,
                           const struct server_source *src,
                           const struct servers_want *w, struct conn *c,
                           int err)
{
    const char *at = w->at ? w->at : "";
    char status[96];
    int st;
    if (err == -EINTR && *s->interrupted) {
        run_stop(o, STOP_INTERRUPTED, 130, "interrupted connecting%s", at);
    } else if (src->ops->check(src->ctx, c->pid, 200, &st) == 1) {
        if (st == -1)
            snprintf(status, sizeof status, "is not running");
        else
            spawn_describe_status(st, status, sizeof status);
        run_stop(o, STOP_SERVER_DIED, 1, "%s %u (pid %d) %s connecting%s: %s",
                 w->who ? w->who : "server", c->index, (int)c->pid, status,
                 at, c->why);
    } else {
        run_stop(o, STOP_CALL_FAILED, 1, "%s %u (pid %d) connecting%s: %s",
                 w->who ? w->who : "server", c->index, (int)c->pid, at,
                 c->why);
    }
}

/* A start that failed: rc and the first result that has it. */
static void start_failed(struct side *s, struct run_outcome *o,
                         const struct servers_want *w, int64_t oom0, int rc,
                         const struct spawn_result *res)
{
    const char *at = w->at ? w->at : "";
    const struct spawn_result *bad = NULL;
    char why[SPAWN_WHY_BYTES + 80], note[700];
    for (unsigned k = 0; k < w->count && !bad; k++)
        if (res[k].err == rc)
            bad = &res[k];
    snprintf(why, sizeof why, "%s%s%s", w->who ? w->who : "",
             w->who ? ": " : "",
             bad && bad->why[0] ? bad->why : "a server failed to start");
    if (rc == -EINTR && *s->interrupted) {
        run_stop(o, STOP_INTERRUPTED, 130, "interrupted starting %s%s",
                 w->who ? w->who : "the servers", at);
    } else if (rc == -EPIPE) {
        run_stop(o, STOP_CALL_FAILED, 1,
                 "the spawner process stopped answering%s", at);
    } else if (servers_resource_stop(o, rc, why, at)) {
        /* a limit of the machine */
    } else if (bad && bad->pid > 0 && oom0 >= 0 && s->machine &&
               WIFSIGNALED(bad->wstatus) &&
               WTERMSIG(bad->wstatus) == SIGKILL &&
               machine_oom_kills(s->machine) > oom0) {
        run_stop(o, STOP_MEMORY, 0,
                 "server %u (pid %d) was killed by the OOM killer in the "
                 "%lld MB memory cgroup%s (OOM kills so far: %lld)",
                 bad->index, (int)bad->pid,
                 (long long)(s->machine->limit_bytes / (1024 * 1024)), at,
                 (long long)machine_oom_kills(s->machine));
    } else if (bad && probe_task_limit(getpid(), note, sizeof note)) {
        run_stop(o, STOP_RESOURCE, 0, "%s%s: %s", why, at, note);
    } else {
        run_stop(o, STOP_SERVER_DIED, 1, "%s", why);
    }
}

int servers_open_conn(const struct side *s, struct conn *c,
                      const struct target *t, unsigned index, pid_t pid,
                      const struct payload_type *payload)
{
    const struct scenario *sc = s->sc;
    int crc = conn_open(c, s->tp, s->server->wire, t, index, pid,
                        (size_t)sc->call.payload_bytes, sc->call.timeout_ms);
    if (!crc && payload)
        crc = conn_use_payload(c, payload);
    return crc;
}

size_t servers_start(struct side *s, struct run_outcome *o,
                     const struct servers_want *w, struct spawn_result *res)
{
    struct server_source own;
    const struct server_source *src = servers_source(s, &own);
    const char *at = w->at ? w->at : "";
    struct spawn_result *mine = NULL;
    size_t count = w->count, n = 0;
    if (!res && !(res = mine = calloc(count ? count : 1, sizeof *res))) {
        run_stop(o, STOP_RESOURCE, 0, "out of memory in the client%s", at);
        return 0;
    }
    for (size_t k = 0; k < count; k++) {
        res[k].pid = 0;
        res[k].err = -ECANCELED;
        res[k].fds[0] = res[k].fds[1] = -1;
        res[k].why[0] = 0;
    }
    int64_t oom0 = w->oom_kills;
    if (oom0 < 0 && s->machine)
        oom0 = machine_oom_kills(s->machine);
    int rc = src->ops->start(src->ctx, w->group, w->first, (unsigned)count,
                             w->cpu, res);
    /* Record every server that came up, even when another failed (those
     * of a list are in the result's "external"). */
    for (size_t k = 0; k < count && src->ops->started_here; k++)
        if (res[k].pid > 0 && res[k].err == 0) {
            result_add_server(s->doc, res[k].index, res[k].pid,
                              (double)res[k].start_ns / 1e6);
            if (w->starts)
                samples_add(w->starts, res[k].start_ns);
        }
    bool ok = rc == 0;
    if (rc)
        start_failed(s, o, w, oom0, rc, res);
    if (!w->slot) {
        free(mine);
        return ok ? count : 0;
    }
    /* Connect to those that are up, in order, so conns stay dense. */
    for (size_t k = 0; k < count; k++) {
        struct spawn_result *sr = &res[k];
        if (sr->err || (sr->pid <= 0 && src->ops->started_here))
            break;
        struct target t;
        char why[CONN_WHY_BYTES];
        int prc = s->server->wire->parse_ready(sr->line, &t, why, sizeof why);
        if (prc) {
            char who[600];
            src->ops->describe(src->ctx, sr->index, who, sizeof who);
            if (ok && who[0])
                run_stop(o, STOP_CALL_FAILED, 1, "server %u (%s): %s",
                         sr->index, who, why);
            else if (ok)
                run_stop(o, STOP_CALL_FAILED, 1, "server %u (pid %d): %s",
                         sr->index, (int)sr->pid, why);
            ok = false;
            break;
        }
        /* Descriptors the spawner handed over (a pipe pair) are part of
         * the target: the conn takes them. */
        t.rfd = sr->fds[0];
        t.wfd = sr->fds[1];
        t.remote_ok = s->remote_ok;
        sr->fds[0] = sr->fds[1] = -1;
        struct conn *c = w->slot(w->arg, n);
        if (w->idle) {
            /* Known by pid, never connected or called; handed-over
             * descriptors stay open (closing a pipe pair would end its
             * server) and close with the conn. */
            memset(c, 0, sizeof *c);
            c->tp = s->tp;
            c->fds.rfd = t.rfd;
            c->fds.wfd = t.wfd;
            c->index = sr->index;
            c->pid = sr->pid;
            c->target = t; /* where to connect later (kind fanin) */
            n++;
            continue;
        }
        int crc = servers_open_conn(s, c, &t, sr->index, sr->pid, w->payload);
        if (crc) {
            if (ok && !servers_resource_stop(o, crc, c->why, at)) {
                if (w->failed)
                    w->failed(w->arg, n, c, crc);
                else
                    connect_failed(s, o, src, w, c, crc);
            }
            conn_close(c);
            ok = false;
            break;
        }
        n++;
    }
    /* Descriptors of servers not connected (a failure came first). */
    for (size_t k = 0; k < count; k++)
        for (int i = 0; i < 2; i++)
            if (res[k].fds[i] >= 0) {
                close(res[k].fds[i]);
                res[k].fds[i] = -1;
            }
    free(mine);
    return n;
}

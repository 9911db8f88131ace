/* Inside the spawner: its command loop (spawner_main), the servers it
 * has started and not reaped, checking and killing them on request, and
 * stopping them all at its end. Starting them: spawn_start.c. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "host/machine.h"
#include "host/spawn.h"
#include "host/spawn_impl.h"

void spawn_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

int spawn_live_add(struct live *l, pid_t pid)
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

/* Reap pid, waiting at most wait_ms. 1 when reaped (*wstatus set). */
int spawn_reap(pid_t pid, long wait_ms, int *wstatus)
{
    for (long waited = 0;; waited += 2) {
        pid_t r = waitpid(pid, wstatus, WNOHANG);
        if (r == pid)
            return 1;
        if (r < 0)
            return -errno;
        if (waited >= wait_ms)
            return 0;
        spawn_sleep_ms(2);
    }
}

static void do_check(int rep_fd, const struct cmd *c, struct live *live)
{
    struct check_reply rep = {0, 0};
    int rc = spawn_reap(c->pid, (long)c->ms, &rep.wstatus);
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
        if (pids[i] && spawn_reap(pids[i], (long)c->ms, &st) == 1) {
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
            spawn_sleep_ms(1);
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

void spawner_main(const struct spawn_config *cfg, int cmd_fd, int rep_fd)
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
            if (spawn_serve_start(cfg, cmd_fd, rep_fd, null_fd, c.group,
                                  c.first, c.count, c.cpu_plus_one - 1,
                                  &live) != 0)
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
    spawn_remove_dir(cfg->log_dir, 1);
    for (int g = 0; g < cfg->ngroups; g++) {
        if (!cfg->groups[g].machine)
            continue;
        machine_remove_cgroup(cfg->groups[g].machine->cgroup_dir);
        machine_remove_cgroup(cfg->groups[g].machine->acct_dir);
    }
    _exit(0);
}

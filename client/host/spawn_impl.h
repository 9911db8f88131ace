/* What the spawner's files share (spawn.c, the client's side;
 * spawn_loop.c and spawn_start.c, inside the spawner; spawn_files.c):
 * the command protocol between the client and the spawner, and the
 * calls between the files. Theirs alone. */
#ifndef ORBBENCH_SPAWN_IMPL_H
#define ORBBENCH_SPAWN_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/spawn.h"

enum { CMD_SPAWN = 1, CMD_CHECK = 2, CMD_STOP = 3, CMD_KILL = 4 };

/* One command, client -> spawner, over a pipe. */
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

/* CHECK's and KILL's reply, spawner -> client. */
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

/* The servers the spawner started and has not reaped. */
struct live {
    pid_t *pids;
    size_t len;
    size_t cap;
};

/* spawn_loop.c: the spawner's life, from fork to _exit (it never
 * returns); sleep; reap pid within wait_ms (1 when reaped, *wstatus
 * set; 0 when not yet; -errno); add a started server to `l` (0 or
 * -ENOMEM). */
void spawner_main(const struct spawn_config *cfg, int cmd_fd, int rep_fd)
    __attribute__((noreturn));
void spawn_sleep_ms(long ms);
int spawn_reap(pid_t pid, long wait_ms, int *wstatus);
int spawn_live_add(struct live *l, pid_t pid);

/* spawn_start.c: serve one CMD_SPAWN of servers first..first+count-1 of
 * `group`, pinned to `cpu` (-1: none). -1 when the client went away
 * meanwhile. */
int spawn_serve_start(const struct spawn_config *cfg, int cmd_fd,
                      int rep_fd, int null_fd, int group, unsigned first,
                      unsigned count, int cpu, struct live *live);

/* spawn_files.c: process `index`'s last non-empty log line (its log
 * dir/PREFIX<index>.log: "s" for a server), escaped, into out ("" without
 * one); remove folder `dir` with its files and those of folders `depth`
 * levels down. */
void spawn_log_tail(const char *dir, const char *prefix, unsigned index,
                    char *out, size_t cap);
void spawn_remove_dir(const char *dir, int depth);

#endif

/* Where a run's servers come from, behind one set of operations: forked
 * by the spawner (every ORB kind), or listed in a file of stringified IORs
 * (server.kind external: servers orbbench did not start, and never stops
 * or signals). */
#ifndef ORBBENCH_SOURCE_H
#define ORBBENCH_SOURCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/spawn.h"

struct server_source_ops {
    const char *name;  /* "spawner", "list" */
    bool started_here; /* orbbench started the servers, and stops them */
    /* Make servers first..first+count-1 of `group` available: fill
     * res[0..count-1] (the ready line is what the wire parses; pid 0 when
     * unknown). cpu >= 0: pin each to that CPU (spawner_spawn_on; a
     * list cannot: -EINVAL). As spawner_spawn. */
    int (*start)(void *ctx, int group, unsigned first, unsigned count,
                 int cpu, struct spawn_result *res);
    /* The sweep has closed its connections to these servers: stop them
     * (the spawner) or leave them be (a list). As spawner_kill. */
    int (*drop)(void *ctx, const pid_t *pids, unsigned count,
                int64_t wait_ms);
    /* Has server `pid` exited? As spawner_check; *wstatus is -1 when the
     * server is gone but its status cannot be known (not our child). */
    int (*check)(void *ctx, pid_t pid, int64_t wait_ms, int *wstatus);
    /* Where server `index` came from, for messages ("iors.txt:3, pid
     * 123"); "" when nothing more than its pid is known. */
    void (*describe)(void *ctx, unsigned index, char *buf, size_t len);
    /* Why server `index` has no pid (footprint unavailable), or NULL. */
    const char *(*no_pid_why)(void *ctx, unsigned index);
};

struct server_source {
    const struct server_source_ops *ops;
    void *ctx;
};

/* Servers forked by `sp`. */
void server_source_spawner(struct server_source *src, struct spawner *sp);

/* One line of an IOR list. */
struct ior_entry {
    unsigned line;  /* 1-based line number in the file */
    char *ior;      /* the stringified IOR, malloc'd */
    pid_t pid;      /* the server's process, 0 when unknown */
    const char *pid_from; /* "list", "socket" (its listening socket's
                           * owner) or NULL */
    char host[256]; /* the endpoint the transport will use, for messages */
    char why[200];  /* no pid: why not */
};

struct ior_list {
    char path[512];  /* "-" for standard input */
    size_t lines;    /* lines read, comments and blanks included */
    char sha256[65]; /* of the bytes read */
    struct ior_entry *e;
    size_t n;
};

/* Read an IOR list (`path`, or standard input for "-", 16 MiB at most):
 * one stringified IOR a line, optionally followed by the server's PID;
 * '#' comments and blank lines skipped. Each IOR must parse, give an
 * endpoint for `transport` ("tcp": host and port, "unix": a socket path)
 * and, over TCP, an address in loopback or matched by allow[0..nallow-1]
 * (exact hosts, or IPv4 CIDR networks "10.0.0.0/8"). Servers without a PID
 * on a loopback or Unix endpoint are looked for by their listening
 * socket's owner in /proc. 0, or -errno with one line in `why` naming the
 * file and line. Free with ior_list_free. */
int ior_list_load(struct ior_list *l, const char *path,
                  const char *transport, char *const *allow, size_t nallow,
                  char *why, size_t why_len);
void ior_list_free(struct ior_list *l);

/* Is allow entry `a` well formed (a host, or a.b.c.d/bits)? */
bool ior_allow_valid(const char *a);

/* The list's servers; `l` must outlive src. */
void server_source_list(struct server_source *src, struct ior_list *l);

/* The result's "external" object: where the IORs came from, that
 * orbbench did not start the servers, what was allowed. */
json_t *ior_list_json(const struct ior_list *l, char *const *allow,
                      size_t nallow, int64_t max_n);

#endif

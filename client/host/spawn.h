/* The spawner: a small single-threaded process, forked before the client
 * starts any thread, that forks and execs servers on request (the "forking
 * proxy" of Grisby's message), waits for each one's ready line on its
 * stdout, and kills and reaps them all at the end. Servers live in the
 * spawner's process group and die with it (PR_SET_PDEATHSIG); the spawner
 * sees the client's pipes close when the client ends, however it ends, and
 * then kills and reaps every server: nothing outlives a killed client. */
#ifndef ORBBENCH_SPAWN_H
#define ORBBENCH_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct machine;

#define SPAWN_MAX_LINE 4096
#define SPAWN_WHY_BYTES 512
/* The most words of a server's command line: its path, an endpoint's
 * (ENDPOINT_MAX_WORDS), a JVM's (SERVER_JVM_MAX_WORDS), the work options
 * and server.args (SCENARIO_MAX_ARGS), with room to spare. */
#define SPAWN_MAX_ARGS 88

/* Builds the argument list of server `index`: fills argv (NULL-terminated,
 * at most SPAWN_MAX_ARGS entries) using `buf` (buf_len bytes) for any
 * strings it makes. Runs in the spawner. */
typedef void (*spawn_argv_fn)(const void *arg, unsigned index, char **argv,
                              char *buf, size_t buf_len);

/* Each side's servers, and each side's caller (docs/callers.md). */
#define SPAWN_MAX_GROUPS 4

/* With spawn_group.pipe_pair, each server reads the client's bytes on
 * this descriptor and writes its replies on that one. */
#define SPAWN_PIPE_SERVER_RFD 3
#define SPAWN_PIPE_SERVER_WFD 4

/* One kind of server the spawner starts: a paired run has two, the
 * servers of side A and of side B. */
struct spawn_group {
    /* Builds its processes' argv; NULL: the config's make_argv. */
    spawn_argv_fn make_argv;
    const void *make_argv_arg;
    /* Servers join its cgroups and take its CPUs before exec; its cgroups
     * are removed when the spawner ends. NULL: none. */
    const struct machine *machine;
    /* Give each server a pipe pair (its ends as SPAWN_PIPE_SERVER_RFD and
     * _WFD) and hand the client's ends back with its spawn result. */
    bool pipe_pair;
    /* NULL: the ready line is the first line a server writes on its
     * stdout. Else it is the first line the server writes on its stderr
     * that holds this text, from the text on; its stdout, and the lines
     * on stderr before that one, go to its log. For servers that print
     * their IOR among log lines on stderr and stop writing there once
     * running (omniEvents): a write after the ready line finds the pipe
     * closed. */
    const char *ready_marker;
    /* A process that talks on its stdin and stdout (a caller,
     * docs/callers.md): its stdin is a pipe and, once its ready line is
     * in, the client gets that pipe's write end and the read end of its
     * stdout (the spawn result's fds[1] and fds[0], the latter
     * non-blocking) and the spawner keeps neither. A byte it wrote after
     * its ready line's newline, read together with it, fails its start
     * (the client would never see it). Not with pipe_pair or
     * ready_marker. */
    bool stdio_pipes;
    /* Its log is log_dir/PREFIX<index>.log; NULL: "s" (every server's:
     * spawner_declared_limit reads those). */
    const char *log_prefix;
    /* Names the process in messages ("caller"); NULL: "server". */
    const char *noun;
};

struct spawn_config {
    spawn_argv_fn make_argv;
    struct spawn_group groups[SPAWN_MAX_GROUPS];
    int ngroups;
    /* Server stderr goes to log_dir/s<i>.log; the spawner removes the
     * folder and its files when it ends. Indices are unique across
     * groups. */
    const char *log_dir;
    int64_t start_timeout_ms;  /* fork to ready line */
    int start_parallel;        /* servers starting at once */
};

/* What became of one server start. */
struct spawn_result {
    unsigned index;
    pid_t pid;        /* 0 when no process was made */
    int err;          /* 0 ready; -errno: see why */
    int wstatus;      /* when it died: its wait status */
    int64_t start_ns; /* fork to ready line */
    /* With pipe_pair, once ready: the client's ends, [0] to read the
     * server's replies, [1] to write requests; close-on-exec, blocking,
     * owned by the caller. Else -1. */
    int fds[2];
    char line[SPAWN_MAX_LINE];  /* its ready line, without the newline */
    char why[SPAWN_WHY_BYTES];  /* one line, when err != 0 */
};

struct spawner;

/* Is environment variable `name` one that would let a server listen
 * beyond what its arguments say (omniORB's ORBendPoint* parameters, its
 * OMNIORB_CONFIG file, TAO's TAO_ORBENDPOINT, ORBit2's ORBIT_SOCKETDIR,
 * the folder of its Unix sockets, MICO's MICORC, its options file)? The
 * spawner drops these from its
 * environment, so no server sees them. */
bool spawn_env_unsafe(const char *name, size_t len);

/* Remove run folders parent/orbbench-PID-XXXXXX (and their files) that
 * this user's earlier runs left when killed together with their spawner
 * (machine_leftover_pid: the PID is gone). Returns how many; their paths
 * are appended to list, ";"-separated. */
int spawn_remove_leftover_dirs(const char *parent, char *list, size_t len);

/* Fork the spawner. Call before any thread exists. 0 or -errno. The config
 * is copied by fork, so it must stay valid until spawner_stop. */
int spawner_start(struct spawner **out, const struct spawn_config *cfg);

/* Start servers first..first+count-1 of `group` and fill res[0..count-1].
 * Stops starting new ones after the first failure (those get -ECANCELED).
 * Returns 0 when all are ready, else the first failure's err: -EAGAIN /
 * -ENOMEM / -EMFILE... (fork or pipe: a resource ran out), -ETIMEDOUT (no
 * ready line in time; the server was killed), -ECHILD (it died: wstatus),
 * -EPIPE (the spawner itself is gone). A result whose pipe pair the
 * client could not take (RLIMIT_NOFILE) fails with -EMFILE. */
int spawner_spawn(struct spawner *sp, int group, unsigned first,
                  unsigned count, struct spawn_result *res);

/* The same, each server pinned to CPU `cpu` (sched_setaffinity between
 * fork and exec, after it took the group's CPUs: a CPU outside them
 * fails its start, exit status 125 with the reason in its log); -1: no
 * pin, as spawner_spawn. */
int spawner_spawn_on(struct spawner *sp, int group, unsigned first,
                     unsigned count, int cpu, struct spawn_result *res);

/* One line of a server's log: is it "orbbench-limit WHAT N[: REASON]"?
 * 1 with *value and reason, 0 when it is not about WHAT, -EINVAL when N
 * is not a positive integer (reason: "declared \"LINE\": ..."). The line
 * loses its line end. */
int spawn_parse_limit(char *line, const char *what, int64_t *value,
                      char *reason, size_t reason_len);

/* The limit server `index` declared, before its ready line, with a line
 * "orbbench-limit WHAT VALUE: REASON" on its stderr (its log): a limit the
 * server knows and orbbench cannot see from outside, such as a select()
 * reactor's FD_SETSIZE (docs/servers.md#declared-limits). The first such
 * line for WHAT counts. 1 with *value and `reason` (the line's text after
 * the colon, maybe empty), 0 when it declared none (or its log is gone),
 * -EINVAL for a line naming WHAT whose VALUE is not a positive integer
 * (reason then says so). */
int spawner_declared_limit(const struct spawner *sp, unsigned index,
                           const char *what, int64_t *value, char *reason,
                           size_t reason_len);

/* The last non-empty line process `index` of `group` wrote to its log
 * (its stderr), escaped for a message; "" when it wrote none or its log
 * is gone. */
void spawner_log_tail(const struct spawner *sp, int group, unsigned index,
                      char *buf, size_t len);

/* Has server `pid` exited? Waits up to wait_ms for it to. Returns 1 (with
 * *wstatus), 0 (still running) or -errno. */
int spawner_check(struct spawner *sp, pid_t pid, int64_t wait_ms,
                  int *wstatus);

/* Stop servers pids[0..count-1] now (SIGKILL) and reap each within
 * wait_ms: the bisection of the crossing drops the newest servers. Only
 * servers this spawner started and that are still running are signalled.
 * 0 when all were stopped; -ESRCH when some were not ours or not reaped in
 * time; -EPIPE when the spawner is gone; -EINTR when interrupted. */
int spawner_kill(struct spawner *sp, const pid_t *pids, unsigned count,
                 int64_t wait_ms);

/* Stop every server (SIGTERM, then SIGKILL after grace_ms), reap them, end
 * the spawner and free sp. Safe on any path, including after a failure. */
void spawner_stop(struct spawner *sp, int64_t grace_ms);

/* The process group holding every server (the spawner's pid). */
pid_t spawner_pgid(const struct spawner *sp);

/* Describe a wait status: "exited with status 1", "killed by signal 9
 * (Killed)". */
void spawn_describe_status(int wstatus, char *buf, size_t len);

#endif

/* Emulated machines: a memory cgroup that the servers (and optionally the
 * client) start inside, and CPU placement for servers and client. */
#ifndef ORBBENCH_MACHINE_H
#define ORBBENCH_MACHINE_H

#include <jansson.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/scenario.h"

struct machine {
    char name_suffix[8];      /* of its cgroups: "" or a paired run's "-b" */
    int cgroup_version;       /* 0 = no cgroup, 1 or 2 */
    char cgroup_dir[256];     /* ours, removed at the end */
    char cgroup_procs[300];   /* write a pid here to join */
    char parent_procs[300];   /* write a pid here to leave */
    int64_t limit_bytes;
    bool client_joined;
    bool has_server_cpus;
    cpu_set_t server_cpus;
    bool has_client_cpus;
    cpu_set_t client_cpus;
    /* CPU accounting of all servers together: a cgroup v1 cpuacct group,
     * or (v2) a cgroup whose cpu.stat is read. Empty when unavailable. */
    int acct_version;
    char acct_dir[256];
    char acct_procs[300];
    char acct_unavailable[160]; /* why, when acct_dir is empty */
};

/* CPU time, in ns: the total is the scheduler's exact count; the kernel
 * splits user/system by tick sampling, so the split is rough until many
 * ticks (4 ms each here) have passed. */
struct cpu_usage {
    int64_t total_ns;
    int64_t user_ns;
    int64_t sys_ns;
};

/* Prepare what the scenario's `machine` keys ask for: create the memory
 * cgroup (v1 memory controller or v2 memory.max) and parse CPU lists.
 * 0, or -errno with a one-line reason (no permission, no memory
 * controller): the caller must not run without the limit asked for.
 * The cgroups are named orbbench-PID`suffix` (a paired run's side B has
 * cgroups of its own, so its servers' CPU is counted apart). */
int machine_setup(struct machine *m, const struct scenario *sc,
                  const char *suffix, char *why, size_t why_len);

/* The cgroup of a caller (docs/callers.md): a CPU accounting group of
 * its own, orbbench-PID`suffix`, read by machine_server_cpu as a
 * server group's is, and the client's CPUs (machine.client_cpus), which
 * machine_enter_server gives it; no memory limit. The result says why
 * the accounting is missing when it is (acct_unavailable). 0, or -errno
 * for a CPU list that cannot be used. */
int machine_setup_caller(struct machine *m, const struct scenario *sc,
                         const char *suffix, char *why, size_t why_len);

/* In the client, after the spawner is forked: join the cgroup when
 * limit_client, pin this thread (and so every later thread) to
 * client_cpus. 0 or -errno with a reason. */
int machine_enter_client(struct machine *m, bool limit_client, char *why,
                         size_t why_len);

/* Move the client out of the cgroup again (so it can be removed). */
void machine_leave_client(struct machine *m);

/* For the spawner's child, between fork and exec: join the cgroup and
 * take the server CPUs. Async-signal-safe calls only. 0 or -errno. */
int machine_enter_server(const struct machine *m);

/* Remove a cgroup directory, retrying briefly while its last processes
 * are being reaped. Safe to call with an empty path. */
void machine_remove_cgroup(const char *dir);

/* What earlier runs left when they were killed together with their
 * spawner, so that neither could clean up: the PID in a name
 * "orbbench-PID" or "orbbench-PID-..." when that process no longer
 * exists (0 otherwise: not such a name, this process, or alive). */
pid_t machine_leftover_pid(const char *name);
/* For each entry of parent whose name has such a PID, remove(dirfd,
 * name, path); the paths it removed (it returned true) are appended to
 * list, ";"-separated. Returns how many. */
int machine_each_leftover(const char *parent,
                          bool (*remove)(int dfd, const char *name,
                                         const char *path),
                          char *list, size_t len);
/* Remove the cgroups orbbench-PID* of such PIDs below the places this
 * run would make its own (the memory, cpuacct and v2 hierarchies, at
 * this process's cgroup and at the root). An rmdir fails on a cgroup
 * that still holds a process, so nothing live is touched. Returns how
 * many were removed; their paths are appended to list, ";"-separated. */
int machine_remove_leftovers(char *list, size_t len);

/* CPU time of every server so far. 0, or -ENOENT when no accounting. */
int machine_server_cpu(const struct machine *m, struct cpu_usage *u);

/* OOM kills in our cgroup so far, or -1 when unknown / no cgroup. */
int64_t machine_oom_kills(const struct machine *m);

/* The placement and limits actually applied, for the result. */
json_t *machine_describe(const struct machine *m);

#endif

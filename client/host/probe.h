/* Readings from /proc and the system: memory, host identity, limits. */
#ifndef ORBBENCH_PROBE_H
#define ORBBENCH_PROBE_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

/* The host as JSON: cpu_model, cpus_online, mem_total_kb, kernel,
 * hostname, os. New reference. */
json_t *probe_host(void);

/* Limits that can stop a sweep, as JSON: nofile, nproc, pid_max,
 * threads_max, ip_local_port_range, somaxconn. New reference. */
json_t *probe_limits(void);

/* Tasks (threads) in the whole system, from /proc/loadavg; -1 if unknown. */
int64_t probe_tasks_total(void);
/* kernel.pid_max, or -1. */
int64_t probe_pid_max(void);
/* kernel.threads-max, or -1. */
int64_t probe_threads_max(void);
/* Descriptors this process has open, or -1. */
int64_t probe_own_fds(void);

/* Tasks (threads) whose real uid is `uid`, what RLIMIT_NPROC counts,
 * from /proc/PID/status; -1 if unknown. */
int64_t probe_user_tasks(uid_t uid);
/* The system's file table, from /proc/sys/fs/file-nr: files open and
 * fs.file-max. 0, or -errno with both -1. */
int probe_file_table(int64_t *used, int64_t *max);

/* One process's footprint. Sizes in KiB. */
struct proc_footprint {
    int64_t rss_kb;
    int64_t pss_kb;
    int64_t uss_kb; /* Private_Clean + Private_Dirty */
    int64_t threads;
    int64_t fds;
};

/* Read /proc/PID/smaps_rollup, /proc/PID/status and /proc/PID/fd. 0 or
 * -errno (-ENOENT: the process is gone). */
int probe_process(pid_t pid, struct proc_footprint *fp);

/* Append the inodes of the sockets pid holds (its /proc/PID/fd links
 * "socket:[INODE]": listening and connected alike) to *inodes, n of cap
 * used, growing it (realloc; the caller frees it). 0, or -errno
 * (-ENOENT: the process is gone; -ENOMEM). */
int probe_socket_inodes(pid_t pid, uint64_t **inodes, size_t *n,
                        size_t *cap);

/* Context switches, voluntary and not, of every thread of pid so far
 * (/proc/PID/task/TID/status; a thread that ends meanwhile is left
 * out), or -1 when the process cannot be read. */
int64_t probe_task_ctx_switches(pid_t pid);

/* The path of the first file mapped into pid whose name starts with
 * `prefix` (e.g. "libomniORB4"), from /proc/PID/maps, or else of the first
 * such file it holds open (/proc/PID/fd: a JVM reads its jars through
 * descriptors and maps none). 0 or -ENOENT (also for a NULL prefix: an
 * ORB-less server has no library to find). */
int probe_mapped_library(pid_t pid, const char *prefix, char *path,
                         size_t len);

/* Is pid, or the machine, at a limit on tasks (threads/processes)? Looks
 * at the pids cgroups holding pid (v1 or v2, up to the root) and at the
 * machine's tasks against pid_max and threads-max. 1 with a one-line note
 * in `note`, or 0. */
int probe_task_limit(pid_t pid, char *note, size_t len);

/* The machine-wide memory figures that a server's cost shows up in. */
struct machine_mem {
    int64_t mem_available_kb;
    int64_t mem_free_kb;
    int64_t slab_kb;
    int64_t kernel_stack_kb;
    int64_t page_tables_kb;
    /* Counters, for deltas: loopback TCP packets retransmitted (after a
     * drop) and packets dropped by the kernel's per-CPU input backlog. */
    int64_t tcp_retrans_segs;
    int64_t softnet_dropped;
};

/* Read them from /proc/meminfo, /proc/net/snmp, /proc/net/softnet_stat.
 * 0 or -errno (-1 counters when unreadable). */
int probe_machine_mem(struct machine_mem *m);

/* The kernel's current clock source (clocksource0: tsc, kvm-clock, ...),
 * or "" when it cannot be read. */
void probe_clocksource(char *buf, size_t len);

/* Into a result document: "host" (probe_host), "clock" (CLOCK_MONOTONIC's
 * measured cost and resolution, the kernel's clock source) and "limits"
 * (probe_limits). */
void probe_describe(json_t *doc);

#endif

/* Readings from /proc and the system: memory, host identity, limits. */
#ifndef ORBBENCH_PROBE_H
#define ORBBENCH_PROBE_H

#include <jansson.h>
#include <stdint.h>

struct meminfo {
    int64_t total_kb;
    int64_t available_kb;
    int64_t free_kb;
};

/* Read /proc/meminfo. 0 or -errno. */
int probe_meminfo(struct meminfo *m);

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
/* Descriptors this process has open, or -1. */
int64_t probe_own_fds(void);

#endif

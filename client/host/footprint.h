/* A step's footprint: every server's memory, threads and descriptors from
 * /proc (or a stride sample of them when probing all would take longer
 * than the budget), the machine's memory against the sweep's start, and
 * the client's own. */
#ifndef ORBBENCH_FOOTPRINT_H
#define ORBBENCH_FOOTPRINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/probe.h"

struct footprint {
    struct machine_mem base; /* at the sweep's start, before any server */
    int64_t budget_ms;
    int64_t per_server_max;
    double cost_ms; /* last measured cost of probing one server */
    double settle_ms; /* waited for the baseline to settle */
    bool settled;     /* false: it moved for the whole 5 s */
};

/* What a footprint counts of a process, as results name it (a step's
 * footprint.<field>, a kind's per-connection costs), and how a summary
 * line says it; in this order everywhere. */
enum { FP_THREADS, FP_FDS, FP_RSS, FP_PSS, FP_USS, FP_NFIELDS };
extern const char *const footprint_fields[FP_NFIELDS];
extern const char *const footprint_words[FP_NFIELDS];

/* Take the baseline: MemAvailable once it has settled (two readings 200 ms
 * apart within 2 MiB, 5 s at most), since memory freed by an earlier run
 * can still be coming back. Sets settle_ms. 0 or -errno. */
int footprint_init(struct footprint *fp, int64_t budget_ms,
                   int64_t per_server_max);

/* Probe servers pids[0..n-1] (their indices in `index`). Adds to `step`:
 * "footprint" (summaries over servers), "machine" (memory now and its
 * change since the start), "mem_per_server_kb", and the client's rss_kb,
 * threads and fds into step.client. The machine's MemAvailable drop is
 * divided among `on_machine` servers (n, or more when a paired run keeps
 * another side's servers too). A server that cannot be read (it has just
 * died) is counted in footprint.unreadable. */
void footprint_step(struct footprint *fp, const pid_t *pids,
                    const unsigned *index, size_t n, size_t on_machine,
                    json_t *step);

#endif

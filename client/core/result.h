/* The result document: one self-describing JSON file per run (tool, host,
 * clock, ORB, resolved scenario, every step, the outcome). Written after
 * every step, atomically, so a run that dies still leaves what it had. */
#ifndef ORBBENCH_RESULT_H
#define ORBBENCH_RESULT_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/stats.h"

#define RESULT_SCHEMA "orbbench-result/1"

/* A new document with what every kind's result has: schema, tool, the
 * kind of measurement, started_at, the command line and the servers it
 * started (none yet). The host, clock
 * and limits are the host layer's to add (probe_describe); each kind adds
 * its own fields. New reference. */
json_t *result_new(const char *kind, int argc, char **argv);

/* {count, min, mean, median, p90, p99, max, stddev} of a summary. */
json_t *result_summary(const struct summary *s);

/* Record server `index` (its pid and ms from fork to ready line) in
 * doc.servers. */
void result_add_server(json_t *doc, unsigned index, pid_t pid,
                       double start_ms);

/* Set doc.result: stop_reason, detail, finished_at, duration_s. */
void result_set_outcome(json_t *doc, const char *stop_reason,
                        const char *detail, double duration_s);

/* Can result_write write to path? It must be absent or a regular file
 * (not a folder, device, FIFO, socket or symbolic link: -EISDIR or
 * -EINVAL), in a folder where its temporary file can be made (made and
 * removed here). 0 or -errno. Check before a run, so none is lost at the
 * end. */
int result_check_writable(const char *path);

/* Write doc to path atomically: a temporary file beside it with an
 * unpredictable name (O_EXCL|O_NOFOLLOW: nothing planted at that name is
 * followed or truncated), fsync, rename over path. On any failure the
 * temporary file is removed and path keeps what it had. 0 or -errno (the
 * checks of result_check_writable too). */
int result_write(const json_t *doc, const char *path);

/* The files a run writes, each with the option that named it. */
#define RESULT_MAX_TARGETS 4
struct result_target {
    const char *option; /* "--out", "--out-versus" */
    const char *path;
};

/* Check the run's result files before it starts: none empty, a folder or
 * a non-regular file, none one of the run's inputs (inputs[0..ninputs):
 * the scenario file, an IOR list; NULL, "" and "-" are skipped) or another
 * target (compared as files: device and inode when they exist, else the
 * resolved path of the folder and the name, not as text), each writable
 * (result_check_writable). 0, or -errno with one line naming the option
 * in `why`. */
int result_check_targets(const struct result_target *t, size_t n,
                         const struct result_target *inputs,
                         size_t ninputs, char *why, size_t why_len);

#endif

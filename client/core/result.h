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

/* Can result_write write to path? Creates and removes its temporary file
 * there. 0 or -errno. Check before a run, so none is lost at the end. */
int result_check_writable(const char *path);

/* Write doc to path via a temporary file and rename. 0 or -errno. */
int result_write(const json_t *doc, const char *path);

#endif

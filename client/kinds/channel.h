/* An event channel in the path (scenario kind "channel"), after the Miro
 * evaluation's Table 8.3: the client pushes Bench::<Name>Event anys
 * (call.payload) one at a time, each stamped with CLOCK_MONOTONIC, either
 * through an omniEvents event channel (channel.via "channel": the client
 * is the push supplier, speaking GIOP itself) or straight to the push
 * consumer (channel.via "direct"); the consumer (servers/omniorb/
 * event_consumer.cc) appends each event to a memory-mapped log with the
 * time it was logged. Per event: push to logged and push to received
 * (read back from the log: same machine, same clock) and the push call's
 * own round trip, after channel.warmup_events untimed ones. omniEvents
 * and the consumer are started by the spawner (servers 0 and 1) and
 * stopped with it. */
#ifndef ORBBENCH_CHANNEL_H
#define ORBBENCH_CHANNEL_H

#include <jansson.h>
#include <stddef.h>

#include "core/scenario.h"
#include "host/spawn.h"
#include "kinds/run.h"

/* Stop reasons of a channel run beside the common ones (exit 1 both):
 * events not all logged by channel.deadline_ms, and a consumer log too
 * small for the run (channel.log_mb). */

/* Make the spawner start omniEvents (group 0, server 0; its ready line is
 * the IOR it prints on stderr) and the consumer (group 1, server 1)
 * instead of echo servers: picks omniEvents's loopback port, its data
 * folder and the consumer's log under cfg->log_dir (the run's folder),
 * and sizes the log for the run. Call before spawner_start; the groups
 * keep cfg->groups[0].machine. 0, or -errno with a one-line reason in
 * `why` naming the key at fault (a missing executable, no free port). */
int channel_spawn_setup(const struct scenario *sc, const char *bin_dir,
                        struct spawn_config *cfg, char *why, size_t why_len);

/* Run the channel measurement of one side (main refuses paired runs).
 * Fills o[0] (stop_reason "done", or interrupted / server_died /
 * call_failed / resource with a one-line detail such as "event channel:
 * 0 of 1000 events reached the consumer within 5000 ms") and the doc's
 * `channel`, `latency_us` and `result`; what was measured before a
 * failure is kept. */
void channel_run(struct run *sides, struct run_outcome *o,
                 size_t nsides);

/* One paragraph on stdout: the medians and where the result went. */
void channel_summary(const struct scenario *sc, json_t *doc,
                     const struct run_outcome *o, const char *out);

/* Why the scenario cannot run with this kind of server, or NULL (*key:
 * the key to blame): the consumer is built for the system omniORB. */
const char *channel_unsupported(const struct scenario *sc,
                                const struct server_kind *kind,
                                const char **key);

#endif

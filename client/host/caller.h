/* A caller at work: the harness's side of the caller protocol
 * (docs/callers.md) as a call mode, callmode_caller, whose rounds are
 * made by the caller process instead of this one. Its create starts the
 * caller through the spawner (so it dies with the client) in its own
 * cgroup; its targets hands the caller each new server's IOR, forget
 * drops the newest ones, round asks for one round and reads its answer;
 * every wait is bounded, and a caller that dies, hangs or breaks the
 * protocol fails the round with mode_failed, named with its last stderr
 * line. costs_begin/costs_end read what the caller's calls cost: its CPU
 * (its cgroup), memory, threads and descriptors (/proc), the protocol's
 * overhead per round, and the connections the servers see it open and
 * close. */
#ifndef ORBBENCH_CALLER_H
#define ORBBENCH_CALLER_H

#include <jansson.h>
#include <stdint.h>

#include "host/caller_kind.h"
#include "host/machine.h"
#include "host/spawn.h"
#include "modes/callmode.h"

/* What callmode_caller's create starts (its callmode_config.ext). */
struct caller_spec {
    const struct caller_kind *kind;
    const char *orb;                   /* its installation: caller.orb */
    const struct caller_identity *id;  /* --version, --modes */
    /* Its command line: the spawner group's make_argv_arg
     * (caller_make_argv). */
    const struct caller_launch *launch;
    struct spawner *sp;
    int group;      /* its spawner group */
    unsigned index; /* its number there (its log: c<index>.log) */
    const struct machine *machine; /* its cgroup (machine_setup_caller) */
};

extern const struct callmode_ops callmode_caller;

/* The result's "caller": which caller, ORB installation, version and
 * build, path, mode and arguments ran, and its cgroup. New reference. */
json_t *caller_describe(const struct caller_spec *c);

/* The round's bound (ms) for n calls of `timeout_ms` each in `mode`:
 * n × timeout for sync (one call after another), one timeout for the
 * others, plus a timeout and 2 s of margin. */
int64_t caller_round_bound_ms(const char *mode, uint64_t n,
                              int64_t timeout_ms);

#endif

/* A kind of measurement is one row: a struct kind_ops that its own file in
 * kinds/ fills with designated initializers, listed once in the registry
 * (kinds/registry.c). Nothing else names a kind: main dispatches through
 * the row, the scenario loader takes the kind's key rows and cross-key
 * rules from it (its `scenario` member), the way a fio engine carries its
 * own options in struct ioengine_ops. */
#ifndef ORBBENCH_KIND_H
#define ORBBENCH_KIND_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/scenario.h"
#include "host/server_kind.h"
#include "host/spawn.h"
#include "kinds/run.h"

enum kind_flags {
    KIND_PAIRS = 1 << 0,      /* can run paired (--paired, --versus) */
    KIND_SERVERLESS = 1 << 1, /* starts no server: no spawner, ORB,
                               * cgroup or placement of servers */
};

struct kind_ops {
    /* The name ("rate"), its key rows, its cross-key check. */
    struct scenario_kind scenario;
    unsigned flags;
    /* Run the sides (1, or 2 with KIND_PAIRS) to their stops: fill every
     * o[i] and each side's doc, rewriting out_path as the run goes. */
    void (*run)(struct side *sides, struct run_outcome *o, size_t nsides);
    /* One paragraph on stdout: what ran, the figures, the stop, where
     * the result is. */
    void (*summary)(const struct scenario *sc, json_t *doc,
                    const struct run_outcome *o, const char *out);
    /* Why this kind of server cannot run the scenario (and the key to
     * blame in *key), or NULL. Optional. */
    const char *(*unsupported)(const struct scenario *sc,
                               const struct server_kind *server,
                               const char **key);
    /* For a kind that starts other processes than the scenario's echo
     * servers: set up the spawner's groups for them before the spawner is
     * forked. 0, or -errno with a one-line reason (-ENOENT: a missing
     * executable, a usage error). Optional. */
    int (*spawn_setup)(const struct scenario *sc, const char *bin_dir,
                       struct spawn_config *cfg, char *why, size_t why_len);
    /* The most connections one side opens: the client's descriptor limit
     * is raised for them. Optional (none). */
    int64_t (*max_connections)(const struct scenario *sc);
    /* server.kind external (scenario.external_servers): the IOR list
     * holds `available` servers; fit the kind's options to them, saying
     * in `note` what was changed and why ("" for nothing). 0, or -EINVAL
     * with `why` (a scenario that cannot run). */
    int (*fit_servers)(struct scenario *sc, size_t available,
                       const char *list, char *note, size_t note_len,
                       char *why, size_t why_len);
};

/* The kind named `name`, or NULL. */
const struct kind_ops *kind_lookup(const char *name);

/* Every kind, and the common rules, for the scenario loader. */
const struct scenario_schema *kind_schema(void);

#endif

/* Callers: each ORB family's own client, one program per family that
 * makes a round's calls on orbbench's command (docs/callers.md). A
 * caller is one row of the table in caller_kind.c, beside the server
 * kinds: its name (caller.kind), its installations (the system's, builds
 * under orbs/), the modes its family may offer. Which modes a build has
 * is the program's own answer (CALLER --modes). */
#ifndef ORBBENCH_CALLER_KIND_H
#define ORBBENCH_CALLER_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/install.h"
#include "host/spawn.h"

/* The most modes a caller names. */
#define CALLER_MAX_MODES 16

struct caller_kind {
    const char *name;       /* caller.kind */
    /* Its installations: the system's program beside orbbench (NULL:
     * builds only), the ORB library's prefix (NULL: one program, no
     * installations), how to build one. A build's program is
     * bin/orbs/ID/caller. */
    const char *binary;
    const char *library;
    const char *build_hint;
    /* The modes the family's callers may offer (docs/callers.md), the
     * default first, NULL-terminated: for `orbbench keys` and messages;
     * a build offers those its --modes says. */
    const char *const *modes;
    /* It runs on a JVM, whose settings are the caller.jvm.* keys
     * (server_jvm_words: -J words before its own arguments); a caller
     * without one refuses those keys. */
    bool jvm;
};

/* The caller called `name`, or NULL ("none" is no caller: NULL). */
const struct caller_kind *caller_kind_lookup(const char *name);

/* The i-th caller's name (i from 0), NULL past the last: caller.kind's
 * choices, after "none" (scenario_schema.caller_name). */
const char *caller_kind_name(size_t i);

/* The program of installation `orb` of caller `k` beside the orbbench
 * executable in `bin_dir` (install_resolve). 0 or -ENOENT with `why`. */
int caller_resolve(const struct caller_kind *k, const char *orb,
                   const char *bin_dir, char *path, size_t path_len,
                   char *why, size_t why_len);

/* What a caller program is: its --version (name, version, the build's
 * second line) and its --modes (the default first). */
struct caller_identity {
    char name[64];
    char version[64];
    char build[512];
    char modes[CALLER_MAX_MODES][32];
    size_t nmodes;
};

/* Ask `path` its --version and --modes (escaped). Call before any
 * thread exists. 0, or -errno with a one-line reason in `why`. */
int caller_query(const char *path, struct caller_identity *id, char *why,
                 size_t why_len);

/* Does the caller offer `mode`? */
bool caller_has_mode(const struct caller_identity *id, const char *mode);

/* What the spawner needs to start one caller (spawn_argv_fn's argument):
 * PATH [JVM-WORDS...] --mode MODE --payload-bytes B --timeout-ms T --
 * ARGS... */
struct caller_launch {
    const char *path;
    const char *mode;
    int64_t payload_bytes;
    int64_t timeout_ms;
    char *const *args;
    size_t nargs;
    char *const *jvm_words; /* a JVM caller's -J words, or none */
    size_t njvm_words;
};

/* spawn_argv_fn for a struct caller_launch. */
void caller_make_argv(const void *launch, unsigned index, char **argv,
                      char *buf, size_t buf_len);

#endif

/* What the files of orbbench run and check (runcmd*.c) share: one side's
 * setup, the descriptor limit, and the steps each file does. Nothing
 * outside runcmd*.c includes it. */
#ifndef ORBBENCH_RUNCMD_IMPL_H
#define ORBBENCH_RUNCMD_IMPL_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

#include "core/scenario.h"
#include "host/caller.h"
#include "host/caller_kind.h"
#include "host/machine.h"
#include "host/server_kind.h"
#include "host/source.h"
#include "kinds/kind.h"
#include "modes/callmode.h"
#include "net/transport.h"

/* What one side of a run needs: its scenario, server, result. */
struct side_setup {
    struct scenario sc;
    bool loaded;
    const struct server_kind *server; /* what server.kind names */
    const struct transport_ops *tp;
    const struct callmode_ops *mode;
    char server_path[PATH_MAX];
    char orb_name[64];
    char orb_version[64];
    char orb_build[512];
    int vrc;
    char vwhy[1024];
    char out[PATH_MAX];
    struct machine machine;
    struct server_launch launch;
    /* The server.jvm.* keys as the JVM kind's -J words (launch's). */
    char jvm_words[SERVER_JVM_MAX_WORDS][SERVER_JVM_WORD];
    char *jvm_word_ptrs[SERVER_JVM_MAX_WORDS];
    size_t njvm_words;
    json_t *doc;
    /* Its caller (caller.kind; NULL: orbbench's own client makes the
     * calls): the program, what it says it is, how it is started, its
     * cgroup, and what the call mode that talks to it needs. */
    const struct caller_kind *caller;
    char caller_path[PATH_MAX];
    char caller_orb[64];
    struct caller_identity caller_id;
    struct caller_launch caller_launch;
    /* The caller.jvm.* keys as a JVM caller's -J words (its launch's). */
    char caller_jvm_words[SERVER_JVM_MAX_WORDS][SERVER_JVM_WORD];
    char *caller_jvm_word_ptrs[SERVER_JVM_MAX_WORDS];
    struct machine caller_machine;
    struct caller_spec caller_spec;
};

/* The client's descriptor limit before and after raise_nofile. */
struct nofile {
    struct rlimit start, now;
    long long needed;
    int err; /* raising the hard limit to `needed` failed: errno */
};

/* runcmd_resolve.c: side s's kind, transport, mode and server, its
 * version asked (exits 2 on a scenario that cannot run); its caller
 * (exits 2 on one that cannot run it); side B's --versus keys against A;
 * server.kind external's IOR list and allowed hosts. */
void resolve_side(struct side_setup *s, const char *path);
void resolve_caller(struct side_setup *s, const char *path);
void check_versus(char *const *versus, size_t n,
                  const struct side_setup *a);
void load_external(const struct kind_ops *what, struct side_setup *s,
                   const char *path, char **cli, size_t ncli,
                   struct ior_list *l, char **allow, size_t *nallow,
                   char *max_n_why, size_t len);

/* runcmd_limits.c: the descriptor limit raised for the sides' most
 * connections, and recorded into doc's limits. */
void raise_nofile(const struct kind_ops *what,
                  const struct side_setup *sides, size_t nsides,
                  struct nofile *nf);
void record_nofile(json_t *doc, const struct nofile *nf);

#endif

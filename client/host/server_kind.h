/* Server kinds: which executable to fork for a scenario's server.kind, how
 * to tell it its loopback endpoint, and which wire protocol it speaks. */
#ifndef ORBBENCH_SERVER_KIND_H
#define ORBBENCH_SERVER_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scenario.h"
#include "net/wire.h"

/* How a kind's server is told its endpoint over one transport: the words
 * of its command line, in which "{dir}" stands for the run's private
 * folder and "{index}" for the server's number (0, 1, …). A loopback
 * address always: servers must never listen beyond it. */
#define ENDPOINT_MAX_WORDS 6
struct endpoint_form {
    const char *transport;
    const char *words[ENDPOINT_MAX_WORDS];
};

struct server_kind {
    const char *name;
    const struct wire_ops *wire;
    /* File name beside the orbbench executable: the system
     * installation's server; NULL for a kind without one (TAO: only
     * builds under orbs/) and for servers orbbench does not start
     * (external: no library either; endpoint and options unused). */
    const char *binary;
    /* The ORB library's file name prefix; NULL for a kind with no ORB
     * installations to choose from (the ORB-less ones, and Combat, whose
     * Tcl library is whichever tclsh loads): server.orb does not apply
     * and its one binary is always the one beside orbbench. With it,
     * server.orb is "KIND-system" (the binary) or the id of a build
     * whose name starts "KIND-" (bin/orbs/ID/echo-server). */
    const char *library;
    /* The transports its server serves, each with its endpoint's words;
     * ends with a NULL transport. */
    const struct endpoint_form *endpoints;
    /* The option that makes each call burn N µs of CPU ("--work-us"), or
     * NULL when the kind's server has none. */
    const char *work_option;
    /* With library: how to get an installation, for the message when
     * server.orb names none that is built ("run make"). */
    const char *build_hint;
    /* The option that makes each call burn N ns of CPU beside work_us
     * ("--work-ns": a step finer than a µs), or NULL when it has none. */
    const char *work_ns_option;
    /* Runs on a JVM (JacORB): its executable takes -JOPTION words for the
     * JVM, which the scenario's server.jvm.* keys become
     * (server_jvm_words); a kind without one refuses those keys. */
    bool jvm;
};

/* Does orbbench start this kind's servers (every kind but external)? */
static inline bool server_kind_starts(const struct server_kind *kind)
{
    return kind->binary || kind->library;
}

/* What the spawner needs to build each server's argv. */
struct server_launch {
    const struct server_kind *kind;
    const char *path;
    char *const *args;
    size_t nargs;
    const char *transport;
    const char *run_dir;
    int64_t work_us; /* > 0: pass the kind's work_option with it */
    int64_t work_ns; /* > 0: pass the kind's work_ns_option with it */
    /* Words after the endpoint's (a JVM kind's -J options), or none. */
    char *const *jvm_words;
    size_t njvm_words;
};

/* The longest -J word server_jvm_words makes, its terminator included. */
#define SERVER_JVM_WORD 48
#define SERVER_JVM_MAX_WORDS 6

/* The JVM options that `jvm` (a scenario's server.jvm.* or caller.jvm.*
 * keys) asks for, as -JOPTION words into words[0..] (room for
 * SERVER_JVM_MAX_WORDS), none for a key at its default (the JVM's own
 * choice). Their count; *first_key (when not NULL) names the first key
 * not at its default, after "GROUP.jvm." ("heap_max_mb"), for the
 * message of a kind or caller with no JVM. */
size_t server_jvm_words(const struct scenario_jvm *jvm,
                        char words[][SERVER_JVM_WORD],
                        const char **first_key);

/* Servers listen on loopback only: is every endpoint that `args` (a
 * scenario's server.args) would give a server on loopback (127.0.0.0/8,
 * localhost, ::1) or a Unix socket? Checked for every kind alike:
 * omniORB's -ORBendPoint, -ORBendPointPublish, -ORBendPointNoListen and
 * -ORBendPointNoPublish (giop:tcp:HOST:PORT, giop:ssl:HOST:PORT,
 * giop:unix:PATH, comma lists), -ORBconfigFile (a file that could set
 * them), the ORB-less servers' --endpoint (tcp:HOST:PORT, unix:PATH,
 * pipe:R,W), Combat's -ORBHostName, JacORB's properties and JVM options
 * that would listen or publish elsewhere, and MICO's -ORBIIOPAddr
 * (inet:HOST:PORT, unix:PATH) and -ORBConfFile (refused, as omniORB's
 * file). 0, or -EINVAL with one line
 * naming the argument in `why`. */
int server_args_check(char *const *args, size_t nargs, char *why,
                      size_t why_len);
/* The same for the arguments of another key (a caller's caller.args),
 * named `key` in the message. */
int server_args_check_key(char *const *args, size_t nargs, const char *key,
                          char *why, size_t why_len);

/* The kind called `name`, or NULL. */
const struct server_kind *server_kind_lookup(const char *name);

/* The i-th server kind's name (i from 0), NULL past the last: the one
 * list of server kinds, server.kind's choices (kinds/registry.c hands it
 * to the scenario loader). */
const char *server_kind_name(size_t i);

/* True when the kind's server serves `transport`; `list` gets the ones it
 * does serve, comma-separated, for the message when it does not. */
bool server_kind_serves(const struct server_kind *kind,
                        const char *transport, char *list, size_t list_len);

/* spawn_argv_fn for a struct server_launch: path, the endpoint's words for
 * its transport, the JVM's words, the work options and their values when
 * work_us or work_ns > 0, then the scenario's server.args. */
void server_make_argv(const void *launch, unsigned index, char **argv,
                      char *buf, size_t buf_len);

/* The server executable for ORB installation `orb` of this kind, beside
 * the orbbench executable in `bin_dir`: the system one, or
 * bin_dir/orbs/ORB/echo-server (ORB must be one of this kind's: its name
 * starts "KIND-"); for a kind without a library always bin_dir/BINARY
 * (orb is not looked at). 0, or -ENOENT with the kind's installations
 * that do exist listed in `why`. */
int server_resolve(const struct server_kind *kind, const char *orb,
                   const char *bin_dir, char *path, size_t path_len,
                   char *why, size_t why_len);

/* Run `path --version` (5 s at most) and split its first line into the
 * ORB's name and version ("omniORB 4.2.5"); its second line, if any, how
 * that ORB was built (TAO's flags), goes into `build` ("" without one).
 * Call before any thread exists. 0, or -errno with a one-line reason in
 * `why`. */
int server_query_version(const char *path, char *name, size_t name_len,
                         char *version, size_t version_len, char *build,
                         size_t build_len, char *why, size_t why_len);
/* The same with another option than --version ("-V": omniEvents). */
int server_query_version_opt(const char *path, const char *option,
                             char *name, size_t name_len, char *version,
                             size_t version_len, char *why, size_t why_len);

#endif

/* The caller protocol's side in a caller (docs/callers.md): the command
 * line, the conversation on stdin/stdout and a round's answer, shared by
 * the callers that link an ORB (callers/<family>/). A caller gives its
 * ORB half as a struct caller_ops; everything else is here. C11, usable
 * from C++. */
#ifndef ORBBENCH_CALLER_H
#define ORBBENCH_CALLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    caller_max_payload_bytes = 1048576,
    caller_max_timeout_ms = 600000,
    caller_max_line_bytes = 65536,  /* a command line, '\n' excluded */
    caller_max_fail_lines = 16,     /* `fail` lines listed per round */
    caller_times_per_line = 1024,   /* pairs in a `times` line at most */
};

/* One call of a round, filled by the ORB half. */
enum caller_call_state { CALL_PENDING, CALL_OK, CALL_FAILED };
struct caller_call {
    int64_t sent_ns;             /* CLOCK_MONOTONIC: request sent */
    int64_t done_ns;             /* reply read (or the failure seen) */
    enum caller_call_state state;
    char word[32];               /* the ORB's exception name */
    char message[200];           /* one line */
};

struct caller_round {
    uint64_t seq;
    size_t n;                    /* calls: targets 0..n-1 */
    int64_t start_ns;            /* the command read */
    const char *payload;         /* what every call sends and expects back */
    size_t payload_bytes;
    long timeout_ms;             /* per call */
    struct caller_call *calls;   /* n of them, all CALL_PENDING at start */
};

/* What the command line resolved to. orb_argv holds argv[0] and the
 * words after "--", NULL-terminated (for ORB_init, which may rewrite
 * it); it points into argv. */
struct caller_options {
    const char *mode;            /* one of ops->modes */
    size_t mode_index;
    long payload_bytes;
    long timeout_ms;
    int orb_argc;
    char **orb_argv;
};

/* A caller's ORB half. Every function gets the state given to
 * caller_serve. */
struct caller_ops {
    const char *orb_name;        /* "TAO" (the --version line) */
    const char *orb_version;     /* "2.2.1" */
    const char *build_info;      /* how it was built (second line), or NULL */
    const char *const *modes;    /* NULL-terminated, the default first */
    /* Add a target from a stringified IOR, with no remote call: 0, or -1
     * with a one-line reason in err. */
    int (*add_target)(void *state, const char *ior, char *err,
                      size_t err_size);
    /* Release targets keep.. (keep < held). */
    void (*drop_targets)(void *state, size_t keep);
    /* One call to each of targets 0..r->n-1 in the caller's mode; on
     * return every call is CALL_OK or CALL_FAILED (caller_call_reply,
     * caller_call_fail). */
    void (*round)(void *state, struct caller_round *r);
};

/* CLOCK_MONOTONIC in ns. */
int64_t caller_now_ns(void);

/* Parse the command line (docs/callers.md): -1 to go on with *opt
 * filled, else the exit code (0 after --version, --modes or --help; 2
 * for a usage error, said on stderr). */
int caller_parse(int argc, char **argv, const struct caller_ops *ops,
                 struct caller_options *opt);

/* End with the parent (PR_SET_PDEATHSIG, SIGKILL): 0, or -1 when the
 * parent is already gone. */
int caller_die_with_parent(void);

/* After ORB_init: say `ready`, then answer commands until `quit` or EOF.
 * Returns the exit code: 0, 2 when the harness broke the protocol, 1
 * when stdout failed. */
int caller_serve(const struct caller_ops *ops, void *state,
                 const struct caller_options *opt);

/* Call i of r replied `reply` (len bytes): CALL_OK when it equals the
 * payload, else CALL_FAILED with BAD_REPLY; done_ns is now. */
void caller_call_reply(struct caller_round *r, size_t i, const char *reply,
                       size_t len);

/* Call i of r failed with the ORB's exception `word` (e.g. TRANSIENT)
 * and a printf-style message; done_ns is now. A call already answered is
 * left as it is. */
void caller_call_fail(struct caller_round *r, size_t i, const char *word,
                      const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The last part of a CORBA repository id ("IDL:omg.org/CORBA/TRANSIENT:1.0"
 * -> "TRANSIENT") into buf; buf. */
const char *caller_exception_word(const char *repo_id, char *buf,
                                  size_t size);

/* A one-line message on stderr, headed "caller (ORB VERSION): ". */
void caller_warn(const struct caller_ops *ops, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif

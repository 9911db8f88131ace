/* The caller protocol (docs/callers.md): the lines between orbbench and a
 * caller, one ORB's own client that makes a round's calls on orbbench's
 * command. Pure parsing and formatting over buffers, shared by the
 * harness (host/caller.c) and orbbench's own caller (callers/orbbench);
 * callers in other languages parse the same lines themselves. Every line
 * is ASCII, ends in '\n' and is at most CALLER_LINE_MAX bytes with it. */
#ifndef ORBBENCH_CALLER_PROTO_H
#define ORBBENCH_CALLER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line either side may write, its '\n' included. */
#define CALLER_LINE_MAX (64 * 1024)
/* A round's times come in lines of at most this many pairs (a round of
 * N calls: ceil(N / CALLER_TIMES_PER_LINE) lines), so that a line stays
 * within CALLER_LINE_MAX at any N (a pair is at most 40 bytes). */
#define CALLER_TIMES_PER_LINE 1024
/* A round lists at most this many failed calls (fail lines); its done
 * line counts them all. */
#define CALLER_FAILS_LISTED 16
/* The longest mode name and exception word. */
#define CALLER_MODE_BYTES 32
#define CALLER_WORD_BYTES 64

/* What a caller answers: one line. */
enum caller_reply_type {
    CALLER_READY, /* ready PID MODE */
    CALLER_OK,    /* ok K */
    CALLER_ERROR, /* error MESSAGE */
    CALLER_TIMES, /* times SEQ S0 C0 S1 C1 ... */
    CALLER_FAIL,  /* fail SEQ I WORD MESSAGE */
    CALLER_DONE,  /* done SEQ CALLS FAILED ROUND_NS */
};

struct caller_reply {
    enum caller_reply_type type;
    uint64_t seq;     /* times, fail, done */
    int64_t pid;      /* ready */
    char mode[CALLER_MODE_BYTES]; /* ready */
    uint64_t count;   /* ok: K, the targets the caller holds */
    uint64_t index;   /* fail: I, the target's position */
    char word[CALLER_WORD_BYTES]; /* fail: the ORB's exception name */
    /* error, fail: the rest of the line (maybe ""), borrowed from it */
    const char *message;
    /* times: the pairs after SEQ, borrowed from the line; read them with
     * caller_times_next */
    const char *pairs;
    uint64_t calls;   /* done: completed and checked */
    uint64_t failed;  /* done: every failed call, listed or not */
    int64_t round_ns; /* done: the caller's own time of the round */
};

/* Parse one reply line (without its '\n'; `line` is not changed, and the
 * borrowed fields point into it). 0, or -EBADMSG with a one-line reason
 * in `why` (an unknown word, a missing or malformed field, a number out
 * of range, a byte outside printable ASCII). */
int caller_parse_reply(const char *line, struct caller_reply *r, char *why,
                       size_t why_len);

/* The next pair of a times line's pairs (*p advances past it): 1 with
 * the service time (request sent -> reply read) and completion time
 * (round start -> reply read) in ns, 0 at the end of the line, -EBADMSG
 * for anything but a pair of numbers. */
int caller_times_next(const char **p, int64_t *service_ns,
                      int64_t *completion_ns);

/* What the harness commands: one line. */
enum caller_cmd_type {
    CALLER_TARGET, /* target IOR */
    CALLER_DROP,   /* drop K */
    CALLER_ROUND,  /* round SEQ N RECORD */
    CALLER_QUIT,   /* quit */
};

struct caller_cmd {
    enum caller_cmd_type type;
    const char *ior; /* target: borrowed from the line */
    uint64_t k;      /* drop */
    uint64_t seq;    /* round */
    uint64_t n;      /* round: calls to targets 0..n-1, n >= 1 */
    bool record;     /* round: answer with the calls' times */
};

/* Parse one command line (without its '\n'), as caller_parse_reply. */
int caller_parse_cmd(const char *line, struct caller_cmd *c, char *why,
                     size_t why_len);

/* Format a round's times lines for calls service_ns[i], completion_ns[i]
 * (i < n) into buf: "times SEQ S C ...\n" lines of at most
 * CALLER_TIMES_PER_LINE pairs each (none for n 0). The bytes written, or
 * -ENOSPC when buf (len bytes) is too small (40 × n + 32 per line is
 * always enough). */
int caller_format_times(char *buf, size_t len, uint64_t seq,
                        const int64_t *service_ns,
                        const int64_t *completion_ns, size_t n);

#endif

/* The caller protocol's side in a caller: command line, conversation and
 * a round's answer (caller.h; docs/callers.md). */
#include "caller.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* Under LeakSanitizer (make SANITIZE=address): a leak the ORB's
 * libraries are suppressed for (each caller's __lsan_default_suppressions)
 * is not listed at exit either, so that stderr keeps to the caller's own
 * lines. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

int64_t caller_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void caller_warn(const struct caller_ops *ops, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "caller (%s %s): ", ops->orb_name, ops->orb_version);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A decimal integer in [min, max], digits only: 0, or -1. */
static int parse_long(const char *s, long min, long max, long *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static void usage(const struct caller_ops *ops, FILE *f)
{
    fprintf(f, "usage: caller [--mode MODE] [--payload-bytes B] "
            "[--timeout-ms T] [-- ORB-ARGS...]\n"
            "       caller --version | --modes\n"
            "%s's own client for orbbench: commands on stdin, replies on "
            "stdout (docs/callers.md).\nmodes:", ops->orb_name);
    for (size_t i = 0; ops->modes[i]; i++)
        fprintf(f, " %s%s", ops->modes[i], i == 0 ? " (default)" : "");
    fprintf(f, "\n");
}

int caller_parse(int argc, char **argv, const struct caller_ops *ops,
                 struct caller_options *opt)
{
    opt->mode = ops->modes[0];
    opt->mode_index = 0;
    opt->payload_bytes = 16;
    opt->timeout_ms = 5000;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--version") == 0) {
            printf("%s %s\n", ops->orb_name, ops->orb_version);
            if (ops->build_info)
                printf("%s\n", ops->build_info);
            return 0;
        }
        if (strcmp(a, "--modes") == 0) {
            for (size_t m = 0; ops->modes[m]; m++)
                printf("%s\n", ops->modes[m]);
            return 0;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(ops, stdout);
            return 0;
        }
        const char *val = NULL;
        if (strcmp(a, "--mode") == 0 || strcmp(a, "--payload-bytes") == 0 ||
            strcmp(a, "--timeout-ms") == 0) {
            if (i + 1 >= argc) {
                caller_warn(ops, "%s needs a value", a);
                return 2;
            }
            val = argv[++i];
        } else {
            caller_warn(ops, "unknown argument \"%s\" (ORB options go "
                        "after \"--\"; --help)", a);
            return 2;
        }
        if (strcmp(a, "--mode") == 0) {
            size_t m = 0;
            while (ops->modes[m] && strcmp(ops->modes[m], val) != 0)
                m++;
            if (!ops->modes[m]) {
                char known[256] = "";
                for (size_t k = 0; ops->modes[k]; k++) {
                    if (k)
                        strncat(known, ", ", sizeof known - strlen(known) - 1);
                    strncat(known, ops->modes[k],
                            sizeof known - strlen(known) - 1);
                }
                caller_warn(ops, "mode \"%s\" is not one of %s's: %s", val,
                            ops->orb_name, known);
                return 2;
            }
            opt->mode = ops->modes[m];
            opt->mode_index = m;
        } else if (strcmp(a, "--payload-bytes") == 0) {
            if (parse_long(val, 0, caller_max_payload_bytes,
                           &opt->payload_bytes) != 0) {
                caller_warn(ops, "--payload-bytes: \"%s\" is not an integer "
                            "in [0, %d]", val, caller_max_payload_bytes);
                return 2;
            }
        } else if (parse_long(val, 1, caller_max_timeout_ms,
                              &opt->timeout_ms) != 0) {
            caller_warn(ops, "--timeout-ms: \"%s\" is not an integer in "
                        "[1, %d]", val, caller_max_timeout_ms);
            return 2;
        }
    }
    /* argv[0], then the ORB's words: moved down over ours. */
    int n = 1;
    for (; i < argc; i++)
        argv[n++] = argv[i];
    argv[n] = NULL;
    opt->orb_argc = n;
    opt->orb_argv = argv;
    return -1;
}

int caller_die_with_parent(void)
{
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return -1;
    return 0;
}

/* Keep a message to one printable ASCII line. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e)
            *s = ' ';
}

void caller_call_fail(struct caller_round *r, size_t i, const char *word,
                      const char *fmt, ...)
{
    struct caller_call *c = &r->calls[i];
    if (c->state != CALL_PENDING)
        return;
    c->done_ns = caller_now_ns();
    c->state = CALL_FAILED;
    snprintf(c->word, sizeof c->word, "%s", word && *word ? word : "UNKNOWN");
    for (char *w = c->word; *w; w++)
        if (!isalnum((unsigned char)*w) && *w != '_')
            *w = '_';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof c->message, fmt, ap);
    va_end(ap);
    one_line(c->message);
}

void caller_call_reply(struct caller_round *r, size_t i, const char *reply,
                       size_t len)
{
    struct caller_call *c = &r->calls[i];
    if (c->state != CALL_PENDING)
        return;
    if (len != r->payload_bytes || memcmp(reply, r->payload, len) != 0) {
        caller_call_fail(r, i, "BAD_REPLY", "the reply (%zu bytes) is not "
                         "the %zu bytes sent", len, r->payload_bytes);
        return;
    }
    c->done_ns = caller_now_ns();
    c->state = CALL_OK;
}

const char *caller_exception_word(const char *repo_id, char *buf,
                                  size_t size)
{
    const char *s = repo_id ? repo_id : "";
    const char *slash = strrchr(s, '/');
    if (slash)
        s = slash + 1;
    else if (strncmp(s, "IDL:", 4) == 0)
        s += 4;
    size_t len = strcspn(s, ":");
    if (len >= size)
        len = size - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return buf;
}

/* The harness broke the protocol: say what, exit 2 (caller_serve). */
static int protocol_error(const struct caller_ops *ops, const char *what,
                          const char *line)
{
    char shown[80];
    snprintf(shown, sizeof shown, "%s", line);
    one_line(shown);
    caller_warn(ops, "%s: \"%s\"", what, shown);
    return 2;
}

/* Read one command into *buf (grown as needed, at most
 * caller_max_line_bytes): 1 a line, 0 EOF, -1 a line too long. */
static int read_line(char **buf, size_t *cap)
{
    size_t len = 0;
    for (;;) {
        if (len + 2 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 4096;
            char *nb = realloc(*buf, ncap);
            if (!nb)
                return -1;
            *buf = nb;
            *cap = ncap;
        }
        int ch = getchar();
        if (ch == EOF)
            return len ? 1 : 0;  /* a last line without '\n' still counts */
        if (ch == '\n')
            break;
        if (len >= caller_max_line_bytes)
            return -1;
        (*buf)[len++] = (char)ch;
    }
    (*buf)[len] = '\0';
    return 1;
}

/* A round's answer: times (RECORD 1: lines of at most
 * caller_times_per_line pairs, none when no call completed), fail
 * lines, done. */
static void answer_round(const struct caller_round *r, int record,
                         int64_t round_ns)
{
    size_t ok = 0, failed = 0, pairs = 0;
    for (size_t i = 0; record && i < r->n; i++) {
        const struct caller_call *c = &r->calls[i];
        if (c->state != CALL_OK)
            continue;
        if (pairs % caller_times_per_line == 0)
            printf("%stimes %" PRIu64, pairs ? "\n" : "", r->seq);
        printf(" %" PRId64 " %" PRId64, c->done_ns - c->sent_ns,
               c->done_ns - r->start_ns);
        pairs++;
    }
    if (pairs)
        printf("\n");
    for (size_t i = 0; i < r->n; i++) {
        const struct caller_call *c = &r->calls[i];
        if (c->state == CALL_OK) {
            ok++;
            continue;
        }
        if (failed++ < caller_max_fail_lines)
            printf("fail %" PRIu64 " %zu %s %s\n", r->seq, i,
                   c->state == CALL_FAILED ? c->word : "UNKNOWN",
                   c->state == CALL_FAILED ? c->message
                                           : "the caller lost this call");
    }
    printf("done %" PRIu64 " %zu %zu %" PRId64 "\n", r->seq, ok, failed,
           round_ns);
}

int caller_serve(const struct caller_ops *ops, void *state,
                 const struct caller_options *opt)
{
    char *payload = malloc((size_t)opt->payload_bytes + 1);
    if (!payload)
        return 1;
    memset(payload, 'x', (size_t)opt->payload_bytes);
    payload[opt->payload_bytes] = '\0';
    struct caller_call *calls = NULL;
    size_t calls_cap = 0, held = 0;
    char *line = NULL;
    size_t line_cap = 0;
    int rc = 0;
    /* A round's answer goes out in few writes: one flush at its end. */
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    printf("ready %ld %s\n", (long)getpid(), opt->mode);
    fflush(stdout);
    for (;;) {
        int got = read_line(&line, &line_cap);
        if (got == 0)
            break;
        if (got < 0) {
            caller_warn(ops, "a command longer than %d bytes",
                        caller_max_line_bytes);
            rc = 2;
            break;
        }
        int64_t start_ns = caller_now_ns();
        if (strncmp(line, "target ", 7) == 0) {
            char err[256] = "";
            if (ops->add_target(state, line + 7, err, sizeof err) == 0) {
                printf("ok %zu\n", ++held);
            } else {
                one_line(err);
                printf("error %s\n", err[0] ? err : "cannot use the IOR");
            }
        } else if (strncmp(line, "drop ", 5) == 0) {
            long keep;
            if (parse_long(line + 5, 0, (long)held, &keep) != 0) {
                rc = protocol_error(ops, "drop: not a count of targets held",
                                    line);
                break;
            }
            if ((size_t)keep < held)
                ops->drop_targets(state, (size_t)keep);
            held = (size_t)keep;
            printf("ok %zu\n", held);
        } else if (strncmp(line, "round ", 6) == 0) {
            char *words[4], *save = NULL;
            int nw = 0;
            for (char *w = strtok_r(line + 6, " ", &save); w && nw < 4;
                 w = strtok_r(NULL, " ", &save))
                words[nw++] = w;
            uint64_t seq;
            long n, record;
            if (nw != 3 || parse_u64(words[0], &seq) != 0 ||
                parse_long(words[1], 1, (long)held, &n) != 0 ||
                parse_long(words[2], 0, 1, &record) != 0) {
                rc = protocol_error(ops, "round: want \"round SEQ N RECORD\" "
                                    "with 1 <= N <= targets held and RECORD "
                                    "0 or 1", line + 6);
                break;
            }
            if ((size_t)n > calls_cap) {
                struct caller_call *nc = realloc(calls, (size_t)n * sizeof *nc);
                if (!nc) {
                    caller_warn(ops, "out of memory for %ld calls", n);
                    rc = 1;
                    break;
                }
                calls = nc;
                calls_cap = (size_t)n;
            }
            memset(calls, 0, (size_t)n * sizeof *calls);
            struct caller_round r = {
                .seq = seq, .n = (size_t)n, .start_ns = start_ns,
                .payload = payload,
                .payload_bytes = (size_t)opt->payload_bytes,
                .timeout_ms = opt->timeout_ms, .calls = calls,
            };
            ops->round(state, &r);
            answer_round(&r, (int)record, caller_now_ns() - start_ns);
        } else if (strcmp(line, "quit") == 0) {
            break;
        } else {
            rc = protocol_error(ops, "unknown command", line);
            break;
        }
        if (fflush(stdout) != 0) {
            rc = 1;
            break;
        }
    }
    if (held)
        ops->drop_targets(state, 0);
    free(line);
    free(calls);
    free(payload);
    return rc;
}

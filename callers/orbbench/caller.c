/* orbbench's own client as a caller (docs/callers.md): the protocol's
 * control. It links the client's library and makes each round with the
 * client's own call modes (sync, thread-per-call, pool, event) on
 * connections it opens itself from the IORs it is handed, exactly as
 * `orbbench run` does without a caller; `null` answers every round at
 * once without calling (its targets are parsed, never connected), the
 * protocol's floor. Run against the same servers, its rounds minus the
 * direct run's are what the protocol costs.
 *
 *   orbbench-caller [--mode MODE] [--payload-bytes B] [--timeout-ms T]
 *                   [-- [--pool-size K] [--thread-stack-kb K]]
 *
 * After `--`, the client's own settings (client.pool_size,
 * client.thread_stack_kb: its defaults 100 and 64), and the faults the
 * tests make it commit after K rounds: --die-after K (exit 3),
 * --hang-after K (never answer again), --garble-after K (answer a line
 * that is not the protocol's). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "codec/caller_proto.h"
#include "core/stats.h"
#include "core/util.h"
#include "modes/callmode.h"
#include "net/conn.h"
#include "net/transport.h"
#include "net/wire.h"

static const char *const modes[] = {"sync", "thread-per-call", "pool",
                                    "event", "null"};

struct caller {
    const char *mode;
    int64_t payload_bytes;
    int64_t timeout_ms;
    int64_t pool_size;
    int64_t stack_kb;
    const struct callmode_ops *ops; /* NULL: null */
    struct callmode *m;
    struct conn *conns;
    size_t n, cap;
    char *out; /* a round's answer */
    size_t out_cap;
    /* Faults for the tests: after this many rounds (-1: never). */
    int64_t die_after, hang_after, garble_after;
    int64_t rounds;
};

static volatile sig_atomic_t never;

static void die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "orbbench-caller: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

static int64_t number_arg(const char *opt, const char *v, int64_t min,
                          int64_t max)
{
    int64_t x;
    if (!v || parse_i64(v, &x) != 0 || x < min || x > max)
        die(2, "%s: expected a number in range", opt);
    return x;
}

/* Write all of buf to stdout: the answer goes whole, then is flushed. */
static void reply(const char *buf, size_t len)
{
    if (write_full(1, buf, len) != 0)
        exit(1); /* the harness is gone */
}

static void replyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void replyf(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    reply(buf, n < (int)sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* A CORBA-style word for a failed call's errno. */
static const char *word_of(int err)
{
    switch (-err) {
    case ETIMEDOUT:
        return "TIMEOUT";
    case ECONNREFUSED:
    case ENOENT:
        return "TRANSIENT";
    case EBADMSG:
        return "BAD_REPLY";
    case EREMOTEIO:
        return "EXCEPTION";
    case EMSGSIZE:
        return "MARSHAL";
    default:
        return "COMM_FAILURE";
    }
}

/* target IOR: parse it and, but in null mode, connect (the direct run
 * connects when a server starts, as an ORB's client on its first call). */
static void add_target(struct caller *c, const char *ior)
{
    struct target t;
    char why[CONN_WHY_BYTES];
    if (wire_giop.parse_ready(ior, &t, why, sizeof why) != 0) {
        replyf("error %s\n", why);
        return;
    }
    if (c->n == c->cap) {
        /* The modes find their conns by address: let them forget all
         * before the array moves (the event loop's epoll set). */
        if (c->ops && c->ops->forget && c->n)
            c->ops->forget(c->m, c->conns, 0);
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct conn *p = realloc(c->conns, cap * sizeof *p);
        if (!p) {
            replyf("error out of memory\n");
            return;
        }
        c->conns = p;
        c->cap = cap;
    }
    struct conn *conn = &c->conns[c->n];
    memset(conn, 0, sizeof *conn);
    conn->fds.rfd = conn->fds.wfd = -1;
    t.rfd = t.wfd = -1;
    if (c->ops) {
        const struct transport_ops *tp =
            transport_lookup(t.unix_path[0] ? "unix" : "tcp");
        if (conn_open(conn, tp, &wire_giop, &t, (unsigned)c->n, 0,
                      (size_t)c->payload_bytes, c->timeout_ms) != 0) {
            replyf("error %s\n", conn->why);
            conn_close(conn);
            return;
        }
    }
    c->n++;
    replyf("ok %zu\n", c->n);
}

static void drop(struct caller *c, size_t k)
{
    if (k < c->n) {
        if (c->ops && c->ops->forget)
            c->ops->forget(c->m, c->conns, k);
        for (size_t i = k; i < c->n; i++)
            conn_close(&c->conns[i]);
        c->n = k;
    }
    replyf("ok %zu\n", c->n);
}

/* The tests' faults, before round number c->rounds + 1. */
static void fault(struct caller *c)
{
    if (c->rounds == c->die_after) {
        fprintf(stderr, "orbbench-caller: dying after %lld rounds, as told "
                "(--die-after)\n", (long long)c->rounds);
        exit(3);
    }
    if (c->rounds == c->hang_after) {
        fprintf(stderr, "orbbench-caller: hanging after %lld rounds, as "
                "told (--hang-after)\n", (long long)c->rounds);
        for (;;)
            pause();
    }
    if (c->rounds == c->garble_after) {
        fprintf(stderr, "orbbench-caller: garbling after %lld rounds, as "
                "told (--garble-after)\n", (long long)c->rounds);
        replyf("hello there\n");
        c->garble_after = -1;
    }
}

/* One round: calls to conns[0..n-1] in the mode, then its answer. */
static void round_of(struct caller *c, uint64_t seq, size_t n, bool record,
                     int64_t t0)
{
    fault(c);
    c->rounds++;
    struct round_info info = {0};
    struct samples service = {0}, completion = {0};
    if (n > c->n) {
        fprintf(stderr, "orbbench-caller: round of %zu calls with %zu "
                "targets\n", n, c->n);
        exit(3);
    }
    int rc = 0;
    if (c->ops) {
        rc = c->ops->round(c->m, c->conns, n, record, &info);
        if (record && c->ops->drain(c->m, &service, &completion) != 0)
            exit(4);
    } else {
        info.calls = n; /* null: nothing called, nothing to wait for */
        for (size_t i = 0; record && i < n; i++)
            if (samples_add(&service, 0) || samples_add(&completion, 0))
                exit(4);
    }
    int64_t round_ns = now_ns() - t0;
    size_t used = 0;
    size_t need = 40 * (size_t)service.len + 64 * (service.len / 1024 + 2) +
                  CONN_WHY_BYTES + 128;
    if (c->out_cap < need) {
        free(c->out);
        c->out_cap = need;
        if (!(c->out = malloc(c->out_cap)))
            exit(4);
    }
    if (record) {
        /* A failed round drained only its completed calls. */
        int k = caller_format_times(c->out, c->out_cap, seq, service.ns,
                                    completion.ns, service.len);
        if (k < 0)
            exit(4);
        used = (size_t)k;
    }
    uint64_t failed = n - info.calls;
    if (rc) {
        /* The modes stop a round at its first failure: the calls after
         * it were not made, and count as failed too. */
        char why[CONN_WHY_BYTES];
        str_escape(why, sizeof why, info.why);
        used += (size_t)snprintf(c->out + used, c->out_cap - used,
                                 "fail %" PRIu64 " %zu %s %s\n", seq,
                                 info.failed, word_of(rc), why);
        if (failed == 0)
            failed = 1, info.calls = n - 1; /* never both 0 */
    }
    used += (size_t)snprintf(c->out + used, c->out_cap - used,
                             "done %" PRIu64 " %" PRIu64 " %" PRIu64
                             " %" PRId64 "\n",
                             seq, info.calls, failed, round_ns);
    reply(c->out, used);
    samples_free(&service);
    samples_free(&completion);
}

static void serve(struct caller *c)
{
    size_t cap = CALLER_LINE_MAX + 1, len = 0, start = 0;
    char *buf = malloc(cap);
    if (!buf)
        exit(4);
    for (;;) {
        char *nl = memchr(buf + start, '\n', len - start);
        if (!nl) {
            memmove(buf, buf + start, len - start);
            len -= start;
            start = 0;
            if (len >= cap - 1)
                die(2, "%s", "a command line over 64 KiB");
            ssize_t got = read(0, buf + len, cap - 1 - len);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break; /* EOF: as quit */
            len += (size_t)got;
            continue;
        }
        *nl = 0;
        const char *line = buf + start;
        start = (size_t)(nl + 1 - buf);
        int64_t t0 = now_ns();
        struct caller_cmd cmd;
        char why[200];
        if (caller_parse_cmd(line, &cmd, why, sizeof why) != 0)
            die(2, "%s", why);
        if (cmd.type == CALLER_TARGET)
            add_target(c, cmd.ior);
        else if (cmd.type == CALLER_DROP)
            drop(c, (size_t)cmd.k);
        else if (cmd.type == CALLER_ROUND)
            round_of(c, cmd.seq, (size_t)cmd.n, cmd.record, t0);
        else
            break;
    }
    free(buf);
}

int main(int argc, char **argv)
{
    struct caller c = {.mode = "sync", .payload_bytes = 16,
                       .timeout_ms = 5000, .pool_size = 100, .stack_kb = 64,
                       .die_after = -1, .hang_after = -1,
                       .garble_after = -1};
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--version") == 0) {
            printf("orbbench %s\n", ORBBENCH_VERSION);
            return 0;
        } else if (strcmp(a, "--modes") == 0) {
            for (size_t k = 0; k < ARRAY_LEN(modes); k++)
                printf("%s\n", modes[k]);
            return 0;
        } else if (strcmp(a, "--mode") == 0 && v) {
            c.mode = v;
            i++;
        } else if (strcmp(a, "--payload-bytes") == 0) {
            c.payload_bytes = number_arg(a, v, 0, 1048576);
            i++;
        } else if (strcmp(a, "--timeout-ms") == 0) {
            c.timeout_ms = number_arg(a, v, 1, 600000);
            i++;
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else {
            die(2, "unknown argument %s", a);
        }
    }
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--pool-size") == 0)
            c.pool_size = number_arg(a, v, 1, 10000);
        else if (strcmp(a, "--thread-stack-kb") == 0)
            c.stack_kb = number_arg(a, v, 32, 65536);
        else if (strcmp(a, "--die-after") == 0)
            c.die_after = number_arg(a, v, 0, INT32_MAX);
        else if (strcmp(a, "--hang-after") == 0)
            c.hang_after = number_arg(a, v, 0, INT32_MAX);
        else if (strcmp(a, "--garble-after") == 0)
            c.garble_after = number_arg(a, v, 0, INT32_MAX);
        else
            die(2, "unknown client argument %s", a);
        i++;
    }
    bool known = false;
    for (size_t k = 0; k < ARRAY_LEN(modes); k++)
        known = known || strcmp(modes[k], c.mode) == 0;
    if (!known)
        die(2, "no mode %s (see --modes)", c.mode);
    /* It dies with its parent, the spawner (which also set this before
     * exec: it holds). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_IGN);
    if (strcmp(c.mode, "null") != 0) {
        c.ops = callmode_lookup(c.mode);
        struct callmode_config cfg = {.timeout_ms = c.timeout_ms,
                                      .pool_size = c.pool_size,
                                      .thread_stack_kb = c.stack_kb,
                                      .interrupted = &never};
        int rc = c.ops ? c.ops->create(&c.m, &cfg) : -ENOENT;
        if (rc)
            die(1, "cannot start call mode %s", c.mode);
    }
    replyf("ready %d %s\n", (int)getpid(), c.mode);
    serve(&c);
    if (c.ops) {
        for (size_t k = 0; k < c.n; k++)
            conn_close(&c.conns[k]);
        c.ops->destroy(c.m);
    }
    free(c.conns);
    free(c.out);
    return 0;
}

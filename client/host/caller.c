/* A caller at work: see caller.h. */
#include "host/caller.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codec/caller_proto.h"
#include "core/stats.h"
#include "core/util.h"
#include "host/probe.h"

/* How long a target or drop may take to be answered beyond the call
 * timeout (string_to_object makes no remote call), and the margin of a
 * round's bound. */
#define CALLER_SLACK_MS 2000
/* How long quit may take before the caller is killed. */
#define CALLER_QUIT_MS 2000
#define CALLER_WHY_BYTES 600

struct callmode {
    struct callmode_config cfg;
    const struct caller_spec *spec;
    pid_t pid;
    int rfd, wfd;     /* its stdout, its stdin */
    char *in;         /* what it wrote: in[start..len) is unread */
    size_t start, len;
    uint64_t seq;     /* of the last round */
    size_t held;      /* targets it holds */
    struct call_times kept;
    /* A failure that ends every later operation (it died, hung, broke
     * the protocol, or a round was interrupted midway): its -errno. */
    int broken;
    char why[CALLER_WHY_BYTES];
    /* The measurement under way (costs_begin .. costs_end). */
    struct cpu_usage cpu0;
    bool cpu_ok;
    struct samples overhead_ns; /* each timed round: ours - the caller's */
    struct samples own_ns;      /* each timed round: the caller's own */
    uint64_t *inodes0;          /* the servers' sockets at the start */
    size_t ninodes0;
    size_t servers0;            /* servers whose sockets were read */
    bool measuring;             /* costs_begin came, costs_end not yet */
    json_t *fails;              /* the failed round's fail lines */
};

int64_t caller_round_bound_ms(const char *mode, uint64_t n,
                              int64_t timeout_ms)
{
    uint64_t calls = strcmp(mode, "sync") == 0 ? n : 1;
    return (int64_t)calls * timeout_ms + timeout_ms + CALLER_SLACK_MS;
}

/* "caller omniorb (omniORB 4.2.5, pid 123)" */
static void label(const struct callmode *m, char *buf, size_t len)
{
    const struct caller_spec *c = m->spec;
    if (m->pid > 0)
        snprintf(buf, len, "caller %s (%s %s, pid %d)", c->kind->name,
                 c->id->name, c->id->version, (int)m->pid);
    else
        snprintf(buf, len, "caller %s (%s %s)", c->kind->name, c->id->name,
                 c->id->version);
}

/* Mark the caller broken with err and "<label> <what>: <its last stderr
 * line>"; returns err. */
static int fail(struct callmode *m, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct callmode *m, int err, const char *fmt, ...)
{
    char who[200], what[400], tail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    label(m, who, sizeof who);
    spawner_log_tail(m->spec->sp, m->spec->group, m->spec->index, tail,
                     sizeof tail);
    snprintf(m->why, sizeof m->why, "%s %s%s%s%s", who, what,
             tail[0] ? " (its last stderr line: \"" : "", tail,
             tail[0] ? "\")" : "");
    m->broken = err;
    return err;
}

/* The caller closed its stdout: it is exiting. Why, in words. */
static int gone(struct callmode *m, const char *during)
{
    int st = 0;
    char how[96] = "closed its stdout";
    if (spawner_check(m->spec->sp, m->pid, 1000, &st) == 1)
        spawn_describe_status(st, how, sizeof how);
    return fail(m, -EPIPE, "%s %s", how, during);
}

/* No answer in time: kill it (nothing is left running), say so. */
static int hung(struct callmode *m, int64_t bound_ms, const char *during)
{
    spawner_kill(m->spec->sp, &m->pid, 1, 2000);
    return fail(m, -ETIMEDOUT, "did not answer %s within %lld ms and was "
                "killed", during, (long long)bound_ms);
}

/* Wait until fd is ready for `events` or the deadline. 1 ready, 0 timed
 * out, -EINTR interrupted. */
static int wait_fd(struct callmode *m, int fd, short events, int64_t deadline)
{
    for (;;) {
        if (m->cfg.interrupted && *m->cfg.interrupted)
            return -EINTR;
        struct pollfd p = {.fd = fd, .events = events};
        int rc = poll(&p, 1, ms_until(deadline));
        if (rc > 0)
            return 1;
        if (rc == 0)
            return 0;
        if (errno != EINTR)
            return -errno;
    }
}

/* Write all of text (len bytes) to its stdin by the deadline. */
static int send_text(struct callmode *m, const char *text, size_t len,
                     int64_t deadline, int64_t bound_ms, const char *during)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(m->wfd, text + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN)
            return gone(m, during);
        int rc = wait_fd(m, m->wfd, POLLOUT, deadline);
        if (rc == 0)
            return hung(m, bound_ms, during);
        if (rc < 0)
            return fail(m, rc, "was interrupted %s", during);
    }
    return 0;
}

/* The next line it wrote (without its '\n', terminated in place), by the
 * deadline. 0 with *line, or -errno (the caller is then broken). */
static int read_line(struct callmode *m, char **line, int64_t deadline,
                     int64_t bound_ms, const char *during)
{
    for (;;) {
        char *nl = memchr(m->in + m->start, '\n', m->len - m->start);
        if (nl) {
            *nl = 0;
            *line = m->in + m->start;
            m->start = (size_t)(nl + 1 - m->in);
            return 0;
        }
        if (m->start > 0) { /* keep the unread part at the front */
            memmove(m->in, m->in + m->start, m->len - m->start);
            m->len -= m->start;
            m->start = 0;
        }
        if (m->len >= CALLER_LINE_MAX)
            return fail(m, -EBADMSG, "wrote a line over %d bytes %s",
                        CALLER_LINE_MAX, during);
        ssize_t n = read(m->rfd, m->in + m->len, CALLER_LINE_MAX - m->len);
        if (n > 0) {
            m->len += (size_t)n;
            continue;
        }
        if (n == 0)
            return gone(m, during);
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN)
            return gone(m, during);
        int rc = wait_fd(m, m->rfd, POLLIN, deadline);
        if (rc == 0)
            return hung(m, bound_ms, during);
        if (rc < 0)
            return fail(m, rc, "was interrupted %s", during);
    }
}

/* A line that is not the protocol's answer here. */
static int broke(struct callmode *m, const char *line, const char *expected,
                 const char *during)
{
    char shown[120];
    str_escape(shown, sizeof shown, line);
    return fail(m, -EBADMSG, "broke the protocol %s: \"%.80s\" (expected "
                "%s)", during, shown, expected);
}

/* Read its answer to a target or drop: ok K with K == want. */
static int read_ok(struct callmode *m, size_t want, int64_t deadline,
                   int64_t bound_ms, const char *during, char *err,
                   size_t err_len)
{
    char *line, why[200];
    struct caller_reply r;
    int rc = read_line(m, &line, deadline, bound_ms, during);
    if (rc)
        return rc;
    if (caller_parse_reply(line, &r, why, sizeof why) != 0)
        return broke(m, line, "ok K or error MESSAGE", during);
    if (r.type == CALLER_ERROR && err) {
        str_escape(err, err_len, r.message);
        return -EINVAL;
    }
    if (r.type != CALLER_OK || r.count != want)
        return broke(m, line, "ok K, K the targets it then holds", during);
    return 0;
}

static void caller_destroy(struct callmode *m);

static int caller_create(struct callmode **out,
                         const struct callmode_config *cfg)
{
    const struct caller_spec *c = cfg->ext;
    struct callmode *m = calloc(1, sizeof *m);
    if (!m || !(m->in = malloc(CALLER_LINE_MAX + 1))) {
        free(m);
        return -ENOMEM;
    }
    m->cfg = *cfg;
    m->spec = c;
    m->rfd = m->wfd = -1;
    *out = NULL;
    struct spawn_result res;
    int rc = spawner_spawn(c->sp, c->group, c->index, 1, &res);
    if (rc) {
        /* The spawner's words: "caller 0 (pid P) exited with status 2
         * before printing its ready line: <its last stderr line>". */
        char who[200];
        label(m, who, sizeof who);
        if (cfg->why)
            snprintf(cfg->why, cfg->why_len, "%s did not start: %s", who,
                     res.why[0] ? res.why : strerror(-rc));
        caller_destroy(m);
        return rc;
    }
    m->pid = res.pid;
    m->rfd = res.fds[0];
    m->wfd = res.fds[1];
    fcntl(m->wfd, F_SETFL, fcntl(m->wfd, F_GETFL) | O_NONBLOCK);
    fcntl(m->rfd, F_SETFL, fcntl(m->rfd, F_GETFL) | O_NONBLOCK);
    struct caller_reply r;
    char why[200];
    if (m->rfd < 0 || m->wfd < 0)
        rc = fail(m, -EPROTO, "came up without its pipes");
    else if (caller_parse_reply(res.line, &r, why, sizeof why) != 0 ||
             r.type != CALLER_READY)
        rc = broke(m, res.line, "ready PID MODE", "when it started");
    else if (r.pid != (int64_t)res.pid)
        rc = fail(m, -EPROTO, "said it was pid %lld: a caller must exec, "
                  "never fork", (long long)r.pid);
    else if (strcmp(r.mode, c->launch->mode) != 0)
        rc = fail(m, -EPROTO, "is ready in mode %s, not %s", r.mode,
                  c->launch->mode);
    if (rc) {
        if (cfg->why)
            snprintf(cfg->why, cfg->why_len, "%s", m->why);
        caller_destroy(m); /* kills it: it is broken */
        return rc;
    }
    *out = m;
    return 0;
}

static int caller_targets(struct callmode *m, const struct conn *conns,
                          size_t from, const char *const *lines,
                          size_t count, char *why, size_t why_len)
{
    if (!m->broken && from != m->held)
        fail(m, -EPROTO, "holds %zu targets where the sweep has %zu", m->held,
             from);
    for (size_t k = 0; k < count && !m->broken; k++) {
        const struct conn *c = &conns[from + k];
        size_t len = strlen(lines[k]);
        char *text = malloc(len + 16), during[96], err[300];
        if (!text) {
            snprintf(why, why_len, "out of memory in the client");
            return -ENOMEM;
        }
        snprintf(during, sizeof during, "to target %zu (server %u)",
                 from + k, c->index);
        int n = snprintf(text, len + 16, "target %s\n", lines[k]);
        int64_t bound = m->cfg.timeout_ms + CALLER_SLACK_MS;
        int64_t deadline = now_ns() + bound * 1000000;
        int rc = send_text(m, text, (size_t)n, deadline, bound, during);
        free(text);
        if (!rc)
            rc = read_ok(m, m->held + 1, deadline, bound, during, err,
                         sizeof err);
        if (rc == -EINVAL && !m->broken) {
            char who[200];
            label(m, who, sizeof who);
            snprintf(why, why_len, "%s refused target %zu (server %u, pid "
                     "%d): %s", who, from + k, c->index, (int)c->pid, err);
            return rc;
        }
        if (!rc)
            m->held++;
    }
    if (m->broken)
        snprintf(why, why_len, "%s", m->why);
    return m->broken;
}

static void caller_forget(struct callmode *m, struct conn *conns, size_t from)
{
    (void)conns;
    if (m->broken || from >= m->held)
        return;
    char text[48];
    int n = snprintf(text, sizeof text, "drop %zu\n", from);
    int64_t bound = m->cfg.timeout_ms + CALLER_SLACK_MS;
    int64_t deadline = now_ns() + bound * 1000000;
    /* A failure here is kept (m->broken) for the next round to report. */
    if (send_text(m, text, (size_t)n, deadline, bound, "to drop") == 0 &&
        read_ok(m, from, deadline, bound, "to drop", NULL, 0) == 0)
        m->held = from;
}

/* Keep a fail line (at most CALLER_FAILS_LISTED a round). */
static void keep_fail(struct callmode *m, const struct caller_reply *r)
{
    char word[CALLER_WORD_BYTES], msg[300];
    if (!m->fails)
        m->fails = json_array();
    if (json_array_size(m->fails) >= CALLER_FAILS_LISTED)
        return;
    str_escape(word, sizeof word, r->word);
    str_escape(msg, sizeof msg, r->message);
    json_array_append_new(
        m->fails, json_pack("{s:I, s:I, s:s, s:s}", "round",
                            (json_int_t)r->seq, "target",
                            (json_int_t)r->index, "word", word, "message",
                            msg));
}

/* Read a round's answer: times (when record), fail lines, done. 0 with
 * *done, or -errno (broken). */
static int read_round(struct callmode *m, size_t n, bool record,
                      int64_t deadline, int64_t bound,
                      struct caller_reply *done, size_t *first_fail)
{
    char during[64], why[200];
    size_t pairs = 0, listed = 0;
    snprintf(during, sizeof during, "in round %" PRIu64 " (%zu calls)",
             m->seq, n);
    for (;;) {
        char *line;
        struct caller_reply r;
        int rc = read_line(m, &line, deadline, bound, during);
        if (rc)
            return rc;
        if (caller_parse_reply(line, &r, why, sizeof why) != 0)
            return broke(m, line, "times, fail or done", during);
        if ((r.type == CALLER_TIMES || r.type == CALLER_FAIL ||
             r.type == CALLER_DONE) && r.seq != m->seq)
            return broke(m, line, "this round's number", during);
        if (r.type == CALLER_TIMES && record) {
            const char *p = r.pairs;
            int64_t s, c;
            while ((rc = caller_times_next(&p, &s, &c)) == 1) {
                if (++pairs > n)
                    return broke(m, line, "no more times than calls",
                                 during);
                if (samples_add(&m->kept.service, s) ||
                    samples_add(&m->kept.completion, c))
                    return fail(m, -ENOMEM, "(out of memory in the client "
                                "%s)", during);
            }
            if (rc < 0)
                return broke(m, line, "pairs of numbers", during);
        } else if (r.type == CALLER_FAIL) {
            if (r.index >= n)
                return broke(m, line, "a failed call's target below N",
                             during);
            if (listed++ == 0)
                *first_fail = (size_t)r.index;
            keep_fail(m, &r);
        } else if (r.type == CALLER_DONE) {
            if (r.calls + r.failed != n || (record && pairs != r.calls) ||
                listed > r.failed)
                return broke(m, line, "CALLS + FAILED = N, and a pair of "
                             "times for each completed call", during);
            *done = r;
            return 0;
        } else {
            return broke(m, line, record ? "times, fail or done"
                                         : "fail or done", during);
        }
    }
}

static int caller_round(struct callmode *m, struct conn *conns, size_t n,
                        bool record, struct round_info *info)
{
    memset(info, 0, sizeof *info);
    if (!m->broken && n > m->held)
        fail(m, -EPROTO, "was asked for %zu calls while it holds %zu "
             "targets", n, m->held);
    if (m->broken) {
        info->err = m->broken;
        info->mode_failed = true;
        str_copy(info->why, sizeof info->why, m->why);
        return info->err;
    }
    json_decref(m->fails); /* a round's fail lines are its own */
    m->fails = NULL;
    char text[96];
    int len = snprintf(text, sizeof text, "round %" PRIu64 " %zu %d\n",
                       ++m->seq, n, record ? 1 : 0);
    int64_t bound = caller_round_bound_ms(m->spec->launch->mode, n,
                                          m->cfg.timeout_ms);
    int64_t t0 = now_ns(), deadline = t0 + bound * 1000000;
    struct caller_reply done = {.type = CALLER_DONE};
    size_t first = 0;
    int rc = send_text(m, text, (size_t)len, deadline, bound, "to a round");
    if (!rc)
        rc = read_round(m, n, record, deadline, bound, &done, &first);
    int64_t t1 = now_ns();
    if (rc) {
        info->err = rc;
        info->mode_failed = true;
        str_copy(info->why, sizeof info->why, m->why);
        return rc;
    }
    if (record) {
        samples_add(&m->overhead_ns, (t1 - t0) - done.round_ns);
        samples_add(&m->own_ns, done.round_ns);
    }
    info->calls = done.calls;
    if (done.failed == 0)
        return 0;
    /* Calls failed: the first listed names its server; the caller's
     * words say what went wrong. */
    char who[200];
    label(m, who, sizeof who);
    json_t *f = json_array_get(m->fails, 0);
    const char *word = json_string_value(json_object_get(f, "word"));
    const char *msg = json_string_value(json_object_get(f, "message"));
    info->err = -EREMOTEIO;
    info->failed = first < n ? first : 0;
    if (f)
        snprintf(info->why, sizeof info->why,
                 "%s: %" PRIu64 " of %zu calls failed in round %" PRIu64
                 "; the first, to target %zu (server %u): %s%s%s", who,
                 done.failed, n, m->seq, first, conns[first].index, word,
                 msg && msg[0] ? ": " : "", msg ? msg : "");
    else
        snprintf(info->why, sizeof info->why,
                 "%s: %" PRIu64 " of %zu calls failed in round %" PRIu64
                 " (none listed)", who, done.failed, n, m->seq);
    return info->err;
}

static int caller_drain(struct callmode *m, struct samples *service,
                        struct samples *completion)
{
    return callmode_move_samples(service, completion, &m->kept);
}

/* The servers' socket inodes, sorted: conns[0..n-1]'s processes. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static size_t server_sockets(const struct conn *conns, size_t n,
                             uint64_t **inodes, size_t *count)
{
    size_t cap = 0, read_ok_n = 0;
    *inodes = NULL;
    *count = 0;
    for (size_t i = 0; i < n; i++)
        if (conns[i].pid > 0 &&
            probe_socket_inodes(conns[i].pid, inodes, count, &cap) == 0)
            read_ok_n++;
    if (*count)
        qsort(*inodes, *count, sizeof **inodes, cmp_u64);
    return read_ok_n;
}

static void caller_costs_begin(struct callmode *m, const struct conn *conns,
                               size_t n)
{
    samples_clear(&m->overhead_ns);
    samples_clear(&m->own_ns);
    free(m->inodes0);
    m->cpu_ok = m->spec->machine &&
                machine_server_cpu(m->spec->machine, &m->cpu0) == 0;
    m->servers0 = server_sockets(conns, n, &m->inodes0, &m->ninodes0);
    m->measuring = true;
}

/* Sockets in a but not in b (both sorted). */
static size_t only_in(const uint64_t *a, size_t na, const uint64_t *b,
                      size_t nb)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na) {
        if (j == nb || a[i] < b[j]) {
            k++;
            i++;
        } else if (a[i] == b[j]) {
            i++;
            j++;
        } else {
            j++;
        }
    }
    return k;
}

/* A summary in µs of samples in ns (sorts them). */
static json_t *summary_us(struct samples *s)
{
    struct summary sum;
    stats_summarize(s, 1e3, &sum);
    return json_pack("{s:f, s:f, s:f, s:f}", "median", sum.median, "mean",
                     sum.mean, "min", sum.min, "max", sum.max);
}

static json_t *caller_costs_end(struct callmode *m, const struct conn *conns,
                                size_t n, uint64_t calls)
{
    struct cpu_usage cpu1;
    struct proc_footprint fp;
    uint64_t *inodes1;
    size_t ninodes1;
    json_t *j = json_pack("{s:i}", "pid", (int)m->pid);
    bool measuring = m->measuring;
    m->measuring = false;
    if (measuring && m->cpu_ok &&
        machine_server_cpu(m->spec->machine, &cpu1) == 0) {
        double total = (double)(cpu1.total_ns - m->cpu0.total_ns) / 1e9;
        double user = (double)(cpu1.user_ns - m->cpu0.user_ns);
        double sys = (double)(cpu1.sys_ns - m->cpu0.sys_ns);
        /* The total is exact, the split the kernel's sampled share. */
        double share = user + sys > 0 ? user / (user + sys) : 0;
        json_object_set_new(j, "cpu_s", json_real(total));
        json_object_set_new(j, "cpu_user_s", json_real(total * share));
        json_object_set_new(j, "cpu_sys_s", json_real(total * (1 - share)));
        if (calls)
            json_object_set_new(
                j, "cpu_per_call_us",
                json_pack("{s:f, s:f, s:f}", "total",
                          total * 1e6 / (double)calls, "user",
                          total * share * 1e6 / (double)calls, "sys",
                          total * (1 - share) * 1e6 / (double)calls));
    }
    if (m->pid > 0 && probe_process(m->pid, &fp) == 0)
        json_object_update_new(
            j, json_pack("{s:I, s:I, s:I, s:I, s:I}", "rss_kb",
                         (json_int_t)fp.rss_kb, "pss_kb",
                         (json_int_t)fp.pss_kb, "uss_kb",
                         (json_int_t)fp.uss_kb, "threads",
                         (json_int_t)fp.threads, "fds",
                         (json_int_t)fp.fds));
    if (m->own_ns.len) {
        json_object_set_new(j, "round_us", summary_us(&m->own_ns));
        json_object_set_new(j, "protocol_overhead_us",
                            summary_us(&m->overhead_ns));
    }
    if (m->fails && m->broken == 0 && json_array_size(m->fails))
        json_object_set(j, "fails", m->fails);
    if (!measuring)
        return j; /* a measurement that failed before its timed rounds */
    size_t servers1 = server_sockets(conns, n, &inodes1, &ninodes1);
    json_object_set_new(
        j, "server_sockets",
        json_pack("{s:I, s:I, s:I, s:I}", "opened",
                  (json_int_t)only_in(inodes1, ninodes1, m->inodes0,
                                      m->ninodes0),
                  "closed",
                  (json_int_t)only_in(m->inodes0, m->ninodes0, inodes1,
                                      ninodes1),
                  "held", (json_int_t)ninodes1, "servers",
                  (json_int_t)(servers1 < m->servers0 ? servers1
                                                      : m->servers0)));
    free(inodes1);
    free(m->inodes0);
    m->inodes0 = NULL;
    m->ninodes0 = 0;
    return j;
}

static void caller_destroy(struct callmode *m)
{
    if (m->pid > 0) {
        int st;
        int64_t deadline = now_ns() + (int64_t)CALLER_QUIT_MS * 1000000;
        bool asked = !m->broken &&
                     send_text(m, "quit\n", 5, deadline, CALLER_QUIT_MS,
                               "to quit") == 0;
        /* It exits on quit; a caller that does not is killed. */
        if (!asked || spawner_check(m->spec->sp, m->pid, CALLER_QUIT_MS,
                                    &st) != 1)
            spawner_kill(m->spec->sp, &m->pid, 1, 2000);
    }
    if (m->rfd >= 0)
        close(m->rfd);
    if (m->wfd >= 0)
        close(m->wfd);
    callmode_free_times(&m->kept);
    samples_free(&m->overhead_ns);
    samples_free(&m->own_ns);
    free(m->inodes0);
    json_decref(m->fails);
    free(m->in);
    free(m);
}

const struct callmode_ops callmode_caller = {
    .name = "caller",
    .create = caller_create,
    .round = caller_round,
    .drain = caller_drain,
    .destroy = caller_destroy,
    .forget = caller_forget,
    .targets = caller_targets,
    .costs_begin = caller_costs_begin,
    .costs_end = caller_costs_end,
};

json_t *caller_describe(const struct caller_spec *c)
{
    json_t *args = json_array(), *modes = json_array();
    for (size_t i = 0; i < c->launch->nargs; i++)
        json_array_append_new(args, json_string(c->launch->args[i]));
    for (size_t i = 0; i < c->id->nmodes; i++)
        json_array_append_new(modes, json_string(c->id->modes[i]));
    json_t *j = json_pack(
        "{s:s, s:s, s:s, s:s, s:s*, s:s, s:s, s:o, s:o, s:I, s:I}", "kind",
        c->kind->name, "orb", c->orb, "name", c->id->name, "version",
        c->id->version, "build", c->id->build[0] ? c->id->build : NULL,
        "path", c->launch->path, "mode", c->launch->mode, "modes", modes,
        "args", args, "payload_bytes", (json_int_t)c->launch->payload_bytes,
        "timeout_ms", (json_int_t)c->launch->timeout_ms);
    if (c->machine)
        json_object_set_new(j, "machine", machine_describe(c->machine));
    return j;
}

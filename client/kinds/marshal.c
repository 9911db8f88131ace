/* Marshaling alone (scenario kind "marshal", no servers): the cost of
 * encoding each payload of marshal.payloads, marshal.encodes times per
 * repeat, marshal.repeats times, in the client's C codec (payload_encode
 * into a reused buffer: the value's generation from its seed included,
 * one add per field) and, with marshal.omniorb, in omniORB's C++
 * marshaling (bin/omniorb-marshal-bench: the same bytes, unmarshaled into
 * the C++ type, marshaled into a cdrMemoryStream). Per payload and codec
 * the ns per encode of every repeat and their median; omniORB must
 * marshal the client's bytes exactly, and extract the client's event any
 * as its <Name>Event, or the run fails naming the payload. */
#include "kinds/kind.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codec/payload.h"
#include "kinds/run.h"
#include "core/result.h"
#include "core/stats.h"
#include "core/util.h"

/* omniORB's own marshaling, timed by this program beside orbbench. */
#define MARSHAL_OMNIORB_BENCH "omniorb-marshal-bench"

#define MARSHAL_MAX_PAYLOADS 16
/* kind "marshal": each payload encoded `encodes` times per repeat, in
 * the C codec and (omniorb) in omniORB's C++ marshaling. */
struct marshal_opts {
    char *payloads[MARSHAL_MAX_PAYLOADS]; /* none = the six */
    size_t npayloads;
    int64_t encodes;
    int64_t repeats;
    bool omniorb;
    double max_seconds;
};

/* The scenario's marshal options. */
static const struct marshal_opts *marshal_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct marshal_opts, sc);
}

/* The keys of kind marshal: fields of struct marshal_opts. */
#define OPT(f) SCENARIO_KIND_OFF(struct marshal_opts, f)
static const struct scenario_key marshal_keys[] = {
    {.key = "marshal.payloads", .type = SCENARIO_STRLIST, .off = OPT(payloads),
     .size = OPT(npayloads), .max = MARSHAL_MAX_PAYLOADS,
     .help = "kind marshal: payloads to encode (default: the six of "
     "idl/payloads.idl)"},
    {.key = "marshal.encodes", .type = SCENARIO_INT, .off = OPT(encodes),
     .min = 1, .max = 100000000, .def_num = 10000,
     .help = "kind marshal: encodes of a payload per repeat"},
    {.key = "marshal.repeats", .type = SCENARIO_INT, .off = OPT(repeats),
     .min = 1, .max = 1000, .def_num = 11,
     .help = "kind marshal: repeats; each gives ns per encode"},
    {.key = "marshal.omniorb", .type = SCENARIO_BOOL, .off = OPT(omniorb),
     .def_num = 1,
     .help = "kind marshal: also time omniORB's C++ marshaling of the same "
     "bytes (bin/omniorb-marshal-bench)"},
    {.key = "marshal.max_seconds", .type = SCENARIO_NUM,
     .off = OPT(max_seconds), .min = 1, .max = 86400, .def_num = 600,
     .help = "kind marshal: stop the run after this long (s)"},
};
#undef OPT

/* Each payload once, and only typed ones. */
static int marshal_check(const struct scenario_ctx *c,
                         const struct scenario *sc)
{
    for (size_t i = 0; i < marshal_opts(sc)->npayloads; i++) {
        const char *p = marshal_opts(sc)->payloads[i];
        for (size_t j = 0; j < i; j++)
            if (strcmp(marshal_opts(sc)->payloads[j], p) == 0)
                return scenario_fail(c, "marshal.payloads",
                                     "\"%s\" is listed twice", p);
        if (!payload_lookup(p) || strcmp(p, "string") == 0)
            return scenario_fail(c, "marshal.payloads", "\"%s\" is not a "
                                 "typed payload (None, Octet1K, Octet100K, "
                                 "Odometry, RangeSensor, SharedBelief)", p);
    }
    return 0;
}


/* The stamp every event any carries here: the C++ side checks it. */
#define MARSHAL_SENT_NS 1234567890123ull
/* The C++ benchmark's answer is one JSON line: a bound on it. */
#define MARSHAL_MAX_ANSWER (1u << 20)

struct marshal {
    struct side *s;
    struct run_outcome *o;
    int64_t t0_ns, deadline_ns;
    const struct payload_type *types[MARSHAL_MAX_PAYLOADS];
    size_t n;
    json_t *rows; /* one object per payload */
};

/* Whether to stop before the next repeat; the run's stop when so. */
static bool must_stop(struct marshal *m, const char *when)
{
    if (*m->s->interrupted) {
        run_stop(m->o, STOP_INTERRUPTED, 130, "interrupted %s",
                           when);
        return true;
    }
    if (now_ns() > m->deadline_ns) {
        run_stop(m->o, STOP_TIME, 0, "marshal.max_seconds (%g s) "
                           "reached %s", marshal_opts(m->s->sc)->max_seconds,
                           when);
        return true;
    }
    return false;
}

/* Per-repeat figures (ns per encode, kept as ps: the stats module's
 * integers) as {summary in ns, every repeat}. */
static json_t *figures(struct samples *ps)
{
    json_t *each = json_array();
    for (size_t i = 0; i < ps->len; i++)
        json_array_append_new(each, json_real((double)ps->ns[i] / 1e3));
    struct summary sum;
    stats_summarize(ps, 1e3, &sum);
    return json_pack("{s:o, s:o}", "ns_per_encode", result_summary(&sum),
                     "repeats_ns", each);
}

/* The C codec: payload_encode into a buffer reset before each encode. */
static json_t *time_c(struct marshal *m, const struct payload_type *pt)
{
    const struct scenario *sc = m->s->sc;
    struct cdr_out o;
    struct samples ps = {0};
    bool little = cdr_host_little();
    cdr_out_init(&o, little);
    payload_encode(pt, 0, &o); /* the buffer grows once, before timing */
    for (int64_t r = 0; r < marshal_opts(sc)->repeats && o.err == 0; r++) {
        if (must_stop(m, "timing the C codec"))
            break;
        int64_t t0 = now_ns();
        for (int64_t k = 0; k < marshal_opts(sc)->encodes; k++) {
            cdr_out_reset(&o, little);
            payload_encode(pt, 0, &o);
        }
        int64_t t1 = now_ns();
        if (samples_add(&ps, (t1 - t0) * 1000 / marshal_opts(sc)->encodes))
            break;
    }
    cdr_out_free(&o);
    json_t *f = figures(&ps);
    samples_free(&ps);
    return f;
}

static void put_hex(char **at, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    if (n == 0)
        *(*at)++ = '-';
    for (size_t i = 0; i < n; i++) {
        *(*at)++ = digits[p[i] >> 4];
        *(*at)++ = digits[p[i] & 15];
    }
}

/* The benchmark's input: per payload "NAME VALUE_HEX SENT_NS EVENT_HEX".
 * Malloc'd text, or NULL. */
static char *bench_input(const struct marshal *m, size_t *len)
{
    struct cdr_out v, a;
    size_t used = 0;
    char *text = malloc(1);
    cdr_out_init(&v, cdr_host_little());
    cdr_out_init(&a, cdr_host_little());
    for (size_t i = 0; text && i < m->n; i++) {
        cdr_out_reset(&v, cdr_host_little());
        cdr_out_reset(&a, cdr_host_little());
        if (payload_encode(m->types[i], 0, &v) ||
            payload_encode_event_any(m->types[i], 0, MARSHAL_SENT_NS, &a)) {
            free(text);
            text = NULL;
            break;
        }
        size_t need = used + 64 + 2 * (v.len + a.len + 2);
        char *grown = realloc(text, need);
        if (!grown) {
            free(text);
            text = NULL;
            break;
        }
        text = grown;
        char *at = text + used;
        at += sprintf(at, "%s ", payload_name(m->types[i]));
        put_hex(&at, v.data, v.len);
        at += sprintf(at, " %llu ", MARSHAL_SENT_NS);
        put_hex(&at, a.data, a.len);
        *at++ = '\n';
        used = (size_t)(at - text);
    }
    cdr_out_free(&v);
    cdr_out_free(&a);
    *len = used;
    return text;
}

/* Run argv[0] with `in` on its stdin; what it writes on stdout (at most
 * MARSHAL_MAX_ANSWER bytes) into *out (malloc'd, NUL-terminated). Killed
 * at deadline_ns. 0 (*wstatus set), or -errno with why. */
static int run_child(char *const argv[], const char *in, size_t in_len,
                     char **out, int64_t deadline_ns, int *wstatus,
                     char *why, size_t why_len)
{
    int to[2], from[2];
    *out = calloc(1, MARSHAL_MAX_ANSWER + 1);
    if (!*out || pipe2(to, O_CLOEXEC) != 0)
        return -ENOMEM;
    if (pipe2(from, O_CLOEXEC) != 0) {
        close(to[0]);
        close(to[1]);
        return -errno;
    }
    pid_t pid = fork();
    if (pid == 0) {
        /* Dies with the client: nothing may outlive the benchmark. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(to[0], 0);
        dup2(from[1], 1);
        execv(argv[0], argv);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    if (pid < 0) {
        close(to[1]);
        close(from[0]);
        snprintf(why, why_len, "fork: %s", strerror(errno));
        return -EAGAIN;
    }
    fcntl(to[1], F_SETFL, O_NONBLOCK);
    /* A child that ends without reading all of its input must not end
     * the client: EPIPE instead of SIGPIPE while writing to it. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    size_t sent = 0, got = 0;
    int rc = 0;
    struct pollfd p[2] = {{.fd = from[0], .events = POLLIN},
                          {.fd = to[1], .events = POLLOUT}};
    while (p[0].fd >= 0) {
        if (sent == in_len && p[1].fd >= 0) {
            close(to[1]); /* all of it: the child sees its end */
            p[1].fd = -1;
        }
        int ms = ms_until(deadline_ns);
        int ready = ms ? poll(p, 2, ms) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            snprintf(why, why_len, "no answer within marshal.max_seconds");
            rc = -ETIMEDOUT;
            break;
        }
        if (p[1].fd >= 0 && p[1].revents) {
            ssize_t n = write(to[1], in + sent, in_len - sent);
            if (n < 0 && errno == EPIPE)
                sent = in_len; /* it stopped reading: its status says why */
            else if (n < 0 && errno != EAGAIN) {
                snprintf(why, why_len, "writing its input: %s",
                         strerror(errno));
                rc = -errno;
                break;
            }
            sent += n > 0 ? (size_t)n : 0;
        }
        if (p[0].revents) {
            ssize_t n = read(from[0], *out + got, MARSHAL_MAX_ANSWER - got);
            if (n <= 0 || got + (size_t)n == MARSHAL_MAX_ANSWER)
                p[0].fd = -1; /* its end, or the bound */
            got += n > 0 ? (size_t)n : 0;
        }
    }
    if (p[1].fd >= 0)
        close(to[1]);
    close(from[0]);
    sigaction(SIGPIPE, &old, NULL);
    if (rc)
        kill(pid, SIGKILL);
    waitpid(pid, wstatus, 0);
    return rc;
}

/* Find the benchmark's row for `name` in its answer. */
static json_t *bench_row(json_t *answer, const char *name)
{
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(answer, "payloads"), i, row) {
        const char *n = json_string_value(json_object_get(row, "name"));
        if (n && strcmp(n, name) == 0)
            return row;
    }
    return NULL;
}

/* Fold the benchmark's row into the payload's: its figures, or the run's
 * failure (omniORB disagreed, or did not take the event). */
static int fold_row(struct marshal *m, json_t *mine, json_t *theirs,
                    const char *name)
{
    const char *err = json_string_value(json_object_get(theirs, "error"));
    const char *event = json_string_value(json_object_get(theirs, "event"));
    if (!theirs || err || !event || strcmp(event, "ok") != 0) {
        run_stop(m->o, STOP_CALL_FAILED, 1, "%s: %s: %s",
                           MARSHAL_OMNIORB_BENCH, name,
                           !theirs ? "no answer for this payload"
                           : err   ? err
                           : event ? event
                                   : "no event check");
        return -1;
    }
    struct samples ps = {0};
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(theirs, "ns_per_encode"), i, v)
        samples_add(&ps, (int64_t)(json_number_value(v) * 1e3));
    json_object_set_new(mine, "omniorb", figures(&ps));
    json_object_set_new(mine, "omniorb_event", json_string(event));
    samples_free(&ps);
    return 0;
}

/* omniORB's C++ marshaling of the same payloads, in one run of the
 * benchmark. */
static void time_omniorb(struct marshal *m)
{
    const struct scenario *sc = m->s->sc;
    char dir[PATH_MAX - 64], path[PATH_MAX], enc[24], rep[24];
    char why[256] = "";
    helper_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, MARSHAL_OMNIORB_BENCH);
    snprintf(enc, sizeof enc, "%lld", (long long)marshal_opts(sc)->encodes);
    snprintf(rep, sizeof rep, "%lld", (long long)marshal_opts(sc)->repeats);
    char *argv[] = {path, "--encodes", enc, "--repeats", rep, NULL};
    size_t in_len;
    char *in = bench_input(m, &in_len), *out = NULL;
    int st = 0;
    int rc = in ? run_child(argv, in, in_len, &out, m->deadline_ns, &st,
                            why, sizeof why)
                : -ENOMEM;
    json_t *answer = rc == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0
                         ? json_loads(out, 0, NULL)
                         : NULL;
    free(in);
    free(out);
    if (!answer) {
        char status[96];
        spawn_describe_status(st, status, sizeof status);
        if (rc == -ENOMEM)
            snprintf(why, sizeof why, "out of memory");
        else if (rc == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
            snprintf(why, sizeof why, "cannot run it (run make first?)");
        else if (rc == 0)
            snprintf(why, sizeof why, "%s, no JSON answer", status);
        run_stop(m->o, rc == -ETIMEDOUT ? STOP_TIME
                                                  : STOP_CALL_FAILED,
                           1, "%s: %s", path, why);
        return;
    }
    json_object_set_new(json_object_get(m->s->doc, "marshal"), "omniorb",
                        json_pack("{s:s?, s:s}", "version",
                                  json_string_value(
                                      json_object_get(answer, "orb")),
                                  "path", path));
    size_t i;
    json_t *row;
    json_array_foreach(m->rows, i, row) {
        const char *name = payload_name(m->types[i]);
        if (fold_row(m, row, bench_row(answer, name), name))
            break;
    }
    json_decref(answer);
}

static void marshal_run(struct side *sides, struct run_outcome *o,
                        size_t nsides)
{
    struct marshal m = {.s = &sides[0], .o = &o[0], .t0_ns = now_ns()};
    const struct scenario *sc = m.s->sc;
    memset(o, 0, nsides * sizeof *o);
    m.deadline_ns = m.t0_ns + (int64_t)(marshal_opts(sc)->max_seconds * 1e9);
    /* The six typed payloads unless the scenario lists some. */
    for (size_t i = 0; i < payload_count() && !marshal_opts(sc)->npayloads; i++)
        if (strcmp(payload_name(payload_at(i)), "string") != 0)
            m.types[m.n++] = payload_at(i);
    for (size_t i = 0; i < marshal_opts(sc)->npayloads; i++)
        m.types[m.n++] = payload_lookup(marshal_opts(sc)->payloads[i]);
    m.rows = json_array();
    json_object_set_new(m.s->doc, "marshal",
                        json_pack("{s:I, s:I, s:n, s:O}", "encodes",
                                  (json_int_t)marshal_opts(sc)->encodes,
                                      "repeats",
                                  (json_int_t)marshal_opts(sc)->repeats,
                                      "omniorb",
                                  "payloads", m.rows));
    for (size_t i = 0; i < m.n && !m.o->stop_reason; i++) {
        struct cdr_out v;
        cdr_out_init(&v, cdr_host_little());
        payload_encode(m.types[i], 0, &v);
        json_t *row = json_pack("{s:s, s:I, s:o}", "name",
                                payload_name(m.types[i]), "value_bytes",
                                (json_int_t)v.len, "c",
                                time_c(&m, m.types[i]));
        cdr_out_free(&v);
        json_array_append_new(m.rows, row);
        double spent = (double)(now_ns() - m.t0_ns) / 1e9;
        run_progress_count(m.s, "encode in C", "payload", (int64_t)i + 1,
                           (int64_t)m.n, spent, spent,
                           payload_name(m.types[i]));
    }
    if (!m.o->stop_reason && marshal_opts(sc)->omniorb)
        time_omniorb(&m);
    run_progress_end(m.s);
    if (!m.o->stop_reason)
        run_stop(m.o, STOP_DONE, 0, "%zu payloads, %lld repeats "
                           "of %lld encodes", m.n,
                           (long long)marshal_opts(sc)->repeats,
                           (long long)marshal_opts(sc)->encodes);
    json_decref(m.rows);
    result_set_outcome(m.s->doc, m.o->stop_reason, m.o->detail,
                       (double)(now_ns() - m.t0_ns) / 1e9);
}

/* The median ns per encode of one codec in a payload's row, or -1. */
static double median_ns(json_t *row, const char *codec)
{
    json_t *v = json_object_get(
        json_object_get(json_object_get(row, codec), "ns_per_encode"),
        "median");
    return json_is_number(v) ? json_number_value(v) : -1;
}

static void marshal_summary(const struct scenario *sc, json_t *doc,
                     const struct run_outcome *o, const char *out)
{
    json_t *mar = json_object_get(doc, "marshal");
    size_t i;
    json_t *row;
    printf("%s: ns per encode, median of %lld repeats of %lld (C codec",
           sc->name, (long long)marshal_opts(sc)->repeats,
           (long long)marshal_opts(sc)->encodes);
    printf("%s):", json_is_object(json_object_get(mar, "omniorb"))
                       ? " / omniORB"
                       : "");
    json_array_foreach(json_object_get(mar, "payloads"), i, row) {
        printf(" %s %.1f",
               json_string_value(json_object_get(row, "name")),
               median_ns(row, "c"));
        if (median_ns(row, "omniorb") >= 0)
            printf(" / %.1f", median_ns(row, "omniorb"));
        printf(";");
    }
    printf(" stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

const struct kind_ops kind_marshal = {
    .scenario = {.name = "marshal",
                 .keys = marshal_keys,
                 .nkeys = ARRAY_LEN(marshal_keys),
                 .check = marshal_check},
    .flags = KIND_SERVERLESS,
    .run = marshal_run,
    .summary = marshal_summary,
};

/* The upcall rate (scenario kind "rate"): k servers, each called on its
 * own connection with rate.window requests in flight (1: ping-pong; more:
 * pipelining, replies matched by request id), or with GIOP oneway
 * requests that the server counts; after rate.warmup_s, rate.repeats
 * back-to-back windows of rate.duration_s each give upcalls per second
 * and the CPU per upcall of client and servers, user and kernel, and
 * context switches per upcall.
 *
 * One thread drives every connection with
 * ppoll: it keeps each one's window full (a batch of requests in one
 * write; net/pipeline.h matches replies to requests by id in any order
 * and checks each echo), and fails a request without a reply within
 * call.timeout_ms. The warm-up, the windows, the checkpoints and the
 * progress line are the harness's (kinds/window.h). */
#include "kinds/kind.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/result.h"
#include "core/stats.h"
#include "core/util.h"
#include "host/probe.h"
#include "kinds/servers.h"
#include "kinds/window.h"
#include "net/pipeline.h"

/* kind "rate": the upcall rate of k servers, w requests in flight on
 * each one's connection, for repeats windows of duration_s. */
struct rate_opts {
    struct window_opts win; /* rate.duration_s, warmup_s, repeats: one
                             * repeat's measuring window, untimed before
                             * the first, the windows */
    int64_t window;    /* requests in flight per connection; oneway:
                        * requests per write */
    int64_t servers;   /* k, each with its own connection */
    bool oneway;       /* GIOP oneway requests, counted by the server */
};

/* The scenario's rate options. */
static const struct rate_opts *rate_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct rate_opts, sc);
}

/* The keys of kind rate: fields of struct rate_opts. */
#define OPT(f) SCENARIO_KIND_OFF(struct rate_opts, f)
static const struct scenario_key rate_keys[] = {
    {.key = "rate.window", .type = SCENARIO_INT, .off = OPT(window), .min = 1,
     .max = 1024, .def_num = 1,
     .help = "kind rate: requests in flight per connection (1 = ping-pong); "
     "oneway: requests per write"},
    WINDOW_KEY_DURATION("rate", "kind rate: length of one repeat's "
                        "measuring window (s)"),
    WINDOW_KEY_WARMUP("rate", 0.5, "kind rate: untimed calls before the "
                      "first repeat (s)"),
    WINDOW_KEY_REPEATS("rate", "kind rate: measuring windows, back to "
                       "back"),
    {.key = "rate.servers", .type = SCENARIO_INT, .off = OPT(servers),
     .min = 1, .max = 256, .def_num = 1,
     .help = "kind rate: servers, each called on its own connection"},
    {.key = "rate.oneway", .type = SCENARIO_BOOL, .off = OPT(oneway),
     .help = "kind rate: GIOP oneway requests, counted by the server and "
     "read back after each window"},
};
#undef OPT

/* Kind rate echoes strings (call.payload_bytes long). */
static int rate_check(const struct scenario_ctx *c, const struct scenario *sc)
{
    if (strcmp(sc->call.payload, "string") != 0)
        return scenario_fail(c, "call.payload", "kind rate echoes strings "
                             "only (call.payload_bytes)");
    return 0;
}


#define RATE_MAX_SERVERS 256

/* One server's connection, its requests in flight, and the oneway
 * count. */
struct rconn {
    struct conn c;     /* descriptors, transport, wire, target, buffers */
    struct pipeline p; /* rate.window requests in flight on c */
    /* oneway: the count request in flight, and what it must reach */
    bool count_pending;
    bool count_ok;       /* the last count equalled the requests sent */
    uint32_t count_id;
    int64_t count_deadline_ns;
};

/* Readings at a window's edge. */
struct snap {
    int64_t t_ns;
    struct rusage ru;
    struct cpu_usage srv;
    bool srv_ok;
    int64_t srv_ctx; /* servers' context switches, -1 unknown */
    uint64_t sent, done;
};

struct rate {
    struct side *s;
    struct run_outcome *o;
    struct rconn *rc;
    struct pollfd *pfd;
    size_t n;        /* connected servers */
    size_t failed;   /* the conn of the last failure (its c.why) */
    struct snap a;   /* the readings at the next window's start */
    double last_rate; /* the last window's upcalls per second */
};

/* A failure on connection i: err, after its conn noted why. */
static int fail(struct rate *r, size_t i, int err)
{
    r->failed = i;
    return err;
}

static const char *rate_unsupported(const struct scenario *sc,
                             const struct server_kind *server,
                             const char **key)
{
    if (rate_opts(sc)->oneway &&
        (!server->wire->encode_oneway || !server->wire->encode_count)) {
        *key = "rate.oneway";
        return "has no oneway operation";
    }
    return NULL;
}

/* Queue as many requests as the window has room for: the next write
 * sends them all. */
static int fill(struct rate *r, size_t i)
{
    struct pipeline *p = &r->rc[i].p;
    size_t w = (size_t)rate_opts(r->s->sc)->window;
    int e = 0;
    if (rate_opts(r->s->sc)->oneway)
        for (size_t k = 0; k < w && !e; k++)
            e = pipeline_oneway(p);
    else
        while (!e && p->in_flight < w)
            e = pipeline_call(p, 0, 0);
    return e ? fail(r, i, e) : 0;
}

/* The oneway count request, after every oneway so far is written. */
static int ask_count(struct rate *r, size_t i)
{
    struct rconn *rc = &r->rc[i];
    int e = pipeline_count(&rc->p, &rc->count_id);
    if (e)
        return fail(r, i, e);
    rc->count_pending = true;
    return 0;
}

/* A reply to no request in flight: the oneway count's, or none. */
static int take_count(void *arg, struct pipeline *p,
                      const struct wire_reply *rp,
                      const struct pipeline_slot *slot, int64_t at_ns)
{
    struct rconn *rc = arg;
    (void)at_ns;
    if (slot)
        return 0; /* a request's, checked */
    if (!rc->count_pending || rp->id != rc->count_id)
        return -ENOENT;
    char digits[32];
    int64_t count;
    size_t len = rp->payload_len < sizeof digits ? rp->payload_len
                                                 : sizeof digits - 1;
    memcpy(digits, rp->payload, len);
    digits[len] = 0;
    if (parse_i64(digits, &count) != 0 || count < 0)
        return conn_failed(p->c, -EBADMSG, "onewayCount replied \"%s\", "
                           "not a count", digits);
    if ((uint64_t)count > p->sent)
        return conn_failed(p->c, -EBADMSG, "the server counted %lld oneway "
                           "requests, more than the %llu sent",
                           (long long)count, (unsigned long long)p->sent);
    rc->count_pending = false;
    rc->count_ok = (uint64_t)count == p->sent;
    return 0;
}

/* Write what the transport takes. 1 when something was written. */
static int write_some(struct rate *r, size_t i)
{
    int e = pipeline_write_some(&r->rc[i].p);
    return e < 0 ? fail(r, i, e) : e;
}

/* Read what is there and take every whole reply. 1 when a reply came. */
static int read_some(struct rate *r, size_t i)
{
    int e = pipeline_read_some(&r->rc[i].p, take_count, &r->rc[i]);
    return e < 0 ? fail(r, i, e) : e;
}

/* What a pump runs until. */
enum pump_goal {
    UNTIL_TIME,    /* send and take replies until `until_ns` */
    UNTIL_DRAINED, /* send nothing new; every reply in */
    UNTIL_COUNTED, /* oneway: every server counted every request sent */
};

static bool idle(const struct rconn *rc, enum pump_goal goal)
{
    if (rc->c.tx_done < rc->c.tx.len)
        return false;
    if (goal == UNTIL_COUNTED)
        return rc->count_ok && !rc->count_pending;
    return rc->p.in_flight == 0;
}

/* Has connection i a request to encode now (its last batch all out)? */
static bool can_send(const struct rate *r, size_t i, enum pump_goal goal)
{
    const struct rconn *rc = &r->rc[i];
    if (rc->c.tx_done < rc->c.tx.len)
        return false;
    if (goal == UNTIL_TIME)
        return rate_opts(r->s->sc)->oneway ||
               rc->p.in_flight < (size_t)rate_opts(r->s->sc)->window;
    return goal == UNTIL_COUNTED && !rc->count_pending && !rc->count_ok;
}

/* Serve connection i once: write, read, refill. -errno on failure. */
static int serve(struct rate *r, size_t i, enum pump_goal goal)
{
    /* Bounded: a few rounds of refill-write-read, then the next conn. */
    for (int k = 0; k < 4; k++) {
        int progress;
        if (can_send(r, i, goal)) {
            int e = goal == UNTIL_TIME ? fill(r, i) : ask_count(r, i);
            if (e)
                return e;
        }
        int w = write_some(r, i);
        if (w < 0)
            return w;
        int rd = read_some(r, i);
        if (rd < 0)
            return rd;
        progress = w + rd;
        if (!progress)
            break;
    }
    return 0;
}

/* The earliest time a reply is due on any connection. */
static int64_t next_deadline(const struct rate *r)
{
    int64_t t = INT64_MAX, ms = r->s->sc->call.timeout_ms * 1000000;
    for (size_t i = 0; i < r->n; i++) {
        const struct rconn *rc = &r->rc[i];
        if (rc->count_pending && rc->count_deadline_ns < t)
            t = rc->count_deadline_ns;
        int64_t one = pipeline_deadline(&rc->p, ms);
        if (one < t)
            t = one;
    }
    return t;
}

/* A reply or count past call.timeout_ms at `now`: fail on its conn
 * (-ETIMEDOUT), or 0 when none is. */
static int overdue(struct rate *r, enum pump_goal goal, int64_t now)
{
    long long ms = (long long)r->s->sc->call.timeout_ms;
    for (size_t i = 0; i < r->n; i++) {
        struct rconn *rc = &r->rc[i];
        int64_t one = rc->count_deadline_ns;
        if (rc->count_pending && one <= now)
            return fail(r, i, conn_failed(&rc->c, -ETIMEDOUT, "onewayCount: "
                                          "no reply within %lld ms", ms));
        if (goal == UNTIL_COUNTED && !rc->count_ok && one <= now)
            return fail(r, i, conn_failed(
                                  &rc->c, -ETIMEDOUT, "the server had not "
                                  "counted all %llu oneway requests within "
                                  "%lld ms",
                                  (unsigned long long)rc->p.sent, ms));
    }
    for (size_t i = 0; i < r->n; i++)
        if (r->rc[i].p.in_flight)
            return fail(r, i, conn_failed(&r->rc[i].c, -ETIMEDOUT, "no reply "
                                          "within %lld ms (%zu requests in "
                                          "flight)", ms,
                                          r->rc[i].p.in_flight));
    return 0;
}

/* Run every connection until the goal (time, drained or counted), each
 * request bounded by call.timeout_ms, the count by it too. 0, -EINTR, or
 * -errno with r->failed (its conn's why). */
static int pump(struct rate *r, enum pump_goal goal, int64_t until_ns)
{
    const struct scenario *sc = r->s->sc;
    int64_t ms = sc->call.timeout_ms * 1000000;
    if (goal == UNTIL_COUNTED)
        for (size_t i = 0; i < r->n; i++) {
            r->rc[i].count_ok = false;
            r->rc[i].count_deadline_ns = now_ns() + ms;
        }
    /* Bounded by time: every pass either ends the pump or waits in ppoll
     * for at most the window's end or a request's deadline. */
    for (;;) {
        if (*r->s->interrupted)
            return -EINTR;
        int64_t now = now_ns();
        if (goal == UNTIL_TIME && now >= until_ns)
            return 0;
        bool all_idle = goal != UNTIL_TIME, ready = false;
        for (size_t i = 0; i < r->n; i++) {
            int e = serve(r, i, goal);
            if (e)
                return e;
            all_idle = all_idle && idle(&r->rc[i], goal);
            ready = ready || can_send(r, i, goal);
        }
        if (all_idle)
            return 0;
        if (ready)
            continue; /* serve's bound ended its turn, not the work */
        now = now_ns();
        int64_t due = next_deadline(r);
        if (due <= now) {
            int e = overdue(r, goal, now);
            if (e)
                return e;
        }
        int64_t wake = goal == UNTIL_TIME && until_ns < due ? until_ns : due;
        if (goal == UNTIL_COUNTED)
            for (size_t i = 0; i < r->n; i++)
                if (!r->rc[i].count_ok &&
                    r->rc[i].count_deadline_ns < wake)
                    wake = r->rc[i].count_deadline_ns;
        /* Two entries a conn: reads always (replies must be taken while
         * requests are written, or both sides could block), writes while
         * some are pending; one descriptor for both on a socket. */
        for (size_t i = 0; i < r->n; i++) {
            struct conn *c = &r->rc[i].c;
            bool tx = c->tx_done < c->tx.len;
            bool one = c->fds.wfd == c->fds.rfd;
            r->pfd[2 * i] = (struct pollfd){
                .fd = c->fds.rfd,
                .events = (short)(POLLIN | (tx && one ? POLLOUT : 0))};
            r->pfd[2 * i + 1] = (struct pollfd){
                .fd = tx && !one ? c->fds.wfd : -1, .events = POLLOUT};
        }
        int64_t left = wake - now_ns();
        if (left < 0)
            left = 0;
        if (left > 1000000000LL)
            left = 1000000000LL; /* look at the clock at least each second */
        struct timespec ts = {left / 1000000000LL, left % 1000000000LL};
        if (ppoll(r->pfd, 2 * r->n, &ts, NULL) < 0 && errno != EINTR)
            return fail(r, 0, conn_failed(&r->rc[0].c, -errno, "ppoll: %s",
                                          strerror(errno)));
    }
}

static void take_snap(struct rate *r, struct snap *sn)
{
    sn->srv_ctx = 0;
    for (size_t i = 0; i < r->n && sn->srv_ctx >= 0; i++) {
        int64_t v = probe_task_ctx_switches(r->rc[i].c.pid);
        sn->srv_ctx = v < 0 ? -1 : sn->srv_ctx + v;
    }
    sn->sent = sn->done = 0;
    for (size_t i = 0; i < r->n; i++) {
        sn->sent += r->rc[i].p.sent;
        sn->done += r->rc[i].p.done;
    }
    sn->t_ns = now_ns();
    getrusage(RUSAGE_SELF, &sn->ru);
    sn->srv_ok = r->s->machine &&
                 machine_server_cpu(r->s->machine, &sn->srv) == 0;
}

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* One repeat's figures from the readings at its edges. */
static json_t *repeat_json(struct rate *r, int k, const struct snap *a,
                           const struct snap *b, double *rate_out)
{
    bool oneway = rate_opts(r->s->sc)->oneway;
    double elapsed = (double)(b->t_ns - a->t_ns) / 1e9;
    /* oneway: every request sent was counted by its server before b */
    uint64_t calls = oneway ? b->sent - a->sent : b->done - a->done;
    double rate = elapsed > 0 ? (double)calls / elapsed : 0;
    double per = calls ? 1e6 / (double)calls : 0;
    double cu = tv_s(b->ru.ru_utime) - tv_s(a->ru.ru_utime);
    double cs = tv_s(b->ru.ru_stime) - tv_s(a->ru.ru_stime);
    long cctx = (b->ru.ru_nvcsw - a->ru.ru_nvcsw) +
                (b->ru.ru_nivcsw - a->ru.ru_nivcsw);
    *rate_out = rate;
    json_t *j = json_pack(
        "{s:i, s:f, s:I, s:I, s:f, s:{s:f, s:f, s:I}}", "repeat", k,
        "elapsed_s", elapsed, "calls", (json_int_t)calls, "sent",
        (json_int_t)(b->sent - a->sent), "upcalls_per_s", rate, "client",
        "cpu_user_s", cu, "cpu_sys_s", cs, "ctx_switches", (json_int_t)cctx);
    json_t *cpu = json_pack("{s:f, s:f}", "client_user", cu * per,
                            "client_sys", cs * per);
    double each = calls ? 1.0 / (double)calls : 0;
    json_t *ctx = json_pack("{s:f}", "client", (double)cctx * each);
    if (a->srv_ok && b->srv_ok) {
        double total = (double)(b->srv.total_ns - a->srv.total_ns) / 1e9;
        double u = (double)(b->srv.user_ns - a->srv.user_ns);
        double s = (double)(b->srv.sys_ns - a->srv.sys_ns);
        double share = u + s > 0 ? u / (u + s) : 0;
        json_object_set_new(
            j, "server_cpu",
            json_pack("{s:f, s:f, s:f, s:f, s:f}", "total_s", total,
                      "user_s", total * share, "sys_s", total * (1 - share),
                      "sampled_user_s", u / 1e9, "sampled_sys_s", s / 1e9));
        json_object_set_new(cpu, "server", json_real(total * per));
        json_object_set_new(cpu, "server_user",
                            json_real(total * share * per));
        json_object_set_new(cpu, "server_sys",
                            json_real(total * (1 - share) * per));
    }
    if (a->srv_ctx >= 0 && b->srv_ctx >= 0) {
        json_object_set_new(j, "server_ctx_switches",
                            json_integer(b->srv_ctx - a->srv_ctx));
        json_object_set_new(ctx, "server",
                            json_real((double)(b->srv_ctx - a->srv_ctx) *
                                      each));
    }
    json_object_set_new(j, "cpu_per_upcall_us", cpu);
    json_object_set_new(j, "ctx_switches_per_upcall", ctx);
    return j;
}

/* The median of repeats[*].group.key (group NULL: top level), or -1
 * when no repeat has it. */
static double median_of(json_t *repeats, const char *group, const char *key,
                        double *min, double *max)
{
    size_t n = json_array_size(repeats), k = 0, i;
    double *v = malloc((n ? n : 1) * sizeof *v);
    json_t *rep;
    if (!v)
        return -1;
    json_array_foreach(repeats, i, rep) {
        json_t *g = group ? json_object_get(rep, group) : rep;
        json_t *x = json_object_get(g, key);
        if (json_is_number(x))
            v[k++] = json_number_value(x);
    }
    double med = -1;
    if (k) {
        struct spread sp;
        stats_spread(v, k, &sp);
        med = sp.median;
        if (min)
            *min = sp.min;
        if (max)
            *max = sp.max;
    }
    free(v);
    return med;
}

/* The summary over the repeats so far: doc.rate. */
static void summarize(struct rate *r)
{
    json_t *reps = json_object_get(r->s->doc, "repeats");
    double lo = 0, hi = 0;
    double med = median_of(reps, NULL, "upcalls_per_s", &lo, &hi);
    json_t *sum = json_pack("{s:I, s:{s:f, s:f, s:f}}", "repeats",
                            (json_int_t)json_array_size(reps),
                            "upcalls_per_s", "median", med < 0 ? 0 : med,
                            "min", lo, "max", hi);
    static const char *const cpu[] = {"client_user", "client_sys",
                                      "server_user", "server_sys", "server"};
    json_t *c = json_object();
    for (size_t i = 0; i < ARRAY_LEN(cpu); i++) {
        double m = median_of(reps, "cpu_per_upcall_us", cpu[i], NULL, NULL);
        if (m >= 0)
            json_object_set_new(c, cpu[i], json_real(m));
    }
    json_object_set_new(sum, "cpu_per_upcall_us", c);
    json_t *x = json_object();
    static const char *const sides[] = {"client", "server"};
    for (size_t i = 0; i < ARRAY_LEN(sides); i++) {
        double m = median_of(reps, "ctx_switches_per_upcall", sides[i], NULL,
                             NULL);
        if (m >= 0)
            json_object_set_new(x, sides[i], json_real(m));
    }
    json_object_set_new(sum, "ctx_switches_per_upcall", x);
    json_object_set_new(r->s->doc, "rate", sum);
}

/* A failed pump: servers_failed says what it was. -1: the run stopped. */
static int pump_failed(struct rate *r, int err, const char *when)
{
    const struct conn *c = &r->rc[r->failed].c;
    char at[160];
    snprintf(at, sizeof at, " %s", when);
    servers_failed(r->s, r->o,
                   &(struct servers_failure){.index = c->index,
                                             .pid = c->pid,
                                             .err = err,
                                             .why = c->why,
                                             .at = at,
                                             .oom_kills = -1});
    return -1;
}

static struct conn *start_slot(void *arg, size_t k)
{
    struct rate *r = arg;
    return &r->rc[k].c;
}

/* The result's repeats, the k servers started and connected: 0, or -1
 * once the run stopped. */
static int rate_init(struct window *w)
{
    struct rate *r = w->kind;
    const struct scenario *sc = w->s->sc;
    size_t k = (size_t)rate_opts(sc)->servers;
    r->s = w->s;
    r->o = w->o;
    json_object_set_new(r->s->doc, "repeats", json_array());
    r->rc = calloc(k, sizeof *r->rc);
    r->pfd = calloc(2 * k, sizeof *r->pfd);
    if (!r->rc || !r->pfd || k > RATE_MAX_SERVERS) {
        run_stop(r->o, STOP_RESOURCE, 0, "out of memory in the client");
        return -1;
    }
    struct servers_want want = {
        .group = r->s->group,
        .count = (unsigned)k,
        .cpu = -1,
        .oom_kills = -1,
        .slot = start_slot,
        .arg = r,
    };
    r->n = servers_start(r->s, r->o, &want, NULL);
    if (r->n != k || r->o->stop_reason)
        return -1;
    for (size_t i = 0; i < k; i++)
        if (pipeline_init(&r->rc[i].p, &r->rc[i].c,
                          (size_t)rate_opts(sc)->window)) {
            run_stop(r->o, STOP_RESOURCE, 0, "out of memory in the client "
                     "for server %u's window", r->rc[i].c.index);
            return -1;
        }
    char lib[512];
    json_t *orb = json_object_get(r->s->doc, "orb");
    if (orb && probe_mapped_library(r->rc[0].c.pid, r->s->server->library,
                                    lib, sizeof lib) == 0)
        json_object_set_new(orb, "library_path", json_string(lib));
    return 0;
}

/* The warm-up, whose end the first repeat starts at, or one repeat, each
 * starting where the last ended: back to back. */
static int rate_window(struct window *w, const struct window_at *at)
{
    struct rate *r = w->kind;
    bool oneway = rate_opts(r->s->sc)->oneway;
    int64_t start = at->repeat < 0 ? at->start_ns : r->a.t_ns;
    int e = pump(r, UNTIL_TIME, start + at->duration_ns);
    /* oneway: a window ends when every server has counted every request
     * sent to it. */
    if (!e && oneway)
        e = pump(r, UNTIL_COUNTED, 0);
    if (e)
        return pump_failed(r, e, at->when);
    if (at->repeat < 0) {
        take_snap(r, &r->a);
        return 0;
    }
    struct snap b;
    take_snap(r, &b);
    json_array_append_new(json_object_get(r->s->doc, "repeats"),
                          repeat_json(r, (int)at->repeat, &r->a, &b,
                                      &r->last_rate));
    r->a = b;
    return 0;
}

/* Replies still in flight: not counted, but every one checked. */
static int rate_drain(struct window *w, int64_t step)
{
    struct rate *r = w->kind;
    (void)step;
    int e = pump(r, rate_opts(r->s->sc)->oneway ? UNTIL_COUNTED
                                                : UNTIL_DRAINED, 0);
    return e ? pump_failed(r, e, "draining after the last repeat") : 0;
}

static void rate_record(struct window *w)
{
    summarize(w->kind);
}

static void rate_progress(struct window *w, const struct window_at *at,
                          char *buf, size_t len)
{
    struct rate *r = w->kind;
    (void)at;
    snprintf(buf, len, "%.1f kHz", r->last_rate / 1e3);
}

static void rate_cleanup(struct window *w)
{
    struct rate *r = w->kind;
    for (size_t i = 0; i < r->n; i++) {
        conn_close(&r->rc[i].c);
        pipeline_free(&r->rc[i].p);
    }
    free(r->rc);
    free(r->pfd);
}

static const struct window_ops rate_ops = {
    .init = rate_init,
    .window = rate_window,
    .step_end = rate_drain,
    .record = rate_record,
    .cleanup = rate_cleanup,
    .progress_text = rate_progress,
};

static void rate_run(struct side *sides, struct run_outcome *o, size_t nsides)
{
    const struct window_opts *win = window_opts(sides[0].sc);
    struct window_plan plan = {
        .duration_s = win->duration_s,
        .warmup_s = win->warmup_s,
        .warmup = true, /* 0 s still settles a oneway count */
        .repeats = win->repeats,
        .steps = 1,
        .unit = "repeat",
    };
    struct rate r = {0};
    window_run(&rate_ops, &plan, &r, sides, o, nsides);
}

/* One paragraph for a rate run: the rate, the CPU per upcall. */
static void rate_summary(const struct scenario *sc, json_t *doc,
                         const struct run_outcome *o, const char *out)
{
    json_t *orb = json_object_get(doc, "orb");
    json_t *sum = json_object_get(doc, "rate");
    json_t *ups = json_object_get(sum, "upcalls_per_s");
    json_t *cpu = json_object_get(sum, "cpu_per_upcall_us");
    printf("%s: %s %s over %s, %lld server(s), %s: ", sc->name,
           json_string_value(json_object_get(orb, "name")),
           json_string_value(json_object_get(orb, "version"))
               ? json_string_value(json_object_get(orb, "version"))
               : "(version unknown)",
           sc->transport, (long long)rate_opts(sc)->servers,
           rate_opts(sc)->oneway ? "oneway requests"
           : rate_opts(sc)->window > 1 ? "pipelined calls"
                                 : "ping-pong calls");
    if (json_integer_value(json_object_get(sum, "repeats")) > 0)
        printf("%.1f kHz upcalls (median of %lld repeats, %.1f-%.1f); CPU "
               "per upcall client %.2f+%.2f us, servers %.2f+%.2f us "
               "(user+kernel).",
               json_number_value(json_object_get(ups, "median")) / 1e3,
               (long long)json_integer_value(json_object_get(sum, "repeats")),
               json_number_value(json_object_get(ups, "min")) / 1e3,
               json_number_value(json_object_get(ups, "max")) / 1e3,
               json_number_value(json_object_get(cpu, "client_user")),
               json_number_value(json_object_get(cpu, "client_sys")),
               json_number_value(json_object_get(cpu, "server_user")),
               json_number_value(json_object_get(cpu, "server_sys")));
    else
        printf("no repeat was measured.");
    printf(" Stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

/* One connection per server. */
static int64_t rate_max_connections(const struct scenario *sc)
{
    return rate_opts(sc)->servers;
}

const struct kind_ops kind_rate = {
    .scenario = {.name = "rate",
                 .keys = rate_keys,
                 .nkeys = ARRAY_LEN(rate_keys),
                 .check = rate_check},
    .run = rate_run,
    .summary = rate_summary,
    .unsupported = rate_unsupported,
    .max_connections = rate_max_connections,
};

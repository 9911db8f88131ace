/* Kind channel's pushes: each event pushed, then waited for in the
 * consumer's log before the next; why a phase ended early; the measured
 * events' times read back from the log. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec/payload.h"
#include "core/result.h"
#include "core/util.h"
#include "kinds/channel_impl.h"

/* How often the log's record count is looked at while an event is due. */
#define POLL_NS 20000

/* Wait until the log holds `want` records or the deadline passes. 0,
 * -ETIMEDOUT, -EINTR, -ENOSPC (the log is full), -EPROTO (the consumer
 * logged an event it could not extract). */
static int wait_logged(struct chan *c, uint64_t want, int64_t deadline_ns)
{
    const struct event_log_header *h = event_log_get_header(&c->log);
    /* Bounded by the deadline. */
    while (event_log_records(&c->log) < want) {
        if (__atomic_load_n(&h->dropped, __ATOMIC_RELAXED))
            return -ENOSPC;
        if (*c->s->interrupted)
            return -EINTR;
        if (now_ns() >= deadline_ns)
            return -ETIMEDOUT;
        struct timespec ts = {0, POLL_NS};
        nanosleep(&ts, NULL);
    }
    return __atomic_load_n(&h->unknown, __ATOMIC_RELAXED) ? -EPROTO : 0;
}

/* Why a phase ended early, as the run's stop: `rc` from the push of
 * event i (pushed false) or from waiting for it to be logged (pushed),
 * the phase's events all due by deadline_ns. */
static void phase_failed(struct chan *c, int rc, bool pushed, int64_t i,
                         int64_t n, uint64_t base, const char *phase,
                         int64_t deadline_ns)
{
    const struct channel_setup *setup = &channel_setup;
    const struct scenario *sc = c->s->sc;
    uint64_t logged = event_log_records(&c->log) - base;
    if (rc == -EINTR && *c->s->interrupted) {
        run_stop(c->o, STOP_INTERRUPTED, 130, "interrupted at "
                           "%s%sevent %lld of %lld", phase, *phase ? " " : "",
                           (long long)i + 1, (long long)n);
        return;
    }
    if (rc == -ENOSPC) {
        run_stop(c->o, STOP_LOG_FULL, 1, "event consumer (pid %d): "
                           "its log %s is full (%s bytes): %llu events "
                           "dropped (channel.log_mb)", (int)c->consumer_pid,
                           setup->log_path, setup->log_bytes,
                           (unsigned long long)
                               event_log_get_header(&c->log)->dropped);
        return;
    }
    if (rc == -EPROTO) {
        run_stop(c->o, STOP_CALL_FAILED, 1, "event consumer (pid "
                           "%d): an event it was pushed is no %sEvent it "
                           "knows", (int)c->consumer_pid,
                           payload_name(c->pt));
        return;
    }
    /* The phase's deadline, while pushing or waiting: the named error. */
    if (rc == -ETIMEDOUT && (pushed || now_ns() >= deadline_ns)) {
        /* An event still in flight may be logged after this: the result
         * keeps what the message says was delivered. */
        c->records_at_stop = base + logged;
        run_stop(c->o, STOP_NOT_DELIVERED, 1, "%s: %llu of %lld "
                           "%s%sevents reached the consumer within %lld ms%s",
                           c->label, (unsigned long long)logged, (long long)n,
                           phase, *phase ? " " : "",
                           (long long)channel_opts(sc)->deadline_ms,
                           pushed ? "" : " (a push had no reply by then)");
        return;
    }
    /* The push went to the process that is the channel, or the consumer. */
    pid_t pid = setup->via_channel ? c->events_pid : c->consumer_pid;
    const char *who = setup->via_channel ? "omniEvents" : "event consumer";
    if (rc == -ETIMEDOUT)
        channel_process_failed(c, pid, who, "the push of %s%sevent %lld of "
                               "%lld had no reply within %lld ms "
                               "(call.timeout_ms)", phase, *phase ? " " : "",
                               (long long)i + 1, (long long)n,
                               (long long)sc->call.timeout_ms);
    else
        channel_process_failed(c, pid, who, "the push of %s%sevent %lld: %s",
                               phase, *phase ? " " : "", (long long)i + 1,
                               c->inv.why);
}

/* Push n events, each logged before the next is pushed; the measured
 * phase keeps every stamp and call time. 0, or -1 with the run stopped. */
int channel_run_phase(struct chan *c, int64_t n, bool measured)
{
    const struct scenario *sc = c->s->sc;
    const char *phase = measured ? "" : "warm-up";
    uint64_t base = event_log_records(&c->log);
    int64_t start_ns = now_ns();
    int64_t deadline = start_ns + channel_opts(sc)->deadline_ms * 1000000;
    if (measured)
        c->base = base;
    for (int64_t i = 0; i < n; i++) {
        struct cdr_in body;
        int64_t t = now_ns();
        int64_t due = t + sc->call.timeout_ms * 1000000;
        c->inv.why[0] = 0;
        /* The stamp goes out in the host's order, as the request. */
        memcpy(c->req.data + c->stamp_at, &t, sizeof t);
        if (measured) {
            c->sent[i] = t;
            c->stamped = i + 1;
        }
        int rc = *c->s->interrupted ? -EINTR
                 : invoke_call(&c->inv, &c->req,
                               due < deadline ? due : deadline, &body);
        int64_t t2 = now_ns();
        if (!rc && cdr_in_left(&body) != 0) {
            snprintf(c->inv.why, sizeof c->inv.why, "push's reply has %zu "
                     "bytes of result; it returns void", cdr_in_left(&body));
            rc = -EBADMSG;
        }
        if (rc) {
            phase_failed(c, rc, false, i, n, base, phase, deadline);
            return -1;
        }
        if (measured) {
            c->pushed = i + 1;
            if (samples_add(&c->call_ns, t2 - t) != 0) {
                run_stop(c->o, STOP_RESOURCE, 0, "out of memory "
                                   "in the client");
                return -1;
            }
        }
        rc = wait_logged(c, base + (uint64_t)i + 1, deadline);
        if (rc) {
            phase_failed(c, rc, true, i, n, base, phase, deadline);
            return -1;
        }
        if ((i & 255) == 0 || i + 1 == n) {
            int64_t now = now_ns();
            run_progress_count(c->s, measured ? "measure" : "warm-up",
                               "event", i + 1, n,
                               (double)(now - start_ns) / 1e9,
                               (double)(now - c->t0_ns) / 1e9, NULL);
        }
    }
    return 0;
}

/* The measured events' times from the log: every event the client pushed
 * and the consumer logged, checked against what was sent. Sets doc's
 * latency_us and counts; a record that does not match stops the run
 * (unless it stopped already). */
void channel_read_back(struct chan *c)
{
    struct samples logged = {0}, received = {0};
    struct summary sm;
    uint64_t at = 0, have = event_log_records(&c->log);
    if (c->records_at_stop && c->records_at_stop < have)
        have = c->records_at_stop;
    struct event_log_record rec;
    const char *name = payload_name(c->pt);
    int64_t got = 0;
    /* An event whose push had no reply may have been logged (the channel
     * forwarded it, then stopped): it counts, as the stop's message does. */
    for (uint64_t k = 0; k < have && got < c->stamped; k++) {
        if (event_log_next(&c->log, &at, &rec) != 0) {
            if (!c->o->stop_reason)
                run_stop(c->o, STOP_CALL_FAILED, 1, "event "
                                   "consumer: its log's record %llu runs "
                                   "past its end", (unsigned long long)k);
            break;
        }
        if (k < c->base)
            continue; /* the warm-up's */
        const char *type = event_log_type_name(&c->log, rec.type);
        if ((int64_t)rec.sent_ns != c->sent[got] || strcmp(type, name)) {
            if (!c->o->stop_reason)
                run_stop(c->o, STOP_CALL_FAILED, 1, "event "
                                   "consumer: measured event %lld was "
                                   "logged as a %s sent at %llu ns, not the "
                                   "%s sent at %lld ns", (long long)got + 1,
                                   type, (unsigned long long)rec.sent_ns,
                                   name, (long long)c->sent[got]);
            break;
        }
        if (samples_add(&logged, (int64_t)(rec.logged_ns - rec.sent_ns)) ||
            samples_add(&received,
                        (int64_t)(rec.received_ns - rec.sent_ns)))
            break;
        got++;
    }
    json_t *lat = json_object();
    stats_summarize(&logged, 1e3, &sm);
    json_object_set_new(lat, "push_to_logged", result_summary(&sm));
    stats_summarize(&received, 1e3, &sm);
    json_object_set_new(lat, "push_to_received", result_summary(&sm));
    stats_summarize(&c->call_ns, 1e3, &sm);
    json_object_set_new(lat, "push_call", result_summary(&sm));
    json_object_set_new(c->s->doc, "latency_us", lat);
    json_object_set_new(c->info, "events_pushed",
                        json_integer((json_int_t)c->pushed));
    json_object_set_new(c->info, "events_logged",
                        json_integer((json_int_t)got));
    samples_free(&logged);
    samples_free(&received);
}

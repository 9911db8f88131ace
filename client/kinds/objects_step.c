/* One step of kind objects: the server makes the new objects, the client
 * calls them, the server's footprint is read, and the step recorded and
 * held against the scenario's bounds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/giop.h"
#include "codec/ior.h"
#include "core/result.h"
#include "core/util.h"
#include "kinds/objects_impl.h"
#include "kinds/servers.h"

/* A failure of a call or makeObjects (err, why): a limit of the machine,
 * or the one classifier's verdict on the server. */
static void failed(struct objects *x, int err, const char *why,
                   const char *at)
{
    if (servers_resource_stop(x->o, err, why, at))
        return;
    servers_failed(x->s, x->o,
                   &(struct servers_failure){.index = x->call.index,
                                             .pid = x->call.pid,
                                             .err = err,
                                             .why = why,
                                             .at = at,
                                             .oom_kills = -1});
}

/* The object reference at `in` (an out argument of makeObjects) into
 * *ref, its marshaled bytes into *bytes; it must be at the server's own
 * endpoint, which the calls' connection reaches. 0, or -1 with the run
 * stopped. */
static int read_ref(struct objects *x, struct cdr_in *in, struct ior *ref,
                    size_t *bytes, const char *which, const char *at)
{
    cdr_in_align(in, 4);
    size_t from = in->pos;
    int rc = ior_read(in, ref);
    *bytes = in->pos - from;
    const struct target *t = &x->call.target;
    bool unix_tp = strcmp(x->s->tp->name, "unix") == 0;
    bool here = unix_tp ? ref->has_unix &&
                              strcmp(ref->unix_path, t->unix_path) == 0
                        : ref->has_iiop && strcmp(ref->host, t->host) == 0 &&
                              ref->port == t->port;
    if (rc == 0 && here && ref->key_len <= OBJKEY_MAX_KEY)
        return 0;
    run_stop(x->o, STOP_CALL_FAILED, 1, "makeObjects%s returned as its %s "
             "%s", at, which,
             rc ? ior_strerror(rc)
                : !here ? "a reference to another endpoint than the "
                          "server's (the calls could not reach it)"
                        : "a reference with an object key over 1024 bytes");
    return -1;
}

/* The POA's policies, as the server says it set them (words), into
 * x->policies the first time; the same words every time after. 0, or -1
 * with the run stopped. */
static int read_policies(struct objects *x, struct cdr_in *in,
                         const char *at)
{
    const char *s;
    size_t len;
    if (cdr_get_string(in, &s, &len) || len >= sizeof x->policies) {
        run_stop(x->o, STOP_CALL_FAILED, 1, "makeObjects%s: no policies "
                 "(a string under %zu bytes) after the references", at,
                 sizeof x->policies);
        return -1;
    }
    if (!x->policies[0]) {
        memcpy(x->policies, s, len + 1);
        return 0;
    }
    if (strcmp(x->policies, s) == 0)
        return 0;
    run_stop(x->o, STOP_CALL_FAILED, 1, "makeObjects%s: the server said its "
             "policies are \"%.*s\" after \"%s\"", at, (int)(len > 120 ? 120 : len),
             s, x->policies);
    return -1;
}

/* The reference of object 0 as the result records it. */
static json_t *describe_ref(const struct ior *ref, size_t bytes)
{
    char hex[2 * OBJKEY_MAX_KEY + 1];
    for (size_t i = 0; i < ref->key_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", ref->key[i]);
    hex[2 * ref->key_len] = 0;
    /* "IOR:", then in hex an encapsulation: its byte-order octet, three
     * octets to align the type id's length, the reference. */
    return json_pack("{s:s, s:I, s:I, s:I, s:s}", "type_id", ref->type_id,
                     "ior_bytes", (json_int_t)bytes, "ior_string_bytes",
                     (json_int_t)(4 + 2 * (4 + bytes)), "key_bytes",
                     (json_int_t)ref->key_len, "key_hex", hex);
}

/* Learn object `id`'s key, ref's. 0, or -1 with the run stopped. */
static int learn(struct objects *x, const struct ior *ref, uint32_t id,
                 const char *at)
{
    if (objkey_learn(&x->keys, ref->key, ref->key_len, id) > 0)
        return 0;
    run_stop(x->o, STOP_CALL_FAILED, 1, "makeObjects%s: object %u's key "
             "(%zu bytes) does not hold its ObjectId \"%08u\" where the "
             "keys before it did: the client cannot address the objects",
             at, id, ref->key_len, id);
    return -1;
}

/* One makeObjects call for `count` objects (x->m is the first). 0, or -1
 * with the run stopped. */
static int make_batch(struct objects *x, uint32_t count, bool shared,
                      const char *at)
{
    struct cdr_out req;
    struct cdr_in body;
    cdr_out_init(&req, cdr_host_little());
    size_t size_at = giop_request_begin(
        &req, 0, GIOP_RESPONSE_SYNC_WITH_TARGET, x->factory_key,
        x->factory_key_len, "makeObjects", true);
    cdr_put_long(&req, count);
    cdr_put_bool(&req, shared);
    int rc = giop_message_end(&req, size_at);
    int64_t t0 = now_ns();
    if (!rc)
        rc = invoke_call(&x->inv, &req, x->deadline_ns, &body);
    int64_t client_ns = now_ns() - t0;
    cdr_out_free(&req);
    if (rc == -ETIMEDOUT && now_ns() >= x->deadline_ns) {
        run_stop(x->o, STOP_TIME, 0, "objects.max_seconds (%g s) reached "
                 "while the server made objects %lld..%lld", x->opts->max_seconds,
                 (long long)x->m, (long long)x->m + count - 1);
        return -1;
    }
    if (rc) {
        char where[96];
        snprintf(where, sizeof where, " in makeObjects(%u)%s", count, at);
        failed(x, rc, x->inv.why, where);
        return -1;
    }
    uint64_t server_ns = cdr_get_longlong(&body);
    struct ior first, last;
    size_t first_bytes, last_bytes;
    if (body.err) {
        run_stop(x->o, STOP_CALL_FAILED, 1, "makeObjects%s: a reply too "
                 "short for its result", at);
        return -1;
    }
    if (read_ref(x, &body, &first, &first_bytes, "first", at) ||
        read_ref(x, &body, &last, &last_bytes, "last", at) ||
        read_policies(x, &body, at) ||
        learn(x, &first, (uint32_t)x->m, at) ||
        learn(x, &last, (uint32_t)(x->m + count - 1), at))
        return -1;
    if (!x->reference)
        x->reference = describe_ref(&first, first_bytes);
    x->m += count;
    x->step_server_ns += (int64_t)server_ns;
    x->step_client_ns += client_ns;
    x->step_calls++;
    return 0;
}

/* After each batch of a step: would the rest of the step, at the pace of
 * its own batches so far, end past objects.max_seconds? A pace that rose
 * past what the steps before projected would otherwise spend the run's
 * time on a step that cannot end. True when the run stopped here. */
static bool step_overrun(struct objects *x, int64_t from, int64_t target)
{
    struct eta_make so_far = {from, x->m, (double)x->step_client_ns};
    double rest_s = eta_step_rest_s(&so_far, target);
    double left_s = (double)(x->deadline_ns - now_ns()) / 1e9;
    if (rest_s <= 0 || rest_s <= left_s) /* 0: no estimate, or no rest */
        return false;
    run_stop(x->o, STOP_TIME, 0, "objects.max_seconds (%g s): the step to "
             "M=%lld would end past it: %lld of its objects made, at %.2f "
             "us each, the other %lld would take about %.0f s, %.0f s are "
             "left", x->opts->max_seconds, (long long)target,
             (long long)(x->m - from), so_far.ns / (double)(x->m - from) / 1e3,
             (long long)(target - x->m), rest_s, left_s > 0 ? left_s : 0);
    return true;
}

int objects_make(struct objects *x, int64_t target)
{
    bool shared = strcmp(x->opts->servants, "default") == 0;
    char at[48];
    snprintf(at, sizeof at, " at M=%lld", (long long)target);
    x->step_server_ns = x->step_client_ns = x->step_calls = 0;
    int64_t from = x->m;
    while (x->m < target) {
        int64_t left = target - x->m;
        uint32_t count = (uint32_t)(left < OBJECTS_BATCH ? left
                                                         : OBJECTS_BATCH);
        if (*x->s->interrupted) {
            run_stop(x->o, STOP_INTERRUPTED, 130, "interrupted making "
                     "objects%s", at);
            return -1;
        }
        if (make_batch(x, count, shared, at) ||
            step_overrun(x, from, target))
            return -1;
    }
    x->make_server_ns += x->step_server_ns;
    x->make_client_ns += x->step_client_ns;
    x->make_calls += x->step_calls;
    x->made_prev = x->made_last;
    x->made_last = (struct eta_make){from, target, (double)x->step_client_ns};
    return 0;
}

/* An object among the M, uniformly (xorshift64*, then a multiply-shift
 * into [0, M): M <= 10^8, no modulo bias to speak of). */
static uint32_t pick(struct objects *x)
{
    x->rng ^= x->rng >> 12;
    x->rng ^= x->rng << 25;
    x->rng ^= x->rng >> 27;
    uint64_t r = (x->rng * 0x2545f4914f6cdd1dull) >> 32;
    return (uint32_t)((r * (uint64_t)x->m) >> 32);
}

int objects_calls(struct objects *x, int64_t count, bool keep,
                  const char *when)
{
    struct conn *c = &x->call;
    if (keep)
        samples_clear(&x->times);
    c->target.key_len = x->keys.len;
    for (int64_t k = 0; k < count; k++) {
        uint32_t id = pick(x);
        objkey_make(&x->keys, id, c->target.key);
        int64_t lat;
        int rc = *x->s->interrupted ? -EINTR : conn_call(c, &lat);
        if (rc) {
            char at[96];
            snprintf(at, sizeof at, " calling object %u %s", id, when);
            failed(x, rc, c->why, at);
            return -1;
        }
        if (keep && samples_add(&x->times, lat)) {
            run_stop(x->o, STOP_RESOURCE, 0, "out of memory keeping call "
                     "%lld %s", (long long)k + 1, when);
            return -1;
        }
        /* Bounded in time as in count: a clock read every 1024 calls. */
        if ((k & 1023) == 1023 && k + 1 < count &&
            now_ns() > x->deadline_ns) {
            run_stop(x->o, STOP_TIME, 0, "objects.max_seconds (%g s) "
                     "reached %s after %lld of %lld calls",
                     x->opts->max_seconds, when, (long long)k + 1,
                     (long long)count);
            return -1;
        }
    }
    return 0;
}

json_t *objects_footprint(const struct objects *x, struct proc_footprint *fp)
{
    if (probe_process(x->call.pid, fp) != 0)
        return NULL;
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "threads",
                     (json_int_t)fp->threads, "fds", (json_int_t)fp->fds,
                     "rss_kb", (json_int_t)fp->rss_kb, "pss_kb",
                     (json_int_t)fp->pss_kb, "uss_kb",
                     (json_int_t)fp->uss_kb);
}

/* {pss, uss}: kB per object from footprint `a` at ma objects to `b` at
 * mb, or null when mb <= ma. */
static json_t *kb_per_object(const struct proc_footprint *a, int64_t ma,
                             const struct proc_footprint *b, int64_t mb)
{
    if (mb <= ma)
        return json_null();
    double n = (double)(mb - ma);
    return json_pack("{s:f, s:f}", "pss", (double)(b->pss_kb - a->pss_kb) / n,
                     "uss", (double)(b->uss_kb - a->uss_kb) / n);
}

/* The progress line after a step. */
static void progress(struct objects *x, double median_us)
{
    char extra[96];
    if (x->kb_per_object > 0)
        snprintf(extra, sizeof extra, "M=%lld, call %.1f us, %.3f kB an "
                 "object", (long long)x->m, median_us, x->kb_per_object);
    else
        snprintf(extra, sizeof extra, "M=%lld, call %.1f us",
                 (long long)x->m, median_us);
    double elapsed = (double)(now_ns() - x->t0_ns) / 1e9;
    run_progress_count(x->s, "objects", "step", x->steps_done + 1,
                       x->steps_planned, elapsed, elapsed, extra);
}

/* The bounds after the step at x->m: a call's median, memory per
 * object. Stops the run when one is passed. */
static void judge(struct objects *x, double median_us, double kb_judged)
{
    const struct objects_opts *op = x->opts;
    if (median_us > op->max_call_us) {
        run_stop(x->o, STOP_LATENCY, 0, "a call's median %.1f us at M=%lld "
                 "is over objects.max_call_us (%g us); held at M=%lld",
                 median_us, (long long)x->m, op->max_call_us,
                 (long long)x->held_m);
        return;
    }
    x->held_m = x->m;
    if (kb_judged > op->max_kb_per_object)
        run_stop(x->o, STOP_COST, 0, "%.3f kB PSS an object at M=%lld (since "
                 "M=1) is over objects.max_kb_per_object (%g kB)", kb_judged,
                 (long long)x->m, op->max_kb_per_object);
}

int objects_record_step(struct objects *x)
{
    struct summary sum;
    struct proc_footprint fp;
    double n_new = (double)(x->m - x->last_m);
    stats_summarize(&x->times, 1e3, &sum);
    json_t *fpj = objects_footprint(x, &fp);
    if (!x->have_m1) {
        x->have_m1 = true;
        x->m1_median_us = sum.median;
        x->m1_p99_us = sum.p99;
        if (fpj)
            x->m1_fp = fp;
    }
    json_t *make = json_pack(
        "{s:I, s:I, s:I, s:f, s:f}", "calls", (json_int_t)x->step_calls,
        "server_ns", (json_int_t)x->step_server_ns, "client_ns",
        (json_int_t)x->step_client_ns, "server_us_per_object",
        (double)x->step_server_ns / 1e3 / n_new, "client_us_per_object",
        (double)x->step_client_ns / 1e3 / n_new);
    json_t *st = json_pack(
        "{s:I, s:I, s:o, s:o, s:{s:f, s:f}, s:f}", "m", (json_int_t)x->m,
        "added", (json_int_t)(x->m - x->last_m), "make", make, "call_us",
        result_summary(&sum), "call_ratio", "median",
        x->m1_median_us > 0 ? sum.median / x->m1_median_us : 0.0, "p99",
        x->m1_p99_us > 0 ? sum.p99 / x->m1_p99_us : 0.0, "seconds",
        (double)(now_ns() - x->t0_ns) / 1e9);
    double judged = 0;
    if (fpj) {
        json_object_set_new(st, "footprint", fpj);
        json_object_set_new(st, "kb_per_object",
                            kb_per_object(&x->m1_fp, 1, &fp, x->m));
        json_object_set_new(st, "step_kb_per_object",
                            x->last_m > 0 ? kb_per_object(&x->last_fp,
                                                          x->last_m, &fp,
                                                          x->m)
                                          : json_null());
        int64_t grown = fp.pss_kb - x->m1_fp.pss_kb;
        if (x->m >= OBJECTS_JUDGED_M && grown >= OBJECTS_JUDGED_KB)
            judged = (double)grown / (double)(x->m - 1);
        json_object_set_new(st, "kb_judged", json_boolean(judged > 0));
        x->last_fp = fp;
    } else {
        json_object_set_new(st, "footprint", json_null());
    }
    if (!fpj) {
        char at[64];
        snprintf(at, sizeof at, " reading its footprint at M=%lld",
                 (long long)x->m);
        json_array_append_new(x->steps, st);
        failed(x, -ESRCH, "the server's /proc entry is gone", at);
        return -1;
    }
    if (judged > 0)
        x->kb_per_object = judged;
    x->last_m = x->m;
    json_array_append_new(x->steps, st);
    progress(x, sum.median);
    judge(x, sum.median, judged);
    return 0;
}

/* Many objects in one server (scenario kind "objects", issue 54): one
 * server, whose objects grow step by step, M = 1 and then by
 * objects.growth up to objects.max_m. At each step the server makes the
 * new objects (idl/echo.idl's makeObjects: a servant each, or one default
 * servant for all, as objects.servants says), the client calls
 * objects.calls (K) echoString on objects picked uniformly among the M
 * and reads the server's footprint. It records what each object cost in
 * memory (PSS and USS since M = 1), to make (the server's time and the
 * client's view), a call's median and p99 at M against M = 1 (the
 * demultiplexing's cost), and the reference's size (IOR, object key).
 *
 * The client speaks GIOP itself: the server returns the references of
 * the first and last object of every batch it makes, and the client
 * learns from their keys where an object's number goes
 * (codec/objkey.h), so that it can call any of the M.
 *
 * It stops at a crossing the scenario sets: a call's median over
 * objects.max_call_us (latency), PSS per object over
 * objects.max_kb_per_object (cost), or objects.max_m (max_n); before a
 * step that would pass objects.max_seconds (time_limit) or half the
 * machine's MemAvailable (resource), at that estimate; or at a failure,
 * named (a server that died or was OOM-killed, a call that failed). This
 * file: options, the run's loop, its summary, the row; objects_step.c:
 * one step. */
#include "kinds/kind.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/result.h"
#include "core/util.h"
#include "kinds/objects_impl.h"
#include "kinds/servers.h"
#include "net/wire.h"

static const char *const objects_servants[] = {"each", "default", NULL};

const struct objects_opts *objects_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct objects_opts, sc);
}

#define OPT(f) SCENARIO_KIND_OFF(struct objects_opts, f)
#define OPT_SZ(f) SCENARIO_KIND_SZ(struct objects_opts, f)
static const struct scenario_key objects_keys[] = {
    {.key = "objects.max_m", .type = SCENARIO_INT, .off = OPT(max_m),
     .min = 1, .max = OBJKEY_MAX_ID + 1.0, .def_num = 1000000,
     .help = "kind objects: the most objects the server is asked to hold"},
    {.key = "objects.growth", .type = SCENARIO_NUM, .off = OPT(growth),
     .min = 1.1, .max = 1000, .def_num = 10,
     .help = "kind objects: M grows by this factor a step, from 1"},
    {.key = "objects.servants", .type = SCENARIO_ENUM, .off = OPT(servants),
     .size = OPT_SZ(servants), .choices = objects_servants,
     .def_str = "each",
     .help = "kind objects: a servant for each object (each), or one "
     "default servant serving them all (default)"},
    {.key = "objects.calls", .type = SCENARIO_INT, .off = OPT(calls),
     .min = 1, .max = 1000000, .def_num = 2000,
     .help = "kind objects: timed echoString calls a step (K), each to an "
     "object picked uniformly among the M"},
    {.key = "objects.warmup", .type = SCENARIO_INT, .off = OPT(warmup),
     .max = 1000000, .def_num = 1000,
     .help = "kind objects: untimed calls a step before the timed ones, "
     "picked the same way"},
    {.key = "objects.max_call_us", .type = SCENARIO_NUM,
     .off = OPT(max_call_us), .min = 1, .max = 1e9, .def_num = 1000,
     .help = "kind objects: stop at the first M whose median call takes "
     "longer (us)"},
    {.key = "objects.max_kb_per_object", .type = SCENARIO_NUM,
     .off = OPT(max_kb_per_object), .min = 0.001, .max = 1e9,
     .def_num = 64,
     .help = "kind objects: stop at the first M whose PSS per object (since "
     "M = 1) is larger (kB); judged from M = 10000, once PSS grew 16 MiB"},
    {.key = "objects.max_seconds", .type = SCENARIO_NUM,
     .off = OPT(max_seconds), .min = 1, .max = 86400, .def_num = 600,
     .help = "kind objects: stop the run after this long (s), or before a "
     "step estimated to end past it"},
};
#undef OPT
#undef OPT_SZ

static int objects_check(const struct scenario_ctx *c,
                         const struct scenario *sc)
{
    if (strcmp(sc->transport, "pipe") == 0)
        return scenario_fail(c, "transport", "\"pipe\" is one connection "
                             "per server; kind objects needs \"tcp\" or "
                             "\"unix\" (a second connection makes the "
                             "objects)");
    if (strcmp(sc->call.payload, "string") != 0)
        return scenario_fail(c, "call.payload", "kind objects calls "
                             "echoString: \"string\" only");
    return 0;
}

/* An object adapter is what the kind measures: a server kind whose wire
 * is not GIOP has none. */
static const char *objects_unsupported(const struct scenario *sc,
                                       const struct server_kind *server,
                                       const char **key)
{
    (void)sc;
    *key = "server.kind";
    if (server->wire != &wire_giop)
        return "its server speaks no GIOP and has no objects to make";
    if (!server_kind_starts(server))
        return "kind objects starts its own server";
    return NULL;
}

/* The calls' connection and makeObjects'. */
static int64_t objects_max_connections(const struct scenario *sc)
{
    (void)sc;
    return 2;
}

int64_t objects_next_m(const struct objects_opts *op, int64_t m)
{
    if (m <= 0)
        return 1;
    double next = floor((double)m * op->growth + 0.5);
    int64_t n = next > (double)op->max_m ? op->max_m : (int64_t)next;
    return n > m ? n : m + 1;
}

static struct conn *server_slot(void *arg, size_t k)
{
    (void)k;
    return &((struct objects *)arg)->call;
}

/* The POA's policies as the server said them: a list of its words;
 * null before it said any. */
static json_t *policies(const char *words)
{
    if (!words[0])
        return json_null();
    json_t *j = json_array();
    for (const char *w = words; *w;) {
        size_t n = strcspn(w, " ");
        if (n)
            json_array_append_new(j, json_stringn(w, n));
        w += n + (w[n] == ' ');
    }
    return j;
}

/* Where the objects' keys hold their number, as learned. */
static json_t *key_form(const struct objkey *k)
{
    if (k->nforms == 0)
        return json_null();
    const struct objkey_form *f = objkey_form(k);
    json_t *j = json_pack("{s:I, s:I}", "digits_at", (json_int_t)f->digits_at,
                          "forms_left", (json_int_t)k->nforms);
    json_object_set_new(
        j, "index",
        f->has_index
            ? json_pack("{s:I, s:s, s:I}", "at", (json_int_t)f->index_at,
                        "order", f->index_little ? "little-endian"
                                                 : "big-endian",
                        "base", (json_int_t)f->index_base)
            : json_null());
    return j;
}

/* doc.objects: what was asked, the reference, every step, the totals. */
static void record(struct objects *x)
{
    const struct objects_opts *op = x->opts;
    char seed[24];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)OBJECTS_SEED);
    json_t *j = json_pack(
        "{s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:s, s:I}", "servants",
        op->servants, "policies", policies(x->policies), "id_digits",
        (json_int_t)OBJKEY_DIGITS, "calls", (json_int_t)op->calls, "warmup",
        (json_int_t)op->warmup, "batch", (json_int_t)OBJECTS_BATCH,
        "made", (json_int_t)x->m, "seed", seed, "held_m",
        (json_int_t)x->held_m);
    json_object_set(j, "reference", x->reference ? x->reference
                                                 : json_null());
    json_object_set(j, "baseline", x->baseline ? x->baseline : json_null());
    json_object_set_new(j, "key_form", key_form(&x->keys));
    json_object_set(j, "steps", x->steps);
    json_object_set_new(
        j, "create_us_per_object",
        x->made_last.to > 0
            ? json_pack("{s:f, s:f, s:I}", "server",
                        (double)x->make_server_ns / 1e3 /
                            (double)x->made_last.to,
                        "client",
                        (double)x->make_client_ns / 1e3 /
                            (double)x->made_last.to,
                        "make_calls", (json_int_t)x->make_calls)
            : json_null());
    json_object_set_new(x->s->doc, "objects", j);
}

/* Before the step to `next`: would it pass the run's time or half the
 * machine's MemAvailable, at what the steps so far cost? True when the
 * run stopped here. */
static bool projected_stop(struct objects *x, int64_t next)
{
    double added = (double)(next - x->m);
    double left_s = (double)(x->deadline_ns - now_ns()) / 1e9;
    if (x->made_last.to > 0 && x->make_client_ns > 0) {
        /* An object's cost so far, or the next step's as the last two
         * steps' paces project it, when that is more (an ORB whose cost
         * grows with M: eta_make_pace). */
        double ns = (double)x->make_client_ns / (double)x->made_last.to;
        double step_ns = eta_make_pace(&x->made_prev, &x->made_last, next);
        if (step_ns > ns)
            ns = step_ns;
        double make_s = added * ns / 1e9;
        if (make_s > left_s) {
            run_stop(x->o, STOP_TIME, 0, "objects.max_seconds (%g s): "
                     "making the step to M=%lld would take about %.0f s "
                     "(%.2f us an object, projected from the steps so "
                     "far), %.0f s are left", x->opts->max_seconds,
                     (long long)next, make_s, ns / 1e3,
                     left_s > 0 ? left_s : 0);
            return true;
        }
    }
    struct machine_mem mm;
    if (x->kb_per_object > 0 && probe_machine_mem(&mm) == 0 &&
        mm.mem_available_kb > 0 &&
        added * x->kb_per_object > (double)mm.mem_available_kb / 2) {
        run_stop(x->o, STOP_RESOURCE, 0, "memory: the step to M=%lld would "
                 "take about %.0f MB (%.3f kB PSS an object so far), over "
                 "half the machine's MemAvailable (%lld MB)",
                 (long long)next, added * x->kb_per_object / 1024,
                 x->kb_per_object,
                 (long long)(mm.mem_available_kb / 1024));
        return true;
    }
    if (*x->s->interrupted) {
        run_stop(x->o, STOP_INTERRUPTED, 130, "interrupted before the step "
                 "to M=%lld", (long long)next);
        return true;
    }
    return false;
}

/* Steps from M = 1 to max_m. */
static int64_t steps_to_max(const struct objects_opts *op)
{
    int64_t n = 0;
    for (int64_t m = 0; m < op->max_m; m = objects_next_m(op, m))
        n++;
    return n;
}

/* One step after another until a stop. */
static void steps(struct objects *x)
{
    const struct objects_opts *op = x->opts;
    while (x->m < op->max_m) {
        int64_t next = objects_next_m(op, x->m);
        char when[64];
        snprintf(when, sizeof when, "at M=%lld", (long long)next);
        if (projected_stop(x, next) || objects_make(x, next) ||
            objects_calls(x, op->warmup, false, when) ||
            objects_calls(x, op->calls, true, when) ||
            objects_record_step(x))
            return;
        x->steps_done++;
        record(x);
        if (run_checkpoint(x->s, x->o))
            return;
        if (x->o->stop_reason)
            return;
        if (now_ns() > x->deadline_ns && x->m < op->max_m) {
            run_stop(x->o, STOP_TIME, 0, "objects.max_seconds (%g s) "
                     "reached at M=%lld", op->max_seconds,
                     (long long)x->m);
            return;
        }
    }
    run_stop(x->o, STOP_MAX_N, 0, "objects.max_m (%lld) reached, its median "
             "call within objects.max_call_us", (long long)op->max_m);
}

static void objects_run(struct side *sides, struct run_outcome *o,
                        size_t nsides)
{
    struct objects *x = calloc(1, sizeof *x); /* a key pattern: 1 KiB */
    memset(o, 0, nsides * sizeof *o);
    if (!x) {
        run_stop(&o[0], STOP_RESOURCE, 0, "out of memory in the client");
        return;
    }
    x->s = &sides[0];
    x->o = &o[0];
    x->opts = objects_opts(x->s->sc);
    x->t0_ns = now_ns();
    x->deadline_ns = x->t0_ns + (int64_t)(x->opts->max_seconds * 1e9);
    x->rng = OBJECTS_SEED;
    x->steps = json_array();
    x->steps_planned = steps_to_max(x->opts);
    struct servers_want w = {
        .group = x->s->group,
        .count = 1,
        .cpu = -1,
        .oom_kills = -1,
        .slot = server_slot,
        .arg = x,
    };
    if (servers_start(x->s, x->o, &w, NULL) == 1 && !x->o->stop_reason) {
        struct proc_footprint fp;
        x->baseline = objects_footprint(x, &fp);
        memcpy(x->factory_key, x->call.target.key, x->call.target.key_len);
        x->factory_key_len = x->call.target.key_len;
        int rc = invoke_open(&x->inv, x->s->tp, &x->call.target,
                             x->s->sc->call.timeout_ms);
        if (rc) {
            char at[64] = " opening the connection for makeObjects";
            if (!servers_resource_stop(x->o, rc, x->inv.why, at))
                servers_failed(x->s, x->o,
                               &(struct servers_failure){
                                   .index = x->call.index,
                                   .pid = x->call.pid,
                                   .err = rc,
                                   .why = x->inv.why,
                                   .at = at,
                                   .oom_kills = -1});
        } else {
            steps(x);
        }
    }
    run_progress_end(x->s);
    record(x);
    result_set_outcome(x->s->doc, x->o->stop_reason, x->o->detail,
                       (double)(now_ns() - x->t0_ns) / 1e9);
    invoke_close(&x->inv);
    conn_close(&x->call);
    samples_free(&x->times);
    json_decref(x->steps);
    json_decref(x->reference);
    json_decref(x->baseline);
    free(x);
}

static double num(json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

/* A step's line of the closing table. */
static void summary_step(json_t *st)
{
    json_t *make = json_object_get(st, "make");
    json_t *us = json_object_get(st, "call_us");
    json_t *ratio = json_object_get(st, "call_ratio");
    json_t *kb = json_object_get(st, "kb_per_object");
    printf("  %9lld  %9.2f %9.2f  %9.1f %9.1f  %6.2fx", (long long)num(st, "m"),
           num(make, "server_us_per_object"),
           num(make, "client_us_per_object"), num(us, "median"),
           num(us, "p99"), num(ratio, "median"));
    if (json_is_object(kb))
        printf("  %9.3f %9.3f\n", num(kb, "pss"), num(kb, "uss"));
    else
        printf("  %9s %9s\n", "-", "-");
}

/* What ran, a line per step, the reference, the stop. */
static void objects_summary(const struct scenario *sc, json_t *doc,
                            const struct run_outcome *o, const char *out)
{
    json_t *orb = json_object_get(doc, "orb");
    json_t *j = json_object_get(doc, "objects");
    const char *version = json_string_value(json_object_get(orb, "version"));
    printf("%s: %s %s over %s, %s, %lld calls a step spread over the "
           "objects\n", sc->name,
           json_string_value(json_object_get(orb, "name")),
           version ? version : "(version unknown)", sc->transport,
           strcmp(objects_opts(sc)->servants, "default") == 0
               ? "one default servant for every object"
               : "a servant for each object",
           (long long)objects_opts(sc)->calls);
    json_t *steps = json_object_get(j, "steps");
    if (json_array_size(steps)) {
        printf("  %9s  %19s  %19s  %7s  %19s\n", "", "make us/object",
               "call us", "median", "kB/object since M=1");
        printf("  %9s  %9s %9s  %9s %9s  %7s  %9s %9s\n", "M", "server",
               "client", "median", "p99", "/ M=1", "PSS", "USS");
    }
    size_t i;
    json_t *st;
    json_array_foreach(steps, i, st) summary_step(st);
    json_t *ref = json_object_get(j, "reference");
    if (json_is_object(ref))
        printf("  reference: %lld bytes marshaled (%lld as an IOR string), "
               "object key %lld bytes\n", (long long)num(ref, "ior_bytes"),
               (long long)num(ref, "ior_string_bytes"),
               (long long)num(ref, "key_bytes"));
    printf("  stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

const struct kind_ops kind_objects = {
    .scenario = {.name = "objects",
                 .keys = objects_keys,
                 .nkeys = ARRAY_LEN(objects_keys),
                 .check = objects_check},
    .run = objects_run,
    .summary = objects_summary,
    .unsupported = objects_unsupported,
    .max_connections = objects_max_connections,
};

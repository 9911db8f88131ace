/* The stepper's closing block: see stepper_summary_head in stepper.h. */
#include <stdio.h>

#include "core/util.h"
#include "kinds/stepper.h"

void stepper_summary_head(const struct scenario *sc, json_t *doc,
                          const char *held)
{
    json_t *orb = json_object_get(doc, "orb");
    json_t *caller = json_object_get(doc, "caller");
    const char *version = json_string_value(json_object_get(orb, "version"));
    char calls[200];
    if (caller) /* an ORB's own client made them (docs/callers.md) */
        snprintf(calls, sizeof calls, "%s calls by the caller %s (%s %s)",
                 json_string_value(json_object_get(caller, "mode")),
                 json_string_value(json_object_get(caller, "kind")),
                 json_string_value(json_object_get(caller, "name")),
                 json_string_value(json_object_get(caller, "version")));
    else
        snprintf(calls, sizeof calls, "%s calls", sc->mode);
    printf("%s: %s %s over %s, %s, max_ms %g\n  %s", sc->name,
           json_string_value(json_object_get(orb, "name")),
           version ? version : "(version unknown)", sc->transport, calls,
           stepper_opts(sc)->max_ms, held);
    json_t *res = json_object_get(doc, "result");
    json_t *cx = json_object_get(res, "crossing_interval");
    if (json_is_array(cx))
        printf("; round time crosses %g ms at N=%.0f (95%% interval "
               "%.0f-%.0f)",
               stepper_opts(sc)->max_ms,
               json_number_value(json_object_get(res, "crossing_n")),
               json_number_value(json_array_get(cx, 0)),
               json_number_value(json_array_get(cx, 1)));
    printf("\n");
}

void stepper_summary_end(const struct scenario *sc, json_t *doc,
                         const struct run_outcome *o, const char *out)
{
    json_t *steps = json_object_get(doc, "steps");
    json_t *first = json_array_get(steps, 0);
    if (!sc->client.connect)
        printf("  the servers were idle: never connected or called\n");
    else if (first)
        printf("  median call at N=%lld: %.1f us\n",
               (long long)json_integer_value(json_object_get(first, "n")),
               json_number_value(json_object_get(
                   json_object_get(first, "call_us"), "median")));
    json_t *warm = json_object_get(json_object_get(doc, "result"),
                                   "warm_start");
    if (warm) {
        /* Where the prior came from is a path someone gave: printable. */
        const char *from = json_string_value(json_object_get(warm, "from"));
        char from_s[600] = "";
        if (from) {
            char esc[560];
            str_escape(esc, sizeof esc, from);
            snprintf(from_s, sizeof from_s, " (from %s)", esc);
        }
        printf("  warm start at N=%.0f%s: %s; %lld steps of %lld rounds "
               "below N=%.0f\n",
               json_number_value(json_object_get(warm, "prior_n")), from_s,
               json_string_value(json_object_get(warm, "outcome")),
               (long long)json_integer_value(
                   json_object_get(warm, "far_steps")),
               (long long)json_integer_value(
                   json_object_get(warm, "far_rounds")),
               json_number_value(
                   json_object_get(warm, "full_rounds_from_n")));
    }
    printf("  stop: %s: %s\n", o->stop_reason, o->detail);
    printf("  %zu steps; result: %s\n", json_array_size(steps), out);
}

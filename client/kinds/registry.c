/* The registry of kinds of measurement: one row each (kinds/kind.h). A new
 * kind is a file in kinds/ that defines `const struct kind_ops kind_NAME`
 * and one entry in KINDS below. */
#include "kinds/kind.h"

#include <stdio.h>
#include <string.h>

#include "codec/payload.h"
#include "core/util.h"
#include "host/caller_kind.h"
#include "host/server_kind.h"

/* In the order `orbbench keys` lists their keys. */
#define KINDS(X) \
    X(sweep) X(rate) X(scaling) X(clock) X(latency) X(marshal) X(channel) \
    X(fanin) X(connect) X(syscall) X(load) X(objects)

#define DECLARE(name) extern const struct kind_ops kind_##name;
KINDS(DECLARE)
#undef DECLARE

#define ROW(name) &kind_##name,
static const struct kind_ops *const registry[] = {KINDS(ROW)};
#undef ROW

#define SCENARIO(name) &kind_##name.scenario,
static const struct scenario_kind *const scenario_kinds[] = {
    KINDS(SCENARIO)};
#undef SCENARIO

const struct kind_ops *kind_lookup(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(registry); i++)
        if (strcmp(registry[i]->scenario.name, name) == 0)
            return registry[i];
    return NULL;
}

/* call.payload is every kind's key, but its names are the codec's, a
 * layer above the scenario loader. */
static int check_payload(const struct scenario_ctx *c,
                         const struct scenario *sc)
{
    if (payload_lookup(sc->call.payload))
        return 0;
    char names[160];
    payload_names(names, sizeof names);
    return scenario_fail(c, "call.payload", "\"%s\" is not one of: %s",
                         sc->call.payload, names);
}

/* A caller (caller.*, docs/callers.md) makes the calls instead of the
 * client's call modes, over connections of its own: the keys that shape
 * the client's calls must leave it room. */
static int check_caller(const struct scenario_ctx *c,
                        const struct scenario *sc)
{
    if (!sc->caller.kind[0])
        return 0; /* a kind that takes no caller.* keys */
    if (strcmp(sc->caller.kind, "none") == 0) {
        if (sc->caller.mode[0])
            return scenario_fail(c, "caller.mode", "needs caller.kind");
        if (sc->caller.nargs)
            return scenario_fail(c, "caller.args", "needs caller.kind");
        char words[SERVER_JVM_MAX_WORDS][SERVER_JVM_WORD];
        const char *jvm_key = NULL;
        if (server_jvm_words(&sc->caller.jvm, words, &jvm_key)) {
            char key[48];
            snprintf(key, sizeof key, "caller.jvm.%s", jvm_key);
            return scenario_fail(c, key, "needs caller.kind");
        }
        return 0;
    }
    if (strcmp(sc->mode, "sync") != 0)
        return scenario_fail(c, "mode", "\"%s\": orbbench's own call modes "
                             "do not apply when caller.kind %s makes the "
                             "calls (give caller.mode)", sc->mode,
                             sc->caller.kind);
    if (strcmp(sc->transport, "tcp") != 0 &&
        strcmp(sc->transport, "unix") != 0)
        return scenario_fail(c, "transport", "\"%s\": a caller reaches the "
                             "servers by their IORs, over tcp or unix",
                             sc->transport);
    if (!sc->client.connect)
        return scenario_fail(c, "client.connect", "false leaves no calls for "
                             "caller.kind %s to make", sc->caller.kind);
    if (strcmp(sc->call.payload, "string") != 0)
        return scenario_fail(c, "call.payload", "\"%s\": a caller echoes "
                             "strings (call.payload_bytes)",
                             sc->call.payload);
    if (sc->machine.limit_client)
        return scenario_fail(c, "machine.limit_client", "the caller has a "
                             "cgroup of its own; this would hold orbbench, "
                             "not the caller");
    return 0;
}

static int check_common(const struct scenario_ctx *c,
                        const struct scenario *sc)
{
    int rc = check_payload(c, sc);
    return rc ? rc : check_caller(c, sc);
}

const struct scenario_schema *kind_schema(void)
{
    static const struct scenario_schema schema = {
        .kinds = scenario_kinds,
        .nkinds = ARRAY_LEN(scenario_kinds),
        .check = check_common,
        .server_name = server_kind_name,
        .caller_name = caller_kind_name};
    return &schema;
}

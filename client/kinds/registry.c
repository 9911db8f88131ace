/* The registry of kinds of measurement: one row each (kinds/kind.h). A new
 * kind is a file in kinds/ that defines `const struct kind_ops kind_NAME`
 * and one entry in KINDS below. */
#include "kinds/kind.h"

#include <string.h>

#include "codec/payload.h"
#include "core/util.h"
#include "host/server_kind.h"

/* In the order `orbbench keys` lists their keys. */
#define KINDS(X) \
    X(sweep) X(rate) X(scaling) X(clock) X(latency) X(marshal) X(channel) \
    X(fanin) X(connect) X(objects)

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

const struct scenario_schema *kind_schema(void)
{
    static const struct scenario_schema schema = {
        .kinds = scenario_kinds,
        .nkinds = ARRAY_LEN(scenario_kinds),
        .check = check_payload,
        .server_name = server_kind_name};
    return &schema;
}

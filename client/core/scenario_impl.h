/* What the scenario loader's files share (scenario.c, the loading;
 * scenario_keys.c, the rows; scenario_value.c, one key's value): the
 * table of rows a load walks, the load's context, and the calls between
 * them. Theirs alone. */
#ifndef ORBBENCH_SCENARIO_IMPL_H
#define ORBBENCH_SCENARIO_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/scenario.h"

/* A key table row and the kind it belongs to (NULL: every kind's). */
struct row {
    const struct scenario_key *k;
    const struct scenario_kind *owner;
};

/* The common rows, then each kind's; "kind" choices are the kinds'
 * names, "server.kind" choices the server kinds' (the schema's). */
#define MAX_ROWS 256
#define MAX_KINDS 32
#define MAX_SERVERS 32
#define MAX_CALLERS 32
struct rows {
    struct row r[MAX_ROWS];
    size_t n;
    struct scenario_key kind_key;
    const char *kind_names[MAX_KINDS + 1];
    struct scenario_key server_key;
    const char *server_names[MAX_SERVERS + 1];
    struct scenario_key caller_key;
    const char *caller_names[MAX_CALLERS + 2]; /* "none" first */
};

/* One load: where its text came from, its overrides, where its message
 * goes, and its rows. */
struct scenario_ctx {
    const char *source; /* file name, for messages */
    const struct scenario_schema *schema;
    char *const *sets;
    size_t nsets;
    char *err;
    size_t err_len;
    const struct rows *rows;
};

/* fail: these files' name for scenario_fail. */
#define fail scenario_fail

/* scenario_keys.c: the common keys (*n of them); the rows of `schema`
 * into rs (0, or -E2BIG past MAX_ROWS, MAX_KINDS, MAX_SERVERS); is row r
 * one of kind sk's (or every kind's); the kinds that take row r, for a
 * message; the row of `key`, or NULL; is `prefix` a group of keys; what
 * follows "unknown key" (the nearest key or group). */
const struct scenario_key *scenario_common_keys(size_t *n);
int scenario_rows_build(const struct scenario_schema *schema,
                        struct rows *rs);
bool scenario_of_kind(const struct row *r, const struct scenario_kind *sk);
void scenario_kinds_of(const struct scenario_schema *schema,
                       const struct row *r, char *buf, size_t len);
const struct row *scenario_find_key(const struct rows *rs, const char *key);
bool scenario_is_group(const struct rows *rs, const char *prefix);
void scenario_key_hint(const struct rows *rs, const char *key, char *buf,
                       size_t len);

/* scenario_value.c: a JSON value's type in words ("an integer"); the
 * value at a dotted path, or NULL; set one (stealing val: 0 or
 * -ENOMEM); a "--set key=value" into root by the key's type; one key's
 * value (or its default) into *sc, checked; the resolved scenario as
 * JSON (every key of kind sk, defaults filled in). */
const char *scenario_type_name(const json_t *v);
json_t *scenario_get_path(json_t *root, const char *key);
int scenario_set_path(json_t *root, const char *key, json_t *val);
int scenario_parse_set(const struct scenario_ctx *c, const char *set,
                       json_t *root);
int scenario_load_key(const struct scenario_ctx *c,
                      const struct scenario_key *ks, json_t *v,
                      struct scenario *sc);
json_t *scenario_resolve(const struct rows *rs,
                         const struct scenario_kind *sk,
                         const struct scenario *sc);

#endif

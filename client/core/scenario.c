/* Scenario loading and strict validation: see scenario.h. Every key is one
 * row of a key table (fio-style option table): the common keys and their
 * rows in scenario_keys.c, one key's value in scenario_value.c; this file
 * loads a document, walks every row, and checks the rules that tie keys
 * together. */
#include "core/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/scenario_impl.h"
#include "core/util.h"

static const char *origin(const struct scenario_ctx *c, const char *key,
                          char *buf, size_t len)
{
    size_t klen = strlen(key);
    for (size_t i = c->nsets; i-- > 0;)
        if (strncmp(c->sets[i], key, klen) == 0 && c->sets[i][klen] == '=') {
            snprintf(buf, len, "--set %s", key);
            return buf;
        }
    return c->source;
}

int scenario_fail(const struct scenario_ctx *c, const char *key,
                  const char *fmt, ...)
{
    char where[600], msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *from = key ? origin(c, key, where, sizeof where) : NULL;
    if (key && from != c->source)
        snprintf(c->err, c->err_len, "%s: %s", from, msg);
    else if (key)
        snprintf(c->err, c->err_len, "%s: key \"%s\": %s", from, key, msg);
    else
        snprintf(c->err, c->err_len, "%s: %s", c->source, msg);
    return -EINVAL;
}

/* Reject every key of `obj` (at `prefix`) that the table does not know. */
static int check_known(const struct scenario_ctx *c, json_t *obj,
                       const char *prefix)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (scenario_is_group(c->rows, path)) {
            if (!json_is_object(v))
                return fail(c, path, "expected an object, got %s",
                            scenario_type_name(v));
            int rc = check_known(c, v, path);
            if (rc)
                return rc;
        } else if (!scenario_find_key(c->rows, path)) {
            char hint[200];
            scenario_key_hint(c->rows, path, hint, sizeof hint);
            return fail(c, NULL, "unknown key \"%s\"%s", path, hint);
        }
    }
    return 0;
}

/* The scenario's kind (its name was checked against the schema's). */
static const struct scenario_kind *kind_of(const struct scenario_ctx *c,
                                           const struct scenario *sc)
{
    for (size_t i = 0; i < c->schema->nkinds; i++)
        if (strcmp(c->schema->kinds[i]->name, sc->kind) == 0)
            return c->schema->kinds[i];
    return NULL;
}

/* Rules that tie keys together. */
static int check_cross(const struct scenario_ctx *c, const struct scenario *sc)
{
    static const char *const cpu_keys[] = {"machine.cpus",
                                           "machine.client_cpus"};
    const char *cpu_vals[] = {sc->machine.cpus, sc->machine.client_cpus};
    for (size_t i = 0; i < ARRAY_LEN(cpu_keys); i++) {
        cpu_set_t set;
        char why[160];
        if (cpu_vals[i][0] &&
            parse_cpu_list(cpu_vals[i], &set, why, sizeof why) != 0)
            return fail(c, cpu_keys[i], "%s", why);
    }
    const struct scenario_kind *sk = kind_of(c, sc);
    int rc = c->schema->check ? c->schema->check(c, sc) : 0;
    if (!rc && sk->check)
        rc = sk->check(c, sc);
    if (rc)
        return rc;
    bool external = strcmp(sc->server.kind, "external") == 0;
    if (external && !sc->server.iors[0])
        return fail(c, "server.iors", "server.kind \"external\" needs a "
                    "file of IORs (or \"-\" for standard input)");
    if (!external && sc->server.iors[0])
        return fail(c, "server.iors", "only for server.kind \"external\"");
    if (!external && sc->client.nallow_hosts)
        return fail(c, "client.allow_hosts",
                    "only for server.kind \"external\"");
    if (external && !sk->external_servers)
        return fail(c, "server.kind", "\"external\" servers can only be "
                    "swept (\"kind\": \"sweep\")");
    if (sc->machine.limit_client && sc->machine.mem_limit_mb == 0)
        return fail(c, "machine.limit_client",
                    "needs machine.mem_limit_mb");
    const char *ids[][2] = {{"name", sc->name},
                            {"server.orb", sc->server.orb},
                            {"caller.orb", sc->caller.orb},
                            {"caller.mode", sc->caller.mode}};
    for (size_t i = 0; i < ARRAY_LEN(ids); i++)
        for (const char *p = ids[i][1]; *p; p++)
            if (!(isalnum((unsigned char)*p) || strchr("._-", *p)))
                return fail(c, ids[i][0],
                            "\"%s\": use only letters, digits, . _ -",
                            ids[i][1]);
    return 0;
}

/* The file's base name without ".json", as the default name. */
static void default_name(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    str_copy(out, cap, base);
    char *dot = strrchr(out, '.');
    if (dot && strcmp(dot, ".json") == 0)
        *dot = 0;
}

/* Row r's value in root (or its default) into *sc. */
static int load_row(const struct scenario_ctx *c, const struct row *r,
                    json_t *root, struct scenario *sc)
{
    return scenario_load_key(c, r->k, scenario_get_path(root, r->k->key),
                             sc);
}

/* Every row into *sc: the common keys (the kind among them), then the
 * kind's own (its options block is the scenario's alone). A key of
 * another kind would be silently unused: it is refused. */
static int load_rows(const struct scenario_ctx *c, json_t *root,
                     struct scenario *sc)
{
    const struct rows *rows = c->rows;
    int rc = 0;
    for (size_t i = 0; !rc && i < rows->n; i++)
        if (!rows->r[i].owner)
            rc = load_row(c, &rows->r[i], root, sc);
    const struct scenario_kind *sk = rc ? NULL : kind_of(c, sc);
    for (size_t i = 0; !rc && i < rows->n; i++)
        if (rows->r[i].owner == sk)
            rc = load_row(c, &rows->r[i], root, sc);
    for (size_t i = 0; !rc && i < rows->n; i++) {
        const struct row *r = &rows->r[i];
        if (!scenario_of_kind(r, sk) && scenario_get_path(root, r->k->key)) {
            char who[128];
            scenario_kinds_of(c->schema, r, who, sizeof who);
            rc = fail(c, r->k->key, "only for \"kind\": \"%s\" "
                      "scenarios (this one is \"%s\")", who, sc->kind);
        }
    }
    return rc;
}

/* Validate a parsed document (NULL when it did not parse: jerr says why)
 * from `source` into *sc, as scenario_load describes. Frees root. */
static int load_root(const struct scenario_schema *schema,
                     const char *source, json_t *root,
                     const json_error_t *jerr, char *const *sets,
                     size_t nsets, struct scenario *sc, char *err,
                     size_t err_len)
{
    static struct rows rows; /* one load at a time: main, tests, fuzzer */
    struct scenario_ctx c = {source, schema, sets, nsets, err, err_len,
                             &rows};
    sc->schema = schema;
    if (scenario_rows_build(schema, &rows) != 0) {
        json_decref(root);
        snprintf(err, err_len, "%s: the key tables hold more than %d keys "
                 "or %d kinds", source, MAX_ROWS, MAX_KINDS);
        return -E2BIG;
    }
    if (!root) {
        snprintf(err, err_len, "%s:%d:%d: %s", source, jerr->line,
                 jerr->column, jerr->text);
        return -EINVAL;
    }
    int rc = 0;
    if (!json_is_object(root))
        rc = fail(&c, NULL, "expected a JSON object at the top");
    if (!rc)
        rc = check_known(&c, root, "");
    for (size_t i = 0; !rc && i < nsets; i++)
        rc = scenario_parse_set(&c, sets[i], root);
    if (!rc)
        rc = load_rows(&c, root, sc);
    /* A typed payload has its own size: a length for it is a mistake. */
    if (!rc && strcmp(sc->call.payload, "string") != 0 &&
        scenario_get_path(root, "call.payload_bytes"))
        rc = fail(&c, "call.payload_bytes", "only for call.payload "
                  "\"string\" (a typed payload, here \"%s\", has its own "
                  "size)", sc->call.payload);
    if (!rc && !sc->name[0])
        default_name(source, sc->name, sizeof sc->name);
    if (!rc)
        rc = check_cross(&c, sc);
    json_decref(root);
    if (!rc)
        sc->resolved = scenario_resolve(&rows, kind_of(&c, sc), sc);
    if (rc)
        scenario_free(sc);
    return rc;
}

int scenario_load(const struct scenario_schema *schema, const char *path,
                  char *const *sets, size_t nsets, struct scenario *sc,
                  char *err, size_t err_len)
{
    json_error_t jerr;
    memset(sc, 0, sizeof *sc);
    str_copy(sc->source, sizeof sc->source, path);

    /* A regular file only: a FIFO would block, a device never end. */
    int fd = open_regular(path, err, err_len);
    if (fd == -EISDIR) {
        snprintf(err, err_len, "%s: %s (give a scenario file; run-suite "
                 "takes a folder)", path, strerror(EISDIR));
        return fd;
    }
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f) {
        if (fd >= 0) {
            snprintf(err, err_len, "%s: %s", path, strerror(errno));
            close(fd);
            return -ENOMEM;
        }
        return fd;
    }
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    fclose(f);
    return load_root(schema, path, root, &jerr, sets, nsets, sc, err,
                     err_len);
}

int scenario_load_text(const struct scenario_schema *schema,
                       const char *source, const char *text, size_t len,
                       char *const *sets, size_t nsets, struct scenario *sc,
                       char *err, size_t err_len)
{
    json_error_t jerr;
    memset(sc, 0, sizeof *sc);
    str_copy(sc->source, sizeof sc->source, source);
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    return load_root(schema, source, root, &jerr, sets, nsets, sc, err,
                     err_len);
}

/* Free the entries of every list key of `keys`. */
static void free_lists(struct scenario *sc, const struct scenario_key *ks,
                       size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ks[i].type != SCENARIO_STRLIST)
            continue;
        char **list = (char **)((char *)sc + ks[i].off);
        size_t *count = (size_t *)((char *)sc + ks[i].size);
        for (size_t a = 0; a < *count; a++)
            free(list[a]);
        *count = 0;
    }
}

void scenario_free(struct scenario *sc)
{
    size_t ncommon;
    const struct scenario_key *common = scenario_common_keys(&ncommon);
    free_lists(sc, common, ncommon);
    for (size_t i = 0; sc->schema && i < sc->schema->nkinds; i++)
        if (strcmp(sc->schema->kinds[i]->name, sc->kind) == 0)
            free_lists(sc, sc->schema->kinds[i]->keys,
                       sc->schema->kinds[i]->nkeys);
    json_decref(sc->resolved);
    sc->resolved = NULL;
}

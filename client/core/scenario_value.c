/* One scenario key's value: from --set text into JSON, from JSON into
 * struct scenario by its row's type (range, choices, lengths checked),
 * and back into the resolved scenario's JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario.h"
#include "core/scenario_impl.h"
#include "core/util.h"

const char *scenario_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "a list";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* The value at a dotted path, or NULL. */
json_t *scenario_get_path(json_t *root, const char *key)
{
    char buf[256];
    str_copy(buf, sizeof buf, key);
    json_t *v = root;
    for (char *save, *part = strtok_r(buf, ".", &save); part && v;
         part = strtok_r(NULL, ".", &save))
        v = json_is_object(v) ? json_object_get(v, part) : NULL;
    return v;
}

/* Set a value at a dotted path, creating groups; steals `val`. */
int scenario_set_path(json_t *root, const char *key, json_t *val)
{
    char buf[256];
    str_copy(buf, sizeof buf, key);
    json_t *obj = root;
    char *save, *part = strtok_r(buf, ".", &save);
    for (char *next; (next = strtok_r(NULL, ".", &save)); part = next) {
        json_t *sub = json_object_get(obj, part);
        if (!json_is_object(sub)) {
            sub = json_object();
            json_object_set_new(obj, part, sub);
        }
        obj = sub;
    }
    return json_object_set_new(obj, part, val) ? -ENOMEM : 0;
}

/* --set text as a JSON value of key ks's type: into *out (NULL when the
 * text is not one). 0, or -ENOMEM. */
static int text_value(const struct scenario_key *ks, const char *text,
                      json_t **out)
{
    json_t *val = NULL;
    int64_t i;
    double d;
    switch (ks->type) {
    case SCENARIO_STRING:
    case SCENARIO_ENUM:
        val = json_string(text);
        break;
    case SCENARIO_INT:
        if (parse_i64(text, &i) == 0)
            val = json_integer(i);
        break;
    case SCENARIO_NUM:
        if (parse_double(text, &d) == 0)
            val = json_real(d);
        break;
    case SCENARIO_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
            val = json_boolean(text[0] == 't');
        break;
    case SCENARIO_KLIST:
        /* 4, or [1,2,4], or 1,2,4 */
        val = json_loads(text, JSON_DECODE_ANY, NULL);
        if (!val && strchr(text, ',')) {
            char *buf = NULL; /* never cut: a long list is parsed whole */
            if (asprintf(&buf, "[%s]", text) < 0)
                return -ENOMEM;
            val = json_loads(buf, 0, NULL);
            free(buf);
        }
        break;
    case SCENARIO_STRLIST:
        /* A JSON list, or words separated by spaces. */
        val = json_loads(text, JSON_DECODE_ANY, NULL);
        if (!val) {
            val = json_array();
            char *buf = strdup(text); /* never cut: load_strlist bounds words */
            if (!buf) {
                json_decref(val);
                return -ENOMEM;
            }
            for (char *save, *w = strtok_r(buf, " ", &save); w && val;
                 w = strtok_r(NULL, " ", &save)) {
                /* json_string refuses a word that is not UTF-8: say so
                 * rather than run the server without it. */
                if (json_array_append_new(val, json_string(w)) != 0) {
                    json_decref(val);
                    val = NULL;
                }
            }
            free(buf);
        }
        break;
    }
    *out = val;
    return 0;
}

/* Turn "--set key=value" text into a JSON value of the key's type. */
int scenario_parse_set(const struct scenario_ctx *c, const char *set,
                       json_t *root)
{
    const char *eq = strchr(set, '=');
    char key[256];
    if (!eq || eq == set || (size_t)(eq - set) >= sizeof key) {
        snprintf(c->err, c->err_len,
                 "--set %s: expected key=value (e.g. sweep.max_n=500)", set);
        return -EINVAL;
    }
    memcpy(key, set, (size_t)(eq - set));
    key[eq - set] = 0;
    const char *text = eq + 1;
    const struct row *row = scenario_find_key(c->rows, key);
    const struct scenario_key *ks = row ? row->k : NULL;
    if (!ks) {
        char hint[200];
        scenario_key_hint(c->rows, key, hint, sizeof hint);
        snprintf(c->err, c->err_len, "--set %s: unknown key \"%s\"%s", set,
                 key, hint);
        return -EINVAL;
    }
    json_t *val;
    int vrc = text_value(ks, text, &val);
    if (vrc)
        return vrc;
    if (!val) {
        snprintf(c->err, c->err_len, "--set %s: \"%s\" is not %s", key, text,
                 ks->type == SCENARIO_INT    ? "an integer"
                 : ks->type == SCENARIO_BOOL ? "true or false"
                 : ks->type == SCENARIO_NUM  ? "a number"
                 : ks->type == SCENARIO_KLIST ? "an integer or a list of them"
                                      : "valid UTF-8 text");
        return -EINVAL;
    }
    return scenario_set_path(root, key, val);
}

static int check_range(const struct scenario_ctx *c,
                       const struct scenario_key *ks, double v)
{
    if (v < ks->min || v > ks->max)
        return fail(c, ks->key, "%.15g is out of range [%.15g, %.15g]", v,
                    ks->min, ks->max);
    return 0;
}

/* A value of a key with choices must be one of them. */
static int check_choice(const struct scenario_ctx *c,
                        const struct scenario_key *ks, const char *s)
{
    if (!ks->choices)
        return 0;
    char list[256] = "";
    for (const char *const *ch = ks->choices; *ch; ch++) {
        if (strcmp(*ch, s) == 0)
            return 0;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 ch == ks->choices ? "" : ", ", *ch);
    }
    return fail(c, ks->key, "\"%s\" is not one of: %s", s, list);
}

/* A string or a choice: within its buffer, one of its choices. */
static int load_string(const struct scenario_ctx *c,
                       const struct scenario_key *ks, json_t *v,
                       struct scenario *sc)
{
    char *field = (char *)sc + ks->off;
    const char *s = ks->def_str;
    if (v) {
        if (!json_is_string(v))
            return fail(c, ks->key, "expected a string, got %s",
                        scenario_type_name(v));
        s = json_string_value(v);
    }
    if (strlen(s) >= ks->size)
        return fail(c, ks->key, "longer than %zu characters",
                    ks->size - 1);
    if (v && ks->min > 0 && strlen(s) < (size_t)ks->min)
        return fail(c, ks->key, "must not be empty");
    int rc = check_choice(c, ks, s);
    if (rc)
        return rc;
    str_copy(field, ks->size, s);
    return 0;
}

/* An integer within its range. */
static int load_int(const struct scenario_ctx *c,
                    const struct scenario_key *ks, json_t *v,
                    struct scenario *sc)
{
    char *field = (char *)sc + ks->off;
    int64_t x = (int64_t)ks->def_num;
    if (v) {
        if (!json_is_integer(v))
            return fail(c, ks->key, "expected an integer, got %s",
                        scenario_type_name(v));
        x = json_integer_value(v);
        /* Defaults may lie outside (0 = "none"); values may not. */
        int rc = check_range(c, ks, (double)x);
        if (rc)
            return rc;
    }
    *(int64_t *)field = x;
    return 0;
}

/* true or false. */
static int load_bool(const struct scenario_ctx *c,
                     const struct scenario_key *ks, json_t *v,
                     struct scenario *sc)
{
    char *field = (char *)sc + ks->off;
    if (v && !json_is_boolean(v))
        return fail(c, ks->key, "expected true or false, got %s",
                    scenario_type_name(v));
    *(bool *)field = v ? json_is_true(v) : ks->def_num != 0;
    return 0;
}

/* A number within its range. */
static int load_num(const struct scenario_ctx *c,
                    const struct scenario_key *ks, json_t *v,
                    struct scenario *sc)
{
    char *field = (char *)sc + ks->off;
    double x = ks->def_num;
    if (v) {
        if (!json_is_number(v))
            return fail(c, ks->key, "expected a number, got %s",
                        scenario_type_name(v));
        x = json_number_value(v);
    }
    int rc = check_range(c, ks, x);
    if (!rc)
        *(double *)field = x;
    return rc;
}

/* An integer K (1..K) or an increasing list of integers (struct
 * scenario_klist); none: every CPU allowed, known only at run time. */
static int load_klist(const struct scenario_ctx *c,
                      const struct scenario_key *ks, json_t *v,
                      struct scenario *sc)
{
    char *field = (char *)sc + ks->off;
    struct scenario_klist *kl = (struct scenario_klist *)(void *)field;
    kl->max = 0;
    kl->n = 0;
    if (!v || json_is_null(v))
        return 0; /* every CPU allowed: known only at run time */
    if (json_is_integer(v)) {
        int rc = check_range(c, ks, (double)json_integer_value(v));
        if (!rc)
            kl->max = json_integer_value(v);
        return rc;
    }
    if (!json_is_array(v) || json_array_size(v) == 0)
        return fail(c, ks->key, "expected an integer or a non-empty "
                    "list of integers, got %s", scenario_type_name(v));
    if (json_array_size(v) > SCENARIO_MAX_K)
        return fail(c, ks->key, "more than %d entries", SCENARIO_MAX_K);
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item) {
        if (!json_is_integer(item))
            return fail(c, ks->key, "entry %zu: expected an integer, "
                        "got %s", i, scenario_type_name(item));
        int64_t x = json_integer_value(item);
        int rc = check_range(c, ks, (double)x);
        if (rc)
            return rc;
        if (i > 0 && x <= kl->v[i - 1])
            return fail(c, ks->key, "entry %zu: %lld is not above the "
                        "one before (list k in increasing order)", i,
                        (long long)x);
        kl->v[i] = x;
        kl->n = i + 1;
    }
    return 0;
}

/* A list of strings, each within SCENARIO_MAX_WORD and, with choices,
 * one of them, once; the entries are the scenario's (scenario_free). */
static int load_strlist(const struct scenario_ctx *c,
                        const struct scenario_key *ks, json_t *v,
                        struct scenario *sc)
{
    char *field = (char *)sc + ks->off;
    char **list = (char **)field;
    size_t *count = (size_t *)((char *)sc + ks->size);
    if (!v)
        return 0;
    if (!json_is_array(v))
        return fail(c, ks->key, "expected a list of strings, got %s",
                    scenario_type_name(v));
    if (json_array_size(v) > (size_t)ks->max)
        return fail(c, ks->key, "more than %g entries", ks->max);
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item) {
        if (!json_is_string(item))
            return fail(c, ks->key, "entry %zu: expected a string, got %s",
                        i, scenario_type_name(item));
        const char *e = json_string_value(item);
        if (json_string_length(item) > SCENARIO_MAX_WORD)
            return fail(c, ks->key, "entry %zu: longer than %d bytes "
                        "(%zu)", i, SCENARIO_MAX_WORD,
                        json_string_length(item));
        int rc = check_choice(c, ks, e);
        for (size_t j = 0; !rc && ks->choices && j < i; j++)
            if (strcmp(list[j], e) == 0)
                rc = fail(c, ks->key, "\"%s\" is listed twice", e);
        if (rc)
            return rc;
        list[i] = strdup(e);
        if (!list[i])
            return -ENOMEM;
        *count = i + 1;
    }
    return 0;
}

/* Validate one key's value (or fill its default) into *sc. */
int scenario_load_key(const struct scenario_ctx *c,
                      const struct scenario_key *ks, json_t *v,
                      struct scenario *sc)
{
    switch (ks->type) {
    case SCENARIO_STRING:
    case SCENARIO_ENUM:
        return load_string(c, ks, v, sc);
    case SCENARIO_INT:
        return load_int(c, ks, v, sc);
    case SCENARIO_BOOL:
        return load_bool(c, ks, v, sc);
    case SCENARIO_NUM:
        return load_num(c, ks, v, sc);
    case SCENARIO_KLIST:
        return load_klist(c, ks, v, sc);
    case SCENARIO_STRLIST:
        return load_strlist(c, ks, v, sc);
    }
    return -EINVAL;
}

/* The resolved scenario as JSON: every key, defaults filled in. */
json_t *scenario_resolve(const struct rows *rs,
                         const struct scenario_kind *sk,
                         const struct scenario *sc)
{
    json_t *root = json_object();
    for (size_t i = 0; i < rs->n; i++) {
        const struct scenario_key *ks = rs->r[i].k;
        const char *field = (const char *)sc + ks->off;
        json_t *v = NULL;
        if (!scenario_of_kind(&rs->r[i], sk))
            continue; /* the other kind's keys: unused, not recorded */
        if (strcmp(ks->key, "call.payload_bytes") == 0 &&
            strcmp(sc->call.payload, "string") != 0)
            continue; /* a typed payload has its own size */
        switch (ks->type) {
        case SCENARIO_STRING:
        case SCENARIO_ENUM:
            v = json_string(field);
            break;
        case SCENARIO_INT:
            v = json_integer(*(const int64_t *)field);
            break;
        case SCENARIO_NUM:
            v = json_real(*(const double *)field);
            break;
        case SCENARIO_STRLIST: {
            char *const *list = (char *const *)field;
            size_t n = *(const size_t *)((const char *)sc + ks->size);
            v = json_array();
            for (size_t a = 0; a < n; a++)
                json_array_append_new(v, json_string(list[a]));
            break;
        }
        case SCENARIO_BOOL:
            v = json_boolean(*(const bool *)field);
            break;
        case SCENARIO_KLIST: {
            const struct scenario_klist *k =
                (const struct scenario_klist *)field;
            if (k->max > 0) {
                v = json_integer(k->max);
            } else if (k->n == 0) {
                v = json_null(); /* 1..the CPUs allowed */
            } else {
                v = json_array();
                for (size_t j = 0; j < k->n; j++)
                    json_array_append_new(v, json_integer(k->v[j]));
            }
            break;
        }
        }
        scenario_set_path(root, ks->key, v);
    }
    return root;
}

int scenario_parse_k(const char *list, uint64_t *k_set)
{
    *k_set = 0;
    const char *p = list;
    while (*p) {
        char *end;
        errno = 0;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 1 || lo > 64 || errno)
            return -EINVAL;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p || hi < lo || hi > 64 || errno)
                return -EINVAL;
        }
        for (long k = lo; k <= hi; k++)
            *k_set |= 1ULL << (k - 1);
        if (*end == ',')
            end++;
        else if (*end)
            return -EINVAL;
        p = end;
    }
    return *k_set ? 0 : -EINVAL;
}

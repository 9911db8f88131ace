/* The object keys of numbered objects: where an ORB puts their ids. */
#include "codec/objkey.h"

#include <errno.h>
#include <string.h>

void objkey_digits(uint32_t id, char out[OBJKEY_DIGITS])
{
    for (int i = OBJKEY_DIGITS - 1; i >= 0; i--, id /= 10)
        out[i] = (char)('0' + id % 10);
}

static uint32_t get32(const uint8_t *b, bool little)
{
    return little ? (uint32_t)b[0] | (uint32_t)b[1] << 8 |
                        (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
                  : (uint32_t)b[3] | (uint32_t)b[2] << 8 |
                        (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
}

static void put32(uint8_t *b, uint32_t v, bool little)
{
    for (int i = 0; i < 4; i++)
        b[little ? i : 3 - i] = (uint8_t)(v >> (8 * i));
}

/* Object id's key by form f into out. */
static void render(const struct objkey *p, const struct objkey_form *f,
                   uint32_t id, uint8_t *out)
{
    memcpy(out, p->key, p->len);
    objkey_digits(id, (char *)out + f->digits_at);
    if (f->has_index)
        put32(out + f->index_at, id + f->index_base, f->index_little);
}

static bool makes(const struct objkey *p, const struct objkey_form *f,
                  const uint8_t *key, uint32_t id)
{
    uint8_t k[OBJKEY_MAX_KEY];
    render(p, f, id, k);
    return memcmp(k, key, p->len) == 0;
}

static bool overlaps(size_t a, size_t alen, size_t b, size_t blen)
{
    return a < b + blen && b < a + alen;
}

/* The forms that digit place f, widened by an index or not, give that
 * make `key` (object id's), appended to out[*n]. */
static void widen(const struct objkey *p, const struct objkey_form *f,
                  const uint8_t *key, uint32_t id, struct objkey_form *out,
                  size_t *n)
{
    uint8_t k[OBJKEY_MAX_KEY];
    render(p, f, id, k);
    size_t lo = p->len, hi = 0;
    for (size_t i = 0; i < p->len; i++)
        if (k[i] != key[i]) {
            lo = i < lo ? i : lo;
            hi = i;
        }
    if (lo == p->len) { /* nothing but the digits differ */
        if (*n < OBJKEY_MAX_FORMS)
            out[(*n)++] = *f;
        return;
    }
    if (hi - lo >= 4)
        return;
    for (size_t at = hi >= 3 ? hi - 3 : 0; at <= lo && at + 4 <= p->len;
         at++) {
        if (overlaps(at, 4, f->digits_at, OBJKEY_DIGITS))
            continue;
        for (int little = 0; little < 2; little++) {
            struct objkey_form g = *f;
            g.has_index = true;
            g.index_little = little;
            g.index_at = at;
            g.index_base = get32(p->key + at, little) - p->id;
            if (makes(p, &g, key, id) && *n < OBJKEY_MAX_FORMS)
                out[(*n)++] = g;
        }
    }
}

int objkey_learn(struct objkey *p, const uint8_t *key, size_t len,
                 uint32_t id)
{
    char digits[OBJKEY_DIGITS];
    if (id > OBJKEY_MAX_ID || len > OBJKEY_MAX_KEY || len < OBJKEY_DIGITS)
        return -EINVAL;
    objkey_digits(id, digits);
    struct objkey_form keep[OBJKEY_MAX_FORMS];
    size_t n = 0;
    if (p->nforms == 0) {
        for (size_t at = 0; at + OBJKEY_DIGITS <= len; at++)
            if (memcmp(key + at, digits, OBJKEY_DIGITS) == 0) {
                /* More than fit: keep the last ones (ids go last). */
                if (n == OBJKEY_MAX_FORMS)
                    memmove(keep, keep + 1, --n * sizeof *keep);
                keep[n++] = (struct objkey_form){.digits_at = at};
            }
        if (n == 0)
            return -EINVAL;
        memcpy(p->key, key, len);
        p->len = len;
        p->id = id;
        memcpy(p->forms, keep, n * sizeof *keep);
        p->nforms = n;
        return (int)n;
    }
    if (len != p->len)
        return -EINVAL;
    bool widening = !p->compared && id != p->id;
    for (size_t i = 0; i < p->nforms; i++) {
        if (widening)
            widen(p, &p->forms[i], key, id, keep, &n);
        else if (makes(p, &p->forms[i], key, id))
            keep[n++] = p->forms[i];
    }
    if (n == 0)
        return -EINVAL;
    memcpy(p->forms, keep, n * sizeof *keep);
    p->nforms = n;
    p->compared |= widening;
    return (int)n;
}

const struct objkey_form *objkey_form(const struct objkey *p)
{
    /* The last digit place (forms are in the order of their places), and
     * of its forms the last: widen tries the index farthest before the
     * digits first, and big-endian before little. */
    return &p->forms[p->nforms - 1];
}

void objkey_make(const struct objkey *p, uint32_t id, uint8_t *out)
{
    render(p, objkey_form(p), id, out);
}

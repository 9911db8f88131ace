/* CDR encoding and decoding: see cdr.h. */
#include "codec/cdr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool cdr_host_little(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

void cdr_out_init(struct cdr_out *o, bool little)
{
    memset(o, 0, sizeof *o);
    o->little = little;
}

void cdr_out_reset(struct cdr_out *o, bool little)
{
    o->len = 0;
    o->origin = 0;
    o->err = 0;
    o->little = little;
}

void cdr_out_free(struct cdr_out *o)
{
    free(o->data);
    memset(o, 0, sizeof *o);
}

static uint8_t *out_room(struct cdr_out *o, size_t n)
{
    if (o->err)
        return NULL;
    /* CDR lengths are 32-bit: refuse anything near that, and overflow. */
    if (n > UINT32_MAX || o->len + n > UINT32_MAX) {
        o->err = -EMSGSIZE;
        return NULL;
    }
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->len + n)
            cap *= 2;
        uint8_t *p = realloc(o->data, cap);
        if (!p) {
            o->err = -ENOMEM;
            return NULL;
        }
        o->data = p;
        o->cap = cap;
    }
    uint8_t *at = o->data + o->len;
    o->len += n;
    return at;
}

void cdr_align(struct cdr_out *o, size_t n)
{
    size_t off = (o->len - o->origin) % n;
    if (off) {
        uint8_t *p = out_room(o, n - off);
        if (p)
            memset(p, 0, n - off);
    }
}

/* Store an unsigned value of `n` bytes in the buffer's byte order. */
static void store(uint8_t *p, uint64_t v, size_t n, bool little)
{
    for (size_t i = 0; i < n; i++) {
        size_t shift = little ? i : n - 1 - i;
        p[i] = (uint8_t)(v >> (8 * shift));
    }
}

static uint64_t load(const uint8_t *p, size_t n, bool little)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        size_t shift = little ? i : n - 1 - i;
        v |= (uint64_t)p[i] << (8 * shift);
    }
    return v;
}

static void put_uint(struct cdr_out *o, uint64_t v, size_t n)
{
    cdr_align(o, n);
    uint8_t *p = out_room(o, n);
    if (p)
        store(p, v, n, o->little);
}

void cdr_put_octet(struct cdr_out *o, uint8_t v) { put_uint(o, v, 1); }
void cdr_put_bool(struct cdr_out *o, bool v) { put_uint(o, v ? 1 : 0, 1); }
void cdr_put_short(struct cdr_out *o, uint16_t v) { put_uint(o, v, 2); }
void cdr_put_long(struct cdr_out *o, uint32_t v) { put_uint(o, v, 4); }
void cdr_put_longlong(struct cdr_out *o, uint64_t v) { put_uint(o, v, 8); }

void cdr_put_bytes(struct cdr_out *o, const void *p, size_t n)
{
    if (n == 0)
        return;
    uint8_t *at = out_room(o, n);
    if (at && n)
        memcpy(at, p, n);
}

void cdr_put_string(struct cdr_out *o, const char *s, size_t len)
{
    if (len >= UINT32_MAX && !o->err)
        o->err = -EMSGSIZE;
    cdr_put_long(o, (uint32_t)(len + 1));
    cdr_put_bytes(o, s, len);
    cdr_put_octet(o, 0);
}

void cdr_put_octet_seq(struct cdr_out *o, const void *p, size_t n)
{
    if (n > UINT32_MAX && !o->err)
        o->err = -EMSGSIZE;
    cdr_put_long(o, (uint32_t)n);
    cdr_put_bytes(o, p, n);
}

void cdr_patch_long(struct cdr_out *o, size_t at, uint32_t v)
{
    if (!o->err && at + 4 <= o->len)
        store(o->data + at, v, 4, o->little);
}

void cdr_in_init(struct cdr_in *in, const void *data, size_t len, bool little)
{
    in->data = data;
    in->len = len;
    in->pos = 0;
    in->little = little;
    in->err = 0;
}

int cdr_in_encap(struct cdr_in *in, const void *data, size_t len)
{
    cdr_in_init(in, data, len, false);
    if (len < 1 || in->data[0] > 1) {
        in->err = -EBADMSG;
        return in->err;
    }
    in->little = in->data[0] == 1;
    in->pos = 1;
    return 0;
}

size_t cdr_in_left(const struct cdr_in *in)
{
    return in->err ? 0 : in->len - in->pos;
}

/* Claim n bytes at the cursor, or set err and return NULL. */
static const uint8_t *in_take(struct cdr_in *in, size_t n)
{
    if (in->err)
        return NULL;
    if (n > in->len - in->pos) {
        in->err = -EBADMSG;
        return NULL;
    }
    const uint8_t *p = in->data + in->pos;
    in->pos += n;
    return p;
}

void cdr_in_align(struct cdr_in *in, size_t n)
{
    size_t off = in->pos % n;
    if (off)
        in_take(in, n - off);
}

static uint64_t get_uint(struct cdr_in *in, size_t n)
{
    cdr_in_align(in, n);
    const uint8_t *p = in_take(in, n);
    return p ? load(p, n, in->little) : 0;
}

uint8_t cdr_get_octet(struct cdr_in *in) { return (uint8_t)get_uint(in, 1); }
uint16_t cdr_get_short(struct cdr_in *in) { return (uint16_t)get_uint(in, 2); }
uint32_t cdr_get_long(struct cdr_in *in) { return (uint32_t)get_uint(in, 4); }
uint64_t cdr_get_longlong(struct cdr_in *in) { return get_uint(in, 8); }

int cdr_get_string(struct cdr_in *in, const char **s, size_t *len)
{
    uint32_t n = cdr_get_long(in);
    if (!in->err && n == 0)
        in->err = -EBADMSG;
    const uint8_t *p = in_take(in, n);
    if (p && p[n - 1] != 0)
        in->err = -EBADMSG;
    if (in->err)
        return in->err;
    *s = (const char *)p;
    *len = n - 1;
    return 0;
}

int cdr_get_octet_seq(struct cdr_in *in, const uint8_t **p, size_t *n)
{
    uint32_t count = cdr_get_long(in);
    const uint8_t *at = in_take(in, count);
    if (in->err)
        return in->err;
    *p = at;
    *n = count;
    return 0;
}

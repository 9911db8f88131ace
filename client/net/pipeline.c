/* Several requests in flight on one connection: see pipeline.h. */
#include "net/pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

int pipeline_init(struct pipeline *p, struct conn *c, size_t depth)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    p->depth = depth;
    p->slots = calloc(depth, sizeof *p->slots);
    p->expect = malloc(c->payload_bytes + 1);
    cdr_out_init(&p->typed, cdr_host_little());
    if (!p->slots || !p->expect) {
        pipeline_free(p);
        return -ENOMEM;
    }
    return 0;
}

void pipeline_free(struct pipeline *p)
{
    free(p->slots);
    free(p->expect);
    cdr_out_free(&p->typed);
    p->slots = NULL;
    p->expect = NULL;
}

bool pipeline_writing(const struct pipeline *p)
{
    return p->c->tx_done < p->c->tx.len;
}

/* Before queueing: a buffer written whole starts again from empty. */
static void room(struct pipeline *p)
{
    struct conn *c = p->c;
    if (c->tx_done == c->tx.len) {
        cdr_out_reset(&c->tx, cdr_host_little());
        c->tx_done = 0;
    }
}

static int encode_failed(struct pipeline *p, int e)
{
    return conn_failed(p->c, e, "cannot encode a request: %s",
                       strerror(-e));
}

/* The typed call, encoded once with id `id` and copied to the end of
 * the transmit buffer. */
static int queue_typed(struct pipeline *p, uint32_t id)
{
    struct conn *c = p->c;
    if (!p->typed_ready) {
        cdr_out_reset(&p->typed, cdr_host_little());
        int e = c->wire->encode_typed(&p->typed, &c->target, id, c->ptype,
                                      c->index, &p->value_at);
        if (e)
            return e;
        p->typed_ready = true;
    }
    c->wire->set_id(&p->typed, id);
    cdr_put_bytes(&c->tx, p->typed.data, p->typed.len);
    return c->tx.err;
}

int pipeline_call(struct pipeline *p, int64_t due_ns, uint32_t tag)
{
    struct conn *c = p->c;
    if (p->in_flight == p->depth)
        return -ENOBUFS;
    /* Slot id % depth when free, as it is when replies come in order:
     * then taking a reply finds it at once (slot_of). */
    uint32_t id = c->next_id;
    struct pipeline_slot *sl = &p->slots[id % p->depth];
    for (size_t k = 0; k < p->depth && sl->used; k++)
        sl = &p->slots[k];
    room(p);
    c->next_id++;
    int e;
    if (c->ptype) {
        e = queue_typed(p, id);
    } else {
        conn_payload_for(c, id, c->payload);
        e = c->wire->encode_call(&c->tx, &c->target, id, c->payload,
                                 c->payload_bytes);
    }
    if (e)
        return encode_failed(p, e);
    *sl = (struct pipeline_slot){.id = id, .used = true, .sent_ns = now_ns(),
                                 .due_ns = due_ns, .tag = tag};
    p->in_flight++;
    p->sent++;
    return 0;
}

int pipeline_oneway(struct pipeline *p)
{
    struct conn *c = p->c;
    room(p);
    uint32_t id = c->next_id++;
    conn_payload_for(c, id, c->payload);
    int e = c->wire->encode_oneway(&c->tx, &c->target, id, c->payload,
                                   c->payload_bytes);
    if (e)
        return encode_failed(p, e);
    p->sent++;
    return 0;
}

int pipeline_count(struct pipeline *p, uint32_t *id)
{
    struct conn *c = p->c;
    room(p);
    *id = c->next_id++;
    int e = c->wire->encode_count(&c->tx, &c->target, *id);
    return e ? encode_failed(p, e) : 0;
}

int pipeline_write_some(struct pipeline *p)
{
    struct conn *c = p->c;
    int moved = 0;
    while (c->tx_done < c->tx.len) {
        ssize_t n = c->tp->send(&c->fds, c->tx.data + c->tx_done,
                                c->tx.len - c->tx_done);
        if (n == -EAGAIN)
            return moved;
        if (n < 0)
            return conn_failed(c, (int)n, "send: %s", strerror((int)-n));
        c->tx_done += (size_t)n;
        moved = 1;
    }
    return moved;
}

/* The slot of the request reply rp answers, or NULL. */
static struct pipeline_slot *slot_of(struct pipeline *p, uint32_t id)
{
    struct pipeline_slot *sl = &p->slots[id % p->depth];
    if (sl->used && sl->id == id)
        return sl;
    for (size_t k = 0; k < p->depth && p->in_flight; k++)
        if (p->slots[k].used && p->slots[k].id == id)
            return &p->slots[k];
    return NULL;
}

/* Does the reply echo what request sl sent? 0 or -EBADMSG. */
static int check_echo(struct pipeline *p, const struct wire_reply *rp)
{
    struct conn *c = p->c;
    if (c->ptype)
        return conn_check_typed(c, rp, p->typed.data + p->value_at,
                                p->typed.len - p->value_at,
                                p->typed.little);
    conn_payload_for(c, rp->id, p->expect);
    if (rp->payload_len != c->payload_bytes ||
        memcmp(rp->payload, p->expect, rp->payload_len) != 0)
        return conn_failed(c, -EBADMSG, "echo of request %u differs from "
                           "what was sent (sent %zu bytes, got %zu)", rp->id,
                           c->payload_bytes, rp->payload_len);
    return 0;
}

/* One whole reply: its request's, or the caller's own. */
static int take(struct pipeline *p, const struct wire_reply *rp,
                pipeline_reply_fn fn, void *arg)
{
    int64_t at = now_ns();
    struct pipeline_slot *sl = slot_of(p, rp->id);
    if (!sl) {
        int e = fn(arg, p, rp, NULL, at);
        if (e == -ENOENT)
            return conn_failed(p->c, -EBADMSG, "reply has request id %u, "
                               "which no request in flight has", rp->id);
        return e;
    }
    int e = check_echo(p, rp);
    if (e)
        return e;
    struct pipeline_slot done = *sl;
    sl->used = false;
    p->in_flight--;
    p->done++;
    return fn(arg, p, rp, &done, at);
}

int pipeline_read_some(struct pipeline *p, pipeline_reply_fn fn, void *arg)
{
    struct conn *c = p->c;
    int got = 0;
    /* Bounded: each pass reads bytes or returns; the wire's size limit
     * bounds a reply, and the socket buffer what one read returns. */
    for (int pass = 0; pass < 64; pass++) {
        size_t want = 0;
        struct wire_reply rp;
        char why[CONN_WHY_BYTES];
        int rc = c->wire->feed(&c->rx, &want, &rp, why, sizeof why);
        if (rc == WIRE_REPLY) {
            int e = take(p, &rp, fn, arg);
            if (e)
                return e;
            /* Replies follow each other in the buffer: drop this one. */
            memmove(c->rx.buf, c->rx.buf + rp.bytes, c->rx.len - rp.bytes);
            c->rx.len -= rp.bytes;
            c->rx.parsed = 0;
            got = 1;
            pass = 0;
            continue;
        }
        if (rc == WIRE_CLOSED)
            return conn_failed(c, -ECONNRESET, "the server closed the "
                               "connection (CloseConnection) during the "
                               "run");
        if (rc < 0)
            return conn_failed(c, rc, "%s", why);
        if (want < c->rx.len + 4096)
            want = c->rx.len + 4096;
        if (want > c->rx.cap) {
            uint8_t *b = realloc(c->rx.buf, want);
            if (!b)
                return conn_failed(c, -ENOMEM, "out of memory");
            c->rx.buf = b;
            c->rx.cap = want;
        }
        ssize_t n = c->tp->recv(&c->fds, c->rx.buf + c->rx.len,
                                c->rx.cap - c->rx.len);
        if (n == -EAGAIN)
            return got;
        if (n < 0)
            return conn_failed(c, (int)n, "recv: %s", strerror((int)-n));
        if (n == 0)
            return conn_failed(c, -ECONNRESET, "connection closed by the "
                               "server");
        c->rx.len += (size_t)n;
    }
    return got;
}

int64_t pipeline_deadline(const struct pipeline *p, int64_t timeout_ns)
{
    int64_t t = INT64_MAX;
    for (size_t k = 0; k < p->depth && p->in_flight; k++)
        if (p->slots[k].used && p->slots[k].sent_ns + timeout_ns < t)
            t = p->slots[k].sent_ns + timeout_ns;
    return t;
}

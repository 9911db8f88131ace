/* giop-min: GIOP 1.2 with no ORB behind it (the "small object invocation
 * scheme"), on the client's own codec (cdr, giop, ior). One thread, one
 * epoll loop, any number of connections: each Request is read whole,
 * dispatched on object key and operation name in this thread, and
 * answered (oneway Requests are not). One object, Bench::Echo, whose
 * echoString returns its argument; sendOneway (oneway) is counted and
 * onewayCount returns the count as decimal text, as the omniORB server's;
 * any other echo<Name> operation (the typed payloads) returns its
 * argument's bytes as they came.
 * makeObjects (kind objects) makes no object: it counts them. Object i's
 * key is "orbbench-giop-min-" and i's 8 digits, and a call to such a key
 * is served when i is below the count, found by reading the number: the
 * floor of the kind, an object that costs nothing to make, hold or find.
 *   --endpoint tcp:127.0.0.1:PORT | unix:PATH
 * prints the object's IOR on stdout when ready; `--version` prints
 * "giop-min VERSION". */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../common/listen.h"
#include "codec/cdr.h"
#include "codec/giop.h"
#include "codec/ior.h"
#include "codec/payload.h"

/* The one object's key; the objects of makeObjects have the prefix
 * before "echo" and 8 digits; any other key is OBJECT_NOT_EXIST. */
static const uint8_t echo_key[] = "orbbench-giop-min-echo";
#define ECHO_KEY_LEN (sizeof echo_key - 1)
#define OBJECT_PREFIX_LEN (ECHO_KEY_LEN - 4)
#define OBJECT_DIGITS 8
#define MAX_OBJECTS 99999999u
#define MAX_OBJECTS_PER_CALL (1u << 20)

/* The server's object (its IOR), whose key makeObjects' references
 * replace. */
static struct ior self_ior;

/* Objects "made" by makeObjects so far; 0: none asked for. */
static uint32_t objects_made;
static bool objects_shared;

/* Is key (len bytes) one of the objects made? */
static bool is_object(const uint8_t *key, size_t len)
{
    if (len != OBJECT_PREFIX_LEN + OBJECT_DIGITS ||
        memcmp(key, echo_key, OBJECT_PREFIX_LEN) != 0)
        return false;
    uint32_t id = 0;
    for (size_t i = OBJECT_PREFIX_LEN; i < len; i++) {
        if (key[i] < '0' || key[i] > '9')
            return false;
        id = id * 10 + (uint32_t)(key[i] - '0');
    }
    return id < objects_made;
}
#define OMG_MINOR(n) (0x4f4d0000u | (n)) /* the OMG's minor code space */

struct gconn {
    int fd;
    uint8_t *buf; /* received, not yet handled */
    size_t len, cap;
    struct cdr_out out; /* replies not yet written */
    size_t out_done;
    bool closing; /* after a MessageError: close once it is out */
};

static int epfd;

#define die(what) server_die("giop-min-server", what)

static void conn_end(struct gconn *c)
{
    close(c->fd); /* also leaves the epoll set */
    free(c->buf);
    cdr_out_free(&c->out);
    free(c);
}

static void send_message_error(struct gconn *c)
{
    static const uint8_t msg[12] = {'G', 'I', 'O', 'P', 1, 2, 1,
                                    GIOP_MESSAGE_ERROR, 0, 0, 0, 0};
    cdr_put_bytes(&c->out, msg, sizeof msg);
    c->closing = true;
}

static void system_exception(struct gconn *c, uint32_t id, const char *name,
                             uint32_t minor)
{
    char repo[96];
    snprintf(repo, sizeof repo, "IDL:omg.org/CORBA/%s:1.0", name);
    giop_encode_system_exception(&c->out, id, repo, minor, 1 /* NO */);
}

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Object id's reference at o's position. */
static void put_object(struct cdr_out *o, uint32_t id)
{
    static struct ior ref; /* 2 KiB: not on the stack */
    ref = self_ior;
    memcpy(ref.key, echo_key, OBJECT_PREFIX_LEN);
    snprintf((char *)ref.key + OBJECT_PREFIX_LEN, OBJECT_DIGITS + 1, "%08u",
             id);
    ref.key_len = OBJECT_PREFIX_LEN + OBJECT_DIGITS;
    ior_put(o, &ref);
}

/* makeObjects(count, defaultServant): count more objects, whichever
 * servants: a number. Its reply, or an exception, appended. */
static void make_objects(struct gconn *c, const struct giop_request *rq,
                         const uint8_t *msg, size_t len)
{
    static const char policies[] = "none: a key names a number below the "
                                   "count made";
    struct cdr_in in;
    cdr_in_init(&in, msg, len, rq->little);
    in.pos = rq->body_at;
    uint32_t count = cdr_get_long(&in);
    bool shared = cdr_get_octet(&in) != 0;
    if (in.err)
        return system_exception(c, rq->request_id, "MARSHAL", 0);
    if (count == 0 || count > MAX_OBJECTS_PER_CALL ||
        count > MAX_OBJECTS - objects_made)
        return system_exception(c, rq->request_id, "BAD_PARAM", 0);
    if (objects_made && shared != objects_shared)
        return system_exception(c, rq->request_id, "BAD_INV_ORDER", 0);
    uint64_t t0 = monotonic_ns();
    uint32_t first = objects_made;
    objects_made += count;
    objects_shared = shared;
    uint64_t ns = monotonic_ns() - t0;
    struct cdr_out body;
    cdr_out_init(&body, c->out.little);
    cdr_put_longlong(&body, ns);
    put_object(&body, first);
    put_object(&body, first + count - 1);
    cdr_put_string(&body, policies, sizeof policies - 1);
    if (body.err)
        system_exception(c, rq->request_id, "NO_MEMORY", 0);
    else
        giop_encode_reply_body(&c->out, rq->request_id, body.data, body.len);
    cdr_out_free(&body);
}

/* sendOneway calls received, on every connection. */
static unsigned long long oneways;

static bool op_is(const struct giop_request *rq, const char *name)
{
    size_t n = strlen(name);
    return rq->operation_len == n && memcmp(rq->operation, name, n) == 0;
}

/* A typed payload's echo<Name> (idl/payloads.idl, client/codec/payload.c)?
 * Each returns its argument: the argument's bytes are the result as they
 * are (a 1.2 body starts 8-aligned in Request and Reply alike), in the
 * request's byte order, whatever the type. */
static bool is_payload_echo(const struct giop_request *rq)
{
    for (size_t i = 0; i < payload_count(); i++)
        if (op_is(rq, payload_operation(payload_at(i))))
            return true;
    return false;
}

/* A GIOP 1.2 LocateRequest (request id, a KeyAddr TargetAddress): an
 * ORB's client sends one before its first call on a reference whose
 * type it has not checked (omniORB's, after _unchecked_narrow: the
 * callers of docs/callers.md). Answered with a LocateReply, OBJECT_HERE
 * for our key and UNKNOWN_OBJECT for another; false for a malformed one
 * (a MessageError then). */
static bool locate(struct gconn *c, const uint8_t *msg, size_t len)
{
    struct giop_header h;
    struct cdr_in in;
    const uint8_t *key;
    size_t key_len;
    if (giop_header_parse(msg, len, &h) != 0 || h.minor != 2)
        return false;
    cdr_in_init(&in, msg, len, h.little);
    in.pos = GIOP_HEADER_BYTES;
    uint32_t id = cdr_get_long(&in);
    uint16_t disposition = cdr_get_short(&in);
    if (in.err || disposition != 0 ||
        cdr_get_octet_seq(&in, &key, &key_len) != 0)
        return false;
    bool here = key_len == ECHO_KEY_LEN &&
                memcmp(key, echo_key, ECHO_KEY_LEN) == 0;
    c->out.origin = c->out.len;
    cdr_put_bytes(&c->out, "GIOP", 4);
    cdr_put_octet(&c->out, 1);
    cdr_put_octet(&c->out, 2);
    cdr_put_octet(&c->out, c->out.little ? 1 : 0);
    cdr_put_octet(&c->out, GIOP_LOCATE_REPLY);
    size_t size_at = c->out.len;
    cdr_put_long(&c->out, 0);
    cdr_put_long(&c->out, id);
    cdr_put_long(&c->out, here ? 1 : 0); /* OBJECT_HERE, UNKNOWN_OBJECT */
    giop_message_end(&c->out, size_at);
    return true;
}

/* One whole message at msg: dispatch it, append what answers it. */
static void handle(struct gconn *c, const uint8_t *msg, size_t len)
{
    struct giop_request rq;
    uint8_t type;
    int rc = giop_decode_request(msg, len, &rq, &type);
    if (rc == -ENOMSG && type == GIOP_CLOSE_CONNECTION) {
        c->closing = true;
        return;
    }
    if (rc == -ENOMSG && type == GIOP_LOCATE_REQUEST) {
        if (!locate(c, msg, len))
            send_message_error(c);
        return;
    }
    if (rc) {
        send_message_error(c);
        return;
    }
    const char *arg = NULL;
    size_t arg_len = 0;
    bool ours = (rq.key_len == ECHO_KEY_LEN &&
                 memcmp(rq.key, echo_key, ECHO_KEY_LEN) == 0) ||
                is_object(rq.key, rq.key_len);
    bool is_echo = op_is(&rq, "echoString");
    bool is_oneway = op_is(&rq, "sendOneway");
    bool is_count = op_is(&rq, "onewayCount");
    bool is_typed = !is_echo && is_payload_echo(&rq);
    if (is_echo || is_oneway) {
        struct cdr_in in;
        cdr_in_init(&in, msg, len, rq.little);
        in.pos = rq.body_at;
        rc = cdr_get_string(&in, &arg, &arg_len);
    }
    /* Bench::Echo's oneway sendOneway is counted (the upcall rate reads
     * the count back with onewayCount); a oneway Request gets no answer. */
    if (ours && is_oneway && rc == 0)
        oneways++;
    if (!rq.response_expected)
        return;
    if (!ours) {
        system_exception(c, rq.request_id, "OBJECT_NOT_EXIST", OMG_MINOR(2));
    } else if (is_typed) {
        bool little = c->out.little;
        c->out.little = rq.little;
        giop_encode_reply_body(&c->out, rq.request_id, msg + rq.body_at,
                               len - rq.body_at);
        c->out.little = little;
    } else if (op_is(&rq, "makeObjects")) {
        make_objects(c, &rq, msg, len);
    } else if (is_count) {
        char buf[24];
        int n = snprintf(buf, sizeof buf, "%llu", oneways);
        giop_encode_reply(&c->out, rq.request_id, buf, (size_t)n);
    } else if (!is_echo) {
        system_exception(c, rq.request_id, "BAD_OPERATION", OMG_MINOR(2));
    } else if (rc) {
        system_exception(c, rq.request_id, "MARSHAL", 0);
    } else {
        giop_encode_reply(&c->out, rq.request_id, arg, arg_len);
    }
}

/* Write pending replies: 1 all out, 0 would block, -1 broken. */
static int flush(struct gconn *c)
{
    while (c->out_done < c->out.len) {
        ssize_t n = write(c->fd, c->out.data + c->out_done,
                          c->out.len - c->out_done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN ? 0 : -1;
        c->out_done += (size_t)n;
    }
    cdr_out_reset(&c->out, true);
    c->out_done = 0;
    return c->out.err ? -1 : 1;
}

static void watch(struct gconn *c, bool out)
{
    struct epoll_event ev = {.events = out ? EPOLLOUT : EPOLLIN,
                             .data.ptr = c};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Handle every whole message in buf; keep the rest. -1: close. */
static int handle_all(struct gconn *c)
{
    size_t at = 0;
    while (!c->closing && c->len - at >= GIOP_HEADER_BYTES) {
        struct giop_header h;
        if (giop_header_parse(c->buf + at, c->len - at, &h) != 0) {
            send_message_error(c); /* not GIOP 1.x, or over the limit */
            break;
        }
        size_t total = GIOP_HEADER_BYTES + (size_t)h.body_bytes;
        if (c->len - at < total)
            break;
        handle(c, c->buf + at, total);
        at += total;
    }
    memmove(c->buf, c->buf + at, c->len - at);
    c->len -= at;
    return 0;
}

static void serve(struct gconn *c)
{
    if (c->out_done < c->out.len) {
        int rc = flush(c);
        if (rc < 0 || (rc == 1 && c->closing))
            return conn_end(c);
        if (rc == 0)
            return;
        watch(c, false);
    }
    /* Bounded: the rest waits for the next epoll round. */
    for (int spins = 0; spins < 64; spins++) {
        ssize_t n = server_read(c->fd, &c->buf, &c->len, &c->cap,
                                2 * ((size_t)GIOP_MAX_MESSAGE_BYTES + 64));
        if (n == 0)
            return;
        if (n < 0)
            return conn_end(c);
        handle_all(c);
        if (c->out.len == 0 && !c->closing)
            continue;
        int rc = flush(c);
        if (rc < 0 || (rc == 1 && c->closing))
            return conn_end(c);
        if (rc == 0)
            return watch(c, true);
    }
}

static void conn_new(int fd)
{
    struct gconn *c = calloc(1, sizeof *c);
    if (!c || !(c->buf = malloc(8192)))
        die("out of memory");
    c->cap = 8192;
    c->fd = fd;
    cdr_out_init(&c->out, true);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        die("epoll_ctl");
}

/* Listen on the endpoint; fill the IOR's address. */
static int open_endpoint(const char *ep, struct ior *ior)
{
    struct listen_addr a;
    int fd = server_listen("giop-min-server", ep, epfd, &a);
    if (a.is_unix) {
        /* As omniORB does: an IIOP profile (unused here) and the Unix
         * component the client's unix transport connects to, naming this
         * machine as omniORB's own client wants it (gethostname: it takes
         * the socket for a local one only then; orbbench's ignores it). */
        strcpy(ior->host, "127.0.0.1");
        ior->has_unix = true;
        if (gethostname(ior->unix_host, sizeof ior->unix_host) != 0 ||
            !ior->unix_host[0])
            strcpy(ior->unix_host, "localhost");
        ior->unix_host[sizeof ior->unix_host - 1] = 0;
        strcpy(ior->unix_path, a.path);
    } else {
        strcpy(ior->host, a.host);
        ior->port = a.port;
    }
    return fd;
}

/* server_loop's handler for an event on a connection. */
static void serve_event(void *conn)
{
    serve((struct gconn *)conn);
}

int main(int argc, char **argv)
{
    const char *ep = server_args(argc, argv, "giop-min", "giop-min-server",
                                 "tcp:127.0.0.1:PORT|unix:PATH");
    if (server_tie_to_parent() != 0)
        return 3;
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0)
        die("epoll_create1");
    struct ior *ior = &self_ior;
    strcpy(ior->type_id, "IDL:Bench/Echo:1.0");
    memcpy(ior->key, echo_key, ECHO_KEY_LEN);
    ior->key_len = ECHO_KEY_LEN;
    int lfd = open_endpoint(ep, ior);
    char *s;
    if (ior_format(ior, &s) != 0)
        die("ior_format");
    printf("%s\n", s);
    fflush(stdout);
    free(s);
    server_loop("giop-min-server", epfd, lfd, conn_new, serve_event);
}

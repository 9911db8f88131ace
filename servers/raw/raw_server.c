/* The raw echo server: the floor under every ORB. One thread, one epoll
 * loop, no ORB: each message (4-byte little-endian length L, a 4-byte
 * request id, L-4 payload bytes) is sent back as it came, which is the
 * reply in the same framing. Serves the endpoint it is given:
 *   --endpoint tcp:127.0.0.1:PORT   listen (PORT 0: any), any connections
 *   --endpoint unix:PATH            listen on a Unix socket
 *   --endpoint pipe:RFD,WFD         the one pipe pair the spawner gave it
 * prints "RAW tcp HOST PORT", "RAW unix PATH" or "RAW pipe" on stdout when
 * ready, and `--version` prints "raw VERSION". `--stall-ms N
 * --stall-every-ms M` (after the endpoint; server.args) makes it stall: M
 * ms after it starts, and every M ms from then on, the next event it
 * serves first sleeps N ms, every connection waiting, as a pause of the
 * whole process would (kind load's test of a server's tail). */
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
#include "net/wire.h"

/* The client's limit (wire.h): a larger length is a broken peer. */
#define RAW_MAX_MESSAGE_BYTES WIRE_RAW_MAX_MESSAGE_BYTES

struct rconn {
    int rfd, wfd;
    uint8_t *buf;
    size_t len, cap;
    size_t out_off, out_len; /* frames at buf's start being echoed */
};

static int epfd;
static bool is_pipe;
/* --stall-ms, --stall-every-ms: none when 0 */
static long long stall_ns, stall_every_ns, next_stall_ns;

#define die(what) server_die("raw-server", what)

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void conn_end(struct rconn *c)
{
    /* The pipe pair is the server's only reason to live. */
    if (is_pipe)
        exit(0);
    close(c->rfd); /* also leaves the epoll set */
    free(c->buf);
    free(c);
}

/* Write what is pending; 1 all out, 0 would block, -1 broken. */
static int flush(struct rconn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = write(c->wfd, c->buf + c->out_off,
                          c->out_len - c->out_off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN ? 0 : -1;
        c->out_off += (size_t)n;
    }
    memmove(c->buf, c->buf + c->out_len, c->len - c->out_len);
    c->len -= c->out_len;
    c->out_off = c->out_len = 0;
    return 1;
}

/* The whole frames at the start of buf: -1 for a bad length. */
static long whole_frames(const struct rconn *c)
{
    size_t at = 0;
    while (c->len - at >= 4) {
        uint32_t l = le32(c->buf + at);
        if (l < 4 || l > RAW_MAX_MESSAGE_BYTES)
            return -1;
        if (c->len - at < 4 + (size_t)l)
            break;
        at += 4 + (size_t)l;
    }
    return (long)at;
}

/* Watch the write side (an echo is blocked) or the read side. */
static void watch(struct rconn *c, bool out)
{
    struct epoll_event ev = {.events = out ? EPOLLOUT : EPOLLIN,
                             .data.ptr = c};
    if (c->wfd == c->rfd) {
        epoll_ctl(epfd, EPOLL_CTL_MOD, c->rfd, &ev);
        return;
    }
    epoll_ctl(epfd, EPOLL_CTL_DEL, out ? c->rfd : c->wfd, NULL);
    epoll_ctl(epfd, EPOLL_CTL_ADD, out ? c->wfd : c->rfd, &ev);
}

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Sleep stall_ns when a stall is due: the whole loop waits. */
static void stall_if_due(void)
{
    if (!stall_ns || mono_ns() < next_stall_ns)
        return;
    struct timespec ts = {stall_ns / 1000000000LL, stall_ns % 1000000000LL};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    next_stall_ns += stall_every_ns;
    if (next_stall_ns <= mono_ns())
        next_stall_ns = mono_ns() + stall_every_ns;
}

/* Read, echo whole frames; stop reading while an echo is blocked (the
 * client reads its reply before it sends again). */
static void serve(struct rconn *c)
{
    stall_if_due();
    if (c->out_len) {
        int rc = flush(c);
        if (rc < 0)
            return conn_end(c);
        if (rc == 0)
            return;
        watch(c, false);
    }
    /* Bounded: the rest waits for the next epoll round. */
    for (int spins = 0; spins < 64; spins++) {
        ssize_t n = server_read(c->rfd, &c->buf, &c->len, &c->cap,
                                2 * (RAW_MAX_MESSAGE_BYTES + 4));
        if (n == 0)
            return;
        if (n < 0)
            return conn_end(c);
        long whole = whole_frames(c);
        if (whole < 0) {
            fprintf(stderr, "raw-server: bad frame length, closing\n");
            return conn_end(c);
        }
        if (whole == 0)
            continue;
        c->out_len = (size_t)whole;
        int rc = flush(c);
        if (rc < 0)
            return conn_end(c);
        if (rc == 0)
            return watch(c, true);
    }
}

static struct rconn *conn_new(int rfd, int wfd)
{
    struct rconn *c = calloc(1, sizeof *c);
    if (!c || !(c->buf = malloc(8192)))
        die("out of memory");
    c->cap = 8192;
    c->rfd = rfd;
    c->wfd = wfd;
    fcntl(rfd, F_SETFL, O_NONBLOCK);
    fcntl(wfd, F_SETFL, O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, rfd, &ev) != 0)
        die("epoll_ctl");
    return c;
}

/* Parse "tcp:HOST:PORT", "unix:PATH" or "pipe:R,W"; return the listening
 * socket (-1 for a pipe) and print the ready line. */
static int open_endpoint(const char *ep)
{
    if (strncmp(ep, "pipe:", 5) == 0) {
        int r, w;
        char end;
        if (sscanf(ep + 5, "%d,%d%c", &r, &w, &end) != 2 || r < 3 || w < 3 ||
            fcntl(r, F_GETFD) < 0 || fcntl(w, F_GETFD) < 0) {
            fprintf(stderr, "raw-server: --endpoint %s: not two inherited "
                    "descriptors\n", ep);
            exit(2);
        }
        is_pipe = true;
        conn_new(r, w);
        printf("RAW pipe\n");
        return -1;
    }
    struct listen_addr a;
    int fd = server_listen("raw-server", ep, epfd, &a);
    if (a.is_unix)
        printf("RAW unix %s\n", a.path);
    else
        printf("RAW tcp %s %u\n", a.host, (unsigned)a.port);
    return fd;
}

static void accept_one(int fd)
{
    conn_new(fd, fd);
}

/* server_loop's handler for an event on a connection. */
static void serve_event(void *conn)
{
    serve((struct rconn *)conn);
}

/* Take --stall-ms N and --stall-every-ms M out of argv (both, each a
 * positive count of ms, or exit 2); the rest is server_args'. */
static int stall_args(int argc, char **argv)
{
    int out = 1;
    long long ms[2] = {0, 0};
    for (int i = 1; i < argc; i++) {
        int k = strcmp(argv[i], "--stall-ms") == 0         ? 0
                : strcmp(argv[i], "--stall-every-ms") == 0 ? 1
                                                           : -1;
        if (k < 0) {
            argv[out++] = argv[i];
            continue;
        }
        char *end;
        ms[k] = i + 1 < argc ? strtoll(argv[i + 1], &end, 10) : 0;
        if (i + 1 >= argc || *end || ms[k] <= 0 || ms[k] > 3600000) {
            fprintf(stderr, "raw-server: %s takes a count of ms, 1 to "
                    "3600000\n", argv[i]);
            exit(2);
        }
        i++;
    }
    if (!ms[0] != !ms[1]) {
        fprintf(stderr, "raw-server: --stall-ms and --stall-every-ms go "
                "together\n");
        exit(2);
    }
    stall_ns = ms[0] * 1000000LL;
    stall_every_ns = ms[1] * 1000000LL;
    next_stall_ns = mono_ns() + stall_every_ns;
    argv[out] = NULL;
    return out;
}

int main(int argc, char **argv)
{
    argc = stall_args(argc, argv);
    const char *ep = server_args(argc, argv, "raw", "raw-server",
                                 "tcp:127.0.0.1:PORT|unix:PATH|pipe:RFD,WFD");
    if (server_tie_to_parent() != 0)
        return 3;
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0)
        die("epoll_create1");
    int lfd = open_endpoint(ep);
    fflush(stdout);
    server_loop("raw-server", epfd, lfd, accept_one, serve_event);
}

/* Shared by the ORB-less servers (raw, giop-min): listening on the
 * scenario's loopback endpoint, accepting, and dying with the spawner. */
#ifndef ORBBENCH_SERVER_LISTEN_H
#define ORBBENCH_SERVER_LISTEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Where a server listens. */
struct listen_addr {
    bool is_unix;
    char host[64];  /* tcp: the loopback address given */
    uint16_t port;  /* tcp: the port bound (the kernel's pick for 0) */
    char path[108]; /* unix: the socket's path */
};

/* Listen on "tcp:HOST:PORT" (IPv4 loopback only) or "unix:PATH": a
 * non-blocking, close-on-exec listening socket, added to epfd with
 * data.ptr NULL; *addr says where. A bad endpoint is one line on stderr
 * naming `prog` and it, and exit 2; a failing system call, exit 1. */
int server_listen(const char *prog, const char *ep, int epfd,
                  struct listen_addr *addr);

/* Accept what is pending on lfd (at most 64 at a time: epoll says when
 * there are more): on_conn(fd) for each, non-blocking, close-on-exec,
 * TCP_NODELAY where it applies. */
void server_accept_all(int lfd, void (*on_conn)(int fd));

/* One line "prog: what: strerror(errno)" on stderr, exit 1. */
void server_die(const char *prog, const char *what)
    __attribute__((noreturn));

/* The command line every ORB-less server takes: `--version` prints
 * "name VERSION" and exits 0; `--endpoint EP` returns EP; anything else
 * prints "usage: prog --endpoint ENDPOINTS | --version" and exits 2. */
const char *server_args(int argc, char **argv, const char *name,
                        const char *prog, const char *endpoints);

/* Serve forever: epoll_wait on epfd; an event with data.ptr NULL is the
 * listening socket lfd (server_accept_all with on_conn), any other is a
 * connection, handed to serve(ptr). */
void server_loop(const char *prog, int epfd, int lfd,
                 void (*on_conn)(int fd), void (*serve)(void *conn))
    __attribute__((noreturn));

/* Read what fd has after buf[0..*len), growing buf by doubling while
 * less than 4 KiB is free (never past max_cap): > 0 bytes read, 0 when
 * nothing is there now (EAGAIN), -1 at end of stream, on an error, or
 * when the buffer would pass max_cap (the caller ends the connection). */
ssize_t server_read(int fd, uint8_t **buf, size_t *len, size_t *cap,
                    size_t max_cap);

/* Die with the parent (PR_SET_PDEATHSIG: nothing outlives the benchmark),
 * end on SIGTERM, and take a closed peer as EPIPE, not a death. 0, or -1
 * when the parent is already gone. */
int server_tie_to_parent(void);

#endif

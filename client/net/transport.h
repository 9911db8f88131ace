/* Transports: how the client's bytes reach a server. One ops table per
 * transport (transport_tcp.c, transport_unix.c, transport_pipe.c), looked
 * up by name. */
#ifndef ORBBENCH_TRANSPORT_H
#define ORBBENCH_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TARGET_MAX_HOST 256
#define TARGET_MAX_PATH 108
#define TARGET_MAX_KEY 1024

/* Where and what to call on one server, from its ready line. */
struct target {
    char host[TARGET_MAX_HOST]; /* tcp */
    uint16_t port;              /* tcp */
    char unix_path[TARGET_MAX_PATH];
    uint8_t key[TARGET_MAX_KEY]; /* the wire's object address */
    size_t key_len;
    /* Descriptors the spawner handed over with the spawn result (the
     * pipe transport's pair), or -1. conn_open takes them: a target's
     * descriptors are used once. */
    int rfd;
    int wfd;
    /* tcp: an address outside loopback may be connected to (servers
     * orbbench did not start, allowed by client.allow_hosts). */
    bool remote_ok;
};

/* A connection's descriptors: equal for sockets, two for a pipe pair. */
struct conn_fds {
    int rfd;
    int wfd;
};

struct transport_ops {
    const char *name;
    /* The spawner makes each server's descriptors (a pipe pair) and hands
     * the client's ends over in the target (t->rfd, t->wfd). */
    bool spawner_pipes;
    /* Descriptors one connection holds (the client's RLIMIT_NOFILE need) */
    unsigned fds_per_conn;
    /* Connect, waiting at most timeout_ms, and return non-blocking,
     * close-on-exec fds. 0 or -errno (-ETIMEDOUT; -EINTR when a signal
     * came: the user pressed Ctrl-C); `why` gets a one-line reason on
     * failure. */
    int (*connect)(const struct target *t, struct conn_fds *fds,
                   int64_t timeout_ms, char *why, size_t why_len);
    /* As write(2)/read(2): bytes moved, or -errno (-EAGAIN when it would
     * block). recv returns 0 at end of stream. */
    ssize_t (*send)(const struct conn_fds *fds, const void *buf, size_t len);
    ssize_t (*recv)(const struct conn_fds *fds, void *buf, size_t len);
    void (*close)(struct conn_fds *fds);
};

extern const struct transport_ops transport_tcp;
extern const struct transport_ops transport_unix;
extern const struct transport_ops transport_pipe;

/* The transport called `name`, or NULL. */
const struct transport_ops *transport_lookup(const char *name);

/* Shared by fd-based transports. */
struct sockaddr;
/* Connect the non-blocking socket fd to sa within timeout_ms: 0 or -errno
 * (-ETIMEDOUT, -EINTR on a signal; a full unix listen queue is retried
 * until the deadline). */
int transport_fd_connect(int fd, const struct sockaddr *sa,
                         unsigned sa_len, int64_t timeout_ms);
ssize_t transport_fd_send(const struct conn_fds *fds, const void *buf,
                          size_t len);
ssize_t transport_fd_recv(const struct conn_fds *fds, void *buf, size_t len);
void transport_fd_close(struct conn_fds *fds);

#endif

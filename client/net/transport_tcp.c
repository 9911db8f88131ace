/* TCP over loopback. Refuses any address outside 127.0.0.0/8 and ::1: a
 * benchmark's traffic never leaves the machine, unless the target says
 * otherwise (remote_ok: external servers the user allowed). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/transport.h"

static int tcp_connect(const struct target *t, struct conn_fds *fds,
                       int64_t timeout_ms, char *why, size_t why_len)
{
    struct sockaddr_storage ss;
    socklen_t ss_len;
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    memset(&ss, 0, sizeof ss);
    if (inet_pton(AF_INET, t->host, &in4->sin_addr) == 1) {
        if ((ntohl(in4->sin_addr.s_addr) >> 24) != 127 && !t->remote_ok)
            goto not_loopback;
        in4->sin_family = AF_INET;
        in4->sin_port = htons(t->port);
        ss_len = sizeof *in4;
    } else if (inet_pton(AF_INET6, t->host, &in6->sin6_addr) == 1) {
        if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) && !t->remote_ok)
            goto not_loopback;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(t->port);
        ss_len = sizeof *in6;
    } else {
        goto not_loopback;
    }

    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        int e = errno;
        snprintf(why, why_len, "socket: %s", strerror(e));
        return -e;
    }
    int rc = transport_fd_connect(fd, (struct sockaddr *)&ss, ss_len,
                                  timeout_ms);
    if (rc < 0) {
        snprintf(why, why_len, "connect tcp:%s:%u: %s", t->host, t->port,
                 rc == -ETIMEDOUT ? "no answer in time"
                 : rc == -EINTR   ? "interrupted"
                                  : strerror(-rc));
        close(fd);
        return rc;
    }
    /* Small requests: send each at once, as an ORB does. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fds->rfd = fds->wfd = fd;
    return 0;

not_loopback:
    snprintf(why, why_len,
             "server address \"%s\" is not a loopback address; refusing to "
             "connect (start servers with a 127.0.0.1 endpoint)",
             t->host);
    return -EPERM;
}

const struct transport_ops transport_tcp = {
    .name = "tcp",
    .fds_per_conn = 1,
    .connect = tcp_connect,
    .send = transport_fd_send,
    .recv = transport_fd_recv,
    .close = transport_fd_close,
};

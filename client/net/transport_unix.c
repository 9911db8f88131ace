/* Unix-domain stream sockets, addressed by the path in the server's IOR. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "net/transport.h"

static int unix_connect(const struct target *t, struct conn_fds *fds,
                        int64_t timeout_ms, char *why, size_t why_len)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (!t->unix_path[0] || strlen(t->unix_path) >= sizeof sa.sun_path) {
        snprintf(why, why_len, "server published no usable unix socket path");
        return -EINVAL;
    }
    strcpy(sa.sun_path, t->unix_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        int e = errno;
        snprintf(why, why_len, "socket: %s", strerror(e));
        return -e;
    }
    int rc = transport_fd_connect(fd, (struct sockaddr *)&sa, sizeof sa,
                                  timeout_ms);
    if (rc < 0) {
        snprintf(why, why_len, "connect unix:%s: %s", t->unix_path,
                 rc == -ETIMEDOUT ? "no answer in time"
                 : rc == -EINTR   ? "interrupted"
                                  : strerror(-rc));
        close(fd);
        return rc;
    }
    fds->rfd = fds->wfd = fd;
    return 0;
}

const struct transport_ops transport_unix = {
    .name = "unix",
    .fds_per_conn = 1,
    .connect = unix_connect,
    .send = transport_fd_send,
    .recv = transport_fd_recv,
    .close = transport_fd_close,
};

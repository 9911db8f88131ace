/* Transport lookup and the read/write/close shared by fd transports. */
#include "net/transport.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/util.h"

static const struct transport_ops *const all[] = {
    &transport_tcp, &transport_unix, &transport_pipe};

const struct transport_ops *transport_lookup(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(all); i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

int transport_fd_connect(int fd, const struct sockaddr *sa,
                         unsigned sa_len, int64_t timeout_ms)
{
    int64_t deadline = now_ns() + timeout_ms * 1000000;
    for (;;) {
        if (connect(fd, sa, (socklen_t)sa_len) == 0)
            return 0;
        int e = errno;
        if (e == EINTR)
            return -EINTR;
        if (e != EINPROGRESS && e != EAGAIN)
            return -e;
        int ms = ms_until(deadline);
        if (ms == 0)
            return -ETIMEDOUT;
        if (e == EAGAIN) {
            /* A unix socket whose listen queue is full: try again soon. */
            if (poll(NULL, 0, ms < 2 ? ms : 2) < 0 && errno == EINTR)
                return -EINTR;
            continue;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int rc = poll(&p, 1, ms);
        if (rc < 0)
            return -errno;
        if (rc == 0)
            return -ETIMEDOUT;
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            return -errno;
        return -err;
    }
}

ssize_t transport_fd_send(const struct conn_fds *fds, const void *buf,
                          size_t len)
{
    ssize_t n;
    do
        n = write(fds->wfd, buf, len);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : n;
}

ssize_t transport_fd_recv(const struct conn_fds *fds, void *buf, size_t len)
{
    ssize_t n;
    do
        n = read(fds->rfd, buf, len);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : n;
}

void transport_fd_close(struct conn_fds *fds)
{
    if (fds->wfd >= 0 && fds->wfd != fds->rfd)
        close(fds->wfd);
    if (fds->rfd >= 0)
        close(fds->rfd);
    fds->rfd = fds->wfd = -1;
}

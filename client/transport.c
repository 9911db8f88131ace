/* Transport lookup and the read/write/close shared by fd transports. */
#include "transport.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static const struct transport_ops *const all[] = {&transport_tcp,
                                                  &transport_unix};

const struct transport_ops *transport_lookup(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(all); i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
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

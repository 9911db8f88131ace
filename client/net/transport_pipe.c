/* A pipe pair per server: the spawner makes the pipes when it forks the
 * server (spawn_group.pipe_pair) and hands the client's ends over with
 * the spawn result; connecting takes them. The floor for local IPC: no
 * socket layer, two descriptors per server. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "net/transport.h"

static int pipe_connect(const struct target *t, struct conn_fds *fds,
                        int64_t timeout_ms, char *why, size_t why_len)
{
    (void)timeout_ms; /* nothing to wait for: the pipes exist */
    if (t->rfd < 0 || t->wfd < 0) {
        /* Handed-over descriptors are taken once (conn_open): a pipe
         * cannot be connected again after it closed. */
        snprintf(why, why_len, "connect pipe: no pipe pair handed over "
                 "for this server (a closed pipe cannot be reopened)");
        return -ENOTCONN;
    }
    for (int i = 0; i < 2; i++) {
        int fd = i ? t->wfd : t->rfd;
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
            int e = errno;
            snprintf(why, why_len, "connect pipe: fcntl fd %d: %s", fd,
                     strerror(e));
            return -e;
        }
    }
    fds->rfd = t->rfd;
    fds->wfd = t->wfd;
    return 0;
}

const struct transport_ops transport_pipe = {
    .name = "pipe",
    .spawner_pipes = true,
    .fds_per_conn = 2,
    .connect = pipe_connect,
    .send = transport_fd_send,
    .recv = transport_fd_recv,
    .close = transport_fd_close,
};

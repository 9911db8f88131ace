/* Listening, accepting and parent death for the ORB-less servers: see
 * listen.h. */
#include "listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef ORBBENCH_VERSION
#define ORBBENCH_VERSION "0.0.0"
#endif

void server_die(const char *prog, const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
    exit(1);
}

const char *server_args(int argc, char **argv, const char *name,
                        const char *prog, const char *endpoints)
{
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("%s %s\n", name, ORBBENCH_VERSION);
        exit(0);
    }
    if (argc != 3 || strcmp(argv[1], "--endpoint") != 0) {
        fprintf(stderr, "usage: %s --endpoint %s | --version\n", prog,
                endpoints);
        exit(2);
    }
    return argv[2];
}

void server_loop(const char *prog, int epfd, int lfd,
                 void (*on_conn)(int fd), void (*serve)(void *conn))
{
    for (;;) {
        struct epoll_event evs[64];
        int n = epoll_wait(epfd, evs, 64, -1);
        if (n < 0 && errno != EINTR)
            server_die(prog, "epoll_wait");
        for (int i = 0; i < n; i++) {
            if (!evs[i].data.ptr)
                server_accept_all(lfd, on_conn);
            else
                serve(evs[i].data.ptr);
        }
    }
}

static void bad(const char *prog, const char *ep, const char *why)
{
    fprintf(stderr, "%s: --endpoint %s: %s\n", prog, ep, why);
    exit(2);
}

int server_listen(const char *prog, const char *ep, int epfd,
                  struct listen_addr *addr)
{
    int fd;
    memset(addr, 0, sizeof *addr);
    if (strncmp(ep, "unix:", 5) == 0) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (!ep[5] || strlen(ep + 5) >= sizeof sa.sun_path)
            bad(prog, ep, "bad path");
        strcpy(sa.sun_path, ep + 5);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
            server_die(prog, ep);
        addr->is_unix = true;
        strcpy(addr->path, sa.sun_path);
    } else if (strncmp(ep, "tcp:", 4) == 0) {
        unsigned port;
        struct sockaddr_in sa = {.sin_family = AF_INET};
        const char *colon = strrchr(ep + 4, ':');
        size_t hl = colon ? (size_t)(colon - ep - 4) : 0;
        if (!colon || hl >= sizeof addr->host ||
            sscanf(colon + 1, "%u", &port) != 1 || port > 65535)
            bad(prog, ep, "want tcp:HOST:PORT");
        memcpy(addr->host, ep + 4, hl);
        addr->host[hl] = 0;
        /* Loopback only: a benchmark's traffic never leaves the host. */
        if (inet_pton(AF_INET, addr->host, &sa.sin_addr) != 1 ||
            (ntohl(sa.sin_addr.s_addr) >> 24) != 127)
            bad(prog, ep, "not a loopback IPv4 address");
        sa.sin_port = htons((uint16_t)port);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        socklen_t sl = sizeof sa;
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
            getsockname(fd, (struct sockaddr *)&sa, &sl) != 0)
            server_die(prog, ep);
        addr->port = ntohs(sa.sin_port);
    } else {
        bad(prog, ep, "want tcp:HOST:PORT or unix:PATH");
    }
    if (listen(fd, 1024) != 0)
        server_die(prog, "listen");
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        server_die(prog, "epoll_ctl");
    return fd;
}

void server_accept_all(int lfd, void (*on_conn)(int fd))
{
    for (int i = 0; i < 64; i++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN, or a transient error: epoll says again */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        on_conn(fd);
    }
}

ssize_t server_read(int fd, uint8_t **buf, size_t *len, size_t *cap,
                    size_t max_cap)
{
    if (*cap - *len < 4096) {
        size_t grown = *cap * 2;
        uint8_t *p = grown > max_cap ? NULL : realloc(*buf, grown);
        if (!p)
            return -1;
        *buf = p;
        *cap = grown;
    }
    for (;;) {
        ssize_t n = read(fd, *buf + *len, *cap - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n <= 0)
            return -1;
        *len += (size_t)n;
        return n;
    }
}

int server_tie_to_parent(void)
{
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return -1;
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

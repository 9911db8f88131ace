/* Fault injection for the end-to-end tests, by LD_PRELOAD: the Nth call
 * of one system call fails with a chosen errno, so that a limit no test
 * may reach on a shared machine (the system's file table, ENFILE) can be
 * shown to end a real run against real servers the way the real limit
 * would.
 *
 *   FAIL_CALL   socket, accept, pipe (pipe and pipe2) or fork
 *   FAIL_AFTER  N: calls 1..N-1 pass, call N fails (default 1)
 *   FAIL_TIMES  how many calls fail from the Nth on (default 1)
 *   FAIL_ERRNO  the errno, by name (ENFILE, ENOSPC, EAGAIN, EMFILE,
 *               ENOBUFS, ENOMEM, EADDRINUSE, EADDRNOTAVAIL, EDQUOT) or
 *               number (default ENFILE)
 *   FAIL_LOG    set: each counted call is told on stderr
 *
 * Calls are counted per process; a fork()ed child goes on from its
 * parent's count (orbbench's spawner is forked, not exec'd, so its calls
 * follow the client's). The constructor removes LD_PRELOAD and these
 * variables from the environment, so the servers the spawner execs run
 * without the shim. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char call[16];
static long after = 1, times = 1, seen;
static int err = ENFILE;
static int log_calls;

static const struct {
    const char *name;
    int e;
} names[] = {
    {"ENFILE", ENFILE},   {"EMFILE", EMFILE},       {"ENOSPC", ENOSPC},
    {"EAGAIN", EAGAIN},   {"ENOBUFS", ENOBUFS},     {"ENOMEM", ENOMEM},
    {"EDQUOT", EDQUOT},   {"EADDRINUSE", EADDRINUSE},
    {"EADDRNOTAVAIL", EADDRNOTAVAIL}, {"ECONNREFUSED", ECONNREFUSED},
    {"EACCES", EACCES},   {"EINVAL", EINVAL},
};

__attribute__((constructor)) static void init(void)
{
    const char *v;
    if ((v = getenv("FAIL_CALL")))
        snprintf(call, sizeof call, "%s", v);
    if ((v = getenv("FAIL_AFTER")))
        after = strtol(v, NULL, 10);
    if ((v = getenv("FAIL_TIMES")))
        times = strtol(v, NULL, 10);
    if ((v = getenv("FAIL_ERRNO"))) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*v && !*end)
            err = (int)n;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(v, names[i].name) == 0)
                err = names[i].e;
    }
    log_calls = getenv("FAIL_LOG") != NULL;
    unsetenv("LD_PRELOAD");
    unsetenv("FAIL_CALL");
    unsetenv("FAIL_AFTER");
    unsetenv("FAIL_TIMES");
    unsetenv("FAIL_ERRNO");
    unsetenv("FAIL_LOG");
}

/* Count a call of `name`: true when this one is to fail. */
static int fails(const char *name)
{
    if (strcmp(call, name) != 0)
        return 0;
    long k = __atomic_add_fetch(&seen, 1, __ATOMIC_SEQ_CST);
    int f = k >= after && k < after + times;
    if (log_calls) {
        char line[96];
        int n = snprintf(line, sizeof line, "fail_after: pid %d %s #%ld%s\n",
                         (int)getpid(), name, k, f ? " FAILS" : "");
        if (write(2, line, (size_t)n) < 0)
            (void)0;
    }
    return f;
}

#define REAL(ret, fn, ...)                                                   \
    static ret (*real_##fn)(__VA_ARGS__);                                    \
    if (!real_##fn)                                                          \
        real_##fn = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #fn)

int socket(int domain, int type, int protocol)
{
    REAL(int, socket, int, int, int);
    if (fails("socket")) {
        errno = err;
        return -1;
    }
    return real_socket(domain, type, protocol);
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    REAL(int, accept, int, struct sockaddr *, socklen_t *);
    if (fails("accept")) {
        errno = err;
        return -1;
    }
    return real_accept(fd, addr, len);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    REAL(int, accept4, int, struct sockaddr *, socklen_t *, int);
    if (fails("accept")) {
        errno = err;
        return -1;
    }
    return real_accept4(fd, addr, len, flags);
}

int pipe(int fds[2])
{
    REAL(int, pipe, int *);
    if (fails("pipe")) {
        errno = err;
        return -1;
    }
    return real_pipe(fds);
}

int pipe2(int fds[2], int flags)
{
    REAL(int, pipe2, int *, int);
    if (fails("pipe")) {
        errno = err;
        return -1;
    }
    return real_pipe2(fds, flags);
}

pid_t fork(void)
{
    REAL(pid_t, fork, void);
    if (fails("fork")) {
        errno = err;
        return -1;
    }
    return real_fork();
}

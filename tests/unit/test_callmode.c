/* Unit tests for the call modes (modes/mode_X.c: sync, thread per call,
 * pool, event) and the conn they drive (net/conn.c), without servers:
 * each conn is the raw wire over the pipe
 * transport, a pipe pair per conn, and a thread here echoes every byte
 * back (the raw wire's reply is its request: net/wire_raw.c). Every mode
 * must complete one checked call per conn a round, keep one service and
 * one completion time per call when it records, and name the conn whose
 * "server" hung up. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/stats.h"
#include "modes/callmode.h"
#include "net/conn.h"
#include "net/transport.h"
#include "net/wire.h"

#define CONNS 6
#define ROUNDS 4

struct echo {
    int in[CONNS];  /* what the client wrote, read here */
    int out[CONNS]; /* written back here, read by the client */
    atomic_bool stop;
    pthread_t thread;
};

/* Echo every byte back until stopped; a conn whose descriptors are -1
 * (hung up) is skipped. Bounded: it polls 50 ms at a time. */
static void *echo_main(void *arg)
{
    struct echo *e = arg;
    char buf[4096];
    while (!atomic_load(&e->stop)) {
        struct pollfd p[CONNS];
        for (int i = 0; i < CONNS; i++)
            p[i] = (struct pollfd){.fd = e->in[i], .events = POLLIN};
        if (poll(p, CONNS, 50) <= 0)
            continue;
        for (int i = 0; i < CONNS; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP)))
                continue;
            ssize_t n = read(e->in[i], buf, sizeof buf);
            for (ssize_t done = 0; n > 0 && done < n;) {
                ssize_t w = write(e->out[i], buf + done, (size_t)(n - done));
                if (w <= 0)
                    break;
                done += w;
            }
        }
    }
    return NULL;
}

struct rig {
    struct conn conns[CONNS];
    struct echo echo;
    volatile sig_atomic_t interrupted;
};

static void rig_open(struct rig *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < CONNS; i++) {
        int up[2], down[2]; /* client -> echo, echo -> client */
        assert_int_equal(pipe(up), 0);
        assert_int_equal(pipe(down), 0);
        struct target t = {.rfd = down[0], .wfd = up[1]};
        assert_int_equal(conn_open(&r->conns[i], &transport_pipe, &wire_raw,
                                   &t, (unsigned)i, 0, 32, 2000),
                         0);
        r->echo.in[i] = up[0];
        r->echo.out[i] = down[1];
    }
    assert_int_equal(pthread_create(&r->echo.thread, NULL, echo_main,
                                    &r->echo),
                     0);
}

static void rig_close(struct rig *r)
{
    atomic_store(&r->echo.stop, true);
    pthread_join(r->echo.thread, NULL);
    for (int i = 0; i < CONNS; i++) {
        conn_close(&r->conns[i]);
        if (r->echo.in[i] >= 0)
            close(r->echo.in[i]);
        if (r->echo.out[i] >= 0)
            close(r->echo.out[i]);
    }
}

/* The echo side of conn i hangs up: its reply never comes, its read
 * ends. Done before the echo thread runs (rig_open's caller stops it). */
static void hang_up(struct rig *r, int i)
{
    atomic_store(&r->echo.stop, true);
    pthread_join(r->echo.thread, NULL);
    close(r->echo.out[i]);
    r->echo.out[i] = -1;
    atomic_store(&r->echo.stop, false);
    assert_int_equal(pthread_create(&r->echo.thread, NULL, echo_main,
                                    &r->echo),
                     0);
}

static struct callmode *make_mode(const char *name, struct rig *r)
{
    const struct callmode_ops *ops = callmode_lookup(name);
    assert_non_null(ops);
    struct callmode_config cfg = {.timeout_ms = 2000, .pool_size = 3,
                                  .thread_stack_kb = 256,
                                  .interrupted = &r->interrupted};
    struct callmode *m = NULL;
    assert_int_equal(ops->create(&m, &cfg), 0);
    return m;
}

static void every_call_answered(const char *name)
{
    struct rig r;
    rig_open(&r);
    const struct callmode_ops *ops = callmode_lookup(name);
    struct callmode *m = make_mode(name, &r);
    for (int k = 0; k < ROUNDS; k++) {
        struct round_info info;
        memset(&info, 0, sizeof info);
        assert_int_equal(ops->round(m, r.conns, CONNS, k > 0, &info), 0);
        assert_int_equal(info.err, 0);
        assert_int_equal(info.calls, CONNS);
        assert_true(info.max_in_flight >= 1 &&
                    info.max_in_flight <= CONNS);
    }
    /* Rounds 2..ROUNDS recorded: one service and one completion time a
     * call, each positive. */
    struct samples service = {0}, completion = {0};
    assert_int_equal(ops->drain(m, &service, &completion), 0);
    assert_int_equal(service.len, (ROUNDS - 1) * CONNS);
    assert_int_equal(completion.len, (ROUNDS - 1) * CONNS);
    for (size_t i = 0; i < service.len; i++)
        assert_true(service.ns[i] > 0 && completion.ns[i] > 0);
    /* Drained: nothing is kept twice. */
    samples_free(&service);
    samples_free(&completion);
    assert_int_equal(ops->drain(m, &service, &completion), 0);
    assert_int_equal(service.len, 0);
    samples_free(&service);
    samples_free(&completion);
    ops->destroy(m);
    rig_close(&r);
}

static void a_hang_up_names_its_conn(const char *name)
{
    struct rig r;
    rig_open(&r);
    hang_up(&r, 3);
    const struct callmode_ops *ops = callmode_lookup(name);
    struct callmode *m = make_mode(name, &r);
    struct round_info info;
    memset(&info, 0, sizeof info);
    int rc = ops->round(m, r.conns, CONNS, false, &info);
    assert_true(rc < 0);
    assert_int_equal(info.err, rc);
    assert_int_equal(info.failed, 3);
    assert_true(info.why[0] != '\0');
    assert_false(info.client_resource);
    ops->destroy(m);
    rig_close(&r);
}

static void test_sync(void **state)
{
    (void)state;
    every_call_answered("sync");
    a_hang_up_names_its_conn("sync");
}

static void test_thread_per_call(void **state)
{
    (void)state;
    every_call_answered("thread-per-call");
    a_hang_up_names_its_conn("thread-per-call");
}

static void test_pool(void **state)
{
    (void)state;
    every_call_answered("pool");
    a_hang_up_names_its_conn("pool");
}

static void test_event(void **state)
{
    (void)state;
    every_call_answered("event");
    a_hang_up_names_its_conn("event");
}

static void test_unknown_mode(void **state)
{
    (void)state;
    assert_null(callmode_lookup("carrier-pigeon"));
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync),
        cmocka_unit_test(test_thread_per_call),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_event),
        cmocka_unit_test(test_unknown_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

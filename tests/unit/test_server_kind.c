/* Unit tests for server_kind.c: each kind's endpoint words for each
 * transport, the transports a kind serves, and a buffer too small. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "host/server_kind.h"
#include "host/spawn.h"

/* argv for server `index` of `kind` over `transport`, two extra args. */
static void make_ns(const char *kind, const char *transport, int64_t work_us,
                    int64_t work_ns, unsigned index, char **argv, char *buf,
                    size_t len)
{
    char *extra[] = {"-x", "y"};
    struct server_launch l = {server_kind_lookup(kind), "/bin/srv", extra,
                              2, transport, "/tmp/run", work_us, work_ns};
    assert_non_null(l.kind);
    server_make_argv(&l, index, argv, buf, len);
}

static void make(const char *kind, const char *transport, int64_t work_us,
                 unsigned index, char **argv, char *buf, size_t len)
{
    make_ns(kind, transport, work_us, 0, index, argv, buf, len);
}

static void assert_argv(char **argv, const char *const *want)
{
    size_t i = 0;
    for (; want[i]; i++) {
        assert_non_null(argv[i]);
        assert_string_equal(argv[i], want[i]);
    }
    assert_null(argv[i]);
}

static void test_endpoint_words(void **state)
{
    (void)state;
    char *argv[SPAWN_MAX_ARGS + 1], buf[256];
    make("combat", "tcp", 0, 7, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){"/bin/srv", "-ORBHostName",
                                            "127.0.0.1", "-ORBServerPort",
                                            "0", "-x", "y", NULL});
    make("omniorb", "unix", 25, 12, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){
                          "/bin/srv", "-ORBendPoint",
                          "giop:unix:/tmp/run/s12.sock", "--work-us", "25",
                          "-x", "y", NULL});
    make("omniorb", "tcp", 0, 0, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){"/bin/srv", "-ORBendPoint",
                                            "giop:tcp:127.0.0.1:", "-x",
                                            "y", NULL});
    make("raw", "pipe", 0, 3, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){"/bin/srv", "--endpoint",
                                            "pipe:3,4", "-x", "y", NULL});
    /* Both work options, each with its own value (the first's digits
     * must not run into the second's). */
    make_ns("omniorb", "unix", 2, 1500, 3, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){
                          "/bin/srv", "-ORBendPoint",
                          "giop:unix:/tmp/run/s3.sock", "--work-us", "2",
                          "--work-ns", "1500", "-x", "y", NULL});
    make_ns("omniorb", "tcp", 0, 700, 0, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){"/bin/srv", "-ORBendPoint",
                                            "giop:tcp:127.0.0.1:",
                                            "--work-ns", "700", "-x", "y",
                                            NULL});
    /* TAO's has no ns option: only its µs one goes on. */
    make_ns("tao", "tcp", 1, 700, 0, argv, buf, sizeof buf);
    size_t at = 0, ns = 0;
    for (size_t i = 0; argv[i]; i++) {
        if (strcmp(argv[i], "--work-us") == 0)
            at = i;
        ns += strcmp(argv[i], "--work-ns") == 0;
    }
    assert_true(at > 0);
    assert_string_equal(argv[at + 1], "1");
    assert_int_equal(ns, 0);
    /* MICO's: an address kind and a Unix socket's path in one word. */
    make_ns("mico", "tcp", 0, 700, 0, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){"/bin/srv", "-ORBNoResolve",
                                            "-ORBIIOPAddr",
                                            "inet:127.0.0.1:0", "--work-ns",
                                            "700", "-x", "y", NULL});
    make("mico", "unix", 0, 4, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){"/bin/srv", "-ORBIIOPAddr",
                                            "unix:/tmp/run/s4.sock", "-x",
                                            "y", NULL});
    make("omniorbpy", "unix", 0, 4, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){"/bin/srv", "-ORBendPoint",
                                            "giop:unix:/tmp/run/s4.sock",
                                            "-x", "y", NULL});
    /* A kind with no work option never gets one. */
    make("giop-min", "unix", 25, 1, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){"/bin/srv", "--endpoint",
                                            "unix:/tmp/run/s1.sock", "-x",
                                            "y", NULL});
}

/* A word that does not fit ends the endpoint's words; never an overrun. */
static void test_small_buffer(void **state)
{
    (void)state;
    char *argv[SPAWN_MAX_ARGS + 1], buf[32];
    memset(buf, 'Z', sizeof buf);
    make("combat", "tcp", 0, 0, argv, buf, 20);
    assert_argv(argv, (const char *const[]){"/bin/srv", "-ORBHostName",
                                            "-x", "y", NULL});
    assert_int_equal(buf[20], 'Z');
}

static void test_serves(void **state)
{
    (void)state;
    char list[64];
    const struct server_kind *combat = server_kind_lookup("combat");
    assert_true(server_kind_serves(combat, "tcp", list, sizeof list));
    assert_false(server_kind_serves(combat, "unix", list, sizeof list));
    assert_string_equal(list, "tcp");
    assert_false(server_kind_serves(server_kind_lookup("omniorb"), "pipe",
                                    list, sizeof list));
    assert_string_equal(list, "tcp, unix");
    assert_true(server_kind_serves(server_kind_lookup("raw"), "pipe", list,
                                   sizeof list));
    assert_string_equal(list, "tcp, unix, pipe");
    assert_null(combat->work_option);
    assert_null(server_kind_lookup("visibroker"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoint_words),
        cmocka_unit_test(test_small_buffer),
        cmocka_unit_test(test_serves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

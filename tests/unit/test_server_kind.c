/* Unit tests for server_kind.c: each kind's endpoint words for each
 * transport, the transports a kind serves, a buffer too small, a JVM
 * kind's -J words from the server.jvm.* keys, and server.args that would
 * leave loopback. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
    struct server_launch l = {.kind = server_kind_lookup(kind),
                              .path = "/bin/srv", .args = extra, .nargs = 2,
                              .transport = transport, .run_dir = "/tmp/run",
                              .work_us = work_us, .work_ns = work_ns};
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
    const struct server_kind *jacorb = server_kind_lookup("jacorb");
    assert_false(server_kind_serves(jacorb, "unix", list, sizeof list));
    assert_string_equal(list, "tcp");
    assert_true(jacorb->jvm);
    assert_false(server_kind_lookup("omniorb")->jvm);
}

/* The JVM's defaults: every key at the JVM's own choice gives no word. */
static const struct scenario_jvm jvm_defaults = {
    .gc = "default", .jit = "tiered", .cds = true};

static void test_jvm_words(void **state)
{
    (void)state;
    char words[SERVER_JVM_MAX_WORDS][SERVER_JVM_WORD];
    const char *first = "x";
    assert_int_equal(server_jvm_words(&jvm_defaults, words, &first), 0);
    assert_null(first);
    struct scenario_jvm all = {.heap_max_mb = 64, .heap_initial_mb = 8,
                               .thread_stack_kb = 256, .gc = "serial",
                               .jit = "c1", .cds = false};
    const char *const want[] = {"-J-Xmx64m", "-J-Xms8m", "-J-Xss256k",
                                "-J-XX:+UseSerialGC",
                                "-J-XX:TieredStopAtLevel=1",
                                "-J-Xshare:off"};
    assert_int_equal(server_jvm_words(&all, words, &first),
                     SERVER_JVM_MAX_WORDS);
    for (size_t i = 0; i < SERVER_JVM_MAX_WORDS; i++)
        assert_string_equal(words[i], want[i]);
    assert_string_equal(first, "heap_max_mb");
    /* Each collector and compiler has its word. */
    const char *const gcs[][2] = {{"parallel", "-J-XX:+UseParallelGC"},
                                  {"g1", "-J-XX:+UseG1GC"},
                                  {"z", "-J-XX:+UseZGC"},
                                  {"shenandoah", "-J-XX:+UseShenandoahGC"}};
    for (size_t i = 0; i < sizeof gcs / sizeof gcs[0]; i++) {
        struct scenario_jvm j = jvm_defaults;
        snprintf(j.gc, sizeof j.gc, "%s", gcs[i][0]);
        assert_int_equal(server_jvm_words(&j, words, &first), 1);
        assert_string_equal(words[0], gcs[i][1]);
        assert_string_equal(first, "gc");
    }
    const char *const jits[][2] = {{"c2", "-J-XX:-TieredCompilation"},
                                   {"interpreter", "-J-Xint"}};
    for (size_t i = 0; i < sizeof jits / sizeof jits[0]; i++) {
        struct scenario_jvm j = jvm_defaults;
        snprintf(j.jit, sizeof j.jit, "%s", jits[i][0]);
        assert_int_equal(server_jvm_words(&j, words, &first), 1);
        assert_string_equal(words[0], jits[i][1]);
        assert_string_equal(first, "jit");
    }
}

/* A JVM kind's command line: the endpoint, the -J words, the work
 * options, server.args. */
static void test_jvm_argv(void **state)
{
    (void)state;
    char *argv[SPAWN_MAX_ARGS + 1], buf[256], *extra[] = {"-x"};
    char *jvm[] = {"-J-Xmx64m", "-J-Xint"};
    struct server_launch l = {.kind = server_kind_lookup("jacorb"),
                              .path = "/bin/srv", .args = extra, .nargs = 1,
                              .transport = "tcp", .run_dir = "/tmp/run",
                              .work_us = 5, .work_ns = 7, .jvm_words = jvm,
                              .njvm_words = 2};
    server_make_argv(&l, 0, argv, buf, sizeof buf);
    assert_argv(argv, (const char *const[]){
                          "/bin/srv", "-ORBListenEndpoints",
                          "iiop://127.0.0.1:0", "-J-Xmx64m", "-J-Xint",
                          "--work-us", "5", "--work-ns", "7", "-x", NULL});
}

/* server.args of JacORB that would leave loopback, publish elsewhere or
 * read an unchecked file: refused, naming the word; what stays local is
 * allowed. */
static void test_jacorb_args(void **state)
{
    (void)state;
    char why[300];
    const char *const bad[] = {
        "-DOAIAddr=0.0.0.0", "-DOAAddress=iiop://0.0.0.0:0",
        "-J-DOAIAddr=10.0.0.1", "-Djacorb.ior_proxy_host=example.org",
        "-Djacorb.transport.factories=x", "-Djacorb.net.socket_factory=x",
        "-Djacorb.security.support_ssl=on", "-Dcustom.props=/tmp/p",
        "-Djacorb.config.dir=/tmp", "-J-agentlib:jdwp=transport=dt_socket",
        "-J-Dcom.sun.management.jmxremote.port=9999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *args[] = {(char *)bad[i]};
        assert_int_equal(server_args_check(args, 1, why, sizeof why),
                         -EINVAL);
        assert_non_null(strstr(why, bad[i]));
        assert_non_null(strstr(why, "loopback only"));
    }
    char *ok[] = {"-Djacorb.poa.thread_pool_max=40", "-J-Xmx32m",
                  "-ORBListenEndpoints", "iiop://127.0.0.1:0"};
    assert_int_equal(server_args_check(ok, 4, why, sizeof why), 0);
    char *off[] = {"-ORBListenEndpoints", "iiop://0.0.0.0:0"};
    assert_int_equal(server_args_check(off, 2, why, sizeof why), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoint_words),
        cmocka_unit_test(test_small_buffer),
        cmocka_unit_test(test_serves),
        cmocka_unit_test(test_jvm_words),
        cmocka_unit_test(test_jvm_argv),
        cmocka_unit_test(test_jacorb_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for codec/caller_proto.c: every reply and command of the
 * caller protocol, its malformed forms refused, the times lines split at
 * CALLER_TIMES_PER_LINE and read back. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/caller_proto.h"

static int reply(const char *line, struct caller_reply *r)
{
    char why[200];
    return caller_parse_reply(line, r, why, sizeof why);
}

static int cmd(const char *line, struct caller_cmd *c)
{
    char why[200];
    return caller_parse_cmd(line, c, why, sizeof why);
}

static void test_replies(void **state)
{
    (void)state;
    struct caller_reply r;
    assert_int_equal(reply("ready 123 deferred", &r), 0);
    assert_int_equal(r.type, CALLER_READY);
    assert_int_equal(r.pid, 123);
    assert_string_equal(r.mode, "deferred");
    assert_int_equal(reply("ok 7", &r), 0);
    assert_int_equal(r.type, CALLER_OK);
    assert_int_equal(r.count, 7);
    assert_int_equal(reply("error BAD_PARAM: not an IOR", &r), 0);
    assert_int_equal(r.type, CALLER_ERROR);
    assert_string_equal(r.message, "BAD_PARAM: not an IOR");
    assert_int_equal(reply("error", &r), 0);
    assert_string_equal(r.message, "");
    assert_int_equal(reply("fail 9 3 TRANSIENT connect refused", &r), 0);
    assert_int_equal(r.type, CALLER_FAIL);
    assert_int_equal(r.seq, 9);
    assert_int_equal(r.index, 3);
    assert_string_equal(r.word, "TRANSIENT");
    assert_string_equal(r.message, "connect refused");
    assert_int_equal(reply("done 9 99 1 123456789", &r), 0);
    assert_int_equal(r.type, CALLER_DONE);
    assert_int_equal(r.seq, 9);
    assert_int_equal(r.calls, 99);
    assert_int_equal(r.failed, 1);
    assert_int_equal(r.round_ns, 123456789);
}

static void test_bad_replies(void **state)
{
    (void)state;
    struct caller_reply r;
    const char *bad[] = {
        "", "hello", "ready", "ready 0 sync", "ready 12", "ready -1 sync",
        "ready 12 sync extra", "ok", "ok -1", "ok 1 2", "ok 99999999999",
        "done 1 2 3", "done 1 2 3 4 5", "done x 2 3 4", "fail 1 2",
        "times", "times x", "ready 12 sy\x1bnc", "OK 1", "ok  1",
        "done 1 2 3 99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char why[200] = "";
        int rc = caller_parse_reply(bad[i], &r, why, sizeof why);
        if (rc != -EBADMSG)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_true(why[0] != 0);
        assert_null(strchr(why, '\x1b'));
    }
}

static void test_times(void **state)
{
    (void)state;
    struct caller_reply r;
    int64_t s, c;
    assert_int_equal(reply("times 4 10 20 30 40", &r), 0);
    assert_int_equal(r.type, CALLER_TIMES);
    assert_int_equal(r.seq, 4);
    const char *p = r.pairs;
    assert_int_equal(caller_times_next(&p, &s, &c), 1);
    assert_int_equal(s, 10);
    assert_int_equal(c, 20);
    assert_int_equal(caller_times_next(&p, &s, &c), 1);
    assert_int_equal(s, 30);
    assert_int_equal(c, 40);
    assert_int_equal(caller_times_next(&p, &s, &c), 0);
    assert_int_equal(reply("times 4 10", &r), 0);
    p = r.pairs;
    assert_int_equal(caller_times_next(&p, &s, &c), -EBADMSG);
    assert_int_equal(reply("times 4 10 x", &r), 0);
    p = r.pairs;
    assert_int_equal(caller_times_next(&p, &s, &c), -EBADMSG);
}

/* n calls formatted, then read back line by line: every pair once, in
 * order, no line longer than CALLER_LINE_MAX. */
static void test_times_lines(void **state)
{
    (void)state;
    size_t n = 2 * CALLER_TIMES_PER_LINE + 5;
    int64_t *sv = calloc(n, sizeof *sv), *cp = calloc(n, sizeof *cp);
    size_t cap = 40 * n + 32 * 4;
    char *buf = malloc(cap);
    assert_non_null(sv);
    assert_non_null(cp);
    assert_non_null(buf);
    for (size_t i = 0; i < n; i++) {
        sv[i] = INT64_MAX - (int64_t)i; /* the longest numbers */
        cp[i] = INT64_MAX - 2 * (int64_t)i;
    }
    int len = caller_format_times(buf, cap, 77, sv, cp, n);
    assert_true(len > 0);
    size_t got = 0, lines = 0;
    for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        assert_true((size_t)(nl - line) + 1 <= CALLER_LINE_MAX);
        struct caller_reply r;
        assert_int_equal(reply(line, &r), 0);
        assert_int_equal(r.seq, 77);
        const char *p = r.pairs;
        int64_t s, c;
        while (caller_times_next(&p, &s, &c) == 1) {
            assert_true(got < n);
            assert_true(s == sv[got] && c == cp[got]);
            got++;
        }
        lines++;
    }
    assert_int_equal(got, n);
    assert_int_equal(lines, 3);
    assert_int_equal(caller_format_times(buf, 100, 1, sv, cp, n), -ENOSPC);
    assert_int_equal(caller_format_times(buf, cap, 1, sv, cp, 0), 0);
    free(sv);
    free(cp);
    free(buf);
}

static void test_commands(void **state)
{
    (void)state;
    struct caller_cmd c;
    assert_int_equal(cmd("target IOR:0123abcd", &c), 0);
    assert_int_equal(c.type, CALLER_TARGET);
    assert_string_equal(c.ior, "IOR:0123abcd");
    assert_int_equal(cmd("drop 0", &c), 0);
    assert_int_equal(c.type, CALLER_DROP);
    assert_int_equal(c.k, 0);
    assert_int_equal(cmd("round 5 100 1", &c), 0);
    assert_int_equal(c.type, CALLER_ROUND);
    assert_int_equal(c.seq, 5);
    assert_int_equal(c.n, 100);
    assert_true(c.record);
    assert_int_equal(cmd("round 6 1 0", &c), 0);
    assert_false(c.record);
    assert_int_equal(cmd("quit", &c), 0);
    assert_int_equal(c.type, CALLER_QUIT);
    const char *bad[] = {"target", "target a b", "drop", "drop -1",
                         "round 1 0 1", "round 1 2 2", "round 1 2",
                         "quit now", "QUIT", "round 1 2 1 "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (cmd(bad[i], &c) != -EBADMSG)
            fail_msg("accepted \"%s\"", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replies),
        cmocka_unit_test(test_bad_replies),
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_times_lines),
        cmocka_unit_test(test_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for spawn_parse_limit: the line a server writes on stderr to
 * declare a limit only it knows ("orbbench-limit descriptors N: REASON",
 * docs/servers.md#declared-limits). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "host/spawn.h"

/* spawn_parse_limit on a copy of `text`. */
static int parse(const char *text, const char *what, int64_t *v, char *why,
                 size_t len)
{
    char line[256];
    strncpy(line, text, sizeof line - 1);
    line[sizeof line - 1] = 0;
    *v = -7;
    why[0] = 0;
    return spawn_parse_limit(line, what, v, why, len);
}

static void test_declaration_with_reason(void **state)
{
    (void)state;
    int64_t v;
    char why[128];
    assert_int_equal(parse("orbbench-limit descriptors 1024: select(), "
                           "FD_SETSIZE\n", "descriptors", &v, why,
                           sizeof why),
                     1);
    assert_int_equal(v, 1024);
    assert_string_equal(why, "select(), FD_SETSIZE");
    /* no reason; a CRLF line end */
    assert_int_equal(parse("orbbench-limit descriptors 30\r\n",
                           "descriptors", &v, why, sizeof why),
                     1);
    assert_int_equal(v, 30);
    assert_string_equal(why, "");
    /* a reason longer than the buffer is cut, not overrun */
    char small[8];
    assert_int_equal(parse("orbbench-limit descriptors 5: a long reason",
                           "descriptors", &v, small, sizeof small),
                     1);
    assert_string_equal(small, "a long ");
}

static void test_other_lines_are_not_declarations(void **state)
{
    (void)state;
    int64_t v;
    char why[128];
    const char *lines[] = {
        "echo-server: listening\n",
        "orbbench-limit threads 40: another limit\n", /* not asked for */
        "orbbench-limit descriptorsX 40\n",
        " orbbench-limit descriptors 40\n", /* must start the line */
        "orbbench-limitdescriptors 40\n",
        "",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        assert_int_equal(parse(lines[i], "descriptors", &v, why, sizeof why),
                         0);
        assert_int_equal(v, -7); /* untouched */
    }
}

static void test_bad_values_are_refused(void **state)
{
    (void)state;
    int64_t v;
    char why[256];
    const char *lines[] = {
        "orbbench-limit descriptors many: no number\n",
        "orbbench-limit descriptors 0: none\n",
        "orbbench-limit descriptors -5\n",
        "orbbench-limit descriptors 12x: junk after N\n",
        "orbbench-limit descriptors 99999999999999999999999\n",
        "orbbench-limit descriptors \n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        assert_int_equal(parse(lines[i], "descriptors", &v, why, sizeof why),
                         -EINVAL);
        assert_int_equal(v, -7);
        assert_non_null(strstr(why, "N a positive integer"));
    }
    parse("orbbench-limit descriptors many: no number\n", "descriptors", &v,
          why, sizeof why);
    assert_string_equal(why, "declared \"orbbench-limit descriptors many: "
                             "no number\": not \"orbbench-limit descriptors "
                             "N: REASON\" with N a positive integer");
}

/* The reason is the server's text: recorded escaped, so that invalid
 * UTF-8 cannot make the result lose its "result" (json_string refuses
 * it) and no escape sequence reaches a terminal. */
static void test_reason_is_escaped(void **state)
{
    (void)state;
    int64_t v;
    char why[128];
    assert_int_equal(parse("orbbench-limit descriptors 9: a\xff\x1b]0;x\x07"
                           " \xc3\xa9t\xc3\xa9 \xe2\x80\xa8 \xc2\x9b end\n",
                           "descriptors", &v, why, sizeof why),
                     1);
    assert_string_equal(why, "a\\xff\\x1b]0;x\\x07 \xc3\xa9t\xc3\xa9 "
                             "\\xe2\\x80\\xa8 \\xc2\\x9b end");
    /* cut between whole escapes, never inside one */
    char small[6]; /* "ab" and a 4-character escape need 7 */
    assert_int_equal(parse("orbbench-limit descriptors 9: ab\x1b\n",
                           "descriptors", &v, small, sizeof small),
                     1);
    assert_string_equal(small, "ab");
    /* the malformed line, quoted in the reason, escaped too */
    assert_int_equal(parse("orbbench-limit descriptors \x1b[2J\n",
                           "descriptors", &v, why, sizeof why),
                     -EINVAL);
    assert_non_null(strstr(why, "\\x1b[2J"));
    assert_null(strchr(why, 0x1b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_declaration_with_reason),
        cmocka_unit_test(test_other_lines_are_not_declarations),
        cmocka_unit_test(test_bad_values_are_refused),
        cmocka_unit_test(test_reason_is_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for suggest.c: the edit distance, worked out by hand, and
 * which candidate a search suggests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/suggest.h"

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(suggest_distance("run", "run"), 0);
    assert_int_equal(suggest_distance("", "run"), 3);
    assert_int_equal(suggest_distance("rnu", "run"), 1);       /* swap */
    assert_int_equal(suggest_distance("sweep.maxn", "sweep.max_n"), 1);
    assert_int_equal(suggest_distance("sett", "set"), 1);      /* extra */
    assert_int_equal(suggest_distance("plto", "plot"), 1);
    assert_int_equal(suggest_distance("kitten", "sitting"), 3);
    /* A swap counts once, not as two substitutions. */
    assert_int_equal(suggest_distance("ab", "ba"), 1);
    assert_int_equal(suggest_distance("ca", "abc"), 3);        /* OSA */
    char longer[SUGGEST_MAX_BYTES + 1];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    assert_true(suggest_distance(longer, "a") == SIZE_MAX);
}

static void test_best_within_the_limit(void **state)
{
    (void)state;
    struct suggest s;
    static const char *const subs[] = {"run", "check", "keys", "ior",
                                       "suite", "compare"};
    suggest_init(&s, "rnu");
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        suggest_offer(&s, subs[i]);
    assert_string_equal(suggest_best(&s), "run");
    /* Short words: one edit at most ("rxx" is 2 from "run"). */
    suggest_init(&s, "rxx");
    suggest_offer(&s, "run");
    assert_null(suggest_best(&s));
    /* Longer words: two. */
    suggest_init(&s, "compre");
    suggest_offer(&s, "compare");
    assert_string_equal(suggest_best(&s), "compare");
    suggest_init(&s, "cmpre");
    suggest_offer(&s, "compare");
    assert_string_equal(suggest_best(&s), "compare");
    suggest_init(&s, "history");
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        suggest_offer(&s, subs[i]);
    assert_null(suggest_best(&s));
}

static void test_first_of_equals_and_copies(void **state)
{
    (void)state;
    struct suggest s;
    suggest_init(&s, "sweep.max");
    char buf[32];
    strcpy(buf, "sweep.max_n");
    suggest_offer(&s, buf);
    strcpy(buf, "sweep.max_x");   /* as near: the first stays */
    suggest_offer(&s, buf);
    strcpy(buf, "overwritten");
    assert_string_equal(suggest_best(&s), "sweep.max_n");
    /* The word itself is no suggestion. */
    suggest_init(&s, "run");
    suggest_offer(&s, "run");
    assert_null(suggest_best(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_best_within_the_limit),
        cmocka_unit_test(test_first_of_equals_and_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

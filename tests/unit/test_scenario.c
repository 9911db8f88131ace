/* Unit tests for scenario.c's loading from text (scenario_load_text, the
 * fuzz target's way in): the same validation as from a file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/scenario.h"
#include "host/server_kind.h"
#include "kinds/kind.h"
#include "kinds/stepper.h"

/* An integer of the resolved scenario's group `group`. */
static long long resolved_int(const struct scenario *sc, const char *group,
                              const char *key)
{
    return json_integer_value(
        json_object_get(json_object_get(sc->resolved, group), key));
}

static const char text[] =
    "{\"transport\": \"unix\", \"sweep\": {\"max_n\": 50, \"step\": 5}}";

static void test_text_values_and_defaults(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512] = "";
    assert_int_equal(scenario_load_text(kind_schema(), "dir/mine.json", text,
                                        strlen(text),
                                        NULL, 0, &sc, err, sizeof err),
                     0);
    assert_string_equal(sc.source, "dir/mine.json");
    assert_string_equal(sc.name, "mine"); /* the source's base name */
    assert_string_equal(sc.transport, "unix");
    assert_int_equal(stepper_opts(&sc)->max_n, 50);
    assert_int_equal(stepper_opts(&sc)->step, 5);
    assert_string_equal(sc.mode, "sync");
    assert_int_equal(sc.call.timeout_ms, 5000);
    assert_non_null(sc.resolved);
    scenario_free(&sc);
}

/* Only `len` bytes are read: no NUL is needed after them. */
static void test_text_length_bounds_the_input(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512] = "";
    char buf[sizeof text + 8];
    memcpy(buf, text, strlen(text));
    memcpy(buf + strlen(text), "garbage", 8);
    assert_int_equal(scenario_load_text(kind_schema(), "x.json", buf,
                                        strlen(text), NULL, 0,
                                        &sc, err, sizeof err),
                     0);
    scenario_free(&sc);
}

static void test_text_and_file_agree(void **state)
{
    (void)state;
    char path[] = "/tmp/orbbench-test-scenario-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    char *sets[] = {"sweep.max_n=2k", "mode=event"};
    struct scenario a, b;
    char err[512] = "";
    assert_int_equal(scenario_load(kind_schema(), path, sets, 2, &a, err,
                                   sizeof err), 0);
    assert_int_equal(scenario_load_text(kind_schema(), path, text,
                                        strlen(text), sets, 2,
                                        &b, err, sizeof err),
                     0);
    unlink(path);
    assert_int_equal(stepper_opts(&b)->max_n, 2000);
    assert_string_equal(b.mode, "event");
    assert_true(json_equal(a.resolved, b.resolved));
    scenario_free(&a);
    scenario_free(&b);
}

static void test_text_errors(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512] = "";
    static const char bad_json[] = "{\"name\": }";
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", bad_json,
                                        strlen(bad_json),
                                        NULL, 0, &sc, err, sizeof err),
                     -EINVAL);
    assert_memory_equal(err, "s.json:1:", 9);
    static const char unknown[] = "{\"sweep\": {\"thred\": 1}}";
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", unknown,
                                        strlen(unknown),
                                        NULL, 0, &sc, err, sizeof err),
                     -EINVAL);
    assert_string_equal(err, "s.json: unknown key \"sweep.thred\" (see orbbench keys)");
    static const char range[] = "{\"sweep\": {\"max_n\": 0}}";
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", range,
                                        strlen(range), NULL,
                                        0, &sc, err, sizeof err),
                     -EINVAL);
    assert_string_equal(err, "s.json: key \"sweep.max_n\": 0 is out of range "
                             "[1, 1000000]");
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", "", 0, NULL,
                                        0, &sc, err,
                                        sizeof err),
                     -EINVAL);
}

/* kind rate: its keys and defaults, the other kind's keys refused and
 * left out of the resolved scenario. */
static void test_kind_rate(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512] = "";
    static const char rate[] =
        "{\"kind\": \"rate\", \"rate\": {\"window\": 8}}";
    assert_int_equal(scenario_load_text(kind_schema(), "r.json", rate,
                                        strlen(rate), NULL, 0,
                                        &sc, err, sizeof err),
                     0);
    assert_string_equal(sc.kind, "rate");
    /* The kind's options, as the loader resolved them from its struct. */
    assert_int_equal(resolved_int(&sc, "rate", "window"), 8);
    assert_int_equal(resolved_int(&sc, "rate", "repeats"), 5);
    assert_true(json_real_value(json_object_get(
                    json_object_get(sc.resolved, "rate"), "duration_s")) ==
                1.0);
    assert_true(json_is_false(json_object_get(
        json_object_get(sc.resolved, "rate"), "oneway")));
    assert_null(json_object_get(sc.resolved, "sweep"));
    assert_null(json_object_get(sc.resolved, "mode"));
    assert_non_null(json_object_get(sc.resolved, "rate"));
    scenario_free(&sc);
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", text,
                                        strlen(text), NULL, 0,
                                        &sc, err, sizeof err),
                     0);
    assert_string_equal(sc.kind, "sweep");
    assert_null(json_object_get(sc.resolved, "rate"));
    scenario_free(&sc);
    char *sets[] = {"rate.window=4"};
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", text,
                                        strlen(text), sets, 1,
                                        &sc, err, sizeof err),
                     -EINVAL);
    assert_string_equal(err, "--set rate.window: only for \"kind\": \"rate\" "
                             "scenarios (this one is \"sweep\")");
    static const char mixed[] =
        "{\"kind\": \"rate\", \"sweep\": {\"max_n\": 5}}";
    assert_int_equal(scenario_load_text(kind_schema(), "m.json", mixed,
                                        strlen(mixed), NULL,
                                        0, &sc, err, sizeof err),
                     -EINVAL);
    assert_string_equal(err, "m.json: key \"sweep.max_n\": only for \"kind\": "
                             "\"sweep\" scenarios (this one is \"rate\")");
    static const char bad[] = "{\"kind\": \"rat\"}";
    assert_int_equal(scenario_load_text(kind_schema(), "b.json", bad,
                                        strlen(bad), NULL, 0,
                                        &sc, err, sizeof err),
                     -EINVAL);
    /* The kinds listed begin so; more may follow (latency, marshal...). */
    static const char want[] = "b.json: key \"kind\": \"rat\" is not one of: "
                               "sweep, rate, scaling, clock";
    assert_memory_equal(err, want, strlen(want));
}

/* scaling.k: an integer (1..K) or an increasing list; never above the
 * CPUs allowed. */
static void test_kind_scaling(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512];
    static const char sc_text[] = "{\"kind\": \"scaling\"}";
    char *list[] = {"scaling.k=[1]"};
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", sc_text,
                                        strlen(sc_text), list,
                                        1, &sc, err, sizeof err),
                     0);
    json_t *scaling = json_object_get(sc.resolved, "scaling");
    json_t *k = json_object_get(scaling, "k");
    assert_int_equal((int)json_array_size(k), 1);
    assert_int_equal(json_integer_value(json_array_get(k, 0)), 1);
    assert_string_equal(
        json_string_value(json_object_get(scaling, "placement")), "same");
    assert_true(json_is_array(json_object_get(
        json_object_get(sc.resolved, "scaling"), "k")));
    scenario_free(&sc);
    char *down[] = {"scaling.k=[1,1]"};
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", sc_text,
                                        strlen(sc_text), down,
                                        1, &sc, err, sizeof err),
                     -EINVAL);
    assert_non_null(strstr(err, "scaling.k"));
    char *many[] = {"scaling.k=1024"};
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", sc_text,
                                        strlen(sc_text), many,
                                        1, &sc, err, sizeof err),
                     -EINVAL);
    assert_non_null(strstr(err, "--set scaling.k: 1024 pairs, above the"));
}

/* The stepper's settings (kinds/stepper_keys.h) under each kind's
 * group: the same defaults, the start check naming the kind's own keys,
 * the stepping rule. */
static void test_driver_settings_by_group(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512] = "";
    static const char fanin[] =
        "{\"kind\": \"fanin\", \"transport\": \"unix\", "
        "\"fanin\": {\"start\": 50, \"growth\": 1.15}}";
    assert_int_equal(scenario_load_text(kind_schema(), "f.json", fanin,
                                        strlen(fanin), NULL, 0, &sc, err,
                                        sizeof err),
                     0);
    const struct stepper_opts *so = stepper_opts(&sc);
    struct stepper_grid grid = stepper_grid_of(&sc);
    assert_int_equal(so->start, 50);
    assert_int_equal(so->max_n, 1000);
    assert_int_equal(so->max_probes, 12);
    assert_string_equal(so->pairing, "blocks");
    /* ceil(50 × 1.15) = 58; ceil(58 × 1.15 = 66.7) = 67 */
    assert_int_equal(stepper_next_n(&grid, 50), 58);
    assert_int_equal(stepper_next_n(&grid, 58), 67);
    scenario_free(&sc);

    /* Linear: start, start + step. */
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", text,
                                        strlen(text), NULL, 0, &sc, err,
                                        sizeof err),
                     0);
    grid = stepper_grid_of(&sc);
    assert_int_equal(stepper_next_n(&grid, 1), 6);
    scenario_free(&sc);

    static const char high[] =
        "{\"kind\": \"fanin\", \"transport\": \"unix\", "
        "\"fanin\": {\"start\": 50, \"max_n\": 10}}";
    assert_int_equal(scenario_load_text(kind_schema(), "f.json", high,
                                        strlen(high), NULL, 0, &sc, err,
                                        sizeof err),
                     -EINVAL);
    assert_string_equal(err, "f.json: key \"fanin.start\": 50 is above "
                             "fanin.max_n (10)");
    static const char sweep_high[] =
        "{\"sweep\": {\"start\": 50, \"max_n\": 10}}";
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", sweep_high,
                                        strlen(sweep_high), NULL, 0, &sc,
                                        err, sizeof err),
                     -EINVAL);
    assert_string_equal(err, "s.json: key \"sweep.start\": 50 is above "
                             "sweep.max_n (10)");
}

/* server.kind's choices are the host's one list of server kinds: each
 * name of it loads (those whose other keys it needs aside), and the
 * message for a name not in it lists exactly them, in its order. */
static void test_server_kinds_are_one_list(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512] = "", want[256] = "", doc[256];
    for (size_t i = 0; server_kind_name(i); i++) {
        const char *name = server_kind_name(i);
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s",
                 i ? ", " : "", name);
        if (strcmp(name, "external") == 0)
            continue; /* needs server.iors */
        snprintf(doc, sizeof doc, "{\"server\": {\"kind\": \"%s\"}}",
                 name);
        assert_int_equal(scenario_load_text(kind_schema(), "s.json", doc,
                                            strlen(doc), NULL, 0, &sc, err,
                                            sizeof err),
                         0);
        assert_string_equal(sc.server.kind, name);
        scenario_free(&sc);
    }
    assert_non_null(strstr(want, "omniorb, "));
    static const char bad[] = "{\"server\": {\"kind\": \"corba\"}}";
    assert_int_equal(scenario_load_text(kind_schema(), "s.json", bad,
                                        strlen(bad), NULL, 0, &sc, err,
                                        sizeof err),
                     -EINVAL);
    char msg[512];
    snprintf(msg, sizeof msg, "s.json: key \"server.kind\": \"corba\" is "
             "not one of: %s", want);
    assert_string_equal(err, msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_values_and_defaults),
        cmocka_unit_test(test_text_length_bounds_the_input),
        cmocka_unit_test(test_text_and_file_agree),
        cmocka_unit_test(test_text_errors),
        cmocka_unit_test(test_kind_rate),
        cmocka_unit_test(test_kind_scaling),
        cmocka_unit_test(test_driver_settings_by_group),
        cmocka_unit_test(test_server_kinds_are_one_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

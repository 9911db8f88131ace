/* libFuzzer target: scenario loading (scenario_load_text) from JSON text
 * and --set overrides. The input is the file's text; if it holds NUL
 * bytes, what follows the first one is up to FUZZ_MAX_SETS "key=value"
 * overrides separated by NULs. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "core/scenario.h"
#include "kinds/kind.h"
#include "kinds/stepper.h"

#define FUZZ_MAX_SETS 8

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* jansson seeds its hash from /dev/urandom: key order, and so which
     * unknown key is named first, would differ from run to run. */
    json_object_seed(1);
    return 0;
}

static void check_terminated(const char *s, size_t cap)
{
    FUZZ_CHECK(memchr(s, 0, cap) != NULL);
}

/* What a loaded scenario promises the rest of the client. */
static void check_loaded(const struct scenario *sc)
{
    check_terminated(sc->name, sizeof sc->name);
    check_terminated(sc->description, sizeof sc->description);
    check_terminated(sc->transport, sizeof sc->transport);
    check_terminated(sc->mode, sizeof sc->mode);
    check_terminated(sc->server.kind, sizeof sc->server.kind);
    check_terminated(sc->server.orb, sizeof sc->server.orb);
    check_terminated(sc->server.path, sizeof sc->server.path);
    check_terminated(sc->machine.cpus, sizeof sc->machine.cpus);
    check_terminated(sc->machine.client_cpus, sizeof sc->machine.client_cpus);
    FUZZ_CHECK(sc->name[0] != 0);
    FUZZ_CHECK(sc->server.nargs <= SCENARIO_MAX_ARGS);
    for (size_t i = 0; i < sc->server.nargs; i++)
        FUZZ_CHECK(sc->server.args[i] != NULL);
    FUZZ_CHECK(json_is_object(sc->resolved));
    FUZZ_CHECK(kind_lookup(sc->kind) != NULL);
    /* The kinds whose options hold the stepper's (kinds/stepper.h). */
    if (strcmp(sc->kind, "sweep") != 0 && strcmp(sc->kind, "fanin") != 0)
        return;
    const struct stepper_opts *so = stepper_opts(sc);
    struct stepper_grid grid = stepper_grid_of(sc);
    FUZZ_CHECK(so->start >= 1 && so->start <= so->max_n);
    FUZZ_CHECK(so->growth >= 1);
    /* The sweep always moves on. */
    for (int64_t n = so->start; n < so->start + 3; n++)
        FUZZ_CHECK(stepper_next_n(&grid, n) > n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Split the input: the text, then the overrides (NUL-terminated
     * copies, the last one ending at the input's end). */
    char *copy = malloc(size + 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, data, size);
    copy[size] = 0;
    size_t text_len = strnlen(copy, size);
    char *sets[FUZZ_MAX_SETS];
    size_t nsets = 0;
    for (size_t at = text_len; at < size && nsets < FUZZ_MAX_SETS;) {
        sets[nsets++] = copy + at + 1;
        at += 1 + strlen(copy + at + 1);
    }

    struct scenario sc;
    char err[512];
    err[0] = 0;
    int rc = scenario_load_text(kind_schema(), "fuzz.json", copy, text_len,
                                sets, nsets, &sc, err, sizeof err);
    if (rc == 0) {
        check_loaded(&sc);
        scenario_free(&sc);
    } else {
        FUZZ_CHECK(rc < 0);
        check_terminated(err, sizeof err);
        FUZZ_CHECK(err[0] != 0);
    }
    free(copy);
    return 0;
}

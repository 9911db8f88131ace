/* The stepper's settings: see stepper_keys.h. */
#include "kinds/stepper_keys.h"

#include <stdio.h>

const char *const stepper_pairings[] = {"blocks", "rounds", NULL};

const struct stepper_opts *stepper_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct stepper_opts, sc);
}

int stepper_check_start(const struct scenario_ctx *c,
                        const struct scenario *sc)
{
    const struct stepper_opts *so = stepper_opts(sc);
    char key[48];
    snprintf(key, sizeof key, "%s.start", sc->kind);
    if (so->start > so->max_n)
        return scenario_fail(c, key, "%lld is above %s.max_n (%lld)",
                             (long long)so->start, sc->kind,
                             (long long)so->max_n);
    return 0;
}

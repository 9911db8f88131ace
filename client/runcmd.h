/* `orbbench run` and `orbbench check`: a scenario (and a paired run's
 * second side) from the parsed command line to its results. */
#ifndef ORBBENCH_RUNCMD_H
#define ORBBENCH_RUNCMD_H

#include <stdbool.h>
#include <stddef.h>

/* Side B's --set list is A's followed by the --versus ones: `sets` has
 * room for nsets + nversus entries. */
struct runcmd_args {
    const char *cmd;  /* "run" or "check" */
    const char *path; /* the scenario file */
    char **sets;
    size_t nsets;
    char **versus; /* --versus server.KEY=VALUE */
    size_t nversus;
    char **allow_cli; /* --allow-host */
    size_t nallow_cli;
    const char *out, *out_b; /* --out, --out-versus; NULL: default */
    bool paired;             /* --paired (or any --versus) */
    bool progress;
    bool json; /* --format json: one JSON line per side, not the block */
    int progress_fd; /* --progress-fd: JSON lines there; 0: none */
    int argc; /* the command as typed, for the result */
    char **argv;
};

/* Run or check. Returns the exit code: 0 ran to a stop, 1 the run
 * failed, 2 usage or scenario error, 130 interrupted. Exits with 2 itself
 * on a scenario that cannot run. */
int runcmd_main(const struct runcmd_args *a);

#endif

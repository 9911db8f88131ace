/* orbbench's subcommands, one table: what main.c dispatches, what
 * `orbbench --help` and `orbbench help [SUBCOMMAND]` print, and what the
 * man pages and the shell completion are made from (`orbbench help
 * --list`). The built-in ones (run, check, keys, ior) run in this
 * process; the others are executables in the libexec folder (the
 * checkout's scripts/, or an installation's PREFIX/libexec/orbbench),
 * exec'd with the arguments as given, so that their exit status is
 * orbbench's. Every subcommand's help has one shape (usage, description,
 * options, exit, examples: see subcmd.c), which orbbench.helptext reads. */
#ifndef ORBBENCH_SUBCMD_H
#define ORBBENCH_SUBCMD_H

#include <stdbool.h>
#include <stdio.h>

struct subcmd {
    const char *name;
    /* File name in the libexec folder; NULL for a built-in. */
    const char *exe;
    /* What it does, one line of at most 60 characters. */
    const char *summary;
    /* A built-in's help on standard output; its exit status. */
    int (*help)(void);
    /* Runs from a checkout only: make install and the .deb leave its
     * executable out, and so its man page and its completion. */
    bool checkout_only;
};

/* The row named name, or NULL. */
const struct subcmd *subcmd_find(const char *name);

/* Exit 2 with one line: `orbbench: unknown command "rnu"; did you mean
 * "run"? (see orbbench --help)`, or in_help `orbbench: help: unknown
 * subcommand "rnu"; ...`. */
void subcmd_unknown(bool in_help, const char *name)
    __attribute__((noreturn));

/* Exec c's executable with argv (argv[0] is the subcommand's name, the
 * rest passed as given). Sets ORBBENCH_BIN to this client's folder
 * unless it is set, so that the scripts run this client. Returns only
 * when the exec failed, having printed one line: EXIT_USAGE. */
int subcmd_exec(const struct subcmd *c, char **argv);

/* `orbbench --help` on f: the usage, every subcommand, the exit codes. */
void subcmd_usage(FILE *f);

/* `orbbench help [SUBCOMMAND | --list]` (argv[0] is "help"): the whole
 * usage, one subcommand's own help (a script's --help, exec'd), or the
 * table as NAME TAB EXE TAB WHERE TAB SUMMARY lines (EXE "-" for a
 * built-in; WHERE "installed", or "checkout" for a checkout-only one).
 * Returns the exit status, or does not return (exec). */
int subcmd_help(int argc, char **argv);

#endif

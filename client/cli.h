/* What the subcommands share: the exit codes and the one-line fatal
 * error. Only the top layer (main.c, runcmd.c, iorcmd.c) prints and exits;
 * everything below returns 0 or -errno. */
#ifndef ORBBENCH_CLI_H
#define ORBBENCH_CLI_H

/* 0 ran to a stop, 1 the run failed, 2 usage or scenario error; an
 * interrupted run exits 130. */
enum { EXIT_OK = 0, EXIT_RUN_FAILED = 1, EXIT_USAGE = 2 };

/* "orbbench: MESSAGE" on stderr, then exit(code). */
void cli_die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

struct option;

/* What getopt_long (opterr 0, an optstring that starts with ':') returned
 * as c for a bad option, as one line, then exit(EXIT_USAGE): `orbbench:
 * run: unknown option "--sett"; did you mean "--set"? (see orbbench help
 * run)`; an option that needs a value, takes none or is ambiguous says
 * so. opt is optopt, typed argv[optind - 1], both as getopt_long left
 * them; opts its table; sub the subcommand, or NULL for orbbench's own
 * (then "see orbbench --help"). */
void cli_bad_option(const char *sub, const struct option *opts, int c,
                    int opt, const char *typed) __attribute__((noreturn));

#endif

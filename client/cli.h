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

#endif

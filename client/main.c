/* orbbench: the command line. Parses the options and dispatches: run and
 * check (runcmd.c, through the scenario's kind in kinds/registry.c), keys
 * (every scenario key, common and each kind's), ior (iorcmd.c), help and
 * every other subcommand (subcmd.c: the table, and the exec of the
 * scripts that implement suite, compare, report, …).
 * Exit codes: 0 ran to a stop, 1 the run failed, 2 usage or scenario
 * error, 130 interrupted (SIGINT/SIGTERM). */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/scenario.h"
#include "core/util.h"
#include "core/version.h"
#include "cli.h"
#include "iorcmd.h"
#include "kinds/kind.h"
#include "runcmd.h"
#include "subcmd.h"

#define MAX_SETS 64

/* --progress-fd FD: an open descriptor (not stdin), closed on exec (the
 * servers never hold it, so its reader sees the end when the run ends)
 * and, on a pipe, non-blocking (a reader that lags loses lines, the run
 * never waits: kinds/run.h run_progress). Exits 2 on anything else. */
static int progress_fd_arg(const char *arg)
{
    int64_t fd;
    int flags;
    if (parse_i64(arg, &fd) != 0 || fd < 1 || fd > INT_MAX)
        cli_die(EXIT_USAGE, "--progress-fd %s: give a descriptor number "
                "(1 or more)", arg);
    if ((flags = fcntl((int)fd, F_GETFD)) < 0)
        cli_die(EXIT_USAGE, "--progress-fd %s: not an open descriptor", arg);
    fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
    struct stat st;
    int fl = fcntl((int)fd, F_GETFL);
    if (fstat((int)fd, &st) == 0 && S_ISFIFO(st.st_mode) && fl >= 0)
        fcntl((int)fd, F_SETFL, fl | O_NONBLOCK);
    return (int)fd;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},
        {"versus", required_argument, NULL, 'v'},
        {"out-versus", required_argument, NULL, 'O'},
        {"paired", no_argument, NULL, 'A'},
        {"allow-host", required_argument, NULL, 'H'},
        {"progress", no_argument, NULL, 'p'},
        {"no-progress", no_argument, NULL, 'P'},
        {"format", required_argument, NULL, 'F'},
        {"progress-fd", required_argument, NULL, 'D'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    /* Servers and scripts are found beside this executable: never from
     * the working folder when it cannot tell where it is. */
    char self[PATH_MAX];
    if (exe_dir(self, sizeof self) != 0)
        cli_die(EXIT_USAGE, "cannot tell where this executable is "
                "(/proc/self/exe unreadable: is /proc mounted?), so not "
                "where its servers and scripts are: run it by its path, "
                "or with /proc");
    /* `ior` has options of its own: it parses its whole command line;
     * so do the scripts (exec'd) and help. */
    if (argc > 1 && strcmp(argv[1], "ior") == 0)
        return iorcmd_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "help") == 0)
        return subcmd_help(argc - 1, argv + 1);
    const struct subcmd *sub = argc > 1 ? subcmd_find(argv[1]) : NULL;
    if (sub && sub->exe)
        return subcmd_exec(sub, argv + 1);
    /* getopt permutes argv: keep the command as typed for the result.
     * Static, like argv itself: it lives as long as the process. */
    static char **typed;
    typed = malloc(((size_t)argc + 1) * sizeof *typed);
    if (!typed)
        cli_die(EXIT_RUN_FAILED, "out of memory");
    /* Less --progress-fd: a descriptor of the run-suite that ran it, which
     * the command, run again from the result, would not have. */
    int ntyped = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--progress-fd") == 0 && i + 1 < argc) {
            i++;
            continue;
        }
        if (strncmp(argv[i], "--progress-fd=", 14) == 0)
            continue;
        typed[ntyped++] = argv[i];
    }
    typed[ntyped] = NULL;
    /* Side B's --set list is A's followed by the --versus ones. */
    char *sets[2 * MAX_SETS];
    char *versus[MAX_SETS];
    char *allow_cli[SCENARIO_MAX_HOSTS];
    size_t nsets = 0, nversus = 0, nallow_cli = 0;
    const char *out = NULL, *out_b = NULL, *format = "text";
    int show_progress = isatty(2);
    bool paired = false, want_help = false;
    /* A bad option is told once the subcommand is known (getopt permutes:
     * it may come after the option), naming that subcommand's help. */
    int bad = 0, bad_opt = 0;
    const char *bad_typed = NULL;
    int progress_fd = 0;
    int c;
    opterr = 0; /* our own one-line messages (cli_bad_option) */
    /* GNU getopt permutes: options may come before or after the words. */
    while ((c = getopt_long(argc, argv, ":s:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (nsets == MAX_SETS)
                cli_die(EXIT_USAGE, "more than %d --set options", MAX_SETS);
            sets[nsets++] = optarg;
            break;
        case 'v':
            if (nversus == MAX_SETS)
                cli_die(EXIT_USAGE, "more than %d --versus options", MAX_SETS);
            versus[nversus++] = optarg;
            break;
        case 'H':
            if (nallow_cli == SCENARIO_MAX_HOSTS)
                cli_die(EXIT_USAGE, "more than %d --allow-host options",
                        SCENARIO_MAX_HOSTS);
            allow_cli[nallow_cli++] = optarg;
            break;
        case 'o': out = optarg; break;
        case 'O': out_b = optarg; break;
        case 'A': paired = true; break;
        case 'p': show_progress = 1; break;
        case 'P': show_progress = 0; break;
        case 'F': format = optarg; break;
        case 'D': progress_fd = progress_fd_arg(optarg); break;
        case 'h': want_help = true; break;
        case 'V':
            printf("orbbench %s (%s)\n", ORBBENCH_VERSION, ORBBENCH_GIT_REV);
            return 0;
        default:
            if (!bad) {
                bad = c;
                bad_opt = optopt;
                bad_typed = argv[optind - 1];
            }
            break;
        }
    }
    const char *cmd = optind < argc ? argv[optind++] : NULL;
    const struct subcmd *known = cmd ? subcmd_find(cmd) : NULL;
    if (cmd && !known)
        subcmd_unknown(false, cmd);
    if (bad)
        cli_bad_option(cmd, opts, bad, bad_opt, bad_typed);
    if (want_help) {
        char *args[] = {"help", (char *)cmd, NULL};
        return subcmd_help(cmd ? 2 : 1, args);
    }
    if (!cmd) {
        subcmd_usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(cmd, "keys") == 0) {
        scenario_print_keys(kind_schema(), stdout);
        return 0;
    }
    if (strcmp(cmd, "run") != 0 && strcmp(cmd, "check") != 0)
        cli_die(EXIT_USAGE, "%s: give the subcommand first (orbbench %s "
                "...)", cmd, cmd);
    if (optind >= argc)
        cli_die(EXIT_USAGE, "%s: no scenario file given (see orbbench help "
                "%s)", cmd, cmd);
    if (argc - optind > 1)
        cli_die(EXIT_USAGE, "%s: one scenario at a time (got %s and %s)", cmd,
                argv[optind], argv[optind + 1]);
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
        cli_die(EXIT_USAGE, "--format %s: text or json (see orbbench help "
                "run)", format);
    struct runcmd_args a = {
        .cmd = cmd, .path = argv[optind], .sets = sets, .nsets = nsets,
        .versus = versus, .nversus = nversus, .allow_cli = allow_cli,
        .nallow_cli = nallow_cli, .out = out, .out_b = out_b,
        .paired = paired, .progress = show_progress != 0,
        .json = strcmp(format, "json") == 0, .progress_fd = progress_fd,
        .argc = ntyped,
        .argv = typed};
    return runcmd_main(&a);
}

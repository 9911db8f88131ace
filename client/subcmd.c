/* The subcommand table, its help, and the exec of the script ones: see
 * subcmd.h. */
#include "subcmd.h"
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "iorcmd.h"

/* From the client's folder to the checkout's scripts/ (the Makefile sets
 * it: bin/ and a sanitized build's bin/ lie at different depths). */
#ifndef ORBBENCH_SCRIPTS_REL
#define ORBBENCH_SCRIPTS_REL "../scripts"
#endif

static int run_help(void);
static int keys_help(void);
static int ior_help(void);

static const struct subcmd SUBCMDS[] = {
    {.name = "run", .summary = "run one scenario and write its JSON result",
     .help = run_help},
    {.name = "check", .summary = "validate a scenario and print it resolved",
     .help = run_help},
    {.name = "keys", .summary = "list every scenario key, its range and "
     "default", .help = keys_help},
    {.name = "ior", .summary = "decode stringified IORs as catior does",
     .help = ior_help},
    {.name = "suite", .exe = "run-suite",
     .summary = "run a folder of scenarios: repeats, variants, pairs"},
    {.name = "compare", .exe = "compare",
     .summary = "compare result sets: ratios, verdicts, the gate"},
    {.name = "gate", .exe = "gate",
     .summary = "the regression gate on a saved comparison (JSON)"},
    {.name = "report", .exe = "report",
     .summary = "a suite's report: Markdown, HTML, figures"},
    {.name = "plot", .exe = "plot", .summary = "draw the figures of results"},
    {.name = "fleet", .exe = "run-fleet",
     .summary = "run a suite on many hosts over pdsh (checkout)"},
    {.name = "build-orb", .exe = "build-orb",
     .summary = "build another ORB into orbs/ (checkout)"},
    {.name = "start-servers", .exe = "start-servers",
     .summary = "start N echo servers and print their IORs"},
    {.name = "miro-table", .exe = "miro-table",
     .summary = "the Miro latency and marshaling tables"},
    {.name = "miro-channel-table", .exe = "miro-channel-table",
     .summary = "the Miro event channel table (8.3)"},
    {.name = "netns-fleet", .exe = "netns-fleet",
     .summary = "a fleet of network namespaces on this host (root)"},
};
#define NSUBCMDS (sizeof SUBCMDS / sizeof SUBCMDS[0])

const struct subcmd *subcmd_find(const char *name)
{
    for (size_t i = 0; i < NSUBCMDS; i++)
        if (strcmp(SUBCMDS[i].name, name) == 0)
            return &SUBCMDS[i];
    return NULL;
}

/* The scripts' folder: an installation's libexec folder, else the
 * checkout's scripts/ relative to this client. */
static void scripts_dir(char *buf, size_t len)
{
    char bin[PATH_MAX - 64];
    exe_dir(bin, sizeof bin);
    if (helper_dir(buf, len))
        return;
    snprintf(buf, len, "%s/%s", bin, ORBBENCH_SCRIPTS_REL);
}

int subcmd_exec(const struct subcmd *c, char **argv)
{
    char dir[PATH_MAX - 64], path[PATH_MAX], bin[PATH_MAX];
    scripts_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, c->exe);
    exe_dir(bin, sizeof bin);
    setenv("ORBBENCH_BIN", bin, 0);
    argv[0] = path;
    execv(path, argv);
    int e = errno;
    cli_die(EXIT_USAGE, "%s: cannot run %s: %s%s", c->name, path,
            strerror(e),
            e == ENOENT ? " (not installed: it runs from a checkout)" : "");
}

static void run_usage(FILE *f)
{
    fprintf(f,
            "usage: orbbench run SCENARIO.json [--set KEY=VALUE]... "
            "[--out FILE] [--progress|--no-progress]\n"
            "                    [--paired] [--versus server.KEY=VALUE]... "
            "[--out-versus FILE]\n"
            "                    [--allow-host HOST|CIDR]... "
            "[--progress-fd FD]\n"
            "       orbbench check SCENARIO.json [--set KEY=VALUE]...\n"
            "\n"
            "  run     fork echo servers step by step, time a round of calls "
            "to all of\n"
            "          them at each step, stop at sweep.max_ms, and write a "
            "JSON result\n"
            "          (or the scenario's kind: rate, scaling, clock, "
            "latency, ...)\n"
            "  check   validate a scenario and print it resolved, with "
            "defaults\n"
            "\n"
            "  --set KEY=VALUE  override a scenario key (dotted path, e.g. "
            "sweep.max_n=500)\n"
            "  --out FILE       result file (default "
            "results/NAME-YYYYmmddTHHMMSS.json,\n"
            "                   under the working folder)\n"
            "  --progress       a live progress line on stderr (default: "
            "when a terminal)\n"
            "  --progress-fd FD the progress as JSON lines on descriptor FD "
            "(run-suite's)\n"
            "  --versus server.KEY=VALUE  a paired run: a second set of "
            "servers (side B)\n"
            "                   with these server.* keys changed, measured in "
            "turns\n"
            "                   with side A (sweep.pairing: blocks); B's "
            "result goes to\n"
            "                   --out-versus FILE\n"
            "                   (default: A's file with .versus.json)\n"
            "  --paired         a paired run whose side B has A's settings "
            "(an A/A check)\n"
            "  --allow-host H   server.kind external: servers at host H (or "
            "in network\n"
            "                   a.b.c.d/bits) outside loopback may be called "
            "(with\n"
            "                   client.allow_hosts)\n"
            "\n"
            "exit: 0 ran to a stop, 1 the run failed (a server died, a "
            "call failed),\n"
            "      2 usage or scenario error, 130 interrupted\n");
}

static int run_help(void)
{
    run_usage(stdout);
    return EXIT_OK;
}

static int keys_help(void)
{
    printf("usage: orbbench keys\n\n  Every key a scenario file may hold "
           "(the common ones, then each\n  kind's): its name and type, "
           "its range or choices and default,\n  and what it sets.\n");
    return EXIT_OK;
}

static int ior_help(void)
{
    char *args[] = {"ior", "--help", NULL};
    return iorcmd_main(2, args);
}

void subcmd_usage(FILE *f)
{
    fprintf(f, "usage: orbbench SUBCOMMAND [ARGUMENTS...]\n"
               "       orbbench help [SUBCOMMAND] | --help | --version\n"
               "\nsubcommands (orbbench help SUBCOMMAND: its own help):\n");
    for (size_t i = 0; i < NSUBCMDS; i++)
        fprintf(f, "  %-19s %s\n", SUBCMDS[i].name, SUBCMDS[i].summary);
    fputc('\n', f);
    run_usage(f);
}

int subcmd_help(int argc, char **argv)
{
    if (argc < 2) {
        subcmd_usage(stdout);
        return EXIT_OK;
    }
    if (argc > 2)
        cli_die(EXIT_USAGE, "help: one subcommand at a time");
    if (strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < NSUBCMDS; i++)
            printf("%s\t%s\t%s\n", SUBCMDS[i].name,
                   SUBCMDS[i].exe ? SUBCMDS[i].exe : "-",
                   SUBCMDS[i].summary);
        return EXIT_OK;
    }
    const struct subcmd *c = subcmd_find(argv[1]);
    if (!c)
        cli_die(EXIT_USAGE, "help: unknown subcommand \"%s\" (orbbench "
                "--help lists them)", argv[1]);
    if (c->help)
        return c->help();
    char *args[] = {(char *)c->name, "--help", NULL};
    return subcmd_exec(c, args);
}

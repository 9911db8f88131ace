/* The subcommand table, the built-ins' help, and the exec of the script
 * ones: see subcmd.h.
 *
 * Every help, the built-ins' here and the scripts' (orbbench.cli.parser,
 * build-orb's usage), has one shape, paragraphs parted by blank lines,
 * which the man pages and the completion are read from (orbbench.helptext):
 *   usage: orbbench SUB ...        the synopsis, one block
 *   what it does                   the description, one paragraph or more
 *   options:                       each option, "  --name ARG  what"
 *   exit: ...                      the exit codes
 *   examples:                      command lines, two spaces in */
#include "subcmd.h"
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/suggest.h"
#include "core/util.h"
#include "iorcmd.h"

/* From the client's folder to the checkout's scripts/ (the Makefile sets
 * it: bin/ and a sanitized build's bin/ lie at different depths). */
#ifndef ORBBENCH_SCRIPTS_REL
#define ORBBENCH_SCRIPTS_REL "../scripts"
#endif

static int run_help(void);
static int check_help(void);
static int keys_help(void);
static int ior_help(void);

static const struct subcmd SUBCMDS[] = {
    {.name = "run", .summary = "run one scenario and write its JSON result",
     .help = run_help},
    {.name = "check", .summary = "validate a scenario and print it resolved",
     .help = check_help},
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
    {.name = "history", .exe = "history",
     .summary = "one suite across versions: figures, steps, change points"},
    {.name = "fleet", .exe = "run-fleet",
     .summary = "run a suite on many hosts over pdsh (checkout)",
     .checkout_only = true},
    {.name = "build-orb", .exe = "build-orb",
     .summary = "build another ORB into orbs/ (checkout)",
     .checkout_only = true},
    {.name = "start-servers", .exe = "start-servers",
     .summary = "start N echo servers and print their IORs"},
    {.name = "miro-table", .exe = "miro-table",
     .summary = "the Miro latency and marshaling tables"},
    {.name = "miro-channel-table", .exe = "miro-channel-table",
     .summary = "the Miro event channel table (8.3)"},
    {.name = "netns-fleet", .exe = "netns-fleet",
     .summary = "a fleet of network namespaces here (root, checkout)",
     .checkout_only = true},
};
#define NSUBCMDS (sizeof SUBCMDS / sizeof SUBCMDS[0])

const struct subcmd *subcmd_find(const char *name)
{
    for (size_t i = 0; i < NSUBCMDS; i++)
        if (strcmp(SUBCMDS[i].name, name) == 0)
            return &SUBCMDS[i];
    return NULL;
}

void subcmd_unknown(bool in_help, const char *name)
{
    const char *what = in_help ? "help: unknown subcommand" :
        "unknown command";
    struct suggest s;
    suggest_init(&s, name);
    for (size_t i = 0; i < NSUBCMDS; i++)
        suggest_offer(&s, SUBCMDS[i].name);
    const char *best = suggest_best(&s);
    if (best)
        cli_die(EXIT_USAGE, "%s \"%s\"; did you mean \"%s\"? (see "
                "orbbench --help)", what, name, best);
    cli_die(EXIT_USAGE, "%s \"%s\" (see orbbench --help)", what, name);
}

/* The scripts' folder: an installation's libexec folder, else the
 * checkout's scripts/ relative to this client. Returns 1 for an
 * installation. */
static int scripts_dir(char *buf, size_t len)
{
    char bin[PATH_MAX - 64];
    exe_dir(bin, sizeof bin);
    if (helper_dir(buf, len))
        return 1;
    snprintf(buf, len, "%s/%s", bin, ORBBENCH_SCRIPTS_REL);
    return 0;
}

int subcmd_exec(const struct subcmd *c, char **argv)
{
    char dir[PATH_MAX - 64], path[PATH_MAX], bin[PATH_MAX];
    scripts_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/%s", dir, c->exe);
    exe_dir(bin, sizeof bin);
    setenv("ORBBENCH_BIN", bin, 0);
    /* The script heads its messages "orbbench: NAME:" (orbbench.FRONT),
     * the command the user typed, not its own file's name. */
    setenv("ORBBENCH_FRONT", c->name, 1);
    argv[0] = path;
    execv(path, argv);
    int e = errno;
    cli_die(EXIT_USAGE, "%s: cannot run %s: %s%s", c->name, path,
            strerror(e),
            e == ENOENT ? " (not installed: it runs from a checkout)" : "");
}

static int run_help(void)
{
    fputs("usage: orbbench run SCENARIO.json [--set KEY=VALUE]... "
          "[--out FILE]\n"
          "                    [--progress|--no-progress] "
          "[--format text|json] [--paired]\n"
          "                    [--progress-fd FD]\n"
          "                    [--versus server.KEY=VALUE]... "
          "[--out-versus FILE]\n"
          "                    [--allow-host HOST|CIDR]...\n"
          "\n"
          "Run one scenario: fork echo servers step by step, time a round "
          "of calls to\n"
          "all of them at each step, stop when a round crosses "
          "sweep.max_ms, and write\n"
          "one JSON result; or measure what the scenario's kind says "
          "(rate, scaling,\n"
          "clock, latency, marshal, channel, fanin).\n"
          "\n"
          "options:\n"
          "  --set KEY=VALUE  override a scenario key (a dotted path, e.g. "
          "sweep.max_n=500;\n"
          "                   orbbench keys lists them)\n"
          "  --out FILE       the result file (default "
          "results/NAME-YYYYmmddTHHMMSS.json,\n"
          "                   under the working folder)\n"
          "  --progress, --no-progress\n"
          "                   a live progress line on stderr, or none "
          "(default: when\n"
          "                   stderr is a terminal)\n"
          "  --progress-fd FD the progress as JSON lines on descriptor FD "
          "(run-suite's;\n"
          "                   left out of the command the result records)\n"
          "  --format text|json\n"
          "                   how the run ends on stdout: a short block "
          "(servers held,\n"
          "                   what each server cost, the stop), or one "
          "JSON line per\n"
          "                   side (scenario, kind, orb, file, result)\n"
          "  --versus server.KEY=VALUE\n"
          "                   a paired run: a second set of servers (side "
          "B) with these\n"
          "                   server.* keys changed, measured in turns with "
          "side A\n"
          "                   (sweep.pairing: blocks)\n"
          "  --out-versus FILE  side B's result (default: A's file with "
          ".versus.json)\n"
          "  --paired         a paired run whose side B has A's settings "
          "(an A/A check)\n"
          "  --allow-host H   server.kind external: servers at host H (or "
          "in network\n"
          "                   a.b.c.d/bits) outside loopback may be called "
          "(with\n"
          "                   client.allow_hosts)\n"
          "  -h, --help       this help\n"
          "\n"
          "exit: 0 ran to a stop, 1 the run failed (a server died, a call "
          "failed),\n"
          "      2 usage or scenario error, 130 interrupted\n"
          "\n"
          "examples:\n"
          "  orbbench run scenarios/sync-unix.json --out /tmp/x.json\n"
          "  orbbench run scenarios/sync-tcp.json --set sweep.max_n=200 "
          "--set mode=event\n"
          "  orbbench run scenarios/sync-unix.json --versus "
          "server.orb=omniorb-4.3.3\n",
          stdout);
    return EXIT_OK;
}

static int check_help(void)
{
    fputs("usage: orbbench check SCENARIO.json [--set KEY=VALUE]... "
          "[--paired]\n"
          "                      [--versus server.KEY=VALUE]...\n"
          "\n"
          "Validate a scenario and print it resolved, as JSON: every key "
          "with its value\n"
          "or default (a paired run's two sides as \"a\" and \"b\"). "
          "Nothing runs.\n"
          "\n"
          "options:\n"
          "  --set KEY=VALUE  override a scenario key (orbbench keys lists "
          "them)\n"
          "  --paired, --versus server.KEY=VALUE\n"
          "                   both sides of a paired run (see orbbench help "
          "run)\n"
          "  -h, --help       this help\n"
          "\n"
          "exit: 0 the scenario is valid, 2 usage or scenario error (one "
          "line naming\n"
          "      the file or the key)\n"
          "\n"
          "examples:\n"
          "  orbbench check scenarios/sync-tcp.json\n"
          "  orbbench check scenarios/sync-tcp.json --set sweep.max_n=2k\n",
          stdout);
    return EXIT_OK;
}

static int keys_help(void)
{
    fputs("usage: orbbench keys\n"
          "\n"
          "Every key a scenario file may hold (the common ones, then each "
          "kind's): its\n"
          "name and type, its range or choices and default, and what it "
          "sets. A key\n"
          "is set in the scenario's JSON (\"sweep\": {\"max_n\": 500}) or "
          "on the command\n"
          "line of run and check (--set sweep.max_n=500).\n"
          "\n"
          "options:\n"
          "  -h, --help  this help\n"
          "\n"
          "exit: 0 listed\n"
          "\n"
          "examples:\n"
          "  orbbench keys\n"
          "  orbbench keys | grep -A1 '^  sweep\\.'\n",
          stdout);
    return EXIT_OK;
}

static int ior_help(void)
{
    char *args[] = {"ior", "--help", NULL};
    return iorcmd_main(2, args);
}

void subcmd_usage(FILE *f)
{
    char dir[PATH_MAX];
    int installed = scripts_dir(dir, sizeof dir);
    fputs("usage: orbbench SUBCOMMAND [ARGUMENTS...]\n"
          "       orbbench help [SUBCOMMAND] | --help | --version\n"
          "\n"
          "How many CORBA servers one machine holds before a round of calls "
          "to all of\n"
          "them gets slower than a threshold, and what each one costs. "
          "orbbench help\n"
          "SUBCOMMAND (or orbbench SUBCOMMAND --help) shows one's usage, "
          "options and\n"
          "examples.\n"
          "\n"
          "subcommands:\n", f);
    for (size_t i = 0; i < NSUBCMDS; i++)
        if (!(installed && SUBCMDS[i].checkout_only))
            fprintf(f, "  %-19s %s\n", SUBCMDS[i].name, SUBCMDS[i].summary);
    fputs("\n"
          "exit: 0 success, 1 the run failed (or a comparison found a "
          "regression),\n"
          "      2 usage, scenario or input error, 130 interrupted; a "
          "subcommand's\n"
          "      own help says what its codes mean\n"
          "\n"
          "examples:\n"
          "  orbbench run scenarios/sync-unix.json\n"
          "  orbbench suite scenarios/grisby\n"
          "  orbbench compare results/A results/B --fail-on slower "
          "--threshold 5\n"
          "  orbbench help compare\n", f);
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
            printf("%s\t%s\t%s\t%s\n", SUBCMDS[i].name,
                   SUBCMDS[i].exe ? SUBCMDS[i].exe : "-",
                   SUBCMDS[i].checkout_only ? "checkout" : "installed",
                   SUBCMDS[i].summary);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        subcmd_usage(stdout);
        return EXIT_OK;
    }
    const struct subcmd *c = subcmd_find(argv[1]);
    if (!c)
        subcmd_unknown(true, argv[1]);
    if (c->help)
        return c->help();
    char *args[] = {(char *)c->name, "--help", NULL};
    return subcmd_exec(c, args);
}

/* orbbench: the command line. Loads a scenario, starts the spawner before
 * any thread exists, runs the sweep, writes the result, prints a summary.
 * Exit codes: 0 ran to a stop, 1 the run failed, 2 usage or scenario
 * error, 130 interrupted (SIGINT/SIGTERM). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "callmode.h"
#include "machine.h"
#include "result.h"
#include "scenario.h"
#include "server_kind.h"
#include "spawn.h"
#include "sweep.h"
#include "transport.h"
#include "util.h"
#include "version.h"


enum { EXIT_RUN_FAILED = 1, EXIT_USAGE = 2 };
#define MAX_SETS 64

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: orbbench run SCENARIO.json [--set KEY=VALUE]... "
            "[--out FILE] [--progress|--no-progress]\n"
            "       orbbench check SCENARIO.json [--set KEY=VALUE]...\n"
            "       orbbench keys | --help | --version\n"
            "\n"
            "  run     fork echo servers step by step, time a round of calls "
            "to all of\n"
            "          them at each step, stop at sweep.max_ms, and write a "
            "JSON result\n"
            "  check   validate a scenario and print it resolved, with "
            "defaults\n"
            "  keys    list every scenario key with its range and default\n"
            "\n"
            "  --set KEY=VALUE  override a scenario key (dotted path, e.g. "
            "sweep.max_n=500)\n"
            "  --out FILE       result file (default "
            "results/NAME-YYYYmmddTHHMMSS.json)\n"
            "  --progress       a live progress line on stderr (default: "
            "when a terminal)\n"
            "\n"
            "exit: 0 ran to a stop, 1 the run failed (a server died, a "
            "call failed),\n"
            "      2 usage or scenario error, 130 interrupted\n");
}

static void die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("orbbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

/* The folder holding this executable, where the servers are built. */
static void exe_dir(char *buf, size_t len)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) {
        str_copy(buf, len, ".");
        return;
    }
    path[n] = 0;
    str_copy(buf, len, dirname(path));
}

static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static void default_out(const struct scenario *sc, char *buf, size_t len)
{
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
    mkdir("results", 0755);
    snprintf(buf, len, "results/%s-%s.json", sc->name, stamp);
}

/* One paragraph: what ran, how far it got, why it stopped, where the
 * figures are. */
static void summary(const struct scenario *sc, json_t *doc,
                    const struct sweep_outcome *o, const char *out)
{
    json_t *orb = json_object_get(doc, "orb");
    json_t *steps = json_object_get(doc, "steps");
    json_t *first = json_array_get(steps, 0);
    printf("%s: %s %s over %s, %s calls, max_ms %g: the machine held %lld "
           "servers (stop: %s; %s).",
           sc->name, json_string_value(json_object_get(orb, "name")),
           json_string_value(json_object_get(orb, "version"))
               ? json_string_value(json_object_get(orb, "version"))
               : "(version unknown)",
           sc->transport, sc->mode, sc->sweep.max_ms,
           (long long)o->max_servers, o->stop_reason, o->detail);
    json_t *res = json_object_get(doc, "result");
    json_t *cx = json_object_get(res, "crossing_interval");
    if (json_is_array(cx))
        printf(" Round time crosses %g ms at N=%.0f (95%% interval %.0f-%.0f).",
               sc->sweep.max_ms,
               json_number_value(json_object_get(res, "crossing_n")),
               json_number_value(json_array_get(cx, 0)),
               json_number_value(json_array_get(cx, 1)));
    json_t *last = json_array_get(steps, json_array_size(steps) - 1);
    json_t *per = json_object_get(last, "mem_per_server_kb");
    if (per)
        printf(" At N=%lld each server cost %.0f kB PSS, %.0f kB USS, %.0f kB "
               "of MemAvailable.",
               (long long)json_integer_value(json_object_get(last, "n")),
               json_number_value(json_object_get(per, "pss")),
               json_number_value(json_object_get(per, "uss")),
               json_number_value(json_object_get(per, "mem_available")));
    if (!sc->client.connect)
        printf(" The servers were idle: never connected or called.");
    else if (first)
        printf(" At N=%lld the median call took %.1f us.",
               (long long)json_integer_value(json_object_get(first, "n")),
               json_real_value(json_object_get(
                   json_object_get(first, "call_us"), "median")));
    printf(" %zu steps; result: %s\n", json_array_size(steps), out);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 's'},
        {"out", required_argument, NULL, 'o'},
        {"progress", no_argument, NULL, 'p'},
        {"no-progress", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    /* getopt permutes argv: keep the command as typed for the result.
     * Static, like argv itself: it lives as long as the process. */
    static char **typed;
    typed = malloc(((size_t)argc + 1) * sizeof *typed);
    if (!typed)
        die(EXIT_RUN_FAILED, "out of memory");
    memcpy(typed, argv, ((size_t)argc + 1) * sizeof *typed);
    char *sets[MAX_SETS];
    size_t nsets = 0;
    const char *out = NULL;
    int show_progress = isatty(2);
    int c;
    /* GNU getopt permutes: options may come before or after the words. */
    while ((c = getopt_long(argc, argv, "s:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (nsets == MAX_SETS)
                die(EXIT_USAGE, "more than %d --set options", MAX_SETS);
            sets[nsets++] = optarg;
            break;
        case 'o': out = optarg; break;
        case 'p': show_progress = 1; break;
        case 'P': show_progress = 0; break;
        case 'h': usage(stdout); return 0;
        case 'V':
            printf("orbbench %s (%s)\n", ORBBENCH_VERSION, ORBBENCH_GIT_REV);
            return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[optind++];
    if (strcmp(cmd, "keys") == 0) {
        scenario_print_keys(stdout);
        return 0;
    }
    if (strcmp(cmd, "run") != 0 && strcmp(cmd, "check") != 0)
        die(EXIT_USAGE, "unknown command \"%s\" (try --help)", cmd);
    if (optind >= argc)
        die(EXIT_USAGE, "%s: no scenario file given", cmd);
    if (argc - optind > 1)
        die(EXIT_USAGE, "%s: one scenario at a time (got %s and %s)", cmd,
            argv[optind], argv[optind + 1]);
    const char *path = argv[optind];

    struct scenario sc;
    char err[1024];
    if (scenario_load(path, sets, nsets, &sc, err, sizeof err) != 0)
        die(EXIT_USAGE, "%s", err);
    if (strcmp(cmd, "check") == 0) {
        json_dumpf(sc.resolved, stdout, JSON_INDENT(2));
        putchar('\n');
        scenario_free(&sc);
        return 0;
    }

    const struct server_kind *kind = server_kind_lookup(sc.server.kind);
    const struct transport_ops *tp = transport_lookup(sc.transport);
    const struct callmode_ops *mode = callmode_lookup(sc.mode);
    if (!kind || !tp || !mode)
        die(EXIT_USAGE, "%s: server.kind, transport or mode has no "
                        "implementation", path);
    if (sc.server.work_us > 0 && !kind->work_option)
        die(EXIT_USAGE, "%s: key \"server.work_us\": server kind \"%s\" "
                        "has no work option", path, kind->name);
    char server_path[PATH_MAX], why[1024];
    if (sc.server.path[0]) {
        str_copy(server_path, sizeof server_path, sc.server.path);
    } else {
        char dir[PATH_MAX - 64];
        exe_dir(dir, sizeof dir);
        if (server_resolve(kind, sc.server.orb, dir, server_path,
                           sizeof server_path, why, sizeof why) != 0)
            die(EXIT_USAGE, "%s: key \"server.orb\": %s", path, why);
    }
    char orb_name[64] = "unknown", orb_version[64] = "";
    int rc;
    if (access(server_path, X_OK) != 0)
        die(EXIT_USAGE, "%s: server %s: %s (run make first?)", path,
            server_path, strerror(errno));
    /* A server that cannot say its version can still be measured; the
     * result then says the version is unknown, and why. */
    int vrc = server_query_version(server_path, orb_name, sizeof orb_name,
                                   orb_version, sizeof orb_version, why,
                                   sizeof why);
    if (vrc)
        fprintf(stderr, "orbbench: warning: %s\n", why);

    /* Where the result goes: refuse now rather than lose a run at the end. */
    char out_buf[PATH_MAX];
    if (!out) {
        default_out(&sc, out_buf, sizeof out_buf);
        out = out_buf;
    }
    if ((rc = result_check_writable(out)) != 0)
        die(EXIT_USAGE, "--out %s: cannot write there: %s", out,
            strerror(-rc));

    /* The emulated machine: never run without the limit asked for. */
    struct machine machine;
    if (machine_setup(&machine, &sc, why, sizeof why) != 0)
        die(EXIT_USAGE, "%s: %s", path, why);

    char run_dir[] = "/tmp/orbbench-XXXXXX";
    if (!mkdtemp(run_dir)) {
        machine_remove_cgroup(machine.cgroup_dir);
        machine_remove_cgroup(machine.acct_dir);
        die(EXIT_RUN_FAILED, "mkdtemp %s: %s", run_dir, strerror(errno));
    }
    raise_nofile();

    struct server_launch launch = {kind,          server_path,
                                   sc.server.args, sc.server.nargs,
                                   sc.transport,  run_dir,
                                   sc.server.work_us};
    struct spawn_config scfg = {
        .make_argv = server_make_argv,
        .make_argv_arg = &launch,
        .log_dir = run_dir,
        .machine = &machine,
        .start_timeout_ms = sc.server.start_timeout_ms,
        .start_parallel = (int)sc.server.start_parallel,
    };
    struct spawner *sp;
    /* Before any thread exists: the spawner is forked from a plain,
     * single-threaded process. */
    rc = spawner_start(&sp, &scfg);
    if (rc) {
        rmdir(run_dir);
        machine_remove_cgroup(machine.cgroup_dir);
        machine_remove_cgroup(machine.acct_dir);
        die(EXIT_RUN_FAILED, "cannot fork the spawner: %s", strerror(-rc));
    }

    /* After the fork: the spawner (and so every server) keeps the CPUs it
     * was given, and stays out of a cgroup meant for the client. */
    if (machine_enter_client(&machine, sc.machine.limit_client, why,
                             sizeof why) != 0) {
        spawner_stop(sp, 0);
        die(EXIT_USAGE, "%s: %s", path, why);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: blocking waits see EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    json_t *doc = result_new(argc, typed);
    json_object_set_new(
        doc, "orb",
        json_pack("{s:s, s:s, s:s*, s:s, s:s*}", "id",
                  sc.server.path[0] ? "custom" : sc.server.orb, "name",
                  orb_name, "version", vrc ? NULL : orb_version,
                  "server_path", server_path, "version_error",
                  vrc ? why : NULL));
    json_object_set(doc, "scenario", sc.resolved);
    json_object_set_new(doc, "scenario_file", json_string(path));
    json_object_set_new(doc, "process_group",
                        json_integer(spawner_pgid(sp)));
    json_object_set_new(doc, "machine", machine_describe(&machine));

    struct sweep sw = {&sc,         kind,        tp,  mode,
                       sp,          &machine,    doc, out,
                       &interrupted, show_progress != 0};
    struct sweep_outcome o;
    sweep_run(&sw, &o);
    machine_leave_client(&machine);
    spawner_stop(sp, 2000); /* also removes run_dir and the cgroup */

    int wrc = result_write(doc, out);
    summary(&sc, doc, &o, out);
    if (wrc)
        fprintf(stderr, "orbbench: cannot write %s: %s\n", out,
                strerror(-wrc));
    if (o.exit_code == 1)
        fprintf(stderr, "orbbench: %s: %s\n", o.stop_reason, o.detail);
    json_decref(doc);
    scenario_free(&sc);
    if (wrc)
        return EXIT_RUN_FAILED;
    return o.exit_code;
}

/* orbbench: the command line. Loads a scenario, starts the spawner before
 * any thread exists, runs the scenario's kind of measurement (the sweep,
 * the upcall rate, or the ORB across cores), writes the result, prints a
 * summary.
 * Exit codes: 0 ran to a stop, 1 the run failed, 2 usage or scenario
 * error, 130 interrupted (SIGINT/SIGTERM). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#include "modes/callmode.h"
#include "kinds/channel.h"
#include "kinds/clock.h"
#include "iorcmd.h"
#include "kinds/latency.h"
#include "kinds/marshal.h"
#include "host/machine.h"
#include "host/probe.h"
#include "kinds/rate.h"
#include "core/result.h"
#include "kinds/scaling.h"
#include "core/scenario.h"
#include "host/server_kind.h"
#include "host/source.h"
#include "host/spawn.h"
#include "kinds/sweep.h"
#include "net/transport.h"
#include "core/util.h"
#include "core/version.h"


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
            "                    [--paired] [--versus server.KEY=VALUE]... "
            "[--out-versus FILE]\n"
            "                    [--allow-host HOST|CIDR]...\n"
            "       orbbench check SCENARIO.json [--set KEY=VALUE]...\n"
            "       orbbench ior [--json] IOR|-...\n"
            "       orbbench keys | --help | --version\n"
            "\n"
            "  run     fork echo servers step by step, time a round of calls "
            "to all of\n"
            "          them at each step, stop at sweep.max_ms, and write a "
            "JSON result\n"
            "  check   validate a scenario and print it resolved, with "
            "defaults\n"
            "  keys    list every scenario key with its range and default\n"
            "  ior     decode stringified IORs as catior does, and say what "
            "orbbench\n"
            "          would connect to (orbbench ior --help)\n"
            "\n"
            "  --set KEY=VALUE  override a scenario key (dotted path, e.g. "
            "sweep.max_n=500)\n"
            "  --out FILE       result file (default "
            "results/NAME-YYYYmmddTHHMMSS.json)\n"
            "  --progress       a live progress line on stderr (default: "
            "when a terminal)\n"
            "  --versus server.KEY=VALUE  a paired run: a second set of "
            "servers (side B)\n"
            "                   with these server.* keys changed, measured in "
            "alternate\n"
            "                   rounds with side A; B's result goes to "
            "--out-versus FILE\n"
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
                    const struct run_outcome *o, const char *out)
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

/* One paragraph for a rate run: the rate, the CPU per upcall. */
static void summary_rate(const struct scenario *sc, json_t *doc,
                         const struct run_outcome *o, const char *out)
{
    json_t *orb = json_object_get(doc, "orb");
    json_t *sum = json_object_get(doc, "rate");
    json_t *ups = json_object_get(sum, "upcalls_per_s");
    json_t *cpu = json_object_get(sum, "cpu_per_upcall_us");
    printf("%s: %s %s over %s, %lld server(s), %s: ", sc->name,
           json_string_value(json_object_get(orb, "name")),
           json_string_value(json_object_get(orb, "version"))
               ? json_string_value(json_object_get(orb, "version"))
               : "(version unknown)",
           sc->transport, (long long)sc->rate.servers,
           sc->rate.oneway ? "oneway requests"
           : sc->rate.window > 1 ? "pipelined calls"
                                 : "ping-pong calls");
    if (json_integer_value(json_object_get(sum, "repeats")) > 0)
        printf("%.1f kHz upcalls (median of %lld repeats, %.1f-%.1f); CPU "
               "per upcall client %.2f+%.2f us, servers %.2f+%.2f us "
               "(user+kernel).",
               json_number_value(json_object_get(ups, "median")) / 1e3,
               (long long)json_integer_value(json_object_get(sum, "repeats")),
               json_number_value(json_object_get(ups, "min")) / 1e3,
               json_number_value(json_object_get(ups, "max")) / 1e3,
               json_number_value(json_object_get(cpu, "client_user")),
               json_number_value(json_object_get(cpu, "client_sys")),
               json_number_value(json_object_get(cpu, "server_user")),
               json_number_value(json_object_get(cpu, "server_sys")));
    else
        printf("no repeat was measured.");
    printf(" Stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

/* One paragraph for a clock run: per source the summed calls/s at the
 * smallest and largest k. */
static void summary_clock(const struct scenario *sc, json_t *doc,
                          const struct run_outcome *o, const char *out)
{
    json_t *src, *ks;
    size_t i;
    printf("%s: time-source calls per second, clocksource %s:", sc->name,
           json_string_value(json_object_get(json_object_get(doc, "clock"),
                                             "clocksource")));
    json_array_foreach(json_object_get(doc, "sources"), i, src) {
        ks = json_object_get(src, "ks");
        json_t *lo = json_array_get(ks, 0);
        json_t *hi = json_array_get(ks, json_array_size(ks) - 1);
        json_t *slo = json_object_get(lo, "sum_calls_per_s");
        json_t *shi = json_object_get(hi, "sum_calls_per_s");
        const char *name = json_string_value(json_object_get(src, "name"));
        if (!json_is_object(slo) || !json_is_object(shi)) {
            printf(" %s not measured;", name);
            continue;
        }
        printf(" %s %.1f M/s at k=%lld, %.1f M/s at k=%lld;", name,
               json_number_value(json_object_get(slo, "median")) / 1e6,
               (long long)json_integer_value(json_object_get(lo, "k")),
               json_number_value(json_object_get(shi, "median")) / 1e6,
               (long long)json_integer_value(json_object_get(hi, "k")));
    }
    printf(" stop: %s (%s); result: %s\n", o->stop_reason, o->detail, out);
}

/* The kinds of measurement a scenario's "kind" names. */
struct measurement {
    const char *name;
    void (*run)(struct run *sides, struct run_outcome *o, size_t n);
    void (*summary)(const struct scenario *sc, json_t *doc,
                    const struct run_outcome *o, const char *out);
    /* Why this kind of server cannot run it (and the key to blame), or
     * NULL. Optional. */
    const char *(*unsupported)(const struct scenario *sc,
                               const struct server_kind *kind,
                               const char **key);
    bool pairs; /* can run paired (--paired, --versus) */
    /* Starts no server: no spawner, ORB, cgroup or placement of servers
     * (run_serverless). */
    bool serverless;
    /* For a kind that starts other processes than the scenario's echo
     * servers: sets up the spawner's groups for them before the spawner
     * is forked. 0, or -errno with a one-line reason (-ENOENT: a missing
     * executable, a usage error). Optional. */
    int (*spawn_setup)(const struct scenario *sc, const char *bin_dir,
                       struct spawn_config *cfg, char *why, size_t why_len);
};

static const struct measurement measurements[] = {
    {"sweep", sweep_run, summary, NULL, true, false, NULL},
    {"clock", clock_run, summary_clock, NULL, false, true, NULL},
    {"rate", rate_run, summary_rate, rate_unsupported, false, false, NULL},
    {"scaling", scaling_run, scaling_summary, NULL, false, false, NULL},
    {"channel", channel_run, channel_summary, channel_unsupported, false,
     false, channel_spawn_setup},
    {"latency", latency_run, latency_summary, NULL, false, false, NULL},
    {"marshal", marshal_run, marshal_summary, NULL, false, true, NULL},
};

static const struct measurement *measurement_lookup(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(measurements); i++)
        if (strcmp(measurements[i].name, name) == 0)
            return &measurements[i];
    return NULL;
}

/* What one side of a run needs: its scenario, server, result. */
struct side {
    struct scenario sc;
    bool loaded;
    const struct server_kind *kind;
    const struct transport_ops *tp;
    const struct callmode_ops *mode;
    char server_path[PATH_MAX];
    char orb_name[64];
    char orb_version[64];
    int vrc;
    char vwhy[1024];
    char out[PATH_MAX];
    struct machine machine;
    struct server_launch launch;
    json_t *doc;
};

/* Resolve side s's kind, transport, mode and server; ask the server its
 * version. Exits 2 on a scenario that cannot run. */
static void resolve_side(struct side *s, const char *path)
{
    const struct scenario *sc = &s->sc;
    char why[1024];
    s->kind = server_kind_lookup(sc->server.kind);
    s->tp = transport_lookup(sc->transport);
    s->mode = callmode_lookup(sc->mode);
    if (!s->kind || !s->tp || !s->mode)
        die(EXIT_USAGE, "%s: server.kind, transport or mode has no "
                        "implementation", path);
    char served[128];
    if (!server_kind_serves(s->kind, sc->transport, served, sizeof served))
        die(EXIT_USAGE, "%s: key \"transport\": server kind \"%s\" does not "
                        "serve \"%s\" (it serves %s)", path, s->kind->name,
            sc->transport, served);
    if (sc->server.work_us > 0 && !s->kind->work_option)
        die(EXIT_USAGE, "%s: key \"server.work_us\": server kind \"%s\" "
                        "has no work option", path, s->kind->name);
    const struct measurement *m = measurement_lookup(sc->kind);
    const char *key = NULL, *no = m && m->unsupported
                                          ? m->unsupported(sc, s->kind, &key)
                                          : NULL;
    if (no)
        die(EXIT_USAGE, "%s: key \"%s\": server kind \"%s\" %s", path, key,
            s->kind->name, no);
    if (!s->kind->binary) {
        s->server_path[0] = 0;
    } else if (sc->server.path[0]) {
        str_copy(s->server_path, sizeof s->server_path, sc->server.path);
    } else {
        char dir[PATH_MAX - 64];
        exe_dir(dir, sizeof dir);
        if (server_resolve(s->kind, sc->server.orb, dir, s->server_path,
                           sizeof s->server_path, why, sizeof why) != 0)
            die(EXIT_USAGE, "%s: key \"server.orb\": %s", path, why);
    }
    if (!s->kind->binary) {
        /* Servers orbbench does not start: nothing to run or ask. */
        str_copy(s->orb_name, sizeof s->orb_name, "unknown");
        s->vrc = -ENOENT;
        snprintf(s->vwhy, sizeof s->vwhy, "server.kind %s: orbbench did not "
                 "start the servers and does not ask their version",
                 s->kind->name);
        return;
    }
    if (access(s->server_path, X_OK) != 0)
        die(EXIT_USAGE, "%s: server %s: %s (run make first?)", path,
            s->server_path, strerror(errno));
    str_copy(s->orb_name, sizeof s->orb_name, "unknown");
    /* A server that cannot say its version can still be measured; the
     * result then says the version is unknown, and why. */
    s->vrc = server_query_version(s->server_path, s->orb_name,
                                  sizeof s->orb_name, s->orb_version,
                                  sizeof s->orb_version, s->vwhy,
                                  sizeof s->vwhy);
    if (s->vrc)
        fprintf(stderr, "orbbench: warning: %s\n", s->vwhy);
}

/* A kind that starts no server (clock): its result, run and summary.
 * Returns the exit code. */
static int run_serverless(const struct measurement *what, struct side *s,
                          const char *path, const char *out, int argc,
                          char **typed, bool show_progress)
{
    (void)out; /* s->out: checked by main */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: sleeps see EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    s->doc = result_new(what->name, argc, typed);
    probe_describe(s->doc);
    json_object_set_new(s->doc, "orb", json_null());
    json_object_set(s->doc, "scenario", s->sc.resolved);
    json_object_set_new(s->doc, "scenario_file", json_string(path));
    struct run sw = {.sc = &s->sc, .doc = s->doc, .out_path = s->out,
                       .interrupted = &interrupted,
                       .progress = show_progress};
    struct run_outcome o;
    what->run(&sw, &o, 1);
    int w = result_write(s->doc, s->out);
    what->summary(&s->sc, s->doc, &o, s->out);
    json_decref(s->doc);
    scenario_free(&s->sc);
    if (w) {
        fprintf(stderr, "orbbench: cannot write %s: %s\n", s->out,
                strerror(-w));
        return EXIT_RUN_FAILED;
    }
    if (o.exit_code == 1)
        fprintf(stderr, "orbbench: %s: %s\n", o.stop_reason, o.detail);
    return o.exit_code;
}

/* The client's descriptor limit before and after raise_nofile. */
struct nofile {
    struct rlimit start, now;
    long long needed;
    int err; /* raising the hard limit to `needed` failed: errno */
};

static long long rlim_json(rlim_t v)
{
    return v == RLIM_INFINITY ? -1 : (long long)v;
}

/* N is bounded by the machine, not a soft limit: the soft limit goes to
 * the hard one, and when the sweep needs more than that (max_n servers'
 * connections, each side, plus a margin for the client's own files), the
 * hard limit too where this process may (CAP_SYS_RESOURCE, up to
 * fs.nr_open). The spawner and servers inherit it. */
static void raise_nofile(const struct side *sides, size_t nsides,
                         struct nofile *nf)
{
    memset(nf, 0, sizeof *nf);
    if (getrlimit(RLIMIT_NOFILE, &nf->start) != 0)
        return;
    nf->now = nf->start;
    nf->needed = 256;
    for (size_t i = 0; i < nsides; i++)
        nf->needed += sides[i].sc.sweep.max_n *
                      (long long)sides[i].tp->fds_per_conn;
    struct rlimit rl = nf->start;
    if (rl.rlim_max != RLIM_INFINITY && (long long)rl.rlim_max < nf->needed) {
        struct rlimit more = {(rlim_t)nf->needed, (rlim_t)nf->needed};
        if (setrlimit(RLIMIT_NOFILE, &more) == 0)
            rl = more;
        else
            nf->err = errno;
    }
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    getrlimit(RLIMIT_NOFILE, &nf->now);
}

/* Into the result's limits: what the client started with and what it
 * raised it to (limits.nofile is the limit after). */
static void record_nofile(json_t *doc, const struct nofile *nf)
{
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I}", "soft_at_start",
                          (json_int_t)rlim_json(nf->start.rlim_cur),
                          "hard_at_start",
                          (json_int_t)rlim_json(nf->start.rlim_max), "soft",
                          (json_int_t)rlim_json(nf->now.rlim_cur), "hard",
                          (json_int_t)rlim_json(nf->now.rlim_max), "needed",
                          (json_int_t)nf->needed);
    if (nf->err)
        json_object_set_new(o, "raise_hard_error",
                            json_string(strerror(nf->err)));
    json_object_set_new(json_object_get(doc, "limits"), "nofile_raised", o);
}

/* A paired run's side B differs from A only in server.* keys: the client
 * (mode, transport, sweep, calls) must be the same, or the comparison is
 * not of the servers. */
static void check_versus(char *const *versus, size_t n, const struct side *a)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(versus[i], "server.", 7) != 0)
            die(EXIT_USAGE, "--versus %s: only server.* keys may differ "
                            "between the sides of a paired run",
                versus[i]);
    if (a->sc.machine.mem_limit_mb > 0)
        die(EXIT_USAGE, "a paired run: machine.mem_limit_mb would be one limit "
                        "for both sides' servers; run the sides apart");
}

/* B's result file by default: A's with ".versus" before ".json". */
static void versus_out(const char *a, char *buf, size_t len)
{
    size_t n = strlen(a);
    if (n > 5 && strcmp(a + n - 5, ".json") == 0)
        snprintf(buf, len, "%.*s.versus.json", (int)(n - 5), a);
    else
        snprintf(buf, len, "%s.versus", a);
}

/* A paired run's identity, the same in both results. */
static void pairing_id(char *buf, size_t len)
{
    snprintf(buf, len, "%llx-%d", (unsigned long long)wall_ns(),
             (int)getpid());
}

/* server.kind external: the IOR list, the hosts allowed beside loopback
 * (the scenario's and --allow-host's), and the sweep's max_n within the
 * list. Exits 2 on a list or an allowance that cannot run. */
static void load_external(struct side *s, const char *path, char **cli,
                          size_t ncli, struct ior_list *l, char **allow,
                          size_t *nallow, char *max_n_why, size_t len)
{
    struct scenario *sc = &s->sc;
    char why[1024];
    *nallow = 0;
    for (size_t i = 0; i < sc->client.nallow_hosts; i++)
        allow[(*nallow)++] = sc->client.allow_hosts[i];
    for (size_t i = 0; i < ncli; i++)
        allow[(*nallow)++] = cli[i];
    for (size_t i = 0; i < *nallow; i++)
        if (!ior_allow_valid(allow[i]))
            die(EXIT_USAGE, "%s: %s \"%s\": expected a host or an IPv4 "
                "network a.b.c.d/bits", path,
                i < sc->client.nallow_hosts ? "key \"client.allow_hosts\""
                                            : "--allow-host",
                allow[i]);
    if (sc->machine.mem_limit_mb > 0 || sc->machine.cpus[0])
        die(EXIT_USAGE, "%s: key \"machine\": external servers were not "
            "started by orbbench: no memory limit or CPUs can be set for "
            "them", path);
    if (ior_list_load(l, sc->server.iors, sc->transport, allow, *nallow, why,
                      sizeof why) != 0)
        die(EXIT_USAGE, "%s", why);
    /* N grows over the list in order: it ends at the list's end. */
    if ((size_t)sc->sweep.start > l->n)
        die(EXIT_USAGE, "%s: key \"sweep.start\": %lld is above the %zu "
            "servers %s lists", path, (long long)sc->sweep.start, l->n,
            l->path);
    max_n_why[0] = 0;
    if ((size_t)sc->sweep.max_n > l->n) {
        snprintf(max_n_why, len, "the end of %s: it lists %zu servers, "
                 "sweep.max_n was %lld",
                 strcmp(l->path, "-") ? l->path : "standard input", l->n,
                 (long long)sc->sweep.max_n);
        sc->sweep.max_n = (int64_t)l->n;
    }
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
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    /* `ior` has options of its own: it parses its whole command line. */
    if (argc > 1 && strcmp(argv[1], "ior") == 0)
        return iorcmd_main(argc - 1, argv + 1);
    /* getopt permutes argv: keep the command as typed for the result.
     * Static, like argv itself: it lives as long as the process. */
    static char **typed;
    typed = malloc(((size_t)argc + 1) * sizeof *typed);
    if (!typed)
        die(EXIT_RUN_FAILED, "out of memory");
    memcpy(typed, argv, ((size_t)argc + 1) * sizeof *typed);
    /* Side B's --set list is A's followed by the --versus ones. */
    char *sets[2 * MAX_SETS];
    char *versus[MAX_SETS];
    char *allow_cli[SCENARIO_MAX_HOSTS];
    size_t nsets = 0, nversus = 0, nallow_cli = 0;
    const char *out = NULL, *out_b = NULL;
    int show_progress = isatty(2);
    bool paired = false;
    int c;
    /* GNU getopt permutes: options may come before or after the words. */
    while ((c = getopt_long(argc, argv, "s:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (nsets == MAX_SETS)
                die(EXIT_USAGE, "more than %d --set options", MAX_SETS);
            sets[nsets++] = optarg;
            break;
        case 'v':
            if (nversus == MAX_SETS)
                die(EXIT_USAGE, "more than %d --versus options", MAX_SETS);
            versus[nversus++] = optarg;
            break;
        case 'H':
            if (nallow_cli == SCENARIO_MAX_HOSTS)
                die(EXIT_USAGE, "more than %d --allow-host options",
                    SCENARIO_MAX_HOSTS);
            allow_cli[nallow_cli++] = optarg;
            break;
        case 'o': out = optarg; break;
        case 'O': out_b = optarg; break;
        case 'A': paired = true; break;
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
    paired = paired || nversus > 0;
    if (out_b && !paired)
        die(EXIT_USAGE, "--out-versus: only in a paired run (--paired or "
                        "--versus)");
    const char *path = argv[optind];

    static struct side sides[RUN_MAX_SIDES];
    size_t nsides = paired ? 2 : 1;
    char err[1024], why[1024];
    if (scenario_load(path, sets, nsets, &sides[0].sc, err, sizeof err) != 0)
        die(EXIT_USAGE, "%s", err);
    const struct measurement *what = measurement_lookup(sides[0].sc.kind);
    if (!what)
        die(EXIT_USAGE, "%s: key \"kind\": \"%s\" has no implementation",
            path, sides[0].sc.kind);
    if (paired && !what->pairs)
        die(EXIT_USAGE, "%s: key \"kind\": a %s scenario cannot run paired "
                        "(--paired, --versus)", path, what->name);
    if (paired) {
        check_versus(versus, nversus, &sides[0]);
        memcpy(sets + nsets, versus, nversus * sizeof *versus);
        if (scenario_load(path, sets, nsets + nversus, &sides[1].sc, err,
                          sizeof err) != 0)
            die(EXIT_USAGE, "%s", err);
    }
    for (size_t i = 0; i < nsides; i++)
        if (server_args_check(sides[i].sc.server.args,
                              sides[i].sc.server.nargs, why, sizeof why))
            die(EXIT_USAGE, "%s: %s", path, why);
    if (strcmp(cmd, "check") == 0) {
        json_t *show = paired ? json_pack("{s:O, s:O}", "a",
                                           sides[0].sc.resolved, "b",
                                           sides[1].sc.resolved)
                               : json_incref(sides[0].sc.resolved);
        json_dumpf(show, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(show);
        for (size_t i = 0; i < nsides; i++)
            scenario_free(&sides[i].sc);
        return 0;
    }
    /* Where the results go: refuse now rather than lose a run at the
     * end. */
    if (out)
        str_copy(sides[0].out, sizeof sides[0].out, out);
    else
        default_out(&sides[0].sc, sides[0].out, sizeof sides[0].out);
    if (paired) {
        if (out_b)
            str_copy(sides[1].out, sizeof sides[1].out, out_b);
        else
            versus_out(sides[0].out, sides[1].out, sizeof sides[1].out);
    }
    struct result_target targets[] = {{"--out", sides[0].out},
                                      {"--out-versus", sides[1].out}};
    struct result_target inputs[] = {
        {"the scenario file", path}, {"server.iors", sides[0].sc.server.iors}};
    if (result_check_targets(targets, nsides, inputs, 2, why, sizeof why))
        die(EXIT_USAGE, "%s", why);
    if (what->serverless)
        return run_serverless(what, &sides[0], path, out, argc, typed,
                              show_progress != 0);
    for (size_t i = 0; i < nsides; i++)
        resolve_side(&sides[i], path);
    bool external = !sides[0].kind->binary;
    static struct ior_list iors;
    char *allow[2 * SCENARIO_MAX_HOSTS];
    size_t nallow = 0;
    char max_n_why[768] = "";
    if (nallow_cli && !external)
        die(EXIT_USAGE, "--allow-host: only for server.kind external");
    if (paired && (external || !sides[1].kind->binary))
        die(EXIT_USAGE, "%s: key \"server.kind\": external servers cannot "
            "run paired", path);
    if (external)
        load_external(&sides[0], path, allow_cli, nallow_cli, &iors, allow,
                      &nallow, max_n_why, sizeof max_n_why);

    int rc;
    /* The emulated machine: never run without the limit asked for. Side B
     * gets cgroups of its own, so its servers' CPU is counted apart. */
    for (size_t i = 0; i < nsides; i++)
        if (machine_setup(&sides[i].machine, &sides[i].sc, i ? "-b" : "",
                          why, sizeof why) != 0) {
            if (i)
                machine_remove_cgroup(sides[0].machine.acct_dir);
            die(EXIT_USAGE, "%s: %s", path, why);
        }

    char run_dir[] = "/tmp/orbbench-XXXXXX";
    if (!mkdtemp(run_dir)) {
        for (size_t i = 0; i < nsides; i++) {
            machine_remove_cgroup(sides[i].machine.cgroup_dir);
            machine_remove_cgroup(sides[i].machine.acct_dir);
        }
        die(EXIT_RUN_FAILED, "mkdtemp %s: %s", run_dir, strerror(errno));
    }
    struct nofile nofile;
    raise_nofile(sides, nsides, &nofile);

    struct spawn_config scfg = {
        .make_argv = server_make_argv,
        .ngroups = (int)nsides,
        .log_dir = run_dir,
        .start_timeout_ms = sides[0].sc.server.start_timeout_ms,
        .start_parallel = (int)sides[0].sc.server.start_parallel,
    };
    for (size_t i = 0; i < nsides; i++) {
        struct side *s = &sides[i];
        s->launch = (struct server_launch){
            s->kind,        s->server_path, s->sc.server.args,
            s->sc.server.nargs, s->sc.transport, run_dir,
            s->sc.server.work_us};
        scfg.groups[i] = (struct spawn_group){
            .make_argv_arg = &s->launch, .machine = &s->machine,
            .pipe_pair = s->tp->spawner_pipes};
    }
    struct spawner *sp;
    char bin_dir[PATH_MAX - 64];
    exe_dir(bin_dir, sizeof bin_dir);
    if (what->spawn_setup &&
        (rc = what->spawn_setup(&sides[0].sc, bin_dir, &scfg, why,
                                sizeof why))) {
        rmdir(run_dir); /* setup fails before it puts anything there */
        for (size_t i = 0; i < nsides; i++) {
            machine_remove_cgroup(sides[i].machine.cgroup_dir);
            machine_remove_cgroup(sides[i].machine.acct_dir);
        }
        die(rc == -ENOENT ? EXIT_USAGE : EXIT_RUN_FAILED, "%s: %s", path,
            why);
    }
    /* Before any thread exists: the spawner is forked from a plain,
     * single-threaded process. */
    rc = spawner_start(&sp, &scfg);
    if (rc) {
        rmdir(run_dir);
        for (size_t i = 0; i < nsides; i++) {
            machine_remove_cgroup(sides[i].machine.cgroup_dir);
            machine_remove_cgroup(sides[i].machine.acct_dir);
        }
        die(EXIT_RUN_FAILED, "cannot fork the spawner: %s", strerror(-rc));
    }

    /* After the fork: the spawner (and so every server) keeps the CPUs it
     * was given, and stays out of a cgroup meant for the client. */
    if (machine_enter_client(&sides[0].machine,
                             sides[0].sc.machine.limit_client, why,
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

    struct server_source list_src;
    if (external)
        server_source_list(&list_src, &iors);
    char pair_id[64];
    pairing_id(pair_id, sizeof pair_id);
    struct run sw[RUN_MAX_SIDES];
    struct run_outcome o[RUN_MAX_SIDES];
    for (size_t i = 0; i < nsides; i++) {
        struct side *s = &sides[i];
        s->doc = result_new(what->name, argc, typed);
        probe_describe(s->doc);
        json_object_set_new(
            s->doc, "orb",
            json_pack("{s:s, s:s, s:s*, s:s, s:s*}", "id",
                      s->sc.server.path[0] ? "custom"
                      : s->kind->library   ? s->sc.server.orb
                                           : s->kind->name,
                      "name", s->orb_name, "version",
                      s->vrc ? NULL : s->orb_version, "server_path",
                      s->server_path, "version_error",
                      s->vrc ? s->vwhy : NULL));
        record_nofile(s->doc, &nofile);
        json_object_set(s->doc, "scenario", s->sc.resolved);
        json_object_set_new(s->doc, "scenario_file", json_string(path));
        json_object_set_new(s->doc, "process_group",
                            json_integer(spawner_pgid(sp)));
        json_object_set_new(s->doc, "machine", machine_describe(&s->machine));
        if (external)
            json_object_set_new(s->doc, "external",
                                ior_list_json(&iors, allow, nallow,
                                              s->sc.sweep.max_n));
        if (paired) {
            json_t *vs = json_array();
            for (size_t k = 0; k < nversus; k++)
                json_array_append_new(vs, json_string(versus[k]));
            json_object_set_new(
                s->doc, "paired",
                json_pack("{s:s, s:s, s:s, s:o}", "id", pair_id, "side",
                          i ? "b" : "a", "other", sides[1 - i].out,
                          "versus", vs));
        }
        sw[i] = (struct run){&s->sc,      s->kind,
                               s->tp,       s->mode,
                               sp,          (int)i,
                               &s->machine, s->doc,
                               s->out,      &interrupted,
                               show_progress != 0,
                               paired ? (i ? "B" : "A") : NULL,
                               NULL, false, NULL};
        if (external) {
            /* Not our servers: no cgroup holds them (its CPU and OOM
             * counts would be someone else's). */
            sw[i].machine = NULL;
            sw[i].src = &list_src;
            sw[i].remote_ok = true;
            sw[i].max_n_why = max_n_why[0] ? max_n_why : NULL;
        }
    }
    what->run(sw, o, nsides);
    machine_leave_client(&sides[0].machine);
    spawner_stop(sp, 2000); /* also removes run_dir and the cgroups */

    int exit_code = 0, wrc = 0;
    for (size_t i = 0; i < nsides; i++) {
        struct side *s = &sides[i];
        int w = result_write(s->doc, s->out);
        if (paired)
            printf("[%s] ", i ? "B" : "A");
        what->summary(&s->sc, s->doc, &o[i], s->out);
        if (w) {
            fprintf(stderr, "orbbench: cannot write %s: %s\n", s->out,
                    strerror(-w));
            wrc = w;
        }
        if (o[i].exit_code == 1)
            fprintf(stderr, "orbbench: %s%s: %s\n",
                    paired ? (i ? "side B: " : "side A: ") : "",
                    o[i].stop_reason, o[i].detail);
        /* A failure outranks an interrupt, which outranks a stop. */
        if (o[i].exit_code == 1 ||
            (o[i].exit_code == 130 && exit_code == 0))
            exit_code = o[i].exit_code;
        json_decref(s->doc);
        scenario_free(&s->sc);
    }
    ior_list_free(&iors);
    if (wrc)
        return EXIT_RUN_FAILED;
    return exit_code;
}

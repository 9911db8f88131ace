/* orbbench run and check: load the scenario (both sides of a paired run),
 * resolve each side's server, set up the emulated machine, fork the
 * spawner before any thread exists, build each side's result document
 * and run context, run the scenario's kind through its row
 * (kinds/kind.h), write the results and print the summaries. */
#include "runcmd.h"
#include "runcmd_impl.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
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
#include "kinds/kind.h"
#include "host/caller.h"
#include "host/caller_kind.h"
#include "host/machine.h"
#include "host/probe.h"
#include "core/result.h"
#include "core/scenario.h"
#include "host/server_kind.h"
#include "host/source.h"
#include "host/spawn.h"
#include "net/transport.h"
#include "core/util.h"
#include "core/version.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
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

/* SIGINT, SIGTERM, SIGHUP end the run at its next check; a closed
 * connection is an error, not a signal. */
static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: blocking waits see EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* How a run ends on stdout: the kind's block, or (--format json) one
 * line of JSON: the scenario, kind, ORB, result file and result (costs
 * and all); `side` "a" or "b" in a paired run, else NULL. */
static void print_end(const struct kind_ops *what, const struct side_setup *s,
                      const struct run_outcome *o, bool as_json,
                      const char *side)
{
    if (!as_json) {
        what->summary(&s->sc, s->doc, o, s->out);
        return;
    }
    json_t *j = json_pack(
        "{s:O?, s:s, s:O?, s:s, s:O?}", "scenario",
        json_object_get(json_object_get(s->doc, "scenario"), "name"), "kind",
        what->scenario.name, "orb", json_object_get(s->doc, "orb"), "file",
        s->out, "result", json_object_get(s->doc, "result"));
    if (j && side)
        json_object_set_new(j, "side", json_string(side));
    if (j)
        json_dumpf(j, stdout, JSON_COMPACT | JSON_REAL_PRECISION(9));
    putchar('\n');
    json_decref(j);
}

/* A kind that starts no server (clock, marshal): its result, run and
 * summary; s->out was checked. Returns the exit code. */
static int run_serverless(const struct kind_ops *what, struct side_setup *s,
                          const char *path, int argc, char **typed,
                          bool show_progress, bool as_json, int progress_fd)
{
    catch_signals();
    s->doc = result_new(what->scenario.name, argc, typed);
    probe_describe(s->doc);
    json_object_set_new(s->doc, "orb", json_null());
    json_object_set(s->doc, "scenario", s->sc.resolved);
    json_object_set_new(s->doc, "scenario_file", json_string(path));
    struct side sw = {.sc = &s->sc, .doc = s->doc, .out_path = s->out,
                       .interrupted = &interrupted,
                       .progress = show_progress,
                       .progress_fd = progress_fd};
    struct run_outcome o;
    what->run(&sw, &o, 1);
    int w = result_write(s->doc, s->out);
    print_end(what, s, &o, as_json, NULL);
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

/* One run or check of a scenario: its sides and what they share. */
struct runcmd {
    const struct runcmd_args *a;
    const char *path;
    bool paired;
    const struct kind_ops *what;
    struct side_setup *sides;
    size_t nsides;
    bool external;            /* server.kind external: an IOR list */
    struct ior_list iors;
    char *allow[2 * SCENARIO_MAX_HOSTS];
    size_t nallow;
    char max_n_why[768];
    struct nofile nofile;
    char run_dir[48];
    /* What earlier runs, killed together with their spawner, left
     * behind and this one removed (";"-separated): in the result. */
    char leftovers[2048];
    /* The spawner keeps a pointer to its config: it lives as long. */
    struct spawn_config scfg;
    struct spawner *sp;
    char why[1024];
};

/* Load the scenario (twice for a paired run: B's with the --versus keys)
 * and find its kind. Exits 2 on a scenario that cannot run. */
static void load_sides(struct runcmd *r)
{
    const struct runcmd_args *a = r->a;
    char err[1024];
    struct side_setup *sides = r->sides;
    if (scenario_load(kind_schema(), r->path, a->sets, a->nsets,
                      &sides[0].sc, err, sizeof err) != 0)
        cli_die(EXIT_USAGE, "%s", err);
    r->what = kind_lookup(sides[0].sc.kind);
    if (!r->what)
        cli_die(EXIT_USAGE, "%s: key \"kind\": \"%s\" has no implementation",
                r->path, sides[0].sc.kind);
    if (r->paired && !(r->what->flags & KIND_PAIRS))
        cli_die(EXIT_USAGE, "%s: key \"kind\": a %s scenario cannot run "
                "paired (--paired, --versus)", r->path,
                r->what->scenario.name);
    if (r->paired) {
        check_versus(a->versus, a->nversus, &sides[0]);
        memcpy(a->sets + a->nsets, a->versus,
               a->nversus * sizeof *a->versus);
        if (scenario_load(kind_schema(), r->path, a->sets,
                          a->nsets + a->nversus, &sides[1].sc, err,
                          sizeof err) != 0)
            cli_die(EXIT_USAGE, "%s", err);
    }
    for (size_t i = 0; i < r->nsides; i++)
        if (server_args_check(sides[i].sc.server.args,
                              sides[i].sc.server.nargs, r->why,
                              sizeof r->why))
            cli_die(EXIT_USAGE, "%s: %s", r->path, r->why);
}

/* orbbench check: the resolved scenario (both sides of a paired run). */
static int print_resolved(struct runcmd *r)
{
    json_t *show = r->paired ? json_pack("{s:O, s:O}", "a",
                                         r->sides[0].sc.resolved, "b",
                                         r->sides[1].sc.resolved)
                             : json_incref(r->sides[0].sc.resolved);
    json_dumpf(show, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(show);
    for (size_t i = 0; i < r->nsides; i++)
        scenario_free(&r->sides[i].sc);
    return 0;
}

/* Where the results go: refuse now rather than lose a run at the end. */
static void choose_outputs(struct runcmd *r)
{
    struct side_setup *sides = r->sides;
    if (r->a->out)
        str_copy(sides[0].out, sizeof sides[0].out, r->a->out);
    else
        default_out(&sides[0].sc, sides[0].out, sizeof sides[0].out);
    if (r->paired) {
        if (r->a->out_b)
            str_copy(sides[1].out, sizeof sides[1].out, r->a->out_b);
        else
            versus_out(r->a->out ? r->a->out : sides[0].out, sides[1].out,
                       sizeof sides[1].out);
    }
    struct result_target targets[] = {{"--out", sides[0].out},
                                      {"--out-versus", sides[1].out}};
    struct result_target inputs[] = {
        {"the scenario file", r->path},
        {"server.iors", sides[0].sc.server.iors}};
    if (result_check_targets(targets, r->nsides, inputs, 2, r->why,
                             sizeof r->why))
        cli_die(EXIT_USAGE, "%s", r->why);
}

/* Each side's server, and the IOR list of servers orbbench did not
 * start. Exits 2 on what cannot run. */
static void resolve_servers(struct runcmd *r)
{
    for (size_t i = 0; i < r->nsides; i++) {
        resolve_side(&r->sides[i], r->path);
        resolve_caller(&r->sides[i], r->path);
    }
    r->external = !server_kind_starts(r->sides[0].server);
    if (r->a->nallow_cli && !r->external)
        cli_die(EXIT_USAGE, "--allow-host: only for server.kind external");
    if (r->paired && (r->external || !server_kind_starts(r->sides[1].server)))
        cli_die(EXIT_USAGE, "%s: key \"server.kind\": external servers "
                "cannot run paired", r->path);
    if (r->external)
        load_external(r->what, &r->sides[0], r->path, r->a->allow_cli,
                      r->a->nallow_cli, &r->iors, r->allow, &r->nallow,
                      r->max_n_why, sizeof r->max_n_why);
}

static void remove_cgroups(struct runcmd *r)
{
    for (size_t i = 0; i < r->nsides; i++) {
        machine_remove_cgroup(r->sides[i].machine.cgroup_dir);
        machine_remove_cgroup(r->sides[i].machine.acct_dir);
        machine_remove_cgroup(r->sides[i].caller_machine.acct_dir);
    }
}

/* Say which variables of the environment the servers will not get
 * (spawn_env_unsafe): they could make a server listen beyond loopback. */
static void warn_unsafe_env(void)
{
    char names[512] = "";
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (spawn_env_unsafe(*e, len))
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s%.*s", names[0] ? ", " : "", (int)len, *e);
    }
    if (names[0])
        fprintf(stderr, "orbbench: warning: not passed to the servers, "
                "which listen on loopback only: %s\n", names);
}

/* The emulated machine, the run folder, the descriptor limit and the
 * spawner, forked before any thread exists. Exits on a failure, leaving
 * nothing behind. */
static void start_spawner(struct runcmd *r)
{
    struct side_setup *sides = r->sides;
    const char *path = r->path;
    char *why = r->why;
    int rc;
    /* A run killed with its spawner (SIGKILL to both, an OOM kill of
     * both) leaves its cgroups and run folder: nobody was left to remove
     * them. The next run does, before it makes its own. */
    int nleft = machine_remove_leftovers(r->leftovers, sizeof r->leftovers);
    nleft += spawn_remove_leftover_dirs("/tmp", r->leftovers,
                                        sizeof r->leftovers);
    if (nleft)
        fprintf(stderr, "orbbench: removed %d cgroup(s) and run folder(s) "
                "left by earlier runs killed with their spawner: %s\n",
                nleft, r->leftovers);
    /* Never run without the limit asked for. Side B gets cgroups of its
     * own, so its servers' CPU is counted apart. */
    for (size_t i = 0; i < r->nsides; i++)
        if (machine_setup(&sides[i].machine, &sides[i].sc, i ? "-b" : "",
                          why, sizeof r->why) != 0 ||
            (sides[i].caller &&
             machine_setup_caller(&sides[i].caller_machine, &sides[i].sc,
                                  i ? "-cb" : "-c", why,
                                  sizeof r->why) != 0)) {
            remove_cgroups(r);
            cli_die(EXIT_USAGE, "%s: %s", path, why);
        }
    snprintf(r->run_dir, sizeof r->run_dir, "/tmp/orbbench-%d-XXXXXX",
             (int)getpid());
    if (!mkdtemp(r->run_dir)) {
        remove_cgroups(r);
        cli_die(EXIT_RUN_FAILED, "mkdtemp %s: %s", r->run_dir,
                strerror(errno));
    }
    raise_nofile(r->what, sides, r->nsides, &r->nofile);

    struct spawn_config *scfg = &r->scfg;
    *scfg = (struct spawn_config){
        .make_argv = server_make_argv,
        .ngroups = (int)r->nsides,
        .log_dir = r->run_dir,
        .start_timeout_ms = sides[0].sc.server.start_timeout_ms,
        .start_parallel = (int)sides[0].sc.server.start_parallel,
    };
    for (size_t i = 0; i < r->nsides; i++) {
        struct side_setup *s = &sides[i];
        s->launch = (struct server_launch){
            s->server,        s->server_path, s->sc.server.args,
            s->sc.server.nargs, s->sc.transport, r->run_dir,
            s->sc.server.work_us, s->sc.server.work_ns, s->jvm_word_ptrs,
            s->njvm_words};
        scfg->groups[i] = (struct spawn_group){
            .make_argv_arg = &s->launch, .machine = &s->machine,
            .pipe_pair = s->tp->spawner_pipes};
    }
    /* Each side's caller: a group of its own after the servers', one
     * process talking on its stdin and stdout, in its own cgroup. */
    for (size_t i = 0; i < r->nsides; i++) {
        struct side_setup *s = &sides[i];
        if (!s->caller)
            continue;
        int g = scfg->ngroups++;
        scfg->groups[g] = (struct spawn_group){
            .make_argv = caller_make_argv, .make_argv_arg = &s->caller_launch,
            .machine = &s->caller_machine, .stdio_pipes = true,
            .log_prefix = "c", .noun = "caller"};
        s->caller_spec = (struct caller_spec){
            .kind = s->caller, .orb = s->caller_orb, .id = &s->caller_id,
            .launch = &s->caller_launch, .group = g, .index = (unsigned)i,
            .machine = &s->caller_machine};
    }
    char bin_dir[PATH_MAX - 64];
    helper_dir(bin_dir, sizeof bin_dir);
    if (r->what->spawn_setup &&
        (rc = r->what->spawn_setup(&sides[0].sc, bin_dir, scfg, why,
                                   sizeof r->why))) {
        rmdir(r->run_dir); /* setup fails before it puts anything there */
        remove_cgroups(r);
        cli_die(rc == -ENOENT ? EXIT_USAGE : EXIT_RUN_FAILED, "%s: %s",
                path, why);
    }
    /* Before any thread exists: the spawner is forked from a plain,
     * single-threaded process. */
    rc = spawner_start(&r->sp, scfg);
    for (size_t i = 0; rc == 0 && i < r->nsides; i++)
        sides[i].caller_spec.sp = r->sp;
    if (rc) {
        rmdir(r->run_dir);
        remove_cgroups(r);
        cli_die(EXIT_RUN_FAILED, "cannot fork the spawner: %s",
                strerror(-rc));
    }
    /* After the fork: the spawner (and so every server) keeps the CPUs it
     * was given, and stays out of a cgroup meant for the client. */
    if (machine_enter_client(&sides[0].machine,
                             sides[0].sc.machine.limit_client, why,
                             sizeof r->why) != 0) {
        spawner_stop(r->sp, 0);
        cli_die(EXIT_USAGE, "%s: %s", path, why);
    }
}

/* Side i's result document: what every run records, and how this one was
 * set up (its ORB, limits, machine, IOR list, pairing). */
static json_t *side_doc(struct runcmd *r, size_t i, const char *pair_id)
{
    struct side_setup *s = &r->sides[i];
    json_t *doc = result_new(r->what->scenario.name, r->a->argc, r->a->argv);
    probe_describe(doc);
    json_object_set_new(
        doc, "orb",
        json_pack("{s:s, s:s, s:s*, s:s*, s:s, s:s*}", "id",
                  s->sc.server.path[0] ? "custom"
                  : s->server->library   ? s->sc.server.orb
                                       : s->server->name,
                  "name", s->orb_name, "version",
                  s->vrc ? NULL : s->orb_version, "build",
                  !s->vrc && s->orb_build[0] ? s->orb_build : NULL,
                  "server_path", s->server_path, "version_error",
                  s->vrc ? s->vwhy : NULL));
    record_nofile(doc, &r->nofile);
    if (r->leftovers[0])
        json_object_set_new(doc, "leftovers_removed",
                            json_string(r->leftovers));
    json_object_set(doc, "scenario", s->sc.resolved);
    json_object_set_new(doc, "scenario_file", json_string(r->path));
    json_object_set_new(doc, "process_group",
                        json_integer(spawner_pgid(r->sp)));
    json_object_set_new(doc, "machine", machine_describe(&s->machine));
    if (s->caller)
        json_object_set_new(doc, "caller", caller_describe(&s->caller_spec));
    if (r->external)
        json_object_set_new(doc, "external",
                            ior_list_json(&r->iors, r->allow, r->nallow,
                                          r->what->max_connections(&s->sc)));
    if (r->paired) {
        json_t *vs = json_array();
        for (size_t k = 0; k < r->a->nversus; k++)
            json_array_append_new(vs, json_string(r->a->versus[k]));
        json_object_set_new(
            doc, "paired",
            json_pack("{s:s, s:s, s:s, s:o}", "id", pair_id, "side",
                      i ? "b" : "a", "other", r->sides[1 - i].out, "versus",
                      vs));
    }
    return doc;
}

/* Write each side's result, print its summary and failure; the exit
 * code. */
static int finish(struct runcmd *r, const struct run_outcome *o)
{
    int exit_code = 0, wrc = 0;
    for (size_t i = 0; i < r->nsides; i++) {
        struct side_setup *s = &r->sides[i];
        int w = result_write(s->doc, s->out);
        if (r->paired && !r->a->json)
            printf("[%s] ", i ? "B" : "A");
        print_end(r->what, s, &o[i], r->a->json,
                  r->paired ? (i ? "b" : "a") : NULL);
        if (w) {
            fprintf(stderr, "orbbench: cannot write %s: %s\n", s->out,
                    strerror(-w));
            wrc = w;
        }
        if (o[i].exit_code == 1)
            fprintf(stderr, "orbbench: %s%s: %s\n",
                    r->paired ? (i ? "side B: " : "side A: ") : "",
                    o[i].stop_reason, o[i].detail);
        /* A failure outranks an interrupt, which outranks a stop. */
        if (o[i].exit_code == 1 ||
            (o[i].exit_code == 130 && exit_code == 0))
            exit_code = o[i].exit_code;
        json_decref(s->doc);
        scenario_free(&s->sc);
    }
    ior_list_free(&r->iors);
    return wrc ? EXIT_RUN_FAILED : exit_code;
}

int runcmd_main(const struct runcmd_args *a)
{
    static struct side_setup sides[RUN_MAX_SIDES];
    static struct runcmd r;
    r = (struct runcmd){.a = a, .path = a->path, .sides = sides,
                        .paired = a->paired || a->nversus > 0};
    r.nsides = r.paired ? 2 : 1;
    if (a->out_b && !r.paired)
        cli_die(EXIT_USAGE, "--out-versus: only in a paired run (--paired "
                "or --versus)");
    load_sides(&r);
    if (strcmp(a->cmd, "check") == 0)
        return print_resolved(&r);
    choose_outputs(&r);
    if (r.what->flags & KIND_SERVERLESS)
        return run_serverless(r.what, &sides[0], r.path, a->argc, a->argv,
                              a->progress, a->json, a->progress_fd);
    resolve_servers(&r);
    warn_unsafe_env();
    start_spawner(&r);
    catch_signals();

    struct server_source list_src;
    if (r.external)
        server_source_list(&list_src, &r.iors);
    char pair_id[64];
    pairing_id(pair_id, sizeof pair_id);
    struct side sw[RUN_MAX_SIDES];
    struct run_outcome o[RUN_MAX_SIDES];
    for (size_t i = 0; i < r.nsides; i++) {
        struct side_setup *s = &sides[i];
        s->doc = side_doc(&r, i, pair_id);
        sw[i] = (struct side){
            .sc = &s->sc, .server = s->server, .tp = s->tp, .mode = s->mode,
            .sp = r.sp, .group = (int)i, .machine = &s->machine,
            .doc = s->doc, .out_path = s->out, .interrupted = &interrupted,
            .progress = a->progress, .progress_fd = a->progress_fd,
            .label = r.paired ? (i ? "B" : "A") : NULL};
        if (s->caller) {
            /* The caller makes the calls: its call mode in place of the
             * client's own. */
            sw[i].mode = &callmode_caller;
            sw[i].mode_ext = &s->caller_spec;
        }
        if (r.external) {
            /* Not our servers: no cgroup holds them (its CPU and OOM
             * counts would be someone else's). */
            sw[i].machine = NULL;
            sw[i].src = &list_src;
            sw[i].remote_ok = true;
            sw[i].max_n_why = r.max_n_why[0] ? r.max_n_why : NULL;
        }
    }
    r.what->run(sw, o, r.nsides);
    machine_leave_client(&sides[0].machine);
    spawner_stop(r.sp, 2000); /* also removes run_dir and the cgroups */
    return finish(&r, o);
}

/* orbbench run and check, one side resolved before anything starts: its
 * server kind, transport, mode and server program (and its version), its
 * caller, external servers, and what may differ between a paired run's
 * sides. Every refusal is one line and exit 2 (cli_die). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "core/util.h"
#include "host/caller.h"
#include "host/caller_kind.h"
#include "host/server_kind.h"
#include "host/source.h"
#include "kinds/kind.h"
#include "modes/callmode.h"
#include "net/transport.h"
#include "runcmd_impl.h"

/* Resolve side s's kind, transport, mode and server; ask the server its
 * version. Exits 2 on a scenario that cannot run. */
void resolve_side(struct side_setup *s, const char *path)
{
    const struct scenario *sc = &s->sc;
    char why[1024];
    s->server = server_kind_lookup(sc->server.kind);
    s->tp = transport_lookup(sc->transport);
    s->mode = callmode_lookup(sc->mode);
    if (!s->server || !s->tp || !s->mode)
        cli_die(EXIT_USAGE, "%s: server.kind, transport or mode has no "
                "implementation", path);
    char served[128];
    if (!server_kind_serves(s->server, sc->transport, served, sizeof served))
        cli_die(EXIT_USAGE,
                "%s: key \"transport\": server kind \"%s\" does not "
                "serve \"%s\" (it serves %s)", path, s->server->name,
                sc->transport, served);
    if (sc->server.work_us > 0 && !s->server->work_option)
        cli_die(EXIT_USAGE, "%s: key \"server.work_us\": server kind \"%s\" "
                "has no work option", path, s->server->name);
    const char *jvm_key = NULL;
    s->njvm_words = server_jvm_words(&sc->server.jvm, s->jvm_words, &jvm_key);
    if (s->njvm_words && !s->server->jvm)
        cli_die(EXIT_USAGE, "%s: key \"server.jvm.%s\": server kind \"%s\" "
                "runs no JVM", path, jvm_key, s->server->name);
    for (size_t i = 0; i < s->njvm_words; i++)
        s->jvm_word_ptrs[i] = s->jvm_words[i];
    if (sc->server.work_ns > 0 && !s->server->work_ns_option)
        cli_die(EXIT_USAGE, "%s: key \"server.work_ns\": server kind \"%s\" "
                "has no work option in ns (use server.work_us)", path,
                s->server->name);
    const struct kind_ops *m = kind_lookup(sc->kind);
    const char *key = NULL, *no = m && m->unsupported
                                          ? m->unsupported(sc, s->server, &key)
                                          : NULL;
    if (no)
        cli_die(EXIT_USAGE, "%s: key \"%s\": server kind \"%s\" %s", path, key,
                s->server->name, no);
    if (!server_kind_starts(s->server)) {
        s->server_path[0] = 0;
    } else if (sc->server.path[0]) {
        str_copy(s->server_path, sizeof s->server_path, sc->server.path);
    } else {
        char dir[PATH_MAX - 64];
        helper_dir(dir, sizeof dir);
        if (server_resolve(s->server, sc->server.orb, dir, s->server_path,
                           sizeof s->server_path, why, sizeof why) != 0)
            cli_die(EXIT_USAGE, "%s: key \"server.orb\": %s", path, why);
    }
    if (!server_kind_starts(s->server)) {
        /* Servers orbbench does not start: nothing to run or ask. */
        str_copy(s->orb_name, sizeof s->orb_name, "unknown");
        s->vrc = -ENOENT;
        snprintf(s->vwhy, sizeof s->vwhy, "server.kind %s: orbbench did not "
                 "start the servers and does not ask their version",
                 s->server->name);
        return;
    }
    if (access(s->server_path, X_OK) != 0)
        cli_die(EXIT_USAGE, "%s: server %s: %s (run make first?)", path,
                s->server_path, strerror(errno));
    str_copy(s->orb_name, sizeof s->orb_name, "unknown");
    /* A server that cannot say its version can still be measured; the
     * result then says the version is unknown, and why. */
    s->vrc = server_query_version(s->server_path, s->orb_name,
                                  sizeof s->orb_name, s->orb_version,
                                  sizeof s->orb_version, s->orb_build,
                                  sizeof s->orb_build, s->vwhy,
                                  sizeof s->vwhy);
    if (s->vrc)
        fprintf(stderr, "orbbench: warning: %s\n", s->vwhy);
}

/* Side s's caller (caller.*, docs/callers.md): its program, what it
 * is and which modes it has, the mode asked for (or its default) and
 * its arguments. Exits 2 on a caller that cannot run the scenario,
 * before anything starts. */
void resolve_caller(struct side_setup *s, const char *path)
{
    struct scenario *sc = &s->sc;
    char why[1024], dir[PATH_MAX - 64];
    if (!sc->caller.kind[0] || strcmp(sc->caller.kind, "none") == 0)
        return;
    s->caller = caller_kind_lookup(sc->caller.kind);
    if (!s->caller)
        cli_die(EXIT_USAGE, "%s: key \"caller.kind\": \"%s\" has no "
                "implementation", path, sc->caller.kind);
    if (server_args_check_key(sc->caller.args, sc->caller.nargs,
                              "caller.args", why, sizeof why))
        cli_die(EXIT_USAGE, "%s: %s", path, why);
    const char *jvm_key = NULL;
    size_t njvm = server_jvm_words(&sc->caller.jvm, s->caller_jvm_words,
                                   &jvm_key);
    if (njvm && !s->caller->jvm)
        cli_die(EXIT_USAGE, "%s: key \"caller.jvm.%s\": caller %s runs no "
                "JVM", path, jvm_key, s->caller->name);
    for (size_t i = 0; i < njvm; i++)
        s->caller_jvm_word_ptrs[i] = s->caller_jvm_words[i];
    helper_dir(dir, sizeof dir);
    if (caller_resolve(s->caller, sc->caller.orb, dir, s->caller_path,
                       sizeof s->caller_path, why, sizeof why) != 0)
        cli_die(EXIT_USAGE, "%s: key \"caller.orb\": %s", path, why);
    if (caller_query(s->caller_path, &s->caller_id, why, sizeof why) != 0)
        cli_die(EXIT_USAGE, "%s: key \"caller.kind\": %s", path, why);
    if (strcmp(sc->caller.orb, "system") == 0 || !s->caller->library)
        snprintf(s->caller_orb, sizeof s->caller_orb, "%s-system",
                 s->caller->name);
    else
        str_copy(s->caller_orb, sizeof s->caller_orb, sc->caller.orb);
    if (!sc->caller.mode[0])
        str_copy(sc->caller.mode, sizeof sc->caller.mode,
                 s->caller_id.modes[0]);
    if (!caller_has_mode(&s->caller_id, sc->caller.mode)) {
        char have[400] = "";
        for (size_t i = 0; i < s->caller_id.nmodes; i++)
            snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s",
                     i ? ", " : "", s->caller_id.modes[i]);
        cli_die(EXIT_USAGE, "%s: key \"caller.mode\": caller %s (%s %s, "
                "%s) has no mode \"%s\" (it has: %s)", path,
                s->caller->name, s->caller_id.name, s->caller_id.version,
                s->caller_orb, sc->caller.mode, have);
    }
    /* The result's scenario says which mode ran, the default too. */
    json_t *cj = json_object_get(sc->resolved, "caller");
    if (cj)
        json_object_set_new(cj, "mode", json_string(sc->caller.mode));
    s->caller_launch = (struct caller_launch){
        .path = s->caller_path, .mode = sc->caller.mode,
        .payload_bytes = sc->call.payload_bytes,
        .timeout_ms = sc->call.timeout_ms, .args = sc->caller.args,
        .nargs = sc->caller.nargs, .jvm_words = s->caller_jvm_word_ptrs,
        .njvm_words = njvm};
}

/* A paired run's side B differs from A only in server.* keys: the client
 * (mode, transport, sweep, calls) must be the same, or the comparison is
 * not of the servers. */
void check_versus(char *const *versus, size_t n,
                         const struct side_setup *a)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(versus[i], "server.", 7) != 0 &&
            strncmp(versus[i], "caller.", 7) != 0)
            cli_die(EXIT_USAGE, "--versus %s: only server.* and caller.* "
                    "keys may differ between the sides of a paired run",
                    versus[i]);
    if (a->sc.machine.mem_limit_mb > 0)
        cli_die(EXIT_USAGE, "a paired run: machine.mem_limit_mb would be "
                "one limit for both sides' servers; run the sides apart");
}

/* server.kind external: the IOR list, the hosts allowed beside loopback
 * (the scenario's and --allow-host's), and the kind's options fitted to
 * the list (the sweep's max_n). Exits 2 on a list or an allowance that
 * cannot run. */
void load_external(const struct kind_ops *what, struct side_setup *s,
                          const char *path, char **cli,
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
            cli_die(EXIT_USAGE, "%s: %s \"%s\": expected a host or an IPv4 "
                    "network a.b.c.d/bits", path,
                    i < sc->client.nallow_hosts ? "key \"client.allow_hosts\""
                    : "--allow-host",
                    allow[i]);
    if (sc->machine.mem_limit_mb > 0 || sc->machine.cpus[0])
        cli_die(EXIT_USAGE, "%s: key \"machine\": external servers were not "
                "started by orbbench: no memory limit or CPUs can be set for "
                "them", path);
    if (ior_list_load(l, sc->server.iors, sc->transport, allow, *nallow, why,
                      sizeof why) != 0)
        cli_die(EXIT_USAGE, "%s", why);
    if (what->fit_servers(sc, l->n, l->path, max_n_why, len, why,
                          sizeof why) != 0)
        cli_die(EXIT_USAGE, "%s: %s", path, why);
}

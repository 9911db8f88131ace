/* Server kinds: see server_kind.h. */
#include "host/server_kind.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "host/install.h"
#include "host/spawn.h"
#include "core/util.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* Endpoint forms: in each word "{dir}" stands for the run's private
 * folder and "{index}" for the server's number. */

/* omniORB publishes the machine's network address unless told otherwise:
 * always name a loopback endpoint. */
static const struct endpoint_form omniorb_endpoints[] = {
    {"tcp", {"-ORBendPoint", "giop:tcp:127.0.0.1:"}},
    {"unix", {"-ORBendPoint", "giop:unix:{dir}/s{index}.sock"}},
    {NULL, {NULL}},
};

/* ORB-less servers (servers/raw, servers/giop_min) take
 * "--endpoint tcp:127.0.0.1:0", "unix:PATH" or, for a pipe pair the
 * spawner gives them, "pipe:RFD,WFD". */
static const struct endpoint_form raw_endpoints[] = {
    {"tcp", {"--endpoint", "tcp:127.0.0.1:0"}},
    {"unix", {"--endpoint", "unix:{dir}/s{index}.sock"}},
    {"pipe", {"--endpoint", "pipe:" STR(SPAWN_PIPE_SERVER_RFD) ","
                                    STR(SPAWN_PIPE_SERVER_WFD)}},
    {NULL, {NULL}},
};

static const struct endpoint_form giop_min_endpoints[] = {
    {"tcp", {"--endpoint", "tcp:127.0.0.1:0"}},
    {"unix", {"--endpoint", "unix:{dir}/s{index}.sock"}},
    {NULL, {NULL}},
};

/* Combat (servers/combat, Tcl) names a host and a port, and has no Unix
 * sockets; its server listens on the host it is given, loopback only. */
static const struct endpoint_form combat_endpoints[] = {
    {"tcp", {"-ORBHostName", "127.0.0.1", "-ORBServerPort", "0"}},
    {NULL, {NULL}},
};

/* TAO publishes a host name for a numeric endpoint unless told to keep
 * addresses dotted (the TCP transport resolves no names); UIOP is TAO's
 * Unix-socket protocol (servers/tao loads it for a uiop:// endpoint). */
static const struct endpoint_form tao_endpoints[] = {
    {"tcp", {"-ORBDottedDecimalAddresses", "1", "-ORBListenEndpoints",
             "iiop://127.0.0.1:0"}},
    {"unix", {"-ORBListenEndpoints", "uiop://{dir}/s{index}.sock"}},
    {NULL, {NULL}},
};

/* ORBit2 (servers/orbit2) turns each protocol on or off by option and
 * binds IIOP to the host ORBIIOPIPName names (also the IOR's); its Unix
 * socket is the path ORBIIOPIPSock names, and its socket folder
 * (--socket-dir, ORBIT_SOCKETDIR) the run's, where it would otherwise make
 * /tmp/orbit-$USER. The server turns off IPv6, IrDA, SSL and the orbitrc
 * files itself. */
static const struct endpoint_form orbit2_endpoints[] = {
    {"tcp", {"--socket-dir", "{dir}", "-ORBIIOPIPv4=1", "-ORBIIOPUSock=0",
             "-ORBIIOPIPName=127.0.0.1"}},
    {"unix", {"--socket-dir", "{dir}", "-ORBIIOPIPv4=0", "-ORBIIOPUSock=1",
              "-ORBIIOPIPSock={dir}/s{index}.sock"}},
    {NULL, {NULL}},
};

/* JacORB (servers/jacorb, Java) takes TAO's endpoint option; it has no
 * Unix sockets. Its server refuses a non-loopback endpoint and the
 * properties that would move it. */
static const struct endpoint_form jacorb_endpoints[] = {
    {"tcp", {"-ORBListenEndpoints", "iiop://127.0.0.1:0"}},
    {NULL, {NULL}},
};

/* MICO (servers/mico) listens where -ORBIIOPAddr says: inet:HOST:PORT,
 * or unix:PATH (its own Unix-socket profile, TAG_UNIX_IOP); -ORBNoResolve
 * keeps the IOR's host an address (MICO would resolve it to a name, which
 * the TCP transport does not resolve). */
static const struct endpoint_form mico_endpoints[] = {
    {"tcp", {"-ORBNoResolve", "-ORBIIOPAddr", "inet:127.0.0.1:0"}},
    {"unix", {"-ORBIIOPAddr", "unix:{dir}/s{index}.sock"}},
    {NULL, {NULL}},
};

/* Servers orbbench did not start: transports only, no words. */
static const struct endpoint_form external_endpoints[] = {
    {"tcp", {NULL}},
    {"unix", {NULL}},
    {NULL, {NULL}},
};

static const struct server_kind kinds[] = {
    {.name = "omniorb", .wire = &wire_giop, .binary = "omniorb-echo-server",
     .library = "libomniORB4", .endpoints = omniorb_endpoints,
     .work_option = "--work-us", .build_hint = "run make",
     .work_ns_option = "--work-ns"},
    /* TAO has no Debian package: no system installation, only builds of
     * scripts/build-orb (bin/orbs/tao-VERSION/echo-server). */
    {.name = "tao", .wire = &wire_giop, .library = "libTAO.so",
     .endpoints = tao_endpoints, .work_option = "--work-us",
     .build_hint = "scripts/build-orb tao VERSION --source PATH, then make"},
    /* ORBit2 has no Debian package either: builds of scripts/build-orb
     * (bin/orbs/orbit2-VERSION/echo-server). */
    {.name = "orbit2", .wire = &wire_giop, .library = "libORBit-2.so",
     .endpoints = orbit2_endpoints, .work_option = "--work-us",
     .build_hint = "scripts/build-orb orbit2 VERSION --source PATH, then "
                   "make"},
    /* omniORBpy (servers/omniorbpy, Python) is omniORB's core under a
     * Python mapping: omniORB's endpoints. Debian 12 has no omniORBpy:
     * builds of scripts/build-orb; the library is its module _omnipy. */
    {.name = "omniorbpy", .wire = &wire_giop, .library = "_omnipy",
     .endpoints = omniorb_endpoints, .work_option = "--work-us",
     .build_hint = "scripts/build-orb omniorbpy VERSION --source PATH, then "
                   "make",
     .work_ns_option = "--work-ns"},
    /* MICO has no Debian package: builds of scripts/build-orb. */
    {.name = "mico", .wire = &wire_giop, .library = "libmico",
     .endpoints = mico_endpoints, .work_option = "--work-us",
     .build_hint = "scripts/build-orb mico VERSION --source PATH, then make",
     .work_ns_option = "--work-ns"},
    {.name = "raw", .wire = &wire_raw, .binary = "raw-server",
     .endpoints = raw_endpoints},
    {.name = "giop-min", .wire = &wire_giop, .binary = "giop-min-server",
     .endpoints = giop_min_endpoints},
    /* No work option: Tcl has no clock of the thread's CPU time, and
     * spinning on the wall clock would count time the server was not
     * running. */
    {.name = "combat", .wire = &wire_giop, .binary = "combat-echo-server",
     .endpoints = combat_endpoints},
    /* JacORB has no Debian package: builds of scripts/build-orb
     * (bin/orbs/jacorb-VERSION/echo-server, a launcher of the JDK's java),
     * on a JVM whose settings are the server.jvm.* keys. */
    {.name = "jacorb", .wire = &wire_giop, .library = "jacorb.jar",
     .endpoints = jacorb_endpoints, .work_option = "--work-us",
     .build_hint = "scripts/build-orb jacorb VERSION --source PATH, then "
                   "make",
     .work_ns_option = "--work-ns", .jvm = true},
    /* Servers orbbench did not start: a list of IORs (client/source.c). */
    {.name = "external", .wire = &wire_giop, .endpoints = external_endpoints},
};

const char *server_kind_name(size_t i)
{
    return i < ARRAY_LEN(kinds) ? kinds[i].name : NULL;
}

/* A loopback host: 127.0.0.0/8, localhost, ::1 (bracketed or not). */
static bool loopback_host(const char *h, size_t len)
{
    char buf[64];
    if (len >= 2 && h[0] == '[' && h[len - 1] == ']') {
        h++;
        len -= 2;
    }
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, h, len);
    buf[len] = 0;
    struct in_addr a4;
    struct in6_addr a6;
    if (strcmp(buf, "localhost") == 0)
        return true;
    if (inet_pton(AF_INET, buf, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, buf, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* "HOST:PORT" (HOST may be "[v6]" or hold colons: the port is after the
 * last one): is HOST loopback? An empty HOST is every interface. */
static bool loopback_host_port(const char *hp)
{
    const char *colon = strrchr(hp, ':');
    return colon && loopback_host(hp, (size_t)(colon - hp));
}

/* One omniORB endpoint ("giop:tcp:H:P", "giop:ssl:H:P", "giop:unix:P";
 * "tcp:..." too, omniORB's short form). */
static bool omniorb_endpoint_ok(const char *ep)
{
    if (strncmp(ep, "giop:", 5) == 0)
        ep += 5;
    if (strncmp(ep, "unix:", 5) == 0)
        return true;
    if (strncmp(ep, "tcp:", 4) == 0)
        return loopback_host_port(ep + 4);
    if (strncmp(ep, "ssl:", 4) == 0)
        return loopback_host_port(ep + 4);
    return false; /* another transport, or a publish keyword (addr, all) */
}

/* One TAO endpoint ("iiop://[V.v@]HOST:PORT[,HOST:PORT...][/OPTIONS]",
 * "uiop://[V.v@]PATH[|OPTIONS]"): loopback hosts and Unix sockets only;
 * TAO's other protocols (shmiop, diop, sciop, ...) are refused. */
static bool tao_endpoint_ok(char *ep)
{
    if (strncasecmp(ep, "uiop://", 7) == 0)
        return true;
    if (strncasecmp(ep, "iiop://", 7) != 0)
        return false;
    char *addrs = ep + 7, *at = strchr(addrs, '@'), *slash;
    if (at)
        addrs = at + 1;
    /* The options after the address list ("/portspan=2"): a '/' after
     * the last ']', so that none inside an IPv6 address is taken. */
    char *bracket = strrchr(addrs, ']');
    if ((slash = strchr(bracket ? bracket : addrs, '/')))
        *slash = 0;
    if (!*addrs)
        return false; /* no host: every interface */
    bool ok = true;
    for (char *save, *a = strtok_r(addrs, ",", &save); ok && a;
         a = strtok_r(NULL, ",", &save)) {
        /* HOST, HOST:PORT, [V6] or [V6]:PORT */
        char *close = a[0] == '[' ? strchr(a, ']') : NULL;
        bool port = close ? close[1] == ':' : strchr(a, ':') != NULL;
        ok = port ? loopback_host_port(a) : loopback_host(a, strlen(a));
    }
    return ok;
}

/* One MICO address, as -ORBIIOPAddr takes it (orb/address.cc's
 * parsers): inet:HOST:PORT (or inet-stream:, inet-dgram:) with a loopback
 * HOST, or unix:PATH; MICO's other address kinds are refused. */
static bool mico_address_ok(const char *v)
{
    static const char *const inet[] = {"inet:", "inet-stream:",
                                       "inet-dgram:"};
    if (strncmp(v, "unix:", 5) == 0)
        return true;
    for (size_t k = 0; k < ARRAY_LEN(inet); k++)
        if (strncmp(v, inet[k], strlen(inet[k])) == 0)
            return loopback_host_port(v + strlen(inet[k]));
    return false;
}

/* A value of omniORB's endpoint options (comma-separated omniORB
 * endpoints) or TAO's (semicolon-separated TAO endpoints). */
static int endpoints_ok(const char *v, bool *ok)
{
    char *list = strdup(v);
    if (!list)
        return -ENOMEM;
    *ok = true;
    for (char *save, *e = strtok_r(list, ",", &save); *ok && e;
         e = strtok_r(NULL, ",", &save))
        *ok = omniorb_endpoint_ok(e);
    free(list);
    if (*ok || strstr(v, "://") == NULL)
        return 0;
    if (!(list = strdup(v)))
        return -ENOMEM;
    *ok = true;
    for (char *save, *e = strtok_r(list, ";", &save); *ok && e;
         e = strtok_r(NULL, ";", &save))
        *ok = tao_endpoint_ok(e);
    free(list);
    return 0;
}

/* ORBit2's options that decide where it listens (src/orb/orb-core/
 * corba-orb.c, orbit_supported_options), by their name without the
 * dashes ORBit2 strips (any number of them). */
static const struct orbit2_option {
    const char *name;
    /* The one value allowed; NULL: a loopback host (ORBIIOPIPName), or
     * none for a flag (`flag`). */
    const char *value;
    bool flag;
    const char *rule; /* for the message */
} orbit2_options[] = {
    {.name = "ORBIIOPIPName", .value = NULL,
     .rule = "ORBit2's ORBIIOPIPName: a loopback address, 127.x.x.x, "
             "localhost or ::1"},
    {.name = "ORBNetID", .value = "local",
     .rule = "ORBit2's ORBNetID: local"},
    {.name = "ORBIIOPIPv6", .value = "0",
     .rule = "ORBit2's ORBIIOPIPv6: 0 (its IPv6 listener binds the host's "
             "name)"},
    {.name = "ORBIIOPIrDA", .value = "0", .rule = "ORBit2's ORBIIOPIrDA: 0"},
    {.name = "ORBIIOPSSL", .value = "0", .rule = "ORBit2's ORBIIOPSSL: 0"},
    {.name = "ORBLocalOnly", .value = "1",
     .rule = "ORBit2's ORBLocalOnly: 1"},
    /* The rc files off: what the server does anyway. */
    {.name = "ORBNoSystemRC", .flag = true, .rule = ""},
    {.name = "ORBNoUserRC", .flag = true, .rule = ""},
};

/* Is `a` (name_len bytes of name) one of orbit2_options? Its row, or
 * NULL. */
static const struct orbit2_option *orbit2_option_find(const char *a,
                                                      size_t name_len)
{
    while (name_len && *a == '-')
        a++, name_len--;
    for (size_t k = 0; k < ARRAY_LEN(orbit2_options); k++)
        if (strlen(orbit2_options[k].name) == name_len &&
            strncmp(a, orbit2_options[k].name, name_len) == 0)
            return &orbit2_options[k];
    return NULL;
}

/* Does value `v` (NULL: none given) keep ORBit2 on loopback? */
static bool orbit2_option_ok(const struct orbit2_option *o, const char *v)
{
    if (o->flag)
        return true;
    if (!v)
        return false;
    if (!o->value)
        return loopback_host(v, strlen(v));
    return strcmp(v, o->value) == 0;
}

/* JacORB's properties (-Dkey=value for its server, -J-Dkey=value for its
 * JVM) and JVM options (-JOPTION) that would move or add a listener,
 * change what the IOR publishes, or read settings from a file orbbench
 * does not check; servers/jacorb refuses them too. By prefix. */
static const struct {
    const char *prefix, *rule;
} jacorb_refused[] = {
    {"-DOA", "JacORB's OA properties: the endpoint is -ORBListenEndpoints "
             "iiop://127.x.x.x:PORT"},
    {"-Djacorb.ior_proxy_", "JacORB's IIOP on loopback only"},
    {"-Djacorb.transport.factories", "JacORB's IIOP on loopback only"},
    {"-Djacorb.transport.server.listeners", "JacORB's IIOP on loopback only"},
    {"-Djacorb.net.", "JacORB's IIOP on loopback only"},
    {"-Djacorb.security.", "JacORB's IIOP on loopback only"},
    {"-Djacorb.ssl.", "JacORB's IIOP on loopback only"},
    {"-Djacorb.dns.enable", "JacORB's IIOP on loopback only"},
    {"-Dcustom.props", "a configuration file can set endpoints orbbench "
                       "does not check; give the properties in server.args"},
    {"-Djacorb.config.dir", "a configuration file can set endpoints "
                            "orbbench does not check; give the properties "
                            "in server.args"},
    {"-Djacorb.home", "a configuration file can set endpoints orbbench "
                      "does not check; give the properties in server.args"},
    {"-DORBid", "a configuration file can set endpoints orbbench does not "
                "check; give the properties in server.args"},
    {"-J-agentlib:jdwp", "the JVM's debugger agent listens on a socket"},
    {"-J-Xrunjdwp", "the JVM's debugger agent listens on a socket"},
    {"-J-Dcom.sun.management.jmxremote", "JMX remote listens on a socket"},
    {"-J-XX:+ManagementServer", "JMX remote listens on a socket"},
};

/* The rule a JacORB word breaks (a -J-D word as its -D), or NULL. */
static const char *jacorb_refused_rule(const char *a)
{
    const char *prop = strncmp(a, "-J-D", 4) == 0 ? a + 2 : a;
    for (size_t k = 0; k < ARRAY_LEN(jacorb_refused); k++) {
        const char *p = jacorb_refused[k].prefix;
        if (strncmp(a, p, strlen(p)) == 0 ||
            strncmp(prop, p, strlen(p)) == 0)
            return jacorb_refused[k].rule;
    }
    return NULL;
}

int server_args_check(char *const *args, size_t nargs, char *why,
                      size_t why_len)
{
    return server_args_check_key(args, nargs, "server.args", why, why_len);
}

int server_args_check_key(char *const *args, size_t nargs, const char *key,
                          char *why, size_t why_len)
{
    static const char *const omni[] = {
        "-ORBendPoint", "-ORBendPointPublish", "-ORBendPointNoListen",
        "-ORBendPointNoPublish", "-ORBListenEndpoints", "-ORBLaneEndpoint",
        "-ORBLaneListenEndpoints"};
    for (size_t i = 0; i < nargs; i++) {
        const char *a = args[i], *v = i + 1 < nargs ? args[i + 1] : NULL;
        const char *eq = strchr(a, '=');
        size_t name_len = eq ? (size_t)(eq - a) : strlen(a);
        bool ok = true, known = false;
        const char *rule = "";
        if (eq)
            v = eq + 1; /* -ORBendPoint=...: omniORB refuses it, so do we */
        const char *jacorb_rule = jacorb_refused_rule(a);
        const char *who = strncmp(key, "caller.", 7) == 0 ? "callers"
                                                          : "servers";
        if (jacorb_rule) {
            snprintf(why, why_len, "key \"%s\": \"%s\": %s listen on "
                     "loopback only (%s)", key, a, who, jacorb_rule);
            return -EINVAL;
        }
        for (size_t k = 0; k < ARRAY_LEN(omni); k++)
            if (strlen(omni[k]) == name_len &&
                strncasecmp(a, omni[k], name_len) == 0)
                known = true;
        if (known) {
            rule = "giop:tcp:HOST:PORT with HOST 127.x.x.x, localhost or "
                   "::1, or giop:unix:PATH; TAO's iiop://HOST:PORT or "
                   "uiop://PATH";
            ok = v != NULL;
            if (v && endpoints_ok(v, &ok) != 0)
                return -ENOMEM;
        } else if (name_len == 14 && strncasecmp(a, "-ORBconfigFile", 14)
                   == 0) {
            known = true;
            ok = false;
            rule = "a configuration file can set endpoints orbbench does "
                   "not check; give the options in server.args";
        } else if (name_len == 12 && strncmp(a, "-ORBIIOPAddr", 12) == 0) {
            known = true;
            rule = "MICO's inet:HOST:PORT with HOST 127.x.x.x, localhost "
                   "or ::1, or unix:PATH";
            ok = v && mico_address_ok(v);
        } else if (name_len == 12 && strncmp(a, "-ORBConfFile", 12) == 0) {
            known = true;
            ok = false;
            rule = "MICO's configuration file can set addresses orbbench "
                   "does not check; give the options in server.args";
        } else if (name_len == 10 && strncmp(a, "--endpoint", 10) == 0) {
            known = true;
            rule = "tcp:HOST:PORT with a loopback HOST, unix:PATH or "
                   "pipe:R,W";
            ok = v && (strncmp(v, "unix:", 5) == 0 ||
                       strncmp(v, "pipe:", 5) == 0 ||
                       (strncmp(v, "tcp:", 4) == 0 &&
                        loopback_host_port(v + 4)));
        } else if (name_len == 12 && strncasecmp(a, "-ORBHostName", 12)
                   == 0) {
            known = true;
            rule = "a loopback address: 127.x.x.x, localhost or ::1";
            ok = v && loopback_host(v, strlen(v));
        } else if (a[0] == '-') {
            const struct orbit2_option *o = orbit2_option_find(a, name_len);
            if (o && o->flag)
                continue; /* no value to check or skip */
            if (o) {
                known = true;
                rule = o->rule;
                ok = orbit2_option_ok(o, v);
            }
        }
        if (!known)
            continue;
        if (!ok) {
            if (eq || !v)
                snprintf(why, why_len, "key \"%s\": \"%s\": "
                         "%s listen on loopback only (%s)", key, a, who,
                         rule);
            else
                snprintf(why, why_len, "key \"%s\": \"%s %s\": "
                         "%s listen on loopback only (%s)", key, a, v, who,
                         rule);
            return -EINVAL;
        }
        if (!eq)
            i++; /* its value */
    }
    return 0;
}

const struct server_kind *server_kind_lookup(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    return NULL;
}

bool server_kind_serves(const struct server_kind *kind,
                        const char *transport, char *list, size_t list_len)
{
    bool found = false;
    size_t used = 0;
    list[0] = 0;
    for (size_t i = 0; kind->endpoints[i].transport; i++) {
        const char *t = kind->endpoints[i].transport;
        found = found || strcmp(t, transport) == 0;
        if (used < list_len)
            used += (size_t)snprintf(list + used, list_len - used, "%s%s",
                                     i ? ", " : "", t);
    }
    return found;
}

int server_resolve(const struct server_kind *kind, const char *orb,
                   const char *bin_dir, char *path, size_t path_len,
                   char *why, size_t why_len)
{
    const struct install_form f = {.family = kind->name,
                                   .noun = "server kind",
                                   .binary = kind->binary,
                                   .library = kind->library,
                                   .exe = "echo-server",
                                   .build_hint = kind->build_hint};
    return install_resolve(&f, orb, bin_dir, path, path_len, why, why_len);
}

size_t server_jvm_words(const struct scenario_jvm *jvm,
                        char words[][SERVER_JVM_WORD],
                        const char **first_key)
{
    /* The collectors and compilers by their key value; "default" and
     * "tiered" are the JVM's own choice: no word. */
    static const struct {
        const char *value, *word;
    } gcs[] = {{"serial", "-J-XX:+UseSerialGC"},
               {"parallel", "-J-XX:+UseParallelGC"},
               {"g1", "-J-XX:+UseG1GC"},
               {"z", "-J-XX:+UseZGC"},
               {"shenandoah", "-J-XX:+UseShenandoahGC"}},
      jits[] = {{"c1", "-J-XX:TieredStopAtLevel=1"},
                {"c2", "-J-XX:-TieredCompilation"},
                {"interpreter", "-J-Xint"}};
    size_t n = 0;
    const char *first = NULL;
#define JVM_WORD(key, ...)                                                  \
    do {                                                                    \
        snprintf(words[n++], SERVER_JVM_WORD, __VA_ARGS__);                 \
        first = first ? first : (key);                                      \
    } while (0)
    if (jvm->heap_max_mb > 0)
        JVM_WORD("heap_max_mb", "-J-Xmx%lldm",
                 (long long)jvm->heap_max_mb);
    if (jvm->heap_initial_mb > 0)
        JVM_WORD("heap_initial_mb", "-J-Xms%lldm",
                 (long long)jvm->heap_initial_mb);
    if (jvm->thread_stack_kb > 0)
        JVM_WORD("thread_stack_kb", "-J-Xss%lldk",
                 (long long)jvm->thread_stack_kb);
    for (size_t i = 0; i < ARRAY_LEN(gcs); i++)
        if (strcmp(jvm->gc, gcs[i].value) == 0)
            JVM_WORD("gc", "%s", gcs[i].word);
    for (size_t i = 0; i < ARRAY_LEN(jits); i++)
        if (strcmp(jvm->jit, jits[i].value) == 0)
            JVM_WORD("jit", "%s", jits[i].word);
    if (!jvm->cds)
        JVM_WORD("cds", "-J-Xshare:off");
#undef JVM_WORD
    if (first_key)
        *first_key = first;
    return n;
}

/* Copy `word` into buf with "{dir}" and "{index}" replaced. Bytes used,
 * the terminator included, or 0 when it does not fit. */
static size_t expand_word(const char *word, const char *dir, unsigned index,
                          char *buf, size_t len)
{
    char num[16];
    size_t used = 0;
    snprintf(num, sizeof num, "%u", index);
    while (*word) {
        const char *put = word;
        size_t n = 1, skip = 1;
        if (strncmp(word, "{dir}", 5) == 0) {
            put = dir;
            n = strlen(dir);
            skip = 5;
        } else if (strncmp(word, "{index}", 7) == 0) {
            put = num;
            n = strlen(num);
            skip = 7;
        }
        if (used + n >= len)
            return 0;
        memcpy(buf + used, put, n);
        used += n;
        word += skip;
    }
    if (used >= len)
        return 0;
    buf[used] = 0;
    return used + 1;
}

void server_make_argv(const void *arg, unsigned index, char **argv,
                      char *buf, size_t buf_len)
{
    const struct server_launch *l = arg;
    const struct endpoint_form *f = l->kind->endpoints;
    size_t argc = 0, used = 0;
    argv[argc++] = (char *)l->path;
    while (f->transport && strcmp(f->transport, l->transport) != 0)
        f++;
    /* Words go into buf one after another; one that does not fit ends
     * the list, and the server then refuses its truncated command line. */
    for (size_t i = 0; f->transport && i < ENDPOINT_MAX_WORDS &&
                       f->words[i];
         i++) {
        size_t n = expand_word(f->words[i], l->run_dir, index, buf + used,
                               buf_len - used);
        if (n == 0)
            break;
        argv[argc++] = buf + used;
        used += n;
    }
    for (size_t i = 0; i < l->njvm_words; i++)
        argv[argc++] = l->jvm_words[i];
    const struct {
        const char *option;
        int64_t value;
    } work[] = {{l->kind->work_option, l->work_us},
                {l->kind->work_ns_option, l->work_ns}};
    for (size_t i = 0; i < sizeof work / sizeof work[0]; i++) {
        if (work[i].value <= 0 || !work[i].option || used >= buf_len)
            continue;
        int n = snprintf(buf + used, buf_len - used, "%lld",
                         (long long)work[i].value);
        argv[argc++] = (char *)work[i].option;
        argv[argc++] = buf + used;
        used += (size_t)n + 1;
    }
    for (size_t i = 0; i < l->nargs && argc < SPAWN_MAX_ARGS; i++)
        argv[argc++] = l->args[i];
    argv[argc] = NULL;
}

static int query_version(const char *path, const char *option, char *name,
                         size_t name_len, char *version, size_t version_len,
                         char *build, size_t build_len, char *why,
                         size_t why_len);

int server_query_version(const char *path, char *name, size_t name_len,
                         char *version, size_t version_len, char *build,
                         size_t build_len, char *why, size_t why_len)
{
    return query_version(path, "--version", name, name_len, version,
                         version_len, build, build_len, why, why_len);
}

int server_query_version_opt(const char *path, const char *option,
                             char *name, size_t name_len, char *version,
                             size_t version_len, char *why, size_t why_len)
{
    return query_version(path, option, name, name_len, version, version_len,
                         NULL, 0, why, why_len);
}

static int query_version(const char *path, const char *option, char *name,
                         size_t name_len, char *version, size_t version_len,
                         char *build, size_t build_len, char *why,
                         size_t why_len)
{
    char line[768];
    int rc = install_ask(path, option, "server", line, sizeof line, why,
                         why_len);
    if (rc)
        return rc;
    size_t len = strlen(line);
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = 0;
    /* A second line, when there is one, says how the ORB was built. */
    if (build && build_len) {
        char *second = nl ? nl + 1 : line + len, *end;
        if ((end = strchr(second, '\n')))
            *end = 0;
        str_escape(build, build_len, second);   /* the server's text */
    }
    char *sp = strchr(line, ' ');
    if (!sp || sp == line || !sp[1]) {
        char shown[200];
        str_escape(shown, sizeof shown, line);
        snprintf(why, why_len,
                 "server %s: %s printed \"%s\", expected \"NAME "
                 "VERSION\"",
                 path, option, shown);
        return -EPROTO;
    }
    *sp = 0;
    /* Escaped: invalid UTF-8 would make json_string fail and the result
     * lose its "orb"; an ESC would reach the terminal. */
    str_escape(name, name_len, line);
    str_escape(version, version_len, sp + 1);
    return 0;
}

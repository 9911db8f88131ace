/* Callers: see caller_kind.h. A new ORB's caller is one program (in
 * callers/FAMILY/) and one row here. */
#include "host/caller_kind.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

/* orbbench's own client as a caller (callers/orbbench): its call modes,
 * and null, which answers rounds without calling (the protocol's
 * floor). */
static const char *const orbbench_modes[] = {
    "sync", "thread-per-call", "pool", "event", "null", NULL};

/* omniORB's own C++ client (callers/omniorb): static stubs, DII deferred
 * calls, and AMI where the release has it (4.2 and later). */
static const char *const omniorb_modes[] = {
    "sync", "deferred", "ami-poller", "ami-callback", NULL};

/* TAO's own C++ client (callers/tao): static stubs, DII deferred calls,
 * AMI callbacks (TAO 2.2.1 has no AMI poller); one thread in every mode. */
static const char *const tao_modes[] = {"sync", "deferred", "ami-callback",
                                        NULL};

/* ORBit2's own C client (callers/orbit2): stubs, and
 * ORBit_small_invoke_async (no thread per outstanding call). */
static const char *const orbit2_modes[] = {"sync", "async", NULL};

/* JacORB's Java client (callers/jacorb): static stubs, DII deferred
 * calls, AMI reply handlers (JacORB 3.4 has no AMI poller). */
static const char *const jacorb_modes[] = {"sync", "deferred",
                                           "ami-callback", NULL};

/* MICO's C++ client (callers/mico): static stubs, DII deferred calls. */
static const char *const mico_modes[] = {"sync", "deferred", NULL};

/* omniORBpy's Python client (callers/omniorbpy): static stubs and
 * omniORB's AMI (omniORBpy has no DII). */
static const char *const omniorbpy_modes[] = {"sync", "ami-poller",
                                              "ami-callback", NULL};

static const struct caller_kind callers[] = {
    {.name = "orbbench", .binary = "orbbench-caller",
     .modes = orbbench_modes},
    {.name = "omniorb", .binary = "omniorb-caller", .library = "libomniORB4",
     .build_hint = "scripts/build-orb omniorb VERSION, then make",
     .modes = omniorb_modes},
    /* TAO and ORBit2 have no Debian package: builds of scripts/build-orb
     * (bin/orbs/ID/caller). */
    {.name = "tao", .library = "libTAO.so",
     .build_hint = "scripts/build-orb tao VERSION --source PATH, then make",
     .modes = tao_modes},
    {.name = "orbit2", .library = "libORBit-2.so",
     .build_hint = "scripts/build-orb orbit2 VERSION --source PATH, then "
                   "make",
     .modes = orbit2_modes},
    /* JacORB has no Debian package: builds of scripts/build-orb only
     * (bin/orbs/jacorb-VERSION/caller), on a JVM (caller.jvm.*). */
    {.name = "jacorb", .library = "jacorb.jar",
     .build_hint = "scripts/build-orb jacorb VERSION --source PATH, then "
                   "make",
     .modes = jacorb_modes, .jvm = true},
    /* Neither has MICO: builds only (bin/orbs/mico-VERSION/caller). */
    {.name = "mico", .library = "libmico",
     .build_hint = "scripts/build-orb mico VERSION --source PATH, then make",
     .modes = mico_modes},
    /* Nor omniORBpy: builds only (bin/orbs/omniorbpy-VERSION/caller). */
    {.name = "omniorbpy", .library = "_omnipy",
     .build_hint = "scripts/build-orb omniorbpy VERSION --source PATH, then "
                   "make",
     .modes = omniorbpy_modes},
};

const struct caller_kind *caller_kind_lookup(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(callers); i++)
        if (strcmp(callers[i].name, name) == 0)
            return &callers[i];
    return NULL;
}

const char *caller_kind_name(size_t i)
{
    return i < ARRAY_LEN(callers) ? callers[i].name : NULL;
}

int caller_resolve(const struct caller_kind *k, const char *orb,
                   const char *bin_dir, char *path, size_t path_len,
                   char *why, size_t why_len)
{
    const struct install_form f = {.family = k->name,
                                   .noun = "caller",
                                   .binary = k->binary,
                                   .library = k->library,
                                   .exe = "caller",
                                   .build_hint = k->build_hint};
    return install_resolve(&f, orb, bin_dir, path, path_len, why, why_len);
}

int caller_query(const char *path, struct caller_identity *id, char *why,
                 size_t why_len)
{
    char out[1024];
    memset(id, 0, sizeof *id);
    int rc = install_ask(path, "--version", "caller", out, sizeof out, why,
                         why_len);
    if (rc)
        return rc;
    char *nl = strchr(out, '\n'), *second = NULL;
    if (nl) {
        *nl = 0;
        second = nl + 1;
        second[strcspn(second, "\n")] = 0;
    }
    char *sp = strchr(out, ' ');
    if (!sp || sp == out || !sp[1]) {
        char shown[200];
        str_escape(shown, sizeof shown, out);
        snprintf(why, why_len, "caller %s: --version printed \"%s\", "
                 "expected \"NAME VERSION\"", path, shown);
        return -EPROTO;
    }
    *sp = 0;
    str_escape(id->name, sizeof id->name, out);
    str_escape(id->version, sizeof id->version, sp + 1);
    if (second)
        str_escape(id->build, sizeof id->build, second);
    rc = install_ask(path, "--modes", "caller", out, sizeof out, why,
                     why_len);
    if (rc)
        return rc;
    for (char *save, *m = strtok_r(out, "\n", &save);
         m && id->nmodes < CALLER_MAX_MODES; m = strtok_r(NULL, "\n", &save))
        str_escape(id->modes[id->nmodes++], sizeof id->modes[0], m);
    if (id->nmodes == 0) {
        snprintf(why, why_len, "caller %s: --modes printed no mode", path);
        return -EPROTO;
    }
    return 0;
}

bool caller_has_mode(const struct caller_identity *id, const char *mode)
{
    for (size_t i = 0; i < id->nmodes; i++)
        if (strcmp(id->modes[i], mode) == 0)
            return true;
    return false;
}

void caller_make_argv(const void *arg, unsigned index, char **argv,
                      char *buf, size_t buf_len)
{
    const struct caller_launch *l = arg;
    size_t argc = 0;
    (void)index;
    int n = snprintf(buf, buf_len, "%lld", (long long)l->payload_bytes);
    char *timeout = buf + n + 1;
    snprintf(timeout, buf_len - (size_t)n - 1, "%lld",
             (long long)l->timeout_ms);
    argv[argc++] = (char *)l->path;
    for (size_t i = 0; i < l->njvm_words; i++)
        argv[argc++] = l->jvm_words[i];
    argv[argc++] = "--mode";
    argv[argc++] = (char *)l->mode;
    argv[argc++] = "--payload-bytes";
    argv[argc++] = buf;
    argv[argc++] = "--timeout-ms";
    argv[argc++] = timeout;
    argv[argc++] = "--";
    for (size_t i = 0; i < l->nargs && argc < SPAWN_MAX_ARGS; i++)
        argv[argc++] = l->args[i];
    argv[argc] = NULL;
}

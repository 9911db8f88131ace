/* Kind channel's processes, omniEvents and the event consumer: what the
 * spawner needs to start them (their command lines, the run folder's
 * database, log and sockets, a free port), set up before it is forked. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/cdr.h"
#include "codec/event_log.h"
#include "codec/payload.h"
#include "core/util.h"
#include "kinds/channel_impl.h"

#define CONSUMER_BINARY "omniorb-event-consumer"
/* omniEvents's factory is this object key in its INS POA. */
#define FACTORY_KEY "omniEvents"
/* The log's room beyond its records: header and type names. */
#define LOG_SLACK_BYTES 65536

struct channel_setup channel_setup;

/* spawn_argv_fn: server 0 is omniEvents, server 1 the consumer. */
static void channel_make_argv(const void *arg, unsigned index, char **argv,
                              char *buf, size_t buf_len)
{
    const struct channel_setup *s = arg;
    size_t n = 0;
    (void)buf;
    (void)buf_len;
    if (index == EVENTS_SERVER) {
        /* omniEvents listens on every interface at the port it is given
         * and publishes the machine's address, unless omniORB is told a
         * host: OMNIORB_USEHOSTNAME makes its one TCP endpoint
         * 127.0.0.1:port (env execs it: the same process). */
        argv[n++] = (char *)"/usr/bin/env";
        argv[n++] = (char *)"OMNIORB_USEHOSTNAME=127.0.0.1";
        argv[n++] = (char *)s->omnievents;
        argv[n++] = (char *)"-f"; /* foreground */
        argv[n++] = (char *)"-v"; /* print the factory's IOR */
        argv[n++] = (char *)"-l";
        argv[n++] = (char *)s->data_dir;
        argv[n++] = (char *)"-p";
        argv[n++] = (char *)s->port;
        if (s->events_unix[0]) {
            argv[n++] = (char *)"-ORBendPoint";
            argv[n++] = (char *)s->events_unix;
        }
    } else {
        argv[n++] = (char *)s->consumer;
        argv[n++] = (char *)"-ORBendPoint";
        argv[n++] = (char *)s->consumer_ep;
        argv[n++] = (char *)"--log";
        argv[n++] = (char *)s->log_path;
        argv[n++] = (char *)"--log-bytes";
        argv[n++] = (char *)s->log_bytes;
        if (s->via_channel) {
            argv[n++] = (char *)"--factory";
            argv[n++] = (char *)s->factory;
            argv[n++] = (char *)"--cycle-period-ns";
            argv[n++] = (char *)s->cycle_ns;
        }
        for (size_t i = 0; i < s->nargs && n < SPAWN_MAX_ARGS; i++)
            argv[n++] = s->args[i];
    }
    argv[n] = NULL;
}

/* A loopback TCP port free now (the kernel's pick). 0, or -errno. */
static int free_port(uint16_t *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
                     getsockname(fd, (struct sockaddr *)&a, &len) != 0
                 ? -errno
                 : 0;
    if (fd >= 0)
        close(fd);
    *port = ntohs(a.sin_port);
    return rc;
}

/* The encoded size of one event's any, for the log's size. */
static size_t any_bytes(const struct payload_type *pt)
{
    struct cdr_out o;
    cdr_out_init(&o, cdr_host_little());
    payload_encode_event_any(pt, EVENT_SEED, 0, &o);
    size_t n = o.err ? 0 : o.len;
    cdr_out_free(&o);
    return n;
}

int channel_spawn_setup(const struct scenario *sc, const char *bin_dir,
                        struct spawn_config *cfg, char *why, size_t why_len)
{
    struct channel_setup *s = &channel_setup;
    const char *run = cfg->log_dir;
    memset(s, 0, sizeof *s);
    s->via_channel = strcmp(channel_opts(sc)->via, "channel") == 0;
    s->args = sc->server.args;
    s->nargs = sc->server.nargs;
    snprintf(s->consumer, sizeof s->consumer, "%s/%s", bin_dir,
             CONSUMER_BINARY);
    if (access(s->consumer, X_OK) != 0) {
        int e = errno;
        snprintf(why, why_len, "event consumer %s: %s (run make first?)",
                 s->consumer, strerror(e));
        return -e;
    }
    str_copy(s->omnievents, sizeof s->omnievents, channel_opts(sc)->omnievents);
    if (s->via_channel && access(s->omnievents, X_OK) != 0) {
        int e = errno;
        snprintf(why, why_len, "key \"channel.omnievents\": %s: %s (Debian's "
                 "omnievents; scripts/install-deps installs it)",
                 s->omnievents, strerror(e));
        return -e;
    }
    uint16_t port = 0;
    int rc = s->via_channel ? free_port(&port) : 0;
    if (rc) {
        snprintf(why, why_len, "no free loopback port for omniEvents: %s",
                 strerror(-rc));
        return rc;
    }
    snprintf(s->port, sizeof s->port, "%u", port);
    snprintf(s->factory, sizeof s->factory, "corbaloc::127.0.0.1:%u/%s", port,
             FACTORY_KEY);
    snprintf(s->cycle_ns, sizeof s->cycle_ns, "%lld",
             (long long)channel_opts(sc)->cycle_period_ns);
    snprintf(s->data_dir, sizeof s->data_dir, "%s/omnievents", run);
    snprintf(s->log_path, sizeof s->log_path, "%s/events.log", run);
    bool on_unix = strcmp(sc->transport, "unix") == 0;
    if (on_unix && s->via_channel)
        snprintf(s->events_unix, sizeof s->events_unix,
                 "giop:unix:%s/events.sock", run);
    if (on_unix)
        snprintf(s->consumer_ep, sizeof s->consumer_ep,
                 "giop:unix:%s/consumer.sock", run);
    else
        str_copy(s->consumer_ep, sizeof s->consumer_ep, "giop:tcp:127.0.0.1:");
    if (s->via_channel && mkdir(s->data_dir, 0700) != 0) {
        int e = errno;
        snprintf(why, why_len, "mkdir %s: %s", s->data_dir, strerror(e));
        return -e;
    }
    /* Room for every event, warm-up included; the consumer logs the
     * event struct, never more than its any. */
    uint64_t events = (uint64_t)(channel_opts(sc)->events +
                                 channel_opts(sc)->warmup_events);
    uint64_t bytes = channel_opts(sc)->log_mb
                         ? (uint64_t)channel_opts(sc)->log_mb << 20
                         : LOG_SLACK_BYTES +
                               events * event_log_record_bytes(any_bytes(
                                            payload_lookup(sc->call.payload)));
    s->log_bytes_n = bytes;
    snprintf(s->log_bytes, sizeof s->log_bytes, "%llu",
             (unsigned long long)bytes);
    const struct machine *m = cfg->groups[0].machine;
    cfg->make_argv = channel_make_argv;
    cfg->groups[EVENTS_SERVER] = (struct spawn_group){
        .make_argv_arg = s, .machine = m, .ready_marker = "IOR:"};
    cfg->groups[CONSUMER_SERVER] =
        (struct spawn_group){.make_argv_arg = s, .machine = m};
    cfg->ngroups = 2;
    return 0;
}

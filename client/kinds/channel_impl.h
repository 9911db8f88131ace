/* What kind channel's files share (channel.c, the row and the run;
 * channel_setup.c, the processes; channel_connect.c, the start;
 * channel_push.c, the pushes): its options, its processes' setup, one
 * run's state, and the calls between them. Theirs alone. */
#ifndef ORBBENCH_CHANNEL_IMPL_H
#define ORBBENCH_CHANNEL_IMPL_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "codec/cdr.h"
#include "codec/event_log.h"
#include "codec/ior.h"
#include "codec/payload.h"
#include "core/scenario.h"
#include "core/stats.h"
#include "host/spawn.h"
#include "kinds/run.h"
#include "net/invoke.h"

/* kind "channel": events pushed one at a time to an event consumer
 * that logs them, through an omniEvents channel or directly. */
struct channel_opts {
    char via[16];          /* "channel" | "direct" */
    int64_t events;        /* measured */
    int64_t warmup_events;
    int64_t deadline_ms;   /* per phase: every event logged by then */
    int64_t cycle_period_ns; /* omniEvents's CyclePeriod_ns */
    int64_t log_mb;        /* 0: sized for the run */
    char omnievents[256];  /* its executable */
};

/* The scenario's channel options. */
static inline const struct channel_opts *
channel_opts(const struct scenario *sc)
{
    return SCENARIO_KIND_OPTS(struct channel_opts, sc);
}

/* Spawner groups and server indices: omniEvents, then the consumer. */
enum { EVENTS_SERVER = 0, CONSUMER_SERVER = 1 };
/* Every event carries the value of this seed: the consumer does not
 * check values, and one encoding serves every push. */
#define EVENT_SEED 1u

/* What the spawner needs to start both processes, and the run to find
 * them: filled by channel_spawn_setup before the spawner is forked (which
 * copies it), read by the command lines in the spawner and by the run. */
struct channel_setup {
    bool via_channel;
    char omnievents[256];
    char consumer[PATH_MAX];
    char data_dir[PATH_MAX];  /* omniEvents's database */
    char log_path[PATH_MAX];  /* the consumer's log */
    char port[8];             /* omniEvents's loopback TCP port */
    char factory[64];         /* corbaloc of its factory */
    char events_unix[PATH_MAX + 16]; /* transport unix: its endpoint */
    char consumer_ep[PATH_MAX + 16];
    char log_bytes[24];
    uint64_t log_bytes_n;
    char cycle_ns[24];
    char *const *args; /* server.args, for the consumer */
    size_t nargs;
};

/* The one run's (a channel run has one side). */
extern struct channel_setup channel_setup;

/* One run. */
struct chan {
    struct side *s;
    struct run_outcome *o;
    const struct payload_type *pt;
    const char *label; /* "event channel" or "direct push": errors say it */
    int64_t t0_ns;
    pid_t events_pid, consumer_pid;
    struct target target; /* where the pushes go */
    struct invoke inv;
    struct event_log log;
    struct cdr_out req; /* the push, encoded once */
    size_t stamp_at;    /* where its sent_ns lies in req.data */
    const uint8_t *key; /* the push target's object key */
    size_t key_len;
    struct ior proxy;   /* the channel's ProxyPushConsumer */
    int64_t *sent;      /* each measured event's stamp */
    struct samples call_ns;
    int64_t pushed;     /* measured events pushed (their push replied) */
    /* measured events whose stamp went out: pushed, or one more whose
     * push had no reply, which may still reach the consumer */
    int64_t stamped;
    uint64_t base;      /* log records before the measured events */
    /* A run stopped because events were not delivered: the log's records
     * then, the ones its message counts; 0: read them all. */
    uint64_t records_at_stop;
    json_t *info;       /* doc.channel */
};

/* channel_setup.c: kind_ops.spawn_setup. */
int channel_spawn_setup(const struct scenario *sc, const char *bin_dir,
                        struct spawn_config *cfg, char *why, size_t why_len);

/* channel_connect.c: stop the run for a process that failed: it died
 * (server_died, with its status), or `what` failed while it ran
 * (call_failed); start what the run needs, connect, and set up the
 * supplier (0, or -1 with the run stopped). */
void channel_process_failed(struct chan *c, pid_t pid, const char *who,
                            const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int channel_start(struct chan *c);

/* channel_push.c: push n events, each logged before the next is pushed
 * (0, or -1 with the run stopped); the measured events' times from the
 * log into the result. */
int channel_run_phase(struct chan *c, int64_t n, bool measured);
void channel_read_back(struct chan *c);

#endif

/* Synchronous calls: one thread calls each server in turn and waits for
 * each reply before the next call. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modes/callmode.h"
#include "core/util.h"

struct callmode {
    struct callmode_config cfg;
    struct call_times kept;
};

static int sync_create(struct callmode **out, const struct callmode_config *cfg)
{
    struct callmode *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->cfg = *cfg;
    *out = m;
    return 0;
}

static int sync_round(struct callmode *m, struct conn *conns, size_t n,
                      bool record, struct round_info *info)
{
    memset(info, 0, sizeof *info);
    int64_t t0 = now_ns();
    for (size_t i = 0; i < n; i++) {
        int64_t lat;
        int rc = conn_call(&conns[i], &lat);
        if (rc == 0 && record)
            rc = callmode_keep(&m->kept, t0, conns[i].sent_ns, lat);
        if (rc) {
            callmode_note_failure(info, rc, i, &conns[i]);
            return rc;
        }
        info->calls++;
    }
    info->max_in_flight = n ? 1 : 0;
    info->threads_peak = 1;
    return 0;
}

static int sync_drain(struct callmode *m, struct samples *service,
                      struct samples *completion)
{
    return callmode_move_samples(service, completion, &m->kept);
}

static void sync_destroy(struct callmode *m)
{
    callmode_free_times(&m->kept);
    free(m);
}

const struct callmode_ops callmode_sync = {
    .name = "sync",
    .create = sync_create,
    .round = sync_round,
    .drain = sync_drain,
    .destroy = sync_destroy,
};

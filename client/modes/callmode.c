/* Call mode lookup. */
#include "modes/callmode.h"

#include <string.h>

#include "core/util.h"

static const struct callmode_ops *const all[] = {
    &callmode_sync, &callmode_thread_per_call, &callmode_pool,
    &callmode_event};

const struct callmode_ops *callmode_lookup(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(all); i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

int callmode_thread_attr(pthread_attr_t *attr, int64_t stack_kb)
{
    int rc = pthread_attr_init(attr);
    if (rc)
        return -rc;
    rc = pthread_attr_setstacksize(attr, (size_t)stack_kb * 1024);
    if (rc) {
        pthread_attr_destroy(attr);
        return -rc;
    }
    return 0;
}

void callmode_raise_peak(atomic_uint *peak, unsigned v)
{
    unsigned cur = atomic_load_explicit(peak, memory_order_relaxed);
    while (cur < v && !atomic_compare_exchange_weak_explicit(
                          peak, &cur, v, memory_order_relaxed,
                          memory_order_relaxed))
        ;
}

void callmode_note_failure(struct round_info *info, int err, size_t index,
                           const struct conn *c)
{
    if (info->err)
        return;
    info->err = err;
    info->failed = index;
    memcpy(info->why, c->why, sizeof info->why);
}

int callmode_keep(struct call_times *kept, int64_t round_start_ns,
                  int64_t sent_ns, int64_t latency_ns)
{
    int rc = samples_add(&kept->service, latency_ns);
    if (!rc)
        rc = samples_add(&kept->completion,
                         sent_ns + latency_ns - round_start_ns);
    return rc;
}

int callmode_move_samples(struct samples *service, struct samples *completion,
                          struct call_times *kept)
{
    int rc = samples_merge(service, &kept->service);
    if (!rc)
        rc = samples_merge(completion, &kept->completion);
    samples_clear(&kept->service);
    samples_clear(&kept->completion);
    return rc;
}

void callmode_free_times(struct call_times *kept)
{
    samples_free(&kept->service);
    samples_free(&kept->completion);
}

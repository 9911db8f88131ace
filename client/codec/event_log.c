/* Reading the event consumer's log: see event_log.h. */
#include "codec/event_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct event_log_header *head(const struct event_log *l)
{
    return (const struct event_log_header *)(const void *)l->map;
}

int event_log_open(struct event_log *l, const char *path, char *why,
                   size_t why_len)
{
    struct stat st;
    l->map = NULL;
    l->len = 0;
    l->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (l->fd < 0 || fstat(l->fd, &st) != 0) {
        int e = errno;
        snprintf(why, why_len, "event log %s: %s", path, strerror(e));
        event_log_close(l);
        return -e;
    }
    if ((size_t)st.st_size < sizeof(struct event_log_header)) {
        snprintf(why, why_len, "event log %s: %lld bytes, shorter than its "
                 "header", path, (long long)st.st_size);
        event_log_close(l);
        return -EBADMSG;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, l->fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        snprintf(why, why_len, "event log %s: mmap: %s", path, strerror(e));
        event_log_close(l);
        return -e;
    }
    l->map = m;
    l->len = (size_t)st.st_size;
    const struct event_log_header *h = head(l);
    uint64_t names = (uint64_t)h->ntypes * EVENT_LOG_NAME_BYTES;
    if (memcmp(h->magic, EVENT_LOG_MAGIC, 8) != 0 ||
        h->header_bytes < sizeof *h + names || h->header_bytes % 8 ||
        h->capacity_bytes != l->len || h->header_bytes > l->len) {
        snprintf(why, why_len, "event log %s: not an event log of this "
                 "format (magic, header or size wrong)", path);
        event_log_close(l);
        return -EBADMSG;
    }
    return 0;
}

void event_log_close(struct event_log *l)
{
    if (l->map)
        munmap((void *)l->map, l->len);
    if (l->fd >= 0)
        close(l->fd);
    l->map = NULL;
    l->fd = -1;
}

uint64_t event_log_records(const struct event_log *l)
{
    return __atomic_load_n(&head(l)->records, __ATOMIC_ACQUIRE);
}

const struct event_log_header *event_log_get_header(const struct event_log *l)
{
    return head(l);
}

const char *event_log_type_name(const struct event_log *l, uint32_t type)
{
    if (type >= head(l)->ntypes)
        return "?";
    /* The consumer NUL-pads each name; the last byte is always NUL. */
    const char *name = (const char *)l->map + sizeof(struct event_log_header) +
                       (size_t)type * EVENT_LOG_NAME_BYTES;
    return memchr(name, 0, EVENT_LOG_NAME_BYTES) ? name : "?";
}

int event_log_next(const struct event_log *l, uint64_t *at,
                   struct event_log_record *rec)
{
    uint64_t pos = *at ? *at : head(l)->header_bytes;
    uint64_t used = __atomic_load_n(&head(l)->used_bytes, __ATOMIC_ACQUIRE);
    if (used > l->len || pos > used || used - pos < sizeof *rec)
        return -EBADMSG;
    memcpy(rec, l->map + pos, sizeof *rec);
    uint64_t size = event_log_record_bytes(rec->bytes);
    if (size > used - pos)
        return -EBADMSG;
    *at = pos + size;
    return 0;
}

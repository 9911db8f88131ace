/* The event consumer's log file: servers/omniorb/event_consumer.cc maps it
 * and appends every event it is pushed, as Miro's logger does (the
 * marshaled event and a record of its times); the channel kind reads it
 * back. Same machine, host byte order. Layout: the header, `ntypes` type
 * names of EVENT_LOG_NAME_BYTES each, then records from header_bytes on,
 * each a struct event_log_record followed by its event's bytes padded to
 * 8. The consumer fills a record, then raises `records` (a release
 * store): a reader that sees the count (an acquire load) sees the
 * records before it whole. Shared with C++: plain types only. */
#ifndef ORBBENCH_EVENT_LOG_H
#define ORBBENCH_EVENT_LOG_H

#include <stddef.h>
#include <stdint.h>

#define EVENT_LOG_MAGIC "ORBEVLG1" /* 8 bytes, no NUL */
#define EVENT_LOG_NAME_BYTES 32
/* The type of an event the consumer could not extract (no known
 * <Name>Event in the any): its sent_ns is 0. */
#define EVENT_LOG_TYPE_UNKNOWN 0xffffffffu

struct event_log_header {
    char magic[8];
    uint32_t header_bytes;   /* where the first record starts */
    uint32_t ntypes;         /* names after this header */
    uint64_t capacity_bytes; /* the file's size: records stop there */
    uint64_t records;        /* records complete (release store) */
    uint64_t used_bytes;     /* where the next record goes */
    uint64_t dropped;        /* events that did not fit: the log is full */
    uint64_t unknown;        /* events of no known type (logged too) */
    uint64_t reserved[2];
};

struct event_log_record {
    uint64_t sent_ns;     /* the event's own stamp (the supplier's) */
    uint64_t received_ns; /* when push() was entered */
    uint64_t logged_ns;   /* when the event's bytes were in the log */
    uint32_t type;        /* index into the names, or _UNKNOWN */
    uint32_t bytes;       /* the marshaled event that follows */
};

/* Bytes a record of an event of `bytes` takes, padding included. */
static inline uint64_t event_log_record_bytes(uint64_t bytes)
{
    return sizeof(struct event_log_record) + ((bytes + 7) & ~(uint64_t)7);
}

/* ---- the reader (the client, event_log.c; C only) ---- */
#ifndef __cplusplus

/* A log mapped read-only. */
struct event_log {
    const uint8_t *map;
    size_t len;
    int fd;
};

/* Map the log at `path` (the consumer made it) and check its header.
 * 0, or -errno with a one-line reason in `why`: -EBADMSG for a file that
 * is not a log of this format. */
int event_log_open(struct event_log *l, const char *path, char *why,
                   size_t why_len);
void event_log_close(struct event_log *l);

/* Records complete so far, and the header's counters. */
uint64_t event_log_records(const struct event_log *l);
const struct event_log_header *event_log_get_header(const struct event_log *l);

/* The name of type index `type` ("?" when out of the table). */
const char *event_log_type_name(const struct event_log *l, uint32_t type);

/* Walk records: *at starts at 0; fills *rec with the next record and
 * advances. 0, or -EBADMSG when a record runs past the used bytes. */
int event_log_next(const struct event_log *l, uint64_t *at,
                   struct event_log_record *rec);
#endif

#endif

/* Unit tests for event_log.c: logs written as the event consumer writes
 * them, read back; logs that are not of the format, refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "codec/event_log.h"

#define CAPACITY 4096
#define NAMES 2

/* A log file as the consumer leaves it: two types, `n` records of
 * `bytes` event bytes each (record k sent at 1000 k). Returns its path
 * (static) and the image in `img`. */
static const char *write_log(uint8_t *img, size_t n, uint32_t bytes)
{
    static char path[64];
    memset(img, 0, CAPACITY);
    struct event_log_header *h = (struct event_log_header *)(void *)img;
    memcpy(h->magic, EVENT_LOG_MAGIC, 8);
    h->ntypes = NAMES;
    h->header_bytes = sizeof *h + NAMES * EVENT_LOG_NAME_BYTES;
    h->capacity_bytes = CAPACITY;
    strcpy((char *)(h + 1), "None");
    strcpy((char *)(h + 1) + EVENT_LOG_NAME_BYTES, "Octet1K");
    uint64_t at = h->header_bytes;
    for (size_t k = 0; k < n; k++) {
        struct event_log_record r = {1000 * k, 1000 * k + 5, 1000 * k + 7,
                                     1, bytes};
        memcpy(img + at, &r, sizeof r);
        memset(img + at + sizeof r, 0xab, bytes);
        at += event_log_record_bytes(bytes);
    }
    h->used_bytes = at;
    h->records = n;
    snprintf(path, sizeof path, "/tmp/test_event_log.%d", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(img, 1, CAPACITY, f), CAPACITY);
    fclose(f);
    return path;
}

static void rewrite(const char *path, const uint8_t *img, size_t len)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(img, 1, len, f), len);
    fclose(f);
}

static void test_read_back(void **state)
{
    (void)state;
    static uint8_t img[CAPACITY];
    const char *path = write_log(img, 3, 13);
    struct event_log l;
    char why[256];
    assert_int_equal(event_log_open(&l, path, why, sizeof why), 0);
    assert_int_equal(event_log_records(&l), 3);
    assert_string_equal(event_log_type_name(&l, 0), "None");
    assert_string_equal(event_log_type_name(&l, 1), "Octet1K");
    assert_string_equal(event_log_type_name(&l, 2), "?");
    assert_string_equal(event_log_type_name(&l, EVENT_LOG_TYPE_UNKNOWN), "?");
    uint64_t at = 0;
    struct event_log_record r;
    for (uint64_t k = 0; k < 3; k++) {
        assert_int_equal(event_log_next(&l, &at, &r), 0);
        assert_int_equal(r.sent_ns, 1000 * k);
        assert_int_equal(r.logged_ns - r.sent_ns, 7);
        assert_int_equal(r.bytes, 13);
    }
    /* Past the used bytes: no fourth record. */
    assert_int_equal(event_log_next(&l, &at, &r), -EBADMSG);
    event_log_close(&l);
    unlink(path);
}

static void test_refused(void **state)
{
    (void)state;
    static uint8_t img[CAPACITY];
    struct event_log l;
    char why[256];
    const char *path = write_log(img, 1, 8);
    img[0] = 'X'; /* magic */
    rewrite(path, img, CAPACITY);
    assert_int_equal(event_log_open(&l, path, why, sizeof why), -EBADMSG);
    assert_non_null(strstr(why, "not an event log"));
    write_log(img, 1, 8);
    rewrite(path, img, CAPACITY - 8); /* not its capacity */
    assert_int_equal(event_log_open(&l, path, why, sizeof why), -EBADMSG);
    rewrite(path, img, 10); /* shorter than a header */
    assert_int_equal(event_log_open(&l, path, why, sizeof why), -EBADMSG);
    unlink(path);
    assert_int_equal(event_log_open(&l, path, why, sizeof why), -ENOENT);
    assert_non_null(strstr(why, path));
}

/* A record whose length runs past the used bytes is refused, not read. */
static void test_record_past_the_end(void **state)
{
    (void)state;
    static uint8_t img[CAPACITY];
    const char *path = write_log(img, 2, 16);
    struct event_log_header *h = (struct event_log_header *)(void *)img;
    struct event_log_record r;
    uint64_t second = h->header_bytes + event_log_record_bytes(16);
    memcpy(&r, img + second, sizeof r);
    r.bytes = 5000;
    memcpy(img + second, &r, sizeof r);
    rewrite(path, img, CAPACITY);
    struct event_log l;
    char why[256];
    uint64_t at = 0;
    assert_int_equal(event_log_open(&l, path, why, sizeof why), 0);
    assert_int_equal(event_log_next(&l, &at, &r), 0);
    assert_int_equal(event_log_next(&l, &at, &r), -EBADMSG);
    event_log_close(&l);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_record_past_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

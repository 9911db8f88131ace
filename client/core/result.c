/* The result document: see result.h and docs/results.md. */
#include "core/result.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "core/version.h"


static void iso_time(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

json_t *result_new(const char *kind, int argc, char **argv)
{
    char started[32];
    iso_time(started, sizeof started);
    json_t *cmd = json_array();
    for (int i = 0; i < argc; i++)
        json_array_append_new(cmd, json_string(argv[i]));
    return json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:s, s:o, s:[]}",
                     "schema", RESULT_SCHEMA, "tool", "name", "orbbench",
                     "version", ORBBENCH_VERSION, "git_revision",
                     ORBBENCH_GIT_REV, "compiler", "gcc " __VERSION__,
                     "cflags", ORBBENCH_CFLAGS, "kind", kind, "started_at",
                     started, "command", cmd, "servers");
}

json_t *result_summary(const struct summary *s)
{
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "count",
                     (json_int_t)s->count, "min", s->min, "mean", s->mean,
                     "median", s->median, "p90", s->p90, "p99", s->p99,
                     "max", s->max, "stddev", s->stddev);
}

void result_add_server(json_t *doc, unsigned index, pid_t pid,
                       double start_ms)
{
    json_array_append_new(json_object_get(doc, "servers"),
                          json_pack("{s:I, s:I, s:f}", "index",
                                    (json_int_t)index, "pid", (json_int_t)pid,
                                    "start_ms", start_ms));
}

void result_set_outcome(json_t *doc, const char *stop_reason,
                        const char *detail, double duration_s)
{
    char finished[32];
    iso_time(finished, sizeof finished);
    json_object_set_new(
        doc, "result",
        json_pack("{s:s, s:s, s:s, s:f}", "stop_reason", stop_reason,
                  "detail", detail, "finished_at", finished, "duration_s",
                  duration_s));
}

static void tmp_name(const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s.tmp%d", path, (int)getpid());
}

int result_check_writable(const char *path)
{
    char tmp[1024];
    tmp_name(path, tmp, sizeof tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    close(fd);
    unlink(tmp);
    return 0;
}

int result_write(const json_t *doc, const char *path)
{
    char tmp[1024];
    tmp_name(path, tmp, sizeof tmp);
    if (json_dump_file(doc, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) !=
        0)
        return errno ? -errno : -EIO;
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    return 0;
}

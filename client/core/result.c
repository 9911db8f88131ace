/* The result document: see result.h and docs/results.md. */
#include "core/result.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
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
    /* The detail may quote a server; json_string refuses invalid UTF-8,
     * and json_pack would then drop the whole "result": escape instead. */
    json_t *d = json_string(detail);
    if (!d) {
        size_t cap = 4 * strlen(detail) + 1;
        char *esc = malloc(cap);
        if (esc) {
            str_escape(esc, cap, detail);
            d = json_string(esc);
            free(esc);
        }
        if (!d)
            d = json_string("(detail not recordable)");
    }
    json_object_set_new(
        doc, "result",
        json_pack("{s:s, s:o, s:s, s:f}", "stop_reason", stop_reason,
                  "detail", d, "finished_at", finished, "duration_s",
                  duration_s));
}

/* The temporary file beside `path`: "PATH.tmp-" and 16 random hex
 * digits, created with O_EXCL|O_NOFOLLOW (never an existing file, never
 * through a symbolic link planted at its name). The descriptor, or -errno;
 * `tmp` gets its name. */
static int create_temp(const char *path, char *tmp, size_t len)
{
    for (int tries = 0; tries < 100; tries++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            r = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32) ^
                (uint64_t)tries;
        if ((size_t)snprintf(tmp, len, "%s.tmp-%016llx", path,
                             (unsigned long long)r) >= len)
            return -ENAMETOOLONG;
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                               O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd >= 0 ? fd : -errno;
    }
    return -EEXIST;
}

/* 0 when `path` is absent or a regular file (not a symbolic link to
 * one: rename would replace the link, and a link planted there must not
 * redirect the result), else -EISDIR or -EINVAL. */
static int target_ok(const char *path, struct stat *st)
{
    if (!path[0])
        return -ENOENT;
    if (lstat(path, st) != 0)
        return errno == ENOENT ? 0 : -errno;
    if (S_ISDIR(st->st_mode))
        return -EISDIR;
    return S_ISREG(st->st_mode) ? 0 : -EINVAL;
}

int result_check_writable(const char *path)
{
    struct stat st;
    char tmp[PATH_MAX];
    int rc = target_ok(path, &st);
    if (rc)
        return rc;
    int fd = create_temp(path, tmp, sizeof tmp);
    if (fd < 0)
        return fd;
    close(fd);
    unlink(tmp);
    return 0;
}

int result_write(const json_t *doc, const char *path)
{
    struct stat st;
    char tmp[PATH_MAX];
    int rc = target_ok(path, &st);
    if (rc)
        return rc;
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    if (!text)
        return -ENOMEM;
    int fd = create_temp(path, tmp, sizeof tmp);
    if (fd < 0) {
        free(text);
        return fd;
    }
    rc = write_full(fd, text, strlen(text));
    free(text);
    if (!rc && fsync(fd) != 0)
        rc = -errno;
    if (close(fd) != 0 && !rc)
        rc = -errno;
    if (!rc && rename(tmp, path) != 0)
        rc = -errno;
    if (rc) {
        unlink(tmp);
        return rc;
    }
    /* The rename itself lasts once the folder is on disk. */
    char dir[PATH_MAX];
    str_copy(dir, sizeof dir, path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = 0;
    int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

/* What makes two paths the same file: its device and inode when it
 * exists, else the resolved path of its folder and its name. */
struct file_id {
    bool have_ino;
    dev_t dev;
    ino_t ino;
    char name[PATH_MAX + NAME_MAX + 2];
};

static void file_id(const char *path, struct file_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->have_ino = true;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
    }
    char dir[PATH_MAX], real[PATH_MAX];
    str_copy(dir, sizeof dir, path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    if (slash == dir)
        str_copy(real, sizeof real, "/");
    else if (!realpath(slash ? (*slash = 0, dir) : ".", real))
        return;
    snprintf(id->name, sizeof id->name, "%s/%s", real, base);
}

static bool same_file(const struct file_id *a, const struct file_id *b)
{
    if (a->have_ino && b->have_ino)
        return a->dev == b->dev && a->ino == b->ino;
    return a->name[0] && strcmp(a->name, b->name) == 0;
}

int result_check_targets(const struct result_target *t, size_t n,
                         const struct result_target *inputs,
                         size_t ninputs, char *why, size_t why_len)
{
    struct file_id ids[RESULT_MAX_TARGETS], in[RESULT_MAX_TARGETS];
    if (n > RESULT_MAX_TARGETS || ninputs > RESULT_MAX_TARGETS)
        return -E2BIG;
    for (size_t k = 0; k < ninputs; k++) {
        memset(&in[k], 0, sizeof in[k]);
        const char *p = inputs[k].path;
        if (p && p[0] && strcmp(p, "-") != 0)
            file_id(p, &in[k]);
    }
    for (size_t i = 0; i < n; i++) {
        const char *p = t[i].path;
        struct stat st;
        size_t len = strlen(p);
        int rc = len && p[len - 1] == '/' ? -EISDIR : target_ok(p, &st);
        if (!len)
            snprintf(why, why_len, "%s: an empty path (give a file name)",
                     t[i].option);
        else if (rc == -EISDIR)
            snprintf(why, why_len, "%s %s: a folder (give a file name in "
                     "it)", t[i].option, p);
        else if (rc == -EINVAL)
            snprintf(why, why_len, "%s %s: not a regular file (%s): the "
                     "result replaces a regular file or makes one",
                     t[i].option, p, file_kind(st.st_mode));
        if (!len)
            return -EINVAL;
        if (rc == -EISDIR || rc == -EINVAL)
            return rc;
        file_id(p, &ids[i]);
        for (size_t k = 0; k < ninputs; k++)
            if (same_file(&ids[i], &in[k])) {
                snprintf(why, why_len, "%s %s: %s itself (%s)", t[i].option,
                         p, inputs[k].option, inputs[k].path);
                return -EEXIST;
            }
        for (size_t j = 0; j < i; j++)
            if (same_file(&ids[i], &ids[j])) {
                snprintf(why, why_len, "%s %s: the same file as %s %s",
                         t[i].option, p, t[j].option, t[j].path);
                return -EEXIST;
            }
        if ((rc = result_check_writable(p)) != 0) {
            snprintf(why, why_len, "%s %s: cannot write there: %s",
                     t[i].option, p, strerror(-rc));
            return rc;
        }
    }
    return 0;
}

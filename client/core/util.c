/* Small shared helpers: see util.h. */
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/stats.h"

int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock_measure(double *cost_ns, int64_t *resolution_ns)
{
    enum { BATCHES = 11, CALLS = 10000 };
    double per_call[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        int64_t t0 = now_ns(), t = t0;
        for (int i = 0; i < CALLS; i++)
            t = now_ns();
        per_call[b] = (double)(t - t0) / CALLS;
    }
    qsort(per_call, BATCHES, sizeof *per_call, stats_cmp_double);
    *cost_ns = per_call[BATCHES / 2];
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    *resolution_ns = (int64_t)res.tv_sec * 1000000000 + res.tv_nsec;
}

int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s)
        return -EINVAL;
    long long v = strtoll(s, &end, 10);
    if (end == s)
        return -EINVAL;
    if (errno == ERANGE)
        return -ERANGE;
    long long mult = 1;
    if (*end) {
        if (end[1])
            return -EINVAL;
        switch (*end) {
        case 'k': case 'K': mult = 1000; break;
        case 'm': case 'M': mult = 1000000; break;
        case 'g': case 'G': mult = 1000000000; break;
        default: return -EINVAL;
        }
    }
    if (v > LLONG_MAX / mult || v < LLONG_MIN / mult)
        return -ERANGE;
    *out = v * mult;
    return 0;
}

int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    if (!s || !*s)
        return -EINVAL;
    double v = strtod(s, &end);
    if (end == s || *end)
        return -EINVAL;
    if (errno == ERANGE || !isfinite(v))
        return -ERANGE;
    *out = v;
    return 0;
}

int write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -EPIPE;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int ms_until(int64_t deadline_ns)
{
    int64_t left = deadline_ns - now_ns();
    if (left <= 0)
        return 0;
    int64_t ms = (left + 999999) / 1000000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

void str_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* The length (2-4) of the well-formed UTF-8 sequence at s that encodes a
 * printable character (not a C1 control, no surrogate, no overlong form,
 * at most U+10FFFF), else 0. */
static size_t utf8_printable_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
        (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
        return 0;
    return n;
}

void str_escape(char *dst, size_t cap, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)src;
    size_t o = 0;
    if (!cap)
        return;
    while (*s) {
        size_t n = *s >= 0x20 && *s < 0x7f ? 1 : utf8_printable_len(s);
        if (n) {
            if (o + n >= cap)
                break;
            memcpy(dst + o, s, n);
            o += n;
            s += n;
        } else {
            if (o + 4 >= cap)
                break;
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[*s >> 4];
            dst[o++] = hex[*s & 15];
            s++;
        }
    }
    dst[o] = 0;
}

void str_escape_inplace(char *buf, size_t cap)
{
    char *copy = strdup(buf);
    if (!copy) {                 /* keep what is printable ASCII, in place */
        for (char *p = buf; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
                *p = '?';
        return;
    }
    str_escape(buf, cap, copy);
    free(copy);
}

int parse_cpu_list(const char *list, cpu_set_t *set, char *why,
                   size_t why_len)
{
    cpu_set_t allowed;
    CPU_ZERO(set);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        CPU_ZERO(&allowed);
    const char *p = list;
    while (*p) {
        char *end;
        errno = 0;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0 || errno)
            goto bad;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p || hi < lo || errno)
                goto bad;
        }
        for (long cpu = lo; cpu <= hi; cpu++) {
            if (cpu >= CPU_SETSIZE || !CPU_ISSET((int)cpu, &allowed)) {
                snprintf(why, why_len,
                         "CPU %ld is not on this machine (%d CPUs usable "
                         "here)",
                         cpu, CPU_COUNT(&allowed));
                return -EINVAL;
            }
            CPU_SET((int)cpu, set);
        }
        if (*end == ',')
            end++;
        else if (*end)
            goto bad;
        p = end;
    }
    if (CPU_COUNT(set) > 0)
        return 0;
bad:
    snprintf(why, why_len, "\"%s\" is not a CPU list (e.g. 0 or 0-1 or 0,2)",
             list);
    return -EINVAL;
}

int exe_dir(char *buf, size_t len)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) {
        path[n] = 0;
        str_copy(buf, len, dirname(path));
        return 0;
    }
    /* No /proc: the file execve was given. A bare name would be a guess
     * (PATH, or the working folder), so only a path counts; the client
     * never changes its working folder, so a relative one resolves as it
     * did at exec. */
    const char *fn = (const char *)getauxval(AT_EXECFN);
    if (fn && strchr(fn, '/') && realpath(fn, path)) {
        str_copy(buf, len, dirname(path));
        return 0;
    }
    str_copy(buf, len, "/nonexistent");
    return -ENOENT;
}

int helper_dir(char *buf, size_t len)
{
    char bin[PATH_MAX - 64], lib[PATH_MAX];
    struct stat st;
    exe_dir(bin, sizeof bin);
    snprintf(lib, sizeof lib, "%s/../libexec/orbbench", bin);
    if (stat(lib, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* Resolved: messages and results name the real folder. */
        char real[PATH_MAX];
        str_copy(buf, len, realpath(lib, real) ? real : lib);
        return 1;
    }
    str_copy(buf, len, bin);
    return 0;
}

const char *file_kind(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a folder";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR:
    case S_IFBLK: return "a device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a regular file";
    }
}

int open_regular(const char *path, char *why, size_t why_len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        snprintf(why, why_len, "%s: %s", path, strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        snprintf(why, why_len, "%s: %s", path, strerror(e));
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(why, why_len, "%s: not a regular file (%s)", path,
                 file_kind(st.st_mode));
        return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

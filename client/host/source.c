/* Server sources: see source.h. */
#include "host/source.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/ior.h"
#include "core/sha256.h"
#include "core/util.h"

#define LIST_MAX_BYTES (16 << 20)

/* --- the spawner ------------------------------------------------------ */

static int sp_start(void *ctx, int group, unsigned first, unsigned count,
                    int cpu, struct spawn_result *res)
{
    return spawner_spawn_on(ctx, group, first, count, cpu, res);
}

static int sp_drop(void *ctx, const pid_t *pids, unsigned count,
                   int64_t wait_ms)
{
    return spawner_kill(ctx, pids, count, wait_ms);
}

static int sp_check(void *ctx, pid_t pid, int64_t wait_ms, int *wstatus)
{
    return spawner_check(ctx, pid, wait_ms, wstatus);
}

static void sp_describe(void *ctx, unsigned index, char *buf, size_t len)
{
    (void)ctx;
    (void)index;
    if (len)
        buf[0] = 0;
}

static const char *sp_no_pid_why(void *ctx, unsigned index)
{
    (void)ctx;
    (void)index;
    return NULL;
}

static const struct server_source_ops spawner_ops = {
    "spawner", true, sp_start, sp_drop, sp_check, sp_describe,
    sp_no_pid_why,
};

void server_source_spawner(struct server_source *src, struct spawner *sp)
{
    src->ops = &spawner_ops;
    src->ctx = sp;
}

/* --- a list of IORs --------------------------------------------------- */

static int ls_start(void *ctx, int group, unsigned first, unsigned count,
                    int cpu, struct spawn_result *res)
{
    struct ior_list *l = ctx;
    (void)group;
    for (unsigned k = 0; k < count; k++) {
        struct spawn_result *r = &res[k];
        memset(r, 0, sizeof *r);
        r->index = first + k;
        r->fds[0] = r->fds[1] = -1;
        if (cpu >= 0) {
            /* Running already, wherever their owner put them. */
            r->err = -EINVAL;
            snprintf(r->why, sizeof r->why, "server %u of %s: servers "
                     "orbbench did not start cannot be pinned to a CPU",
                     r->index, l->path);
            return r->err;
        }
        if (r->index >= l->n) {
            r->err = -ERANGE;
            snprintf(r->why, sizeof r->why, "%s lists %zu servers, not %u",
                     l->path, l->n, r->index + 1);
            return r->err;
        }
        r->pid = l->e[r->index].pid;
        str_copy(r->line, sizeof r->line, l->e[r->index].ior);
    }
    return 0;
}

/* Servers orbbench did not start are never signalled: the sweep has
 * closed its connections, and that is all. */
static int ls_drop(void *ctx, const pid_t *pids, unsigned count,
                   int64_t wait_ms)
{
    (void)ctx;
    (void)pids;
    (void)count;
    (void)wait_ms;
    return 0;
}

/* kill(pid, 0) only asks whether the process exists: no signal is sent. */
static int ls_check(void *ctx, pid_t pid, int64_t wait_ms, int *wstatus)
{
    (void)ctx;
    (void)wait_ms;
    if (pid <= 0)
        return 0;
    if (kill(pid, 0) == 0 || errno == EPERM)
        return 0;
    *wstatus = -1;
    return 1;
}

static void ls_describe(void *ctx, unsigned index, char *buf, size_t len)
{
    struct ior_list *l = ctx;
    if (index >= l->n) {
        snprintf(buf, len, "%s", l->path);
        return;
    }
    const struct ior_entry *e = &l->e[index];
    if (e->pid > 0)
        snprintf(buf, len, "%s:%u, %s, pid %d", l->path, e->line, e->host,
                 (int)e->pid);
    else
        snprintf(buf, len, "%s:%u, %s", l->path, e->line, e->host);
}

static const char *ls_no_pid_why(void *ctx, unsigned index)
{
    struct ior_list *l = ctx;
    if (index >= l->n || !l->e[index].why[0])
        return NULL;
    return l->e[index].why;
}

static const struct server_source_ops list_ops = {
    "list", false, ls_start, ls_drop, ls_check, ls_describe, ls_no_pid_why,
};

void server_source_list(struct server_source *src, struct ior_list *l)
{
    src->ops = &list_ops;
    src->ctx = l;
}

bool ior_allow_valid(const char *a)
{
    const char *slash = strchr(a, '/');
    if (!a[0])
        return false;
    if (!slash)
        return true;
    char net[64];
    struct in_addr in;
    char *end;
    if ((size_t)(slash - a) >= sizeof net)
        return false;
    memcpy(net, a, (size_t)(slash - a));
    net[slash - a] = 0;
    long bits = strtol(slash + 1, &end, 10);
    return inet_pton(AF_INET, net, &in) == 1 && *end == 0 &&
           end != slash + 1 && bits >= 0 && bits <= 32;
}

/* Is `host` named by allow entry `a` (the same string, or inside a.b.c.d/
 * bits)? */
static bool allowed_by(const char *host, const char *a)
{
    const char *slash = strchr(a, '/');
    if (!slash)
        return strcmp(host, a) == 0;
    char net[64];
    struct in_addr h, n;
    if (!ior_allow_valid(a) || inet_pton(AF_INET, host, &h) != 1)
        return false;
    memcpy(net, a, (size_t)(slash - a));
    net[slash - a] = 0;
    inet_pton(AF_INET, net, &n);
    long bits = strtol(slash + 1, NULL, 10);
    uint32_t mask = bits ? ~0u << (32 - bits) : 0;
    return (ntohl(h.s_addr) & mask) == (ntohl(n.s_addr) & mask);
}

/* The whole input, at most LIST_MAX_BYTES. */
static int read_all(const char *path, char **out, size_t *len, char *why,
                    size_t why_len)
{
    /* A regular file, or standard input: a FIFO or device is refused
     * before any read (open_regular: no blocking open either). */
    FILE *f = stdin;
    if (strcmp(path, "-") != 0) {
        int fd = open_regular(path, why, why_len);
        if (fd < 0)
            return fd;
        if (!(f = fdopen(fd, "r"))) {
            close(fd);
            return -ENOMEM;
        }
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    int rc = 0;
    while (buf && !rc) {
        if (n == cap) {
            char *more = cap >= LIST_MAX_BYTES ? NULL
                                               : realloc(buf, 2 * cap + 1);
            if (!more) {
                rc = cap >= LIST_MAX_BYTES ? -EFBIG : -ENOMEM;
                break;
            }
            buf = more;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            rc = ferror(f) ? -EIO : 1;
    }
    if (f != stdin)
        fclose(f);
    if (!buf)
        return -ENOMEM;
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

/* The inode of the listening socket at the entry's endpoint, from
 * /proc/net, or 0. */
static unsigned long listen_inode(const struct ior *ior, bool unix_tp)
{
    char line[1024];
    unsigned long found = 0;
    if (unix_tp) {
        FILE *f = fopen("/proc/net/unix", "r");
        /* Num RefCount Protocol Flags Type St Inode Path */
        while (f && !found && fgets(line, sizeof line, f)) {
            unsigned long ino;
            char path[512];
            if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %511s", &ino,
                       path) == 2 && strcmp(path, ior->unix_path) == 0)
                found = ino;
        }
        if (f)
            fclose(f);
        return found;
    }
    struct in_addr want;
    bool v4 = inet_pton(AF_INET, ior->host, &want) == 1;
    FILE *f = fopen(v4 ? "/proc/net/tcp" : "/proc/net/tcp6", "r");
    /* sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout
     * inode */
    while (f && !found && fgets(line, sizeof line, f)) {
        char local[64];
        unsigned st, port;
        unsigned long ino;
        if (sscanf(line, "%*s %63s %*s %x %*s %*s %*s %*s %*s %lu", local,
                   &st, &ino) != 3 || st != 0x0A)
            continue;
        char *colon = strchr(local, ':');
        if (!colon || sscanf(colon + 1, "%x", &port) != 1 ||
            port != ior->port)
            continue;
        *colon = 0;
        /* The kernel prints the address as the 32-bit word in memory: the
         * same word as s_addr. 0 is a wildcard listener. */
        unsigned long addr = strtoul(local, NULL, 16);
        if (!v4 || addr == want.s_addr || addr == 0)
            found = ino;
    }
    if (f)
        fclose(f);
    return found;
}

/* Find the owners of the entries' sockets (inode[i], 0: none wanted) in
 * one pass over /proc/PID/fd. */
static void find_owners(struct ior_list *l, const unsigned long *inode)
{
    DIR *proc = opendir("/proc");
    for (struct dirent *p; proc && (p = readdir(proc));) {
        if (!isdigit((unsigned char)p->d_name[0]))
            continue;
        char dir[300];
        snprintf(dir, sizeof dir, "/proc/%s/fd", p->d_name);
        DIR *fds = opendir(dir);
        for (struct dirent *fd; fds && (fd = readdir(fds));) {
            char link[600], target[64];
            snprintf(link, sizeof link, "%s/%s", dir, fd->d_name);
            ssize_t n = readlink(link, target, sizeof target - 1);
            unsigned long ino;
            if (n <= 0)
                continue;
            target[n] = 0;
            if (sscanf(target, "socket:[%lu]", &ino) != 1)
                continue;
            for (size_t i = 0; i < l->n; i++)
                if (inode[i] == ino && l->e[i].pid == 0) {
                    l->e[i].pid = (pid_t)atoi(p->d_name);
                    l->e[i].pid_from = "socket";
                    l->e[i].why[0] = 0;
                }
        }
        if (fds)
            closedir(fds);
    }
    if (proc)
        closedir(proc);
}

/* One line's IOR and optional PID into e. 0, or -EINVAL with why. */
static int parse_line(char *s, struct ior_entry *e, struct ior *ior,
                      const char *transport, char *const *allow,
                      size_t nallow, char *why, size_t why_len)
{
    char *save, *word = strtok_r(s, " \t", &save);
    char *pid = strtok_r(NULL, " \t", &save);
    char *extra = strtok_r(NULL, " \t", &save);
    int rc = ior_parse(word, ior);
    if (rc) {
        snprintf(why, why_len, "bad IOR: %s", ior_strerror(rc));
        return -EINVAL;
    }
    if (extra) {
        snprintf(why, why_len, "expected \"IOR [PID]\", found more after "
                 "the PID");
        return -EINVAL;
    }
    if (pid) {
        char *end;
        errno = 0;
        long v = strtol(pid, &end, 10);
        if (errno || *end || v <= 0 || v > INT32_MAX) {
            snprintf(why, why_len, "\"%s\" is not a PID", pid);
            return -EINVAL;
        }
        e->pid = (pid_t)v;
        e->pid_from = "list";
    }
    if (strcmp(transport, "unix") == 0) {
        if (!ior->has_unix) {
            snprintf(why, why_len, "transport unix, but the IOR has no "
                     "Unix socket endpoint");
            return -EINVAL;
        }
        snprintf(e->host, sizeof e->host, "unix:%.240s", ior->unix_path);
        return 0;
    }
    if (!ior->has_iiop) {
        snprintf(why, why_len, "transport tcp, but the IOR has no IIOP "
                 "profile (only TAO's UIOP: transport unix)");
        return -EINVAL;
    }
    snprintf(e->host, sizeof e->host, "tcp:%.200s:%u", ior->host,
             ior->port);
    bool ok = ior_host_is_loopback(ior->host);
    for (size_t i = 0; !ok && i < nallow; i++)
        ok = allowed_by(ior->host, allow[i]);
    if (!ok) {
        snprintf(why, why_len, "server address \"%s\" is not loopback; "
                 "refusing it (allow it with client.allow_hosts or "
                 "--allow-host)", ior->host);
        return -EPERM;
    }
    return 0;
}

int ior_list_load(struct ior_list *l, const char *path,
                  const char *transport, char *const *allow, size_t nallow,
                  char *why, size_t why_len)
{
    char *text = NULL;
    size_t len = 0;
    memset(l, 0, sizeof *l);
    str_copy(l->path, sizeof l->path, path);
    why[0] = 0;
    int rc = read_all(path, &text, &len, why, why_len);
    if (rc) {
        if (rc == -EFBIG || !why[0]) /* else open_regular said why */
            snprintf(why, why_len, "%s: %s", path,
                     rc == -EFBIG ? "larger than 16 MiB" : strerror(-rc));
        return rc;
    }
    sha256_hex(text, len, l->sha256);
    size_t cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += text[i] == '\n';
    l->e = calloc(cap, sizeof *l->e);
    unsigned long *inode = calloc(cap, sizeof *inode);
    bool unix_tp = strcmp(transport, "unix") == 0;
    rc = l->e && inode ? 0 : -ENOMEM;
    /* strtok_r would skip empty lines and so miscount: split by hand. */
    for (char *s = text, *next; !rc && s && (*s || s < text + len);
         s = next) {
        next = strchr(s, '\n');
        if (next)
            *next++ = 0;
        l->lines++;
        char *hash = strchr(s, '#');
        if (hash)
            *hash = 0;
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        size_t n = strlen(s);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
            s[--n] = 0;
        if (!n)
            continue;
        struct ior_entry *e = &l->e[l->n];
        struct ior ior;
        char what[300];
        e->line = (unsigned)l->lines;
        rc = parse_line(s, e, &ior, transport, allow, nallow, what,
                        sizeof what);
        if (rc) {
            snprintf(why, why_len, "%s:%u: %s", path, e->line, what);
            break;
        }
        e->ior = strdup(s);
        if (!e->ior) {
            rc = -ENOMEM;
            break;
        }
        if (e->pid == 0 && (unix_tp || ior_host_is_loopback(ior.host))) {
            inode[l->n] = listen_inode(&ior, unix_tp);
            snprintf(e->why, sizeof e->why, "no PID given and %s",
                     inode[l->n] ? "no process here owns its listening "
                                   "socket"
                                 : "no listening socket at its endpoint "
                                   "on this machine");
        } else if (e->pid == 0) {
            snprintf(e->why, sizeof e->why, "no PID given and the server "
                     "is not on this machine's loopback");
        }
        l->n++;
    }
    if (!rc && l->n == 0) {
        snprintf(why, why_len, "%s: no IOR in it", path);
        rc = -EINVAL;
    }
    if (!rc)
        find_owners(l, inode);
    /* A PID given that is not running here: no footprint, and say why. */
    for (size_t i = 0; !rc && i < l->n; i++)
        if (l->e[i].pid > 0 && kill(l->e[i].pid, 0) != 0 && errno == ESRCH) {
            snprintf(l->e[i].why, sizeof l->e[i].why, "pid %d (from the "
                     "list) is not running on this machine",
                     (int)l->e[i].pid);
        }
    free(inode);
    free(text);
    if (rc == -ENOMEM)
        snprintf(why, why_len, "%s: out of memory", path);
    if (rc)
        ior_list_free(l);
    return rc;
}

void ior_list_free(struct ior_list *l)
{
    for (size_t i = 0; l->e && i < l->n; i++)
        free(l->e[i].ior);
    free(l->e);
    l->e = NULL;
    l->n = 0;
}

json_t *ior_list_json(const struct ior_list *l, char *const *allow,
                      size_t nallow, int64_t max_n)
{
    json_t *al = json_array(), *servers = json_array();
    for (size_t i = 0; i < nallow; i++)
        json_array_append_new(al, json_string(allow[i]));
    for (size_t i = 0; i < l->n; i++) {
        const struct ior_entry *e = &l->e[i];
        json_t *s = json_pack("{s:I, s:I, s:s}", "index", (json_int_t)i,
                              "line", (json_int_t)e->line, "endpoint",
                              e->host);
        if (e->pid > 0) {
            json_object_set_new(s, "pid", json_integer(e->pid));
            json_object_set_new(s, "pid_from", json_string(e->pid_from));
        }
        if (e->why[0])
            json_object_set_new(s, "footprint_unavailable",
                                json_string(e->why));
        json_array_append_new(servers, s);
    }
    return json_pack("{s:s, s:I, s:I, s:s, s:b, s:o, s:I, s:o}", "iors",
                     l->path, "lines", (json_int_t)l->lines, "servers_listed",
                     (json_int_t)l->n, "sha256", l->sha256,
                     "started_by_orbbench", 0, "allow_hosts", al, "max_n",
                     (json_int_t)max_n, "servers", servers);
}

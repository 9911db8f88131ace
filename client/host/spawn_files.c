/* The run folder and the servers' logs (see spawn.h): what a server
 * declared in its log, its last words for a message, and removing run
 * folders, the spawner's own at its end and those a killed run left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "host/machine.h"
#include "host/spawn.h"
#include "host/spawn_impl.h"

/* The last non-empty line a process wrote to its log, for error
 * messages. */
void spawn_log_tail(const char *dir, const char *prefix, unsigned index,
                    char *out, size_t cap)
{
    char path[600], buf[1024];
    out[0] = 0;
    snprintf(path, sizeof path, "%s/%s%u.log", dir, prefix, index);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1
                                              : 0;
    ssize_t n = pread(fd, buf, sizeof buf - 1, from);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = 0;
    char *last = strrchr(buf, '\n');
    str_escape(out, cap, last ? last + 1 : buf);   /* the server's text */
}

/* Remove a folder (server logs and sockets) and its files, and the
 * files of folders in it `depth` levels down (a server's data folder:
 * omniEvents keeps its database there). */
void spawn_remove_dir(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno == EISDIR &&
                depth > 0) {
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
                spawn_remove_dir(sub, depth - 1);
            }
        }
        closedir(d);
    }
    rmdir(dir);
}

/* A run folder this client made (orbbench-PID-XXXXXX, see runcmd), of
 * this user: removed with its files. */
static bool remove_run_dir(int dfd, const char *name, const char *path)
{
    struct stat st;
    if (!strchr(name + sizeof "orbbench-", '-') ||
        fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return false;
    spawn_remove_dir(path, 1);
    return access(path, F_OK) != 0;
}

int spawn_remove_leftover_dirs(const char *parent, char *list, size_t len)
{
    return machine_each_leftover(parent, remove_run_dir, list, len);
}

int spawn_parse_limit(char *line, const char *what, int64_t *value,
                      char *reason, size_t reason_len)
{
    static const char tag[] = "orbbench-limit ";
    size_t wlen = strlen(what);
    const char *p = line;
    line[strcspn(line, "\r\n")] = 0;
    if (strncmp(p, tag, sizeof tag - 1) != 0)
        return 0;
    p += sizeof tag - 1;
    if (strncmp(p, what, wlen) != 0 || p[wlen] != ' ')
        return 0;
    p += wlen + 1;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (errno || end == p || *p == '-' || *p == '+' || v <= 0 ||
        (*end && *end != ':')) {
        char shown[200];
        str_escape(shown, sizeof shown, line);
        snprintf(reason, reason_len, "declared \"%s\": not \"orbbench-limit "
                 "%s N: REASON\" with N a positive integer", shown, what);
        return -EINVAL;
    }
    *value = v;
    if (*end == ':')
        end += 1 + strspn(end + 1, " ");
    /* The server's own words: escaped (valid UTF-8 for the result file,
     * no ESC for the terminal). */
    str_escape(reason, reason_len, end);
    return 1;
}

int spawner_declared_limit(const struct spawner *sp, unsigned index,
                           const char *what, int64_t *value, char *reason,
                           size_t reason_len)
{
    char path[600], line[512];
    int found = 0;
    reason[0] = 0;
    if (!sp->cfg->log_dir)
        return 0;
    snprintf(path, sizeof path, "%s/s%u.log", sp->cfg->log_dir, index);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    /* Bounded: only the first few hundred lines are looked at. A line
     * longer than the buffer comes in pieces; only a piece that starts a
     * line may be a declaration (never the tail of a longer line). */
    bool at_start = true;
    for (int k = 0; k < 256 && !found && fgets(line, sizeof line, f); k++) {
        bool starts = at_start;
        at_start = strchr(line, '\n') != NULL;
        if (starts)
            found = spawn_parse_limit(line, what, value, reason, reason_len);
    }
    fclose(f);
    if (found < 0) {
        char why[400];
        str_copy(why, sizeof why, reason);
        snprintf(reason, reason_len, "server %u %s", index, why);
    }
    return found;
}

void spawner_log_tail(const struct spawner *sp, int group, unsigned index,
                      char *buf, size_t len)
{
    const char *prefix = "s";
    if (group >= 0 && group < sp->cfg->ngroups &&
        sp->cfg->groups[group].log_prefix)
        prefix = sp->cfg->groups[group].log_prefix;
    if (!sp->cfg->log_dir) {
        buf[0] = 0;
        return;
    }
    spawn_log_tail(sp->cfg->log_dir, prefix, index, buf, len);
}

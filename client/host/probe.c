/* Readings from /proc and the system: see probe.h. */
#include "host/probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/util.h"

/* Sum "Key:   123 kB" lines of a /proc file into the matching fields. */
struct kb_field {
    const char *key;
    int64_t *into;
};

static int read_kb_fields(const char *path, const struct kb_field *f,
                          size_t nf)
{
    FILE *fp = fopen(path, "re");
    char line[256];
    if (!fp)
        return -errno;
    while (fgets(line, sizeof line, fp)) {
        for (size_t i = 0; i < nf; i++) {
            size_t kl = strlen(f[i].key);
            long long v;
            if (strncmp(line, f[i].key, kl) == 0 && line[kl] == ':' &&
                sscanf(line + kl + 1, "%lld", &v) == 1)
                *f[i].into += v;
        }
    }
    fclose(fp);
    return 0;
}

/* First line of a file, without its newline; "" if unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    buf[0] = 0;
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

static int64_t read_i64(const char *path)
{
    char buf[64];
    int64_t v;
    read_line(path, buf, sizeof buf);
    return parse_i64(buf, &v) == 0 ? v : -1;
}

/* The first line of `path` that starts with `prefix`, into `line`
 * without its newline; the text after the prefix, or NULL (no such line,
 * or no file). */
static char *line_after(const char *path, const char *prefix, char *line,
                        size_t size)
{
    FILE *f = fopen(path, "re");
    char *found = NULL;
    size_t n = strlen(prefix);
    while (f && !found && fgets(line, (int)size, f))
        if (strncmp(line, prefix, n) == 0) {
            line[strcspn(line, "\n")] = 0;
            found = line + n;
        }
    if (f)
        fclose(f);
    return found;
}

static void cpu_model(char *buf, size_t len)
{
    char line[512];
    char *v = line_after("/proc/cpuinfo", "model name", line, sizeof line);
    char *colon = v ? strchr(v, ':') : NULL;
    str_copy(buf, len, "unknown");
    if (!colon)
        return;
    colon++;
    while (*colon == ' ')
        colon++;
    str_copy(buf, len, colon);
}

static void os_name(char *buf, size_t len)
{
    char line[256];
    char *v = line_after("/etc/os-release", "PRETTY_NAME=", line, sizeof line);
    str_copy(buf, len, "unknown");
    if (!v)
        return;
    if (*v == '"') {
        v++;
        v[strcspn(v, "\"")] = 0;
    }
    str_copy(buf, len, v);
}

json_t *probe_host(void)
{
    struct utsname u;
    int64_t mem_total_kb = 0;
    const struct kb_field total[] = {{"MemTotal", &mem_total_kb}};
    char model[256], os[256], host[256] = "";
    uname(&u);
    read_kb_fields("/proc/meminfo", total, ARRAY_LEN(total));
    cpu_model(model, sizeof model);
    os_name(os, sizeof os);
    gethostname(host, sizeof host - 1);
    return json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:s}", "cpu_model",
                     model, "cpus_online",
                     (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
                     "mem_total_kb", (json_int_t)mem_total_kb, "kernel",
                     u.release, "arch", u.machine, "hostname", host, "os",
                     os);
}

int64_t probe_pid_max(void)
{
    return read_i64("/proc/sys/kernel/pid_max");
}

int64_t probe_threads_max(void)
{
    return read_i64("/proc/sys/kernel/threads-max");
}

json_t *probe_limits(void)
{
    struct rlimit nofile, nproc;
    char ports[64];
    getrlimit(RLIMIT_NOFILE, &nofile);
    getrlimit(RLIMIT_NPROC, &nproc);
    read_line("/proc/sys/net/ipv4/ip_local_port_range", ports, sizeof ports);
    for (char *p = ports; *p; p++)
        if (*p == '\t')
            *p = ' ';
    return json_pack(
        "{s:I, s:I, s:I, s:I, s:s, s:I, s:I}", "nofile",
        (json_int_t)(nofile.rlim_cur == RLIM_INFINITY ? -1
                                                      : (int64_t)nofile.rlim_cur),
        "nproc",
        (json_int_t)(nproc.rlim_cur == RLIM_INFINITY ? -1
                                                     : (int64_t)nproc.rlim_cur),
        "pid_max", (json_int_t)probe_pid_max(), "threads_max",
        (json_int_t)read_i64("/proc/sys/kernel/threads-max"),
        "ip_local_port_range", ports, "somaxconn",
        (json_int_t)read_i64("/proc/sys/net/core/somaxconn"),
        "netdev_max_backlog",
        (json_int_t)read_i64("/proc/sys/net/core/netdev_max_backlog"));
}

int64_t probe_tasks_total(void)
{
    char buf[128];
    long long running, total;
    read_line("/proc/loadavg", buf, sizeof buf);
    if (sscanf(buf, "%*s %*s %*s %lld/%lld", &running, &total) == 2)
        return total;
    return -1;
}

int64_t probe_user_tasks(uid_t uid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int64_t n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        char path[300], line[256];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue; /* gone meanwhile */
        long long real = -1, threads = 0;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "Uid: %lld", &real) == 1)
                continue;
            if (sscanf(line, "Threads: %lld", &threads) == 1)
                break; /* Uid comes before Threads */
        }
        fclose(f);
        if (real == (long long)uid)
            n += threads;
    }
    closedir(d);
    return n;
}

int probe_file_table(int64_t *used, int64_t *max)
{
    char line[128];
    long long a, b, c;
    read_line("/proc/sys/fs/file-nr", line, sizeof line);
    if (sscanf(line, "%lld %lld %lld", &a, &b, &c) != 3) {
        *used = *max = -1;
        return -ENOENT;
    }
    *used = a - b; /* allocated less the free ones */
    *max = c;
    return 0;
}

int64_t probe_own_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int64_t n = 0;
    if (!d) {
        /* At the descriptor limit the folder cannot be opened: ask each
         * descriptor number instead (only then: one call each). */
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
            return -1;
        rlim_t top = rl.rlim_cur < 1048576 ? rl.rlim_cur : 1048576;
        for (rlim_t fd = 0; fd < top; fd++)
            if (fcntl((int)fd, F_GETFD) != -1)
                n++;
        return n;
    }
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3; /* ".", ".." and the directory's own fd */
}

int64_t probe_task_ctx_switches(pid_t pid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int64_t sum = 0;
    /* Bounded by the process's threads. */
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char file[128];
        snprintf(file, sizeof file, "/proc/%d/task/%.20s/status", (int)pid,
                 e->d_name);
        FILE *f = fopen(file, "re");
        if (!f)
            continue; /* a thread that just ended */
        long long v;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1 ||
                sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1)
                sum += v;
        fclose(f);
    }
    closedir(d);
    return sum;
}

int probe_process(pid_t pid, struct proc_footprint *fp)
{
    char path[64];
    int64_t priv_clean = 0, priv_dirty = 0;
    memset(fp, 0, sizeof *fp);
    const struct kb_field smaps[] = {
        {"Rss", &fp->rss_kb},
        {"Pss", &fp->pss_kb},
        {"Private_Clean", &priv_clean},
        {"Private_Dirty", &priv_dirty},
    };
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
    int rc = read_kb_fields(path, smaps, ARRAY_LEN(smaps));
    if (rc)
        return rc;
    fp->uss_kb = priv_clean + priv_dirty;
    const struct kb_field status[] = {{"Threads", &fp->threads}};
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if ((rc = read_kb_fields(path, status, ARRAY_LEN(status))))
        return rc;
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            fp->fds++;
    closedir(d);
    return 0;
}

int probe_socket_inodes(pid_t pid, uint64_t **inodes, size_t *n,
                        size_t *cap)
{
    char path[64], link[64], target[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t len = readlink(link, target, sizeof target - 1);
        unsigned long long ino;
        if (len <= 0)
            continue; /* closed meanwhile */
        target[len] = 0;
        if (sscanf(target, "socket:[%llu]", &ino) != 1)
            continue;
        if (*n == *cap) {
            size_t more = *cap ? *cap * 2 : 256;
            uint64_t *p = realloc(*inodes, more * sizeof *p);
            if (!p) {
                rc = -ENOMEM;
                break;
            }
            *inodes = p;
            *cap = more;
        }
        (*inodes)[(*n)++] = ino;
    }
    closedir(d);
    return rc;
}

/* Tcp RetransSegs from /proc/net/snmp: the first "Tcp:" line names the
 * fields, the second holds their values. */
static int64_t tcp_retrans(void)
{
    FILE *f = fopen("/proc/net/snmp", "re");
    char line[1024], head[1024] = "";
    int64_t v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Tcp:", 4) != 0)
            continue;
        if (!head[0]) {
            memcpy(head, line, sizeof head);
            continue;
        }
        char *hs, *vs;
        char *h = strtok_r(head, " \n", &hs);
        char *val = strtok_r(line, " \n", &vs);
        for (; h && val; h = strtok_r(NULL, " \n", &hs),
                         val = strtok_r(NULL, " \n", &vs))
            if (strcmp(h, "RetransSegs") == 0)
                v = strtoll(val, NULL, 10);
        break;
    }
    fclose(f);
    return v;
}

/* Sum of the "dropped" column (2nd, hex) of /proc/net/softnet_stat. */
static int64_t softnet_dropped(void)
{
    FILE *f = fopen("/proc/net/softnet_stat", "re");
    unsigned long processed, dropped;
    int64_t sum = 0;
    if (!f)
        return -1;
    while (fscanf(f, "%lx %lx%*[^\n]", &processed, &dropped) == 2)
        sum += (int64_t)dropped;
    fclose(f);
    return sum;
}

int probe_machine_mem(struct machine_mem *m)
{
    memset(m, 0, sizeof *m);
    const struct kb_field f[] = {
        {"MemAvailable", &m->mem_available_kb},
        {"MemFree", &m->mem_free_kb},
        {"Slab", &m->slab_kb},
        {"KernelStack", &m->kernel_stack_kb},
        {"PageTables", &m->page_tables_kb},
    };
    m->tcp_retrans_segs = tcp_retrans();
    m->softnet_dropped = softnet_dropped();
    return read_kb_fields("/proc/meminfo", f, ARRAY_LEN(f));
}

int probe_mapped_library(pid_t pid, const char *prefix, char *path,
                         size_t len)
{
    char maps[64], line[1024];
    if (!prefix)
        return -ENOENT; /* an ORB-less server: no library to find */
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(maps, "re");
    if (!f)
        return -errno;
    int rc = -ENOENT;
    while (rc && fgets(line, sizeof line, f)) {
        char *file = strchr(line, '/');
        if (!file)
            continue;
        file[strcspn(file, "\n")] = 0;
        const char *base = strrchr(file, '/') + 1;
        if (strncmp(base, prefix, strlen(prefix)) == 0) {
            str_copy(path, len, file);
            rc = 0;
        }
    }
    fclose(f);
    if (rc == 0)
        return 0;
    char fd_dir[64], link[64], file[PATH_MAX];
    snprintf(fd_dir, sizeof fd_dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(fd_dir);
    for (struct dirent *e; rc && d && (e = readdir(d));) {
        snprintf(link, sizeof link, "%s/%.16s", fd_dir, e->d_name);
        ssize_t n = readlink(link, file, sizeof file - 1);
        if (n <= 0 || file[0] != '/')
            continue; /* ".", "..", sockets, pipes */
        file[n] = 0;
        if (strncmp(strrchr(file, '/') + 1, prefix, strlen(prefix)) == 0) {
            str_copy(path, len, file);
            rc = 0;
        }
    }
    if (d)
        closedir(d);
    return rc;
}

/* A pids cgroup directory at its limit: pids.events counts refused forks
 * ("max N"); pids.current against pids.max says how full it is. */
static int pids_dir_at_limit(const char *dir, char *note, size_t len)
{
    char path[600], max[32] = "";
    int64_t refused = 0, current = -1;
    snprintf(path, sizeof path, "%s/pids.max", dir);
    read_line(path, max, sizeof max);
    if (!max[0] || strcmp(max, "max") == 0)
        return 0;
    snprintf(path, sizeof path, "%s/pids.current", dir);
    current = read_i64(path);
    snprintf(path, sizeof path, "%s/pids.events", dir);
    FILE *f = fopen(path, "re");
    if (f) {
        long long n;
        char line[128];
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "max %lld", &n) == 1)
                refused = n;
        fclose(f);
    }
    if (refused == 0)
        return 0;
    snprintf(note, len,
             "its pids cgroup %s is at its limit (%lld tasks of pids.max %s; "
             "%lld forks or threads refused)",
             dir, (long long)current, max, (long long)refused);
    return 1;
}

int probe_task_limit(pid_t pid, char *note, size_t len)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        char dir[512];
        if (strcmp(c1 + 1, "pids") == 0)
            snprintf(dir, sizeof dir, "/sys/fs/cgroup/pids%s", c2 + 1);
        else if (strcmp(line, "0") == 0 && c1[1] == 0)
            snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", c2 + 1);
        else
            continue;
        /* The limit may sit on any ancestor. */
        for (char *slash; strlen(dir) > strlen("/sys/fs/cgroup");) {
            if (pids_dir_at_limit(dir, note, len)) {
                fclose(f);
                return 1;
            }
            if (!(slash = strrchr(dir, '/')))
                break;
            *slash = 0;
        }
    }
    if (f)
        fclose(f);
    int64_t tasks = probe_tasks_total(), pid_max = probe_pid_max();
    int64_t threads_max = read_i64("/proc/sys/kernel/threads-max");
    if (tasks > 0 && ((pid_max > 0 && tasks * 100 >= pid_max * 98) ||
                      (threads_max > 0 && tasks * 100 >= threads_max * 98))) {
        snprintf(note, len,
                 "the machine is at its task limit (%lld threads in use; "
                 "pid_max %lld, threads-max %lld)",
                 (long long)tasks, (long long)pid_max,
                 (long long)threads_max);
        return 1;
    }
    return 0;
}

void probe_clocksource(char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
                    "current_clocksource", "re");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = 0;
    fclose(f);
    buf[strcspn(buf, "\n")] = 0;
}

void probe_describe(json_t *doc)
{
    double cost_ns;
    int64_t res_ns;
    char clocksource[64];
    clock_measure(&cost_ns, &res_ns);
    /* What CLOCK_MONOTONIC reads (tsc, hpet, acpi_pm, kvm-clock...): its
     * cost above depends on it. "" when sysfs does not say. */
    probe_clocksource(clocksource, sizeof clocksource);
    json_object_set_new(doc, "host", probe_host());
    json_object_set_new(
        doc, "clock",
        json_pack("{s:s, s:f, s:I, s:s}", "source", "CLOCK_MONOTONIC",
                  "cost_ns", cost_ns, "resolution_ns", (json_int_t)res_ns,
                  "clocksource", clocksource));
    json_object_set_new(doc, "limits", probe_limits());
}

/* Readings from /proc and the system: see probe.h. */
#include "probe.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util.h"

int probe_meminfo(struct meminfo *m)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[256];
    memset(m, 0, sizeof *m);
    if (!f)
        return -errno;
    while (fgets(line, sizeof line, f)) {
        long long v;
        if (sscanf(line, "MemTotal: %lld kB", &v) == 1)
            m->total_kb = v;
        else if (sscanf(line, "MemAvailable: %lld kB", &v) == 1)
            m->available_kb = v;
        else if (sscanf(line, "MemFree: %lld kB", &v) == 1)
            m->free_kb = v;
    }
    fclose(f);
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

static void cpu_model(char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "re");
    char line[512];
    str_copy(buf, len, "unknown");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon++;
            while (*colon == ' ')
                colon++;
            colon[strcspn(colon, "\n")] = 0;
            str_copy(buf, len, colon);
            break;
        }
    }
    fclose(f);
}

static void os_name(char *buf, size_t len)
{
    FILE *f = fopen("/etc/os-release", "re");
    char line[256];
    str_copy(buf, len, "unknown");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
            char *v = line + 12;
            v[strcspn(v, "\n")] = 0;
            if (*v == '"') {
                v++;
                v[strcspn(v, "\"")] = 0;
            }
            str_copy(buf, len, v);
            break;
        }
    }
    fclose(f);
}

json_t *probe_host(void)
{
    struct utsname u;
    struct meminfo m;
    char model[256], os[256], host[256] = "";
    uname(&u);
    probe_meminfo(&m);
    cpu_model(model, sizeof model);
    os_name(os, sizeof os);
    gethostname(host, sizeof host - 1);
    return json_pack("{s:s, s:I, s:I, s:s, s:s, s:s, s:s}", "cpu_model",
                     model, "cpus_online",
                     (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
                     "mem_total_kb", (json_int_t)m.total_kb, "kernel",
                     u.release, "arch", u.machine, "hostname", host, "os",
                     os);
}

int64_t probe_pid_max(void)
{
    return read_i64("/proc/sys/kernel/pid_max");
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
        "{s:I, s:I, s:I, s:I, s:s, s:I}", "nofile",
        (json_int_t)(nofile.rlim_cur == RLIM_INFINITY ? -1
                                                      : (int64_t)nofile.rlim_cur),
        "nproc",
        (json_int_t)(nproc.rlim_cur == RLIM_INFINITY ? -1
                                                     : (int64_t)nproc.rlim_cur),
        "pid_max", (json_int_t)probe_pid_max(), "threads_max",
        (json_int_t)read_i64("/proc/sys/kernel/threads-max"),
        "ip_local_port_range", ports, "somaxconn",
        (json_int_t)read_i64("/proc/sys/net/core/somaxconn"));
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

int64_t probe_own_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int64_t n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3; /* ".", ".." and the directory's own fd */
}

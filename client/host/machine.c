/* Emulated machines: see machine.h. */
#include "host/machine.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define CG1_ROOT "/sys/fs/cgroup/memory"
#define CG2_ROOT "/sys/fs/cgroup"
#define CG1_CPUACCT "/sys/fs/cgroup/cpuacct"

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = write_full(fd, text, strlen(text));
    close(fd);
    return rc;
}

static bool readable(const char *path)
{
    return access(path, R_OK) == 0;
}

/* Is "memory" among the words of a cgroup v2 controllers file? */
static bool v2_has_memory(const char *path)
{
    char buf[512] = "";
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = 0;
    fclose(f);
    for (char *save, *w = strtok_r(buf, " \n", &save); w;
         w = strtok_r(NULL, " \n", &save))
        if (strcmp(w, "memory") == 0)
            return true;
    return false;
}

/* This process's cgroup path for a v1 controller ("memory") or, with
 * controller NULL, in the v2 hierarchy ("0::"). "" when not found. */
static void own_cgroup(const char *controller, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    char line[512];
    out[0] = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        bool match = controller ? strcmp(c1 + 1, controller) == 0
                                : strcmp(line, "0") == 0 && c1[1] == 0;
        if (match && strcmp(c2 + 1, "/") != 0) {
            str_copy(out, len, c2 + 1);
            break;
        }
    }
    fclose(f);
}

/* Make <parent>/orbbench-PID with the limit. 0 or -errno (m->cgroup_dir
 * cleared on failure). */
static int try_cgroup(struct machine *m, const char *parent,
                      const char *limit_file)
{
    snprintf(m->cgroup_dir, sizeof m->cgroup_dir, "%s/orbbench-%d%s", parent,
             (int)getpid(), m->name_suffix);
    snprintf(m->cgroup_procs, sizeof m->cgroup_procs, "%s/cgroup.procs",
             m->cgroup_dir);
    snprintf(m->parent_procs, sizeof m->parent_procs, "%s/cgroup.procs",
             parent);
    if (mkdir(m->cgroup_dir, 0755) != 0) {
        int e = errno;
        m->cgroup_dir[0] = 0;
        return -e;
    }
    char path[400], text[32];
    snprintf(path, sizeof path, "%s/%s", m->cgroup_dir, limit_file);
    snprintf(text, sizeof text, "%lld", (long long)m->limit_bytes);
    int rc = write_file(path, text);
    if (rc) {
        machine_remove_cgroup(m->cgroup_dir);
        m->cgroup_dir[0] = 0;
    }
    return rc;
}

static int make_cgroup(struct machine *m, int64_t mb, char *why,
                       size_t why_len)
{
    const char *root, *limit_file;
    char own[256];
    if (readable(CG1_ROOT "/memory.limit_in_bytes")) {
        m->cgroup_version = 1;
        root = CG1_ROOT;
        limit_file = "memory.limit_in_bytes";
        own_cgroup("memory", own, sizeof own);
    } else if (v2_has_memory(CG2_ROOT "/cgroup.controllers")) {
        m->cgroup_version = 2;
        root = CG2_ROOT;
        limit_file = "memory.max";
        own_cgroup(NULL, own, sizeof own);
    } else {
        snprintf(why, why_len,
                 "machine.mem_limit_mb: no cgroup memory controller here "
                 "(neither %s nor memory in %s/cgroup.controllers)",
                 CG1_ROOT, CG2_ROOT);
        return -ENOTSUP;
    }
    m->limit_bytes = mb * 1024 * 1024;
    /* Below our own cgroup, so its limits still hold and leaving means
     * going back where we were; at the root if that is refused (v2 allows
     * no controllers below a cgroup that holds processes). */
    int rc = -ENOENT;
    if (own[0]) {
        char parent[300];
        snprintf(parent, sizeof parent, "%s%s", root, own);
        if (m->cgroup_version == 2) {
            char ctl[340];
            snprintf(ctl, sizeof ctl, "%s/cgroup.subtree_control", parent);
            write_file(ctl, "+memory");
        }
        rc = try_cgroup(m, parent, limit_file);
    }
    if (rc) {
        if (m->cgroup_version == 2)
            write_file(CG2_ROOT "/cgroup.subtree_control", "+memory");
        rc = try_cgroup(m, root, limit_file);
    }
    if (rc)
        snprintf(why, why_len,
                 "machine.mem_limit_mb: cannot create a memory cgroup under "
                 "%s%s: %s%s",
                 root, own, strerror(-rc),
                 rc == -EACCES || rc == -EPERM || rc == -EROFS
                     ? " (run as root)"
                     : "");
    return rc;
}

/* Make the accounting group orbbench-PID below `parent`. */
static void acct_group(struct machine *m, const char *parent, int version)
{
    snprintf(m->acct_dir, sizeof m->acct_dir, "%s/orbbench-%d%s", parent,
             (int)getpid(), m->name_suffix);
    if (mkdir(m->acct_dir, 0755) == 0) {
        m->acct_version = version;
        snprintf(m->acct_procs, sizeof m->acct_procs, "%s/cgroup.procs",
                 m->acct_dir);
        return;
    }
    snprintf(m->acct_unavailable, sizeof m->acct_unavailable,
             "cannot create %s: %s", m->acct_dir, strerror(errno));
    m->acct_dir[0] = 0;
}

/* The servers' CPU accounting group: v1 cpuacct, else the v2 memory
 * cgroup when there is one (a process is in one v2 cgroup only), else a
 * v2 cgroup of its own. Never fatal: the result says why it is missing. */
static void make_acct(struct machine *m)
{
    char own[256], parent[300];
    if (readable(CG1_CPUACCT "/cpuacct.usage_user")) {
        own_cgroup("cpuacct", own, sizeof own);
        snprintf(parent, sizeof parent, "%s%s", CG1_CPUACCT, own);
        acct_group(m, parent, 1);
    } else if (m->cgroup_version == 2 && m->cgroup_dir[0]) {
        m->acct_version = 2; /* read the memory cgroup's cpu.stat */
    } else if (readable(CG2_ROOT "/cgroup.controllers")) {
        own_cgroup(NULL, own, sizeof own);
        snprintf(parent, sizeof parent, "%s%s", CG2_ROOT, own);
        acct_group(m, parent, 2);
    } else {
        snprintf(m->acct_unavailable, sizeof m->acct_unavailable,
                 "no cpuacct controller and no cgroup v2");
    }
}

int machine_server_cpu(const struct machine *m, struct cpu_usage *u)
{
    char path[400], line[128];
    memset(u, 0, sizeof *u);
    if (m->acct_version == 1) {
        const char *files[] = {"cpuacct.usage", "cpuacct.usage_user",
                               "cpuacct.usage_sys"};
        int64_t *into[] = {&u->total_ns, &u->user_ns, &u->sys_ns};
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", m->acct_dir, files[i]);
            FILE *f = fopen(path, "re");
            long long v;
            if (!f)
                return -errno;
            int ok = fscanf(f, "%lld", &v) == 1;
            fclose(f);
            if (!ok)
                return -EPROTO;
            *into[i] = v;
        }
        return 0;
    }
    if (m->acct_version == 2) {
        const char *dir = m->acct_dir[0] ? m->acct_dir : m->cgroup_dir;
        snprintf(path, sizeof path, "%s/cpu.stat", dir);
        FILE *f = fopen(path, "re");
        if (!f)
            return -errno;
        long long v;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "usage_usec %lld", &v) == 1)
                u->total_ns = v * 1000;
            else if (sscanf(line, "user_usec %lld", &v) == 1)
                u->user_ns = v * 1000;
            else if (sscanf(line, "system_usec %lld", &v) == 1)
                u->sys_ns = v * 1000;
        }
        fclose(f);
        return 0;
    }
    return -ENOENT;
}

int machine_setup(struct machine *m, const struct scenario *sc,
                  const char *suffix, char *why, size_t why_len)
{
    memset(m, 0, sizeof *m);
    str_copy(m->name_suffix, sizeof m->name_suffix, suffix);
    if (sc->machine.cpus[0]) {
        int rc = parse_cpu_list(sc->machine.cpus, &m->server_cpus, why,
                                why_len);
        if (rc)
            return rc;
        m->has_server_cpus = true;
    }
    if (sc->machine.client_cpus[0]) {
        int rc = parse_cpu_list(sc->machine.client_cpus, &m->client_cpus,
                                why, why_len);
        if (rc)
            return rc;
        m->has_client_cpus = true;
    }
    if (sc->machine.mem_limit_mb > 0) {
        int rc = make_cgroup(m, sc->machine.mem_limit_mb, why, why_len);
        if (rc)
            return rc;
    }
    make_acct(m);
    return 0;
}

int machine_setup_caller(struct machine *m, const struct scenario *sc,
                         const char *suffix, char *why, size_t why_len)
{
    memset(m, 0, sizeof *m);
    str_copy(m->name_suffix, sizeof m->name_suffix, suffix);
    /* The caller is the client: it takes the client's CPUs, as a
     * server takes the servers'. */
    if (sc->machine.client_cpus[0]) {
        int rc = parse_cpu_list(sc->machine.client_cpus, &m->server_cpus,
                                why, why_len);
        if (rc)
            return rc;
        m->has_server_cpus = true;
    }
    make_acct(m);
    return 0;
}

int machine_enter_client(struct machine *m, bool limit_client, char *why,
                         size_t why_len)
{
    if (limit_client && m->cgroup_procs[0]) {
        char pid[24];
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        int rc = write_file(m->cgroup_procs, pid);
        if (rc) {
            snprintf(why, why_len, "machine.limit_client: cannot join %s: %s",
                     m->cgroup_dir, strerror(-rc));
            return rc;
        }
        m->client_joined = true;
    }
    if (m->has_client_cpus &&
        sched_setaffinity(0, sizeof m->client_cpus, &m->client_cpus) != 0) {
        int e = errno;
        snprintf(why, why_len, "machine.client_cpus: sched_setaffinity: %s",
                 strerror(e));
        return -e;
    }
    return 0;
}

void machine_leave_client(struct machine *m)
{
    if (m->client_joined) {
        char pid[24];
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        write_file(m->parent_procs, pid);
        m->client_joined = false;
    }
}

int machine_enter_server(const struct machine *m)
{
    char pid[24];
    /* No snprintf between fork and exec in a threaded parent; the spawner
     * is single-threaded, but keep this minimal anyway. */
    int n = 0;
    char tmp[24];
    for (long v = (long)getpid(); v > 0; v /= 10)
        tmp[n++] = (char)('0' + v % 10);
    for (int i = 0; i < n; i++)
        pid[i] = tmp[n - 1 - i];
    pid[n] = 0;
    if (m->cgroup_procs[0]) {
        int rc = write_file(m->cgroup_procs, pid);
        if (rc)
            return rc;
    }
    if (m->acct_procs[0]) {
        int rc = write_file(m->acct_procs, pid);
        if (rc)
            return rc;
    }
    if (m->has_server_cpus &&
        sched_setaffinity(0, sizeof m->server_cpus, &m->server_cpus) != 0)
        return -errno;
    return 0;
}

/* SIGKILL every process left in cgroup dir but this one: a server that
 * daemonized (forked twice, so that no parent-death signal reaches it)
 * is still in the cgroup its start put it in. cgroup.kill (Linux 5.14)
 * when the cgroup holds only others; else each PID of cgroup.procs.
 * Never touches a process outside the cgroup. */
static void kill_cgroup_members(const char *dir)
{
    char path[600], line[32];
    bool self_inside = false;
    pid_t me = getpid();
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    pid_t pids[256];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        long v = strtol(line, NULL, 10);
        if (v <= 0)
            continue;
        if ((pid_t)v == me)
            self_inside = true;
        else if (n < sizeof pids / sizeof pids[0])
            pids[n++] = (pid_t)v;
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/cgroup.kill", dir);
    if (self_inside || write_file(path, "1") != 0)
        for (size_t i = 0; i < n; i++)
            kill(pids[i], SIGKILL);
}

void machine_remove_cgroup(const char *dir)
{
    if (!dir || !dir[0])
        return;
    /* The last processes may still be exiting: retry for up to 2 s; after
     * 0.5 s, whatever is still in it outlived its spawner (a daemon):
     * killed, so that the cgroup goes. */
    for (int i = 0; i < 200; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            return;
        if (errno == EBUSY && i == 50)
            kill_cgroup_members(dir);
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
}

pid_t machine_leftover_pid(const char *name)
{
    static const char prefix[] = "orbbench-";
    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *digits = name + sizeof prefix - 1;
    if (!isdigit((unsigned char)*digits))
        return 0; /* strtol would take a sign or blanks too */
    char *end;
    errno = 0;
    long v = strtol(digits, &end, 10);
    if (errno || v <= 0 || v > INT_MAX || (*end && *end != '-'))
        return 0;
    if (v == (long)getpid() || kill((pid_t)v, 0) == 0 || errno != ESRCH)
        return 0; /* alive (or not ours to ask about) */
    return (pid_t)v;
}

int machine_each_leftover(const char *parent,
                          bool (*remove)(int dfd, const char *name,
                                         const char *path),
                          char *list, size_t len)
{
    DIR *d = opendir(parent);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!machine_leftover_pid(e->d_name))
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        if (!remove(dirfd(d), e->d_name, path))
            continue;
        n++;
        size_t used = strlen(list);
        snprintf(list + used, len - used, "%s%s", used ? ";" : "", path);
    }
    closedir(d);
    return n;
}

/* A leftover cgroup goes when it holds no process (else rmdir fails:
 * not a leftover). */
static bool remove_cgroup_dir(int dfd, const char *name, const char *path)
{
    (void)dfd;
    (void)name;
    return rmdir(path) == 0;
}

int machine_remove_leftovers(char *list, size_t len)
{
    char own[256], parent[300];
    int n = 0;
    const struct {
        const char *root, *controller;
    } places[] = {{CG1_ROOT, "memory"}, {CG1_CPUACCT, "cpuacct"},
                  {CG2_ROOT, NULL}};
    for (size_t i = 0; i < ARRAY_LEN(places); i++) {
        own_cgroup(places[i].controller, own, sizeof own);
        if (own[0]) {
            snprintf(parent, sizeof parent, "%s%s", places[i].root, own);
            n += machine_each_leftover(parent, remove_cgroup_dir, list, len);
        }
        n += machine_each_leftover(places[i].root, remove_cgroup_dir, list,
                                   len);
    }
    return n;
}

int64_t machine_oom_kills(const struct machine *m)
{
    char path[400], line[128];
    if (!m->cgroup_dir[0])
        return -1;
    snprintf(path, sizeof path, "%s/%s", m->cgroup_dir,
             m->cgroup_version == 1 ? "memory.oom_control" : "memory.events");
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long long n = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "oom_kill %lld", &n) == 1)
            break;
    fclose(f);
    return n;
}

static json_t *cpus_json(bool has, const cpu_set_t *set)
{
    if (!has)
        return json_null();
    char buf[256] = "";
    size_t used = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && used < sizeof buf - 8; cpu++)
        if (CPU_ISSET(cpu, set))
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%d",
                                     used ? "," : "", cpu);
    return json_string(buf);
}

json_t *machine_describe(const struct machine *m)
{
    json_t *j = json_pack(
        "{s:o, s:o, s:o, s:I, s:b}", "server_cpus",
        cpus_json(m->has_server_cpus, &m->server_cpus), "client_cpus",
        cpus_json(m->has_client_cpus, &m->client_cpus), "cgroup",
        m->cgroup_dir[0] ? json_string(m->cgroup_dir) : json_null(),
        "mem_limit_bytes", (json_int_t)m->limit_bytes, "client_in_cgroup",
        m->client_joined);
    if (m->acct_version) {
        json_object_set_new(
            j, "cpu_accounting",
            json_string(m->acct_version == 1 ? "cgroup v1 cpuacct"
                                             : "cgroup v2 cpu.stat"));
        json_object_set_new(j, "cpu_accounting_cgroup",
                            json_string(m->acct_dir[0] ? m->acct_dir
                                                       : m->cgroup_dir));
    }
    else
        json_object_set_new(j, "cpu_accounting_unavailable",
                            json_string(m->acct_unavailable));
    return j;
}

/* ORB installations: see install.h. */
#include "host/install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

int install_resolve(const struct install_form *f, const char *orb,
                    const char *bin_dir, char *path, size_t path_len,
                    char *why, size_t why_len)
{
    if (!f->library) {
        snprintf(path, path_len, "%s/%s", bin_dir, f->binary);
        if (access(path, X_OK) == 0)
            return 0;
        snprintf(why, why_len, "%s \"%s\" has no %s (run make first?)",
                 f->noun, f->family, path);
        return -ENOENT;
    }
    char system_id[64], prefix[64];
    snprintf(system_id, sizeof system_id, "%s-system", f->family);
    snprintf(prefix, sizeof prefix, "%s-", f->family);
    bool system = strcmp(orb, system_id) == 0 || strcmp(orb, "system") == 0;
    bool ours = system || strncmp(orb, prefix, strlen(prefix)) == 0;
    if (system && f->binary)
        snprintf(path, path_len, "%s/%s", bin_dir, f->binary);
    else
        snprintf(path, path_len, "%s/orbs/%s/%s", bin_dir, orb, f->exe);
    if (ours && (!system || f->binary) && access(path, X_OK) == 0)
        return 0;
    /* Name only this family's installations whose program is there. */
    char dir[600], exe[PATH_MAX], list[400] = "";
    size_t used = 0;
    snprintf(exe, sizeof exe, "%s/%s", bin_dir, f->binary ? f->binary : "");
    if (f->binary && access(exe, X_OK) == 0)
        used = (size_t)snprintf(list, sizeof list, "%s", system_id);
    snprintf(dir, sizeof dir, "%s/orbs", bin_dir);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        snprintf(exe, sizeof exe, "%s/%s/%s", dir, e->d_name, f->exe);
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
            used < sizeof list && access(exe, X_OK) == 0)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                     used ? ", " : "", e->d_name);
    }
    if (d)
        closedir(d);
    char none[160];
    snprintf(none, sizeof none, "none: %s",
             f->build_hint ? f->build_hint : "run make");
    if (!ours)
        snprintf(why, why_len, "\"%s\" is not an installation of %s \"%s\" "
                 "(theirs are named %s*; built here: %s)", orb, f->noun,
                 f->family, prefix, used ? list : none);
    else if (system && !f->binary)
        snprintf(why, why_len, "%s \"%s\" has no system installation; name "
                 "a build (built here: %s)", f->noun, f->family,
                 used ? list : none);
    else
        snprintf(why, why_len, "no ORB installation \"%s\" built (%s "
                 "missing; built here: %s)", orb, path, used ? list : none);
    return -ENOENT;
}

int install_ask(const char *path, const char *option, const char *noun,
                char *out, size_t out_len, char *why, size_t why_len)
{
    int pfd[2];
    out[0] = 0;
    if (access(path, X_OK) != 0) {
        int e = errno;
        snprintf(why, why_len, "%s %s: %s (run make first?)", noun, path,
                 strerror(e));
        return -e;
    }
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return -errno;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        /* What it prints on stderr is not ours to pass to the terminal
         * raw (escape sequences, invalid UTF-8): dropped; its stdout is
         * the caller's to escape. */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 2);
            dup2(null, 0);
        }
        execl(path, path, option, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    if (pid < 0) {
        int e = errno;
        close(pfd[0]);
        snprintf(why, why_len, "fork for %s %s: %s", path, option,
                 strerror(e));
        return -e;
    }
    size_t len = 0;
    int64_t deadline = now_ns() + 5000000000LL;
    struct pollfd p = {.fd = pfd[0], .events = POLLIN};
    while (len < out_len - 1 && poll(&p, 1, ms_until(deadline)) > 0) {
        ssize_t n = read(pfd[0], out + len, out_len - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    out[len] = 0;
    close(pfd[0]);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    return 0;
}

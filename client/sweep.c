/* The footprint sweep: see sweep.h. */
#include "sweep.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "footprint.h"
#include "probe.h"
#include "result.h"
#include "stats.h"
#include "util.h"

/* The client's own costs over one step's timed rounds. */
struct client_costs {
    struct cpu_usage server0, server1; /* servers' CPU around the rounds */
    bool server_cpu;
    uint64_t threads_started;
    unsigned max_in_flight;
    unsigned threads_peak;
    double cpu_user_s;
    double cpu_sys_s;
};

struct run {
    struct client_costs client;
    struct sweep *s;
    struct sweep_outcome *o;
    struct conn *conns;
    size_t n;      /* connected servers */
    int64_t t0_ns; /* sweep start */
    struct callmode *mode;
    struct samples rounds;
    struct samples calls;
    struct samples starts; /* this step's server start times */
    struct footprint fp;
    int64_t oom_kills; /* in the memory cgroup, at the start */
};

static bool is_resource_errno(int e)
{
    switch (e) {
    case EAGAIN: case ENOMEM: case EMFILE: case ENFILE: case ENOSPC:
    case ENOBUFS: case EADDRNOTAVAIL: case EADDRINUSE: case EDQUOT:
        return true;
    default:
        return false;
    }
}

static void stop(struct run *r, const char *reason, int exit_code,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void stop(struct run *r, const char *reason, int exit_code,
                 const char *fmt, ...)
{
    va_list ap;
    r->o->stop_reason = reason;
    r->o->exit_code = exit_code;
    va_start(ap, fmt);
    vsnprintf(r->o->detail, sizeof r->o->detail, fmt, ap);
    va_end(ap);
}

/* Name the limit that a resource error most likely hit. */
static void limit_note(int e, char *buf, size_t len)
{
    struct rlimit rl;
    buf[0] = 0;
    if (e == EAGAIN) {
        snprintf(buf, len, " (threads in use %lld of pid_max %lld)",
                 (long long)probe_tasks_total(), (long long)probe_pid_max());
    } else if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        snprintf(buf, len, " (client descriptors %lld of RLIMIT_NOFILE %llu)",
                 (long long)probe_own_fds(),
                 (unsigned long long)rl.rlim_cur);
    } else if (e == EADDRNOTAVAIL) {
        snprintf(buf, len, " (ephemeral ports exhausted?)");
    }
}

/* A server died by SIGKILL while the memory cgroup's OOM count rose:
 * the limit, not the ORB, ended it. */
static bool oom_killed(struct run *r, int wstatus)
{
    if (!WIFSIGNALED(wstatus) || WTERMSIG(wstatus) != SIGKILL)
        return false;
    int64_t now = r->s->machine ? machine_oom_kills(r->s->machine) : -1;
    return now > r->oom_kills;
}

static void stop_oom(struct run *r, unsigned index, pid_t pid)
{
    stop(r, STOP_MEMORY, 0,
         "server %u (pid %d) was killed by the OOM killer in the %lld MB "
         "memory cgroup at N=%zu (OOM kills so far: %lld)",
         index, (int)pid,
         (long long)(r->s->machine->limit_bytes / (1024 * 1024)), r->n,
         (long long)machine_oom_kills(r->s->machine));
}

/* A failed call or connect on server i: find out whether it died. */
static void call_failure(struct run *r, size_t i, int err, const char *why)
{
    struct conn *c = &r->conns[i];
    char status[96], note[600];
    int st;
    if (err == -EINTR && *r->s->interrupted) {
        stop(r, STOP_INTERRUPTED, 130, "interrupted at N=%zu", r->n);
    } else if (spawner_check(r->s->sp, c->pid, 200, &st) == 1) {
        if (oom_killed(r, st))
            return stop_oom(r, c->index, c->pid);
        spawn_describe_status(st, status, sizeof status);
        stop(r, STOP_SERVER_DIED, 1, "server %u (pid %d) %s at N=%zu: %s",
             c->index, (int)c->pid, status, r->n, why);
    } else if (probe_task_limit(c->pid, note, sizeof note)) {
        /* A live server that dropped its connection: it could not start
         * a thread for it. */
        stop(r, STOP_RESOURCE, 0, "%s at N=%zu: %s", why, r->n, note);
    } else {
        stop(r, STOP_CALL_FAILED, 1, "%s at N=%zu", why, r->n);
    }
}

/* Start servers n..target-1 and connect to each. True when all are up. */
static bool grow(struct run *r, size_t target)
{
    const struct scenario *sc = r->s->sc;
    size_t count = target - r->n;
    struct spawn_result *res = calloc(count, sizeof *res);
    if (!res) {
        stop(r, STOP_RESOURCE, 0, "out of memory in the client at N=%zu",
             r->n);
        return false;
    }
    samples_clear(&r->starts);
    int rc = spawner_spawn(r->s->sp, (unsigned)r->n, (unsigned)count, res);
    /* Record every server that came up, even when another failed. */
    for (size_t k = 0; k < count; k++)
        if (res[k].pid > 0 && res[k].err == 0) {
            result_add_server(r->s->doc, res[k].index, res[k].pid,
                              (double)res[k].start_ns / 1e6);
            samples_add(&r->starts, res[k].start_ns);
        }
    bool ok = rc == 0;
    if (rc == -EINTR && *r->s->interrupted) {
        stop(r, STOP_INTERRUPTED, 130, "interrupted at N=%zu", r->n);
    } else if (rc == -EPIPE) {
        stop(r, STOP_CALL_FAILED, 1,
             "the spawner process stopped answering at N=%zu", r->n);
    } else if (rc) {
        const struct spawn_result *bad = NULL;
        for (size_t k = 0; k < count && !bad; k++)
            if (res[k].err == rc)
                bad = &res[k];
        char note[600];
        limit_note(-rc, note, sizeof note);
        if (bad && is_resource_errno(-rc))
            stop(r, STOP_RESOURCE, 0, "%s at N=%zu%s", bad->why, r->n, note);
        else if (bad && bad->pid > 0 && oom_killed(r, bad->wstatus))
            stop_oom(r, bad->index, bad->pid);
        else if (bad && probe_task_limit(getpid(), note, sizeof note))
            stop(r, STOP_RESOURCE, 0, "%s at N=%zu: %s", bad->why, r->n,
                 note);
        else
            stop(r, STOP_SERVER_DIED, 1, "%s",
                 bad ? bad->why : "a server failed to start");
    }
    /* Connect to those that are up, in order, so conns stay dense. */
    for (size_t k = 0; k < count; k++) {
        const struct spawn_result *sr = &res[k];
        if (sr->err || sr->pid <= 0)
            break;
        struct target t;
        char why[CONN_WHY_BYTES];
        struct conn *c = &r->conns[r->n];
        int prc = r->s->kind->wire->parse_ready(sr->line, &t, why, sizeof why);
        if (prc) {
            if (ok)
                stop(r, STOP_CALL_FAILED, 1, "server %u (pid %d): %s",
                     sr->index, (int)sr->pid, why);
            ok = false;
            break;
        }
        if (!sc->client.connect) {
            /* Idle servers: known by pid, never connected or called. */
            memset(c, 0, sizeof *c);
            c->fds.rfd = c->fds.wfd = -1;
            c->index = sr->index;
            c->pid = sr->pid;
            r->n++;
            continue;
        }
        int crc = conn_open(c, r->s->tp, r->s->kind->wire, &t, sr->index,
                            sr->pid, (size_t)sc->call.payload_bytes);
        if (crc) {
            if (ok) {
                char note[160];
                limit_note(-crc, note, sizeof note);
                if (is_resource_errno(-crc))
                    stop(r, STOP_RESOURCE, 0, "%s at N=%zu%s", c->why, r->n,
                         note);
                else
                    call_failure(r, r->n, crc, c->why);
            }
            conn_close(c);
            ok = false;
            break;
        }
        r->n++;
    }
    free(res);
    return ok;
}

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Run the step's rounds into r->rounds / the mode's call samples, and the
 * client's own costs over the timed rounds into r->client. */
static bool rounds(struct run *r)
{
    const struct scenario *sc = r->s->sc;
    int64_t total = sc->sweep.warmup_rounds + sc->sweep.rounds;
    struct rusage ru0 = {0}, ru1;
    samples_clear(&r->rounds);
    samples_clear(&r->calls);
    memset(&r->client, 0, sizeof r->client);
    for (int64_t k = 0; k < total; k++) {
        struct round_info info;
        bool timed = k >= sc->sweep.warmup_rounds;
        if (*r->s->interrupted) {
            stop(r, STOP_INTERRUPTED, 130, "interrupted at N=%zu", r->n);
            return false;
        }
        if (timed && k == sc->sweep.warmup_rounds) {
            r->client.server_cpu =
                r->s->machine &&
                machine_server_cpu(r->s->machine, &r->client.server0) == 0;
            getrusage(RUSAGE_SELF, &ru0);
        }
        int64_t t0 = now_ns();
        int rc = r->s->mode->round(r->mode, r->conns, r->n, timed, &info);
        int64_t dt = now_ns() - t0;
        if (rc && info.client_resource && is_resource_errno(-rc)) {
            char note[160];
            limit_note(-rc, note, sizeof note);
            stop(r, STOP_RESOURCE, 0, "%s at N=%zu%s", info.why, r->n, note);
            return false;
        }
        if (rc) {
            call_failure(r, info.failed, rc, info.why);
            return false;
        }
        if (timed) {
            struct client_costs *cc = &r->client;
            cc->threads_started += info.threads_started;
            if (info.max_in_flight > cc->max_in_flight)
                cc->max_in_flight = info.max_in_flight;
            if (info.threads_peak > cc->threads_peak)
                cc->threads_peak = info.threads_peak;
        }
        if (info.calls != r->n) {
            stop(r, STOP_CALL_FAILED, 1,
                 "a round made %llu calls for %zu servers",
                 (unsigned long long)info.calls, r->n);
            return false;
        }
        if (timed)
            samples_add(&r->rounds, dt);
    }
    getrusage(RUSAGE_SELF, &ru1);
    if (r->client.server_cpu)
        r->client.server_cpu =
            machine_server_cpu(r->s->machine, &r->client.server1) == 0;
    r->client.cpu_user_s = tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime);
    r->client.cpu_sys_s = tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
    r->s->mode->drain(r->mode, &r->calls);
    return true;
}

static void progress(struct run *r, const struct summary *round_ms,
                     const struct machine_mem *mi)
{
    if (!r->s->progress)
        return;
    fprintf(stderr,
            "\r\033[K%s: N=%zu  round %.2f ms (median)  MemAvailable %.1f "
            "GiB  %.0f s",
            r->s->sc->name, r->n, round_ms->median,
            (double)mi->mem_available_kb / (1024.0 * 1024.0),
            (double)(now_ns() - r->t0_ns) / 1e9);
    fflush(stderr);
}

/* The servers' memory, threads and descriptors, the machine's memory. */
static void footprint_probe(struct run *r, json_t *step)
{
    pid_t *pids = malloc((r->n ? r->n : 1) * sizeof *pids);
    unsigned *index = malloc((r->n ? r->n : 1) * sizeof *index);
    if (pids && index) {
        for (size_t i = 0; i < r->n; i++) {
            pids[i] = r->conns[i].pid;
            index[i] = r->conns[i].index;
        }
        footprint_step(&r->fp, pids, index, r->n, step);
    }
    free(pids);
    free(index);
}

/* The servers' CPU over the timed rounds, and per call on both sides.
 * The total is exact; user/system divide it in the kernel's sampled
 * proportion. */
static void server_cpu_json(json_t *step, const struct client_costs *cc,
                            double calls)
{
    double total_s =
        (double)(cc->server1.total_ns - cc->server0.total_ns) / 1e9;
    double user = (double)(cc->server1.user_ns - cc->server0.user_ns);
    double sys = (double)(cc->server1.sys_ns - cc->server0.sys_ns);
    double user_share = user + sys > 0 ? user / (user + sys) : 0;
    json_object_set_new(step, "server_cpu",
                        json_pack("{s:f, s:f, s:f}", "total_s", total_s,
                                  "user_s", total_s * user_share, "sys_s",
                                  total_s * (1 - user_share)));
    json_object_set_new(
        step, "cpu_per_call_us",
        json_pack("{s:f, s:f, s:f, s:f, s:f}", "server",
                  total_s * 1e6 / calls, "server_user",
                  total_s * user_share * 1e6 / calls, "server_sys",
                  total_s * (1 - user_share) * 1e6 / calls, "client_user",
                  cc->cpu_user_s * 1e6 / calls, "client_sys",
                  cc->cpu_sys_s * 1e6 / calls));
}

/* Record one finished step. Returns its median round time (ms). */
static double record_step(struct run *r)
{
    struct summary round_ms, call_us, start_ms;
    struct machine_mem mi;
    stats_summarize(&r->rounds, 1e6, &round_ms);
    stats_summarize(&r->calls, 1e3, &call_us);
    stats_summarize(&r->starts, 1e6, &start_ms);
    probe_machine_mem(&mi);
    json_t *step = json_pack(
        "{s:I, s:o, s:o, s:I, s:I, s:I, s:f}", "n", (json_int_t)r->n,
        "round_ms", result_summary(&round_ms), "call_us",
        result_summary(&call_us), "calls",
        (json_int_t)(r->calls.len), "mem_available_kb",
        (json_int_t)mi.mem_available_kb, "mem_free_kb",
        (json_int_t)mi.mem_free_kb,
        "elapsed_s", (double)(now_ns() - r->t0_ns) / 1e9);
    if (start_ms.count)
        json_object_set_new(step, "server_start_ms",
                            result_summary(&start_ms));
    const struct client_costs *cc = &r->client;
    json_object_set_new(step, "max_in_flight",
                        json_integer(cc->max_in_flight));
    json_object_set_new(
        step, "client",
        json_pack("{s:I, s:f, s:I, s:f, s:f}", "threads_started",
                  (json_int_t)cc->threads_started, "threads_started_per_round",
                  (double)cc->threads_started / (double)r->s->sc->sweep.rounds,
                  "threads_peak", (json_int_t)cc->threads_peak, "cpu_user_s",
                  cc->cpu_user_s, "cpu_sys_s", cc->cpu_sys_s));
    if (cc->server_cpu && r->calls.len)
        server_cpu_json(step, cc, (double)r->calls.len);
    footprint_probe(r, step);
    json_array_append_new(json_object_get(r->s->doc, "steps"), step);
    progress(r, &round_ms, &mi);
    return round_ms.median;
}

/* Write what we have so far; a later step or the end rewrites it. */
static void checkpoint(struct run *r)
{
    result_set_outcome(r->s->doc, r->o->max_servers, "running",
                       "the run had not finished when this was written",
                       (double)(now_ns() - r->t0_ns) / 1e9);
    if (r->s->out_path)
        result_write(r->s->doc, r->s->out_path);
}

void sweep_run(struct sweep *s, struct sweep_outcome *o)
{
    const struct scenario *sc = s->sc;
    struct run r = {.s = s, .o = o, .t0_ns = now_ns()};
    struct callmode_config mcfg = {
        .timeout_ms = sc->call.timeout_ms,
        .pool_size = sc->client.pool_size,
        .thread_stack_kb = sc->client.thread_stack_kb,
        .interrupted = s->interrupted,
    };
    memset(o, 0, sizeof *o);
    r.conns = calloc((size_t)sc->sweep.max_n, sizeof *r.conns);
    footprint_init(&r.fp, sc->probe.budget_ms, sc->probe.per_server_max);
    json_object_set_new(
        s->doc, "baseline",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:b}", "mem_available_kb",
                  (json_int_t)r.fp.base.mem_available_kb, "slab_kb",
                  (json_int_t)r.fp.base.slab_kb, "kernel_stack_kb",
                  (json_int_t)r.fp.base.kernel_stack_kb, "page_tables_kb",
                  (json_int_t)r.fp.base.page_tables_kb, "mem_free_kb",
                  (json_int_t)r.fp.base.mem_free_kb, "settle_ms",
                  r.fp.settle_ms, "settled", r.fp.settled));
    r.oom_kills = s->machine ? machine_oom_kills(s->machine) : -1;
    int mrc = r.conns ? s->mode->create(&r.mode, &mcfg) : -ENOMEM;
    if (mrc) {
        stop(&r, STOP_RESOURCE, 0, "cannot start call mode %s: %s",
             s->mode->name, strerror(-mrc));
        goto out;
    }
    size_t target = (size_t)sc->sweep.start;
    bool lib_recorded = false;
    for (;;) {
        double elapsed = (double)(now_ns() - r.t0_ns) / 1e9;
        if (*s->interrupted) {
            stop(&r, STOP_INTERRUPTED, 130, "interrupted at N=%zu", r.n);
            break;
        }
        if (elapsed > sc->sweep.max_seconds) {
            stop(&r, STOP_TIME, 0,
                 "sweep.max_seconds (%g s) ran out at N=%zu",
                 sc->sweep.max_seconds, r.n);
            break;
        }
        bool grown = grow(&r, target);
        if (r.n > 0 && !lib_recorded) {
            /* What the server really loaded, not what we meant to run. */
            char lib[512];
            json_t *orb = json_object_get(s->doc, "orb");
            if (orb && probe_mapped_library(r.conns[0].pid, s->kind->library,
                                            lib, sizeof lib) == 0)
                json_object_set_new(orb, "library_path", json_string(lib));
            lib_recorded = true;
        }
        if (!grown || (sc->client.connect && !rounds(&r)))
            break;
        double median = record_step(&r);
        if (median > sc->sweep.max_ms) {
            stop(&r, STOP_LATENCY, 0,
                 "median round time %.3f ms at N=%zu exceeded max_ms %g; "
                 "the largest N within it was %lld",
                 median, r.n, sc->sweep.max_ms, (long long)o->max_servers);
            break;
        }
        o->max_servers = (int64_t)r.n;
        if ((int64_t)r.n >= sc->sweep.max_n) {
            stop(&r, STOP_MAX_N, 0,
                 "reached max_n=%zu with a median round time of %.3f ms "
                 "(max_ms %g)",
                 r.n, median, sc->sweep.max_ms);
            break;
        }
        checkpoint(&r);
        int64_t next = scenario_next_n(sc, (int64_t)r.n);
        target = (size_t)(next > sc->sweep.max_n ? sc->sweep.max_n : next);
    }
out:
    if (s->progress)
        fprintf(stderr, "\r\033[K");
    result_set_outcome(s->doc, o->max_servers, o->stop_reason, o->detail,
                       (double)(now_ns() - r.t0_ns) / 1e9);
    for (size_t i = 0; i < r.n; i++)
        conn_close(&r.conns[i]);
    free(r.conns);
    if (r.mode)
        s->mode->destroy(r.mode);
    samples_free(&r.rounds);
    samples_free(&r.calls);
    samples_free(&r.starts);
}

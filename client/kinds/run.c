/* How a run ends, and how it shows where it is: see run.h. */
#include "kinds/run.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/result.h"

void run_stop(struct run_outcome *o, const char *reason, int exit_code,
              const char *fmt, ...)
{
    va_list ap;
    if (o->stop_reason && strcmp(o->stop_reason, STOP_WRITE_FAILED) == 0)
        return; /* nothing more was saved: that is why it stopped */
    o->stop_reason = reason;
    o->exit_code = exit_code;
    va_start(ap, fmt);
    vsnprintf(o->detail, sizeof o->detail, fmt, ap);
    va_end(ap);
}

int run_checkpoint(const struct side *s, struct run_outcome *o)
{
    int w = s->out_path ? result_write(s->doc, s->out_path) : 0;
    if (w)
        run_stop(o, STOP_WRITE_FAILED, 1, "cannot write %s: %s (it keeps "
                 "the last result written whole)", s->out_path,
                 strerror(-w));
    return w;
}

/* "42 s", "3m05s", "1h02m": as the suite's lines say it. */
static void duration(char *buf, size_t len, double s)
{
    if (s < 60)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(s / 3600),
                 (int)(s / 60) % 60);
}

/* The live line: "NAME: [A] N=313  sweep  round 12.07 of 100 ms  12 steps
 * about 45 s left  (31 s)". */
static void live_line(const struct side *s, const struct run_progress *p)
{
    char left[32], spent[32];
    fprintf(stderr, "\r\033[K%s: ", s->sc->name);
    if (s->label)
        fprintf(stderr, "[%s] ", s->label);
    if (p->n >= 0)
        fprintf(stderr, "N=%lld  ", (long long)p->n);
    fprintf(stderr, "%s", p->phase);
    if (p->what && p->max_probes > 0 && strcmp(p->phase, "sweep") != 0)
        fprintf(stderr, " (%s %lld/%lld)", p->what, (long long)p->probes,
                (long long)p->max_probes);
    if (p->unit)
        fprintf(stderr, "  %lld/%lld %ss", (long long)p->done,
                (long long)p->total, p->unit);
    else {
        if (p->max_ms > 0)
            fprintf(stderr, "  round %.2f of %g ms", p->round_ms, p->max_ms);
        else
            fprintf(stderr, "  round %.2f ms", p->round_ms);
        fprintf(stderr, "  %lld step%s", (long long)p->steps,
                p->steps == 1 ? "" : "s");
    }
    if (p->left_s >= 0) {
        duration(left, sizeof left, p->left_s);
        fprintf(stderr, "  about %s left", left);
    }
    if (p->extra)
        fprintf(stderr, "  %s", p->extra);
    duration(spent, sizeof spent, p->elapsed_s);
    fprintf(stderr, "  (%s)", spent);
    fflush(stderr);
}

/* One JSON line, written whole: on a pipe one write of less than
 * PIPE_BUF bytes is atomic, and the descriptor is non-blocking there
 * (main.c), so a reader that lags loses lines instead of stalling the
 * run. */
static void fd_line(const struct side *s, const struct run_progress *p)
{
    json_t *o = json_pack(
        "{s:i, s:s, s:s*, s:s, s:s*, s:I, s:f, s:f, s:I, s:I, s:I, s:f, "
        "s:o}",
        "v", 1, "scenario", s->sc->name, "side", s->label, "phase", p->phase,
        "what", p->what, "n", (json_int_t)p->n, "round_ms", p->round_ms,
        "max_ms", p->max_ms, "steps", (json_int_t)p->steps, "probes",
        (json_int_t)p->probes, "max_probes", (json_int_t)p->max_probes,
        "elapsed_s", p->elapsed_s, "left_s",
        p->left_s >= 0 ? json_real(p->left_s) : json_null());
    if (o && p->unit)
        json_object_update_new(
            o, json_pack("{s:s, s:I, s:I, s:n}", "unit", p->unit, "done",
                         (json_int_t)p->done, "total", (json_int_t)p->total,
                         "round_ms"));
    /* A counting kind's own figure ("63.4 kHz"); a sweep's extra
     * (MemAvailable) is for the live line only. */
    if (o && p->unit && p->extra)
        json_object_set_new(o, "extra", json_string(p->extra));
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6))
                   : NULL;
    json_decref(o);
    if (!text)
        return;
    size_t len = strlen(text);
    char line[PIPE_BUF];
    if (len + 1 < sizeof line) {
        memcpy(line, text, len);
        line[len] = '\n';
        ssize_t w;
        do
            w = write(s->progress_fd, line, len + 1);
        while (w < 0 && errno == EINTR);
    }
    free(text);
}

void run_progress(const struct side *s, const struct run_progress *p)
{
    if (s->progress)
        live_line(s, p);
    if (s->progress_fd > 0)
        fd_line(s, p);
}

void run_progress_count(const struct side *s, const char *phase,
                        const char *unit, int64_t done, int64_t total,
                        double counted_s, double elapsed_s,
                        const char *extra)
{
    if (!s->progress && s->progress_fd <= 0)
        return;
    struct run_progress p = {
        .phase = phase, .n = -1, .round_ms = -1, .elapsed_s = elapsed_s,
        .left_s = done > 0 && total >= done
                      ? counted_s / (double)done * (double)(total - done)
                      : -1,
        .extra = extra, .unit = unit, .done = done, .total = total};
    run_progress(s, &p);
}

void run_progress_end(const struct side *s)
{
    if (s->progress) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}

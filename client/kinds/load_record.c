/* Kind load: what a call counts, and windows, steps and the sustainable
 * rate into the result (doc.load; docs/kinds/load.md says every field). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "core/util.h"
#include "host/probe.h"
#include "kinds/load_impl.h"

void load_count_sent(struct load *l, struct load_win *w, int64_t due_ns,
                     int64_t disp_ns, int64_t sent_ns, bool held)
{
    int64_t late = l->opt->late_us * 1000;
    w->scheduled++;
    w->sent++;
    hist_add(&w->lag, sent_ns - due_ns);
    if (sent_ns - due_ns > late)
        w->late++;
    if (held) {
        w->held++;
        return;
    }
    hist_add(&w->own, disp_ns - due_ns);
    if (disp_ns - due_ns > late)
        w->late_own++;
}

void load_count_reply(struct load *l, struct load_win *w, int64_t due_ns,
                      int64_t sent_ns, int64_t at_ns)
{
    w->completed++;
    if (at_ns < w->end_ns)
        w->in_window++;
    hist_add(&w->lat, at_ns - (l->closed ? sent_ns : due_ns));
    hist_add(&w->service, at_ns - sent_ns);
}

void load_count_unsent(struct load_win *w, struct arrival *a, int64_t t,
                       int64_t held_to)
{
    /* Bounded: the window's schedule, R x duration calls at most. */
    for (; t < w->end_ns; t = arrival_next(a)) {
        w->scheduled++;
        w->unsent++;
        if (t <= held_to) {
            w->held++;
        } else {
            w->late++;
            w->late_own++;
        }
    }
}

void load_schedule(struct load *l, struct load_win *w, struct arrival *a)
{
    arrival_start(a, w->start_ns, l->rate, l->poisson,
                  (uint64_t)l->opt->seed * 1000003u + l->windows++);
}

void load_snap(struct load *l, struct load_snap *sn)
{
    sn->srv_ctx = 0;
    for (size_t i = 0; i < l->n && sn->srv_ctx >= 0; i++) {
        int64_t v = probe_task_ctx_switches(l->conns[i].pid);
        sn->srv_ctx = v < 0 ? -1 : sn->srv_ctx + v;
    }
    sn->t_ns = now_ns();
    getrusage(RUSAGE_SELF, &sn->ru);
    sn->srv_ok = l->s->machine &&
                 machine_server_cpu(l->s->machine, &sn->srv) == 0;
}

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The percentiles every summary gives, and their names. */
static const struct {
    const char *name;
    double q;
} PCT[] = {{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9},
           {"p99.99", 99.99}};

json_t *load_summary_json(const struct hist *h)
{
    json_t *j = json_pack("{s:I, s:f, s:f}", "count", (json_int_t)h->count,
                          "min", (double)h->min / 1e3, "mean",
                          hist_mean(h) / 1e3);
    for (size_t i = 0; i < ARRAY_LEN(PCT); i++)
        json_object_set_new(j, PCT[i].name,
                            json_real((double)hist_percentile(h, PCT[i].q) /
                                      1e3));
    json_object_set_new(j, "max", json_real((double)h->max / 1e3));
    return j;
}

json_t *load_hist_json(const struct hist *h)
{
    json_t *b = json_array();
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        if (h->counts[i])
            json_array_append_new(
                b, json_pack("[I, I]", (json_int_t)hist_bucket_low(i),
                             (json_int_t)h->counts[i]));
    return json_pack("{s:I, s:I, s:I, s:I, s:o}", "count",
                     (json_int_t)h->count, "min", (json_int_t)h->min, "max",
                     (json_int_t)h->max, "clamped", (json_int_t)h->clamped,
                     "buckets", b);
}

/* CPU and context switches per call, from the window's edge readings. */
static void per_call(const struct load_snap *a, const struct load_snap *b,
                     uint64_t calls, json_t *j)
{
    double per = calls ? 1e6 / (double)calls : 0;
    double cu = tv_s(b->ru.ru_utime) - tv_s(a->ru.ru_utime);
    double cs = tv_s(b->ru.ru_stime) - tv_s(a->ru.ru_stime);
    long cctx = (b->ru.ru_nvcsw - a->ru.ru_nvcsw) +
                (b->ru.ru_nivcsw - a->ru.ru_nivcsw);
    json_t *cpu = json_pack("{s:f, s:f}", "client_user", cu * per,
                            "client_sys", cs * per);
    json_t *ctx = json_pack("{s:f}", "client",
                            calls ? (double)cctx / (double)calls : 0);
    if (a->srv_ok && b->srv_ok) {
        double total = (double)(b->srv.total_ns - a->srv.total_ns) / 1e9;
        double u = (double)(b->srv.user_ns - a->srv.user_ns);
        double s = (double)(b->srv.sys_ns - a->srv.sys_ns);
        double share = u + s > 0 ? u / (u + s) : 0;
        json_object_set_new(cpu, "server", json_real(total * per));
        json_object_set_new(cpu, "server_user",
                            json_real(total * share * per));
        json_object_set_new(cpu, "server_sys",
                            json_real(total * (1 - share) * per));
    }
    if (a->srv_ctx >= 0 && b->srv_ctx >= 0 && calls)
        json_object_set_new(ctx, "server",
                            json_real((double)(b->srv_ctx - a->srv_ctx) /
                                      (double)calls));
    json_object_set_new(j, "cpu_per_call_us", cpu);
    json_object_set_new(j, "ctx_switches_per_call", ctx);
}

json_t *load_window_json(struct load *l, const struct load_win *w,
                         int64_t repeat, const struct load_snap *a,
                         const struct load_snap *b)
{
    double span = (double)(w->end_ns - w->start_ns) / 1e9;
    json_t *j = json_pack(
        "{s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
        "repeat", (json_int_t)repeat, "offered_per_s", l->rate, "elapsed_s",
        (double)(b->t_ns - a->t_ns) / 1e9, "scheduled",
        (json_int_t)w->scheduled, "sent", (json_int_t)w->sent, "completed",
        (json_int_t)w->completed, "in_window", (json_int_t)w->in_window,
        "unsent", (json_int_t)w->unsent, "held", (json_int_t)w->held, "late",
        (json_int_t)w->late, "late_own", (json_int_t)w->late_own,
        "peak_outstanding", (json_int_t)w->peak_outstanding,
        "achieved_per_s", span > 0 ? (double)w->in_window / span : 0);
    json_object_set_new(j, "latency_us", load_summary_json(&w->lat));
    json_object_set_new(j, "service_us", load_summary_json(&w->service));
    json_object_set_new(j, "lag_us", load_summary_json(&w->lag));
    json_object_set_new(j, "jitter_us", load_summary_json(&w->own));
    per_call(a, b, w->completed, j);
    return j;
}

const char *load_verdict(struct load *l)
{
    const struct load_win *s = l->step;
    double q = load_percentile_q(l->opt);
    /* The client's slip first: a client that woke late sends in bursts,
     * which can fill the bound too; its latencies are its own. */
    if ((double)s->late_own > l->opt->max_late_share * (double)s->scheduled)
        return "slipped";
    if (!l->closed && s->held)
        return "overloaded";
    if ((double)s->in_window < l->opt->min_achieved * (double)s->scheduled)
        return "behind";
    if ((double)hist_percentile(&s->lat, q) > l->opt->max_ms * 1e6)
        return "over";
    return "within";
}

/* The median of repeats[*].group.key (group NULL: top level), or NAN. */
static double median_of(json_t *reps, const char *group, const char *key)
{
    double v[1000];
    size_t n = 0, i;
    json_t *rep;
    json_array_foreach(reps, i, rep) {
        json_t *x = json_object_get(group ? json_object_get(rep, group) : rep,
                                    key);
        if (json_is_number(x) && n < ARRAY_LEN(v))
            v[n++] = json_number_value(x);
    }
    if (!n)
        return NAN;
    struct spread sp;
    stats_spread(v, n, &sp);
    return sp.median;
}

void load_step_json(struct load *l, json_t *step, const char *verdict)
{
    const struct load_win *s = l->step;
    json_t *reps = json_object_get(step, "repeats");
    double share = s->scheduled ? 1.0 / (double)s->scheduled : 0;
    json_object_update_new(
        step,
        json_pack("{s:s, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, "
                  "s:f, s:f}}",
                  "verdict", verdict, "achieved_per_s",
                  median_of(reps, NULL, "achieved_per_s"), "scheduled",
                  (json_int_t)s->scheduled, "sent", (json_int_t)s->sent,
                  "completed", (json_int_t)s->completed, "unsent",
                  (json_int_t)s->unsent, "held", (json_int_t)s->held,
                  "peak_outstanding", (json_int_t)s->peak_outstanding,
                  "late", "calls", (json_int_t)s->late, "own",
                  (json_int_t)s->late_own, "share",
                  (double)s->late * share, "own_share",
                  (double)s->late_own * share));
    json_object_set_new(step, "latency_us", load_summary_json(&s->lat));
    json_object_set_new(step, "service_us", load_summary_json(&s->service));
    json_object_set_new(step, "lag_us", load_summary_json(&s->lag));
    json_object_set_new(step, "jitter_us", load_summary_json(&s->own));
    static const char *const cpu[] = {"client_user", "client_sys", "server",
                                      "server_user", "server_sys"};
    json_t *c = json_object();
    for (size_t i = 0; i < ARRAY_LEN(cpu); i++) {
        double m = median_of(reps, "cpu_per_call_us", cpu[i]);
        if (!isnan(m))
            json_object_set_new(c, cpu[i], json_real(m));
    }
    json_object_set_new(step, "cpu_per_call_us", c);
    json_object_set_new(step, "histogram", load_hist_json(&s->lat));
}

/* The verdict of the last step measured at `rate`, or NULL. */
static const char *verdict_at(struct load *l, int64_t rate)
{
    const char *v = NULL;
    size_t i;
    json_t *st;
    json_array_foreach(l->steps, i, st)
        if ((int64_t)json_number_value(json_object_get(st, "offered_per_s"))
                == rate &&
            json_string_value(json_object_get(st, "verdict")))
            v = json_string_value(json_object_get(st, "verdict"));
    return v;
}

void load_sustainable_json(struct load *l)
{
    const struct offered_search *s = &l->search;
    const char *p = l->opt->percentile;
    double ms = l->opt->max_ms;
    char note[320];
    const char *end;
    const char *by = s->b.hi ? verdict_at(l, s->b.hi) : NULL;
    if (s->phase != OFFERED_DONE) {
        end = "running";
        snprintf(note, sizeof note, "the search had not ended: %lld calls/s "
                 "the highest rate within %s <= %g ms so far",
                 (long long)s->b.lo, p, ms);
    } else if (s->end == OFFERED_MAX_RATE) {
        end = "max_rate";
        snprintf(note, sizeof note, "%s within %g ms up to load.max_rate, "
                 "%lld calls/s", p, ms, (long long)s->b.lo);
    } else if (s->end == OFFERED_NONE) {
        end = "none";
        snprintf(note, sizeof note, "the first offered rate, %lld calls/s, "
                 "was already %s (%s <= %g ms)", (long long)s->b.hi,
                 by ? by : "over", p, ms);
    } else {
        end = "crossed";
        snprintf(note, sizeof note, "the highest offered rate with %s "
                 "within %g ms: %lld calls/s (%lld was %s)", p, ms,
                 (long long)s->b.lo, (long long)s->b.hi, by ? by : "over");
    }
    json_t *j = json_pack("{s:s, s:f, s:s, s:I, s:I, s:o, s:o, s:s}",
                          "percentile", p, "max_ms", ms, "end", end,
                          "per_s", (json_int_t)s->b.lo, "low",
                          (json_int_t)s->b.lo, "high",
                          s->b.hi ? json_integer(s->b.hi) : json_null(),
                          "limited_by", by ? json_string(by) : json_null(),
                          "note", note);
    json_object_set_new(json_object_get(l->s->doc, "load"), "sustainable", j);
}

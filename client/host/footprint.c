/* A step's footprint: see footprint.h. */
#include "host/footprint.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

int footprint_init(struct footprint *fp, int64_t budget_ms,
                   int64_t per_server_max)
{
    memset(fp, 0, sizeof *fp);
    fp->budget_ms = budget_ms;
    fp->per_server_max = per_server_max;
    int64_t t0 = now_ns();
    int rc = probe_machine_mem(&fp->base);
    for (int i = 0; !rc && i < 25; i++) {
        struct machine_mem again;
        struct timespec pause = {0, 200 * 1000000};
        nanosleep(&pause, NULL);
        rc = probe_machine_mem(&again);
        int64_t moved = again.mem_available_kb - fp->base.mem_available_kb;
        fp->base = again;
        if (!rc && llabs(moved) < 2048) {
            fp->settled = true;
            break;
        }
    }
    fp->settle_ms = (double)(now_ns() - t0) / 1e6;
    return rc;
}

/* sum/mean/min/max of one field over the probed servers. */
struct agg {
    double sum, min, max;
    size_t count;
};

static void agg_add(struct agg *a, double v)
{
    if (a->count == 0 || v < a->min)
        a->min = v;
    if (a->count == 0 || v > a->max)
        a->max = v;
    a->sum += v;
    a->count++;
}

/* When sampled, the sum over all n servers is estimated as mean x n. */
static json_t *agg_json(const struct agg *a, size_t n)
{
    double mean = a->count ? a->sum / (double)a->count : 0;
    double sum = a->count == n ? a->sum : mean * (double)n;
    return json_pack("{s:f, s:f, s:f, s:f}", "sum", sum, "mean", mean, "min",
                     a->min, "max", a->max);
}

const char *const footprint_fields[FP_NFIELDS] = {
    [FP_THREADS] = "threads", [FP_FDS] = "fds", [FP_RSS] = "rss_kb",
    [FP_PSS] = "pss_kb", [FP_USS] = "uss_kb"};
const char *const footprint_words[FP_NFIELDS] = {
    [FP_THREADS] = "threads", [FP_FDS] = "descriptors", [FP_RSS] = "kB RSS",
    [FP_PSS] = "kB PSS", [FP_USS] = "kB USS"};

void footprint_step(struct footprint *fp, const pid_t *pids,
                    const unsigned *index, size_t n, size_t on_machine,
                    json_t *step)
{
    enum { NFIELDS = FP_NFIELDS };
    const char *const *names = footprint_fields;
    struct agg agg[NFIELDS];
    memset(agg, 0, sizeof agg);
    /* Probe every stride-th server so that the step stays in budget. */
    size_t stride = 1;
    if (fp->cost_ms > 0 && (double)n * fp->cost_ms > (double)fp->budget_ms)
        stride = (size_t)ceil((double)n * fp->cost_ms /
                              (double)fp->budget_ms);
    json_t *list = (int64_t)n <= fp->per_server_max ? json_array() : NULL;
    size_t probed = 0, unreadable = 0;
    int64_t t0 = now_ns();
    for (size_t i = 0; i < n; i += stride) {
        struct proc_footprint p;
        probed++;
        if (probe_process(pids[i], &p) != 0) {
            unreadable++;
            continue;
        }
        double v[NFIELDS] = {
            [FP_THREADS] = (double)p.threads, [FP_FDS] = (double)p.fds,
            [FP_RSS] = (double)p.rss_kb, [FP_PSS] = (double)p.pss_kb,
            [FP_USS] = (double)p.uss_kb};
        for (int f = 0; f < NFIELDS; f++)
            agg_add(&agg[f], v[f]);
        if (list)
            json_array_append_new(
                list, json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                                "index", (json_int_t)index[i], "pid",
                                (json_int_t)pids[i], "rss_kb",
                                (json_int_t)p.rss_kb, "pss_kb",
                                (json_int_t)p.pss_kb, "uss_kb",
                                (json_int_t)p.uss_kb, "threads",
                                (json_int_t)p.threads, "fds",
                                (json_int_t)p.fds));
    }
    double probe_ms = (double)(now_ns() - t0) / 1e6;
    if (probed)
        fp->cost_ms = probe_ms / (double)probed;

    size_t ok = probed - unreadable;
    json_t *f = json_pack("{s:I, s:I, s:I, s:b, s:I, s:f}", "of",
                          (json_int_t)n, "probed", (json_int_t)probed,
                          "unreadable", (json_int_t)unreadable, "sampled",
                          ok != n, "stride", (json_int_t)stride, "probe_ms",
                          probe_ms);
    for (int k = 0; k < NFIELDS && ok; k++)
        json_object_set_new(f, names[k], agg_json(&agg[k], n));
    if (list)
        json_object_set_new(f, "servers", list);
    json_object_set_new(step, "footprint", f);

    struct machine_mem now;
    probe_machine_mem(&now);
    json_object_set_new(
        step, "machine",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I, "
                  "s:I, s:I}}",
                  "servers_on_machine", (json_int_t)on_machine,
                  "mem_available_kb", (json_int_t)now.mem_available_kb,
                  "mem_free_kb", (json_int_t)now.mem_free_kb, "slab_kb",
                  (json_int_t)now.slab_kb, "kernel_stack_kb",
                  (json_int_t)now.kernel_stack_kb, "page_tables_kb",
                  (json_int_t)now.page_tables_kb, "delta",
                  "mem_available_kb",
                  (json_int_t)(now.mem_available_kb -
                               fp->base.mem_available_kb),
                  "slab_kb", (json_int_t)(now.slab_kb - fp->base.slab_kb),
                  "kernel_stack_kb",
                  (json_int_t)(now.kernel_stack_kb -
                               fp->base.kernel_stack_kb),
                  "page_tables_kb",
                  (json_int_t)(now.page_tables_kb -
                               fp->base.page_tables_kb),
                  "tcp_retrans_segs",
                  (json_int_t)(now.tcp_retrans_segs -
                               fp->base.tcp_retrans_segs),
                  "softnet_dropped",
                  (json_int_t)(now.softnet_dropped -
                               fp->base.softnet_dropped)));
    if (n && ok && on_machine)
        json_object_set_new(
            step, "mem_per_server_kb",
            json_pack("{s:f, s:f, s:f}", "mem_available",
                      (double)(fp->base.mem_available_kb -
                               now.mem_available_kb) /
                          (double)on_machine,
                      "pss", agg[FP_PSS].sum / (double)ok, "uss",
                      agg[FP_USS].sum / (double)ok));

    struct proc_footprint self;
    json_t *client = json_object_get(step, "client");
    if (client && probe_process(getpid(), &self) == 0) {
        json_object_set_new(client, "rss_kb", json_integer(self.rss_kb));
        json_object_set_new(client, "threads", json_integer(self.threads));
        json_object_set_new(client, "fds", json_integer(self.fds));
    }
}

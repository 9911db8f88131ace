/* crossing-replay: recompute a sweep result's crossing offline, from its
 * steps[] and probes[], with the local fit (crossing_estimate_fit,
 * core/crossing.h), beside what the run recorded. Built by
 * `make crossing-replay`, never installed: it shows on recorded results
 * what the fit changes (docs/kinds/sweep.md).
 *
 * usage: crossing-replay [--probes K] FILE...
 * One line per result with a finished crossing search (others are
 * counted as skipped), then a summary. --probes K adds to each line the
 * fit over the steps and the search's first K probes alone, as a run
 * with sweep.max_probes K would have measured them (0: the steps alone,
 * sweep.resolution 0): what the later probes add.
 * Exit 0, or 2 on a usage error. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crossing.h"

struct tally {
    size_t results, skipped, fitted, within, narrower, reproduced;
    size_t reached;            /* results whose fit reached the target */
    size_t old_reached, new_reached; /* final intervals within it */
    double probes_used;        /* by the recorded search, there */
    double probes_needed;      /* by the fit, there (see needed()) */
    double target;             /* the half-width the fit must reach */
    double *old_hw, *new_hw;         /* every result's half-width */
    double *fit_old_hw, *fit_new_hw; /* where the local fit was used */
};

/* In the order measured: by elapsed_s (steps and probes interleave when
 * a confirmation failed), the array's order among equals. */
struct timed {
    double elapsed_s;
    size_t index;
    struct crossing_point p;
};

static int cmp_timed(const void *a, const void *b)
{
    const struct timed *x = a, *y = b;
    if (x->elapsed_s != y->elapsed_s)
        return (x->elapsed_s > y->elapsed_s) - (x->elapsed_s < y->elapsed_s);
    return (x->index > y->index) - (x->index < y->index);
}

/* The points of one array of measurements: n, round_ms.median, rounds
 * (rounds_ms's length, or round_ms.count in results older than it). */
static size_t add_points(json_t *arr, bool probe, struct timed *p, size_t k)
{
    size_t i;
    json_t *m;
    json_array_foreach(arr, i, m) {
        json_t *rm = json_object_get(m, "round_ms");
        json_t *each = json_object_get(m, "rounds_ms");
        double rounds = json_is_array(each)
                            ? (double)json_array_size(each)
                            : json_number_value(json_object_get(rm, "count"));
        p[k] = (struct timed){
            json_number_value(json_object_get(m, "elapsed_s")), k,
            {json_number_value(json_object_get(m, "n")),
             json_number_value(json_object_get(rm, "median")), rounds,
             probe}};
        k++;
    }
    return k;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* How many of the recorded probes (in the order taken) the local fit
 * needed before its interval was within `target`, centred on `guess`; 0
 * when it never was. The probes the new rule would have placed differ
 * from the recorded ones (it places them by the fit), so this is what
 * the fit knew after each, not a rerun of the search. */
static size_t needed(const struct crossing_point *p, size_t k, double max_ms,
                     double guess, double target)
{
    size_t probes = 0;
    for (size_t i = 0; i < k; i++) {
        if (!p[i].probe)
            continue;
        probes++;
        struct crossing_fit f;
        crossing_local_fit(p, i + 1, max_ms, guess, &f);
        struct crossing_estimate e = {.found = f.usable, .n = f.n,
                                      .low = f.low, .high = f.high};
        /* The bracket needs a confirmation and its low end measured. */
        if (probes >= 2 && f.usable && crossing_half_width(&e) <= target)
            return probes;
    }
    return 0;
}

/* The fit over the steps and the first `keep` probes alone (--probes K
 * in the usage above): p[0..k) in the order measured, bracketed by the
 * least N over max_ms among them and the greatest under it below that;
 * false when they hold no bracket. */
static bool first_probes(const struct crossing_point *p, size_t k,
                         double max_ms, size_t keep,
                         struct crossing_estimate *e)
{
    struct crossing_point *s = calloc(k ? k : 1, sizeof *s);
    if (!s)
        return false;
    size_t m = 0, probes = 0, hi = k, lo = k;
    for (size_t i = 0; i < k; i++) {
        if (p[i].probe && probes++ >= keep)
            continue;
        s[m++] = p[i];
    }
    for (size_t i = 0; i < m; i++)
        if (s[i].median_ms > max_ms && (hi == k || s[i].n < s[hi].n))
            hi = i;
    for (size_t i = 0; hi < k && i < m; i++)
        if (s[i].median_ms <= max_ms && s[i].n < s[hi].n &&
            (lo == k || s[i].n > s[lo].n))
            lo = i;
    bool ok = hi < k && lo < k;
    if (ok)
        crossing_estimate_fit(s, m, max_ms, (int64_t)s[lo].n,
                              s[lo].median_ms, (int64_t)s[hi].n,
                              s[hi].median_ms, e);
    free(s);
    return ok && e->found;
}

static long keep_probes = -1; /* --probes K; -1: not asked */

/* One result file: its line, and its figures into t. */
static void replay(const char *path, struct tally *t)
{
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    json_t *steps = json_object_get(doc, "steps");
    json_t *probes = json_object_get(doc, "probes");
    json_t *res = json_object_get(doc, "result");
    json_t *cx = json_object_get(res, "crossing");
    json_t *iv = json_object_get(res, "crossing_interval");
    json_t *br = json_object_get(cx, "bracket");
    json_t *sc = json_object_get(doc, "scenario");
    const char *kind = json_string_value(json_object_get(sc, "kind"));
    double max_ms = json_number_value(
        json_object_get(json_object_get(sc, kind ? kind : "sweep"), "max_ms"));
    if (!json_is_array(steps) || !json_array_size(probes) ||
        !json_is_array(iv) || !json_is_array(br) || !(max_ms > 0) ||
        json_integer_value(json_array_get(br, 0)) <= 0) {
        t->skipped++;
        json_decref(doc);
        return;
    }
    size_t cap = json_array_size(steps) + json_array_size(probes);
    struct timed *in = calloc(cap ? cap : 1, sizeof *in);
    struct crossing_point *p = calloc(cap ? cap : 1, sizeof *p);
    size_t k = add_points(steps, false, in, 0);
    k = add_points(probes, true, in, k);
    qsort(in, k, sizeof *in, cmp_timed);
    for (size_t i = 0; i < k; i++)
        p[i] = in[i].p;
    free(in);
    int64_t lo = json_integer_value(json_array_get(br, 0)),
            hi = json_integer_value(json_array_get(br, 1));
    struct crossing_estimate e;
    crossing_estimate_fit(
        p, k, max_ms, lo,
        json_number_value(json_object_get(cx, "bracket_lo_ms")), hi,
        json_number_value(json_object_get(cx, "bracket_hi_ms")), &e);
    double old_n = json_number_value(json_object_get(res, "crossing_n")),
           old_low = json_number_value(json_array_get(iv, 0)),
           old_high = json_number_value(json_array_get(iv, 1));
    struct crossing_estimate old = {.found = true, .n = old_n,
                                    .low = old_low, .high = old_high};
    bool within = old_low <= e.n && e.n <= old_high;
    /* The reference is crossing_estimate's: the run's own when the rules
     * were the same then. */
    bool same = fabs(e.reference.n / old_n - 1) < 1e-3;
    double old_hw = crossing_half_width(&old), new_hw = crossing_half_width(&e);
    t->old_hw[t->results] = old_hw;
    t->new_hw[t->results] = new_hw;
    t->results++;
    t->narrower += new_hw < old_hw;
    double resolution = json_number_value(json_object_get(
        json_object_get(sc, kind ? kind : "sweep"), "resolution"));
    t->target = crossing_target_half_width(resolution > 0 ? resolution : 0.02);
    t->old_reached += old_hw <= t->target;
    t->new_reached += new_hw <= t->target;
    size_t need = needed(p, k, max_ms, e.n, t->target);
    if (need) {
        t->reached++;
        t->probes_used += (double)json_array_size(probes);
        t->probes_needed += (double)need;
    }
    if (strcmp(e.method, CROSSING_FIT) == 0) {
        t->fit_old_hw[t->fitted] = old_hw;
        t->fit_new_hw[t->fitted] = new_hw;
        t->fitted++;
    }
    t->within += within;
    t->reproduced += same;
    printf("%s\t%s\told %.0f [%.0f, %.0f] ±%.1f%%\tnew %.0f [%.0f, %.0f] "
           "±%.1f%%\t%s\tfit %zu points, slope %.2f, sd %.3f, lag1 %.2f\t%s",
           path, e.method, old_n, old_low, old_high,
           100 * crossing_half_width(&old), e.n, e.low, e.high,
           100 * crossing_half_width(&e), within ? "within" : "OUTSIDE",
           e.fit.points, e.fit.slope, e.fit.sd_ln, e.fit.lag1,
           same ? "" : "(recorded estimate not reproduced)");
    struct crossing_estimate so;
    if (keep_probes >= 0 && first_probes(p, k, max_ms, (size_t)keep_probes,
                                         &so))
        printf("\tfirst %ld probes %s %.1f [%.1f, %.1f]", keep_probes,
               so.method, so.n, so.low, so.high);
    else if (keep_probes >= 0)
        printf("\tfirst %ld probes none", keep_probes);
    printf("\n");
    free(p);
    json_decref(doc);
}

/* The median and range of v[0..n-1] (sorted in place), as "±m% (a-b%)". */
static void print_spread(const char *what, double *v, size_t n)
{
    double m = median_of(v, n);
    printf("%s median ±%.1f%% (range ±%.1f-%.1f%%)", what, 100 * m,
           100 * v[0], 100 * v[n - 1]);
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--probes") == 0) {
        char *end;
        keep_probes = strtol(argv[2], &end, 10);
        if (*argv[2] == '\0' || *end != '\0' || keep_probes < 0) {
            fprintf(stderr, "crossing-replay: --probes %s: not a count\n",
                    argv[2]);
            return 2;
        }
        first = 3;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: crossing-replay [--probes K] FILE...\n");
        return 2;
    }
    struct tally t = {.old_hw = calloc((size_t)argc, sizeof(double)),
                      .new_hw = calloc((size_t)argc, sizeof(double)),
                      .fit_old_hw = calloc((size_t)argc, sizeof(double)),
                      .fit_new_hw = calloc((size_t)argc, sizeof(double))};
    for (int i = first; i < argc; i++)
        replay(argv[i], &t);
    printf("%zu results with a crossing search (%zu files skipped): the "
           "local fit used in %zu, the new estimate within the old "
           "interval in %zu, its interval narrower in %zu; the recorded "
           "estimate reproduced in %zu\n",
           t.results, t.skipped, t.fitted, t.within, t.narrower,
           t.reproduced);
    if (t.results) {
        print_spread("half-width: old", t.old_hw, t.results);
        print_spread(", new", t.new_hw, t.results);
        printf("\n");
    }
    printf("within the target ±%.0f%%: old %zu, new %zu\n",
           100 * t.target, t.old_reached, t.new_reached);
    if (t.reached)
        printf("the local fit within ±%.0f%% in %zu: after %.1f of their "
               "probes on average, where the recorded search took %.1f\n",
               100 * t.target, t.reached,
               t.probes_needed / (double)t.reached,
               t.probes_used / (double)t.reached);
    if (t.fitted) {
        print_spread("where the local fit was used: old", t.fit_old_hw,
                     t.fitted);
        print_spread(", new", t.fit_new_hw, t.fitted);
        printf("\n");
    }
    free(t.old_hw);
    free(t.new_hw);
    free(t.fit_old_hw);
    free(t.fit_new_hw);
    return 0;
}

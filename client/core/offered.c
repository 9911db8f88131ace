/* The offered-rate search: see offered.h. */
#include "core/offered.h"

#include <math.h>

int64_t offered_step_rate(const struct offered_rules *r, int64_t k)
{
    int64_t rate = r->start;
    /* Bounded: k steps, each at least one more, up to max_rate. */
    for (int64_t i = 1; i <= k && rate < r->max_rate; i++) {
        double next = round((double)r->start * pow(r->growth, (double)i));
        rate = next > (double)rate ? (next > (double)r->max_rate
                                          ? r->max_rate
                                          : (int64_t)next)
                                   : rate + 1;
    }
    return rate < r->max_rate ? rate : r->max_rate;
}

int64_t offered_max_measurements(const struct offered_rules *r)
{
    int64_t k = 0;
    /* Bounded by max_rate: each step is one more at least. */
    while (offered_step_rate(r, k) < r->max_rate && k < 100000)
        k++;
    return k + 1 + r->max_probes;
}

void offered_start(struct offered_search *s, const struct offered_rules *r)
{
    *s = (struct offered_search){.phase = OFFERED_STEP,
                                 .rate = offered_step_rate(r, 0)};
}

/* The bracket is known: bisect it, or end when it is narrow enough. */
static void bisect_or_end(struct offered_search *s,
                          const struct offered_rules *r)
{
    int64_t next = r->resolution > 0 && s->probes < r->max_probes
                       ? crossing_next_n(&s->b, r->resolution)
                       : 0;
    if (next) {
        s->phase = OFFERED_BISECT;
        s->rate = next;
    } else {
        s->phase = OFFERED_DONE;
        s->end = OFFERED_CROSSED;
    }
}

enum offered_end offered_next(struct offered_search *s,
                              const struct offered_rules *r, bool over)
{
    if (s->phase == OFFERED_DONE)
        return s->end;
    if (s->phase == OFFERED_BISECT) {
        s->probes++;
        crossing_decide(&s->b, s->rate, over);
        bisect_or_end(s, r);
        return s->end;
    }
    s->steps++;
    if (!over) {
        s->b.lo = s->rate;
        if (s->rate >= r->max_rate) {
            s->phase = OFFERED_DONE;
            s->end = OFFERED_MAX_RATE;
        } else {
            s->rate = offered_step_rate(r, s->steps);
        }
        return s->end;
    }
    s->b.hi = s->rate;
    if (!s->b.lo) {
        s->phase = OFFERED_DONE;
        s->end = OFFERED_NONE;
        return s->end;
    }
    bisect_or_end(s, r);
    return s->end;
}

const char *offered_phase_name(enum offered_phase phase)
{
    return phase == OFFERED_BISECT ? "bisect" : "step";
}

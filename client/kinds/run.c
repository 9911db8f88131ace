/* How a run ends: see run.h. */
#include "kinds/run.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

int run_checkpoint(const struct run *s, struct run_outcome *o)
{
    int w = s->out_path ? result_write(s->doc, s->out_path) : 0;
    if (w)
        run_stop(o, STOP_WRITE_FAILED, 1, "cannot write %s: %s (it keeps "
                 "the last result written whole)", s->out_path,
                 strerror(-w));
    return w;
}

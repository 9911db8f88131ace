/* How a run ends: see run.h. */
#include "kinds/run.h"

#include <stdarg.h>
#include <stdio.h>

void run_stop(struct run_outcome *o, const char *reason, int exit_code,
              const char *fmt, ...)
{
    va_list ap;
    o->stop_reason = reason;
    o->exit_code = exit_code;
    va_start(ap, fmt);
    vsnprintf(o->detail, sizeof o->detail, fmt, ap);
    va_end(ap);
}

/* The build's identity, set by the Makefile (-D...), with fallbacks. */
#ifndef ORBBENCH_VERSION_H
#define ORBBENCH_VERSION_H

#ifndef ORBBENCH_VERSION
#define ORBBENCH_VERSION "0.0.0"
#endif
/* revision.h: the git revision, written by the Makefile whenever it
 * changes (so every build that records it is rebuilt). */
#if !defined(ORBBENCH_GIT_REV) && defined(__has_include)
#if __has_include("revision.h")
#include "revision.h"
#endif
#endif
#ifndef ORBBENCH_GIT_REV
#define ORBBENCH_GIT_REV "unknown"
#endif
#ifndef ORBBENCH_CFLAGS
#define ORBBENCH_CFLAGS "unknown"
#endif

#endif

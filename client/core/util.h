/* Small shared helpers: the monotonic clock, checked number parsing, and
 * whole-buffer I/O on file descriptors. */
#ifndef ORBBENCH_UTIL_H
#define ORBBENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <sys/types.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof *(a))

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t now_ns(void);
/* CLOCK_REALTIME in nanoseconds (for timestamps, never for intervals). */
int64_t wall_ns(void);

/* The clock's own cost: median ns per clock_gettime(CLOCK_MONOTONIC) over
 * several batches, and its advertised resolution in ns. */
void clock_measure(double *cost_ns, int64_t *resolution_ns);

/* Parse a whole string as an integer with an optional k/m/g suffix
 * (x1000^n), or as a finite double. Returns 0, -EINVAL (not a number, or
 * junk after it) or -ERANGE. Never atoi. */
int parse_i64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);

/* Write all of buf, retrying on EINTR and short writes. 0 or -errno. */
int write_full(int fd, const void *buf, size_t len);
/* Read exactly len bytes; -EPIPE on EOF before that. 0 or -errno. */
int read_full(int fd, void *buf, size_t len);

/* Milliseconds left until an absolute now_ns() deadline, clamped to
 * [0, INT32_MAX] for poll(). */
int ms_until(int64_t deadline_ns);

/* Parse a CPU list ("0", "0-1", "0,2-3") into *set, and check that every
 * CPU named is one this process may run on. 0, or -EINVAL with a reason in
 * `why`. */
int parse_cpu_list(const char *list, cpu_set_t *set, char *why,
                   size_t why_len);

/* Copy at most cap-1 bytes and terminate. */
void str_copy(char *dst, size_t cap, const char *src);

/* Copy text that came from outside (a server's stderr or version line, an
 * IOR's path) as printable, valid UTF-8: well-formed UTF-8 sequences of
 * printable characters are kept; every other byte (invalid UTF-8, C0 and
 * C1 controls such as ESC, DEL) becomes the four characters "\xNN". At
 * most cap-1 bytes, cut only between whole characters or escapes, always
 * terminated; dst and src may not overlap. Safe for json_string and for a
 * terminal. */
void str_escape(char *dst, size_t cap, const char *src);

/* str_escape of buf into itself (through a copy), within its cap. */
void str_escape_inplace(char *buf, size_t cap);

/* Open `path` for reading, refusing anything but a regular file: a FIFO,
 * a folder, a device or a socket is never read (the open is non-blocking,
 * so a FIFO with no writer does not hang it, and the type is checked with
 * fstat before any read). The descriptor (close-on-exec, blocking again),
 * or -errno with one line in `why`: "PATH: not a regular file (a FIFO)",
 * "PATH: No such file or directory". */
int open_regular(const char *path, char *why, size_t why_len);

/* What kind of file st_mode is, for a message: "a folder", "a FIFO",
 * "a device", "a socket", "a symbolic link", "a regular file". */
const char *file_kind(unsigned mode);

/* The folder holding this executable (where the servers are built), from
 * /proc/self/exe; without /proc (a private mount namespace), from the
 * path it was executed by (AT_EXECFN), resolved, when that is a path.
 * 0; -ENOENT when neither says (buf is then "/nonexistent", never the
 * working folder: main refuses to run). */
int exe_dir(char *buf, size_t len);

/* The folder of orbbench's helper executables (the servers, and for an
 * installation its scripts): PREFIX/libexec/orbbench when this
 * executable's folder has a ../libexec/orbbench (make install, the
 * Debian package; returns 1), else this executable's folder (a build
 * tree; returns 0). */
int helper_dir(char *buf, size_t len);

#endif

/* ORB installations, for every program orbbench runs from one: the
 * system's (a binary beside the orbbench executable) or a build of
 * scripts/build-orb (bin/orbs/ID/EXE). Server kinds (host/server_kind.h)
 * and callers (host/caller_kind.h) resolve their executables here, and
 * ask them what they are (--version, --modes). */
#ifndef ORBBENCH_INSTALL_H
#define ORBBENCH_INSTALL_H

#include <stddef.h>

/* What a row (a server kind, a caller) says about its installations. */
struct install_form {
    const char *family;  /* "omniorb": builds are FAMILY-VERSION, the
                          * system installation FAMILY-system */
    const char *noun;    /* "server kind", "caller": in messages */
    /* File name beside orbbench: the system installation's program;
     * NULL for a family without one (TAO: only builds under orbs/). */
    const char *binary;
    /* The ORB library's file name prefix; NULL for a family with no
     * installations to choose from (the ORB-less ones): its one binary
     * is always the one beside orbbench and the id is not looked at. */
    const char *library;
    const char *exe;        /* a build's program: bin/orbs/ID/EXE */
    const char *build_hint; /* how to get a build, for the message */
};

/* The program of installation `orb` ("FAMILY-system", "system", or a
 * build's id FAMILY-...) beside the orbbench executable in `bin_dir`.
 * 0, or -ENOENT with the family's installations that do exist listed in
 * `why`. */
int install_resolve(const struct install_form *f, const char *orb,
                    const char *bin_dir, char *path, size_t path_len,
                    char *why, size_t why_len);

/* Run `path option` (5 s at most, its stderr dropped) and keep what it
 * wrote on stdout (at most out_len - 1 bytes; a text nobody escaped yet).
 * Call before any thread exists. 0, or -errno with a one-line reason in
 * `why` (naming it as `noun` PATH). */
int install_ask(const char *path, const char *option, const char *noun,
                char *out, size_t out_len, char *why, size_t why_len);

#endif

/* Stringified IOR parsing: the IIOP profile (host, port, object key) and
 * omniORB's Unix-socket component. */
#ifndef ORBBENCH_IOR_H
#define ORBBENCH_IOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cdr.h"

#define IOR_TAG_INTERNET_IOP 0u
#define IOR_TAG_OMNIORB_UNIX_TRANS 0x41545402u

#define IOR_MAX_TYPE_ID 256
#define IOR_MAX_HOST 256
#define IOR_MAX_KEY 1024
#define IOR_MAX_PATH 108 /* sizeof(sockaddr_un.sun_path) */

struct ior {
    char type_id[IOR_MAX_TYPE_ID];
    uint8_t iiop_major;
    uint8_t iiop_minor;
    char host[IOR_MAX_HOST];
    uint16_t port;
    uint8_t key[IOR_MAX_KEY];
    size_t key_len;
    bool has_unix;
    char unix_host[IOR_MAX_HOST];
    char unix_path[IOR_MAX_PATH];
};

/* Parse a stringified IOR ("IOR:" then hex; surrounding whitespace is
 * allowed) into *out. Returns 0, or:
 *   -EINVAL       not "IOR:" followed by an even number of hex digits
 *   -EBADMSG      the CDR is truncated or a length runs past its end
 *   -ENOENT       no IIOP profile (TAG_INTERNET_IOP)
 *   -ENAMETOOLONG a field does not fit struct ior
 *   -EPROTO       an IIOP version this parser does not know (major != 1)
 *   -ENOMEM
 * After a failure *out may be partly filled. */
int ior_parse(const char *str, struct ior *out);

/* Decode an IOR marshaled inline at in's cursor (an object reference in
 * a GIOP reply: type id, then the profiles), leaving the cursor after it.
 * Returns 0 or, as ior_parse, -EBADMSG, -ENOENT (a nil reference has no
 * profile), -ENAMETOOLONG, -EPROTO, -ENOMEM. */
int ior_decode(struct cdr_in *in, struct ior *out);

/* Append a nil object reference at o's position. */
void ior_put_nil(struct cdr_out *o);

/* The stringified form of *ior ("IOR:" and lowercase hex, NUL-terminated,
 * malloc'd into *out): type_id, one IIOP 1.2 profile (host, port, key)
 * and, when has_unix, omniORB's Unix-socket component (unix_host,
 * unix_path) in it. Little-endian. 0, -ENOMEM or -EMSGSIZE. */
int ior_format(const struct ior *ior, char **out);

/* A static English phrase for a return value of ior_parse. */
const char *ior_strerror(int err);

#endif

/* Stringified IOR parsing: the IIOP profile (host, port, object key) and
 * the Unix-socket endpoints of omniORB (a component), TAO and MICO (their
 * UIOP profiles) and ORBit2 (its TAG_ORBIT_SPECIFIC profile) for the client's
 * connections (ior_parse), and the whole IOR as catior shows it
 * (ior_decode). */
#ifndef ORBBENCH_IOR_H
#define ORBBENCH_IOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/cdr.h"

/* Profile tags (IOP::ProfileId). */
#define IOR_TAG_INTERNET_IOP 0u
#define IOR_TAG_MULTIPLE_COMPONENTS 1u
/* TAO's Unix-socket profile (TAO_TAG_UIOP_PROFILE, "TAO\0"): the body of
 * an IIOP 1.x profile with the socket's path (TAO's "rendezvous point")
 * where IIOP has host and port. */
#define IOR_TAG_TAO_UIOP 0x54414f00u
/* MICO's Unix-socket profile (TAG_UNIX_IOP, 20002, a "mico-extension" of
 * include/mico/ior.h; orb/ior.cc, UIOPProfile::encode): the body of an
 * IIOP 1.x profile with the host and then the socket's path where IIOP
 * has host and port. MICO's SSL build gives TAG_SSL_INTERNET_IOP the same
 * number, but encodes an SSL profile under its transport's own tag. */
#define IOR_TAG_MICO_UIOP 20002u
/* ORBit2's own profile (IOP_TAG_ORBIT_SPECIFIC, src/orb/orb-core/
 * iop-profiles.c): two version octets (1.2, "for ORBit1"), the Unix
 * socket's path, an IPv6 port (0: none), the object key. */
#define IOR_TAG_ORBIT_SPECIFIC 0xbadfaecau
/* ORBit2's generic profile (IOP_TAG_GENERIC_IOP, "OBT\0"): a GIOP version,
 * a linc protocol name ("UNIX", "IPv6", ...), a host and a service (the
 * socket's path, a port), components; no object key (ORBit2 puts it in
 * TAG_MULTIPLE_COMPONENTS' TAG_COMPLETE_OBJECT_KEY). */
#define IOR_TAG_ORBIT_GENERIC_IOP 0x4f425400u

/* Component tags (IOP::ComponentId): the standard ones orbbench decodes,
 * and omniORB's ("ATT\x01".."ATT\x05"). */
#define IOR_TAG_ORB_TYPE 0u
#define IOR_TAG_CODE_SETS 1u
#define IOR_TAG_POLICIES 2u
#define IOR_TAG_ALTERNATE_IIOP_ADDRESS 3u
#define IOR_TAG_SSL_SEC_TRANS 20u
#define IOR_TAG_CSI_SEC_MECH_LIST 33u
#define IOR_TAG_OMNIORB_BIDIR 0x41545401u
#define IOR_TAG_OMNIORB_UNIX_TRANS 0x41545402u
#define IOR_TAG_OMNIORB_PERSISTENT_ID 0x41545403u
#define IOR_TAG_OMNIORB_RESTRICTED_CONNECTION 0x41545404u
#define IOR_TAG_OMNIORB_HTTP_TRANS 0x41545405u

#define IOR_MAX_TYPE_ID 256
#define IOR_MAX_HOST 256
#define IOR_MAX_KEY 1024
#define IOR_MAX_PATH 108 /* sizeof(sockaddr_un.sun_path) */

struct ior {
    char type_id[IOR_MAX_TYPE_ID];
    bool has_iiop; /* host, port and the IIOP version are set */
    uint8_t iiop_major;
    uint8_t iiop_minor;
    char host[IOR_MAX_HOST];
    uint16_t port;
    uint8_t key[IOR_MAX_KEY];
    size_t key_len;
    /* A Unix socket: omniORB's TAG_OMNIORB_UNIX_TRANS component in the
     * IIOP profile (unix_host is the machine it names), TAO's UIOP
     * profile or ORBit2's TAG_ORBIT_SPECIFIC one (unix_host empty), or
     * MICO's UIOP profile (unix_host: the host it names). */
    bool has_unix;
    char unix_host[IOR_MAX_HOST];
    char unix_path[IOR_MAX_PATH];
};

/* Parse a stringified IOR ("IOR:" then hex; surrounding whitespace is
 * allowed) into *out: the first IIOP profile (and its omniORB Unix
 * component), the first UIOP profile of TAO and of MICO and the first
 * TAG_ORBIT_SPECIFIC profile of ORBit2 that names a socket. The object
 * key is the IIOP profile's, or else the first Unix profile's (TAO, MICO
 * and ORBit2 give every profile of an object the same key); the Unix path the
 * first one found. Returns 0, or:
 *   -EINVAL       not "IOR:" followed by an even number of hex digits
 *   -EBADMSG      the CDR is truncated or a length runs past its end
 *   -ENOENT       neither an IIOP profile (TAG_INTERNET_IOP) nor a UIOP
 *                 or ORBit one with a version this parser knows
 *   -ENAMETOOLONG a field does not fit struct ior
 *   -EPROTO       an IIOP version this parser does not know (major != 1)
 *   -ENOMEM
 * After a failure *out may be partly filled. */
int ior_parse(const char *str, struct ior *out);

/* Decode an IOR marshaled inline at in's cursor (an object reference in
 * a GIOP reply: type id, then the profiles), leaving the cursor after it.
 * Returns 0 or, as ior_parse, -EBADMSG, -ENOENT (a nil reference has no
 * profile), -ENAMETOOLONG, -EPROTO, -ENOMEM. */
int ior_read(struct cdr_in *in, struct ior *out);

/* Append a nil object reference at o's position. */
void ior_put_nil(struct cdr_out *o);

/* Append *ior at o's position, in o's byte order, as an object
 * reference is marshaled (type_id, one IIOP 1.2 profile with host, port,
 * key and, when has_unix, omniORB's Unix-socket component); an error
 * goes to o->err. */
void ior_put(struct cdr_out *o, const struct ior *ior);

/* The stringified form of *ior ("IOR:" and lowercase hex, NUL-terminated,
 * malloc'd into *out): type_id, one IIOP 1.2 profile (host, port, key)
 * and, when has_unix, omniORB's Unix-socket component (unix_host,
 * unix_path) in it. Little-endian. 0, -ENOMEM or -EMSGSIZE. */
int ior_format(const struct ior *ior, char **out);

/* A static English phrase for a return value of ior_parse. */
const char *ior_strerror(int err);

/* True when `host` is a numeric loopback address (127.0.0.0/8, ::1): the
 * only hosts the TCP transport calls unless told otherwise. */
bool ior_host_is_loopback(const char *host);

/* ---- The whole IOR, as catior shows it --------------------------------
 * ior_decode reads every profile and component. Strings, keys and raw
 * component bytes are borrowed from the IOR's bytes, which the decoded
 * struct ior_doc owns; ior_doc_free releases it all. */

/* A CDR string, borrowed: `len` bytes at `s` (not counting the NUL that
 * ends it in the buffer; NULs inside are possible). */
struct ior_str {
    const char *s;
    size_t len;
};

/* One half of CONV_FRAME::CodeSetComponentInfo: char or wchar data. */
struct ior_code_sets {
    uint32_t native;
    uint32_t nconv;
    uint32_t *conv; /* malloc'd, nconv entries */
};

/* How a component's contents were decoded: which member of `u` holds
 * them. IOR_COMP_RAW: listed by tag and length only. */
enum ior_comp_kind {
    IOR_COMP_RAW,
    IOR_COMP_ORB_TYPE,   /* u.orb_type */
    IOR_COMP_CODE_SETS,  /* u.code_sets */
    IOR_COMP_ADDRESS,    /* u.address: TAG_ALTERNATE_IIOP_ADDRESS */
    IOR_COMP_UNIX,       /* u.unix_trans: TAG_OMNIORB_UNIX_TRANS */
    IOR_COMP_STRING,     /* u.str: TAG_OMNIORB_BIDIR, _HTTP_TRANS */
    IOR_COMP_SSL,        /* u.ssl: TAG_SSL_SEC_TRANS */
    IOR_COMP_RESTRICTED, /* u.restricted */
    IOR_COMP_OCTETS,     /* the data itself: TAG_OMNIORB_PERSISTENT_ID */
};

struct ior_component {
    uint32_t tag;
    const uint8_t *data; /* component_data, borrowed */
    size_t len;
    enum ior_comp_kind kind;
    union {
        uint32_t orb_type;
        struct {
            struct ior_code_sets chars, wchars;
        } code_sets;
        struct {
            struct ior_str host;
            uint16_t port;
        } address;
        struct {
            struct ior_str host, path;
        } unix_trans;
        struct ior_str str;
        struct {
            uint32_t supports, requires;
            uint16_t port;
            bool visibroker; /* ulong flags: VisiBroker's own layout */
        } ssl;
        struct {
            uint8_t version;
            uint16_t flags;
            uint32_t connection_id, max_connections, max_threads;
        } restricted;
    } u;
};

struct ior_profile {
    uint32_t tag;
    const uint8_t *data; /* profile_data, borrowed */
    size_t len;
    /* TAG_INTERNET_IOP, TAO's and MICO's UIOP and ORBit2's two profiles
     * with major version 1, TAG_MULTIPLE_COMPONENTS: the body was decoded
     * (little: its byte order). Other profiles are listed by tag and
     * length only. */
    bool decoded;
    bool little;
    /* TAG_INTERNET_IOP, even undecoded; TAO's and MICO's UIOP and
     * ORBit2's profiles have the same two octets (a GIOP version) */
    uint8_t iiop_major, iiop_minor;
    struct ior_str host; /* IIOP, MICO's UIOP, ORBit2's generic profile */
    /* UIOP: the socket's path (TAO's rendezvous point);
     * TAG_ORBIT_SPECIFIC: the socket's path (empty: none) */
    struct ior_str path;
    struct ior_str proto;   /* ORBit2's generic profile: "UNIX", "IPv6" */
    struct ior_str service; /* ORBit2's generic profile: path or port */
    uint16_t port;
    uint16_t ipv6_port; /* TAG_ORBIT_SPECIFIC (0: none) */
    const uint8_t *key;
    size_t key_len;
    struct ior_component *comps; /* malloc'd */
    size_t ncomps;
};

struct ior_doc {
    uint8_t *bytes; /* the IOR's CDR, malloc'd; everything borrows it */
    size_t len;
    bool little;
    struct ior_str type_id;
    struct ior_profile *profiles; /* malloc'd */
    size_t nprofiles;
};

/* Decode a stringified IOR ("IOR:" and hex, whitespace around it
 * allowed) into *doc. Returns 0, or -EINVAL (not "IOR:" and an even
 * number of hex digits), -EBADMSG (malformed CDR: truncated, a length
 * past the end, a bad byte-order octet, a string without its NUL) or
 * -ENOMEM; on failure `why` holds a one-line reason naming where in the
 * IOR it went wrong, and *doc is freed. Unknown profiles and components
 * are kept by tag, never refused; a known one that does not decode is
 * -EBADMSG. Call ior_doc_free after success. */
int ior_decode(const char *str, struct ior_doc *doc, char *why,
               size_t why_len);
void ior_doc_free(struct ior_doc *doc);

/* Names, or NULL when unknown: a profile tag, a component tag, a code set
 * (OSF registry, as catior names them), the ORB vendor of a TAG_ORB_TYPE
 * value (OMG vendor tag ranges). Static strings. */
const char *ior_profile_name(uint32_t tag);
const char *ior_component_name(uint32_t tag);
const char *ior_codeset_name(uint32_t id);
const char *ior_orb_vendor(uint32_t orb_type);

/* `n` bytes as catior prints a key: printable ASCII as is, every other
 * byte as \xNN. Writes at most cap-1 chars and a NUL into out; returns
 * the length the whole text needs (like snprintf). */
size_t ior_escape(const void *p, size_t n, char *out, size_t cap);

#endif

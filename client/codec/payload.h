/* Typed call payloads (idl/payloads.idl): each is a table entry describing
 * its IDL type as a small tree (octet, long, ulong, longlong, ulonglong,
 * double, string, struct, sequence, typedef), from which one walker makes
 * the value for a seed, encodes it in CDR, checks a decoded one field by
 * field, and encodes its TypeCode. A new payload is a new table entry. */
#ifndef ORBBENCH_PAYLOAD_H
#define ORBBENCH_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/cdr.h"

struct payload_type; /* a table entry, opaque */

/* The entry called `name` ("string", "None", "Octet1K", "Octet100K",
 * "Odometry", "RangeSensor", "SharedBelief"), or NULL. */
const struct payload_type *payload_lookup(const char *name);
/* The table, in order: entries 0..payload_count()-1. */
size_t payload_count(void);
const struct payload_type *payload_at(size_t i);
/* Every name, ", "-separated, into buf (for messages). */
void payload_names(char *buf, size_t len);

const char *payload_name(const struct payload_type *t);
/* The Bench::Echo operation that echoes it: "echoOctet1K" ("echoString"
 * for "string"; "echoNone" takes and returns nothing). */
const char *payload_operation(const struct payload_type *t);
/* False for "None": the call has no argument and no result. */
bool payload_has_value(const struct payload_type *t);

/* The value for `seed`, CDR-encoded at out's position (alignment relative
 * to out->origin, in out's byte order). Sequence lengths are the table's
 * and do not depend on the seed; every field's value does. "string" is 16
 * characters. 0 or out->err (-ENOMEM). */
int payload_encode(const struct payload_type *t, uint32_t seed,
                   struct cdr_out *out);

/* Decode a value from `in` (its byte order; alignment relative to
 * in->data) and compare it with the value for `seed`, field by field.
 * 0, or -EBADMSG with the first differing field's path in `why`, e.g.
 * "SharedBelief[3].cells[7]: got 12, want 13", "RangeSensor.range: length
 * 360, want 361", "Odometry.velocity.rotation: truncated". in->pos ends
 * after the value (bytes after it are the caller's to judge). */
int payload_check(const struct payload_type *t, uint32_t seed,
                  struct cdr_in *in, char *why, size_t why_len);

/* The payload type's TypeCode (CDR, CORBA 3.0 part 2 section 15.3.5: a
 * tk_alias for a typedef, tk_struct with repository id
 * "IDL:Bench/Name:1.0" and member names, tk_sequence of bound 0, ...) at
 * out's position; "None" is tk_void. 0 or out->err. */
int payload_encode_typecode(const struct payload_type *t,
                            struct cdr_out *out);

/* An `any` holding Bench::<Name>Event{sent_ns, the value for seed}: its
 * TypeCode, then the value. 0, out->err, or -ENOTSUP for "string" (it has
 * no event type). */
int payload_encode_event_any(const struct payload_type *t, uint32_t seed,
                             uint64_t sent_ns, struct cdr_out *out);

#endif

/* SHA-256 (FIPS 180-4) of a buffer, to identify an input file in a
 * result. */
#ifndef ORBBENCH_SHA256_H
#define ORBBENCH_SHA256_H

#include <stddef.h>

/* The digest of data[0..len-1] as 64 lowercase hex digits and a NUL in
 * hex (65 bytes). */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif

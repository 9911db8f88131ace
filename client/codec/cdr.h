/* CDR (Common Data Representation) encoding and decoding over byte buffers,
 * both byte orders, with alignment relative to a stream origin. */
#ifndef ORBBENCH_CDR_H
#define ORBBENCH_CDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable output buffer. Alignment is relative to data[origin]. `err`
 * is sticky: the first failure (-ENOMEM, or -EMSGSIZE past 4 GiB) is kept
 * and later puts do nothing. */
struct cdr_out {
    uint8_t *data;
    size_t len;
    size_t cap;
    size_t origin;
    bool little;
    int err;
};

/* A read cursor over borrowed bytes. Alignment is relative to data[0].
 * `err` is sticky: -EBADMSG once anything is truncated or out of range. */
struct cdr_in {
    const uint8_t *data;
    size_t len;
    size_t pos;
    bool little;
    int err;
};

/* True when this machine is little-endian. */
bool cdr_host_little(void);

/* Start an empty buffer in the given byte order. Never fails. */
void cdr_out_init(struct cdr_out *o, bool little);
/* Forget the contents but keep the memory, for reuse on a hot path. */
void cdr_out_reset(struct cdr_out *o, bool little);
void cdr_out_free(struct cdr_out *o);

void cdr_align(struct cdr_out *o, size_t n);
void cdr_put_octet(struct cdr_out *o, uint8_t v);
void cdr_put_bool(struct cdr_out *o, bool v);
void cdr_put_short(struct cdr_out *o, uint16_t v);
void cdr_put_long(struct cdr_out *o, uint32_t v);
void cdr_put_longlong(struct cdr_out *o, uint64_t v);
void cdr_put_bytes(struct cdr_out *o, const void *p, size_t n);
/* A CDR string: ulong length counting the NUL, the chars, the NUL. */
void cdr_put_string(struct cdr_out *o, const char *s, size_t len);
/* sequence<octet>: ulong count, the octets. */
void cdr_put_octet_seq(struct cdr_out *o, const void *p, size_t n);
/* Overwrite a ulong already written at `at`, in the buffer's byte order;
 * does nothing when at + 4 is past the end or err is set. */
void cdr_patch_long(struct cdr_out *o, size_t at, uint32_t v);

/* Read cursor over `len` bytes at `data`; `little` is the byte order. */
void cdr_in_init(struct cdr_in *in, const void *data, size_t len, bool little);
/* Start a cursor on a CDR encapsulation: its first octet sets the order.
 * Returns 0 or -EBADMSG (empty, or a byte-order octet other than 0/1). */
int cdr_in_encap(struct cdr_in *in, const void *data, size_t len);

void cdr_in_align(struct cdr_in *in, size_t n);
uint8_t cdr_get_octet(struct cdr_in *in);
uint16_t cdr_get_short(struct cdr_in *in);
uint32_t cdr_get_long(struct cdr_in *in);
uint64_t cdr_get_longlong(struct cdr_in *in);
/* A CDR string, borrowed from the input: *s points at its chars (NUL
 * terminated, inside the buffer), *len excludes the NUL. A length of 0, a
 * missing NUL or a length past the end sets err. Returns 0 or err. */
int cdr_get_string(struct cdr_in *in, const char **s, size_t *len);
/* sequence<octet>, borrowed. Returns 0 or err. */
int cdr_get_octet_seq(struct cdr_in *in, const uint8_t **p, size_t *n);
/* Bytes left from the cursor to the end; 0 once err is set. */
size_t cdr_in_left(const struct cdr_in *in);

#endif

/* The object keys of a server's numbered objects (kind objects,
 * idl/echo.idl's makeObjects): object i's ObjectId is i as OBJKEY_DIGITS
 * decimal digits, and an ORB puts the ObjectId in the object key as it
 * is, amid bytes that are the same for every object of one POA, save
 * perhaps an index of its own: TAO's active demultiplexing puts the
 * object's slot in its active object map before the ObjectId, a 4-byte
 * integer in the host's byte order that grows with i. From the keys of objects it was given,
 * objkey_learn finds where the digits go, and the index when there is
 * one (i plus a constant, 4 bytes, either byte order); objkey_make then
 * writes the key of any object. Pure functions over bytes. */
#ifndef ORBBENCH_OBJKEY_H
#define ORBBENCH_OBJKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OBJKEY_DIGITS 8
#define OBJKEY_MAX_ID 99999999u
#define OBJKEY_MAX_KEY 1024
/* Forms a key may still have, before more keys tell them apart. */
#define OBJKEY_MAX_FORMS 64

/* One way the keys may be made: the digits at digits_at, and with
 * has_index the 4 bytes at index_at holding i + index_base (mod 2^32),
 * little- or big-endian. */
struct objkey_form {
    size_t digits_at;
    bool has_index;
    bool index_little;
    size_t index_at;
    uint32_t index_base;
};

struct objkey {
    uint8_t key[OBJKEY_MAX_KEY]; /* the first key learned */
    size_t len;
    uint32_t id;   /* its object's */
    bool compared; /* a key of another object was learned since */
    struct objkey_form forms[OBJKEY_MAX_FORMS];
    size_t nforms; /* 0: nothing learned yet */
};

/* Object id's digits, OBJKEY_DIGITS of them, no terminator. */
void objkey_digits(uint32_t id, char out[OBJKEY_DIGITS]);

/* Learn from `key` (len bytes), object `id`'s. The first call keeps it,
 * with a form for every place its digits occur at; the first key of
 * another object then tells where an index is, if any (the bytes it
 * differs in besides the digits must lie within 4, and hold id plus a
 * constant); every key after keeps the forms that make it. The forms
 * left (>= 1), or -EINVAL (id over OBJKEY_MAX_ID, a key over
 * OBJKEY_MAX_KEY or of another length, no form makes it: the keys
 * follow no pattern this knows; p is then unchanged). */
int objkey_learn(struct objkey *p, const uint8_t *key, size_t len,
                 uint32_t id);

/* Object id's key into out (p->len bytes) by objkey_form's form. p
 * must have learned. */
void objkey_make(const struct objkey *p, uint32_t id, uint8_t *out);

/* The form objkey_make uses, of those left: the digits' last place (an
 * ObjectId ends the key in every ORB seen), and there no index or the
 * one nearest the digits, little-endian first. Every
 * form left makes every key learned; a key made by a wrong one names no
 * object, and the server says so (OBJECT_NOT_EXIST): a call never
 * reaches another object than the one asked for. */
const struct objkey_form *objkey_form(const struct objkey *p);

#endif

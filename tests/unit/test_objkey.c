/* Unit tests for objkey.c: where a server's numbered objects hold their
 * number in their keys, learned from a few keys as makeObjects returns
 * them (the first and last of each batch), then every other key made.
 * The keys are built here as the ORBs build them: omniORB's (a POA prefix
 * and the ObjectId), TAO's (an active-map slot and a generation before
 * it, in the host's byte order), and forms that fit no pattern. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "codec/objkey.h"

/* A key like omniORB 4.2.5's for object id in POA "objects": 0xff, the
 * POA's name, 0xfe, 10 bytes of the POA's own (here 8 of them '0'), the
 * ObjectId. */
static size_t omni_key(uint32_t id, uint8_t *k)
{
    static const uint8_t head[] = "\xff" "objects" "\xfe" "00000000"
                                  "\x12\x34";
    memcpy(k, head, sizeof head - 1);
    snprintf((char *)k + sizeof head - 1, 9, "%08u", id);
    return sizeof head - 1 + 8;
}

/* TAO 2.2.1's: 23 bytes of POA, the slot (id + base) and the generation
 * 1, each 4 bytes in `little` order, then the ObjectId. */
static size_t tao_key(uint32_t id, uint32_t base, int little, uint8_t *k)
{
    memset(k, 0, 23);
    memcpy(k, "\x14\x01\x0f\x00NUT", 7);
    uint32_t v[2] = {id + base, 1};
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 4; i++)
            k[23 + 4 * f + (little ? i : 3 - i)] = (uint8_t)(v[f] >> 8 * i);
    snprintf((char *)k + 31, 9, "%08u", id);
    return 39;
}

/* Learn the keys of ids[], as kind objects gets them. */
static int learn_all(struct objkey *p, const uint32_t *ids, size_t n,
                     size_t (*key)(uint32_t, uint8_t *))
{
    int rc = 0;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        uint8_t k[64];
        size_t len = key(ids[i], k);
        rc = objkey_learn(p, k, len, ids[i]);
    }
    return rc;
}

/* Every object below m has its own key. */
static void assert_makes(const struct objkey *p, uint32_t m,
                         size_t (*key)(uint32_t, uint8_t *))
{
    for (uint32_t id = 0; id < m; id += 1 + id / 7) {
        uint8_t want[64], got[OBJKEY_MAX_KEY];
        size_t len = key(id, want);
        assert_int_equal(p->len, len);
        objkey_make(p, id, got);
        assert_memory_equal(got, want, len);
    }
}

static void test_digits(void **state)
{
    (void)state;
    char d[OBJKEY_DIGITS];
    objkey_digits(42, d);
    assert_memory_equal(d, "00000042", 8);
    objkey_digits(99999999, d);
    assert_memory_equal(d, "99999999", 8);
}

/* omniORB's keys: the digits alone move, at the end. Object 0's digits
 * also match the POA's own eight '0's: two places until object 1's key. */
static void test_prefix_and_id(void **state)
{
    (void)state;
    static struct objkey p;
    memset(&p, 0, sizeof p);
    uint8_t k[64];
    size_t len = omni_key(0, k);
    assert_int_equal(objkey_learn(&p, k, len, 0), 2);
    len = omni_key(1, k);
    assert_int_equal(objkey_learn(&p, k, len, 1), 1);
    const uint32_t ids[] = {9, 10, 99, 100, 999};
    assert_int_equal(learn_all(&p, ids, 5, omni_key), 1);
    assert_false(objkey_form(&p)->has_index);
    assert_int_equal(objkey_form(&p)->digits_at, len - 8);
    assert_makes(&p, 1000, omni_key);
}

static size_t tao_le(uint32_t id, uint8_t *k) { return tao_key(id, 0, 1, k); }
static size_t tao_be(uint32_t id, uint8_t *k) { return tao_key(id, 7, 0, k); }

/* TAO's: the slot moves with the digits. Below 256 a little-endian slot
 * at 23 and a big-endian one at 20 (its last byte the same) make the
 * same keys; past it, only the right one is left. */
static void test_an_index_before_the_id(void **state)
{
    (void)state;
    static struct objkey p;
    memset(&p, 0, sizeof p);
    const uint32_t small[] = {0, 1, 9, 10, 99};
    assert_int_equal(learn_all(&p, small, 5, tao_le), 2);
    assert_makes(&p, 100, tao_le);
    /* while both are left, the one nearest the digits, little-endian */
    assert_int_equal(objkey_form(&p)->index_at, 23);
    const uint32_t more[] = {100, 999, 1000, 9999};
    assert_int_equal(learn_all(&p, more, 4, tao_le), 1);
    const struct objkey_form *f = objkey_form(&p);
    assert_true(f->has_index && f->index_little);
    assert_int_equal(f->index_at, 23);
    assert_int_equal(f->index_base, 0);
    assert_int_equal(f->digits_at, 31);
    assert_makes(&p, 10000, tao_le);

    /* big-endian, the slot 7 past the id */
    memset(&p, 0, sizeof p);
    const uint32_t all[] = {0, 1, 9, 10, 99, 100, 999};
    assert_int_equal(learn_all(&p, all, 7, tao_be), 1);
    f = objkey_form(&p);
    assert_true(f->has_index && !f->index_little);
    assert_int_equal(f->index_base, 7);
    assert_makes(&p, 1000, tao_be);
}

/* Keys that follow no pattern are refused, and leave what was learned
 * as it was. */
static void test_keys_without_a_pattern(void **state)
{
    (void)state;
    static struct objkey p;
    memset(&p, 0, sizeof p);
    uint8_t k[64];
    /* no digits of the id in it */
    assert_int_equal(objkey_learn(&p, (const uint8_t *)"abcdefghij", 10, 3),
                     -EINVAL);
    assert_int_equal(p.nforms, 0);
    size_t len = omni_key(5, k);
    assert_int_equal(objkey_learn(&p, k, len, 5), 1);
    /* another length */
    assert_int_equal(objkey_learn(&p, k, len - 1, 6), -EINVAL);
    /* more than 4 bytes besides the digits moved */
    len = omni_key(6, k);
    k[1] ^= 1;
    k[9] ^= 1;
    assert_int_equal(objkey_learn(&p, k, len, 6), -EINVAL);
    /* the right digits in the wrong place */
    len = omni_key(6, k);
    memcpy(k + 2, "00000006", 8);
    memcpy(k + len - 8, "00000005", 8);
    assert_int_equal(objkey_learn(&p, k, len, 6), -EINVAL);
    /* still the form learned before */
    assert_int_equal(p.nforms, 1);
    assert_int_equal(objkey_learn(&p, k, len, OBJKEY_MAX_ID + 1), -EINVAL);
    len = omni_key(7, k);
    assert_int_equal(objkey_learn(&p, k, len, 7), 1);
    assert_makes(&p, 100, omni_key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digits),
        cmocka_unit_test(test_prefix_and_id),
        cmocka_unit_test(test_an_index_before_the_id),
        cmocka_unit_test(test_keys_without_a_pattern),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

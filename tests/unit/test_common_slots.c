/* test_common_slots.c: the hash index over a caller's array (common/slots.c).
 *
 * Entries found by key after many insertions (through several doublings, which rehash with the
 * caller's hash callback), absent keys not found, an empty table answering without memory, the
 * table at most half full, colliding hashes (every key the same hash) still told apart by the
 * equality test, and an index too large for a slot refused with the table unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "common/slots.h"

static int key_is(const void *ctx, size_t i, const void *key)
{
	return ((const uint64_t *)ctx)[i] == *(const uint64_t *)key;
}

static uint64_t mix(uint64_t k) { return k * 0x9e3779b97f4a7c15ull ^ (k >> 7); }
static uint64_t key_hash(const void *ctx, size_t i) { return mix(((const uint64_t *)ctx)[i]); }
static uint64_t same_hash(const void *ctx, size_t i) { (void)ctx, (void)i; return 42; }

static void test_finds_after_growth(void **state)
{
	(void)state;
	enum { N = 5000 };
	uint64_t *keys = malloc(N * sizeof *keys);
	assert_non_null(keys);
	struct gt_slots t = { 0 };
	uint64_t k = 7;
	assert_true(gt_slots_find(&t, mix(k), key_is, keys, &k) == GT_SLOTS_NONE);
	for (size_t i = 0; i < N; i++) {
		keys[i] = i * 1000003u + 11;
		assert_true(gt_slots_find(&t, mix(keys[i]), key_is, keys, &keys[i]) == GT_SLOTS_NONE);
		assert_int_equal(gt_slots_add(&t, mix(keys[i]), i, key_hash, keys), 0);
		assert_true(t.n * 2 <= t.cap); /* at most half full */
		assert_true((t.cap & (t.cap - 1)) == 0);
	}
	for (size_t i = 0; i < N; i++)
		assert_true(gt_slots_find(&t, mix(keys[i]), key_is, keys, &keys[i]) == i);
	k = 12; /* never entered */
	assert_true(gt_slots_find(&t, mix(k), key_is, keys, &k) == GT_SLOTS_NONE);
	gt_slots_release(&t);
	assert_null(t.slot);
	assert_true(t.cap == 0 && t.n == 0);
	free(keys);
}

static void test_collisions(void **state)
{
	(void)state;
	uint64_t keys[200];
	struct gt_slots t = { 0 };
	for (size_t i = 0; i < 200; i++) {
		keys[i] = i;
		assert_int_equal(gt_slots_add(&t, 42, i, same_hash, keys), 0);
	}
	for (size_t i = 0; i < 200; i++)
		assert_true(gt_slots_find(&t, 42, key_is, keys, &keys[i]) == i);
	uint64_t absent = 500;
	assert_true(gt_slots_find(&t, 42, key_is, keys, &absent) == GT_SLOTS_NONE);
	gt_slots_release(&t);
}

static void test_index_too_large(void **state)
{
	(void)state;
	uint64_t keys[1] = { 3 };
	struct gt_slots t = { 0 };
	assert_int_equal(gt_slots_add(&t, mix(3), (size_t)GT_SLOTS_MAX + 1, key_hash, keys), -1);
	assert_true(t.n == 0 && t.cap == 0 && !t.slot);
	gt_slots_release(&t);
	gt_slots_release(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_after_growth),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_index_too_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

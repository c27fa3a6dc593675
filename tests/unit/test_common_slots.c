/* test_common_slots.c: the hash index over a caller's array (common/slots.c).
 *
 * Entries found by key after many insertions (through several doublings, which rehash with the
 * caller's hash callback), absent keys not found, an empty table answering without memory, the
 * table at most half full, colliding hashes (every key the same hash) still told apart by the
 * equality test, an index too large for a slot refused with the table unchanged, and hashes that
 * agree in their low 40 bits (what names chosen to collide under FNV-1a give a table that takes low
 * bits as they are) spread by the table's keyed mix: look-ups stay short, counted in calls of the
 * equality test.
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

static size_t probes; /* calls of counting_key_is */
static int counting_key_is(const void *ctx, size_t i, const void *key)
{
	probes++;
	return key_is(ctx, i, key);
}
static uint64_t high_bits_hash(const void *ctx, size_t i) { return ((const uint64_t *)ctx)[i] << 40; }

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

static void test_low_bit_collisions_stay_short(void **state)
{
	(void)state;
	enum { N = 50000 };
	uint64_t *keys = malloc(N * sizeof *keys);
	assert_non_null(keys);
	struct gt_slots t = { 0 };
	for (size_t i = 0; i < N; i++) {
		keys[i] = i;
		assert_int_equal(gt_slots_add(&t, keys[i] << 40, i, high_bits_hash, keys), 0);
	}
	probes = 0;
	for (size_t i = 0; i < N; i++)
		assert_true(gt_slots_find(&t, keys[i] << 40, counting_key_is, keys, &keys[i]) == i);
	/* At most half full and well spread, a hit costs about 1.5 probes; unspread, these N keys
	 * would cost N / 2 each. 4 per look-up on average leaves room for any key the table draws. */
	assert_true(probes <= 4 * (size_t)N);
	gt_slots_release(&t);
	free(keys);
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
		cmocka_unit_test(test_low_bit_collisions_stay_short),
		cmocka_unit_test(test_index_too_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

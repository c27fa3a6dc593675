/* test_common_fnv.c: FNV-1a, 64-bit (common/fnv.h), against the published test vectors.
 *
 * The values are those of the FNV reference (offset basis, "a", "foobar"), rechecked here with a
 * three-line Python loop (h = ((h ^ c) * 0x100000001b3) mod 2^64 from 0xcbf29ce484222325). The key
 * diff seeds its bootstrap with depends on them, so a change to the hash changes diff's numbers:
 * that is what these tests are for. Bytes are unsigned (0xc3 0xa9 is "é" in UTF-8), a NUL counts
 * when a length is given, and the string form stops at the NUL and takes NULL as "".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/fnv.h"

static void test_vectors(void **state)
{
	(void)state;
	assert_true(gt_fnv1a64(NULL, 0) == 0xcbf29ce484222325ull);
	assert_true(gt_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(gt_fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
	assert_true(gt_fnv1a64("\xc3\xa9", 2) == 0x0ac21707b7181e01ull);
	assert_true(gt_fnv1a64("", 1) == 0xaf63bd4c8601b7dfull); /* the NUL byte itself */
}

static void test_string_form(void **state)
{
	(void)state;
	assert_true(gt_fnv1a64_str("foobar") == 0x85944171f73967e8ull);
	assert_true(gt_fnv1a64_str("\xc3\xa9") == gt_fnv1a64("\xc3\xa9", 2));
	assert_true(gt_fnv1a64_str("") == GT_FNV1A64_BASIS);
	assert_true(gt_fnv1a64_str(NULL) == GT_FNV1A64_BASIS);
	assert_true(gt_fnv1a64_str("ab\0cd") == gt_fnv1a64("ab", 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_string_form),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

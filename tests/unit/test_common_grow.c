/* test_common_grow.c: room for one more element (common/grow.c).
 *
 * The doubling rule (first size, then twice, contents kept, *cap updated only on success), the
 * no-op when there is room, and the failures that must leave the caller's array and capacity as
 * they were: a byte size that would overflow size_t, a capacity that cannot double, a first size
 * of 0. A failed realloc is not simulated here (the overflow cases take the same path back).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "common/grow.h"

static void test_doubles_from_first(void **state)
{
	(void)state;
	int *a = NULL;
	size_t n = 0, cap = 0;
	for (int i = 0; i < 1000; i++) {
		size_t before = cap;
		int *g = gt_grow(a, &cap, n, sizeof *a, 8);
		assert_non_null(g);
		if (n < before)
			assert_ptr_equal(g, a); /* room already: the same array, the same capacity */
		assert_true(cap == (n < before ? before : before ? before * 2 : 8));
		a = g;
		a[n++] = i;
	}
	assert_true(cap == 1024); /* 8, 16, ..., 1024 */
	for (int i = 0; i < 1000; i++)
		assert_int_equal(a[i], i);
	free(a);
}

static void test_failures_leave_the_array(void **state)
{
	(void)state;
	char *a = malloc(4);
	assert_non_null(a);
	size_t cap = 4;
	/* 8 elements of SIZE_MAX / 4 bytes: the byte size overflows. */
	assert_null(gt_grow(a, &cap, 4, SIZE_MAX / 4, 1));
	assert_true(cap == 4);
	/* A capacity that cannot double. */
	size_t huge = SIZE_MAX / 2 + 1;
	assert_null(gt_grow(a, &huge, huge, 1, 1));
	assert_true(huge == SIZE_MAX / 2 + 1);
	/* No first size: nothing that would hold one more element. */
	size_t zero = 0;
	assert_null(gt_grow(NULL, &zero, 0, 1, 0));
	assert_true(zero == 0);
	a[3] = 'x'; /* still the caller's, still 4 bytes */
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubles_from_first),
		cmocka_unit_test(test_failures_leave_the_array),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

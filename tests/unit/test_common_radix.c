/* test_common_radix.c: the stable radix sort (common/radix.c).
 *
 * Against a reference (qsort with the original position as tie-break, which makes it stable): bare
 * uint32_t arrays, bare uint64_t arrays, and 24-byte records keyed by their leading uint64_t whose
 * payload records where each came from, over narrow and wide key ranges (one pass, several, keys
 * spanning all 64 bits), sorted and reverse inputs; and the sizes it refuses, left unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/radix.h"

struct rec {
	uint64_t key, pos, pad;
};

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check_records(size_t n, uint64_t range)
{
	struct rec *a = malloc(n * sizeof *a), *ref = malloc(n * sizeof *ref);
	assert_true(a && ref);
	for (size_t i = 0; i < n; i++)
		a[i] = (struct rec){ range ? 1000 + next() % range : next(), i, 0 };
	memcpy(ref, a, n * sizeof *a);
	qsort(ref, n, sizeof *ref, cmp_rec);
	assert_int_equal(gt_radix_sort(a, n, sizeof *a), 0);
	assert_memory_equal(a, ref, n * sizeof *a); /* stable: equal keys keep their order */
	free(a);
	free(ref);
}

static void test_records(void **state)
{
	(void)state;
	check_records(0, 10);
	check_records(1, 10);
	check_records(1000, 7);          /* many ties, one pass */
	check_records(5000, 1u << 20);   /* two passes */
	check_records(5000, 1ull << 40); /* four passes */
	check_records(3000, 0);          /* the full 64 bits */
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void test_bare_keys(void **state)
{
	(void)state;
	enum { N = 4000 };
	uint32_t a[N], ra[N];
	uint64_t b[N], rb[N];
	for (size_t i = 0; i < N; i++) {
		ra[i] = a[i] = (uint32_t)next();
		rb[i] = b[i] = next() >> (i % 40);
	}
	qsort(ra, N, sizeof *ra, cmp_u32);
	qsort(rb, N, sizeof *rb, cmp_u64);
	assert_int_equal(gt_radix_sort(a, N, sizeof *a), 0);
	assert_int_equal(gt_radix_sort(b, N, sizeof *b), 0);
	assert_memory_equal(a, ra, sizeof a);
	assert_memory_equal(b, rb, sizeof b);
	/* Already sorted stays; reversed sorts. */
	assert_int_equal(gt_radix_sort(a, N, sizeof *a), 0);
	assert_memory_equal(a, ra, sizeof a);
	for (size_t i = 0; i < N; i++)
		b[i] = rb[N - 1 - i];
	assert_int_equal(gt_radix_sort(b, N, sizeof *b), 0);
	assert_memory_equal(b, rb, sizeof b);
}

static void test_refused_sizes(void **state)
{
	(void)state;
	unsigned char x[12] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11, 10 }, y[12];
	memcpy(y, x, sizeof x);
	assert_int_equal(gt_radix_sort(x, 6, 2), -1);
	assert_int_equal(gt_radix_sort(x, 1, 12), -1);
	assert_memory_equal(x, y, sizeof x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_bare_keys),
		cmocka_unit_test(test_refused_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

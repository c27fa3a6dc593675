/* test_analyze_wavelet.c: analyze/blocks/wavelet.c, the k-th smallest of a prefix of one order less a
 * prefix of another, which split's launch medians stand on when units overlap.
 *
 * Checked against the definition on random data: n elements with distinct value ranks, two random
 * orders of them, a prefix of the first and a prefix of the second inside it; every k of the
 * difference is compared with the sorted values of the difference, brute force. Sizes around the
 * word (64) and level (powers of two) boundaries, and the empty and one-element cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyze/blocks/wavelet.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void shuffle(uint32_t *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(rnd() % i);
		uint32_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* One size: elements 0..n-1 with value val[e]; order a and order b of the elements. */
static void check_size(size_t n)
{
	size_t m = n ? n : 1;
	uint32_t *val = malloc(m * sizeof *val), *oa = malloc(m * sizeof *oa), *ob = malloc(m * sizeof *ob);
	uint32_t *va = malloc(m * sizeof *va), *vb = malloc(m * sizeof *vb), *diff = malloc(m * sizeof *diff);
	unsigned char *in_a = malloc(m);
	assert_non_null(val && oa && ob && va && vb && diff && in_a);
	for (size_t i = 0; i < n; i++)
		val[i] = oa[i] = ob[i] = (uint32_t)i;
	shuffle(val, n);
	shuffle(oa, n);
	shuffle(ob, n);
	for (size_t i = 0; i < n; i++) {
		va[i] = val[oa[i]];
		vb[i] = val[ob[i]];
	}
	struct gt_wavelet wa, wb;
	assert_int_equal(gt_wavelet_build(&wa, va, n), 0);
	assert_int_equal(gt_wavelet_build(&wb, vb, n), 0);
	for (int q = 0; q < 40; q++) {
		size_t ia = n ? (size_t)(rnd() % (n + 1)) : 0;
		memset(in_a, 0, m);
		for (size_t i = 0; i < ia; i++)
			in_a[oa[i]] = 1;
		/* b's longest prefix inside a's, and a random prefix of that */
		size_t jmax = 0;
		while (jmax < n && in_a[ob[jmax]])
			jmax++;
		size_t jb = (size_t)(rnd() % (jmax + 1));
		for (size_t i = 0; i < jb; i++)
			in_a[ob[i]] = 0;
		size_t c = 0;
		for (size_t e = 0; e < n; e++)
			if (in_a[e])
				diff[c++] = val[e];
		qsort(diff, c, sizeof *diff, cmp_u32);
		assert_int_equal(c, ia - jb);
		for (size_t k = 0; k < c; k++)
			assert_int_equal(gt_wavelet_kth_diff(&wa, ia, &wb, jb, k), diff[k]);
	}
	gt_wavelet_release(&wa);
	gt_wavelet_release(&wb);
	gt_wavelet_release(NULL);
	free(val);
	free(oa);
	free(ob);
	free(va);
	free(vb);
	free(diff);
	free(in_a);
}

static void test_kth_diff_matches_brute_force(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 2, 3, 63, 64, 65, 127, 128, 129, 1000, 4096, 5000 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		check_size(sizes[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kth_diff_matches_brute_force),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

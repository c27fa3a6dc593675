/* test_analyze_timeline.c: analyze/blocks/timeline.c, the sort by time and the unions of intervals that
 * split, bandwidth and findings stand on.
 *
 * The sort is checked against a stable insertion of the same records (order of equal keys kept),
 * over keys spanning few and many bits, for the record sizes the engines use and an odd one; the
 * unions against a brute-force count of covered nanoseconds on small random intervals, which is
 * the definition of "covered" with nothing shared with the implementation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyze/blocks/timeline.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Records of `words` uint64_t: key, then the original position (to check stability), then filler. */
static void check_sort_keys(size_t n, size_t words, uint64_t base, uint64_t spread, int near);

static void check_sort(size_t n, size_t words, uint64_t base, uint64_t spread)
{
	check_sort_keys(n, words, base, spread, 0);
}

/* near: keys that increase with the index but for a local jitter (records of one kind in file
 * order, NVTX parents after their children): the insertion path; else random (the radix path,
 * after the insertion sort gives up part way). */
static void check_sort_keys(size_t n, size_t words, uint64_t base, uint64_t spread, int near)
{
	size_t size = words * 8;
	uint64_t *a = malloc(n * size), *ref = malloc(n * size);
	assert_non_null(a);
	assert_non_null(ref);
	for (size_t i = 0; i < n; i++) {
		uint64_t *r = a + i * words;
		r[0] = near ? base + i * 10 + rnd() % 35 : base + (spread ? rnd() % spread : 0);
		r[1] = i;
		for (size_t w = 2; w < words; w++)
			r[w] = r[0] ^ (w * 0x9e3779b97f4a7c15ull);
	}
	/* Reference: stable insertion sort. */
	memcpy(ref, a, n * size);
	for (size_t i = 1; i < n; i++) {
		uint64_t tmp[8];
		memcpy(tmp, ref + i * words, size);
		size_t j = i;
		while (j > 0 && ref[(j - 1) * words] > tmp[0]) {
			memcpy(ref + j * words, ref + (j - 1) * words, size);
			j--;
		}
		memcpy(ref + j * words, tmp, size);
	}
	assert_int_equal(gt_tl_sort(a, n, size), 0);
	assert_memory_equal(a, ref, n * size);
	free(a);
	free(ref);
}

static void test_sort_matches_stable_reference(void **state)
{
	(void)state;
	/* sizes 16, 24, 32, 40 (the engines') and 48 (the generic path); keys in 8 bits (many ties),
	 * 34 bits (10 s of ns), 63 bits (every digit pass) */
	for (size_t words = 2; words <= 6; words++) {
		check_sort(2000, words, 1ull << 60, 256);
		check_sort(2000, words, 1795964338794810408ull, 10000000000ull);
		check_sort(2000, words, 0, UINT64_MAX >> 1);
	}
	check_sort(1, 2, 5, 0);
	check_sort(0, 2, 5, 0);
	check_sort(100, 3, 77, 0); /* all keys equal: stays in file order */
	for (size_t words = 2; words <= 5; words++)
		check_sort_keys(5000, words, 1795964338794810408ull, 0, 1);
}

static void test_sort_leaves_sorted_input_alone(void **state)
{
	(void)state;
	uint64_t r[6] = { 1, 100, 2, 200, 2, 300 };
	uint64_t copy[6];
	memcpy(copy, r, sizeof r);
	assert_int_equal(gt_tl_sort(r, 3, 16), 0);
	assert_memory_equal(r, copy, sizeof r);
}

static void test_vec_push_grows_and_sorts(void **state)
{
	(void)state;
	struct gt_tl_vec v;
	gt_tl_vec_init(&v, 16);
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t *x = gt_tl_vec_push(&v);
		assert_non_null(x);
		x[0] = 100000 - i;
		x[1] = i;
	}
	assert_int_equal(v.n, 100000);
	assert_int_equal(gt_tl_vec_sort(&v), 0);
	for (size_t i = 0; i < v.n; i++) {
		const uint64_t *x = gt_tl_vec_at(&v, i);
		assert_int_equal(x[0], i + 1);
		assert_int_equal(x[1], 100000 - (i + 1));
	}
	gt_tl_vec_release(&v);
}

/* Covered nanoseconds of [a, b), counted one by one. */
static uint64_t brute_cover(const uint64_t (*iv)[2], size_t n, uint64_t a, uint64_t b)
{
	uint64_t c = 0;
	for (uint64_t t = a; t < b; t++) {
		for (size_t i = 0; i < n; i++) {
			if (iv[i][0] <= t && t < iv[i][1]) {
				c++;
				break;
			}
		}
	}
	return c;
}

static int cmp_start(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;
	return (a[0] > b[0]) - (a[0] < b[0]);
}

static void test_union_cover_matches_brute_force(void **state)
{
	(void)state;
	for (int round = 0; round < 50; round++) {
		uint64_t iv[40][2];
		size_t n = 1 + rnd() % 40;
		for (size_t i = 0; i < n; i++) {
			iv[i][0] = rnd() % 500;
			iv[i][1] = iv[i][0] + rnd() % 60; /* some empty (end == start) */
		}
		qsort(iv, n, sizeof iv[0], cmp_start);
		struct gt_tl_union u;
		gt_tl_union_init(&u);
		assert_int_equal(gt_tl_union_build(&u, iv, n, sizeof iv[0]), 0);
		assert_int_equal(u.total, brute_cover((const uint64_t (*)[2])iv, n, 0, 600));
		for (size_t i = 1; i < u.n; i++)
			assert_true(u.s[i].start > u.s[i - 1].end); /* disjoint, touching ones merged */
		for (int q = 0; q < 40; q++) {
			uint64_t a = rnd() % 600, b = rnd() % 600;
			uint64_t want = a < b ? brute_cover((const uint64_t (*)[2])iv, n, a, b) : 0;
			assert_int_equal(gt_tl_union_cover(&u, a, b), want);
		}
		gt_tl_union_release(&u);
	}
}

static void test_union_intersect_and_merge(void **state)
{
	(void)state;
	struct gt_tl_union a, b, out;
	gt_tl_union_init(&a);
	gt_tl_union_init(&b);
	gt_tl_union_init(&out);
	/* a: [0,10) [20,30) [40,50); b: [5,25) [45,60) */
	assert_int_equal(gt_tl_union_add(&a, 0, 10), 0);
	assert_int_equal(gt_tl_union_add(&a, 20, 30), 0);
	assert_int_equal(gt_tl_union_add(&a, 40, 50), 0);
	assert_int_equal(gt_tl_union_add(&b, 5, 25), 0);
	assert_int_equal(gt_tl_union_add(&b, 45, 60), 0);
	assert_int_equal(gt_tl_union_intersect(&a, &b, &out), 0);
	/* [5,10) [20,25) [45,50) */
	assert_int_equal(out.n, 3);
	assert_int_equal(out.total, 15);
	assert_int_equal(out.s[1].start, 20);
	assert_int_equal(out.s[1].end, 25);
	assert_int_equal(gt_tl_union_merge(&a, &b, &out), 0);
	/* [0,30) [40,60) */
	assert_int_equal(out.n, 2);
	assert_int_equal(out.total, 50);
	assert_int_equal(gt_tl_union_cover(&out, 25, 45), 10);
	assert_int_equal(gt_tl_union_find(&out, 30), 1); /* [0,30) ends at 30: not after it */
	assert_int_equal(gt_tl_union_find(&out, 29), 0);
	assert_int_equal(gt_tl_union_find(&out, 60), 2);
	gt_tl_union_release(&a);
	gt_tl_union_release(&b);
	gt_tl_union_release(&out);
}

/* The cursor gives, for windows whose starts do not decrease (and which may overlap, as units on
 * two threads do), the same covered lengths as the brute-force count; with a filter, only the
 * records whose tag matches count. Clipped spans are disjoint, ordered and inside the window. */
static void test_cursor_windows_match_brute_force(void **state)
{
	(void)state;
	for (int round = 0; round < 60; round++) {
		uint64_t iv[60][3]; /* start, end, tag (low 32 bits) */
		size_t n = 1 + rnd() % 60;
		for (size_t i = 0; i < n; i++) {
			iv[i][0] = rnd() % 800;
			iv[i][1] = iv[i][0] + rnd() % 70;
			iv[i][2] = rnd() % 2;
		}
		qsort(iv, n, sizeof iv[0], cmp_start);
		uint64_t only[60][2];
		size_t nonly = 0;
		for (size_t i = 0; i < n; i++)
			if (iv[i][2] == 1) {
				only[nonly][0] = iv[i][0];
				only[nonly++][1] = iv[i][1];
			}
		uint64_t all[60][2];
		for (size_t i = 0; i < n; i++) {
			all[i][0] = iv[i][0];
			all[i][1] = iv[i][1];
		}
		struct gt_tl_cursor c, f;
		gt_tl_cursor_init(&c, iv, n, sizeof iv[0], 0, 0);
		gt_tl_cursor_init(&f, iv, n, sizeof iv[0], 16, 1);
		uint64_t wa[30], wb[30], a = 0;
		for (int w = 0; w < 30; w++) {
			a += rnd() % 40;
			wa[w] = a;
			wb[w] = a + rnd() % 120; /* may reach past the next windows' starts */
		}
		for (int w = 0; w < 30; w++) {
			uint64_t next = w + 1 < 30 ? wa[w + 1] : UINT64_MAX;
			gt_tl_cursor_begin(&c, wa[w], wb[w], next);
			struct gt_tl_span x, prev = { 0, 0 };
			uint64_t total = 0;
			int k = 0, rc;
			while ((rc = gt_tl_cursor_next(&c, &x)) > 0) {
				assert_true(x.start >= wa[w] && x.end <= wb[w] && x.start < x.end);
				if (k++)
					assert_true(x.start > prev.end);
				prev = x;
				total += x.end - x.start;
			}
			assert_int_equal(rc, 0);
			assert_int_equal(total, brute_cover((const uint64_t (*)[2])all, n, wa[w], wb[w]));
			uint64_t sum = 0;
			assert_int_equal(gt_tl_cursor_sum(&f, wa[w], wb[w], next, &sum), 0);
			assert_int_equal(sum, brute_cover((const uint64_t (*)[2])only, nonly, wa[w], wb[w]));
		}
		gt_tl_cursor_release(&c);
		gt_tl_cursor_release(&f);
	}
}

static void test_span_lists(void **state)
{
	(void)state;
	const struct gt_tl_span x[] = { { 0, 10 }, { 20, 30 } }, y[] = { { 5, 25 }, { 30, 40 } };
	struct gt_tl_span out[4];
	assert_int_equal(gt_tl_spans_overlap(x, 2, y, 2), 10); /* [5,10) [20,25) */
	size_t n = gt_tl_spans_merge(x, 2, y, 2, out);
	assert_int_equal(n, 1); /* [0,40): [20,30) touches [30,40) */
	assert_int_equal(out[0].start, 0);
	assert_int_equal(out[0].end, 40);
	assert_int_equal(gt_tl_spans_total(x, 2), 20);
	assert_int_equal(gt_tl_spans_merge(x, 0, y, 0, out), 0);
}

static void test_event_time(void **state)
{
	(void)state;
	struct gt_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = GT_REC_KERNEL;
	ev.u.kernel.start = 123;
	assert_int_equal(gt_tl_event_time(&ev), 123);
	ev.u.kernel.flags = GT_KERNEL_BAD_TIMES; /* its times are not to be trusted, origin included */
	assert_int_equal(gt_tl_event_time(&ev), 0);
	ev.type = GT_REC_PROCESS;
	ev.u.process.timestamp = 77;
	assert_int_equal(gt_tl_event_time(&ev), 77);
	ev.type = GT_REC_STRING;
	assert_int_equal(gt_tl_event_time(&ev), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_matches_stable_reference),
		cmocka_unit_test(test_sort_leaves_sorted_input_alone),
		cmocka_unit_test(test_vec_push_grows_and_sorts),
		cmocka_unit_test(test_union_cover_matches_brute_force),
		cmocka_unit_test(test_union_intersect_and_merge),
		cmocka_unit_test(test_cursor_windows_match_brute_force),
		cmocka_unit_test(test_span_lists),
		cmocka_unit_test(test_event_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

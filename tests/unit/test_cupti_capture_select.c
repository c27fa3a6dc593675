/* test_cupti_capture_select.c: which launches shadow capture takes (cupti/capture_select.c).
 *
 * The pattern is matched against the mangled name, the demangled signature and the bare name; a
 * table-driven fake demangler stands in for __cxa_demangle so that these tests do not depend on
 * libstdc++ (one test uses the real one when libstdc++ can be loaded, and says so when not). The
 * spread rule is checked over long runs of launches, with skips and with captures in flight; the
 * byte budget at its edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti/capture_select.h"

static const char *const demangled[][2] = {
	{ "_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)" },
	{ "_Z14saxpy_noboundsifPKfPf", "saxpy_nobounds(int, float, float const*, float*)" },
	{ "_Z10reduce_sumPKfPfi", "reduce_sum(float const*, float*, int)" },
	{ "_Z2tkIfEvPT_S0_", "void tk<float>(float*, float)" },
	{ "_ZN2ns5innerEPi", "ns::inner(int*)" },
	{ "_Z9compositePK5SplatiP6float4ii", "composite(Splat const*, int, float4*, int, int)" },
};

static int fake_calls;

/* __cxa_demangle's contract: a malloc'ed string and status 0, or NULL and status -2. */
static char *fake_demangle(const char *m, char *buf, size_t *len, int *status)
{
	(void)buf;
	(void)len;
	fake_calls++;
	for (size_t i = 0; i < sizeof demangled / sizeof demangled[0]; i++) {
		if (strcmp(m, demangled[i][0]) == 0) {
			*status = 0;
			return strdup(demangled[i][1]);
		}
	}
	*status = -2;
	return NULL;
}

static int sel(const char *pattern, const char *mangled)
{
	struct capture_pattern p;
	char why[256];
	assert_int_equal(capture_pattern_compile(&p, pattern, why, sizeof why), 0);
	int hit = capture_pattern_match(&p, mangled, fake_demangle);
	capture_pattern_free(&p);
	return hit;
}

static void test_glob_matches_mangled_demangled_and_bare_names(void **state)
{
	(void)state;
	/* bare name */
	assert_true(sel("saxpy", "_Z5saxpyifPKfPf"));
	assert_false(sel("saxpy", "_Z14saxpy_noboundsifPKfPf"));
	assert_true(sel("saxpy*", "_Z5saxpyifPKfPf"));
	assert_true(sel("saxpy*", "_Z14saxpy_noboundsifPKfPf"));
	assert_false(sel("saxpy*", "_Z10reduce_sumPKfPfi"));
	/* mangled */
	assert_true(sel("_Z5saxpy*", "_Z5saxpyifPKfPf"));
	assert_false(sel("_Z5saxpy*", "_Z14saxpy_noboundsifPKfPf"));
	/* demangled signature */
	assert_true(sel("saxpy(int, float, *)", "_Z5saxpyifPKfPf"));
	assert_true(sel("*float const\\**", "_Z10reduce_sumPKfPfi"));
	/* templates and namespaces: the bare name drops the return type */
	assert_true(sel("tk<float>", "_Z2tkIfEvPT_S0_"));
	assert_true(sel("tk<*>", "_Z2tkIfEvPT_S0_"));
	assert_true(sel("void tk<float>(*", "_Z2tkIfEvPT_S0_"));
	assert_true(sel("ns::inner", "_ZN2ns5innerEPi"));
	assert_true(sel("ns::*", "_ZN2ns5innerEPi"));
	assert_false(sel("inner", "_ZN2ns5innerEPi"));
	/* extern "C": the mangled name is the name */
	assert_true(sel("plain", "plain"));
	assert_true(sel("*", "plain"));
	assert_false(sel("plain", "plainer"));
	assert_false(sel("*", ""));
}

static void test_regex_is_a_search_unless_anchored(void **state)
{
	(void)state;
	assert_true(sel("/saxpy/", "_Z5saxpyifPKfPf"));
	assert_true(sel("/saxpy/", "_Z14saxpy_noboundsifPKfPf"));
	assert_true(sel("/^saxpy$/", "_Z5saxpyifPKfPf"));
	assert_false(sel("/^saxpy$/", "_Z14saxpy_noboundsifPKfPf"));
	assert_true(sel("/^(saxpy|reduce_sum)$/", "_Z10reduce_sumPKfPfi"));
	assert_true(sel("/^_Z9composite/", "_Z9compositePK5SplatiP6float4ii"));
	assert_true(sel("/Splat const\\*/", "_Z9compositePK5SplatiP6float4ii"));
	assert_false(sel("/^composite$/", "_Z10reduce_sumPKfPfi"));
	/* A lone slash is a glob. */
	assert_true(sel("/", "/"));
}

static void test_without_demangler_only_the_mangled_name(void **state)
{
	(void)state;
	struct capture_pattern p;
	char why[256];
	assert_int_equal(capture_pattern_compile(&p, "saxpy", why, sizeof why), 0);
	assert_false(capture_pattern_match(&p, "_Z5saxpyifPKfPf", NULL));
	assert_true(capture_pattern_match(&p, "saxpy", NULL));
	capture_pattern_free(&p);
	/* The demangler is only asked when the mangled name did not match. */
	fake_calls = 0;
	assert_true(sel("_Z5*", "_Z5saxpyifPKfPf"));
	assert_int_equal(fake_calls, 0);
	assert_true(sel("saxpy", "_Z5saxpyifPKfPf"));
	assert_int_equal(fake_calls, 1);
}

static void test_bad_patterns_are_refused_with_a_reason(void **state)
{
	(void)state;
	struct capture_pattern p;
	char why[256] = "";
	assert_int_equal(capture_pattern_compile(&p, "", why, sizeof why), -1);
	assert_non_null(strstr(why, "empty"));
	assert_int_equal(capture_pattern_compile(&p, NULL, why, sizeof why), -1);
	assert_int_equal(capture_pattern_compile(&p, "//", why, sizeof why), -1);
	assert_non_null(strstr(why, "empty regex"));
	why[0] = 0;
	assert_int_equal(capture_pattern_compile(&p, "/sax(py/", why, sizeof why), -1);
	assert_non_null(strstr(why, "bad regex /sax(py/"));
	char longp[600];
	memset(longp, 'a', sizeof longp - 1);
	longp[sizeof longp - 1] = 0;
	assert_int_equal(capture_pattern_compile(&p, longp, why, sizeof why), -1);
	assert_non_null(strstr(why, "longer"));
}

static void bare(const char *d, const char *want)
{
	char out[128];
	size_t n = capture_bare_name(d, out, sizeof out);
	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
}

static void test_bare_name(void **state)
{
	(void)state;
	bare("saxpy(int, float, float const*, float*)", "saxpy");
	bare("void tk<float>(float*, float)", "tk<float>");
	bare("void ns::k<int, 2>(int*)", "ns::k<int, 2>");
	bare("(anonymous namespace)::k(int)", "(anonymous namespace)::k");
	bare("void at::native::(anonymous namespace)::f<unsigned int>(unsigned int*)",
	     "at::native::(anonymous namespace)::f<unsigned int>");
	bare("void f(int (*)(int), int)", "f");
	bare("std::enable_if<true, void>::type g<8>(float*)", "g<8>");
	bare("plain", "plain");
	bare("k(int)  ", "k");
	bare("", "");
	/* cut to the buffer, length still the whole name */
	char small[4];
	assert_int_equal(capture_bare_name("void tk<float>(float*)", small, sizeof small), 9);
	assert_string_equal(small, "tk<");
	assert_int_equal(capture_bare_name("saxpy(int)", NULL, 0), 5);
}

static void test_real_demangler_when_libstdcxx_is_there(void **state)
{
	(void)state;
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		skip(); /* no libstdc++ on this machine: the fake above covers the logic */
		return;
	}
	capture_demangle_fn dm = capture_find_demangler();
	assert_non_null(dm);
	int st = -1;
	char *d = dm("_Z5saxpyifPKfPf", NULL, NULL, &st);
	assert_int_equal(st, 0);
	assert_string_equal(d, "saxpy(int, float, float const*, float*)");
	free(d);
	struct capture_pattern p;
	char why[256];
	assert_int_equal(capture_pattern_compile(&p, "/^ns::inner$/", why, sizeof why), 0);
	assert_true(capture_pattern_match(&p, "_ZN2ns5innerEPi", dm));
	assert_false(capture_pattern_match(&p, "_ZN2ns6innerxEPi", dm));
	assert_false(capture_pattern_match(&p, "not_mangled", dm));
	capture_pattern_free(&p);
	dlclose(h);
}

/* A name whose demangled form doubles at each of its 31 levels (312 bytes, some 56 GB) is never
 * handed to the demangler: it is matched mangled only, and the mangled match still works. */
static void test_names_over_the_demangling_caps_are_not_demangled(void **state)
{
	(void)state;
	char name[512] = "_Z1f1AIS_S_E";
	for (int i = 1; i < 31; i++) {
		char seq[8]; /* S<i-1>_ (base 36): the previous level */
		snprintf(seq, sizeof seq, "S%c_", "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i - 1]);
		size_t n = strlen(name);
		snprintf(name + n, sizeof name - n, "S_I%s%sE", seq, seq);
	}
	assert_int_equal(strlen(name), 312);
	fake_calls = 0;
	assert_false(sel("f", name));
	assert_int_equal(fake_calls, 0);
	assert_true(sel("_Z1f1A*", name));
	/* A normal name still asks it. */
	assert_true(sel("reduce_sum", "_Z10reduce_sumPKfPfi"));
	assert_int_equal(fake_calls, 1);
}

/* ---- spread ------------------------------------------------------------------------------------ */

/* Runs n launches, each captured when claimed; returns how many, with their indices in got. */
static int run(struct capture_spread *s, unsigned max, uint64_t n, uint64_t *got, int cap)
{
	int k = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t idx;
		if (capture_spread_claim(s, max, &idx)) {
			assert_int_equal(idx, i);
			assert_true(k < cap);
			got[k++] = idx;
			capture_spread_done(s, idx, 1);
		}
	}
	return k;
}

static void test_spread_default_cap_takes_first_launches(void **state)
{
	(void)state;
	struct capture_spread s = { 0 };
	uint64_t got[16];
	assert_int_equal(run(&s, 3, 1000, got, 16), 3);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2], 2);
	assert_int_equal(s.launches, 1000);
	assert_int_equal(s.captured, 3);
}

static void test_spread_geometric_over_a_long_run(void **state)
{
	(void)state;
	struct capture_spread s = { 0 };
	uint64_t got[32];
	int n = run(&s, 12, 1u << 20, got, 32);
	assert_int_equal(n, 12);
	const uint64_t want[] = { 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 };
	for (int i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
	/* A run shorter than the cap reaches: every power of two that exists. */
	struct capture_spread t = { 0 };
	n = run(&t, 100, 20, got, 32);
	assert_int_equal(n, 6); /* 0 1 2 4 8 16 */
	assert_int_equal(got[5], 16);
	/* Cap 1: only the first launch. */
	struct capture_spread u = { 0 };
	assert_int_equal(run(&u, 1, 50, got, 32), 1);
	assert_int_equal(got[0], 0);
}

static void test_spread_skipped_launch_passes_its_turn(void **state)
{
	(void)state;
	struct capture_spread s = { 0 };
	uint64_t idx, got[8];
	int k = 0;
	for (uint64_t i = 0; i < 40; i++) {
		if (!capture_spread_claim(&s, 6, &idx))
			continue;
		/* launches 0 and 4 cannot be captured (say, their stream is being captured) */
		int ok = !(idx == 0 || idx == 4);
		capture_spread_done(&s, idx, ok);
		if (ok)
			got[k++] = idx;
	}
	/* 0 skipped -> 1 taken -> 2 -> 4 skipped -> 5 -> 10 -> 20 */
	const uint64_t want[] = { 1, 2, 5, 10, 20 };
	assert_int_equal(k, 5);
	for (int i = 0; i < k; i++)
		assert_int_equal(got[i], want[i]);
	assert_int_equal(s.captured, 5);
	assert_int_equal(s.inflight, 0);
}

static void test_spread_counts_captures_in_flight_against_the_cap(void **state)
{
	(void)state;
	/* Two threads: launches 0 and 1 claimed and not yet finished, cap 2: launch 2 is refused
	 * even though 2 >= next. */
	struct capture_spread s = { 0 };
	uint64_t a, b, c;
	assert_true(capture_spread_claim(&s, 2, &a));
	assert_true(capture_spread_claim(&s, 2, &b));
	assert_false(capture_spread_claim(&s, 2, &c));
	assert_int_equal(s.inflight, 2);
	/* One of them fails: a later launch may take its place. */
	capture_spread_done(&s, b, 0);
	capture_spread_done(&s, a, 1);
	assert_true(capture_spread_claim(&s, 2, &c));
	assert_int_equal(c, 3);
	capture_spread_done(&s, c, 1);
	assert_false(capture_spread_claim(&s, 2, &c));
	assert_int_equal(s.captured, 2);
}

/* ---- budget -------------------------------------------------------------------------------------- */

static void test_byte_cap(void **state)
{
	(void)state;
	struct capture_budget b = { .limit = 1000, .used = 0 };
	assert_true(capture_budget_reserve(&b, 600));
	assert_false(capture_budget_reserve(&b, 401)); /* past the cap: nothing reserved */
	assert_int_equal(b.used, 600);
	assert_true(capture_budget_reserve(&b, 400));  /* exactly to the cap */
	assert_int_equal(b.used, 1000);
	assert_false(capture_budget_reserve(&b, 1));
	assert_true(capture_budget_reserve(&b, 0));    /* a launch with scalars only */
	capture_budget_release(&b, 300);               /* a copy that failed */
	assert_true(capture_budget_reserve(&b, 300));
	capture_budget_release(&b, 5000);              /* never below zero */
	assert_int_equal(b.used, 0);
	/* No overflow near the top of the range. */
	struct capture_budget big = { .limit = UINT64_MAX - 10, .used = UINT64_MAX - 20 };
	assert_false(capture_budget_reserve(&big, UINT64_MAX));
	assert_false(capture_budget_reserve(&big, 11));
	assert_true(capture_budget_reserve(&big, 10));
	/* Cap 0: no device memory at all. */
	struct capture_budget zero = { .limit = 0, .used = 0 };
	assert_false(capture_budget_reserve(&zero, 1));
	assert_true(capture_budget_reserve(&zero, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob_matches_mangled_demangled_and_bare_names),
		cmocka_unit_test(test_regex_is_a_search_unless_anchored),
		cmocka_unit_test(test_without_demangler_only_the_mangled_name),
		cmocka_unit_test(test_names_over_the_demangling_caps_are_not_demangled),
		cmocka_unit_test(test_bad_patterns_are_refused_with_a_reason),
		cmocka_unit_test(test_bare_name),
		cmocka_unit_test(test_real_demangler_when_libstdcxx_is_there),
		cmocka_unit_test(test_spread_default_cap_takes_first_launches),
		cmocka_unit_test(test_spread_geometric_over_a_long_run),
		cmocka_unit_test(test_spread_skipped_launch_passes_its_turn),
		cmocka_unit_test(test_spread_counts_captures_in_flight_against_the_cap),
		cmocka_unit_test(test_byte_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

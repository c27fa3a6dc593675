/* test_common_demangler.c: finding __cxa_demangle at run time (common/demangler.c).
 *
 * The test binary links no C++ runtime, so at first the process has no demangler: asked for what
 * is loaded only (the recorder's and the capture selector's way, inside a traced program), the
 * lookup must find none and must not load libstdc++; allowed to load it (the analyzer's and the
 * replay worker's way), it finds one that demangles. Once a library loaded RTLD_GLOBAL (as a C++
 * program has it) brings the symbol, the loaded-only lookup finds it too. Where libstdc++.so.6 is
 * not installed the loading cases are skipped and the loaded-only one still runs. The tests run in
 * this order, each relying on what the one before left loaded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdlib.h>

#include "common/demangler.h"

static int libstdcxx_loaded(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (h)
		dlclose(h); /* drops the reference NOLOAD took; the library stays */
	return h != NULL;
}

/* A name of the kind CUDA reports, through fn: status 0 and the signature a person reads. */
static void demangles(gt_cxa_demangle_fn fn)
{
	assert_non_null(fn);
	int status = -1;
	char *shown = fn("_ZN2ns1kIiEEvPT_", NULL, NULL, &status);
	assert_int_equal(status, 0);
	assert_non_null(shown);
	assert_string_equal(shown, "void ns::k<int>(int*)");
	free(shown);
}

static void test_loaded_only_loads_nothing(void **state)
{
	(void)state;
	if (libstdcxx_loaded()) {
		skip(); /* something (a sanitizer runtime) brought it: nothing to show here */
		return;
	}
	assert_null(gt_demangler_find(GT_DEMANGLER_LOADED));
	assert_false(libstdcxx_loaded());
}

static void test_may_load_finds_it(void **state)
{
	(void)state;
	gt_cxa_demangle_fn fn = gt_demangler_find(GT_DEMANGLER_MAY_LOAD);
	if (!fn) {
		/* Acceptable only where the library cannot be loaded at all. */
		assert_null(dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL));
		skip(); /* no libstdc++ on this machine */
		return;
	}
	demangles(fn);
	assert_true(libstdcxx_loaded());
	/* Asked again, it answers the same function (from the library it loaded, RTLD_LOCAL). */
	assert_ptr_equal(gt_demangler_find(GT_DEMANGLER_MAY_LOAD), fn);
}

static void test_loaded_only_finds_a_global_one(void **state)
{
	(void)state;
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		skip();
		return;
	}
	demangles(gt_demangler_find(GT_DEMANGLER_LOADED));
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loaded_only_loads_nothing),
		cmocka_unit_test(test_may_load_finds_it),
		cmocka_unit_test(test_loaded_only_finds_a_global_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

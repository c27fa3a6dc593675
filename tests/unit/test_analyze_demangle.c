/* test_analyze_demangle.c: kernel names the traced program chose against the analyzer's name
 * handling: demangling (analyze/support/demangle.c), its caps (common/mangled.c), and the base and short
 * names derived from a name (analyze/support/kname.c).
 *
 * The hostile names are the ones outsiders found: short nested components that do not demangle
 * ("_ZN1a1a...E!"), whose base name was written past its buffer by report and shadow; "<>" pairs,
 * which findings' short name wrote past its buffer; and names whose demangled form doubles at each
 * level (each template refers twice to the one before, S<n>_S<n>_): at 272 bytes summary took 40 s,
 * 5 GB and printed 3.5 GB, at 312 bytes it ran out of time and memory. Run under the sanitizer
 * build (make check-san), the first two prove that no byte lands outside a buffer; the third is
 * checked by the size of what comes back, never by a clock. Normal names must still demangle
 * exactly as before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/support/demangle.h"
#include "analyze/support/diag.h"
#include "analyze/support/kname.h"
#include "common/mangled.h"

/* "S_" for candidate 0, then "S<base 36 of i-1>_", as the Itanium ABI numbers substitutions. */
static void put_seq(char **p, unsigned i)
{
	if (i == 0) {
		*p += sprintf(*p, "S_");
		return;
	}
	char d[16];
	int n = 0;
	unsigned v = i - 1;
	do {
		d[n++] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v % 36];
		v /= 36;
	} while (v);
	*(*p)++ = 'S';
	while (n)
		*(*p)++ = d[--n];
	*(*p)++ = '_';
	**p = '\0';
}

/* f(A<A, A>, A<A<A, A>, A<A, A> >, ...) with `levels` parameters, each twice the one before:
 * "_Z1f1AIS_S_E" then "S_I S<i>_ S<i>_ E" per level. 27 levels: 272 bytes, 3.5 GB demangled;
 * 31 levels (tests/data/bad/timeout-summary-name-expo.gtrace): 312 bytes, some 56 GB. */
static char *doubling_name(unsigned levels)
{
	char *s = malloc(16 + 16 * (size_t)levels), *p = s;
	assert_non_null(s);
	p += sprintf(p, "_Z1f1AIS_S_E");
	for (unsigned i = 1; i < levels; i++) {
		p += sprintf(p, "S_I");
		put_seq(&p, i);
		put_seq(&p, i);
		*p++ = 'E';
		*p = '\0';
	}
	return s;
}

/* "_ZN" + "1a" x n + "E!": a nested name that does not demangle (the '!'). */
static char *nested_name(size_t n)
{
	char *s = malloc(2 * n + 8), *p = s;
	assert_non_null(s);
	p += sprintf(p, "_ZN");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "1a");
	sprintf(p, "E!");
	return s;
}

/* Run first: the warning is said once per process. Two refused names, one line; the first holds
 * a line feed and an escape, which the warning must not pass to a terminal. */
static void test_refusal_warns_once(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	gt_diag_set_stream(m);
	char *a = doubling_name(31), *b = doubling_name(40);
	a[4] = '\n';
	a[5] = '\033';
	char *da = gt_demangle(a), *db = gt_demangle(b);
	gt_diag_flush(); /* held (failure.h) until the command says it */
	gt_diag_set_stream(NULL);
	assert_int_equal(fclose(m), 0);
	assert_string_equal(da, a);
	assert_string_equal(db, b);
	assert_non_null(strstr(buf, "gpuanalyze: warning: kernel name '_Z1f??IS_S_ES_IS0_S0_E"));
	assert_null(strchr(buf, '\033'));
	assert_non_null(strstr(buf, "(312 bytes) left mangled: its demangled form would pass 65536 bytes"));
	assert_true(len > 0);
	assert_ptr_equal(strchr(buf, '\n'), buf + len - 1); /* one line */
	free(da);
	free(db);
	free(a);
	free(b);
	free(buf);
}

static void expect_demangled(const char *mangled, const char *want)
{
	char *d = gt_demangle(mangled);
	assert_non_null(d);
	assert_string_equal(d, want);
	free(d);
}

/* What the golden outputs show, unchanged. */
static void test_normal_names_demangle_as_before(void **state)
{
	(void)state;
	expect_demangled("histogram_kernel", "histogram_kernel");
	expect_demangled("", "");
	if (!gt_demangle_available())
		skip();
	expect_demangled("_Z9compositePK5SplatPfi", "composite(Splat const*, float*, int)");
	expect_demangled("_Z5applyIN6thrust4plusIiEEEvT_", "void apply<thrust::plus<int> >(thrust::plus<int>)");
	expect_demangled("_Z6reducePKfPfi", "reduce(float const*, float*, int)");
	expect_demangled("_ZN2ns5innerEPi", "ns::inner(int*)");
	/* Not a valid name: kept as it is. */
	expect_demangled("_Z", "_Z");
	expect_demangled("_ZN1aE!", "_ZN1aE!");
}

/* Real names (nvcc, thrust, CUTLASS-like, PyTorch): the estimate is never below what libstdc++
 * prints, and all are within the caps (demangled). */
static void test_estimate_bounds_real_names(void **state)
{
	(void)state;
	if (!gt_demangle_available())
		skip();
	static const char *const names[] = {
		"_Z9compositePK5SplatPKjS3_P6float4ii",
		"_ZN6thrust8cuda_cub4core13_kernel_agentINS0_14__parallel_for16ParallelForAgentINS0_20__"
		"uninitialized_fill7functorINS_10device_ptrIiEEiEEmEES9_mEEvT0_T1_",
		"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_23direct_copy_kernel_cudaERNS_"
		"18TensorIteratorBaseEENKUlvE1_clEvENKUlvE7_clEvEUlfE_NS_6detail5ArrayIPcLi2EEEEEviT0_T1_",
		"_ZN4llvm12hash_combineIJhhjiNS_9hash_codeEEEES1_DpRKT_",
		"_ZN8internal5gemvx6kernelIii13__nv_bfloat16S2_S2_fLb0ELb0ELb0ELb0ELi5ELb0E18cublasGemvParams"
		"ExIi23cublasGemvTensorBatchedIKS2_ES6_S4_IS2_EfEEENSt9enable_ifIXntT5_EvE4typeET11_",
		"_ZN2at6native54_GLOBAL__N__d8ceb000_21_DistributionNormal_cu_0c5b6e8543distribution_"
		"elementwise_grid_stride_kernelIfLi4EZNS0_9templates4cuda20normal_and_transformIffPNS_17"
		"CUDAGeneratorImplEZZZNS4_13normal_kernelIS7_EEvRKNS_10TensorBaseEddT_ENKUlvE_clEvENKUlvE0_"
		"clEvEUlfE_EEvRNS_18TensorIteratorBaseET1_T2_EUlP24curandStatePhilox4_32_10E0_ZNS1_27"
		"distribution_nullary_kernelIff6float4S7_SM_SF_EEvSH_SJ_RKT3_T4_EUlifE_EEvlNS_15Philox"
		"CudaStateESI_SJ_",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t est;
		assert_int_equal(gt_mangled_check(names[i], &est), GT_MANGLED_OK);
		char *d = gt_demangle(names[i]);
		assert_non_null(d);
		assert_string_not_equal(d, names[i]);
		assert_true(est >= strlen(d));
		free(d);
	}
}

/* The doubling name at every depth: what comes back is never more than the cap, whether it was
 * demangled (few levels) or refused (many); beyond the cap the name stays as it is. */
static void test_doubling_name_is_bounded(void **state)
{
	(void)state;
	for (unsigned levels = 2; levels <= 200; levels++) {
		char *m = doubling_name(levels);
		char *d = gt_demangle(m);
		assert_non_null(d);
		assert_true(strlen(d) <= GT_DEMANGLE_MAX_DEMANGLED);
		size_t est;
		enum gt_mangled_verdict v = gt_mangled_check(m, &est);
		if (v == GT_MANGLED_OK) {
			if (gt_demangle_available())
				assert_true(est >= strlen(d));
		} else {
			assert_int_equal(v, GT_MANGLED_TOO_LARGE);
			assert_string_equal(d, m);
		}
		/* 2^levels: refused well before the demangled form could pass the cap. */
		if (levels >= 13)
			assert_int_equal(v, GT_MANGLED_TOO_LARGE);
		if (levels <= 10)
			assert_int_equal(v, GT_MANGLED_OK);
		free(d);
		free(m);
	}
}

static void test_length_and_depth_caps(void **state)
{
	(void)state;
	size_t n = GT_DEMANGLE_MAX_MANGLED + 1;
	char *m = malloc(n + 1);
	assert_non_null(m);
	memcpy(m, "_Z1f", 4);
	memset(m + 4, 'i', n - 4);
	m[n] = '\0';
	assert_int_equal(gt_mangled_check(m, NULL), GT_MANGLED_TOO_LONG);
	char *d = gt_demangle(m);
	assert_string_equal(d, m);
	free(d);
	/* At the cap, and small when demangled (one long identifier): allowed. */
	memcpy(m, "_Z16377", 7);
	memset(m + 7, 'a', 16377);
	m[GT_DEMANGLE_MAX_MANGLED] = '\0';
	assert_int_equal(gt_mangled_check(m, NULL), GT_MANGLED_OK);
	memcpy(m, "_Z1f", 4);
	/* f(int***...*): 300 pointers deep is refused, 200 is not. */
	memset(m + 4, 'P', 300);
	strcpy(m + 304, "i");
	assert_int_equal(gt_mangled_check(m, NULL), GT_MANGLED_TOO_DEEP);
	memset(m + 4, 'P', 200);
	strcpy(m + 204, "i");
	assert_int_equal(gt_mangled_check(m, NULL), GT_MANGLED_OK);
	free(m);
	assert_int_equal(gt_mangled_check("histogram_kernel", NULL), GT_MANGLED_NOT_MANGLED);
	assert_int_equal(gt_mangled_check(NULL, NULL), GT_MANGLED_NOT_MANGLED);
	/* Truncated and odd inputs end the scan without reading past the name. */
	static const char *const odd[] = { "_Z", "_ZN", "_Z1", "_Z9abc", "_ZS", "_ZS_", "_ZT", "_Z1fI",
		"_Z1fIXntT5_", "_Z1fLi", "_Z1fDp", "_ZZ", "_Z1fUl", "_Z1fA", "_Z1fM1a", "_Z1fF", "_Z1fSt",
		"_Z1fDv4_", "_Z1fIJ", "_Z99999999999999999999999a" };
	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
		enum gt_mangled_verdict v = gt_mangled_check(odd[i], NULL);
		assert_true(v == GT_MANGLED_OK || v == GT_MANGLED_TOO_LARGE);
		char *o = gt_demangle(odd[i]);
		assert_non_null(o);
		free(o);
	}
}

/* Short nested components that do not demangle: the base name is every component, however many
 * (it once overflowed past 71 of them). */
static void test_base_name_of_undemangled_nested_names(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 600; n += (n < 100 ? 1 : 37)) {
		char *m = nested_name(n);
		char *d = gt_demangle(m);
		assert_string_equal(d, m); /* does not demangle */
		char *b = gt_kernel_base_name(m, d);
		assert_non_null(b);
		assert_int_equal(strlen(b), 3 * n - 2);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(b[3 * i], 'a');
			if (i + 1 < n)
				assert_memory_equal(b + 3 * i + 1, "::", 2);
		}
		free(b);
		free(d);
		free(m);
	}
	/* Lengths larger than what is left, or larger than any integer: the name as it is. */
	static const char *const odd[] = { "_Z99999999999999999999999a", "_ZN5ab", "_ZN0a", "_Z" };
	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
		char *b = gt_kernel_base_name(odd[i], odd[i]);
		assert_string_equal(b, odd[i]);
		free(b);
	}
	char *b = gt_kernel_base_name("_ZN2ns1kE!", "_ZN2ns1kE!");
	assert_string_equal(b, "ns::k");
	free(b);
	b = gt_kernel_base_name("_Z5saxpyifPKfPf", "saxpy(int, float, float const*, float*)");
	assert_string_equal(b, "saxpy");
	free(b);
	b = gt_kernel_base_name("_Z1fIiEvPi", "void ns::f<int>(int*)");
	assert_string_equal(b, "ns::f<int>");
	free(b);
}

/* "<>" pairs grow as each becomes "<...>": the short name is the first 97 bytes and "...". */
static void test_short_name_of_angle_pairs(void **state)
{
	(void)state;
	for (size_t n = 0; n <= 400; n += 7) {
		char *m = malloc(2 * n + 2);
		assert_non_null(m);
		m[0] = 'k';
		for (size_t i = 0; i < n; i++)
			memcpy(m + 1 + 2 * i, "<>", 2);
		m[1 + 2 * n] = '\0';
		char *s = gt_kernel_short_name(m);
		assert_non_null(s);
		size_t want = 1 + 5 * n;
		if (want > 100) {
			assert_int_equal(strlen(s), 100);
			assert_string_equal(s + 97, "...");
		} else {
			assert_int_equal(strlen(s), want);
		}
		assert_int_equal(s[0], 'k');
		for (size_t i = 0; i < n && 1 + 5 * i + 5 <= 97; i++)
			assert_memory_equal(s + 1 + 5 * i, "<...>", 5);
		free(s);
		free(m);
	}
	char *s = gt_kernel_short_name("");
	assert_string_equal(s, "(unnamed)");
	free(s);
	if (!gt_demangle_available())
		return;
	s = gt_kernel_short_name("_Z5applyIN6thrust4plusIiEEEvT_");
	assert_string_equal(s, "apply<...>");
	free(s);
	s = gt_kernel_short_name("_ZN2ns5innerEPi");
	assert_string_equal(s, "inner");
	free(s);
}

/* Labels side by side: two template instances whose short names are equal ("chain<...>") get
 * their base names; overloads, equal in base name too, their demangled names; a kernel alone, or
 * the same name twice (one kernel on two devices), keeps its short name. */
static void test_labels_told_apart(void **state)
{
	(void)state;
	if (!gt_demangle_available())
		skip();
	const char *names[] = { "_Z5chainIfEvPKfPfiff", "_Z5triadPfPKfS1_fj", "_Z5chainIdEvPKdPdidd",
		                "_Z1kPf", "_Z1kPi", "_Z5triadPfPKfS1_fj" };
	const char *want[] = { "chain<float>", "triad", "chain<double>", "k(float*)", "k(int*)", "triad" };
	char *out[6];
	assert_int_equal(gt_kernel_labels(names, 6, out), 0);
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(out[i], want[i]);
		free(out[i]);
	}
	assert_int_equal(gt_kernel_labels(names, 0, out), 0);
	assert_int_equal(gt_kernel_labels(names, 1, out), 0);
	assert_string_equal(out[0], "chain<...>");
	free(out[0]);
}

/* The run's budget for demangled text (GT_DEMANGLE_MAX_TOTAL): 11 levels of doubling_name make
 * 26 KB each, within the per-name cap, so a few thousand of them pass 64 MiB; after that a name is
 * handed back mangled. Last in this file: the budget is the process's. */
static void test_total_budget(void **state)
{
	(void)state;
	if (!gt_demangle_available())
		skip();
	char *name = doubling_name(11);
	size_t total = 0, calls = 0;
	for (;;) {
		char *d = gt_demangle(name);
		assert_non_null(d);
		calls++;
		if (strcmp(d, name) == 0) {
			free(d);
			break;
		}
		total += strlen(d);
		free(d);
		assert_true(total <= GT_DEMANGLE_MAX_TOTAL);
	}
	/* Earlier tests spent some of the budget too, so only its order of magnitude is checked. */
	assert_true(total > GT_DEMANGLE_MAX_TOTAL / 2);
	assert_true(calls > 1000);
	char *d = gt_demangle(name); /* and stays so */
	assert_string_equal(d, name);
	free(d);
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusal_warns_once),
		cmocka_unit_test(test_normal_names_demangle_as_before),
		cmocka_unit_test(test_estimate_bounds_real_names),
		cmocka_unit_test(test_doubling_name_is_bounded),
		cmocka_unit_test(test_length_and_depth_caps),
		cmocka_unit_test(test_base_name_of_undemangled_nested_names),
		cmocka_unit_test(test_short_name_of_angle_pairs),
		cmocka_unit_test(test_labels_told_apart),
		cmocka_unit_test(test_total_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_cupti_capture_layout.c: choosing the parameter layout and rebuilding a launch's parameter
 * bytes (cupti/capture_layout.c).
 *
 * The cross-check: agreement keeps both sources' flags, disagreement uses the driver's layout and
 * says so. The packing: kernelParams (one pointer per parameter) and extra's single buffer give the
 * same bytes, alignment gaps are zero, a short extra buffer leaves the missing parameters zero and
 * is reported, and a launch with neither is refused. No driver here: the driver query must say "no
 * layout" rather than crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cupti/capture_layout.h"
#include "traces/gputrace.h"

#include <cuda.h>

/* mixed(char c, double d, S12 s, short h, int *p): offsets 0, 8, 16, 28, 32; 40 bytes. */
static struct nvinfo_param mixed_params[] = { { 0, 1 }, { 8, 8 }, { 16, 12 }, { 28, 2 }, { 32, 8 } };
static const struct nvinfo_layout mixed = { 5, 40, 40, mixed_params };

static void test_choose_agreement_and_mismatch(void **state)
{
	(void)state;
	struct nvinfo_param other_params[] = { { 0, 1 }, { 8, 8 }, { 16, 16 }, { 32, 2 }, { 40, 8 } };
	struct nvinfo_layout other = { 5, 48, 0, other_params };
	struct capture_layout out;

	assert_int_equal(capture_layout_choose(&mixed, &mixed, &out), 0);
	assert_int_equal(out.flags, GT_CAPTURE_LAYOUT_NVINFO | GT_CAPTURE_LAYOUT_DRIVER);
	assert_true(nvinfo_layout_equal(&out.l, &mixed));
	assert_ptr_not_equal(out.l.params, mixed.params); /* a copy, owned by out */
	capture_layout_free(&out);

	/* nv.info says one thing, the driver another: the driver wins, flagged. */
	assert_int_equal(capture_layout_choose(&mixed, &other, &out), 0);
	assert_int_equal(out.flags, GT_CAPTURE_LAYOUT_DRIVER | GT_CAPTURE_LAYOUT_MISMATCH);
	assert_true(nvinfo_layout_equal(&out.l, &other));
	assert_int_equal(out.l.param_bytes, 48);
	capture_layout_free(&out);

	assert_int_equal(capture_layout_choose(NULL, &other, &out), 0);
	assert_int_equal(out.flags, GT_CAPTURE_LAYOUT_DRIVER);
	capture_layout_free(&out);

	assert_int_equal(capture_layout_choose(&mixed, NULL, &out), 0);
	assert_int_equal(out.flags, GT_CAPTURE_LAYOUT_NVINFO);
	assert_true(nvinfo_layout_equal(&out.l, &mixed));
	capture_layout_free(&out);

	assert_int_equal(capture_layout_choose(NULL, NULL, &out), -1);
	assert_int_equal(out.flags, 0);

	/* A kernel without parameters is a layout too. */
	struct nvinfo_layout none = { 0, 0, 0, NULL };
	assert_int_equal(capture_layout_choose(&none, &none, &out), 0);
	assert_int_equal(out.l.nparams, 0);
	assert_null(out.l.params);
	capture_layout_free(&out);
}

struct mixed_args {
	char c;
	double d;
	float s[3];
	short h;
	int *p;
};

static void expected_bytes(const struct mixed_args *a, uint8_t *want)
{
	memset(want, 0, 40);
	memcpy(want + 0, &a->c, 1);
	memcpy(want + 8, &a->d, 8);
	memcpy(want + 16, a->s, 12);
	memcpy(want + 28, &a->h, 2);
	memcpy(want + 32, &a->p, 8);
}

static void test_pack_kernel_params(void **state)
{
	(void)state;
	struct mixed_args a = { 'x', 3.25, { 1.0f, 2.0f, 3.0f }, -7, (int *)(uintptr_t)0x7f0012345600ull };
	void *kp[] = { &a.c, &a.d, a.s, &a.h, &a.p };
	uint8_t out[40], want[40];
	memset(out, 0xee, sizeof out); /* gaps must come out zero, not left as they were */
	assert_int_equal(capture_layout_pack(&mixed, kp, NULL, out), 0);
	expected_bytes(&a, want);
	assert_memory_equal(out, want, 40);
	/* Both given: the driver refuses such a launch (and the capture is dropped at EXIT); the
	 * packing just uses kernelParams. */
	void *bogus_extra[] = { CU_LAUNCH_PARAM_END };
	assert_int_equal(capture_layout_pack(&mixed, kp, bogus_extra, out), 0);
	assert_memory_equal(out, want, 40);
	/* a NULL entry in kernelParams is a broken launch */
	kp[2] = NULL;
	assert_int_equal(capture_layout_pack(&mixed, kp, NULL, out), -1);
}

static void test_pack_extra_buffer(void **state)
{
	(void)state;
	struct mixed_args a = { 'q', -1.5, { 4.0f, 5.0f, 6.0f }, 300, (int *)(uintptr_t)0x7f00abcdef00ull };
	uint8_t buf[40], out[40];
	expected_bytes(&a, buf);
	buf[1] = 0x55; /* padding in the program's buffer is not a parameter: not copied */
	size_t size = sizeof buf;
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
		CU_LAUNCH_PARAM_END };
	memset(out, 0xee, sizeof out);
	assert_int_equal(capture_layout_pack(&mixed, NULL, extra, out), 0);
	uint8_t want[40];
	expected_bytes(&a, want);
	assert_memory_equal(out, want, 40);

	/* size before pointer, and NULL as the end marker */
	void *extra2[] = { CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_BUFFER_POINTER, buf, NULL };
	assert_int_equal(capture_layout_pack(&mixed, NULL, extra2, out), 0);
	assert_memory_equal(out, want, 40);

	/* a buffer shorter than the layout: the parameters past it stay zero, and it says so */
	size = 30;
	assert_int_equal(capture_layout_pack(&mixed, NULL, extra, out), 1);
	assert_memory_equal(out, want, 30);
	uint8_t zero[10] = { 0 };
	assert_memory_equal(out + 30, zero, 10);

	/* no size, or no pointer: nothing to slice */
	void *nosize[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_END };
	assert_int_equal(capture_layout_pack(&mixed, NULL, nosize, out), -1);
	void *noptr[] = { CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END };
	assert_int_equal(capture_layout_pack(&mixed, NULL, noptr, out), -1);
	/* neither kernelParams nor extra */
	assert_int_equal(capture_layout_pack(&mixed, NULL, NULL, out), -1);
}

static void test_pack_kernel_without_parameters(void **state)
{
	(void)state;
	struct nvinfo_layout none = { 0, 0, 0, NULL };
	uint8_t out[1] = { 0xab };
	assert_int_equal(capture_layout_pack(&none, NULL, NULL, out), 0);
	assert_int_equal(out[0], 0xab); /* nothing written */
}

static void test_driver_query_without_driver(void **state)
{
	(void)state;
	/* libcuda is not loaded in this test: both queries answer "no layout", never crash. */
	struct nvinfo_layout l;
	assert_int_equal(capture_layout_from_driver((void *)0x1234, 1, &l), -1);
	assert_int_equal(capture_layout_from_driver((void *)0x1234, 0, &l), -1);
	assert_int_equal(l.nparams, 0);
	assert_null(l.params);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_agreement_and_mismatch),
		cmocka_unit_test(test_pack_kernel_params),
		cmocka_unit_test(test_pack_extra_buffer),
		cmocka_unit_test(test_pack_kernel_without_parameters),
		cmocka_unit_test(test_driver_query_without_driver),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

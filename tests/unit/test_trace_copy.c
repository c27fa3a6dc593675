/* test_trace_copy.c: a trace copied record by record (traces/copy.c).
 *
 * The copy's writer holds other strings first, so every string id of the input means another
 * string in the copy unless it is remapped: checked, each KERNEL's name reads back as the input's,
 * with the id gt_copy_string_id gives (0 before its STRING is copied), META is as it was, and the
 * copy is a whole trace (it reads to its end).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/copy.h"

static char dir[64], in[128], out[128];

static void write_input(uint32_t *beta)
{
	struct gt_writer *w;
	assert_int_equal(gt_writer_open(&w, in, 0, NULL), 0);
	uint32_t alpha = gt_writer_intern(w, "alpha");
	*beta = gt_writer_intern(w, "beta");
	assert_true(alpha && *beta);
	assert_int_equal(gt_writer_meta(w, "trace.note", "copied"), 0);
	struct gt_kernel k = { .start = 10, .end = 20, .name_id = *beta, .correlation_id = 7 };
	assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &k), 0);
	k.name_id = alpha;
	k.correlation_id = 8;
	assert_int_equal(gt_writer_add(w, GT_REC_KERNEL, &k), 0);
	assert_int_equal(gt_writer_close(w), 0);
}

static void test_copy_remaps_strings(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/gt_copy_XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(in, sizeof in, "%s/in.gtrace", dir);
	snprintf(out, sizeof out, "%s/out.gtrace", dir);
	uint32_t beta;
	write_input(&beta);

	char err[256];
	struct gt_reader *r;
	assert_int_equal(gt_reader_open(&r, in, err, sizeof err), 0);
	struct gt_writer *w;
	assert_int_equal(gt_writer_open(&w, out, 0, NULL), 0);
	assert_true(gt_writer_intern(w, "pad0") && gt_writer_intern(w, "pad1") && gt_writer_intern(w, "pad2"));
	struct gt_copy *c;
	assert_int_equal(gt_copy_new(&c, w), 0);
	assert_int_equal(gt_copy_string_id(c, beta), 0); /* not defined yet */
	struct gt_event ev;
	int more;
	while ((more = gt_reader_next(r, &ev)) > 0)
		assert_int_equal(gt_copy_record(c, r, &ev), 0);
	assert_int_equal(more, 0);
	uint32_t beta_out = gt_copy_string_id(c, beta);
	assert_int_not_equal(beta_out, 0);
	assert_int_not_equal(beta_out, beta);
	gt_copy_free(c);
	gt_reader_close(r);
	assert_int_equal(gt_writer_close(w), 0);

	assert_int_equal(gt_reader_open(&r, out, err, sizeof err), 0);
	size_t kernels = 0;
	while ((more = gt_reader_next(r, &ev)) > 0) {
		if (ev.type != GT_REC_KERNEL)
			continue;
		const char *name = gt_reader_string(r, ev.u.kernel.name_id);
		assert_string_equal(name, ev.u.kernel.correlation_id == 7 ? "beta" : "alpha");
		if (ev.u.kernel.correlation_id == 7)
			assert_int_equal(ev.u.kernel.name_id, beta_out);
		kernels++;
	}
	assert_int_equal(more, 0);
	assert_int_equal(kernels, 2);
	const char *note = gt_reader_meta(r, "trace.note");
	assert_non_null(note);
	assert_string_equal(note, "copied");
	gt_reader_close(r);
	assert_int_equal(unlink(in), 0);
	assert_int_equal(unlink(out), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_remaps_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

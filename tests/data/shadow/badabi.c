/* tests/data/shadow/badabi.c: a reference library that claims a reference ABI gpuanalyze does not read.
 *
 * Built as $(BUILD)/tests/shadow/badabi.so by kernels/refs/module.mk; tests/cli/test_shadow.sh
 * checks that `gpuanalyze shadow --ref` refuses it with one line and exit status 2.
 */
#include "gputrace_ref.h"

static const struct gt_ref_table table = {
	.abi = GT_REF_ABI + 1,
	.ref_size = sizeof(struct gt_ref),
	.name = "a library from the future",
	.count = 0,
	.refs = 0,
};

GT_REF_EXPORT const struct gt_ref_table *gputrace_refs(void);
GT_REF_EXPORT const struct gt_ref_table *gputrace_refs(void) { return &table; }

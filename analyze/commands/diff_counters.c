/* diff_counters.c: diff's section on hardware counters (diff_counters.h). */
#include "analyze/commands/diff_counters.h"
#include "analyze/support/kname.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gt_diff_counters_run(struct gt_diff_counters *dc, char *const *base, size_t nbase, char *const *new,
                         size_t nnew)
{
	memset(dc, 0, sizeof *dc);
	dc->ran = 1;
	int rc = gt_ceiling_run_again(&dc->base, base, (int)nbase);
	if (!rc)
		rc = gt_ceiling_run_again(&dc->new, new, (int)nnew);
	if (rc)
		return rc;
	if (!gt_ceiling_has_metrics(&dc->base) || !gt_ceiling_has_metrics(&dc->new))
		return 0;
	dc->have = 1;
	return gt_ceil_compare(&dc->cmp, &dc->base, &dc->new);
}

int gt_diff_counters_doc(struct gt_doc *d, const struct gt_diff_counters *dc)
{
	if (!dc->have)
		return 0;
	gt_doc_heading(d, 3, "hardware counters per launch (both sides have them)");
	gt_doc_note(d, "counters: DRAM bytes (read + written) and FLOPs per launch, as gpuanalyze ceiling "
	            "gives them; CHANGED: either moved by more than %.0f%% of BASE's, or from 0 to "
	            "something (the work per launch changed, not only its speed); %zu of %zu kernels",
	            GT_CEIL_COMPARE_TOL * 100, dc->cmp.changed, dc->cmp.n);
	const struct gt_column cols[] = {
		{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE }, { "name", "name", GT_COL_MACHINE },
		{ "base_dram_bytes", "BASE DRAM MB", 0 }, { "new_dram_bytes", "NEW DRAM MB", 0 },
		{ "dram_bytes_change_pct", "change %", 0 },
		{ "base_flops", "BASE GFLOP", 0 }, { "new_flops", "NEW GFLOP", 0 },
		{ "flops_change_pct", "change %", 0 }, { "changed", "flag", GT_COL_LEFT },
	};
	struct gt_table *t = gt_doc_table(d, "counters", GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	gt_table_when_empty(t, "no kernel has a counter on both sides");
	for (size_t i = 0; i < dc->cmp.n; i++) {
		const struct gt_ceil_compare_row *r = &dc->cmp.rows[i];
		char *shortname = gt_kernel_short_name(r->name);
		gt_table_str(t, shortname ? shortname : r->name);
		free(shortname);
		gt_table_str(t, r->name);
		gt_table_num_or(t, r->base_bytes, r->base_bytes / 1e6, 3, "not measured");
		gt_table_num_or(t, r->new_bytes, r->new_bytes / 1e6, 3, "not measured");
		gt_table_num_or(t, 100 * r->bytes_change, 100 * r->bytes_change, 1, "-");
		gt_table_num_or(t, r->base_flops, r->base_flops / 1e9, 3, "not measured");
		gt_table_num_or(t, r->new_flops, r->new_flops / 1e9, 3, "not measured");
		gt_table_num_or(t, 100 * r->flops_change, 100 * r->flops_change, 1, "-");
		gt_table_str(t, r->changed ? "CHANGED" : "same");
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

void gt_diff_counters_release(struct gt_diff_counters *dc)
{
	if (!dc || !dc->ran)
		return;
	gt_ceil_compare_release(&dc->cmp);
	gt_ceiling_release(&dc->base);
	gt_ceiling_release(&dc->new);
	dc->ran = dc->have = 0;
}

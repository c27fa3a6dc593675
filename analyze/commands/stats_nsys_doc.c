/* stats_nsys_doc.c: the document of one report of stats_nsys.h (stats_nsys_doc.h). The engine
 * gives the columns (Nsight Systems' titles for people, keys with their units for machines) and
 * makes each cell when asked; this file says what each report measures and what it left out, and
 * hands the cells to the table, which escapes them for the format.
 */
#include "analyze/commands/stats_nsys_doc.h"

#include "analyze/commands/stats_doc.h"
#include "analyze/output/output.h"

#include <stdlib.h>

static const char *const measured[GT_NSYS_NKINDS] = {
	"every kernel, copy and memset in order of start: CUPTI activity timestamps and durations (end - "
	"start), ns; sizes in MB (10^6 bytes), throughput in MB/s; memsets: the memory kind in SrcMemKd",
	"every CUDA API call (runtime and driver) in order of start: duration end - start on the calling "
	"thread, ns; T-Pri and Thread Name are not recorded (empty)",
	"every kernel with the API call that launched it (paired by correlation id), in order of the call's "
	"start: API, queue (from the call's end to the kernel's start, when the kernel started after the call "
	"returned) and kernel times, and the total from the call's start to the kernel's end, ns",
	"cuda_kern_exec_trace's launches by process, thread, device, API function and kernel: count, launches "
	"that queued (QCount), and the statistics of total (T), API (A), queue (Q, of the queued launches) "
	"and kernel (K) times, ns",
	"cuda_api_sum, cuda_gpu_kern_sum and cuda_gpu_mem_time_sum in one table, by Category (CUDA_API, "
	"CUDA_KERNEL, MEMORY_OPER): durations end - start, ns; Time (%) of the three together",
	"nvtx_sum's push/pop ranges alone, by domain and name (\"DOMAIN:NAME\" outside the default domain): "
	"durations end - start, ns; Time (%) of the push/pop ranges",
	"every closed push/pop range by thread and start, in its thread's tree: duration, the time of its "
	"direct children (DurChild) and the rest (DurNonChild), level, children, ids (RangeId from 1 in this "
	"order, ParentId), ns; RangeStack and NameTree show at most 16 levels",
	"every closed NVTX range that launched GPU work, projected onto the GPU: from the earliest start to the "
	"latest end of the kernels, copies and memsets whose launching call (paired by correlation id) started "
	"inside the range, on the range's thread for push/pop ranges, on any thread for start/end ranges; "
	"push/pop ranges by thread and start (RangeId and the tree as nvtx_pushpop_trace's), then start/end "
	"ranges by start, ns",
	"nvtx_gpu_proj_trace's ranges by name and style: projected and range times, instances, the statistics "
	"of the projected durations, GPU operations, average level and children, ns",
};

static int is_summary(int kind)
{
	return kind == GT_NSYS_KERN_EXEC_SUM || kind == GT_NSYS_API_GPU_SUM || kind == GT_NSYS_PUSHPOP_SUM ||
	       kind == GT_NSYS_GPU_PROJ_SUM;
}

static void notes(struct gt_doc *d, const struct gt_nsys_report *rep)
{
	const char *name = gt_nsys_report_names[rep->kind];
	const struct gt_stats_trace *t = &rep->trace;
	gt_stats_doc_notes(d, name, measured[rep->kind], t);
	if (t->no_call)
		gt_doc_note(d, "excluded: %llu %s whose launching call is not in the trace",
		            (unsigned long long)t->no_call, gt_stats_doc_plural(t->no_call, "kernel", "kernels"));
	if (is_summary(rep->kind))
		gt_doc_note(d, "%s", GT_STATS_STATISTICS);
	gt_doc_heading(d, 2, name);
}

static void facts(struct gt_doc *d, const struct gt_nsys_report *rep)
{
	gt_stats_doc_facts(d, gt_nsys_report_names[rep->kind], measured[rep->kind], &rep->trace);
	if (is_summary(rep->kind))
		gt_doc_str(d, "statistics", GT_STATS_STATISTICS);
	gt_stats_doc_excluded(d, &rep->trace);
	gt_doc_end(d);
	if (is_summary(rep->kind))
		gt_doc_num(d, "total_ns", rep->total);
}

static unsigned col_flags(unsigned f)
{
	return (f & GT_NSYS_LEFT ? GT_COL_LEFT : 0) | (f & GT_NSYS_HUMAN ? GT_COL_HUMAN : 0) |
	       (f & GT_NSYS_MACHINE ? GT_COL_MACHINE : 0) | (f & GT_NSYS_CODE ? GT_COL_CODE : 0);
}

static int rows(struct gt_doc *d, const struct gt_nsys_report *rep)
{
	size_t n;
	const struct gt_nsys_column *cols = gt_nsys_columns(rep->kind, &n);
	struct gt_column *tc = malloc(n * sizeof *tc);
	if (!tc)
		return GT_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		tc[i] = (struct gt_column){ cols[i].key, cols[i].title, col_flags(cols[i].flags) };
	struct gt_table *t = gt_doc_table(d, "rows", tc, n);
	free(tc);
	if (!t)
		return GT_ERR_NOMEM;
	gt_table_when_empty(t, "no rows: the trace holds nothing this report counts");
	for (size_t r = 0; r < rep->nrows; r++) {
		for (size_t c = 0; c < n; c++) {
			struct gt_nsys_cell cell;
			gt_nsys_cell(rep, r, c, &cell);
			switch (cell.type) {
			case GT_NSYS_U64: gt_table_u64(t, cell.u); break;
			case GT_NSYS_I64: gt_table_i64(t, cell.i); break;
			case GT_NSYS_NUM: gt_table_num_as(t, cell.d, cell.d / cell.scale, cell.decimals); break;
			case GT_NSYS_U64_AS: gt_table_u64_as(t, cell.u, (double)cell.u / cell.scale, cell.decimals); break;
			case GT_NSYS_STR: gt_table_str(t, cell.s); break;
			default: gt_table_null(t); break;
			}
		}
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

int gt_stats_nsys_fill(struct gt_doc *d, const struct gt_nsys_report *rep)
{
	facts(d, rep);
	notes(d, rep);
	int rc = rows(d, rep);
	gt_doc_end(d); /* the JSON object */
	return rc;
}

/* cmd_stats.c: `gpuanalyze stats REPORT FILE`: the summary reports of `nsys stats`, by the same
 * names and with the same columns (their units in the column names), in text, Markdown, JSON or CSV.
 *
 * Options and the document (doc.h) only; stats_reports.c computes and stats_reports.h defines
 * every report. Text and Markdown show Nsight Systems' column titles ("Total Time (ns)",
 * "Med (ns)") and demangled kernel names; JSON and CSV keys are the same columns as identifiers
 * (total_time_ns, med_ns) with kernel names both mangled and demangled.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/stats_metrics_doc.h"
#include "analyze/engines/stats_metrics.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "gputrace.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/engines/stats_reports.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What each report measures, said once for --help, the notes and JSON. */
static const char *const measured[GT_STATS_NKINDS] = {
	"CUDA API calls (runtime and driver) by function name: durations end - start on the calling "
	"thread, CUPTI timestamps, ns",
	"NVTX push/pop and start/end ranges by domain, name and style: durations end - start, ns",
	"kernels launched inside each NVTX range, by range and kernel: a kernel counts in every range "
	"instance (nested ones too) that holds the start of its launching API call (paired by "
	"correlation id), on the range's thread for push/pop ranges, on any thread for start/end "
	"ranges; GPU durations end - start of those kernels, ns",
	"GPU kernels by name: durations end - start, CUPTI activity timestamps, ns",
	"GPU memory operations by copy kind, and memsets: durations end - start, ns",
	"GPU memory operations by copy kind, and memsets: sizes in bytes (MB = 10^6 bytes)",
	"kernel launches by kernel and launch configuration (grid, block, static and dynamic shared "
	"memory per block, registers per thread): count, total and median GPU duration, ns",
};

#define STATISTICS                                                                                 \
	"statistics: Med = median (the mean of the two middle values when n is even); StdDev = "      \
	"sample standard deviation (n - 1; n/a for one value); Time (%) = the row's total over the "  \
	"report's total x 100; gpuanalyze(1) defines each"

enum col {
	C_PCT, C_TOTAL, C_COUNT, C_AVG, C_MED, C_MIN, C_MAX, C_STDDEV, C_NAME, C_DEMANGLED, C_STYLE,
	C_DOMAIN, C_NVTX_INST, C_KERNEL, C_KERNEL_DEMANGLED, C_COPY_KIND, C_GRID, C_GRID_X, C_GRID_Y,
	C_GRID_Z, C_BLOCK, C_BLOCK_X, C_BLOCK_Y, C_BLOCK_Z, C_STATIC_SMEM, C_DYNAMIC_SMEM, C_REGISTERS,
	C_END
};

struct column {
	enum col id;
	const char *key, *title;
	unsigned flags;
};

#define TIME_STATS(count_key, count_title)                                                        \
	{ C_TOTAL, "total_time_ns", "Total Time (ns)", 0 }, { C_COUNT, count_key, count_title, 0 },  \
	{ C_AVG, "avg_ns", "Avg (ns)", 0 }, { C_MED, "med_ns", "Med (ns)", 0 },                      \
	{ C_MIN, "min_ns", "Min (ns)", 0 }, { C_MAX, "max_ns", "Max (ns)", 0 },                      \
	{ C_STDDEV, "stddev_ns", "StdDev (ns)", 0 }
#define PCT { C_PCT, "time_pct", "Time (%)", 0 }
#define KERNEL_NAME                                                                                \
	{ C_NAME, "name", "Name", GT_COL_MACHINE | GT_COL_LEFT }, \
	{ C_DEMANGLED, "demangled", "Name", GT_COL_LEFT | GT_COL_CODE }
#define END { C_END, NULL, NULL, 0 }

static const struct column columns[GT_STATS_NKINDS][20] = {
	[GT_STATS_CUDA_API_SUM] = { PCT, TIME_STATS("num_calls", "Num Calls"),
		{ C_NAME, "name", "Name", GT_COL_LEFT | GT_COL_CODE }, END },
	[GT_STATS_NVTX_SUM] = { PCT, TIME_STATS("instances", "Instances"),
		{ C_STYLE, "style", "Style", GT_COL_LEFT }, { C_DOMAIN, "domain", "Domain", GT_COL_LEFT | GT_COL_CODE },
		{ C_NAME, "range", "Range", GT_COL_LEFT | GT_COL_CODE }, END },
	[GT_STATS_NVTX_KERN_SUM] = { { C_NAME, "range", "NVTX Range", GT_COL_LEFT | GT_COL_CODE },
		{ C_DOMAIN, "domain", "Domain", GT_COL_LEFT | GT_COL_CODE }, { C_STYLE, "style", "Style", GT_COL_LEFT },
		{ C_NVTX_INST, "nvtx_inst", "NVTX Inst", 0 }, { C_COUNT, "kern_inst", "Kern Inst", 0 },
		{ C_TOTAL, "total_time_ns", "Total Time (ns)", 0 }, { C_AVG, "avg_ns", "Avg (ns)", 0 },
		{ C_MED, "med_ns", "Med (ns)", 0 }, { C_MIN, "min_ns", "Min (ns)", 0 }, { C_MAX, "max_ns", "Max (ns)", 0 },
		{ C_STDDEV, "stddev_ns", "StdDev (ns)", 0 },
		{ C_KERNEL, "kernel_name", "Kernel Name", GT_COL_MACHINE | GT_COL_LEFT },
		{ C_KERNEL_DEMANGLED, "kernel_demangled", "Kernel Name", GT_COL_LEFT | GT_COL_CODE }, END },
	[GT_STATS_GPU_KERN_SUM] = { PCT, TIME_STATS("instances", "Instances"), KERNEL_NAME, END },
	[GT_STATS_GPU_MEM_TIME_SUM] = { PCT, TIME_STATS("count", "Count"),
		{ C_COPY_KIND, "copy_kind", "Kind", GT_COL_MACHINE }, { C_NAME, "operation", "Operation", GT_COL_LEFT },
		END },
	[GT_STATS_GPU_MEM_SIZE_SUM] = { { C_TOTAL, "total_bytes", "Total (MB)", 0 }, { C_COUNT, "count", "Count", 0 },
		{ C_AVG, "avg_bytes", "Avg (MB)", 0 }, { C_MED, "med_bytes", "Med (MB)", 0 },
		{ C_MIN, "min_bytes", "Min (MB)", 0 }, { C_MAX, "max_bytes", "Max (MB)", 0 },
		{ C_STDDEV, "stddev_bytes", "StdDev (MB)", 0 },
		{ C_COPY_KIND, "copy_kind", "Kind", GT_COL_MACHINE }, { C_NAME, "operation", "Operation", GT_COL_LEFT },
		END },
	[GT_STATS_KERN_LAUNCH_SUM] = { { C_COUNT, "count", "Count", 0 },
		{ C_TOTAL, "total_time_ns", "Total Time (ns)", 0 }, { C_MED, "med_ns", "Med (ns)", 0 },
		{ C_GRID, "grid", "Grid", GT_COL_HUMAN | GT_COL_LEFT }, { C_GRID_X, "grid_x", "", GT_COL_MACHINE },
		{ C_GRID_Y, "grid_y", "", GT_COL_MACHINE }, { C_GRID_Z, "grid_z", "", GT_COL_MACHINE },
		{ C_BLOCK, "block", "Block", GT_COL_HUMAN | GT_COL_LEFT }, { C_BLOCK_X, "block_x", "", GT_COL_MACHINE },
		{ C_BLOCK_Y, "block_y", "", GT_COL_MACHINE }, { C_BLOCK_Z, "block_z", "", GT_COL_MACHINE },
		{ C_STATIC_SMEM, "static_smem_bytes", "Static SMem (B)", 0 },
		{ C_DYNAMIC_SMEM, "dynamic_smem_bytes", "Dynamic SMem (B)", 0 },
		{ C_REGISTERS, "registers_per_thread", "Registers", 0 }, KERNEL_NAME, END },
};

static void cell(struct gt_table *t, const struct column *c, const struct gt_stats_row *r, int bytes)
{
	const struct gt_stats *s = &r->st;
	double scale = bytes ? 1e6 : 1; /* sizes: MB in text; durations: ns everywhere */
	int dec = bytes ? 3 : 1;
	char dims[48];
	switch (c->id) {
	case C_PCT: gt_table_num(t, r->pct, 1); break;
	case C_TOTAL: gt_table_num_as(t, s->total, s->total / scale, bytes ? 3 : 0); break;
	case C_COUNT: gt_table_u64(t, s->n); break;
	case C_AVG: gt_table_num_as(t, s->mean, s->mean / scale, dec); break;
	case C_MED: gt_table_num_as(t, s->median, s->median / scale, dec); break;
	case C_MIN: gt_table_num_as(t, s->min, s->min / scale, bytes ? 3 : 0); break;
	case C_MAX: gt_table_num_as(t, s->max, s->max / scale, bytes ? 3 : 0); break;
	case C_STDDEV: gt_table_num_as(t, s->stddev, s->stddev / scale, dec); break;
	case C_NAME: gt_table_str(t, r->name); break;
	case C_DEMANGLED: gt_table_str(t, r->demangled); break;
	case C_STYLE: gt_table_str(t, r->style); break;
	case C_DOMAIN: gt_table_str(t, r->domain); break;
	case C_NVTX_INST: gt_table_u64(t, r->instances); break;
	case C_KERNEL: gt_table_str(t, r->kernel); break;
	case C_KERNEL_DEMANGLED: gt_table_str(t, r->kernel_demangled); break;
	case C_COPY_KIND: gt_table_str(t, r->copy_kind); break;
	case C_GRID:
	case C_BLOCK: {
		const uint32_t *d = c->id == C_GRID ? r->grid : r->block;
		snprintf(dims, sizeof dims, "%ux%ux%u", d[0], d[1], d[2]);
		gt_table_str(t, dims);
		break;
	}
	case C_GRID_X: case C_GRID_Y: case C_GRID_Z: gt_table_u64(t, r->grid[c->id - C_GRID_X]); break;
	case C_BLOCK_X: case C_BLOCK_Y: case C_BLOCK_Z: gt_table_u64(t, r->block[c->id - C_BLOCK_X]); break;
	case C_STATIC_SMEM: gt_table_u64(t, r->static_smem); break;
	case C_DYNAMIC_SMEM: gt_table_u64(t, r->dynamic_smem); break;
	case C_REGISTERS: gt_table_u64(t, r->registers); break;
	case C_END: break;
	}
}

/* The report's rows: text and Markdown show a note instead of an empty table, JSON and CSV the
 * empty table. */
static int rows_table(struct gt_doc *d, const struct gt_stats_report *rep)
{
	const struct column *cols = columns[rep->kind];
	struct gt_column tcols[sizeof columns[0] / sizeof columns[0][0]];
	size_t n = 0;
	for (const struct column *c = cols; c->id != C_END; c++)
		tcols[n++] = (struct gt_column){ c->key, c->title, c->flags };
	struct gt_table *t = gt_doc_table(d, "rows", tcols, n);
	if (!t)
		return GT_ERR_NOMEM;
	gt_table_when_empty(t, "no rows: the trace holds nothing this report counts");
	int bytes = rep->kind == GT_STATS_GPU_MEM_SIZE_SUM;
	for (size_t i = 0; i < rep->nrows; i++) {
		for (const struct column *c = cols; c->id != C_END; c++)
			cell(t, c, &rep->rows[i], bytes);
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

static const char *pl(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

/* The human formats' notes on the trace, what the report measures and what it left out (JSON
 * says them as facts), and the report's heading. */
static void notes(struct gt_doc *d, const struct gt_stats_report *rep)
{
	const char *name = gt_stats_report_names[rep->kind];
	gt_doc_title(d, "gpuanalyze stats %s", name);
	gt_doc_note(d, "trace: %s (%llu records of the kinds this report reads)", rep->path,
	            (unsigned long long)rep->records);
	gt_cmd_doc_synthetic(d, rep->path, rep->synthetic);
	gt_cmd_doc_incomplete(d, rep->path, rep->complete, rep->lost_bytes);
	gt_doc_note(d, "%s: %s", name, measured[rep->kind]);
	if (rep->bad_times)
		gt_doc_note(d, "excluded: %llu %s with bad timestamps (end < start, or flagged so)",
		            (unsigned long long)rep->bad_times, pl(rep->bad_times, "record", "records"));
	if (rep->tool_copies)
		gt_doc_note(d, "excluded: %llu %s made by gputrace's shadow capture, not by the program",
		            (unsigned long long)rep->tool_copies, pl(rep->tool_copies, "copy", "copies"));
	if (rep->marks || rep->unclosed)
		gt_doc_note(d, "excluded: %llu NVTX %s (instants), %llu %s never closed",
		            (unsigned long long)rep->marks, pl(rep->marks, "mark", "marks"),
		            (unsigned long long)rep->unclosed, pl(rep->unclosed, "range", "ranges"));
	if (rep->kind == GT_STATS_NVTX_KERN_SUM) {
		gt_doc_note(d, "not in any range: %llu %s whose launching call is not in the trace, %llu whose "
		            "call is inside no range", (unsigned long long)rep->no_call, pl(rep->no_call, "kernel", "kernels"),
		            (unsigned long long)rep->outside);
		if (rep->capped)
			gt_doc_note(d, "NOTE: %llu attributions dropped: more than %d ranges open at a call's start",
			            (unsigned long long)rep->capped, GT_NVTX_KERN_MAX_OPEN);
	}
	if (rep->kind != GT_STATS_KERN_LAUNCH_SUM)
		gt_doc_note(d, "%s", STATISTICS);
	gt_doc_heading(d, 2, name);
}

/* The facts: JSON's head, before its rows. "report" comes before "version", so the head is the
 * command's own, not gt_cmd_doc_head. */
static void facts(struct gt_doc *d, const struct gt_stats_report *rep)
{
	gt_doc_object(d, NULL);
	gt_doc_str(d, "command", "stats");
	gt_doc_str(d, "report", gt_stats_report_names[rep->kind]);
	gt_doc_str(d, "version", GT_VERSION);
	gt_cmd_doc_trace(d, rep->path, rep->complete, rep->lost_bytes, rep->synthetic != NULL);
	gt_doc_u64(d, "records", rep->records);
	gt_doc_end(d);
	gt_doc_str(d, "measured", measured[rep->kind]);
	gt_doc_str(d, "statistics", STATISTICS);
	gt_doc_object(d, "excluded");
	const struct {
		const char *key;
		uint64_t v;
	} ex[] = { { "bad_times", rep->bad_times }, { "tool_copies", rep->tool_copies }, { "nvtx_marks", rep->marks },
		   { "nvtx_unclosed", rep->unclosed }, { "kernels_without_call", rep->no_call },
		   { "kernels_outside_ranges", rep->outside }, { "attributions_capped", rep->capped } };
	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++)
		gt_doc_u64(d, ex[i].key, ex[i].v);
	gt_doc_end(d);
	gt_doc_num(d, rep->kind == GT_STATS_GPU_MEM_SIZE_SUM ? "total_bytes" : "total_ns", rep->total);
}

/* gt_cmd_filler: the facts, the notes and the rows, each format taking what it carries (CSV the
 * rows alone). */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct gt_stats_report *rep = ctx;
	facts(d, rep);
	notes(d, rep);
	int rc = rows_table(d, rep);
	gt_doc_end(d); /* the JSON document */
	return rc;
}

static enum gt_format fmt;

static const struct gt_option options[] = {
	GT_OPT_FORMAT(&fmt, GT_FMT_ALL),
	GT_OPT_END_OF_LIST,
};

static void reset(void) { fmt = GT_FMT_TEXT; }

static int run(const struct gt_cmd_call *call)
{
	const char *name = call->files[0];
	if (!strcmp(name, GT_STATS_METRICS_NAME))
		return gt_stats_metrics_command(call, fmt);
	int kind = -1;
	for (int k = 0; gt_stats_report_names[k]; k++)
		if (!strcmp(name, gt_stats_report_names[k]))
			kind = k;
	if (kind < 0)
		return gt_error("stats: unknown report '%s' (cuda_api_sum, nvtx_sum, nvtx_kern_sum, cuda_gpu_kern_sum, "
		                "cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, kern_launch_sum or gpu_metrics_sum)", name);
	struct gt_stats_report rep;
	int rc = gt_stats_report_run(&rep, kind, call->files[1]);
	if (!rc)
		rc = gt_cmd_render(call, fmt, fill, &rep);
	gt_stats_report_release(&rep);
	return rc;
}

const struct gt_command gt_cmd_stats = {
	"stats", "nsys-style reports: cuda_api_sum, nvtx_sum, nvtx_kern_sum, kernels, copies, launches",
	"REPORT FILE", 2, 2,
	"The summary reports of `nsys stats`, with their names and columns:\n"
	"  cuda_api_sum           CUDA API calls per function: calls, total, avg, median, min, max, stddev\n"
	"  nvtx_sum               NVTX ranges per domain, name and style: instances and duration statistics\n"
	"  nvtx_kern_sum          kernels per NVTX range: range instances, launches, GPU duration statistics\n"
	"                         (a kernel counts in each range that holds the start of its launching call)\n"
	"  cuda_gpu_kern_sum      GPU kernels per name: launches and duration statistics\n"
	"  cuda_gpu_mem_time_sum  copies per kind, and memsets: duration statistics\n"
	"  cuda_gpu_mem_size_sum  copies per kind, and memsets: size statistics (MB = 10^6 bytes)\n"
	"  kern_launch_sum        launches per kernel and configuration: grid, block, shared memory,\n"
	"                         registers, count, total and median duration\n"
	"  gpu_metrics_sum        hardware counters per source, device and metric: records, not\n"
	"                         measured, total and rate of counts, median, min, max\n"
	"Durations in ns, end - start of the CUPTI timestamps. gpuanalyze(1) defines every column.",
	options, reset, run,
};
GT_COMMAND_ENTRY(stats)

/* cmd_stats.c: `gpuanalyze stats [-r NAME,...] [REPORT] FILE...`: the reports of `nsys stats`,
 * called as nsys calls them (nsys's default set without a name, each file's reports in turn), by
 * the same names and with the same columns (their units in the column names), in text, Markdown,
 * JSON or CSV.
 *
 * Options and the document (doc.h) only; stats_reports.c computes and stats_reports.h defines the
 * summaries written here, stats_nsys.h the other reports, whose document stats_nsys_doc.c writes.
 * Text and Markdown show Nsight Systems' column titles ("Total Time (ns)",
 * "Med (ns)") and demangled kernel names; JSON and CSV keys are the same columns as identifiers
 * (total_time_ns, med_ns) with kernel names both mangled and demangled.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/stats_metrics_doc.h"
#include "analyze/engines/stats_metrics.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "traces/gputrace.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/engines/stats_reports.h"
#include "analyze/commands/stats_doc.h"
#include "analyze/commands/stats_nsys_doc.h"
#include "analyze/support/load.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The human formats' notes on the trace, what the report measures and what it left out (JSON
 * says them as facts), and the report's heading. */
static void notes(struct gt_doc *d, const struct gt_stats_report *rep)
{
	const char *name = gt_stats_report_names[rep->kind];
	const struct gt_stats_trace *t = &rep->trace;
	gt_stats_doc_notes(d, name, measured[rep->kind], t);
	if (rep->kind == GT_STATS_NVTX_KERN_SUM) {
		gt_doc_note(d, "not in any range: %llu %s whose launching call is not in the trace, %llu whose "
		            "call is inside no range", (unsigned long long)t->no_call,
		            gt_stats_doc_plural(t->no_call, "kernel", "kernels"), (unsigned long long)rep->outside);
		if (rep->capped)
			gt_doc_note(d, "NOTE: %llu attributions dropped: more than %d ranges open at a call's start",
			            (unsigned long long)rep->capped, GT_NVTX_KERN_MAX_OPEN);
	}
	if (rep->kind != GT_STATS_KERN_LAUNCH_SUM)
		gt_doc_note(d, "%s", GT_STATS_STATISTICS);
	gt_doc_heading(d, 2, name);
}

/* The facts: JSON's head, before its rows. "report" comes before "version", so the head is the
 * command's own, not gt_cmd_doc_head. */
static void facts(struct gt_doc *d, const struct gt_stats_report *rep)
{
	gt_stats_doc_facts(d, gt_stats_report_names[rep->kind], measured[rep->kind], &rep->trace);
	gt_doc_str(d, "statistics", GT_STATS_STATISTICS);
	gt_stats_doc_excluded(d, &rep->trace);
	gt_doc_u64(d, "kernels_outside_ranges", rep->outside);
	gt_doc_u64(d, "attributions_capped", rep->capped);
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
static const char *report_list;

static const struct gt_option options[] = {
	{ .kind = GT_OPT_STRING, .short_name = 'r', .long_name = "report", .arg = "NAME[,NAME]...",
	  .help = "these reports, in this order, for each file (default: nvtx_sum, cuda_api_sum, "
	          "cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum)",
	  .value = &report_list },
	GT_OPT_FORMAT(&fmt, GT_FMT_ALL),
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	fmt = GT_FMT_TEXT;
	report_list = NULL;
}

/* A report is a kind of stats_reports.h, NSYS + a kind of stats_nsys.h, or METRICS (the hardware
 * counters' gpu_metrics_sum, stats_metrics.h). */
#define NSYS 100
#define METRICS 200
#define MAX_REPORTS 64

/* nsys's default set, less the reports whose data a gputrace trace does not hold (gpuanalyze(1)). */
static const int default_set[] = { GT_STATS_NVTX_SUM, GT_STATS_CUDA_API_SUM, GT_STATS_GPU_KERN_SUM,
	                           GT_STATS_GPU_MEM_TIME_SUM, GT_STATS_GPU_MEM_SIZE_SUM };

/* The report named by the n bytes at name: its number, or -1. */
static int report_of(const char *name, size_t n)
{
	for (int k = 0; gt_stats_report_names[k]; k++)
		if (strlen(gt_stats_report_names[k]) == n && !strncmp(name, gt_stats_report_names[k], n))
			return k;
	for (int k = 0; gt_nsys_report_names[k]; k++)
		if (strlen(gt_nsys_report_names[k]) == n && !strncmp(name, gt_nsys_report_names[k], n))
			return NSYS + k;
	if (strlen(GT_STATS_METRICS_NAME) == n && !strncmp(name, GT_STATS_METRICS_NAME, n))
		return METRICS;
	return -1;
}

static int unknown(const char *name, size_t n)
{
	return gt_error("stats: unknown report '%.*s' (cuda_api_sum, nvtx_sum, nvtx_kern_sum, cuda_gpu_kern_sum, "
	                "cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, kern_launch_sum, cuda_gpu_trace, "
	                "cuda_api_trace, cuda_kern_exec_trace, cuda_kern_exec_sum, cuda_api_gpu_sum, "
	                "nvtx_pushpop_sum, nvtx_pushpop_trace, nvtx_gpu_proj_trace, nvtx_gpu_proj_sum or "
	                GT_STATS_METRICS_NAME ")", (int)n, name);
}

/* Whether an operand may name a report rather than a trace: a report name's letters only, and no
 * file of that name (so that a trace named "nvtx_sum" is still read as one). */
static int looks_like_report(const char *s)
{
	if (!*s || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(s))
		return 0;
	return access(s, F_OK) != 0;
}

struct job {
	char **files;
	int nfiles;
	int reports[MAX_REPORTS];
	int nreports;
};

static int fill_nsys(struct gt_doc *d, void *ctx) { return gt_stats_nsys_fill(d, ctx); }

/* One report of one file, computed and filled. */
static int fill_one(struct gt_doc *d, int kind, const char *path)
{
	int rc;
	if (kind == METRICS)
		return gt_stats_metrics_fill_path(d, path);
	if (kind >= NSYS) {
		struct gt_nsys_report rep;
		rc = gt_nsys_report_run(&rep, kind - NSYS, path);
		if (!rc)
			rc = gt_stats_nsys_fill(d, &rep);
		gt_nsys_report_release(&rep);
		return rc;
	}
	struct gt_stats_report rep;
	rc = gt_stats_report_run(&rep, kind, path);
	if (!rc)
		rc = fill(d, &rep);
	gt_stats_report_release(&rep);
	return rc;
}

/* gt_cmd_filler of several reports or files: each file's reports in turn, a file's under its
 * name; JSON: an array of the reports' objects; CSV: the tables one after the other. */
static int fill_all(struct gt_doc *d, void *ctx)
{
	const struct job *job = ctx;
	int rc = 0;
	gt_doc_array(d, NULL);
	for (int f = 0; !rc && f < job->nfiles; f++) {
		if (job->nfiles > 1)
			gt_doc_heading(d, 1, job->files[f]);
		for (int i = 0; !rc && i < job->nreports; i++) {
			if (i)
				gt_doc_words(d, "\n"); /* a blank line between one report's table and the next */
			rc = fill_one(d, job->reports[i], job->files[f]);
		}
	}
	if (rc)
		gt_doc_cut(d);
	else
		gt_doc_end(d);
	return rc;
}

static int run(const struct gt_cmd_call *call)
{
	struct job job = { call->files, call->nfiles, { 0 }, 0 };
	if (report_list) {
		for (const char *p = report_list;;) {
			size_t n = strcspn(p, ",");
			int k = report_of(p, n);
			if (k < 0)
				return unknown(p, n);
			if (job.nreports == MAX_REPORTS)
				return gt_error("stats: more than %d reports in --report", MAX_REPORTS);
			job.reports[job.nreports++] = k;
			if (!p[n])
				break;
			p += n + 1;
		}
	} else if ((call->nfiles == 1 && report_of(call->files[0], strlen(call->files[0])) >= 0) ||
	           (call->nfiles > 1 && looks_like_report(call->files[0]))) {
		/* The older form, REPORT FILE...: the first operand names the report. */
		int k = report_of(call->files[0], strlen(call->files[0]));
		if (k < 0)
			return unknown(call->files[0], strlen(call->files[0]));
		if (call->nfiles < 2)
			return gt_error("stats: too few operands (wants a FILE after the report) (see 'gpuanalyze stats --help')");
		job.reports[job.nreports++] = k;
		job.files++;
		job.nfiles--;
	} else {
		for (size_t i = 0; i < sizeof default_set / sizeof default_set[0]; i++)
			job.reports[job.nreports++] = default_set[i];
	}
	if (job.nfiles == 1 && job.nreports == 1 && job.reports[0] < NSYS) {
		/* One report of stats_reports.h: computed before the output opens, its document alone. */
		struct gt_stats_report rep;
		int rc = gt_stats_report_run(&rep, job.reports[0], job.files[0]);
		if (!rc)
			rc = gt_cmd_render(call, fmt, fill, &rep);
		gt_stats_report_release(&rep);
		return rc;
	}
	if (job.nfiles == 1 && job.nreports == 1 && job.reports[0] == METRICS)
		return gt_stats_metrics_command(call, fmt, job.files[0]);
	if (job.nfiles == 1 && job.nreports == 1) {
		struct gt_nsys_report rep;
		int rc = gt_nsys_report_run(&rep, job.reports[0] - NSYS, job.files[0]);
		if (!rc)
			rc = gt_cmd_render(call, fmt, fill_nsys, &rep);
		gt_nsys_report_release(&rep);
		return rc;
	}
	/* Several: every file is opened first, so that one that cannot be read stops the command
	 * before any output. */
	for (int f = 0; f < job.nfiles; f++) {
		struct gt_reader *r;
		int rc = gt_load_open(&r, job.files[f]);
		if (rc)
			return rc;
		gt_reader_close(r);
	}
	return gt_cmd_render(call, fmt, fill_all, &job);
}

const struct gt_command gt_cmd_stats = {
	.name = "stats",
	.help = "nsys-style reports: summaries and traces of API calls, kernels, copies, NVTX ranges",
	.operands = "[REPORT] FILE...",
	.min_operands = 1,
	.max_operands = -1,
	.description =
	"The reports of `nsys stats`, with their names, columns and units. Without --report (or a\n"
	"REPORT before the files), nsys's default set that a gputrace trace can feed: nvtx_sum,\n"
	"cuda_api_sum, cuda_gpu_kern_sum, cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum. Several\n"
	"files: each file's reports in turn, under the file's name. Summaries:\n"
	"  cuda_api_sum           CUDA API calls per function: calls, total, avg, median, min, max, stddev\n"
	"  nvtx_sum               NVTX ranges per domain, name and style: instances and duration statistics\n"
	"  nvtx_pushpop_sum       the same, push/pop ranges alone\n"
	"  nvtx_kern_sum          kernels per NVTX range: range instances, launches, GPU duration statistics\n"
	"                         (a kernel counts in each range that holds the start of its launching call)\n"
	"  cuda_gpu_kern_sum      GPU kernels per name: launches and duration statistics\n"
	"  cuda_gpu_mem_time_sum  copies per kind, and memsets: duration statistics\n"
	"  cuda_gpu_mem_size_sum  copies per kind, and memsets: size statistics (MB = 10^6 bytes)\n"
	"  cuda_api_gpu_sum       API calls, kernels and memory operations in one table, by category\n"
	"  cuda_kern_exec_sum     launches per process, thread, device, API and kernel: total, API, queue\n"
	"                         and kernel time statistics\n"
	"  nvtx_gpu_proj_sum      NVTX ranges per name and style, projected onto the GPU: projected and\n"
	"                         range times, GPU operations\n"
	"  kern_launch_sum        gputrace's own (not an nsys report): launches per kernel and\n"
	"                         configuration: grid, block, shared memory, registers, count, total,\n"
	"                         median duration\n"
	"  gpu_metrics_sum        gputrace's own: hardware counters per source, device and metric:\n"
	"                         records, not measured, total and rate of counts, median, min, max\n"
	"Traces, one row per event in order of start:\n"
	"  cuda_gpu_trace         kernels, copies and memsets: times, configuration or size, ids, name\n"
	"  cuda_api_trace         CUDA API calls: times, name, result, ids\n"
	"  cuda_kern_exec_trace   kernels with their launching calls: API, queue and kernel times\n"
	"  nvtx_pushpop_trace     push/pop ranges in their thread's tree: level, parent, children\n"
	"  nvtx_gpu_proj_trace    NVTX ranges projected onto the GPU: the span of the GPU work their\n"
	"                         calls launched\n"
	"Durations in ns, end - start of the CUPTI timestamps. gpuanalyze(1) defines every column and\n"
	"lists the nsys reports left out.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(stats)

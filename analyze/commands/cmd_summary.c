/* cmd_summary.c: `gpuanalyze summary`: per-kernel statistics of GPU kernel durations, and the same
 * for copies (by copy kind and memory kinds) and memsets (by memory kind).
 *
 * Options and printing only; summary.c computes. The output says what was measured, how many
 * launches warm-up dropped and how many bad timestamps excluded, which files were read (and whether
 * any is synthetic or incomplete), and defines its statistics in one line; gpuanalyze(1) has the
 * full definitions. Text and Markdown show durations in microseconds with demangled names; JSON
 * and CSV give nanoseconds and both names.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/engines/summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const sort_names[] = { "total", "median", "count", "name", NULL };

#define MEASURED "GPU kernel durations (end - start, CUPTI activity timestamps), per launch"
#define DEFINITIONS                                                                                \
	"statistics: median; MAD = median |x - median|, raw and x1.4826 (estimates the stddev of "  \
	"normal data); p90, p99 and IQR = p75 - p25 by NumPy's default 'linear' rule; stddev with "   \
	"n - 1; outliers: |x - median| > 3 scaled MADs (gpuanalyze(1): the rule when MAD is 0)"

/* What the filler needs besides the summary: the options that shape the output. */
struct job {
	const struct gt_summary *s;
	uint64_t warmup;
	int sort;
	uint64_t top;
	const struct gt_name_filter *filter;
	int csv;              /* CSV holds one table of every row, with the kind of each */
	struct gt_table *all; /* csv: that table */
};

/* The columns of every table; kind decides the name column's title and the extra machine fields. */
static void columns(const struct job *x, struct gt_table *t, int kind)
{
	if (x->csv)
		gt_table_column(t, "kind", "kind", GT_COL_LEFT);
	const struct gt_column cols[] = {
		{ "launches", kind == GT_SUMMARY_KERNEL ? "launches" : "count", 0 },
		{ "warmup_dropped", "warm-up", GT_COL_MACHINE }, { "total_ns", "total ms", 0 },
		{ "share", "share %", 0 }, { "median_ns", "median us", 0 }, { "mad_ns", "MAD us", 0 },
		{ "mad_scaled_ns", "MADx1.4826 us", 0 }, { "p25_ns", "p25 us", GT_COL_MACHINE },
		{ "p75_ns", "p75 us", GT_COL_MACHINE }, { "p90_ns", "p90 us", 0 },
		{ "p99_ns", "p99 us", 0 }, { "min_ns", "min us", 0 }, { "max_ns", "max us", 0 },
		{ "mean_ns", "mean us", 0 }, { "stddev_ns", "stddev us", 0 }, { "iqr_ns", "IQR us", 0 },
		{ "outliers", "outliers", 0 }, { "outlier_rule", "outlier rule", GT_COL_MACHINE },
		{ "bytes", "total MB", kind == GT_SUMMARY_KERNEL ? GT_COL_MACHINE : 0 },
		{ "files", "files", x->s->nfiles > 1 ? 0 : GT_COL_MACHINE },
	};
	gt_table_columns(t, GT_COLUMNS(cols));
	if (kind == GT_SUMMARY_MEMCPY || x->csv) {
		const struct gt_column cols[] = {
			{ "copy_kind", "copy kind", GT_COL_MACHINE },
			{ "src_kind", "src kind", GT_COL_MACHINE },
			{ "dst_kind", "dst kind", GT_COL_MACHINE },
		};
		gt_table_columns(t, GT_COLUMNS(cols));
	}
	if (kind == GT_SUMMARY_MEMSET || x->csv)
		gt_table_column(t, "mem_kind", "memory kind", GT_COL_MACHINE);
	gt_table_column(t, "name", kind == GT_SUMMARY_KERNEL ? "name" : kind == GT_SUMMARY_MEMCPY ? "copy" : "memory",
	                GT_COL_LEFT | GT_COL_CODE | GT_COL_MACHINE);
	gt_table_column(t, "demangled", kind == GT_SUMMARY_KERNEL ? "name" : kind == GT_SUMMARY_MEMCPY ? "copy" : "memory",
	                GT_COL_LEFT | GT_COL_CODE);
}

static const char *rule_name(int rule)
{
	return rule == GT_OUTLIER_MAD ? "mad" : rule == GT_OUTLIER_MEANAD ? "meanad" : "none";
}

static void duration(struct gt_table *t, double ns) { gt_table_num_as(t, ns, ns / 1e3, 3); }

static void row(const struct job *x, struct gt_table *t, const struct gt_summary_row *r)
{
	static const char *const kind_name[] = { "kernel", "memcpy", "memset" };
	const struct gt_stats *s = &r->st;
	if (x->csv)
		gt_table_str(t, kind_name[r->kind]);
	gt_table_u64(t, s->n);
	gt_table_u64(t, r->warmup_dropped);
	gt_table_num_as(t, s->total, s->total / 1e6, 3);
	gt_table_num_as(t, r->share, r->share * 100, 1);
	duration(t, s->median);
	duration(t, s->mad);
	duration(t, s->mad_scaled);
	duration(t, s->p25);
	duration(t, s->p75);
	duration(t, s->p90);
	duration(t, s->p99);
	duration(t, s->min);
	duration(t, s->max);
	duration(t, s->mean);
	duration(t, s->stddev);
	duration(t, s->iqr);
	if (s->n)
		gt_table_u64(t, s->outliers);
	else
		gt_table_null(t);
	gt_table_str(t, rule_name(s->outlier_rule));
	if (r->kind == GT_SUMMARY_KERNEL)
		gt_table_null(t);
	else
		gt_table_u64_as(t, r->bytes, (double)r->bytes / 1e6, 3);
	gt_table_str(t, r->files);
	if (r->kind == GT_SUMMARY_MEMCPY) {
		gt_table_str(t, gt_copy_kind_name(r->copy_kind));
		gt_table_str(t, gt_mem_kind_name(r->src_kind));
		gt_table_str(t, gt_mem_kind_name(r->dst_kind));
	} else if (x->csv) {
		gt_table_str(t, NULL);
		gt_table_str(t, NULL);
		gt_table_str(t, NULL);
	}
	if (r->kind == GT_SUMMARY_MEMSET)
		gt_table_str(t, gt_mem_kind_name(r->mem_kind));
	else if (x->csv)
		gt_table_str(t, NULL);
	gt_table_str(t, r->name);
	gt_table_str(t, r->display);
	gt_table_end_row(t);
}

/* One table (kernels, copies or memsets), or, in CSV, its rows in the single table; empty: the
 * note that text and Markdown give instead (NULL: none). */
static int table(const struct job *x, struct gt_doc *d, const char *key, int kind,
                 const struct gt_summary_row *rows, size_t n, const char *empty)
{
	if (x->csv) {
		for (size_t i = 0; i < n; i++)
			row(x, x->all, &rows[i]);
		return 0;
	}
	struct gt_table *t = gt_doc_table(d, key, NULL, 0);
	if (!t)
		return GT_ERR_NOMEM;
	columns(x, t, kind);
	if (empty)
		gt_table_when_empty(t, empty);
	for (size_t i = 0; i < n; i++)
		row(x, t, &rows[i]);
	return gt_table_close(t);
}

/* The human formats' notes on the traces, the warm-up, the exclusions and the statistics (JSON
 * says them as facts). */
static void preamble(struct gt_doc *d, const struct gt_summary *s, uint64_t warmup)
{
	gt_doc_title(d, "gpuanalyze summary");
	if (s->nfiles == 1) {
		const struct gt_summary_file *f = &s->files[0];
		gt_doc_note(d, "trace: %s (%llu kernel, %llu memcpy, %llu memset records)", f->path,
		     (unsigned long long)f->kernels, (unsigned long long)f->memcpys,
		     (unsigned long long)f->memsets);
	} else {
		gt_doc_note(d, "traces: %zu files, kernels merged by name; the files column says which hold each",
		     s->nfiles);
		for (size_t i = 0; i < s->nfiles; i++) {
			const struct gt_summary_file *f = &s->files[i];
			gt_doc_note(d, "  [%zu] %s (%llu kernel, %llu memcpy, %llu memset records)", i + 1, f->path,
			     (unsigned long long)f->kernels, (unsigned long long)f->memcpys,
			     (unsigned long long)f->memsets);
		}
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct gt_summary_file *f = &s->files[i];
		gt_cmd_doc_synthetic(d, f->path, f->synthetic);
		if (f->window)
			gt_doc_note(d, "NOTE: %s was recorded in windows (GPUTRACE_WINDOW=%s ms): the "
			        "statistics cover the launches inside them; gpuanalyze split says how much of the run "
			        "that was",
			     f->path, f->window);
		gt_cmd_doc_incomplete(d, f->path, f->complete, f->lost_bytes);
	}
	gt_doc_note(d, "%s", MEASURED);
	if (warmup == 1)
		gt_doc_note(d, "warm-up: first launch of each kernel%s dropped (%llu in all); copies and memsets "
		        "all counted",
		     s->nfiles > 1 ? " in each file" : "", (unsigned long long)s->warmup_dropped);
	else if (warmup)
		gt_doc_note(d, "warm-up: first %llu launches of each kernel%s dropped (%llu in all); copies and "
		        "memsets all counted",
		     (unsigned long long)warmup, s->nfiles > 1 ? " in each file" : "",
		     (unsigned long long)s->warmup_dropped);
	else
		gt_doc_note(d, "warm-up: none dropped (--warmup 0)");
	if (s->kernels_bad)
		gt_doc_note(d, "excluded: %llu kernel launches with bad timestamps (GT_KERNEL_BAD_TIMES or end < "
		        "start)",
		     (unsigned long long)s->kernels_bad);
	if (s->copies_bad || s->memsets_bad)
		gt_doc_note(d, "excluded: %llu copies and %llu memsets with end < start",
		     (unsigned long long)s->copies_bad, (unsigned long long)s->memsets_bad);
	if (s->copies_tool)
		gt_doc_note(d, "excluded: %llu copies made by gputrace's shadow capture, not by the program",
		     (unsigned long long)s->copies_tool);
	gt_doc_note(d, "%s", DEFINITIONS);
	gt_doc_note(d, "durations in microseconds (us), totals in milliseconds; share: of all kernels' summed "
	        "time (kernels may overlap)");
}

/* The facts: JSON's head, before its tables. */
static void facts(struct gt_doc *d, const struct job *x)
{
	const struct gt_summary *s = x->s;
	gt_cmd_doc_head(d, "summary");
	gt_doc_str(d, "measured", MEASURED);
	gt_doc_str(d, "unit", "ns");
	gt_doc_array(d, "files");
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct gt_summary_file *f = &s->files[i];
		gt_doc_object(d, NULL);
		gt_doc_u64(d, "index", i + 1);
		gt_doc_str(d, "path", f->path);
		gt_doc_u64(d, "kernels", f->kernels);
		gt_doc_u64(d, "memcpys", f->memcpys);
		gt_doc_u64(d, "memsets", f->memsets);
		/* The trace's state in output.h's one spelling, on the document's writer (NULL
		 * outside JSON). */
		struct gt_json *j = gt_doc_json(d);
		if (j)
			gt_json_trace_state(j, f->complete, f->lost_bytes, f->synthetic != NULL);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_u64(d, "warmup_per_kernel", x->warmup);
	gt_doc_u64(d, "warmup_dropped", s->warmup_dropped);
	gt_cmd_doc_bad_times(d, s->kernels_bad, s->copies_bad, s->memsets_bad);
	gt_doc_str(d, "kernel_filter", x->filter->active ? x->filter->pattern : NULL);
	gt_doc_u64(d, "kernels_hidden", s->kernels_hidden);
	gt_doc_num(d, "kernel_total_ns", s->kernel_total_ns);
	gt_doc_str(d, "sort", sort_names[x->sort]);
	gt_cmd_doc_statistics(d, 1);
	gt_doc_str(d, "stddev", "sample (n - 1)");
	gt_doc_str(d, "outliers", "mad: |x - median| > 3 * 1.4826 * MAD; meanad (MAD = 0): |x - median| > 3 * "
	                          "1.2533 * mean |x - median|; none: all values equal");
	gt_doc_end(d);
}

/* The kernels' heading: how many are shown, which --kernel and --top hid, the order. */
static void kernels_heading(struct gt_doc *d, const struct job *x, size_t shown)
{
	const struct gt_summary *s = x->s;
	char title[512];
	if (x->filter->active)
		snprintf(title, sizeof title, "kernels: %zu of %zu shown (--kernel '%s'%s), sorted by %s",
		         shown, s->nkernels + s->kernels_hidden, x->filter->pattern, shown < s->nkernels ? ", --top" : "",
		         sort_names[x->sort]);
	else
		snprintf(title, sizeof title, "kernels: %zu of %zu shown%s, sorted by %s", shown, s->nkernels,
		         shown < s->nkernels ? " (--top)" : "", sort_names[x->sort]);
	gt_doc_heading(d, 2, title);
}

/* gt_cmd_filler: the facts, the notes and the three tables. Text and Markdown leave out the
 * copies and memsets when there are none; JSON and CSV always hold them. A positive return is an
 * error already reported. */
static int fill(struct gt_doc *d, void *ctx)
{
	struct job *x = ctx;
	const struct gt_summary *s = x->s;
	enum gt_format fmt = gt_doc_format(d);
	int people = gt_doc_for_people(d);
	size_t shown = x->top && x->top < s->nkernels ? (size_t)x->top : s->nkernels;
	x->csv = fmt == GT_FMT_CSV;
	facts(d, x);
	preamble(d, s, x->warmup);
	if (x->csv) {
		if (!(x->all = gt_doc_table(d, NULL, NULL, 0)))
			return gt_error("summary: out of memory");
		columns(x, x->all, GT_SUMMARY_KERNEL);
	}
	kernels_heading(d, x, shown);
	int rc = table(x, d, "kernels", GT_SUMMARY_KERNEL, s->kernels, shown, "no kernel launches counted");
	if (!rc && (s->ncopies || !people)) {
		gt_doc_heading(d, 2, "copies (memcpy durations by copy kind and source->destination memory; all counted)");
		rc = table(x, d, "copies", GT_SUMMARY_MEMCPY, s->copies, s->ncopies, NULL);
	}
	if (!rc && (s->nmemsets || !people)) {
		gt_doc_heading(d, 2, "memsets (durations by memory kind; all counted)");
		rc = table(x, d, "memsets", GT_SUMMARY_MEMSET, s->memsets, s->nmemsets, NULL);
	}
	if (x->all) {
		int crc = gt_table_close(x->all);
		if (!rc)
			rc = crc;
	}
	gt_doc_end(d); /* the JSON document */
	return rc;
}

static uint64_t warmup, top;
static int sort;
static enum gt_format fmt;
static struct gt_name_filter filter;

static const struct gt_option options[] = {
	GT_OPT_WARMUP(&warmup),
	GT_OPT_KERNEL(&filter),
	{ .kind = GT_OPT_CHOICE, .long_name = "sort", .choices = sort_names, .value = &sort,
	  .help = "order of the rows: total time, median, launch count (descending) or name" },
	GT_OPT_FORMAT(&fmt, GT_FMT_ALL),
	{ .kind = GT_OPT_UINT, .long_name = "top", .arg = "N", .value = &top,
	  .help = "show only the first N kernels after sorting (default: all)" },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	warmup = top = 0;
	sort = GT_SORT_TOTAL;
	fmt = GT_FMT_TEXT;
	filter = (struct gt_name_filter){ 0 };
}

static int run(const struct gt_cmd_call *call)
{
	struct gt_summary s;
	int rc = 0;
	if (gt_summary_init(&s, warmup) != 0) {
		rc = GT_ERR_NOMEM;
		goto done;
	}
	for (int i = 0; i < call->nfiles && !rc; i++)
		rc = gt_summary_add_trace(&s, call->files[i]);
	if (rc)
		goto done;
	if (gt_summary_finish(&s, &filter) != 0) {
		rc = GT_ERR_NOMEM;
		goto done;
	}
	gt_summary_sort(&s, (enum gt_summary_sort)sort);
	rc = gt_cmd_render(call, fmt, fill, &(struct job){ &s, warmup, sort, top, &filter, 0, NULL });
done:
	gt_summary_release(&s);
	return rc;
}

const struct gt_command gt_cmd_summary = {
	.name = "summary",
	.help = "per-kernel statistics",
	.operands = "FILE...",
	.min_operands = 1,
	.max_operands = -1,
	.description =
	"Per-kernel statistics of " MEASURED ":\n"
	"launches, total time, share of kernel time, median, MAD (raw and x1.4826), p90, p99, min,\n"
	"max, mean, stddev, IQR, outliers; then the same for memcpy by copy kind and memory kinds,\n"
	"and memset. Several files are merged by kernel name. gpuanalyze(1) defines each statistic.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(summary)

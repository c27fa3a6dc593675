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
#include "analyze/output/json_member.h"
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

struct printer {
	enum gt_format fmt;
	FILE *out;
	struct gt_json *json;
	int multi;               /* several files: a files column */
	struct gt_table *csv;    /* csv: the one table every row goes to */
};

/* The columns of every table; kind decides the name column's title and the extra machine fields. */
static void columns(const struct printer *p, struct gt_table *t, int kind)
{
	if (p->fmt == GT_FMT_CSV)
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
		{ "files", "files", p->multi ? 0 : GT_COL_MACHINE },
	};
	gt_table_columns(t, GT_COLUMNS(cols));
	if (kind == GT_SUMMARY_MEMCPY || p->fmt == GT_FMT_CSV) {
		const struct gt_column cols[] = {
			{ "copy_kind", "copy kind", GT_COL_MACHINE },
			{ "src_kind", "src kind", GT_COL_MACHINE },
			{ "dst_kind", "dst kind", GT_COL_MACHINE },
		};
		gt_table_columns(t, GT_COLUMNS(cols));
	}
	if (kind == GT_SUMMARY_MEMSET || p->fmt == GT_FMT_CSV)
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

static void row(const struct printer *p, struct gt_table *t, const struct gt_summary_row *r)
{
	static const char *const kind_name[] = { "kernel", "memcpy", "memset" };
	const struct gt_stats *s = &r->st;
	if (p->fmt == GT_FMT_CSV)
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
	} else if (p->fmt == GT_FMT_CSV) {
		gt_table_str(t, NULL);
		gt_table_str(t, NULL);
		gt_table_str(t, NULL);
	}
	if (r->kind == GT_SUMMARY_MEMSET)
		gt_table_str(t, gt_mem_kind_name(r->mem_kind));
	else if (p->fmt == GT_FMT_CSV)
		gt_table_str(t, NULL);
	gt_table_str(t, r->name);
	gt_table_str(t, r->display);
	gt_table_end_row(t);
}

/* One table (kernels, copies or memsets). In CSV every row goes to the single table. */
static int table(const struct printer *p, const char *key, int kind, const struct gt_summary_row *rows,
                 size_t n)
{
	if (p->fmt == GT_FMT_CSV) {
		for (size_t i = 0; i < n; i++)
			row(p, p->csv, &rows[i]);
		return 0;
	}
	if (p->fmt == GT_FMT_JSON)
		gt_json_key(p->json, key);
	struct gt_table *t = gt_table_new(p->fmt, p->out, p->json);
	if (!t)
		return GT_ERR_NOMEM;
	columns(p, t, kind);
	for (size_t i = 0; i < n; i++)
		row(p, t, &rows[i]);
	return gt_table_close(t);
}

static void preamble(const struct printer *p, const struct gt_summary *s, uint64_t warmup)
{
	if (p->fmt == GT_FMT_MD)
		fputs("# gpuanalyze summary\n\n", p->out);
	if (s->nfiles == 1) {
		const struct gt_summary_file *f = &s->files[0];
		gt_out_note(p->out, p->fmt, "trace: %s (%llu kernel, %llu memcpy, %llu memset records)", f->path,
		     (unsigned long long)f->kernels, (unsigned long long)f->memcpys,
		     (unsigned long long)f->memsets);
	} else {
		gt_out_note(p->out, p->fmt, "traces: %zu files, kernels merged by name; the files column says which hold each",
		     s->nfiles);
		for (size_t i = 0; i < s->nfiles; i++) {
			const struct gt_summary_file *f = &s->files[i];
			gt_out_note(p->out, p->fmt, "  [%zu] %s (%llu kernel, %llu memcpy, %llu memset records)", i + 1, f->path,
			     (unsigned long long)f->kernels, (unsigned long long)f->memcpys,
			     (unsigned long long)f->memsets);
		}
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct gt_summary_file *f = &s->files[i];
		gt_cmd_note_synthetic(p->out, p->fmt, f->path, f->synthetic);
		if (f->window)
			gt_out_note(p->out, p->fmt, "NOTE: %s was recorded in windows (GPUTRACE_WINDOW=%s ms): the "
			        "statistics cover the launches inside them; gpuanalyze split says how much of the run "
			        "that was",
			     f->path, f->window);
		gt_cmd_note_incomplete(p->out, p->fmt, f->path, f->complete, f->lost_bytes);
	}
	gt_out_note(p->out, p->fmt, "%s", MEASURED);
	if (warmup == 1)
		gt_out_note(p->out, p->fmt, "warm-up: first launch of each kernel%s dropped (%llu in all); copies and memsets "
		        "all counted",
		     s->nfiles > 1 ? " in each file" : "", (unsigned long long)s->warmup_dropped);
	else if (warmup)
		gt_out_note(p->out, p->fmt, "warm-up: first %llu launches of each kernel%s dropped (%llu in all); copies and "
		        "memsets all counted",
		     (unsigned long long)warmup, s->nfiles > 1 ? " in each file" : "",
		     (unsigned long long)s->warmup_dropped);
	else
		gt_out_note(p->out, p->fmt, "warm-up: none dropped (--warmup 0)");
	if (s->kernels_bad)
		gt_out_note(p->out, p->fmt, "excluded: %llu kernel launches with bad timestamps (GT_KERNEL_BAD_TIMES or end < "
		        "start)",
		     (unsigned long long)s->kernels_bad);
	if (s->copies_bad || s->memsets_bad)
		gt_out_note(p->out, p->fmt, "excluded: %llu copies and %llu memsets with end < start",
		     (unsigned long long)s->copies_bad, (unsigned long long)s->memsets_bad);
	if (s->copies_tool)
		gt_out_note(p->out, p->fmt, "excluded: %llu copies made by gputrace's shadow capture, not by the program",
		     (unsigned long long)s->copies_tool);
	gt_out_note(p->out, p->fmt, "%s", DEFINITIONS);
	gt_out_note(p->out, p->fmt, "durations in microseconds (us), totals in milliseconds; share: of all kernels' summed "
	        "time (kernels may overlap)");
}

static void json_head(const struct printer *p, const struct gt_summary *s, uint64_t warmup,
                      const char *sort, const struct gt_name_filter *filter)
{
	struct gt_json *j = p->json;
	gt_cmd_json_head(j, "summary");
	gt_json_key_str(j, "measured", MEASURED);
	gt_json_key_str(j, "unit", "ns");
	gt_json_key_array(j, "files");
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct gt_summary_file *f = &s->files[i];
		gt_json_object_begin(j);
		gt_json_key_u64(j, "index", i + 1);
		gt_json_key_str(j, "path", f->path);
		gt_json_key_u64(j, "kernels", f->kernels);
		gt_json_key_u64(j, "memcpys", f->memcpys);
		gt_json_key_u64(j, "memsets", f->memsets);
		gt_json_trace_state(j, f->complete, f->lost_bytes, f->synthetic != NULL);
		gt_json_object_end(j);
	}
	gt_json_array_end(j);
	gt_json_key_u64(j, "warmup_per_kernel", warmup);
	gt_json_key_u64(j, "warmup_dropped", s->warmup_dropped);
	gt_cmd_json_bad_times(j, s->kernels_bad, s->copies_bad, s->memsets_bad);
	gt_json_key_str(j, "kernel_filter", filter->active ? filter->pattern : NULL);
	gt_json_key_u64(j, "kernels_hidden", s->kernels_hidden);
	gt_json_key_num(j, "kernel_total_ns", s->kernel_total_ns);
	gt_json_key_str(j, "sort", sort);
	gt_cmd_json_statistics(j, 1);
	gt_json_key_str(j, "stddev", "sample (n - 1)");
	gt_json_key(j, "outliers");
	gt_json_str(j, "mad: |x - median| > 3 * 1.4826 * MAD; meanad (MAD = 0): |x - median| > 3 * "
	               "1.2533 * mean |x - median|; none: all values equal");
	gt_json_object_end(j);
}

/* What the printer needs besides the summary: the options that shape the output. */
struct job {
	enum gt_format fmt;
	const struct gt_summary *s;
	uint64_t warmup;
	int sort;
	uint64_t top;
	const struct gt_name_filter *filter;
};

/* gt_cmd_printer: the whole output, in x->fmt. A positive return is an error already reported. */
static int print(FILE *out, struct gt_json *j, void *ctx)
{
	const struct job *x = ctx;
	const struct gt_summary *s = x->s;
	enum gt_format fmt = x->fmt;
	size_t shown = x->top && x->top < s->nkernels ? (size_t)x->top : s->nkernels;
	struct printer p = { fmt, out, j, s->nfiles > 1, NULL };
	int trc = 0;
	if (fmt == GT_FMT_JSON) {
		json_head(&p, s, x->warmup, sort_names[x->sort], x->filter);
	} else if (fmt == GT_FMT_CSV) {
		if (!(p.csv = gt_table_new(fmt, out, NULL)))
			return gt_error("summary: out of memory");
		columns(&p, p.csv, GT_SUMMARY_KERNEL);
	} else {
		preamble(&p, s, x->warmup);
	}
	char title[512];
	if (x->filter->active)
		snprintf(title, sizeof title, "kernels: %zu of %zu shown (--kernel '%s'%s), sorted by %s",
		         shown, s->nkernels + s->kernels_hidden, x->filter->pattern, shown < s->nkernels ? ", --top" : "",
		         sort_names[x->sort]);
	else
		snprintf(title, sizeof title, "kernels: %zu of %zu shown%s, sorted by %s", shown, s->nkernels,
		         shown < s->nkernels ? " (--top)" : "", sort_names[x->sort]);
	gt_out_heading(p.out, p.fmt, 2, title);
	if (shown || fmt == GT_FMT_JSON || fmt == GT_FMT_CSV)
		trc = table(&p, "kernels", GT_SUMMARY_KERNEL, s->kernels, shown);
	else
		gt_out_note(p.out, p.fmt, "no kernel launches counted");
	if (!trc && (s->ncopies || fmt == GT_FMT_JSON || fmt == GT_FMT_CSV)) {
		gt_out_heading(p.out, p.fmt, 2, "copies (memcpy durations by copy kind and source->destination memory; all counted)");
		trc = table(&p, "copies", GT_SUMMARY_MEMCPY, s->copies, s->ncopies);
	}
	if (!trc && (s->nmemsets || fmt == GT_FMT_JSON || fmt == GT_FMT_CSV)) {
		gt_out_heading(p.out, p.fmt, 2, "memsets (durations by memory kind; all counted)");
		trc = table(&p, "memsets", GT_SUMMARY_MEMSET, s->memsets, s->nmemsets);
	}
	if (!trc && fmt == GT_FMT_CSV)
		trc = gt_table_close(p.csv);
	if (fmt == GT_FMT_JSON) {
		gt_json_object_end(j);
		if (!trc)
			trc = gt_json_finish(j);
	}
	return trc;
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
	rc = gt_cmd_print(call, print, &(struct job){ fmt, &s, warmup, sort, top, &filter });
done:
	gt_summary_release(&s);
	return rc;
}

const struct gt_command gt_cmd_summary = {
	"summary", "per-kernel statistics", "FILE...", 1, -1,
	"Per-kernel statistics of " MEASURED ":\n"
	"launches, total time, share of kernel time, median, MAD (raw and x1.4826), p90, p99, min,\n"
	"max, mean, stddev, IQR, outliers; then the same for memcpy by copy kind and memory kinds,\n"
	"and memset. Several files are merged by kernel name. gpuanalyze(1) defines each statistic.",
	options, reset, run,
};
GT_COMMAND_ENTRY(summary)

/* cmd_split.c: `gpuanalyze split`: per unit of work (frame, step, iteration), end to end against
 * GPU kernel time, copies by direction, their overlap, API time, launch latency and GPU idle; then
 * the distribution of each across units.
 *
 * Options and printing only; split.c computes and split.h defines every column. The output names
 * the units and how they were chosen, how many warm-up units were dropped, says which numbers are
 * unions and which medians, and defines its statistics. Text and Markdown show microseconds (unit
 * starts in milliseconds from the trace's start) and at most --units rows of units; JSON and CSV
 * give nanoseconds and every unit.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "traces/gputrace.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/engines/split.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ATTRIBUTION_TEXT                                                                           \
	"an operation belongs to every unit its interval overlaps, and only its part "               \
	"inside the unit is timed; NVTX, API and GPU timestamps are all on the CUPTI clock"
/* The text's note carries the label; in JSON the key is the label and the value the rest. */
#define ATTRIBUTION "attribution: " ATTRIBUTION_TEXT
#define COLUMNS_TEXT                                                                               \
	"wall = unit end - start; kernel = union of kernel intervals (kernels running at "            \
	"once count once: a union, not a sum); HtoD, DtoH, DtoD, ... = union of that direction's "   \
	"copies; memset = union of memsets; copy+kernel = time when a copy and a kernel ran at once; " \
	"API = union of CUDA API calls on all threads; GPU idle = wall - union of all GPU work "      \
	"(kernels, copies, memsets); launch = median over the unit's kernels of kernel start - "     \
	"launch call start (paired by correlation id); kernels, copies = how many overlap the unit"
/* The text's note carries the label; in JSON the key is the label and the value the rest. */
#define COLUMNS "columns: " COLUMNS_TEXT
#define STATISTICS                                                                                 \
	"statistics across units: median; MAD = median |x - median|, raw and x1.4826; p90, p99 by "   \
	"NumPy's default 'linear' rule; gpuanalyze(1) defines them"

/* What the filler needs besides the split: the options that shape the output. */
struct job {
	const struct gt_split *s;
	uint64_t warmup, limit;
	int distribution_only;
	int people;              /* text and md: the shown columns and --units rows only */
	int shown[GT_M_COUNT];   /* text/md: metric columns shown */
};

static const char *pl(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

static const char *mode_name(int mode)
{
	return mode == GT_SPLIT_NVTX ? "nvtx" : mode == GT_SPLIT_SYNC ? "sync"
	     : mode == GT_SPLIT_WINDOW ? "window" : "process";
}

/* What the units are, in one sentence. */
static void units_sentence(const struct gt_split *s, char *buf, size_t len)
{
	if (s->mode == GT_SPLIT_NVTX && s->range_given)
		snprintf(buf, len, "units: each instance of the NVTX range '%s' (--range), %llu in all",
		         s->range, (unsigned long long)s->units_total);
	else if (s->mode == GT_SPLIT_NVTX)
		snprintf(buf, len,
		         "units: each instance of the NVTX range '%s', the most frequent top-level range %s "
		         "(%llu instances; --range NAME picks another)",
		         s->range,
		         s->range_domain_default ? "of the program's own (default NVTX domain)"
		                                 : "of any NVTX domain (none is in the default domain)",
		         (unsigned long long)s->units_total);
	else if (s->mode == GT_SPLIT_SYNC)
		snprintf(buf, len,
		         "units: the intervals between host synchronisations (no NVTX ranges): %llu stream, "
		         "context and event syncs cut the timeline from the first API call or GPU operation "
		         "to the last end; %llu units, %llu intervals without GPU work left out",
		         (unsigned long long)s->syncs, (unsigned long long)s->units_total,
		         (unsigned long long)s->empty_dropped);
	else if (s->mode == GT_SPLIT_WINDOW)
		snprintf(buf, len,
		         "units: the recording windows (recorded with GPUTRACE_WINDOW, no NVTX ranges): "
		         "%llu %s", (unsigned long long)s->units_total, pl(s->units_total, "unit", "units"));
	else
		snprintf(buf, len,
		         "units: the whole process (no NVTX ranges, no host synchronisations): from its "
		         "start record to its exit record, else from the first API call or GPU operation "
		         "to the last end");
}

/* The human formats' notes on the trace, the units and the columns (JSON says them as facts). */
static void preamble(struct gt_doc *d, const struct gt_split *s)
{
	gt_doc_title(d, "gpuanalyze split");
	gt_doc_note(d, "trace: %s (%llu kernel, %llu memcpy, %llu memset, %llu API, %llu sync, %llu NVTX records)",
	     s->path, (unsigned long long)s->kernels, (unsigned long long)s->copies,
	     (unsigned long long)s->memsets, (unsigned long long)s->apis,
	     (unsigned long long)s->syncs_read, (unsigned long long)s->nvtx_read);
	gt_cmd_doc_synthetic(d, s->path, s->synthetic);
	gt_cmd_doc_incomplete(d, s->path, s->complete, s->lost_bytes);
	if (s->kernels_bad || s->copies_bad || s->memsets_bad)
		gt_doc_note(d, "excluded: %llu kernels, %llu copies and %llu memsets with bad timestamps "
		        "(GT_KERNEL_BAD_TIMES or end < start)",
		     (unsigned long long)s->kernels_bad, (unsigned long long)s->copies_bad,
		     (unsigned long long)s->memsets_bad);
	char buf[1024];
	units_sentence(s, buf, sizeof buf);
	gt_doc_note(d, "%s", buf);
	if (s->windows)
		gt_doc_note(d, "recorded in windows: %llu %s, %.3f s of a %.3f s run (%.1f%%); "
		            "nothing outside them was recorded",
		            (unsigned long long)s->windows, pl(s->windows, "window", "windows"),
		            (double)s->window_ns / 1e9, (double)s->run_ns / 1e9,
		            s->run_ns ? 100.0 * (double)s->window_ns / (double)s->run_ns : 0.0);
	if (s->mode == GT_SPLIT_NVTX && s->nnames > (s->range_given ? 0u : 1u)) {
		char list[1024] = "";
		size_t len = 0;
		size_t shown = 0;
		for (size_t i = 0; i < s->nnames && len < sizeof list - 80; i++) {
			if (!s->range_given && strcmp(s->names[i].name, s->range) == 0)
				continue;
			len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s' (%llu)", shown++ ? ", " : "",
			                        s->names[i].name, (unsigned long long)s->names[i].count);
		}
		if (shown)
			gt_doc_note(d, "  %s top-level ranges: %s", s->range_given ? "the trace's" : "other", list);
	}
	if (s->warmup_dropped)
		gt_doc_note(d, "warm-up: the first %llu %s by start time dropped (--warmup %llu); %zu %s measured",
		     (unsigned long long)s->warmup_dropped, pl(s->warmup_dropped, "unit", "units"),
		     (unsigned long long)s->warmup_dropped, s->nunits, pl(s->nunits, "unit", "units"));
	else
		gt_doc_note(d, "warm-up: none dropped (--warmup 0); %zu %s measured", s->nunits, pl(s->nunits, "unit", "units"));
	gt_doc_note(d, "%s", ATTRIBUTION);
	gt_doc_note(d, "%s", COLUMNS);
	if (s->launches_paired)
		gt_doc_note(d, "launch latency: %llu of %llu kernels paired with their launch call, %llu of them "
		        "with queued timestamps (call->queued, queued->start: medians per unit of queued - "
		        "call start and start - queued; per unit in json and csv)",
		     (unsigned long long)s->launches_paired,
		     (unsigned long long)(s->kernels - s->kernels_bad), (unsigned long long)s->launches_queued);
	else
		gt_doc_note(d, "launch latency: unavailable: no kernel could be paired with a launch API call "
		        "(API records missing, or no kernels)");
	gt_doc_note(d, "%s", STATISTICS);
}

/* The one-line answer to "kernel 4.1 ms, end to end 11.8 ms". */
static void headline(struct gt_doc *d, const struct gt_split *s)
{
	if (!s->nunits)
		return;
	const struct gt_stats *st = s->st;
	double wall = st[GT_M_WALL].median, k = st[GT_M_KERNEL].median;
	char copies[256] = "";
	size_t len = 0;
	for (int dir = 0; dir < GT_DIR_COUNT; dir++) {
		if (!s->dir_copies[dir])
			continue;
		len += (size_t)snprintf(copies + len, sizeof copies - len, ", %s %.3f ms",
		                        gt_split_dir_name((enum gt_split_dir)dir), st[GT_M_HTOD + dir].median / 1e6);
	}
	gt_doc_note(d, "medians across units: end to end %.3f ms, kernel %.3f ms (%.1f%% of end to end)%s, API "
	        "%.3f ms, GPU idle %.3f ms",
	     wall / 1e6, k / 1e6, wall > 0 ? 100 * k / wall : NAN, copies, st[GT_M_API].median / 1e6,
	     st[GT_M_IDLE].median / 1e6);
}

static void us(struct gt_table *t, double ns) { gt_table_num_as(t, ns, ns / 1e3, 1); }

/* The metric is named by its title for people, by its key for machines. */
static int distribution(struct gt_doc *d, const struct job *x)
{
	const struct gt_split *s = x->s;
	const struct gt_column cols[] = {
		{ "metric", "metric", GT_COL_LEFT | GT_COL_HUMAN }, { "metric", "metric", GT_COL_MACHINE },
		{ "n", "n", 0 }, { "median_ns", "median", 0 },
		{ "mad_ns", "MAD", 0 }, { "mad_scaled_ns", "MADx1.4826", 0 }, { "p90_ns", "p90", 0 },
		{ "p99_ns", "p99", 0 }, { "min_ns", "min", 0 }, { "max_ns", "max", 0 },
	};
	struct gt_table *t = gt_doc_table(d, "distribution", GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	for (int m = 0; m < GT_M_COUNT; m++) {
		/* The latency's two parts have rows here when some launch has them, though the
		 * per-unit table leaves them to json and csv. */
		int part = m == GT_M_LAUNCH_QUEUE || m == GT_M_LAUNCH_START;
		if (x->people && !x->shown[m] && !(part && s->launches_queued))
			continue;
		const struct gt_stats *st = &s->st[m];
		gt_table_str(t, gt_split_metric_title((enum gt_split_metric)m));
		gt_table_str(t, gt_split_metric_key((enum gt_split_metric)m));
		gt_table_u64(t, st->n);
		us(t, st->median);
		us(t, st->mad);
		us(t, st->mad_scaled);
		us(t, st->p90);
		us(t, st->p99);
		us(t, st->min);
		us(t, st->max);
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

static void unit_columns(const struct job *x, struct gt_table *t)
{
	const struct gt_column cols[] = {
		{ "index", "#", 0 }, { "start_ns", "start ms", 0 },
		{ "cupti_start_ns", "cupti start", GT_COL_MACHINE },
		{ "thread_id", "thread", GT_COL_MACHINE },
	};
	gt_table_columns(t, GT_COLUMNS(cols));
	for (int m = 0; m < GT_M_COUNT; m++)
		gt_table_column(t, gt_split_metric_key((enum gt_split_metric)m),
		                gt_split_metric_title((enum gt_split_metric)m), x->shown[m] ? 0 : GT_COL_MACHINE);
	gt_table_column(t, "kernels", "kernels", 0);
	gt_table_column(t, "copies", "copies", 0);
}

static void unit_row(const struct gt_split *s, struct gt_table *t, const struct gt_split_unit *u)
{
	gt_table_u64(t, u->index);
	uint64_t off = u->start - s->origin;
	gt_table_u64_as(t, off, (double)off / 1e6, 3);
	gt_table_u64(t, u->start);
	if (s->mode == GT_SPLIT_NVTX)
		gt_table_u64(t, u->thread_id);
	else
		gt_table_null(t);
	for (int m = 0; m < GT_M_COUNT; m++)
		us(t, u->v[m]);
	gt_table_u64(t, u->kernels);
	gt_table_u64(t, u->copies);
	gt_table_end_row(t);
}

/* Text and md show the first --units rows, JSON and CSV every unit. */
static int units_table(struct gt_doc *d, const struct job *x)
{
	const struct gt_split *s = x->s;
	struct gt_table *t = gt_doc_table(d, "units", NULL, 0);
	if (!t)
		return GT_ERR_NOMEM;
	unit_columns(x, t);
	gt_table_when_empty(t, "no units to show");
	size_t n = x->people && x->limit && x->limit < s->nunits ? (size_t)x->limit : s->nunits;
	for (size_t i = 0; i < n; i++)
		unit_row(s, t, &s->units[i]);
	return gt_table_close(t);
}

/* The facts: JSON's head, before its tables. */
static void facts(struct gt_doc *d, const struct gt_split *s, uint64_t warmup)
{
	gt_cmd_doc_head(d, "split");
	gt_doc_str(d, "unit", "ns");
	gt_cmd_doc_trace(d, s->path, s->complete, s->lost_bytes, s->synthetic != NULL);
	gt_doc_u64(d, "origin_cupti_ns", s->origin);
	gt_doc_object(d, "records");
	const char *keys[] = { "kernel", "memcpy", "memset", "api", "sync", "nvtx" };
	uint64_t vals[] = { s->kernels, s->copies, s->memsets, s->apis, s->syncs_read, s->nvtx_read };
	for (int i = 0; i < 6; i++)
		gt_doc_u64(d, keys[i], vals[i]);
	gt_doc_end(d);
	gt_cmd_doc_bad_times(d, s->kernels_bad, s->copies_bad, s->memsets_bad);
	if (s->windows) {
		/* Only in windowed traces: how much of the run the records can speak for. */
		gt_doc_object(d, "windows");
		gt_doc_u64(d, "count", s->windows);
		gt_doc_u64(d, "recorded_ns", s->window_ns);
		gt_doc_u64(d, "run_ns", s->run_ns);
		gt_doc_end(d);
	}
	gt_doc_end(d);

	gt_doc_object(d, "units_from");
	gt_doc_str(d, "mode", mode_name(s->mode));
	gt_doc_str(d, "range", s->mode == GT_SPLIT_NVTX ? s->range : NULL);
	gt_doc_bool(d, "range_given", s->range_given);
	gt_doc_str(d, "top_level_pool", s->mode != GT_SPLIT_NVTX ? NULL
	                                : s->range_domain_default ? "default domain" : "all domains");
	gt_doc_array(d, "top_level_ranges");
	for (size_t i = 0; i < s->nnames; i++) {
		gt_doc_object(d, NULL);
		gt_doc_str(d, "name", s->names[i].name);
		gt_doc_u64(d, "count", s->names[i].count);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_u64(d, "host_syncs", s->syncs);
	gt_doc_u64(d, "intervals_without_gpu_work", s->empty_dropped);
	gt_doc_u64(d, "units_total", s->units_total);
	gt_doc_u64(d, "warmup", warmup);
	gt_doc_u64(d, "warmup_dropped", s->warmup_dropped);
	gt_doc_u64(d, "units_measured", s->nunits);
	char buf[1024];
	units_sentence(s, buf, sizeof buf);
	gt_doc_str(d, "description", buf + strlen("units: "));
	gt_doc_end(d);

	gt_doc_object(d, "launches");
	gt_doc_u64(d, "kernels", s->kernels - s->kernels_bad);
	gt_doc_u64(d, "paired", s->launches_paired);
	gt_doc_u64(d, "with_queued", s->launches_queued);
	gt_doc_end(d);
	gt_doc_str(d, "attribution", ATTRIBUTION_TEXT);
	gt_doc_str(d, "columns", COLUMNS_TEXT);
	gt_cmd_doc_statistics(d, 1);
	gt_doc_end(d);
}

/* The headings of the two tables, for people. */
static void distribution_heading(struct gt_doc *d, const struct gt_split *s)
{
	char title[256];
	snprintf(title, sizeof title, "distribution across %zu %s (us)", s->nunits, pl(s->nunits, "unit", "units"));
	gt_doc_heading(d, 2, title);
}

static void units_heading(struct gt_doc *d, const struct job *x)
{
	const struct gt_split *s = x->s;
	size_t shown = x->limit && x->limit < s->nunits ? (size_t)x->limit : s->nunits;
	char title[256];
	snprintf(title, sizeof title, "units (us; start in ms from the trace's start): %zu of %zu shown%s",
	         shown, s->nunits, shown < s->nunits ? " (--units 0 shows all)" : "");
	gt_doc_heading(d, 2, title);
}

/* gt_cmd_filler: the facts, the notes, the distribution and the units. CSV holds one of the two
 * tables (--distribution picks it, and is refused in any other format); the others hold both. */
static int fill(struct gt_doc *d, void *ctx)
{
	struct job *x = ctx;
	const struct gt_split *s = x->s;
	enum gt_format fmt = gt_doc_format(d);
	x->people = gt_doc_for_people(d);
	for (int m = 0; m < GT_M_COUNT; m++)
		x->shown[m] = 1;
	/* Text and md leave out the directions and memsets the trace has none of, and the latency's
	 * parts; JSON and CSV hold every column. */
	for (int dir = 0; dir < GT_DIR_COUNT; dir++)
		x->shown[GT_M_HTOD + dir] = s->dir_copies[dir] > 0;
	x->shown[GT_M_MEMSET] = s->memsets > 0;
	x->shown[GT_M_LAUNCH_QUEUE] = x->shown[GT_M_LAUNCH_START] = 0;
	facts(d, s, x->warmup);
	preamble(d, s);
	distribution_heading(d, s);
	int rc = fmt != GT_FMT_CSV || x->distribution_only ? distribution(d, x) : 0;
	if (!rc) {
		gt_doc_words(d, "\n"); /* Markdown: a list item right after a table needs the blank line */
		headline(d, s);
		units_heading(d, x);
		if (!x->distribution_only)
			rc = units_table(d, x);
	}
	gt_doc_end(d); /* the JSON document */
	return rc;
}

/* The options; reset() gives them their defaults (0 where none is named) before each parse. */
struct args {
	uint64_t warmup, limit;
	const char *range;
	enum gt_format fmt;
	int distribution_only;
};
static struct args arg;

static const struct gt_option options[] = {
	{ .kind = GT_OPT_STRING, .long_name = "range", .arg = "NAME", .value = &arg.range,
	  .help = "units are the instances of the NVTX range NAME (default: the most frequent "
	          "top-level range)" },
	{ .kind = GT_OPT_UINT, .long_name = "warmup", .arg = "N", .value = &arg.warmup,
	  .help = "drop the first N units, by start time (default 0)" },
	{ .kind = GT_OPT_UINT, .long_name = "units", .arg = "N", .value = &arg.limit,
	  .help = "text and md: show the first N units (default 50; 0: all); json and csv hold all" },
	GT_OPT_FORMAT(&arg.fmt, GT_FMT_ALL),
	{ .kind = GT_OPT_FLAG, .long_name = "distribution", .value = &arg.distribution_only,
	  .help = "csv: the distribution across units (one row per column of the units) "
	          "instead of the units" },
	GT_OPT_END_OF_LIST,
};

static void reset(void) { arg = (struct args){ .limit = 50, .fmt = GT_FMT_TEXT }; }

static int run(const struct gt_cmd_call *call)
{
	/* CSV holds one kind of row, so that a query over the whole file means what it says: the
	 * units, or with --distribution their statistics. The other formats show both. */
	if (arg.distribution_only && arg.fmt != GT_FMT_CSV)
		return gt_error("split: --distribution is for --format csv (text, md and json always show "
		                "the distribution)");
	struct gt_split s;
	struct gt_split_options o = { arg.range, arg.warmup };
	int rc = gt_split_run(&s, call->files[0], &o);
	if (!rc) {
		struct job x = { &s, arg.warmup, arg.limit, arg.distribution_only, 0, { 0 } };
		rc = gt_cmd_render(call, arg.fmt, fill, &x);
	}
	gt_split_release(&s);
	return rc;
}

const struct gt_command gt_cmd_split = {
	.name = "split",
	.help = "per frame or step: end to end vs kernel, copies, API, launch latency, idle",
	.operands = "FILE",
	.min_operands = 1,
	.max_operands = 1,
	.description =
	"Where the time of each unit of work goes: per instance of an NVTX range (a frame, a\n"
	"step), else per interval between host synchronisations, else for the whole process:\n"
	"wall (end to end), GPU kernel busy (union of kernel intervals), copies by direction,\n"
	"copy/kernel overlap, API time, launch latency and GPU idle; then median, MAD, p90 and\n"
	"p99 of each across units. gpuanalyze(1) defines every column.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(split)

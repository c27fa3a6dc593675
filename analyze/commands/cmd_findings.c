/* cmd_findings.c: `gpuanalyze findings`: what in a trace is worth fixing or makes its numbers
 * doubtful, each finding with what, where, what it cost (and how that was estimated) and what to do.
 *
 * Options and printing only; findings.c runs the rules that findings.h defines. Findings are not
 * failures: the exit status is 0 unless --fail-on SEVERITY is given and a finding of that severity
 * or higher exists (then 1), so that CI can gate on, say, lost records without failing on advice.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/engines/findings.h"
#include "traces/gputrace.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const severities[] = { "info", "warning", "error", NULL };

static void item(struct gt_doc *d, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A line of the preamble: "label: text" in text, a list item in Markdown. The label is ours; the
 * text holds the trace's names and metadata, so the document escapes it. */
static void item(struct gt_doc *d, const char *label, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	gt_doc_item(d, label, buf);
}

static void rules_text(const struct gt_findings_options *o, char *buf, size_t len)
{
	snprintf(buf, len,
	         "idle gaps >= %.3f ms; low utilisation: %u slices of each device's GPU span, < %.0f%% "
	         "busy; first launch >= %.1fx the median of the others (kernels launched >= %d times); "
	         "bimodal: >= %llu launches, sorted durations with a gap >= %.2fx leaving >= %.0f%% on each "
	         "side; small copies: as gpuanalyze bandwidth flags them",
	         (double)o->gap_ns / 1e6, o->slices, o->util_pct, o->first_ratio, GT_FINDINGS_MIN_LAUNCHES,
	         (unsigned long long)o->bimodal_min, o->bimodal_ratio, 100 * o->bimodal_share);
}

static void severity_text(const struct gt_findings_options *o, char *buf, size_t len)
{
	snprintf(buf, len,
	         "error = records are missing (every number may be off); warning = cost >= %.0f%% of the "
	         "GPU span, throttling, an SM clock range >= %.0f%% while busy, a bimodal kernel, or a "
	         "first launch whose excess is >= %.0f%% of its kernel's time; info = the rest",
	         o->warn_pct, o->warn_pct, o->warn_pct);
}

static void cost_text(const struct gt_finding *f, char *buf, size_t len)
{
	if (isnan(f->cost_ns))
		snprintf(buf, len, "%s", f->cost_how);
	else
		snprintf(buf, len, "%.3f ms: %s", f->cost_ns / 1e6, f->cost_how);
}

/* One fact of a finding: a bold label in a Markdown list; in text an indented label, its text
 * aligned with the other facts'. */
static void fact(struct gt_doc *d, const char *md_label, const char *text_label, const char *s)
{
	gt_doc_words_by_format(d, md_label, text_label);
	gt_doc_prose(d, s);
	gt_doc_words(d, "\n");
}

/* The human formats' account: the trace, the rules, then each finding under its numbered heading. */
static void human(struct gt_doc *d, const struct gt_findings *F)
{
	char buf[1024];
	gt_doc_title(d, "gpuanalyze findings");
	item(d, "trace", "%s (%llu kernel, %llu memcpy, %llu memset, %llu API, %llu sync, %llu clock-sample records)",
	     F->path, (unsigned long long)F->kernels, (unsigned long long)F->copies,
	     (unsigned long long)F->memsets, (unsigned long long)F->apis, (unsigned long long)F->syncs,
	     (unsigned long long)F->clock_samples);
	if (F->synthetic)
		item(d, "NOTE", "%s is SYNTHETIC (META trace.synthetic = \"%s\"): written by a program, not "
		                "recorded on a GPU",
		     F->path, F->synthetic);
	if (F->gpu_last > F->gpu_first)
		item(d, "GPU span", "%.3f ms, from the first GPU operation's start (+%.3f ms from the trace's "
		                    "start) to the last one's end",
		     (double)(F->gpu_last - F->gpu_first) / 1e6, (double)(F->gpu_first - F->origin) / 1e6);
	else
		item(d, "GPU span", "none: no GPU operations in the trace");
	rules_text(&F->opt, buf, sizeof buf);
	item(d, "rules", "%s", buf);
	severity_text(&F->opt, buf, sizeof buf);
	item(d, "severity", "%s", buf);
	item(d, "where", "times are from the trace's start (its earliest timestamp)");
	item(d, "findings", "%zu (%zu error, %zu warning, %zu info)", F->n, F->by_severity[GT_SEV_ERROR],
	     F->by_severity[GT_SEV_WARNING], F->by_severity[GT_SEV_INFO]);
	for (size_t i = 0; i < F->n; i++) {
		const struct gt_finding *f = &F->f[i];
		char cost[1024], title[256];
		cost_text(f, cost, sizeof cost);
		/* The id is a rule's, ours: the heading's text rule leaves it as it is. */
		snprintf(title, sizeof title, "%zu. [%s] %s", i + 1, gt_severity_name(f->severity), f->id);
		gt_doc_heading(d, 2, title);
		fact(d, "- **what**: ", "   what:  ", f->what);
		fact(d, "- **where**: ", "   where: ", f->where);
		fact(d, "- **cost**: ", "   cost:  ", cost);
		fact(d, "- **do**: ", "   do:    ", f->todo);
	}
}

/* The facts: the trace, the rules and every finding, for JSON. */
static void facts(struct gt_doc *d, const struct gt_findings *F)
{
	char buf[1024];
	gt_cmd_doc_head(d, "findings");
	gt_cmd_doc_trace(d, F->path, F->complete, F->lost_bytes, F->synthetic != NULL);
	gt_doc_u64(d, "origin_cupti_ns", F->origin);
	gt_doc_u64(d, "gpu_span_ns", F->gpu_last > F->gpu_first ? F->gpu_last - F->gpu_first : 0);
	gt_doc_end(d);
	rules_text(&F->opt, buf, sizeof buf);
	gt_doc_str(d, "rules", buf);
	severity_text(&F->opt, buf, sizeof buf);
	gt_doc_str(d, "severity", buf);
	gt_doc_object(d, "counts");
	for (int s = GT_SEV_ERROR; s >= GT_SEV_INFO; s--)
		gt_doc_u64(d, gt_severity_name(s), F->by_severity[s]);
	gt_doc_end(d);
	gt_doc_array(d, "findings");
	for (size_t i = 0; i < F->n; i++) {
		const struct gt_finding *f = &F->f[i];
		gt_doc_object(d, NULL);
		gt_doc_str(d, "id", f->id);
		gt_doc_str(d, "severity", gt_severity_name(f->severity));
		gt_doc_str(d, "what", f->what);
		gt_doc_u64(d, "count", f->count);
		gt_doc_object(d, "where");
		gt_doc_u64_if(d, "offset_ns", f->has_offset, f->offset_ns);
		gt_doc_str(d, "kernel", f->kernel);
		gt_doc_str(d, "kernel_name", f->kernel_name);
		gt_doc_i64_if(d, "stream", f->stream >= 0, f->stream);
		gt_doc_str(d, "text", f->where);
		gt_doc_end(d);
		gt_doc_num(d, "cost_ns", f->cost_ns);
		gt_doc_str(d, "cost_how", f->cost_how);
		gt_doc_str(d, "todo", f->todo);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_end(d); /* the JSON document */
}

/* gt_cmd_filler: the facts and the human account, each format taking what it carries. */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct gt_findings *F = ctx;
	facts(d, F);
	human(d, F);
	return 0;
}

static int fail_on;
static enum gt_format fmt;

static const struct gt_option options[] = {
	GT_OPT_FORMAT(&fmt, GT_FMT_TEXT | GT_FMT_MD | GT_FMT_JSON),
	{ .kind = GT_OPT_CHOICE, .long_name = "fail-on", .choices = severities, .value = &fail_on,
	  .help = "exit 1 when a finding of this severity or higher exists (default: exit 0)" },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	fail_on = -1;
	fmt = GT_FMT_TEXT;
}

static int run(const struct gt_cmd_call *call)
{
	struct gt_findings F;
	int rc = gt_findings_run(&F, call->files[0], NULL);
	if (!rc) {
		rc = gt_cmd_render(call, fmt, fill, &F);
	}
	if (!rc && fail_on >= 0 && gt_findings_max_severity(&F) >= fail_on)
		rc = GT_EXIT_CHECK;
	gt_findings_release(&F);
	return rc;
}

const struct gt_command gt_cmd_findings = {
	.name = "findings",
	.help = "what to fix: sync copies, idle gaps, warm-up, throttling, lost records",
	.operands = "FILE",
	.min_operands = 1,
	.max_operands = 1,
	.description =
	"What in the trace is worth fixing, or makes its numbers doubtful: synchronous and\n"
	"pageable copies, synchronous memsets, device-wide synchronisation, GPU idle gaps, low\n"
	"utilisation, first launches far slower than the rest, bimodal kernels, clocks that\n"
	"moved or throttled, records lost. Each with where, what it cost and what to do.\n"
	"gpuanalyze(1) defines every rule and threshold.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(findings)

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
#include "analyze/output/escape.h"
#include "analyze/engines/findings.h"
#include "gputrace.h"
#include "analyze/output/json_member.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const severities[] = { "info", "warning", "error", NULL };

struct printer {
	enum gt_format fmt;
	FILE *out;
	const struct gt_findings *F;
};

static void text(const struct printer *p, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A line of the preamble: "label: text" in text, a list item in Markdown. The label is ours; the
 * text holds the trace's names and metadata, so it is escaped by the format's rule. */
static void text(const struct printer *p, const char *label, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (p->fmt == GT_FMT_MD) {
		fprintf(p->out, "- %s%s", label ? label : "", label ? ": " : "");
		gt_esc_md(p->out, buf);
		fputc('\n', p->out);
	} else {
		fprintf(p->out, "%s%s", label ? label : "", label ? ": " : "");
		gt_esc_text(p->out, buf);
		fputc('\n', p->out);
	}
}

static void rules_text(const struct gt_findings_options *o, char *buf, size_t len)
{
	snprintf(buf, len,
	         "idle gaps >= %.3f ms; low utilisation: %u slices of each device's GPU span, < %.0f%% "
	         "busy; first launch >= %.1fx the median of the others (kernels launched >= 3 times); "
	         "bimodal: >= %llu launches, sorted durations with a gap >= %.2fx leaving >= %.0f%% on each "
	         "side; small copies: as gpuanalyze bandwidth flags them",
	         (double)o->gap_ns / 1e6, o->slices, o->util_pct, o->first_ratio,
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

static void print_human(const struct printer *p)
{
	const struct gt_findings *F = p->F;
	char buf[1024];
	if (p->fmt == GT_FMT_MD)
		fputs("# gpuanalyze findings\n\n", p->out);
	text(p, "trace", "%s (%llu kernel, %llu memcpy, %llu memset, %llu API, %llu sync, %llu clock-sample records)",
	     F->path, (unsigned long long)F->kernels, (unsigned long long)F->copies,
	     (unsigned long long)F->memsets, (unsigned long long)F->apis, (unsigned long long)F->syncs,
	     (unsigned long long)F->clock_samples);
	if (F->synthetic)
		text(p, "NOTE", "%s is SYNTHETIC (META trace.synthetic = \"%s\"): written by a program, not "
		                "recorded on a GPU",
		     F->path, F->synthetic);
	if (F->gpu_last > F->gpu_first)
		text(p, "GPU span", "%.3f ms, from the first GPU operation's start (+%.3f ms from the trace's "
		                    "start) to the last one's end",
		     (double)(F->gpu_last - F->gpu_first) / 1e6, (double)(F->gpu_first - F->origin) / 1e6);
	else
		text(p, "GPU span", "none: no GPU operations in the trace");
	rules_text(&F->opt, buf, sizeof buf);
	text(p, "rules", "%s", buf);
	severity_text(&F->opt, buf, sizeof buf);
	text(p, "severity", "%s", buf);
	text(p, "where", "times are from the trace's start (its earliest timestamp)");
	text(p, "findings", "%zu (%zu error, %zu warning, %zu info)", F->n, F->by_severity[GT_SEV_ERROR],
	     F->by_severity[GT_SEV_WARNING], F->by_severity[GT_SEV_INFO]);
	for (size_t i = 0; i < F->n; i++) {
		const struct gt_finding *f = &F->f[i];
		char cost[1024];
		cost_text(f, cost, sizeof cost);
		if (p->fmt == GT_FMT_MD) {
			fprintf(p->out, "\n## %zu. [%s] %s\n\n", i + 1, gt_severity_name(f->severity), f->id);
			text(p, "**what**", "%s", f->what);
			text(p, "**where**", "%s", f->where);
			text(p, "**cost**", "%s", cost);
			text(p, "**do**", "%s", f->todo);
		} else {
			fprintf(p->out, "\n%zu. [%s] %s\n", i + 1, gt_severity_name(f->severity), f->id);
			gt_esc_printf(p->out, gt_esc_text, "   what:  %s\n   where: %s\n   cost:  %s\n   do:    %s\n",
			              f->what, f->where, cost, f->todo);
		}
	}
}

static int print_json(const struct printer *p, struct gt_json *j)
{
	const struct gt_findings *F = p->F;
	char buf[1024];
	gt_cmd_json_head(j, "findings");
	gt_cmd_json_trace(j, F->path, F->complete, F->lost_bytes, F->synthetic != NULL);
	gt_json_key_u64(j, "origin_cupti_ns", F->origin);
	gt_json_key_u64(j, "gpu_span_ns", F->gpu_last > F->gpu_first ? F->gpu_last - F->gpu_first : 0);
	gt_json_object_end(j);
	gt_json_key(j, "rules");
	rules_text(&F->opt, buf, sizeof buf);
	gt_json_str(j, buf);
	gt_json_key(j, "severity");
	severity_text(&F->opt, buf, sizeof buf);
	gt_json_str(j, buf);
	gt_json_key_object(j, "counts");
	for (int s = GT_SEV_ERROR; s >= GT_SEV_INFO; s--)
		gt_json_key_u64(j, gt_severity_name(s), F->by_severity[s]);
	gt_json_object_end(j);
	gt_json_key_array(j, "findings");
	for (size_t i = 0; i < F->n; i++) {
		const struct gt_finding *f = &F->f[i];
		gt_json_object_begin(j);
		gt_json_key_str(j, "id", f->id);
		gt_json_key_str(j, "severity", gt_severity_name(f->severity));
		gt_json_key_str(j, "what", f->what);
		gt_json_key_u64(j, "count", f->count);
		gt_json_key_object(j, "where");
		gt_json_key_u64_if(j, "offset_ns", f->has_offset, f->offset_ns);
		gt_json_key_str(j, "kernel", f->kernel);
		gt_json_key_str(j, "kernel_name", f->kernel_name);
		gt_json_key_i64_if(j, "stream", f->stream >= 0, f->stream);
		gt_json_key_str(j, "text", f->where);
		gt_json_object_end(j);
		gt_json_key_num(j, "cost_ns", f->cost_ns);
		gt_json_key_str(j, "cost_how", f->cost_how);
		gt_json_key_str(j, "todo", f->todo);
		gt_json_object_end(j);
	}
	gt_json_array_end(j);
	gt_json_object_end(j);
	return gt_json_finish(j);
}

/* gt_cmd_printer: the whole output, in p->fmt. */
static int print(FILE *out, struct gt_json *j, void *ctx)
{
	struct printer *p = ctx;
	p->out = out;
	if (p->fmt == GT_FMT_JSON)
		return print_json(p, j);
	print_human(p);
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
		struct printer p = { fmt, NULL, &F };
		rc = gt_cmd_print(call, print, &p);
	}
	if (!rc && fail_on >= 0 && gt_findings_max_severity(&F) >= fail_on)
		rc = GT_EXIT_CHECK;
	gt_findings_release(&F);
	return rc;
}

const struct gt_command gt_cmd_findings = {
	"findings", "what to fix: sync copies, idle gaps, warm-up, throttling, lost records", "FILE", 1, 1,
	"What in the trace is worth fixing, or makes its numbers doubtful: synchronous and\n"
	"pageable copies, synchronous memsets, device-wide synchronisation, GPU idle gaps, low\n"
	"utilisation, first launches far slower than the rest, bimodal kernels, clocks that\n"
	"moved or throttled, records lost. Each with where, what it cost and what to do.\n"
	"gpuanalyze(1) defines every rule and threshold.",
	options, reset, run,
};
GT_COMMAND_ENTRY(findings)

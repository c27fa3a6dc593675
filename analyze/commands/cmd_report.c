/* cmd_report.c: `gpuanalyze report FILE`: the benchmark report (Markdown) with its figures.
 *
 * Options only; report.c computes, report_doc.c fills the document and report_figures.c draws
 * the figures (report_doc.h). With -o REPORT.md the figures go beside it as REPORT-kernels.svg
 * and REPORT-split.svg and the report links them by those relative names; on standard output,
 * and where -o names something other than a regular file (/dev/stdout, a FIFO, a device node, a
 * symbolic link), there is no place for figures: one warning line, and the report says so. The exit status is that of a document:
 * 0 whatever the report says (diff and shadow are the gates), 2 for usage and input errors.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/support/failure.h"
#include "traces/gputrace.h"
#include "analyze/support/options.h"
#include "analyze/support/progress.h"
#include "analyze/commands/report_doc.h"
#include "analyze/engines/report.h"

#include <string.h>
#include <sys/stat.h>

/* The trace to report on, and how. */
struct job {
	const char *path;
	const struct gt_report_options *o;
	const struct gt_report_figure_options *fo;
	int quiet;
};

/* gt_cmd_filler: the report. The engines' words for an input error are held (failure.h) and said
 * by the runner; a write error is left to the output's close, which reports it with its cause;
 * any other failure is reported here, in report's words. */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct job *x = ctx;
	struct gt_report_result res;
	gt_progress_start("report", x->quiet);
	int rc = gt_report_doc(d, x->path, x->o, x->fo, &res);
	gt_progress_done();
	if (rc < 0 && gt_failed())
		return rc; /* gt_cmd_render says the held words and exits 2 */
	if (rc == GT_ERR_IO)
		rc = 0; /* gt_output_close reports it with its cause */
	else if (rc < 0)
		rc = gt_error("report: %s", gt_strerror(rc));
	return rc;
}

static struct gt_report_options opt;
static struct gt_report_figure_options fig;
static uint64_t top, seed;
static int quiet;
static enum gt_format fmt;

static const struct gt_option options[] = {
	{ .kind = GT_OPT_STRING, .long_name = "baseline", .arg = "FILE", .value = &opt.baseline,
	  .input = 1,
	  .help = "compare with this trace (as gpuanalyze diff BASELINE FILE)" },
	{ .kind = GT_OPT_STRING, .long_name = "ref", .alias = "shadow", .arg = "LIB", .value = &opt.refs,
	  .input = 1, .help = "check correctness: replay the trace's captures on this reference library" },
	GT_OPT_WARMUP(&opt.warmup),
	{ .kind = GT_OPT_UINT, .long_name = "top", .arg = "N", .value = &top,
	  .help = "kernels in the tables (default 10; the figure shows at most 8)" },
	{ .kind = GT_OPT_PERCENT, .long_name = "threshold", .arg = "PCT%", .value = &opt.diff.threshold,
	  .help = "the comparison's threshold, with its unit (default 5%)" },
	{ .kind = GT_OPT_UINT, .long_name = "seed", .arg = "N", .value = &seed,
	  .help = "seed of the comparison's bootstrap (default 1)" },
	{ .kind = GT_OPT_FLAG, .long_name = "quiet", .value = &quiet,
	  .help = "no progress line on a terminal's stderr" },
	{ .kind = GT_OPT_FORMAT, .short_name = 'f', .long_name = "format", .value = &fmt, .formats = GT_FMT_MD,
	  .help = "output format (the report is Markdown)" },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	gt_report_options_default(&opt);
	memset(&fig, 0, sizeof fig);
	top = opt.top;
	seed = opt.diff.seed;
	quiet = 0;
	fmt = GT_FMT_MD;
}

static int run(const struct gt_cmd_call *call)
{
	const char *out_path = call->out_path;
	opt.top = top ? (size_t)top : 1;
	opt.diff.seed = seed;
	/* Figures beside the report: REPORT.md -> REPORT-kernels.svg, linked by its own name. */
	char prefix[4096], link[4096];
	int to_file = out_path && strcmp(out_path, "-") != 0;
	struct stat st;
	if (to_file && lstat(out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* /dev/stdout, a FIFO, a device node, a symbolic link: the report goes there, but there
		 * is no folder of the user's beside it for REPORT-kernels.svg (/dev-kernels.svg...). */
		gt_warn("report: '%s' is not a regular file: no figures are written beside it", out_path);
		fig.no_figures = "the report's -o path is not a regular file, and figures go only beside one";
		to_file = 0;
	}
	if (to_file) {
		size_t n = strlen(out_path);
		if (n >= sizeof prefix)
			return gt_error("report: output path too long: '%s'", out_path);
		memcpy(prefix, out_path, n + 1);
		if (n > 3 && strcmp(prefix + n - 3, ".md") == 0)
			prefix[n - 3] = '\0';
		const char *slash = strrchr(prefix, '/');
		snprintf(link, sizeof link, "%s", slash ? slash + 1 : prefix);
		fig.prefix = prefix;
		fig.link_prefix = link;
	}
	return gt_cmd_render(call, fmt, fill, &(struct job){ call->files[0], &opt, &fig, quiet });
}

const struct gt_command gt_cmd_report = {
	.name = "report",
	.help = "the benchmark report: hardware, toolkit, sizes, method, correctness, result",
	.operands = "FILE",
	.min_operands = 1,
	.max_operands = 1,
	.description =
	"Writes the benchmark report of a trace in Markdown: hardware, toolkit, clock state, sizes,\n"
	"method, correctness (shadow replay, or \"not checked\"), results (top kernels, end to end per\n"
	"frame, copy bandwidth, findings), the comparison with a baseline, and limitations. With\n"
	"-o REPORT.md, figures REPORT-kernels.svg and REPORT-split.svg are written beside it.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(report)

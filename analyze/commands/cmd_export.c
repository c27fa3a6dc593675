/* cmd_export.c: `gpuanalyze export FILE...`: traces as one timeline for Perfetto and chrome://tracing
 * (Chrome Trace Event JSON, optionally gzip'd), or as CSV, one row per event.
 *
 * Options only; export.c does the work, export_window.c the window and the shared clock. The output
 * is the file: nothing else is printed unless something goes wrong (or, on a terminal, the progress
 * line while it runs).
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/support/failure.h"
#include "analyze/export/export.h"
#include "analyze/export/export_sqlite.h"
#include "analyze/support/outfile.h"
#include "traces/gputrace.h"
#include "analyze/support/options.h"
#include "analyze/support/progress.h"

#include <string.h>

static const char *const formats[] = { "chrome", "csv", "sqlite", NULL };

/* A database is a file SQLite seeks in and rewrites: it cannot be a stream. */
static int export_sqlite(const char *trace, const char *out_path, int gz, int quiet)
{
	if (!out_path || !strcmp(out_path, "-"))
		return gt_cli_usage_error(&gt_gpuanalyze_tool, "export",
		                          "--format sqlite writes a database file, not standard output: give -o FILE");
	if (gz)
		return gt_cli_usage_error(&gt_gpuanalyze_tool, "export",
		                          "-z does not apply to --format sqlite: a database is read in place");
	/* The database is built in a temporary file that the runner renames over -o on success. */
	const char *tmp = gt_outfile_reserve(out_path, "an SQLite database is a file");
	if (!tmp)
		return GT_EXIT_USAGE;
	struct gt_sqlite_result res;
	gt_progress_start("export", quiet);
	gt_progress_stage("writing", 0);
	int rc = gt_export_sqlite(trace, tmp, out_path, &res);
	gt_progress_done();
	return rc;
}

/* The traces to export, and how. */
struct job {
	char **files;
	int nfiles;
	const struct gt_export_options *o;
	int quiet;
};

/* gt_cmd_printer: the timeline. The engine's words for an input error are held (failure.h) and
 * said by the runner; a write error is left to the output's close, which reports it with its
 * cause; any other failure is reported here, in export's words. */
static int print(FILE *out, struct gt_json *j, void *ctx)
{
	(void)j; /* export.c writes its own JSON */
	const struct job *x = ctx;
	gt_progress_start("export", x->quiet);
	struct gt_export_result res;
	int rc = gt_export_run_files(x->files, (size_t)x->nfiles, out, x->o, &res);
	gt_progress_done();
	if (rc < 0 && gt_failed())
		return rc; /* gt_cmd_print says the held words and exits 2 */
	if (rc == GT_ERR_IO)
		rc = 0; /* gt_output_close reports the write error with its cause */
	else if (rc < 0)
		rc = gt_error("export: %s", gt_strerror(rc));
	return rc;
}

static int fmt, gz, quiet;
static const char *range;
static uint64_t start, end;
static struct gt_name_filter kernels;

static const struct gt_option options[] = {
	GT_OPT_FORMAT_CHOICE(&fmt, formats,
	                     "chrome: Trace Event JSON for Perfetto and chrome://tracing (default); "
	                     "csv; sqlite: a database (-o FILE; schema in gputrace-sqlite(5))"),
	{ .kind = GT_OPT_FLAG, .short_name = 'z', .long_name = "gzip", .value = &gz,
	  .help = "compress the output with gzip (zlib, level 6), as Perfetto opens .json.gz" },
	{ .kind = GT_OPT_TIME, .long_name = "start", .arg = "TIME", .value = &start,
	  .help = "keep what overlaps the window from TIME (1.5s, 200ms, 350us) on the timeline" },
	{ .kind = GT_OPT_TIME, .long_name = "end", .arg = "TIME", .value = &end,
	  .help = "... to TIME (default: the end)" },
	{ .kind = GT_OPT_STRING, .long_name = "range", .arg = "NAME[#N]", .value = &range,
	  .help = "the window of the N-th instance of NVTX range NAME (default #1)" },
	GT_OPT_KERNEL(&kernels),
	{ .kind = GT_OPT_FLAG, .long_name = "quiet", .value = &quiet,
	  .help = "no progress line on a terminal's stderr" },
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	fmt = GT_EXPORT_CHROME;
	gz = quiet = 0;
	range = NULL;
	start = end = UINT64_MAX;
	kernels = (struct gt_name_filter){ 0 };
}

static int run(const struct gt_cmd_call *call)
{
	if (range && (start != UINT64_MAX || end != UINT64_MAX))
		return gt_error("export: --range gives the window itself: not with --start or --end (see "
		                "'gpuanalyze export --help')");
	if (fmt == GT_EXPORT_SQLITE) {
		/* The database holds one whole trace: windows, filters and ranks are SQL's to apply. */
		int narrowed = range || start != UINT64_MAX || end != UINT64_MAX || kernels.active;
		if (narrowed || call->nfiles > 1)
			return gt_error("export: --format sqlite writes one whole trace: no --start, --end, "
			                "--range, --kernel or second trace (select in SQL instead)");
		return export_sqlite(call->files[0], call->out_path, gz, quiet);
	}
	struct gt_export_options o = {
		.format = fmt, .gzip = gz, .range = range, .kernels = &kernels,
		.has_start = start != UINT64_MAX, .start_ns = start != UINT64_MAX ? start : 0,
		.has_end = end != UINT64_MAX, .end_ns = end,
	};
	return gt_cmd_print(call, print, &(struct job){ call->files, call->nfiles, &o, quiet });
}

const struct gt_command gt_cmd_export = {
	.name = "export",
	.help = "timeline for Perfetto / chrome://tracing (Chrome JSON), or CSV",
	.operands = "FILE...",
	.min_operands = 1,
	.max_operands = -1,
	.description =
	"Writes traces as a timeline: Chrome Trace Event JSON (one process per GPU and one for the\n"
	"host, a track per stream and per thread, flow arrows from each launch to its kernel, NVTX\n"
	"ranges, memory and clock counters; times in microseconds from the trace's first event), or\n"
	"CSV with one row per event, or an SQLite database with a table per record type\n"
	"(gputrace-sqlite(5)). Several traces (ranks) make one timeline on their aligned\n"
	"clocks, with processes of their own. gpuanalyze(1) describes the mapping.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(export)

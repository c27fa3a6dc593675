/* cmd_export.c: `gpuanalyze export FILE`: the trace as a timeline for Perfetto and chrome://tracing
 * (Chrome Trace Event JSON, optionally gzip'd), or as CSV, one row per event.
 *
 * Options only; export.c does the work. The output is the file: nothing else is printed unless
 * something goes wrong.
 */
#include "commands.h"
#include "diag.h"
#include "export.h"
#include "export_sqlite.h"
#include "gputrace.h"
#include "options.h"

#include <string.h>

static const char *const formats[] = { "chrome", "csv", "sqlite", NULL };

/* A database is a file SQLite seeks in and rewrites: it cannot be a stream. */
static int export_sqlite(const char *trace, const char *out_path, int gz)
{
	if (!out_path || !strcmp(out_path, "-"))
		return gt_error("export: --format sqlite writes a database file, not standard output: give -o FILE");
	if (gz)
		return gt_error("export: -z does not apply to --format sqlite (a database is read in place)");
	struct gt_sqlite_result res;
	return gt_export_sqlite(trace, out_path, &res);
}

int cmd_export(int argc, char **argv)
{
	int fmt = GT_EXPORT_CHROME, gz = 0;
	const char *out_path = NULL;
	const struct gt_option opts[] = {
		{ .kind = GT_OPT_CHOICE, .long_name = "format", .choices = formats, .value = &fmt,
		  .help = "chrome: Trace Event JSON for Perfetto and chrome://tracing (default); csv; sqlite: "
		          "a database (-o FILE; schema in gputrace-sqlite(5))" },
		{ .kind = GT_OPT_FLAG, .short_name = 'z', .value = &gz,
		  .help = "gzip the output (stored blocks: any gzip reader opens it; no smaller)" },
		GT_OPT_OUTPUT(&out_path),
		GT_OPT_END_OF_LIST,
	};
	const struct gt_usage usage = {
		"export", "FILE", 1, 1,
		"Writes the trace as a timeline: Chrome Trace Event JSON (one process per GPU and one for the\n"
		"host, a track per stream and per thread, flow arrows from each launch to its kernel, NVTX\n"
		"ranges, memory and clock counters; times in microseconds from the trace's first event), or\n"
		"CSV with one row per event, or an SQLite database with a table per record type\n"
		"(gputrace-sqlite(5)). gpuanalyze(1) describes the mapping.",
		opts,
	};
	char **files;
	int nfiles, status;
	if (!gt_options_parse(&usage, argc, argv, &files, &nfiles, &status))
		return status;
	if (fmt == GT_EXPORT_SQLITE)
		return export_sqlite(files[0], out_path, gz);
	FILE *out = gt_output_open(out_path);
	if (!out)
		return GT_EXIT_USAGE;
	struct gt_export_options o = { fmt, gz };
	struct gt_export_result res;
	int rc = gt_export_run(files[0], out, &o, &res);
	if (rc == GT_ERR_IO)
		rc = 0; /* gt_output_close reports the write error with its cause */
	else if (rc < 0)
		rc = gt_error("export: %s", gt_strerror(rc));
	int crc = gt_output_close(out, out_path);
	return rc ? rc : crc;
}

/* cmd_output.c: a subcommand's run, from its argv to its output's close (see cmd_output.h for why
 * it is here). The cmd_<name>() entries live in each command's own file (GT_COMMAND_ENTRY).
 *
 * The order is the one the subcommands always had: the filler's failure is reported before the
 * output is closed, so a message about a short output comes after the message that explains it.
 * The facts after it are the ones every command's document states alike (cmd_output.h); in the
 * JSON formats they are written by the JSON calls below, on the document's writer.
 */
#include "analyze/commands/cmd_output.h"

#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/support/failure.h"
#include "traces/gputrace.h"
#include "analyze/output/json_member.h"
#include "analyze/support/options.h"
#include "analyze/support/outfile.h"
#include "common/stats.h"

/* Options of a command, -o/--output not counted. */
#define MAX_OPTIONS 32

/* A status of 0 or an error code that a held failure explains (failure.h) becomes GT_EXIT_USAGE:
 * the failure's words are said (at the output's close, or when the command ends), not the code's. */
static int explained(int rc) { return rc <= 0 && gt_failed() ? GT_EXIT_USAGE : rc; }

/* Names the command's inputs (its operands, and the options whose value is a file it reads) to
 * outfile.h, and refuses an -o that is one of them before anything is opened for writing. */
static int inputs_named(const struct gt_cmd_call *call, const struct gt_option *opts)
{
	for (int i = 0; i < call->nfiles; i++)
		if (gt_outfile_input(call->files[i]))
			return GT_ERR_NOMEM;
	for (const struct gt_option *o = opts; o->kind != GT_OPT_END; o++)
		if (o->kind == GT_OPT_STRING && o->input && gt_outfile_input(*(const char **)o->value))
			return GT_ERR_NOMEM;
	return gt_outfile_check(call->out_path);
}

/* Parses argv and runs the command: its status, or an error code its run returned. */
static int parse_and_run(const struct gt_command *c, int argc, char **argv)
{
	struct gt_option opts[MAX_OPTIONS + 2];
	size_t n = 0;
	for (const struct gt_option *o = c->options; o && o->kind != GT_OPT_END; o++) {
		if (n == MAX_OPTIONS)
			return gt_error("%s: internal error: more than %d options", c->name, MAX_OPTIONS);
		opts[n++] = *o;
	}
	/* -o is every command's last option, and the runner's: it opens the output (gt_cmd_print). */
	struct gt_cmd_call call = { .cmd = c, .dashdash_at = -1 };
	opts[n++] = (struct gt_option)GT_OPT_OUTPUT(&call.out_path);
	opts[n] = (struct gt_option)GT_OPT_END_OF_LIST;
	const struct gt_usage usage = { .name = c->name, .operands = c->operands,
	                                .min_operands = c->min_operands, .max_operands = c->max_operands,
	                                .description = c->description, .options = opts };
	if (c->reset)
		c->reset();
	int status;
	if (!gt_options_parse_groups(&usage, argc, argv, &call.files, &call.nfiles, &status,
	                             &call.dashdash_at))
		return status;
	status = inputs_named(&call, opts);
	if (!status)
		status = c->run(&call);
	gt_options_release(opts); /* the --kernel filters: run is done with them */
	return status;
}

/* A command starts with nothing held (an engine a test called directly may have left words) and
 * ends here: whatever engines still hold is said before its exit status is known. A run's error
 * code becomes an exit status here, whatever path it came by: GT_EXIT_USAGE, after the failure's
 * words when an engine held some during the run (said already or now), else after the code's. */
int gt_command_run(const struct gt_command *c, int argc, char **argv)
{
	gt_diag_flush();
	gt_outfile_begin();
	size_t failures = gt_fail_count();
	int status = parse_and_run(c, argc, argv);
	if (status <= 0 && gt_fail_count() > failures)
		status = GT_EXIT_USAGE;
	gt_diag_flush();
	if (status == GT_ERR_NOMEM)
		status = gt_error("%s: out of memory", c->name);
	else if (status < 0)
		status = gt_error("%s: %s", c->name, gt_strerror(status));
	/* The outputs replace their targets only now, when the command is known to have succeeded (a
	 * verdict of a check that ran is a success of the command). */
	int ok = status == GT_EXIT_OK || status == GT_EXIT_CHECK;
	if (gt_outfile_end(ok) && ok)
		status = GT_EXIT_USAGE;
	gt_outfile_begin(); /* nothing kept between commands */
	return status;
}

int gt_cmd_print(const struct gt_cmd_call *call, gt_cmd_printer print, void *ctx)
{
	FILE *out = gt_output_open(call->out_path);
	if (!out)
		return GT_EXIT_USAGE;
	struct gt_json j;
	gt_json_init(&j, out);
	int rc = explained(print(out, &j, ctx));
	if (rc < 0)
		rc = gt_error("%s: cannot print: %s", call->cmd->name, gt_strerror(rc));
	int crc = gt_output_close(out, call->out_path);
	return rc ? rc : crc;
}

int gt_cmd_render(const struct gt_cmd_call *call, enum gt_format fmt, gt_cmd_filler fill, void *ctx)
{
	FILE *out = gt_output_open(call->out_path);
	if (!out)
		return GT_EXIT_USAGE;
	struct gt_doc *d = gt_doc_open(fmt, out);
	int rc = explained(d ? fill(d, ctx) : GT_ERR_NOMEM);
	if (d) {
		int drc = gt_doc_close(d);
		if (drc && !rc)
			rc = drc == GT_ERR_ARG ? gt_error("%s: internal error: malformed %s", call->cmd->name,
			                                  gt_format_name(fmt))
			                       : drc;
	}
	if (rc < 0)
		rc = gt_error("%s: cannot print: %s", call->cmd->name, gt_strerror(rc));
	int crc = gt_output_close(out, call->out_path);
	return rc ? rc : crc;
}

/* The facts every command's JSON states the same way, one copy each. */
static void json_head(struct gt_json *j, const char *command)
{
	gt_json_object_begin(j);
	gt_json_key_str(j, "command", command);
	gt_json_key_str(j, "version", GT_VERSION);
}

static void json_trace(struct gt_json *j, const char *path, int complete, uint64_t lost_bytes,
                       int synthetic)
{
	gt_json_key_object(j, "trace");
	gt_json_key_str(j, "path", path);
	gt_json_trace_state(j, complete, lost_bytes, synthetic);
}

static void json_bad_times(struct gt_json *j, uint64_t kernels, uint64_t memcpys, uint64_t memsets)
{
	gt_json_key_object(j, "excluded_bad_times");
	gt_json_key_u64(j, "kernels", kernels);
	gt_json_key_u64(j, "memcpys", memcpys);
	gt_json_key_u64(j, "memsets", memsets);
	gt_json_object_end(j);
}

static void json_statistics(struct gt_json *j, int mad_scale)
{
	gt_json_key_object(j, "statistics");
	gt_json_key_str(j, "percentiles", GT_PERCENTILE_RULE);
	if (mad_scale)
		gt_json_key_num(j, "mad_scale", GT_MAD_SCALE);
}

void gt_cmd_doc_head(struct gt_doc *d, const char *command)
{
	struct gt_json *j = gt_doc_json(d);
	if (j)
		json_head(j, command);
}

void gt_cmd_doc_trace(struct gt_doc *d, const char *path, int complete, uint64_t lost_bytes, int synthetic)
{
	struct gt_json *j = gt_doc_json(d);
	if (j)
		json_trace(j, path, complete, lost_bytes, synthetic);
}

void gt_cmd_doc_bad_times(struct gt_doc *d, uint64_t kernels, uint64_t memcpys, uint64_t memsets)
{
	struct gt_json *j = gt_doc_json(d);
	if (j)
		json_bad_times(j, kernels, memcpys, memsets);
}

void gt_cmd_doc_statistics(struct gt_doc *d, int mad_scale)
{
	struct gt_json *j = gt_doc_json(d);
	if (j)
		json_statistics(j, mad_scale);
}

void gt_cmd_doc_synthetic(struct gt_doc *d, const char *path, const char *synthetic)
{
	if (synthetic)
		gt_doc_note(d, "NOTE: %s is SYNTHETIC (META trace.synthetic = \"%s\"): written by a program, "
		            "not recorded on a GPU", path, synthetic);
}

void gt_cmd_doc_incomplete(struct gt_doc *d, const char *path, int complete, uint64_t lost_bytes)
{
	if (!complete)
		gt_doc_note(d, "NOTE: %s ends early (%llu bytes of an incomplete chunk lost): its last "
		            "records are missing", path, (unsigned long long)lost_bytes);
}

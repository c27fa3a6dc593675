/* options.c: gpuanalyze's side of the command-line library (common/cli.h): its voice, its version
 * line, its own option kinds (output formats, kernel-name filters), and the trace on standard
 * input among the operands.
 */
#include "analyze/support/options.h"

#include "analyze/support/diag.h"
#include "analyze/support/stdin_trace.h"
#include "traces/gputrace.h"

#include <string.h>

static void say(const char *text) { gt_error("%s", text); }

static const char *format_arg_name(const struct gt_option *o, char *buf, size_t len)
{
	if (o->kind == GT_OPT_FORMAT)
		return gt_format_list(o->formats, buf, len);
	return o->arg ? o->arg : "";
}

static int apply(const struct gt_option *o, const char *value, char *err, size_t errlen)
{
	char sp[64], an[128];
	if (o->kind == GT_OPT_FORMAT) {
		if (gt_format_parse(value, o->formats, (enum gt_format *)o->value) == 0)
			return 0;
		snprintf(err, errlen, "option '%s' wants one of %s, not '%s'", gt_cli_spelling(o, sp, sizeof sp),
		         format_arg_name(o, an, sizeof an), value);
		return -1;
	}
	if (o->kind == GT_OPT_REGEX) {
		char why[256];
		if (gt_name_filter_set((struct gt_name_filter *)o->value, value, why, sizeof why) == 0)
			return 0;
		snprintf(err, errlen, "option '%s': bad regular expression '%s': %s", gt_cli_spelling(o, sp, sizeof sp),
		         value, why);
		return -1;
	}
	snprintf(err, errlen, "internal error: option without a kind");
	return -1;
}

static void release(const struct gt_option *o)
{
	if (o->kind == GT_OPT_REGEX)
		gt_name_filter_release(o->value);
}

const struct gt_cli_tool gt_gpuanalyze_tool = {
	.name = "gpuanalyze",
	.version = GT_CLI_VERSION("gpuanalyze", GT_TOOL_VERSION, GT_FORMAT_MAJOR, GT_FORMAT_MINOR),
	.say = say,
	.apply = apply,
	.arg_name = format_arg_name,
	.release = release,
};

/* The usage with the tool filled in. */
static struct gt_usage with_tool(const struct gt_usage *u)
{
	struct gt_usage v = *u;
	if (!v.tool)
		v.tool = &gt_gpuanalyze_tool;
	return v;
}

int gt_options_parse(const struct gt_usage *u, int argc, char **argv, char ***operands,
                     int *noperands, int *status)
{
	int dashdash_at;
	return gt_options_parse_groups(u, argc, argv, operands, noperands, status, &dashdash_at);
}

/* Every operand is a trace: "-" is the one on standard input, which can be read once. 0, or the
 * usage error's status. */
static int stdin_operand(const struct gt_usage *u, char **ops, int nops)
{
	int from_stdin = 0;
	for (int i = 0; i < nops; i++) {
		if (strcmp(ops[i], "-") != 0)
			continue;
		if (from_stdin++)
			return gt_cli_usage_error(u->tool, u->name, "standard input ('-') can be given once");
		const char *p = gt_stdin_trace_path();
		if (!p)
			return GT_EXIT_USAGE;
		ops[i] = (char *)p;
	}
	return 0;
}

int gt_options_parse_groups(const struct gt_usage *u, int argc, char **argv, char ***operands,
                            int *noperands, int *status, int *dashdash_at)
{
	struct gt_usage v = with_tool(u);
	if (!gt_cli_parse(&v, argc, argv, operands, noperands, status, dashdash_at))
		return 0;
	*status = stdin_operand(&v, *operands, *noperands);
	if (!*status)
		return 1;
	gt_cli_release(&v);
	return 0;
}

void gt_options_release(const struct gt_option *options)
{
	for (const struct gt_option *o = options; o && o->kind != GT_OPT_END; o++)
		release(o);
}

const char *gt_options_synopsis(const struct gt_usage *u, char *buf, size_t len)
{
	struct gt_usage v = with_tool(u);
	return gt_cli_synopsis(&v, buf, len);
}

void gt_options_help(const struct gt_usage *u, FILE *f)
{
	struct gt_usage v = with_tool(u);
	gt_cli_help(&v, f);
}

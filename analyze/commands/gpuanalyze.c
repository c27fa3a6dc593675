/* gpuanalyze.c: main and the command table of gpuanalyze, the trace analyzer.
 *
 * `gpuanalyze CMD [ARGS]` runs the subcommand CMD; `gpuanalyze --help` lists them, `--version`
 * names the analyzer and the trace format it reads, `gpuanalyze CMD --help` shows a subcommand's
 * usage. Exit status: 0 ok, 1 a check failed (diff, findings, ...), 2 usage or input error.
 */
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "traces/gputrace.h"

#include <stdio.h>
#include <string.h>

/* Adding a subcommand FOO (in the manner of git's builtin.h and perf's run_builtin):
 *
 *  1. analyze/commands/cmd_foo.c defining `const struct gt_command gt_cmd_foo` (commands.h): its
 *     name, one-line help, operands and --help paragraph; its options (options.h; reuse
 *     GT_OPT_FORMAT/KERNEL/WARMUP for the common ones; -o, -h and -V are added for it) storing into the
 *     file's static variables, with a reset function giving them their defaults; and its run
 *     function: traces read with gt_load_*() (load.h), errors through gt_error() (diag.h), and a
 *     filler that states what was found in a document (output/doc.h: facts, notes, tables)
 *     handed to gt_cmd_render() (cmd_output.h), which opens -o and the document in the --format
 *     chosen, reports a filler's error and the write error found at the close, and gives the exit
 *     status; the document's renderer writes each format and escapes every name. After the
 *     descriptor, GT_COMMAND_ENTRY(foo) (the cmd_foo() entry that tests and fuzzers call). Words
 *     only: the computation goes in an engine file (analyze/engines/foo.c + foo.h) that never
 *     sees argv, so tests can call it, and never prints: it returns 0 or a negative GT_ERR_*,
 *     holding the words of a failure with gt_fail() (failure.h), which the runner says.
 *  2. Add X(foo) to GT_COMMAND_LIST in analyze/commands/commands.h (alphabetical order is not
 *     required; the order there is the order of `gpuanalyze --help`).
 *  3. man/gpuanalyze.1: a subsection under COMMANDS with the synopsis line exactly as
 *     `gpuanalyze foo --help` prints it (tests/cli/test_gpuanalyze_help.sh fails otherwise), its
 *     options, and what it measures.
 *  4. Tests: tests/unit/test_analyze_foo.c for the engine (traces built with
 *     tests/unit/helpers/synth_trace.h), tests/cli/test_gpuanalyze_foo.sh for exact output and
 *     exit statuses.
 *
 * The Makefile needs nothing: analyze/module.mk builds every .c file in the subfolders of analyze/.
 */
#define GT_COMMAND_ROW(name) &gt_cmd_##name,
const struct gt_command *const gt_commands[] = { GT_COMMAND_LIST(GT_COMMAND_ROW) NULL };
#undef GT_COMMAND_ROW

/* The command named name, or NULL. */
static const struct gt_command *find(const char *name)
{
	for (const struct gt_command *const *c = gt_commands; *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

static void usage(FILE *f)
{
	fputs("usage: gpuanalyze [-V | --version] [-h | --help] COMMAND [ARGS]\n\n"
	      "Analyzes gputrace traces (.gtrace) offline.\n\ncommands:\n",
	      f);
	for (const struct gt_command *const *c = gt_commands; *c; c++)
		fprintf(f, "  %-12s %s\n", (*c)->name, (*c)->help);
	fputs("\n'gpuanalyze COMMAND --help' shows a command's options; gpuanalyze(1) defines every "
	      "statistic.\nExit status: 0 ok, 1 a check failed, 2 usage or input error.\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return GT_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		if (strcmp(cmd, "help") == 0 && argc > 2) {
			/* `gpuanalyze help CMD` is `gpuanalyze CMD --help`. */
			const struct gt_command *c = find(argv[2]);
			if (c) {
				char *av[] = { argv[2], "--help", NULL };
				return gt_command_run(c, 2, av);
			}
			return gt_cli_usage_error(&gt_gpuanalyze_tool, NULL, "unknown command '%s'", argv[2]);
		}
		usage(stdout);
		return fflush(stdout) == 0 ? GT_EXIT_OK : GT_EXIT_USAGE;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("%s\n", gt_gpuanalyze_tool.version);
		return fflush(stdout) == 0 ? GT_EXIT_OK : GT_EXIT_USAGE;
	}
	const struct gt_command *c = find(cmd);
	if (c)
		return gt_command_run(c, argc - 1, argv + 1);
	if (cmd[0] == '-')
		return gt_cli_usage_error(&gt_gpuanalyze_tool, NULL, "unknown option '%s'", cmd);
	return gt_cli_usage_error(&gt_gpuanalyze_tool, NULL, "unknown command '%s'", cmd);
}

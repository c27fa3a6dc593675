/* commands.h: the subcommands of gpuanalyze, one analyze/commands/cmd_<name>.c each, and the one
 * runner that does for every one of them what they all need (in the manner of perf's run_builtin).
 *
 * A subcommand is a descriptor, struct gt_command: its name and one-line help, its operands, its
 * --help paragraph, its own options (options.h), and a run function. gt_command_run() (cmd_output.c)
 * adds -o/--output after the command's options, parses argv (common/cli.h: --help, --version and
 * usage errors included), calls run with the operands and the output's path (refused first when
 * it is one of the inputs), releases the --kernel filters after it, and renames the outputs into
 * place when run succeeded (support/outfile.h).
 * run reads traces with load.h, computes in an engine file that never sees argv (analyze/engines/)
 * and fills a document (output/doc.h) through gt_cmd_render() (cmd_output.h), which owns the
 * output from open to close, the document's format, the filler's error message and the write
 * error found at the close. run returns the process's exit
 * status (GT_EXIT_OK, GT_EXIT_CHECK for a failed check, GT_EXIT_USAGE for a usage or input error,
 * reported through diag.h), or an engine's negative error code as it came: the runner says what
 * the engines hold (failure.h) and a held failure exits GT_EXIT_USAGE. How to add one: see the
 * checklist above the table in gpuanalyze.c.
 */
#ifndef GT_COMMANDS_H
#define GT_COMMANDS_H

#include "analyze/support/options.h"
#include "traces/gputrace.h"

/* The analyzer's version is the tool's one (GT_TOOL_VERSION, traces/gputrace.h), as the recorder's. */
#define GT_VERSION GT_TOOL_VERSION

/* One run of a subcommand, as gt_command_run() hands it to the command's run. */
struct gt_cmd_call {
	const struct gt_command *cmd;
	char **files;        /* the operands, "-" already turned into the trace on standard input */
	int nfiles;
	int dashdash_at;     /* operands before the first "--", or -1 (diff's BASE... -- NEW...) */
	const char *out_path; /* -o: NULL or "-" for standard output */
};

struct gt_command {
	const char *name;
	const char *help;         /* one line for `gpuanalyze --help` */
	const char *operands;     /* "FILE..." in the synopsis */
	int min_operands, max_operands; /* max -1: no limit */
	const char *description;  /* the paragraph of `gpuanalyze NAME --help` */
	/* The command's own options, in the order of its --help, -o/--output left out (the runner adds
	 * it last). They store into the command file's static variables, which reset() sets to their
	 * defaults before each parse (a test or fuzzer runs a command many times in one process). */
	const struct gt_option *options;
	void (*reset)(void);      /* NULL: nothing to reset */
	/* The exit status; or a negative GT_ERR_*: one whose failure an engine holds (failure.h) exits
	 * GT_EXIT_USAGE after its words, GT_ERR_NOMEM without them is "NAME: out of memory". */
	int (*run)(const struct gt_cmd_call *call);
};

/* Runs the subcommand as `gpuanalyze NAME ARGS` would: argv[0] is its name, the rest its arguments.
 * Returns the exit status. */
int gt_command_run(const struct gt_command *c, int argc, char **argv);

/* Every subcommand, in the order of `gpuanalyze --help`: X(name) for each. */
#define GT_COMMAND_LIST(X)                                                                           \
	X(info) X(dump) X(summary) X(split) X(bandwidth) X(ceiling) X(findings) X(shadow) X(calibrate) X(diff)  \
	X(ranks) X(report) X(export) X(stats)

/* Each cmd_<name>.c defines the descriptor gt_cmd_<name> and, after it, GT_COMMAND_ENTRY(name): the
 * entry cmd_<name>(argc, argv) that the tests and fuzzers call. It lives in the command's own file,
 * so that a program linking one command's entry links that command alone (a fuzzer of summary needs
 * no SQLite). */
#define GT_COMMAND_ENTRY(name)                                                                       \
	int cmd_##name(int argc, char **argv) { return gt_command_run(&gt_cmd_##name, argc, argv); }
#define GT_COMMAND_DECLARE(name)                                                                     \
	extern const struct gt_command gt_cmd_##name;                                                \
	int cmd_##name(int argc, char **argv);
GT_COMMAND_LIST(GT_COMMAND_DECLARE)
#undef GT_COMMAND_DECLARE

/* The table (gpuanalyze.c), ended by NULL. */
extern const struct gt_command *const gt_commands[];

#endif

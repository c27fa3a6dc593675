/* commands.h: the subcommands of gpuanalyze, one analyze/commands/cmd_<name>.c each.
 *
 * A subcommand is `int cmd_<name>(int argc, char **argv)`: argv[0] is its name, the rest its own
 * arguments; it returns the process's exit status (GT_EXIT_OK, GT_EXIT_CHECK for a failed check,
 * GT_EXIT_USAGE for a usage or input error, reported through diag.h). It parses with options.h,
 * reads traces with load.h, computes in an engine file that never sees argv (common/stats.c, summary.c,
 * ...) and prints with output.h, through gt_cmd_print() (cmd_output.h), which owns -o, the
 * printer's error message and the write error found at the close. How to add one: see the
 * checklist above the table in gpuanalyze.c.
 */
#ifndef GT_COMMANDS_H
#define GT_COMMANDS_H

#include "gputrace.h"

/* The analyzer's version is the tool's one (GT_TOOL_VERSION, traces/gputrace.h), as the recorder's. */
#define GT_VERSION GT_TOOL_VERSION

struct gt_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help; /* one line for `gpuanalyze --help` */
};

/* The table (gpuanalyze.c), ended by a row whose name is NULL. */
extern const struct gt_command gt_commands[];

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_bandwidth(int argc, char **argv);
int cmd_findings(int argc, char **argv);
int cmd_shadow(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_ranks(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_stats(int argc, char **argv);

#endif

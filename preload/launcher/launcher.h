/* launcher.h: the gputrace command: its subcommands (record, peak, replay) as descriptors, and the
 * pieces they share. */
#ifndef GT_PRELOAD_LAUNCHER_H
#define GT_PRELOAD_LAUNCHER_H

#include "common/cli.h"

#include <stddef.h>
#include <stdio.h>

/* A subcommand of gputrace is a descriptor, as gpuanalyze's are: its usage (common/cli.h: name,
 * synopsis, operands, --help paragraph, option table, exit statuses) and a run function.
 * launcher_command_run() resets the command's option variables, parses argv (--help, --version
 * and usage errors included) and calls run with the operands. */
struct launcher_command {
	struct gt_usage usage;
	void (*reset)(void);               /* NULL: nothing to reset */
	int (*run)(char **ops, int nops);  /* the exit status */
};
extern const struct launcher_command launcher_cmd_record, launcher_cmd_peak, launcher_cmd_replay;
/* gputrace as common/cli.h sees it: its name, version line and voice (log.h's escaping). */
extern const struct gt_cli_tool launcher_tool;
/* Runs the command as `gputrace NAME ARGS` would (argv[0] is its name): the exit status. */
int launcher_command_run(const struct launcher_command *c, int argc, char **argv);
/* Finds a file installed beside the launcher: BIN/name, BIN/../lib/name, BIN/../libexec/gputrace/name,
 * BIN/kernels/name. 0 and the path, or -1. */
int launcher_find(const char *name, char *out, size_t n);
/* Runs argv with env additions already set; waits, forwarding SIGINT/SIGTERM/SIGHUP/SIGQUIT.
 * Returns the wait status, or -1 with errno (exec failure is status 127 from the child). */
int launcher_run(char **argv);
/* The same in a process group of its own, killed whole after timeout_s seconds (then -2): what
 * runs under it (a launcher and the program it starts) cannot outlive the timeout. */
int launcher_run_bounded(char **argv, unsigned timeout_s);
/* Creates the empty file tmpl names ("/tmp/NAME-XXXXXX", the Xs filled in), for a child to write
 * and the launcher to read after it ends. 0, or -1 said on stderr after who ("gputrace: replay"). */
int launcher_temp_file(char *tmpl, const char *who);
/* Ends this process the way the child ended (same exit code, or the same signal). */
void launcher_exit_like(int wstatus) __attribute__((noreturn));

#endif

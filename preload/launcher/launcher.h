/* launcher.h: the gputrace command: shared pieces of its subcommands (record, peak, replay). */
#ifndef GT_PRELOAD_LAUNCHER_H
#define GT_PRELOAD_LAUNCHER_H

#include <stddef.h>
#include <stdio.h>

int launcher_record(int argc, char **argv);
int launcher_peak(int argc, char **argv);
/* A subcommand's help, as text, so that `gputrace --help` and `gputrace CMD --help` print the same
 * synopsis, option lines and exit statuses. */
struct launcher_help {
	const char *synopsis;    /* without "usage: " */
	const char *description; /* the paragraph of CMD --help */
	const char *options;     /* option lines, without -h */
	const char *exit_status; /* "Exit status of CMD: ..." */
	int environment;         /* 1: CMD --help ends with the environment table (config_help) */
};
extern const struct launcher_help launcher_record_help, launcher_peak_help;
/* `gputrace CMD --help`: usage, description, options and -h, exit statuses, the environment. */
void launcher_print_help(const struct launcher_help *h, FILE *out);
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
/* Prints the one line for an option getopt_long rejected (c is '?' or ':'; opterr must be 0 and
 * the option string start with ':' so a missing value is told apart). Returns 2, the usage status. */
int launcher_bad_option(const char *cmd, int c, char **argv);
/* Ends this process the way the child ended (same exit code, or the same signal). */
void launcher_exit_like(int wstatus) __attribute__((noreturn));

#endif

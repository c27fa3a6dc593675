/* options.h: gpuanalyze's side of the command-line library (common/cli.h): the option kinds of its
 * own (output formats, kernel-name filters), the options its subcommands share, and the parse that
 * turns "-" among the operands into the trace on standard input.
 *
 *     static uint64_t warmup;
 *     static enum gt_format fmt = GT_FMT_TEXT;
 *     static const struct gt_option opts[] = {
 *             GT_OPT_WARMUP(&warmup),
 *             GT_OPT_FORMAT(&fmt, GT_FMT_TEXT | GT_FMT_JSON),
 *             GT_OPT_OUTPUT(&out_path),
 *             GT_OPT_END_OF_LIST,
 *     };
 *     static const struct gt_usage usage = { .name = "info", .operands = "FILE...",
 *             .min_operands = 1, .max_operands = -1, .description = "What a trace holds.",
 *             .options = opts };
 *     ...
 *     int status; char **files; int nfiles;
 *     if (!gt_options_parse(&usage, argc, argv, &files, &nfiles, &status))
 *             return status;          // --help or --version printed (0), or a usage error said (2)
 *
 * A subcommand does not parse for itself: its descriptor (analyze/commands/commands.h) holds its
 * table, and gt_command_run() adds GT_OPT_OUTPUT and makes this call.
 *
 * The grammar is common/cli.h's, the same as gputrace's. Operands are traces, and "-" among them
 * (once) is the trace on standard input (stdin_trace.h). The first line of --help is the synopsis,
 * "usage: gpuanalyze NAME [OPTION]... OPERANDS", generated from the table; the man page repeats it
 * verbatim and tests/cli/test_gpuanalyze_help.sh checks that it does.
 */
#ifndef GT_OPTIONS_H
#define GT_OPTIONS_H

#include "analyze/support/filter.h"
#include "analyze/output/output.h"
#include "common/cli.h"

#include <stdint.h>
#include <stdio.h>

/* gpuanalyze's own kinds (common/cli.h's GT_OPT_EXT): */
enum {
	GT_OPT_FORMAT = GT_OPT_EXT, /* enum gt_format *: one of the formats in .formats */
	GT_OPT_REGEX,               /* struct gt_name_filter *: compiled as POSIX ERE */
};

/* gpuanalyze as common/cli.h sees it: its name, version line, voice (diag.h) and kinds. A usage
 * whose .tool is NULL gets it from gt_options_parse. */
extern const struct gt_cli_tool gt_gpuanalyze_tool;

/* The options most subcommands share, spelled the same everywhere: -f/--format, -o/--output, and
 * (export) -z/--gzip. A command whose --format names formats of its own (junit, chrome) takes
 * GT_OPT_FORMAT_CHOICE, with its NULL-ended list of names and its help. */
#define GT_OPT_FORMAT(ptr, mask)                                                                     \
	{ .kind = GT_OPT_FORMAT, .short_name = 'f', .long_name = "format", .help = "output format",    \
	  .value = (ptr), .formats = (mask) }
#define GT_OPT_FORMAT_CHOICE(ptr, names, text)                                                       \
	{ .kind = GT_OPT_CHOICE, .short_name = 'f', .long_name = "format", .help = (text),              \
	  .value = (ptr), .choices = (names) }
/* --peaks FILE: the measured peaks and ceilings `gputrace peak` wrote (bandwidth, ceiling, info). */
#define GT_OPT_PEAKS(ptr)                                                                            \
	{ .kind = GT_OPT_STRING, .long_name = "peaks", .arg = "FILE", .value = (ptr), .input = 1,      \
	  .help = "measured peaks and ceilings from FILE (default: $GPUTRACE_PEAKS, else "             \
	          "$XDG_CACHE_HOME/gputrace/peaks, else ~/.cache/gputrace/peaks)" }
/* --ref LIB: the library of CPU references that shadow, calibrate and report run. */
#define GT_OPT_REF(ptr)                                                                              \
	{ .kind = GT_OPT_STRING, .long_name = "ref", .arg = "LIB", .input = 1,                         \
	  .help = "reference library built against gputrace_ref.h (required; it runs in gpuanalyze)",  \
	  .value = (ptr) }
#define GT_OPT_KERNEL(ptr)                                                                           \
	{ .kind = GT_OPT_REGEX, .long_name = "kernel", .arg = "REGEX",                                 \
	  .help = "only kernels whose mangled or demangled name matches REGEX (POSIX extended)",      \
	  .value = (ptr) }
#define GT_OPT_WARMUP(ptr)                                                                           \
	{ .kind = GT_OPT_UINT, .long_name = "warmup", .arg = "N",                                      \
	  .help = "drop the first N launches of each kernel, by start time, in each file (default 0)", \
	  .value = (ptr) }
#define GT_OPT_OUTPUT(ptr)                                                                           \
	{ .kind = GT_OPT_STRING, .short_name = 'o', .long_name = "output", .arg = "FILE",              \
	  .help = "write to FILE instead of standard output ('-': standard output)", .value = (ptr) }

/* Parses argv (argv[0] is the subcommand's name) as gt_cli_parse does, for gpuanalyze: returns 1
 * to go on, with the operands moved to argv[1..] and *operands = argv + 1, "-" (once) turned into
 * the trace on standard input; returns 0 to stop, with *status the exit status: 0 after printing
 * --help or --version on stdout, GT_EXIT_USAGE after reporting a usage error, and the filters of
 * the table's GT_OPT_REGEX options released (the caller returns at once). */
int gt_options_parse(const struct gt_usage *u, int argc, char **argv, char ***operands,
                     int *noperands, int *status);
/* The same, for a command whose operands form groups (diff's BASE... -- NEW...): *dashdash_at
 * receives how many operands came before the first "--", or -1 when there was none. */
int gt_options_parse_groups(const struct gt_usage *u, int argc, char **argv, char ***operands,
                            int *noperands, int *status, int *dashdash_at);
/* Releases the filters that the table's GT_OPT_REGEX options compiled (each can be released
 * twice: the second time does nothing). */
void gt_options_release(const struct gt_option *options);
/* The synopsis line, without "usage: ", into buf. */
const char *gt_options_synopsis(const struct gt_usage *u, char *buf, size_t len);
void gt_options_help(const struct gt_usage *u, FILE *f);

#endif

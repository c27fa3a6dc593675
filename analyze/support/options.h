/* options.h: a subcommand's options, declared once as a table that both parses argv and writes the
 * subcommand's --help (so the help cannot disagree with the parser).
 *
 *     static uint64_t warmup;
 *     static enum gt_format fmt = GT_FMT_TEXT;
 *     static const struct gt_option opts[] = {
 *             GT_OPT_WARMUP(&warmup),
 *             GT_OPT_FORMAT(&fmt, GT_FMT_TEXT | GT_FMT_JSON),
 *             GT_OPT_OUTPUT(&out_path),
 *             GT_OPT_END_OF_LIST,
 *     };
 *     static const struct gt_usage usage = { "info", "FILE...", 1, -1, "What a trace holds.", opts };
 *     ...
 *     int status; char **files; int nfiles;
 *     if (!gt_options_parse(&usage, argc, argv, &files, &nfiles, &status))
 *             return status;          // --help printed (0), or a usage error reported (2)
 *
 * A subcommand does not parse for itself: its descriptor (analyze/commands/commands.h) holds its
 * table, and gt_command_run() adds GT_OPT_OUTPUT and makes this call.
 *
 * Accepted spellings: --name VALUE, --name=VALUE, -x VALUE, -xVALUE; options and operands may be
 * interleaved; "--" ends the options. -h and --help are always there. Operands are traces, and
 * "-" among them (once) is the trace on standard input (stdin_trace.h). The first line of --help is
 * the synopsis, "usage: gpuanalyze NAME [OPTION]... OPERANDS", generated from the table; the man page
 * repeats it verbatim and tests/cli/test_gpuanalyze_help.sh checks that it does.
 */
#ifndef GT_OPTIONS_H
#define GT_OPTIONS_H

#include "analyze/support/filter.h"
#include "analyze/output/output.h"

#include <stdint.h>
#include <stdio.h>

enum gt_opt_kind {
	GT_OPT_END = 0,
	GT_OPT_FLAG,   /* int *: set to 1 */
	GT_OPT_UINT,   /* uint64_t *: a non-negative decimal integer */
	GT_OPT_STRING, /* const char **: the argument as given */
	GT_OPT_FORMAT, /* enum gt_format *: one of the formats in .formats */
	GT_OPT_CHOICE, /* int *: index of the argument in .choices (NULL-terminated) */
	GT_OPT_REGEX,  /* struct gt_name_filter *: compiled as POSIX ERE */
	GT_OPT_PERCENT, /* double *: a percentage with its unit ("5%", "2.5%"), 0% to 1000%, stored as a
	                 * fraction (0.05); a bare number is refused, since 0.05 could mean 5% or 0.05% */
	GT_OPT_TIME,   /* uint64_t *: a time with its unit, "1.5s", "200ms", "350us", "20ns", in ns */
};

struct gt_option {
	enum gt_opt_kind kind;
	char short_name;             /* 0: none */
	const char *long_name;       /* NULL: none */
	const char *arg;             /* the value's name in help ("N"); formats and choices make their own */
	const char *help;
	void *value;
	unsigned formats;            /* GT_OPT_FORMAT */
	const char *const *choices;  /* GT_OPT_CHOICE */
	int input;                   /* GT_OPT_STRING: the value names a file the command reads, which
	                              * no output may replace (outfile.h) */
};

/* The options most subcommands share, spelled the same everywhere: -f/--format, -o/--output, and
 * (export) -z/--gzip. A command whose --format names formats of its own (junit, chrome) takes
 * GT_OPT_FORMAT_CHOICE, with its NULL-ended list of names and its help. */
#define GT_OPT_FORMAT(ptr, mask)                                                                     \
	{ .kind = GT_OPT_FORMAT, .short_name = 'f', .long_name = "format", .help = "output format",    \
	  .value = (ptr), .formats = (mask) }
#define GT_OPT_FORMAT_CHOICE(ptr, names, text)                                                       \
	{ .kind = GT_OPT_CHOICE, .short_name = 'f', .long_name = "format", .help = (text),              \
	  .value = (ptr), .choices = (names) }
/* --ref LIB: the library of CPU references that shadow and calibrate run. */
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
#define GT_OPT_END_OF_LIST { .kind = GT_OPT_END }

struct gt_usage {
	const char *name;            /* "summary" */
	const char *operands;        /* "FILE..." in the synopsis */
	int min_operands, max_operands; /* max -1: no limit */
	const char *description;     /* a paragraph for --help */
	const struct gt_option *options;
};

/* "1.5s", "200ms", "350us", "20ns" (a decimal number, no sign, then its unit) as nanoseconds, exactly
 * (a fraction finer than 1 ns is refused). 0, or -1 for anything else, or beyond 2^64 - 1 ns. */
int gt_parse_time_ns(const char *s, uint64_t *ns);
/* The number (strtod's syntax) at the start of s into *v, and where it ends into *rest: 0, or -1
 * when s is NULL, holds no number there, or the number is out of double's range. What may follow
 * is the caller's rule. */
int gt_parse_number(const char *s, double *v, const char **rest);

/* Parses argv (argv[0] is the subcommand's name). Returns 1 to go on, with the operands moved to
 * argv[1..] and *operands = argv + 1; returns 0 to stop, with *status the exit status: 0 after
 * printing --help on stdout, GT_EXIT_USAGE after reporting a usage error, and the filters of the
 * table's GT_OPT_REGEX options released (the caller returns at once). */
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

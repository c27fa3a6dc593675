/* cli.h: the command-line grammar that gpuanalyze and gputrace share (as perf and objtool share
 * tools/lib/subcmd): a subcommand's options declared once as a table that both parses argv and
 * writes its --help, so that the help cannot disagree with the parser, one wording of usage errors
 * for both tools, and running a child program.
 *
 *     static uint64_t reps = 7;
 *     static const struct gt_option opts[] = {
 *             { .kind = GT_OPT_UINT, .long_name = "reps", .arg = "N", .value = &reps,
 *               .help = "timed repetitions (default 7)" },
 *             GT_OPT_END_OF_LIST,
 *     };
 *     static const struct gt_usage usage = { .tool = &my_tool, .name = "peak", .options = opts,
 *                                            .description = "What peak measures." };
 *     int status; char **ops; int nops;
 *     if (!gt_cli_parse(&usage, argc, argv, &ops, &nops, &status, NULL))
 *             return status;          // --help or --version printed (0), or a usage error said (2)
 *
 * The grammar: --name VALUE, --name=VALUE, -x VALUE, -xVALUE; flags may be grouped (-qz); options
 * and operands may be interleaved, unless the usage stops at the first operand (a program and its
 * own arguments follow); "--" ends the options. Every subcommand has -h/--help (its help on standard
 * output) and -V/--version (the tool's version line), exit status 0. A usage error is one line on
 * standard error, "TOOL: CMD: WHAT (see 'TOOL CMD --help')", and exit status 2 (GT_CLI_USAGE).
 * Kinds a tool adds for itself (gpuanalyze's output formats and name filters) are numbered from
 * GT_OPT_EXT and handled by the tool's hooks (struct gt_cli_tool).
 */
#ifndef GT_COMMON_CLI_H
#define GT_COMMON_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The exit status of a usage error, in both tools. */
#define GT_CLI_USAGE 2

enum gt_opt_kind {
	GT_OPT_END = 0,
	GT_OPT_FLAG,    /* int *: set to 1 */
	GT_OPT_UINT,    /* uint64_t *: a non-negative decimal integer */
	GT_OPT_STRING,  /* const char **: the argument as given */
	GT_OPT_CHOICE,  /* int *: index of the argument in .choices (NULL-terminated) */
	GT_OPT_PERCENT, /* double *: a percentage with its unit ("5%", "2.5%"), 0% to 1000%, stored as a
	                 * fraction (0.05); a bare number is refused, since 0.05 could mean 5% or 0.05% */
	GT_OPT_TIME,    /* uint64_t *: a time with its unit, "1.5s", "200ms", "350us", "20ns", in ns */
	GT_OPT_CALL,    /* .call(o, value, ...): the value handed to the command as it comes, in order */
	GT_OPT_EXT = 64 /* the tool's own kinds start here (struct gt_cli_tool's hooks) */
};

struct gt_option;
/* GT_OPT_CALL: takes the value. 0; 1 for a usage error, its words (without the option's name) in
 * err; -1 after a failure the callback said itself (the parse stops with GT_CLI_USAGE). */
typedef int (*gt_opt_call)(const struct gt_option *o, const char *value, char *err, size_t errlen);

struct gt_option {
	int kind;                    /* enum gt_opt_kind, or a tool's kind from GT_OPT_EXT */
	char short_name;             /* 0: none */
	const char *long_name;       /* NULL: none */
	const char *alias;           /* another long name accepted for it (an older spelling), never shown */
	const char *arg;             /* the value's name in help ("N"); choices and a tool's kinds may
	                              * make their own */
	const char *help;            /* may hold newlines: each further line is indented under the first */
	void *value;
	unsigned formats;            /* a tool's kind: the set it accepts (gpuanalyze: output formats) */
	const char *const *choices;  /* GT_OPT_CHOICE */
	gt_opt_call call;            /* GT_OPT_CALL */
	const void *data;            /* GT_OPT_CALL: what the callback needs besides the value */
	int input;                   /* GT_OPT_STRING: the value names a file the command reads, which
	                              * no output may replace */
};
#define GT_OPT_END_OF_LIST { .kind = GT_OPT_END }

/* What a tool gives the library: its name and version line, where its usage errors go, and the
 * hooks of its own option kinds. */
struct gt_cli_tool {
	const char *name;            /* "gpuanalyze" */
	const char *version;         /* the line -V prints, without its newline */
	/* Writes "NAME: " and text, escaped for a terminal, as one line on standard error. NULL: the
	 * library does (common/text_escape.h). */
	void (*say)(const char *text);
	/* A kind from GT_OPT_EXT: stores value (0), or writes the usage error's words into err (-1). */
	int (*apply)(const struct gt_option *o, const char *value, char *err, size_t errlen);
	/* Its value's name in the synopsis and the help, into buf (NULL: o->arg). */
	const char *(*arg_name)(const struct gt_option *o, char *buf, size_t len);
	/* Releases what apply kept (called for every option of the table after a stopped parse). */
	void (*release)(const struct gt_option *o);
};

/* A tool's version line, "gputrace 0.1.0 (trace format 1.0)", from its name, its version string
 * and the trace format's major and minor numbers (macros: they are written as numbers). */
#define GT_CLI_VERSION(tool, version, major, minor) \
	tool " " version " (trace format " GT_CLI_STR_(major) "." GT_CLI_STR_(minor) ")"
#define GT_CLI_STR_(x) GT_CLI_STR__(x)
#define GT_CLI_STR__(x) #x

struct gt_usage {
	const struct gt_cli_tool *tool;
	const char *name;            /* "summary" */
	const char *operands;        /* "FILE..." in the synopsis */
	int min_operands, max_operands; /* max -1: no limit */
	const char *description;     /* a paragraph for --help */
	const struct gt_option *options;
	const char *synopsis;        /* without "usage: "; NULL: made from the table */
	int stop_at_operand;         /* 1: the options end at the first operand (PROGRAM [ARGS...]) */
	const char *epilogue;        /* printed after the option lines, after a blank line; or NULL */
	void (*help_end)(FILE *f);   /* prints the end of --help (an environment table); or NULL */
};

/* The usage error's line, said through the tool: "CMD: WHAT (see 'TOOL CMD --help')", or without
 * a command (cmd NULL) "WHAT (see 'TOOL --help')". Returns GT_CLI_USAGE. */
int gt_cli_usage_error(const struct gt_cli_tool *t, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Parses argv (argv[0] is the subcommand's name). Returns 1 to go on, with the operands moved to
 * argv[1..] and *operands = argv + 1; returns 0 to stop, with *status the exit status: 0 after
 * printing --help or --version on stdout, GT_CLI_USAGE after a usage error was said, and the
 * table's tool kinds released. dashdash_at (may be NULL) receives how many operands came before
 * the first "--", or -1 when there was none (diff's BASE... -- NEW...). */
int gt_cli_parse(const struct gt_usage *u, int argc, char **argv, char ***operands, int *noperands,
                 int *status, int *dashdash_at);
/* Releases what the tool's kinds in the table kept (each can be released twice). */
void gt_cli_release(const struct gt_usage *u);
/* How an option is written in messages and the synopsis, "--warmup" or "-o", into buf. */
const char *gt_cli_spelling(const struct gt_option *o, char *buf, size_t len);
/* The synopsis line, without "usage: ", into buf. */
const char *gt_cli_synopsis(const struct gt_usage *u, char *buf, size_t len);
/* The option lines of --help, -h and -V included. */
void gt_cli_option_lines(const struct gt_usage *u, FILE *f);
/* The whole --help: synopsis, description, options, epilogue, help_end. */
void gt_cli_help(const struct gt_usage *u, FILE *f);

/* "1.5s", "200ms", "350us", "20ns" (a decimal number, no sign, then its unit) as nanoseconds, exactly
 * (a fraction finer than 1 ns is refused). 0, or -1 for anything else, or beyond 2^64 - 1 ns. */
int gt_parse_time_ns(const char *s, uint64_t *ns);
/* The number (strtod's syntax) at the start of s into *v, and where it ends into *rest: 0, or -1
 * when s is NULL, holds no number there, or the number is out of double's range. What may follow
 * is the caller's rule. */
int gt_parse_number(const char *s, double *v, const char **rest);

/* Running a child: argv with the environment as it is now, waited for, with SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT forwarded to it (a CI runner's timeout that kills the tool alone reaches the
 * child). own_group: the child leads a process group of its own and signals go to the whole group;
 * timeout_s > 0: the group is killed after that long. Returns the wait status, -1 with errno when
 * no child could be started, or -2 after the timeout. A program that cannot be executed exits
 * 127 after one line, "TOOL: cannot run 'PROGRAM': why". */
int gt_cli_run(const struct gt_cli_tool *t, char **argv, int own_group, unsigned timeout_s);

#endif

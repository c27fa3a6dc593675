/* cli.c: parses a subcommand's argv against its option table, prints its --help, words its usage
 * errors, for gpuanalyze and gputrace alike (cli.h).
 *
 * getopt_long would print its own messages in its own words; parsing here keeps every usage error
 * in the tool's voice ("gpuanalyze: summary: option '--warmup' wants ...") with the hint where to
 * look, and lets the help text come from the same table the parser reads.
 */
#include "common/cli.h"

#include "common/text_escape.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The left column of an option line in --help. */
#define HELP_COLUMN 28

static void say(const struct gt_cli_tool *t, const char *text)
{
	if (t->say)
		t->say(text);
	else
		gt_esc_line(stderr, "%s: %s", t->name, text);
}

static int usage_verror(const struct gt_cli_tool *t, const char *cmd, const char *fmt, va_list ap)
{
	char msg[512], line[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (cmd)
		snprintf(line, sizeof line, "%s: %s (see '%s %s --help')", cmd, msg, t->name, cmd);
	else
		snprintf(line, sizeof line, "%s (see '%s --help')", msg, t->name);
	say(t, line);
	return GT_CLI_USAGE;
}

int gt_cli_usage_error(const struct gt_cli_tool *t, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = usage_verror(t, cmd, fmt, ap);
	va_end(ap);
	return rc;
}

static int usage_error(const struct gt_usage *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(const struct gt_usage *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = usage_verror(u->tool, u->name, fmt, ap);
	va_end(ap);
	return rc;
}

const char *gt_cli_spelling(const struct gt_option *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

/* The value's name in the synopsis and in help. */
static const char *arg_name(const struct gt_usage *u, const struct gt_option *o, char *buf, size_t len)
{
	if (o->kind >= GT_OPT_EXT && u->tool->arg_name)
		return u->tool->arg_name(o, buf, len);
	if (o->kind == GT_OPT_CHOICE) {
		size_t pos = 0;
		buf[0] = '\0';
		for (const char *const *c = o->choices; c && *c; c++) {
			int k = snprintf(buf + pos, len > pos ? len - pos : 0, "%s%s", pos ? "|" : "", *c);
			if (k > 0)
				pos += (size_t)k;
		}
		return buf;
	}
	return o->arg ? o->arg : "";
}

const char *gt_cli_synopsis(const struct gt_usage *u, char *buf, size_t len)
{
	if (u->synopsis) {
		snprintf(buf, len, "%s", u->synopsis);
		return buf;
	}
	size_t pos = 0;
	int k = snprintf(buf, len, "%s %s", u->tool->name, u->name);
	if (k > 0)
		pos = (size_t)k;
	for (const struct gt_option *o = u->options; o && o->kind != GT_OPT_END; o++) {
		char sp[64], an[128];
		gt_cli_spelling(o, sp, sizeof sp);
		if (o->kind == GT_OPT_FLAG)
			k = snprintf(buf + pos, len > pos ? len - pos : 0, " [%s]", sp);
		else
			k = snprintf(buf + pos, len > pos ? len - pos : 0, " [%s %s]", sp,
			             arg_name(u, o, an, sizeof an));
		if (k > 0)
			pos += (size_t)k;
	}
	if (u->operands && *u->operands)
		snprintf(buf + pos, len > pos ? len - pos : 0, " %s", u->operands);
	return buf;
}

/* One option line: the left column, then the help, each further line of it under the first. */
static void option_line(FILE *f, const char *left, const char *help)
{
	const char *nl = strchr(help, '\n');
	int first = nl ? (int)(nl - help) : (int)strlen(help);
	if (strlen(left) < HELP_COLUMN)
		fprintf(f, "  %-*s %.*s\n", HELP_COLUMN, left, first, help);
	else
		fprintf(f, "  %s\n  %-*s %.*s\n", left, HELP_COLUMN, "", first, help);
	while (nl) {
		help = nl + 1;
		nl = strchr(help, '\n');
		int n = nl ? (int)(nl - help) : (int)strlen(help);
		fprintf(f, "  %-*s %.*s\n", HELP_COLUMN, "", n, help);
	}
}

void gt_cli_option_lines(const struct gt_usage *u, FILE *f)
{
	for (const struct gt_option *o = u->options; o && o->kind != GT_OPT_END; o++) {
		char left[256], an[128];
		const char *a = o->kind == GT_OPT_FLAG ? "" : arg_name(u, o, an, sizeof an);
		if (o->short_name && o->long_name)
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name, *a ? " " : "",
			         a);
		else if (o->long_name)
			snprintf(left, sizeof left, "--%s%s%s", o->long_name, *a ? " " : "", a);
		else
			snprintf(left, sizeof left, "-%c%s%s", o->short_name, *a ? " " : "", a);
		option_line(f, left, o->help ? o->help : "");
	}
	option_line(f, "-h, --help", "show this help and exit");
	option_line(f, "-V, --version", "show the version and exit");
}

void gt_cli_help(const struct gt_usage *u, FILE *f)
{
	char syn[1024];
	fprintf(f, "usage: %s\n\n", gt_cli_synopsis(u, syn, sizeof syn));
	if (u->description)
		fprintf(f, "%s\n\n", u->description);
	fputs("options:\n", f);
	gt_cli_option_lines(u, f);
	if (u->epilogue)
		fprintf(f, "\n%s", u->epilogue);
	if (u->help_end)
		u->help_end(f);
}

static int parse_uint(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int gt_parse_number(const char *s, double *v, const char **rest)
{
	if (!s)
		return -1;
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	*rest = end;
	return errno || end == s ? -1 : 0;
}

/* "5%", "2.5%": 0 and the fraction (0.05, 0.025); 1 for a number without its '%' (*out is then the
 * number as written); -1 for anything else, a percentage outside 0% to 1000% included. */
static int parse_percent(const char *s, double *out)
{
	double v;
	const char *end;
	if (gt_parse_number(s, &v, &end) || !(v >= 0) || v > 1000)
		return -1;
	if (*end == '\0') {
		*out = v;
		return 1;
	}
	if (strcmp(end, "%") != 0)
		return -1;
	*out = v / 100;
	return 0;
}

int gt_parse_time_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
		int decimals; /* fraction digits that are still whole nanoseconds */
	} units[] = { { "s", 1000000000ull, 9 }, { "ms", 1000000ull, 6 }, { "us", 1000ull, 3 }, { "ns", 1, 0 } };
	const char *p = s;
	uint64_t whole = 0, frac = 0;
	int nfrac = 0, digits = 0;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		if (__builtin_mul_overflow(whole, 10, &whole) || __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
			return -1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (nfrac == 9) {
				if (*p != '0')
					return -1; /* finer than any unit's nanosecond */
				continue;
			}
			frac = frac * 10 + (uint64_t)(*p - '0');
			nfrac++;
		}
	if (!digits)
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		if (strcmp(p, units[i].unit) != 0)
			continue;
		if (nfrac > units[i].decimals)
			return -1;
		for (int k = nfrac; k < units[i].decimals; k++)
			frac *= 10;
		uint64_t v;
		if (__builtin_mul_overflow(whole, units[i].ns, &v) || __builtin_add_overflow(v, frac, &v))
			return -1;
		*ns = v;
		return 0;
	}
	return -1;
}

static int apply_percent(const struct gt_usage *u, const struct gt_option *o, const char *value)
{
	char sp[64];
	double v;
	int rc = parse_percent(value, &v);
	if (rc == 0) {
		*(double *)o->value = v;
		return 0;
	}
	gt_cli_spelling(o, sp, sizeof sp);
	if (rc < 0)
		return usage_error(u, "option '%s' wants a percentage such as 5%% (0 to 1000), not '%s'", sp, value);
	if (v > 0 && v <= 1)
		return usage_error(u, "option '%s' wants its unit: '%g%%' if '%s' is a fraction, '%s%%' if "
		                   "it is in percent", sp, v * 100, value, value);
	return usage_error(u, "option '%s' wants its unit: '%s%%' for %s percent", sp, value, value);
}

/* Stores value into o's destination; returns 0 or a said usage error's status. */
static int apply(const struct gt_usage *u, const struct gt_option *o, const char *value)
{
	char sp[64], an[128], err[512];
	if (o->kind >= GT_OPT_EXT) {
		if (!u->tool->apply || u->tool->apply(o, value, err, sizeof err) != 0)
			return usage_error(u, "%s", u->tool->apply ? err : "internal error: option of an unknown kind");
		return 0;
	}
	switch (o->kind) {
	case GT_OPT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case GT_OPT_UINT:
		if (parse_uint(value, (uint64_t *)o->value) != 0)
			return usage_error(u, "option '%s' wants a non-negative integer, not '%s'",
			                   gt_cli_spelling(o, sp, sizeof sp), value);
		return 0;
	case GT_OPT_STRING:
		*(const char **)o->value = value;
		return 0;
	case GT_OPT_CHOICE:
		for (int i = 0; o->choices && o->choices[i]; i++) {
			if (strcmp(o->choices[i], value) == 0) {
				*(int *)o->value = i;
				return 0;
			}
		}
		return usage_error(u, "option '%s' wants one of %s, not '%s'", gt_cli_spelling(o, sp, sizeof sp),
		                   arg_name(u, o, an, sizeof an), value);
	case GT_OPT_PERCENT:
		return apply_percent(u, o, value);
	case GT_OPT_TIME:
		if (gt_parse_time_ns(value, (uint64_t *)o->value) != 0)
			return usage_error(u, "option '%s' wants a time with its unit (1.5s, 200ms, 350us, 20ns), "
			                   "not '%s'",
			                   gt_cli_spelling(o, sp, sizeof sp), value);
		return 0;
	case GT_OPT_CALL: {
		int rc = o->call(o, value, err, sizeof err);
		if (rc > 0)
			return usage_error(u, "option '%s' %s", gt_cli_spelling(o, sp, sizeof sp), err);
		return rc < 0 ? GT_CLI_USAGE : 0;
	}
	}
	return usage_error(u, "internal error: option without a kind");
}

void gt_cli_release(const struct gt_usage *u)
{
	if (!u->tool->release)
		return;
	for (const struct gt_option *o = u->options; o && o->kind != GT_OPT_END; o++)
		if (o->kind >= GT_OPT_EXT)
			u->tool->release(o);
}

/* The option that the long name (len bytes) names, its alias included; or NULL. */
static const struct gt_option *find_long(const struct gt_usage *u, const char *name, size_t len)
{
	const struct gt_option *found = NULL;
	for (const struct gt_option *p = u->options; p && p->kind != GT_OPT_END; p++) {
		if (p->long_name && strlen(p->long_name) == len && strncmp(p->long_name, name, len) == 0)
			found = p;
		else if (p->alias && strlen(p->alias) == len && strncmp(p->alias, name, len) == 0)
			found = p;
	}
	return found;
}

static const struct gt_option *find_short(const struct gt_usage *u, char c)
{
	const struct gt_option *found = NULL;
	for (const struct gt_option *p = u->options; p && p->kind != GT_OPT_END; p++)
		if (p->short_name && p->short_name == c)
			found = p;
	return found;
}

/* What a stop prints and returns: --help (1) or --version (2) on stdout, status 0. */
static int stop_shown(const struct gt_usage *u, int which, int *status)
{
	if (which == 1)
		gt_cli_help(u, stdout);
	else
		printf("%s\n", u->tool->version);
	*status = fflush(stdout) == 0 ? 0 : GT_CLI_USAGE;
	return 0;
}

/* One argument that starts with '-' (not "-" or "--"): applies it, taking its value from argv[*i + 1]
 * when it needs one. 1 to go on; 0 to stop with *status. */
static int one_option(const struct gt_usage *u, int argc, char **argv, int *i, int *status)
{
	char *a = argv[*i];
	if (strcmp(a, "--help") == 0)
		return stop_shown(u, 1, status);
	if (strcmp(a, "--version") == 0)
		return stop_shown(u, 2, status);
	const struct gt_option *o = NULL;
	const char *value = NULL;
	if (a[1] == '-') {
		const char *name = a + 2;
		const char *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		o = find_long(u, name, len);
		if (!o) {
			*status = usage_error(u, "unknown option '--%.*s'", (int)len, name);
			return 0;
		}
		if (eq) {
			if (o->kind == GT_OPT_FLAG) {
				*status = usage_error(u, "option '--%s' takes no value", o->long_name);
				return 0;
			}
			value = eq + 1;
		}
	} else {
		/* -x, -xVALUE, or flags grouped (-qz), the last of which may take a value. */
		for (const char *p = a + 1; *p; p++) {
			if (*p == 'h' || *p == 'V') {
				if (!find_short(u, *p))
					return stop_shown(u, *p == 'h' ? 1 : 2, status);
			}
			o = find_short(u, *p);
			if (!o) {
				*status = usage_error(u, "unknown option '-%c'", *p);
				return 0;
			}
			if (o->kind != GT_OPT_FLAG) {
				if (p[1])
					value = p + 1;
				break;
			}
			if (p[1] && (*status = apply(u, o, NULL)) != 0)
				return 0;
		}
	}
	if (o->kind != GT_OPT_FLAG && !value) {
		char sp[64], an[128];
		if (*i + 1 >= argc) {
			*status = usage_error(u, "option '%s' needs a value (%s)", gt_cli_spelling(o, sp, sizeof sp),
			                      arg_name(u, o, an, sizeof an));
			return 0;
		}
		value = argv[++*i];
	}
	*status = apply(u, o, value);
	return *status == 0;
}

static int parse(const struct gt_usage *u, int argc, char **argv, char ***operands, int *noperands,
                 int *status, int *dashdash_at)
{
	int nops = 0, only_operands = 0;
	*status = 0;
	*dashdash_at = -1;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (only_operands || a[0] != '-' || a[1] == '\0') {
			argv[1 + nops++] = a; /* operands move to the front, in order */
			if (u->stop_at_operand)
				only_operands = 1;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			*dashdash_at = nops;
			only_operands = 1;
			continue;
		}
		if (!one_option(u, argc, argv, &i, status))
			return 0;
	}
	if (nops < u->min_operands) {
		*status = usage_error(u, nops ? "too few operands (wants %s)" : "missing operand %s",
		                      u->operands ? u->operands : "operand");
		return 0;
	}
	if (u->max_operands >= 0 && nops > u->max_operands) {
		*status = usage_error(u, "too many operands (wants %s)", u->operands ? u->operands : "none");
		return 0;
	}
	if (1 + nops < argc)
		argv[1 + nops] = NULL; /* the operands end there, as an argv does (a program's, for exec) */
	*operands = argv + 1;
	*noperands = nops;
	return 1;
}

/* The parse, and on a stop what the tool's kinds kept released: a command that stops has no use
 * for it, and no command repeats the release before its early return. */
int gt_cli_parse(const struct gt_usage *u, int argc, char **argv, char ***operands, int *noperands,
                 int *status, int *dashdash_at)
{
	int dd;
	if (parse(u, argc, argv, operands, noperands, status, dashdash_at ? dashdash_at : &dd))
		return 1;
	gt_cli_release(u);
	return 0;
}

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t child_group; /* 1: the child leads a process group of its own */

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_group ? -(pid_t)child_pid : (pid_t)child_pid, sig);
}

/* Waits for pid, killing its group after timeout_s (> 0). The wait status, -1, or -2 (timeout). */
static int wait_child(pid_t pid, int own_group, unsigned timeout_s)
{
	struct timespec t0, now, nap = { 0, 20 * 1000 * 1000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, timeout_s ? WNOHANG : 0);
		if (w == pid)
			return status;
		if (w < 0 && errno != EINTR)
			return -1;
		if (!timeout_s)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= (time_t)timeout_s) {
			kill(own_group ? -pid : pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return -2;
		}
		nanosleep(&nap, NULL);
	}
}

int gt_cli_run(const struct gt_cli_tool *t, char **argv, int own_group, unsigned timeout_s)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (own_group)
			setpgid(0, 0);
		execvp(argv[0], argv);
		char text[1200];
		snprintf(text, sizeof text, "cannot run '%.1000s': %s", argv[0], strerror(errno));
		say(t, text);
		_exit(127);
	}
	if (own_group)
		setpgid(pid, pid); /* also here: the group exists before a signal is forwarded to it */
	child_pid = pid;
	child_group = own_group;
	/* The child gets terminal signals itself (same process group); forwarding covers a kill
	 * aimed at the tool alone, as a CI runner's timeout does. */
	struct sigaction sa, old[4];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	const int sigs[4] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &sa, &old[i]);
	int status = wait_child(pid, own_group, timeout_s);
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	child_pid = 0;
	child_group = 0;
	return status;
}

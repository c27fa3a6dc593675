/* options.c: parses a subcommand's argv against its option table and prints its --help.
 *
 * getopt_long would print its own messages in its own words; parsing here keeps every usage error
 * in the analyzer's voice ("gpuanalyze: summary: option '--warmup' wants ...") with the hint where to
 * look, and lets the help text come from the same table the parser reads.
 */
#include "analyze/support/options.h"

#include "analyze/support/diag.h"
#include "analyze/support/stdin_trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int usage_error(const struct gt_usage *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage_error(const struct gt_usage *u, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return gt_error("%s: %s (see 'gpuanalyze %s --help')", u->name, msg, u->name);
}

/* How the option is written in messages: "--warmup" or "-o". */
static const char *spelling(const struct gt_option *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

/* The value's name in the synopsis and in help. */
static const char *arg_name(const struct gt_option *o, char *buf, size_t len)
{
	if (o->kind == GT_OPT_FORMAT)
		return gt_format_list(o->formats, buf, len);
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

const char *gt_options_synopsis(const struct gt_usage *u, char *buf, size_t len)
{
	size_t pos = 0;
	int k = snprintf(buf, len, "gpuanalyze %s", u->name);
	if (k > 0)
		pos = (size_t)k;
	for (const struct gt_option *o = u->options; o && o->kind != GT_OPT_END; o++) {
		char sp[64], an[128];
		spelling(o, sp, sizeof sp);
		if (o->kind == GT_OPT_FLAG)
			k = snprintf(buf + pos, len > pos ? len - pos : 0, " [%s]", sp);
		else
			k = snprintf(buf + pos, len > pos ? len - pos : 0, " [%s %s]", sp,
			             arg_name(o, an, sizeof an));
		if (k > 0)
			pos += (size_t)k;
	}
	if (u->operands && *u->operands)
		snprintf(buf + pos, len > pos ? len - pos : 0, " %s", u->operands);
	return buf;
}

void gt_options_help(const struct gt_usage *u, FILE *f)
{
	char syn[1024];
	fprintf(f, "usage: %s\n\n", gt_options_synopsis(u, syn, sizeof syn));
	if (u->description)
		fprintf(f, "%s\n\n", u->description);
	fputs("options:\n", f);
	for (const struct gt_option *o = u->options; o && o->kind != GT_OPT_END; o++) {
		char left[256], an[128];
		const char *a = o->kind == GT_OPT_FLAG ? "" : arg_name(o, an, sizeof an);
		if (o->short_name && o->long_name)
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name, *a ? " " : "",
			         a);
		else if (o->long_name)
			snprintf(left, sizeof left, "--%s%s%s", o->long_name, *a ? " " : "", a);
		else
			snprintf(left, sizeof left, "-%c%s%s", o->short_name, *a ? " " : "", a);
		if (strlen(left) < 28)
			fprintf(f, "  %-28s %s\n", left, o->help ? o->help : "");
		else
			fprintf(f, "  %s\n  %-28s %s\n", left, "", o->help ? o->help : "");
	}
	fprintf(f, "  %-28s %s\n", "-h, --help", "show this help and exit");
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

/* "5%", "2.5%": 0 and the fraction (0.05, 0.025); 1 for a number without its '%' (*out is then the
 * number as written); -1 for anything else, a percentage outside 0% to 1000% included. */
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

/* Stores value into o's destination; returns 0 or a reported usage error. */
static int apply(const struct gt_usage *u, const struct gt_option *o, const char *value)
{
	char sp[64], an[128];
	switch (o->kind) {
	case GT_OPT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case GT_OPT_UINT:
		if (parse_uint(value, (uint64_t *)o->value) != 0)
			return usage_error(u, "option '%s' wants a non-negative integer, not '%s'",
			                   spelling(o, sp, sizeof sp), value);
		return 0;
	case GT_OPT_STRING:
		*(const char **)o->value = value;
		return 0;
	case GT_OPT_FORMAT:
		if (gt_format_parse(value, o->formats, (enum gt_format *)o->value) != 0)
			return usage_error(u, "option '%s' wants one of %s, not '%s'",
			                   spelling(o, sp, sizeof sp), arg_name(o, an, sizeof an), value);
		return 0;
	case GT_OPT_CHOICE:
		for (int i = 0; o->choices && o->choices[i]; i++) {
			if (strcmp(o->choices[i], value) == 0) {
				*(int *)o->value = i;
				return 0;
			}
		}
		return usage_error(u, "option '%s' wants one of %s, not '%s'", spelling(o, sp, sizeof sp),
		                   arg_name(o, an, sizeof an), value);
	case GT_OPT_REGEX: {
		char err[256];
		int rc = gt_name_filter_set((struct gt_name_filter *)o->value, value, err, sizeof err);
		if (rc != 0)
			return usage_error(u, "option '%s': bad regular expression '%s': %s",
			                   spelling(o, sp, sizeof sp), value, err);
		return 0;
	}
	case GT_OPT_PERCENT: {
		double v;
		int rc = parse_percent(value, &v);
		if (rc == 0) {
			*(double *)o->value = v;
			return 0;
		}
		spelling(o, sp, sizeof sp);
		if (rc < 0)
			return usage_error(u, "option '%s' wants a percentage such as 5%% (0 to 1000), not '%s'", sp,
			                   value);
		if (v > 0 && v <= 1)
			return usage_error(u, "option '%s' wants its unit: '%g%%' if '%s' is a fraction, '%s%%' if "
			                   "it is in percent", sp, v * 100, value, value);
		return usage_error(u, "option '%s' wants its unit: '%s%%' for %s percent", sp, value, value);
	}
	case GT_OPT_TIME:
		if (gt_parse_time_ns(value, (uint64_t *)o->value) != 0)
			return usage_error(u, "option '%s' wants a time with its unit (1.5s, 200ms, 350us, 20ns), "
			                   "not '%s'",
			                   spelling(o, sp, sizeof sp), value);
		return 0;
	case GT_OPT_END:
		break;
	}
	return usage_error(u, "internal error: option without a kind");
}

int gt_options_parse(const struct gt_usage *u, int argc, char **argv, char ***operands,
                     int *noperands, int *status)
{
	int dashdash_at;
	return gt_options_parse_groups(u, argc, argv, operands, noperands, status, &dashdash_at);
}

static int parse_groups(const struct gt_usage *u, int argc, char **argv, char ***operands,
                        int *noperands, int *status, int *dashdash_at);

/* The parse, and on a stop the --kernel filters it compiled released: a command that stops has no
 * use for them, and each command no longer repeats the release before its early return. */
int gt_options_parse_groups(const struct gt_usage *u, int argc, char **argv, char ***operands,
                            int *noperands, int *status, int *dashdash_at)
{
	if (parse_groups(u, argc, argv, operands, noperands, status, dashdash_at))
		return 1;
	gt_options_release(u->options);
	return 0;
}

void gt_options_release(const struct gt_option *options)
{
	for (const struct gt_option *o = options; o && o->kind != GT_OPT_END; o++)
		if (o->kind == GT_OPT_REGEX)
			gt_name_filter_release(o->value);
}

static int parse_groups(const struct gt_usage *u, int argc, char **argv, char ***operands,
                        int *noperands, int *status, int *dashdash_at)
{
	int nops = 0, only_operands = 0;
	*status = 0;
	*dashdash_at = -1;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (only_operands || a[0] != '-' || a[1] == '\0') {
			argv[1 + nops++] = a; /* operands move to the front, in order */
			continue;
		}
		if (strcmp(a, "--") == 0) {
			*dashdash_at = nops;
			only_operands = 1;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			gt_options_help(u, stdout);
			*status = 0;
			return 0;
		}
		const struct gt_option *o = NULL;
		const char *value = NULL;
		if (a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			for (const struct gt_option *p = u->options; p && p->kind != GT_OPT_END; p++)
				if (p->long_name && strlen(p->long_name) == len &&
				    strncmp(p->long_name, name, len) == 0)
					o = p;
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
			for (const struct gt_option *p = u->options; p && p->kind != GT_OPT_END; p++)
				if (p->short_name && p->short_name == a[1])
					o = p;
			if (!o) {
				*status = usage_error(u, "unknown option '-%c'", a[1]);
				return 0;
			}
			if (a[2]) {
				if (o->kind == GT_OPT_FLAG) {
					*status = usage_error(u, "option '-%c' takes no value", o->short_name);
					return 0;
				}
				value = a + 2;
			}
		}
		if (o->kind != GT_OPT_FLAG && !value) {
			char sp[64], an[128];
			if (i + 1 >= argc) {
				*status = usage_error(u, "option '%s' needs a value (%s)",
				                      spelling(o, sp, sizeof sp), arg_name(o, an, sizeof an));
				return 0;
			}
			value = argv[++i];
		}
		int rc = apply(u, o, value);
		if (rc) {
			*status = rc;
			return 0;
		}
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
	/* Every operand is a trace: "-" is the one on standard input, which can be read once. */
	int from_stdin = 0;
	for (int i = 1; i <= nops; i++) {
		if (strcmp(argv[i], "-") != 0)
			continue;
		if (from_stdin++) {
			*status = usage_error(u, "standard input ('-') can be given once");
			return 0;
		}
		const char *p = gt_stdin_trace_path();
		if (!p) {
			*status = GT_EXIT_USAGE;
			return 0;
		}
		argv[i] = (char *)p;
	}
	*operands = argv + 1;
	*noperands = nops;
	return 1;
}

/* replay_args.c: the replay worker's options and the captures they pick (replay_args.h). */
#include "preload/replay/replay_args.h"

#include "common/mangled.h"
#include "preload/replay/replay_compare.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int number(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

const char *replay_args_parse(struct replay_args *a, int argc, char **argv)
{
	memset(a, 0, sizeof *a);
	a->reps = 50;
	a->check_reps = 10;
	a->dtype = RD_F32;
	static const struct option longs[] = {
		{ "capture", required_argument, NULL, 'c' }, { "kernel", required_argument, NULL, 'k' },
		{ "reps", required_argument, NULL, 'n' },    { "check-reps", required_argument, NULL, 'C' },
		{ "dtype", required_argument, NULL, 't' },   { "device", required_argument, NULL, 'd' },
		{ "with-structs", no_argument, NULL, 'F' },  { "results", required_argument, NULL, 'r' },
		{ "metrics", required_argument, NULL, 'm' }, { "metric-values", required_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	unsigned long long v;
	enum replay_dtype t;
	optind = 0; /* glibc: start over, whoever parsed before */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		switch (ch) {
		case 'c':
			if (number(optarg, UINT64_MAX, &v) || v == 0)
				return "--capture takes a capture id (1, 2, ...)";
			if (a->nids == REPLAY_MAX_CAPTURES)
				return "--capture: at most 256 of them";
			a->ids[a->nids++] = v;
			break;
		case 'k':
			if (a->have_re)
				regfree(&a->re);
			a->have_re = 0;
			if (regcomp(&a->re, optarg, REG_EXTENDED | REG_NOSUB) != 0)
				return "--kernel takes an extended regular expression (this one does not compile)";
			a->have_re = 1;
			break;
		case 'n':
			if (number(optarg, 1000000, &v))
				return "--reps takes 0..1000000";
			a->reps = (unsigned)v;
			break;
		case 'C':
			if (number(optarg, 1000000, &v))
				return "--check-reps takes 0..1000000";
			a->check_reps = (unsigned)v;
			break;
		case 't':
			if (replay_dtype_parse(optarg, &t))
				return "--dtype takes f32, f64, i32, u32 or u8";
			a->dtype = (int)t;
			break;
		case 'd':
			if (number(optarg, 1024, &v))
				return "--device takes a device ordinal (0..1024)";
			a->device = (int)v;
			break;
		case 'F': a->with_structs = 1; break;
		case 'r': a->results = optarg; break;
		case 'm':
			memset(&a->metrics, 0, sizeof a->metrics);
			if (replay_metric_sets_parse(optarg, &a->metrics, a->why, sizeof a->why))
				return a->why;
			break;
		case 'v': a->metric_values = optarg; break;
		case ':': return "an option lacks its value";
		default: return "unknown option";
		}
	}
	if (optind != argc - 1)
		return "one trace file is needed";
	a->trace = argv[optind];
	return NULL;
}

void replay_args_release(struct replay_args *a)
{
	if (a->have_re)
		regfree(&a->re);
	a->have_re = 0;
}

char *replay_args_demangled(const struct replay_args *a, const char *mangled)
{
	if (!a->demangle || gt_mangled_check(mangled, NULL) != GT_MANGLED_OK)
		return NULL;
	int st = -1;
	char *d = a->demangle(mangled, NULL, NULL, &st);
	if (!d || st != 0) {
		free(d);
		return NULL;
	}
	return d;
}

static int wanted(struct replay_args *a, const struct gt_capture *c, const char *mangled)
{
	if (a->nids) {
		int listed = 0;
		for (size_t i = 0; i < a->nids; i++)
			if (a->ids[i] == c->capture_id) {
				a->found[i] = 1;
				listed = 1;
			}
		if (!listed)
			return 0;
	}
	if (!a->have_re || regexec(&a->re, mangled, 0, NULL, 0) == 0)
		return 1;
	char *d = replay_args_demangled(a, mangled);
	int match = d && regexec(&a->re, d, 0, NULL, 0) == 0;
	free(d);
	return match;
}

int replay_args_pick(void *ctx, const struct gt_capture *c, const char *mangled)
{
	struct replay_args *a = ctx;
	if (!a->seen || c->capture_id < a->lo)
		a->lo = c->capture_id;
	if (!a->seen || c->capture_id > a->hi)
		a->hi = c->capture_id;
	a->seen++;
	int want = wanted(a, c, mangled);
	a->picked += (uint64_t)want;
	return a->count_only ? 0 : want;
}

int replay_args_load(struct replay_args *a, struct gt_capture_set *set, char *why, size_t n)
{
	char err[512];
	a->seen = a->picked = 0;
	memset(a->found, 0, sizeof a->found);
	if (gt_capture_set_load(set, a->trace, replay_args_pick, a, err, sizeof err) != 0) {
		snprintf(why, n, "cannot read trace '%s': %s", a->trace, err);
		return -1;
	}
	for (size_t i = 0; i < a->nids; i++)
		if (!a->found[i]) {
			if (!a->seen)
				snprintf(why, n, "'%s' holds no captured launch, so no capture %" PRIu64
				         " (record with --shadow PATTERN to capture launches)", a->trace, a->ids[i]);
			else
				snprintf(why, n, "'%s' has no capture %" PRIu64 ": it holds %" PRIu64 " captures, ids %" PRIu64
				         " to %" PRIu64, a->trace, a->ids[i], a->seen, a->lo, a->hi);
			gt_capture_set_release(set);
			return -1;
		}
	if (!a->picked) {
		snprintf(why, n, "'%s' holds %" PRIu64 " captured launches, none of them picked%s", a->trace, a->seen,
		         a->seen ? "" : " (record with --shadow PATTERN to capture launches)");
		gt_capture_set_release(set);
		return -1;
	}
	return 0;
}

int replay_args_check(struct replay_args *a, char *why, size_t n)
{
	struct gt_capture_set set;
	a->count_only = 1;
	int rc = replay_args_load(a, &set, why, n);
	a->count_only = 0;
	if (rc == 0)
		gt_capture_set_release(&set);
	return rc;
}

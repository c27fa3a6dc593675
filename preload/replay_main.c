/* replay_main.c: gputrace-replay, the worker behind `gputrace replay`.
 *
 *   gputrace-replay TRACE [--capture ID]... [--kernel REGEX] [--reps N] [--check-reps N]
 *                   [--dtype T] [--device N] [--with-structs] [--results FILE]
 *
 * Replays the picked captures of TRACE on this GPU, one after the other, and prints what each did.
 * `gputrace replay` runs it under the recorder (the kernel durations it reports come from CUPTI,
 * in the replay's own trace) and reads FILE afterwards: one line per capture,
 * "ID LAUNCHES VERDICT-NUMBER CORRELATION-ID", in the order replayed, so it can cut the replay trace's kernels
 * into each capture's. Not meant to be run by hand, though it works so (without timings).
 *
 * Exit: 0 every picked launch reproduced (bit-exact, or nondeterministic within its own spread);
 * 1 a launch differed, failed or could not be replayed; 2 usage or trace error; 77 no GPU.
 */
#include "replay_launch.h"

#include "common/demangler.h"
#include "log.h"
#include "mangled.h"

#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IDS 256

struct picks {
	uint64_t ids[MAX_IDS];
	size_t nids;
	int have_re;
	regex_t re;
	gt_cxa_demangle_fn demangle;  /* libstdc++'s, when the machine has it (this C program does not link it) */
};

/* The demangled name in buf, or the name itself; within traces/mangled.h's caps. */
static const char *shown_name(const struct picks *p, const char *name, char *buf, size_t n)
{
	if (!p->demangle || gt_mangled_check(name, NULL) != GT_MANGLED_OK)
		return name;
	int st = -1;
	char *d = p->demangle(name, NULL, NULL, &st);
	if (!d || st != 0) {
		free(d);
		return name;
	}
	snprintf(buf, n, "%s", d);
	free(d);
	return buf;
}

static int pick(void *ctx, const struct gt_capture *c, const char *mangled)
{
	struct picks *p = ctx;
	if (p->nids) {
		for (size_t i = 0; i < p->nids; i++)
			if (p->ids[i] == c->capture_id)
				goto by_name;
		return 0;
	}
by_name:
	if (!p->have_re)
		return 1;
	if (regexec(&p->re, mangled, 0, NULL, 0) == 0)
		return 1;
	char buf[4096];
	const char *d = shown_name(p, mangled, buf, sizeof buf);
	return d != mangled && regexec(&p->re, d, 0, NULL, 0) == 0;
}

static int usage(const char *msg)
{
	fprintf(stderr, "gputrace-replay: %s\nusage: gputrace-replay TRACE [--capture ID]... [--kernel REGEX] "
	        "[--reps N] [--check-reps N] [--dtype f32|f64|i32|u32|u8] [--device N] [--with-structs] [--results FILE]\n",
	        msg);
	return 2;
}

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

static int ok_verdict(enum replay_verdict v)
{
	return v == RV_REPRODUCED || v == RV_REPRODUCED_NONDET || v == RV_NONDET_WITHIN;
}

static void header(const struct picks *p, const struct gt_captured_launch *l)
{
	char buf[4096];
	const struct gt_capture *c = &l->c;
	char safe[4096], dev[512];
	/* Names come from the traced program: escaped for the terminal. */
	printf("capture %" PRIu64 ": %s\n", c->capture_id,
	       gtp_escape(shown_name(p, l->name, buf, sizeof buf), safe, sizeof safe));
	printf("  launch %u of this kernel in the run, on %s (cc %u.%u); grid %ux%ux%u, block %ux%ux%u",
	       c->launch_index, l->device_name[0] ? gtp_escape(l->device_name, dev, sizeof dev) : "an unnamed device",
	       l->cc_major, l->cc_minor,
	       c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2]);
	if (c->cluster[0] > 1 || c->cluster[1] > 1 || c->cluster[2] > 1)
		printf(", cluster %ux%ux%u", c->cluster[0], c->cluster[1], c->cluster[2]);
	printf(", %u B dynamic shared memory, %u parameters\n", c->dynamic_smem, c->nparams);
}

struct args {
	struct picks p;
	struct replay_options opt;
	const char *results;
	int device;
	const char *trace;
};

/* The command line into a; -1 when it is good, else the exit status (after the usage line). */
static int parse_args(int argc, char **argv, struct args *a)
{
	memset(a, 0, sizeof *a);
	a->opt = (struct replay_options){ .reps = 50, .check_reps = 10, .dtype = RD_F32 };
	struct picks *p = &a->p;
	static const struct option longs[] = {
		{ "capture", required_argument, NULL, 'c' }, { "kernel", required_argument, NULL, 'k' },
		{ "reps", required_argument, NULL, 'n' },    { "check-reps", required_argument, NULL, 'C' },
		{ "dtype", required_argument, NULL, 't' },   { "device", required_argument, NULL, 'd' },
		{ "with-structs", no_argument, NULL, 'F' },  { "results", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	unsigned long long v;
	while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (ch) {
		case 'c':
			if (number(optarg, UINT64_MAX, &v) || v == 0 || p->nids == MAX_IDS)
				return usage("--capture takes a capture id (1, 2, ...), at most 256 of them");
			p->ids[p->nids++] = v;
			break;
		case 'k':
			if (p->have_re)
				regfree(&p->re);
			if (regcomp(&p->re, optarg, REG_EXTENDED | REG_NOSUB) != 0)
				return usage("--kernel takes an extended regular expression");
			p->have_re = 1;
			break;
		case 'n':
			if (number(optarg, 1000000, &v))
				return usage("--reps takes 0..1000000");
			a->opt.reps = (unsigned)v;
			break;
		case 'C':
			if (number(optarg, 1000000, &v))
				return usage("--check-reps takes 0..1000000");
			a->opt.check_reps = (unsigned)v;
			break;
		case 't':
			if (replay_dtype_parse(optarg, &a->opt.dtype))
				return usage("--dtype takes f32, f64, i32, u32 or u8");
			break;
		case 'd':
			if (number(optarg, 1024, &v))
				return usage("--device takes a device ordinal");
			a->device = (int)v;
			break;
		case 'F': a->opt.force = 1; break;
		case 'r': a->results = optarg; break;
		default: return usage("unknown option");
		}
	}
	if (optind != argc - 1)
		return usage("one trace file is needed");
	a->trace = argv[optind];
	return -1;
}

int main(int argc, char **argv)
{
	struct args a;
	int prc = parse_args(argc, argv, &a);
	if (prc >= 0)
		return prc;
	struct picks *p = &a.p; /* the compiled --kernel pattern lives there: never copied */
	struct replay_options opt = a.opt;
	const char *results = a.results;
	int device = a.device;
	const char *trace = a.trace;
	p->demangle = gt_demangler_find(GT_DEMANGLER_MAY_LOAD);

	struct gt_capture_set set;
	char err[512];
	if (gt_capture_set_load(&set, trace, pick, p, err, sizeof err) != 0) {
		char shown[1024];
		fprintf(stderr, "gputrace replay: cannot read trace '%s': %s\n", gtp_escape(trace, shown, sizeof shown), err);
		return 2;
	}
	if (set.n == 0) {
		char shown[1024];
		fprintf(stderr, "gputrace replay: '%s' holds %" PRIu64 " captured launches, none of them picked%s\n",
		        gtp_escape(trace, shown, sizeof shown), set.seen, set.seen ? "" : " (record with --shadow PATTERN to capture launches)");
		gt_capture_set_release(&set);
		return 2;
	}
	FILE *res = results ? fopen(results, "w") : NULL;
	if (results && !res) {
		fprintf(stderr, "gputrace replay: cannot write '%s': %s\n", results, strerror(errno));
		gt_capture_set_release(&set);
		return 2;
	}
	struct replay_cuda cu;
	if (replay_cuda_open(&cu, device, err, sizeof err) != 0) {
		printf("gputrace replay: unavailable: %s\n", err);
		gt_capture_set_release(&set);
		if (res)
			fclose(res);
		return 77;
	}
	char shown_trace[1024];
	printf("replaying %zu of %" PRIu64 " captured launches from %s on %s (cc %d.%d), %u timed replays each\n\n",
	       set.n, set.seen, gtp_escape(trace, shown_trace, sizeof shown_trace), cu.name, cu.cc_major, cu.cc_minor,
	       opt.reps);
	int bad = 0, lost = 0;
	for (size_t i = 0; i < set.n; i++) {
		const struct gt_captured_launch *l = &set.launch[i];
		header(p, l);
		struct replay_outcome o;
		if (lost) {
			memset(&o, 0, sizeof o);
			o.verdict = RV_FAILED;
			snprintf(o.reason, sizeof o.reason, "not run: an earlier replay's fault left the GPU context unusable");
		} else {
			fflush(stdout);
			/* The replay trace says which launches are whose: one NVTX range per capture, and its
			 * verdict as a mark (`gpuanalyze stats nvtx_kern_sum` gives per-capture statistics). */
			char range[64];
			snprintf(range, sizeof range, "replay capture %" PRIu64, l->c.capture_id);
			nvtxRangePushA(range);
			replay_launch(&cu, l, &opt, stdout, &o);
			nvtxRangePop();
			char mark[96];
			snprintf(mark, sizeof mark, "capture %" PRIu64 ": %s", l->c.capture_id, replay_verdict_name(o.verdict));
			nvtxMarkA(mark);
		}
		lost |= o.context_lost;
		bad |= !ok_verdict(o.verdict);
		printf("  verdict: %s: %s\n\n", replay_verdict_name(o.verdict), o.reason);
		if (res)
			fprintf(res, "%" PRIu64 " %u %d %u\n", l->c.capture_id, o.launches, (int)o.verdict, l->c.correlation_id);
	}
	fflush(stdout);
	int werr = res && (ferror(res) | fclose(res));
	if (werr)
		fprintf(stderr, "gputrace replay: cannot write '%s'\n", results);
	gt_capture_set_release(&set);
	if (p->have_re)
		regfree(&p->re);
	return werr ? 2 : bad ? 1 : 0;
}

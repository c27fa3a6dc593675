/* replay_main.c: gputrace-replay, the worker behind `gputrace replay`.
 *
 *   gputrace-replay TRACE [--capture ID]... [--kernel REGEX] [--reps N] [--check-reps N]
 *                   [--dtype T] [--device N] [--with-structs] [--results FILE]
 *                   [--metrics SPEC] [--metric-values FILE]
 *
 * Replays the picked captures of TRACE on this GPU, one after the other, and prints what each did.
 * `gputrace replay` runs it under the recorder (the kernel durations it reports come from CUPTI,
 * in the replay's own trace) and reads FILE afterwards: one line per capture,
 * "ID LAUNCHES VERDICT-NUMBER CORRELATION-ID", in the order replayed, so it can cut the replay trace's kernels
 * into each capture's. Not meant to be run by hand, though it works so (without timings).
 * With --metrics each launch is then measured under CUPTI's Range Profiler, and FILE of
 * --metric-values gets one line per value, "V ID ORDINAL PASSES METRIC VALUE" (ORDINAL: the
 * worker's launches before the launch's first profiled pass, so the launcher finds its kernel
 * record), "D METRICS" naming set members the GPU lacks, or "U REASON" when counters cannot be had.
 *
 * Exit: 0 every picked launch reproduced (bit-exact, or nondeterministic within its own spread);
 * 1 a launch differed, failed or could not be replayed; 2 usage or trace error; 77 no GPU.
 */
#include "preload/replay/replay_args.h"
#include "preload/replay/replay_launch.h"

#include "common/text_escape.h"

#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *msg)
{
	gt_esc_line(stderr, "gputrace-replay: %s", msg);
	fputs("usage: gputrace-replay TRACE [--capture ID]... [--kernel REGEX] [--reps N] [--check-reps N] "
	      "[--dtype f32|f64|i32|u32|u8] [--device N] [--with-structs] [--results FILE] [--metrics SPEC] "
	      "[--metric-values FILE]\n", stderr);
	return 2;
}

static int ok_verdict(enum replay_verdict v)
{
	return v == RV_REPRODUCED || v == RV_REPRODUCED_NONDET || v == RV_NONDET_WITHIN;
}

static void header(const struct replay_args *a, const struct gt_captured_launch *l)
{
	const struct gt_capture *c = &l->c;
	char *d = replay_args_demangled(a, l->name);
	/* Names come from the traced program: every line through the terminal text rule. */
	gt_esc_line(stdout, "capture %" PRIu64 ": %s", c->capture_id, d ? d : l->name);
	free(d);
	char cluster[64] = "";
	if (c->cluster[0] > 1 || c->cluster[1] > 1 || c->cluster[2] > 1)
		snprintf(cluster, sizeof cluster, ", cluster %ux%ux%u", c->cluster[0], c->cluster[1], c->cluster[2]);
	gt_esc_line(stdout, "  launch %u of this kernel in the run, on %s (cc %u.%u); grid %ux%ux%u, block %ux%ux%u%s, "
	            "%u B dynamic shared memory, %u parameters", c->launch_index,
	            l->device_name[0] ? l->device_name : "an unnamed device", l->cc_major, l->cc_minor, c->grid[0],
	            c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2], cluster, c->dynamic_smem, c->nparams);
}

/* --metrics: the Range Profiler, and a never-written buffer of 4x L2 to evict L2 with before each
 * pass. Counters that cannot be had are said in one line and the replay goes on without them (0);
 * a raw metric name the GPU lacks is a usage error (2). */
static int start_profiler(const struct replay_args *a, struct replay_cuda *cu, struct replay_options *opt,
                          FILE **mv)
{
	if (!a->metrics.n)
		return 0;
	if (a->metric_values && !(*mv = fopen(a->metric_values, "w"))) {
		gt_esc_line(stderr, "gputrace replay: cannot write '%s': %s", a->metric_values, strerror(errno));
		return 2;
	}
	char why[512], dropped[2048];
	int rc = replay_profiler_open(&opt->prof, cu->ctx, a->device, &a->metrics, why, sizeof why, dropped,
	                              sizeof dropped);
	if (rc == RP_UNKNOWN) {
		gt_esc_line(stderr, "gputrace replay: %s", why);
		return 2;
	}
	if (rc) {
		gt_esc_line(stderr, "gputrace: replay --metrics: hardware counters unavailable: %s; replaying without them",
		            why);
		if (*mv)
			gt_esc_line(*mv, "U %s", why);
		return 0;
	}
	if (dropped[0]) {
		gt_esc_line(stdout, "metrics: this GPU lacks %s (left out)", dropped);
		if (*mv)
			gt_esc_line(*mv, "D %s", dropped);
	}
	int l2 = 0;
	if (cu->cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, cu->dev) == CUDA_SUCCESS && l2 > 0) {
		opt->evict_bytes = 4 * (size_t)l2;
		opt->evict_host = malloc(opt->evict_bytes);
		if (!opt->evict_host || cu->cuMemAlloc(&opt->evict, opt->evict_bytes) != CUDA_SUCCESS) {
			gt_esc_line(stdout, "metrics: note: no room for a %zu-byte buffer to evict L2 with: passes start "
			            "with what L2 holds", opt->evict_bytes);
			free(opt->evict_host);
			opt->evict_host = NULL;
			opt->evict_bytes = 0;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct replay_args a;
	const char *bad_usage = replay_args_parse(&a, argc, argv);
	if (bad_usage) {
		replay_args_release(&a);
		return usage(bad_usage);
	}
	struct replay_options opt = { .reps = a.reps, .check_reps = a.check_reps, .dtype = (enum replay_dtype)a.dtype,
	                              .force = a.with_structs };
	const char *results = a.results;
	a.demangle = gt_demangler_find(GT_DEMANGLER_MAY_LOAD);

	struct gt_capture_set set;
	char why[8192];
	if (replay_args_load(&a, &set, why, sizeof why) != 0) {
		gt_esc_line(stderr, "gputrace replay: %s", why);
		replay_args_release(&a);
		return 2;
	}
	FILE *res = results ? fopen(results, "w") : NULL;
	if (results && !res) {
		gt_esc_line(stderr, "gputrace replay: cannot write '%s': %s", results, strerror(errno));
		gt_capture_set_release(&set);
		replay_args_release(&a);
		return 2;
	}
	struct replay_cuda cu;
	char err[512];
	if (replay_cuda_open(&cu, a.device, err, sizeof err) != 0) {
		gt_esc_line(stdout, "gputrace replay: unavailable: %s", err);
		gt_capture_set_release(&set);
		replay_args_release(&a);
		if (res)
			fclose(res);
		return 77;
	}
	FILE *mv = NULL;
	int prc = start_profiler(&a, &cu, &opt, &mv);
	if (prc) {
		if (res)
			fclose(res);
		if (mv)
			fclose(mv);
		gt_capture_set_release(&set);
		replay_args_release(&a);
		return prc;
	}
	gt_esc_line(stdout, "replaying %zu of %" PRIu64 " captured launches from %s on %s (cc %d.%d), %u timed replays each",
	            set.n, set.seen, a.trace, cu.name, cu.cc_major, cu.cc_minor, opt.reps);
	putchar('\n');
	int bad = 0, lost = 0;
	uint64_t launched = 0; /* the worker's launches so far: the replay trace's kernels, in order */
	for (size_t i = 0; i < set.n; i++) {
		const struct gt_captured_launch *l = &set.launch[i];
		header(&a, l);
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
		gt_esc_line(stdout, "  verdict: %s: %s", replay_verdict_name(o.verdict), o.reason);
		putchar('\n');
		if (res)
			fprintf(res, "%" PRIu64 " %u %d %u %u\n", l->c.capture_id, o.launches, (int)o.verdict,
			        l->c.correlation_id, o.profiled);
		if (mv && o.passes)
			for (size_t m = 0; m < replay_profiler_count(opt.prof); m++)
				if (isfinite(o.values[m]))
					fprintf(mv, "V %" PRIu64 " %" PRIu64 " %u %s %.17g\n", l->c.capture_id,
					        launched + o.launches - o.profiled, o.passes, replay_profiler_metric(opt.prof, m),
					        o.values[m]);
		launched += o.launches;
	}
	replay_profiler_close(opt.prof);
	if (opt.evict_bytes && !lost)
		cu.cuMemFree(opt.evict);
	free(opt.evict_host);
	if (mv && (ferror(mv) | fclose(mv)))
		gt_esc_line(stderr, "gputrace replay: cannot write '%s'", a.metric_values);
	fflush(stdout);
	int werr = res && (ferror(res) | fclose(res));
	if (werr)
		gt_esc_line(stderr, "gputrace replay: cannot write '%s'", results);
	gt_capture_set_release(&set);
	replay_args_release(&a);
	return werr ? 2 : bad ? 1 : 0;
}

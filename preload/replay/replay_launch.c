/* replay_launch.c: re-run one captured launch and check it against the run (replay_launch.h). */
#include "preload/replay/replay_launch.h"

#include "preload/replay/captured_buffer.h"
#include "cupti/nvinfo.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *replay_verdict_name(enum replay_verdict v)
{
	switch (v) {
	case RV_REPRODUCED: return "reproduced";
	case RV_REPRODUCED_NONDET: return "reproduced once, nondeterministic";
	case RV_NONDET_WITHIN: return "nondeterministic, run within the replays' spread";
	case RV_NONDET_BEYOND: return "nondeterministic, run beyond the replays' spread";
	case RV_DIFFERS: return "differs from the run";
	case RV_NOT_REPLAYABLE: return "not replayable";
	case RV_FAILED: return "failed";
	}
	return "?";
}

/* How far past the replays' own spread the run's output may lie and still count as within it. */
#define REPLAY_SPREAD_MARGIN 4u
#define REPLAY_SPREAD_MARGIN_TEXT "4"

/* One recreated allocation: the run's (every pointer parameter into it shares it), and what the
 * replay adds to it. */
struct rbuf {
	struct captured_buffer run; /* run.changed: restored before each replay, and checked */
	CUdeviceptr d;
	uint64_t lo, hi;           /* the bytes the run changed lie in [lo, hi): what is restored */
	uint8_t *first;            /* what the first replay wrote */
	uint8_t *now;              /* scratch for later replays */
	uint64_t spread_ulps;      /* largest distance of a later replay from the first */
	uint64_t run_ulps;         /* distance of the run's output from the first replay */
	int replays_differ;
};

struct replay {
	struct replay_cuda *cu;
	const struct gt_captured_launch *l;
	const struct replay_options *opt;
	FILE *out;
	struct replay_outcome *res;
	struct rbuf *buf;
	uint32_t nbuf;
	uint8_t *params;           /* the parameter buffer with pointers moved */
	void **args;               /* kernelParams: one pointer per parameter into params */
	CUmodule mod;
	CUfunction fn;
};

static void say(struct replay *r, enum replay_verdict v, const char *fmt, const char *a, const char *b)
{
	r->res->verdict = v;
	snprintf(r->res->reason, sizeof r->res->reason, fmt, a ? a : "", b ? b : "");
}

static int cuda_failed(struct replay *r, CUresult e, const char *what)
{
	if (e == CUDA_SUCCESS)
		return 0;
	char msg[96];
	replay_cuda_strerror(r->cu, e, msg, sizeof msg);
	say(r, RV_FAILED, "%s: %s", what, msg);
	/* Errors from a kernel's execution are sticky: the context cannot launch anything more. */
	if (e == CUDA_ERROR_ILLEGAL_ADDRESS || e == CUDA_ERROR_LAUNCH_FAILED || e == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
	    e == CUDA_ERROR_MISALIGNED_ADDRESS || e == CUDA_ERROR_INVALID_PC || e == CUDA_ERROR_HARDWARE_STACK_ERROR ||
	    e == CUDA_ERROR_LAUNCH_TIMEOUT || e == CUDA_ERROR_ASSERT)
		r->res->context_lost = 1;
	return 1;
}

/* The capture's limits, said before anything is launched. 0: go on; 1: not replayable. */
static int check_limits(struct replay *r)
{
	const struct gt_captured_launch *l = r->l;
	char what[160];
	if (!l->image)
		return say(r, RV_NOT_REPLAYABLE, "the module image is not in the trace%s%s",
		           l->c.cubin_blob_id ? " (its pieces are missing or cut short)" : "", NULL), 1;
	struct nvinfo_image img;
	if (nvinfo_image_facts(l->image, (size_t)l->image_bytes, &img) == 0) {
		if (img.sm && (int)(img.sm / 10) != r->cu->cc_major) {
			snprintf(what, sizeof what, "sm_%u SASS only (the capture keeps the cubin the driver loaded, no PTX); "
			         "this GPU is sm_%d%d", img.sm, r->cu->cc_major, r->cu->cc_minor);
			return say(r, RV_NOT_REPLAYABLE, "the module image is %s%s", what, NULL), 1;
		}
		if (img.state_sections)
			fprintf(r->out, "  note: the module has __device__ or __constant__ variables (%" PRIu64 " bytes in %u "
			        "sections): their values at the launch were not captured; the replay starts from the "
			        "module's initial values\n", img.state_bytes, img.state_sections);
	}
	if (l->c.flags & GT_CAPTURE_MODULE_GUESSED)
		fprintf(r->out, "  note: several loaded module images held a kernel of this name (a JIT compiler's "
		        "variants); the recorder kept the newest whose launch bounds admit this block, which may not be "
		        "the one the run launched\n");
	if ((l->c.cluster[0] > 1 || l->c.cluster[1] > 1 || l->c.cluster[2] > 1) && !r->cu->cuLaunchKernelEx)
		return say(r, RV_NOT_REPLAYABLE, "the launch used thread-block clusters and this driver has no cuLaunchKernelEx", NULL, NULL), 1;
	uint32_t nscanned = 0, ninner = 0;
	for (uint32_t i = 0; i < l->c.nparams; i++)
		ninner += l->params[i].p.kind == GT_PARAM_INNER_POINTER;
	for (uint32_t i = 0; i < l->c.nparams; i++) {
		const struct gt_captured_param *p = &l->params[i];
		const char *why = gt_captured_param_problem(l, i);
		snprintf(what, sizeof what, "parameter %u (offset %u, %u bytes) ", i, p->p.offset, p->p.size);
		if (why)
			return say(r, RV_NOT_REPLAYABLE, "%s%s", what, why), 1;
		if (p->p.status == GT_PARAM_STRUCT_SCANNED)
			nscanned++;
		if (p->p.status == GT_PARAM_STRUCT && !r->opt->force)
			return say(r, RV_NOT_REPLAYABLE, "%s%s", what,
			           "is a by-value struct: pointers inside it were not followed, so their memory was not "
			           "captured (--with-structs replays it anyway, with the run's addresses)"), 1;
		if (p->p.status == GT_PARAM_STRUCT)
			fprintf(r->out, "  note: %sis a by-value struct, passed with the run's bytes (--with-structs)\n", what);
	}
	if (nscanned)
		fprintf(r->out, "  note: %u by-value struct parameters, their words looked up by the recorder: %u "
		        "pointers inside them followed and moved like the others (pointers stored in device memory "
		        "are not)\n", nscanned, ninner);
	return 0;
}

static int make_buffers(struct replay *r)
{
	const struct gt_captured_launch *l = r->l;
	r->buf = calloc(l->c.nparams ? l->c.nparams : 1, sizeof *r->buf);
	if (!r->buf)
		return say(r, RV_FAILED, "out of memory", NULL, NULL), 1;
	uint64_t bytes = 0, restored = 0;
	uint32_t nrestored = 0;
	for (uint32_t i = 0; i < l->c.nparams; i++) {
		const struct gt_captured_param *p = &l->params[i];
		if (!GT_PARAM_IS_POINTER(p->p.kind) || p->p.status != GT_PARAM_OK)
			continue;
		uint32_t k = 0;
		while (k < r->nbuf && r->buf[k].run.base != p->p.alloc_base)
			k++;
		if (k < r->nbuf)
			continue; /* another parameter points into the same allocation */
		struct rbuf *b = &r->buf[r->nbuf++];
		b->run = captured_buffer_of(p, i);
		bytes += b->run.bytes;
		if (b->run.changed) {
			/* Only the span the run changed is restored: an allocator's block often holds the
			 * kernel's inputs beside its output, and rewriting them from the host before every
			 * replay would evict them from L2, which the run did not do. */
			while (b->run.before[b->lo] == b->run.after[b->lo])
				b->lo++;
			b->hi = b->run.bytes;
			while (b->run.before[b->hi - 1] == b->run.after[b->hi - 1])
				b->hi--;
			restored += b->hi - b->lo;
			nrestored++;
			b->first = malloc(b->run.bytes ? (size_t)b->run.bytes : 1);
			b->now = malloc(b->run.bytes ? (size_t)b->run.bytes : 1);
			if (!b->first || !b->now)
				return say(r, RV_FAILED, "out of memory for the outputs", NULL, NULL), 1;
		}
		if (cuda_failed(r, r->cu->cuMemAlloc(&b->d, b->run.bytes ? (size_t)b->run.bytes : 1), "cuMemAlloc"))
			return 1;
	}
	fprintf(r->out, "  %u buffers, %.3f MB; %u changed by the kernel in the run, checked after each replay; "
	        "the %.3f MB span it changed is restored before each\n", r->nbuf, (double)bytes / 1e6, nrestored,
	        (double)restored / 1e6);
	return 0;
}

/* The parameter buffer with every pointer moved to its new allocation, at the same offset in it. */
static int make_params(struct replay *r)
{
	const struct gt_captured_launch *l = r->l;
	r->params = malloc(l->c.param_bytes ? l->c.param_bytes : 1);
	r->args = calloc(l->declared ? l->declared : 1, sizeof *r->args);
	if (!r->params || !r->args)
		return say(r, RV_FAILED, "out of memory", NULL, NULL), 1;
	memcpy(r->params, l->param_bytes, l->c.param_bytes);
	for (uint32_t i = 0; i < l->c.nparams; i++) {
		const struct gt_captured_param *p = &l->params[i];
		if (i < l->declared) /* pointers found inside structs are moved, not passed */
			r->args[i] = r->params + p->p.offset;
		if (!GT_PARAM_IS_POINTER(p->p.kind) || p->p.status != GT_PARAM_OK || p->p.size != 8)
			continue;
		uint64_t old;
		memcpy(&old, r->params + p->p.offset, 8);
		for (uint32_t k = 0; k < r->nbuf; k++) {
			if (r->buf[k].run.base != p->p.alloc_base)
				continue;
			uint64_t moved = (uint64_t)r->buf[k].d + (old - p->p.alloc_base);
			memcpy(r->params + p->p.offset, &moved, 8);
		}
	}
	return 0;
}

static int load_module(struct replay *r)
{
	const struct gt_captured_launch *l = r->l;
	if (cuda_failed(r, r->cu->cuModuleLoadData(&r->mod, l->image), "loading the module image"))
		return 1;
	if (cuda_failed(r, r->cu->cuModuleGetFunction(&r->fn, r->mod, l->name), "finding the kernel in its module"))
		return 1;
	if (l->c.dynamic_smem > 48u * 1024u &&
	    cuda_failed(r, r->cu->cuFuncSetAttribute(r->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	                                             (int)l->c.dynamic_smem), "allowing the dynamic shared memory"))
		return 1;
	return 0;
}

/* all: every buffer whole (before the first replay); else the changed spans. */
static int restore(struct replay *r, int all)
{
	for (uint32_t k = 0; k < r->nbuf; k++) {
		const struct rbuf *b = &r->buf[k];
		uint64_t lo = all ? 0 : b->lo, hi = all ? b->run.bytes : b->hi;
		if ((all || b->run.changed) && hi > lo &&
		    cuda_failed(r, r->cu->cuMemcpyHtoD(b->d + lo, b->run.before + lo, (size_t)(hi - lo)),
		                "restoring the inputs"))
			return 1;
	}
	return 0;
}

static int launch_once(struct replay *r)
{
	const struct gt_capture *c = &r->l->c;
	CUresult e;
	if (c->cluster[0] > 1 || c->cluster[1] > 1 || c->cluster[2] > 1) {
		CUlaunchAttribute attr;
		memset(&attr, 0, sizeof attr);
		attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attr.value.clusterDim.x = c->cluster[0] ? c->cluster[0] : 1;
		attr.value.clusterDim.y = c->cluster[1] ? c->cluster[1] : 1;
		attr.value.clusterDim.z = c->cluster[2] ? c->cluster[2] : 1;
		CUlaunchConfig cfg;
		memset(&cfg, 0, sizeof cfg);
		cfg.gridDimX = c->grid[0], cfg.gridDimY = c->grid[1], cfg.gridDimZ = c->grid[2];
		cfg.blockDimX = c->block[0], cfg.blockDimY = c->block[1], cfg.blockDimZ = c->block[2];
		cfg.sharedMemBytes = c->dynamic_smem;
		cfg.attrs = &attr;
		cfg.numAttrs = 1;
		e = r->cu->cuLaunchKernelEx(&cfg, r->fn, r->args, NULL);
	} else {
		e = r->cu->cuLaunchKernel(r->fn, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
		                          c->block[2], c->dynamic_smem, NULL, r->args, NULL);
	}
	if (cuda_failed(r, e, "launching the kernel"))
		return 1;
	if (cuda_failed(r, r->cu->cuCtxSynchronize(), "running the kernel"))
		return 1;
	r->res->launches++;
	return 0;
}

static void print_diff(struct replay *r, const struct rbuf *b, const struct replay_diff *d, const char *a_name,
                       const char *b_name)
{
	fprintf(r->out, "    parameter %u (%.3f MB read as %s): %" PRIu64 " of %" PRIu64 " elements differ; worst [%" PRIu64
	        "]: %s %.9g, %s %.9g, |diff| %.3g", b->run.param, (double)b->run.bytes / 1e6,
	        replay_dtype_name(d->dtype), d->differing, d->elements, d->worst_index, a_name, d->worst_a, b_name,
	        d->worst_b, d->worst_a > d->worst_b ? d->worst_a - d->worst_b : d->worst_b - d->worst_a);
	if (d->dtype == RD_F32 || d->dtype == RD_F64) {
		if (d->worst_ulps == UINT64_MAX)
			fprintf(r->out, ", a NaN\n");
		else
			fprintf(r->out, ", %" PRIu64 " ULP\n", d->worst_ulps);
	} else {
		fputc('\n', r->out);
	}
}

/* After the first replay: every changed buffer against the run's "after" copy. 1 when all match. */
static int self_check(struct replay *r, int *any_output)
{
	int same = 1;
	*any_output = 0;
	for (uint32_t k = 0; k < r->nbuf; k++) {
		struct rbuf *b = &r->buf[k];
		if (!b->run.changed)
			continue;
		*any_output = 1;
		if (cuda_failed(r, r->cu->cuMemcpyDtoH(b->first, b->d, (size_t)b->run.bytes), "reading the outputs"))
			return -1;
		struct replay_diff d;
		b->run_ulps = 0;
		if (!replay_compare(b->first, b->run.after, (size_t)b->run.bytes, r->opt->dtype, &d)) {
			if (same)
				fprintf(r->out, "  self-check: the first replay differs from the run:\n");
			same = 0;
			b->run_ulps = d.worst_ulps;
			print_diff(r, b, &d, "replay", "run");
		}
	}
	return same;
}

/* A later replay's outputs against the first replay's. */
static int compare_later(struct replay *r)
{
	for (uint32_t k = 0; k < r->nbuf; k++) {
		struct rbuf *b = &r->buf[k];
		if (!b->run.changed)
			continue;
		if (cuda_failed(r, r->cu->cuMemcpyDtoH(b->now, b->d, (size_t)b->run.bytes), "reading the outputs"))
			return 1;
		struct replay_diff d;
		if (!replay_compare(b->now, b->first, (size_t)b->run.bytes, r->opt->dtype, &d)) {
			b->replays_differ = 1;
			if (d.worst_ulps > b->spread_ulps)
				b->spread_ulps = d.worst_ulps;
		}
	}
	return 0;
}

static void judge(struct replay *r, int matched, unsigned checked)
{
	int differ = 0, beyond = 0;
	uint64_t spread = 0;
	for (uint32_t k = 0; k < r->nbuf; k++) {
		const struct rbuf *b = &r->buf[k];
		differ |= b->replays_differ;
		if (b->spread_ulps > spread)
			spread = b->spread_ulps;
		/* A handful of replays shows less than the whole spread of a nondeterministic kernel (their
		 * largest distance underestimates it), so the run counts as within it up to a stated margin,
		 * as calibrate's bounds do: worst observed times REPLAY_SPREAD_MARGIN. */
		uint64_t bound = b->spread_ulps > UINT64_MAX / REPLAY_SPREAD_MARGIN ? UINT64_MAX
		                                                                     : b->spread_ulps * REPLAY_SPREAD_MARGIN;
		if (b->run_ulps > bound)
			beyond = 1;
	}
	char n[64], s[96];
	snprintf(n, sizeof n, "%u", checked);
	snprintf(s, sizeof s, "%" PRIu64, spread);
	if (matched && !differ)
		say(r, RV_REPRODUCED, "bit-exact against the run, and the same over %s more replays: deterministic", n, NULL);
	else if (matched)
		say(r, RV_REPRODUCED_NONDET, "bit-exact against the run once, but later replays differ (up to %s "
		    "ULP/units): nondeterministic (float atomics, a race)", s, NULL);
	else if (differ && !beyond)
		say(r, RV_NONDET_WITHIN, "replays differ among themselves by up to %s ULP/units, and the run no farther "
		    "than " REPLAY_SPREAD_MARGIN_TEXT " times that from them: nondeterministic (float atomics, a race); the "
		    "run is within their spread%s", s, "");
	else if (differ)
		say(r, RV_NONDET_BEYOND, "replays differ among themselves by up to %s ULP/units, the run lies farther "
		    "off than " REPLAY_SPREAD_MARGIN_TEXT " times that%s", s, "");
	else
		say(r, RV_DIFFERS, "%s replays agree with each other bit for bit, not with the run: the run's output "
		    "depended on something the capture did not keep (module variables, memory reached through "
		    "pointers in memory, another GPU or driver)%s", n, "");
}

/* One value as the profiler gave it: counts whole, others with their fraction. */
static void print_value(FILE *out, const char *name, double v)
{
	if (!isfinite(v))
		fprintf(out, "    %-72s not evaluated\n", name);
	else if (v == floor(v) && fabs(v) < 1e18)
		fprintf(out, "    %-72s %.0f\n", name, v);
	else
		fprintf(out, "    %-72s %.6g\n", name, v);
}

/* The launch under the Range Profiler: one replay per pass until every pass is submitted. */
static void profile(struct replay *r)
{
	struct replay_profiler *p = r->opt->prof;
	char why[256];
	if (replay_profiler_begin(p, why, sizeof why) != 0) {
		fprintf(r->out, "  metrics: not measured: %s\n", why);
		return;
	}
	int done = 0;
	while (!done) {
		if (restore(r, 0))
			return;
		if (r->opt->evict_bytes &&
		    cuda_failed(r, r->cu->cuMemcpyDtoH(r->opt->evict_host, r->opt->evict, r->opt->evict_bytes),
		                "evicting L2 before a profiler pass"))
			return;
		if (replay_profiler_pass_start(p, why, sizeof why) != 0) {
			fprintf(r->out, "  metrics: not measured: %s\n", why);
			return;
		}
		unsigned before = r->res->launches;
		int bad = launch_once(r);
		r->res->profiled += r->res->launches - before;
		if (replay_profiler_pass_end(p, &done, why, sizeof why) != 0) {
			fprintf(r->out, "  metrics: not measured: %s\n", why);
			return;
		}
		if (bad)
			return;
	}
	unsigned passes;
	if (replay_profiler_finish(p, r->res->values, &passes, why, sizeof why) != 0) {
		fprintf(r->out, "  metrics: not measured: %s\n", why);
		return;
	}
	r->res->passes = passes;
	/* The read-back of a 4 x L2 buffer is meant to evict L2; on the H200 a 1 MB input restored just
	 * before stayed in it (256 B of DRAM reads where Nsight Compute, flushing L2, saw 1 MB), so
	 * only a kernel whose inputs exceed L2 is sure to read them from DRAM. */
	fprintf(r->out, "  metrics (Range Profiler, %u passes, inputs restored before each; inputs smaller than L2 "
	                "may be read from L2):\n", passes);
	for (size_t i = 0; i < replay_profiler_count(p); i++)
		print_value(r->out, replay_profiler_metric(p, i), r->res->values[i]);
}

static void release(struct replay *r)
{
	for (uint32_t k = 0; k < r->nbuf; k++) {
		if (r->buf[k].d && !r->res->context_lost)
			r->cu->cuMemFree(r->buf[k].d);
		free(r->buf[k].first);
		free(r->buf[k].now);
	}
	if (r->mod && !r->res->context_lost)
		r->cu->cuModuleUnload(r->mod);
	free(r->buf);
	free(r->params);
	free(r->args);
}

static void run(struct replay *r)
{
	if (check_limits(r) || load_module(r) || make_buffers(r) || make_params(r) || restore(r, 1) ||
	    launch_once(r))
		return;
	int any_output;
	int matched = self_check(r, &any_output);
	if (matched < 0)
		return;
	if (!any_output)
		fprintf(r->out, "  note: the kernel changed none of its captured buffers in the run: nothing to check\n");
	unsigned checked = 0;
	for (unsigned i = 0; i < r->opt->reps; i++) {
		if (restore(r, 0) || launch_once(r))
			return;
		if (i < r->opt->check_reps) {
			if (compare_later(r))
				return;
			checked++;
		}
	}
	judge(r, matched, checked);
	if (r->opt->prof)
		profile(r);
}

void replay_launch(struct replay_cuda *cu, const struct gt_captured_launch *l,
                   const struct replay_options *opt, FILE *out, struct replay_outcome *res)
{
	memset(res, 0, sizeof *res);
	struct replay r = { .cu = cu, .l = l, .opt = opt, .out = out, .res = res };
	run(&r);
	release(&r);
}

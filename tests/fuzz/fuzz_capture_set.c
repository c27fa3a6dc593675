/* fuzz_capture_set.c: gt_capture_set_load (traces/capture_set.c) on hostile traces, the loader
 * `gputrace replay` and `gputrace replay --extract` read a trace with: two passes over the file,
 * captures copied out of their chunks, blob pieces reassembled with memory that follows the bytes
 * that arrive rather than the sizes they state.
 *
 * Every capture is picked, and every byte the set hands back is read (the parameter buffer, the
 * module image and each parameter's before and after copy, over the sizes the set says they have),
 * so that ASan sees a pointer that is too short, freed or dangling. Aborts (a finding) when the set
 * breaks a promise: a failure without a reason in err, a capture seen but not kept, a buffer whose
 * blob is not the size of its allocation.
 *
 * Inputs take the two forms of fuzz_analyze.h (a whole trace, or chunk payloads that it compresses
 * and frames), so that mutations reach inside the zstd frames. Seeds: the shadow target's traces
 * with captures (tests/fuzz/corpus/analyze_shadow), and the reader's (run_all.sh's seeds_of).
 *
 * FUZZ_LIBS: libgttrace.a
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "traces/capture_set.h"

static volatile uint64_t sink; /* what was read, so that no read is optimised away */

static uint64_t touch(const uint8_t *p, uint64_t n)
{
	uint64_t s = 0;
	for (uint64_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

static int pick_all(void *ctx, const struct gt_capture *c, const char *mangled)
{
	uint64_t *picked = ctx;
	if (!c || !mangled)
		abort();
	sink += strlen(mangled);
	(*picked)++;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fa_trace(0, data, size);
	struct gt_capture_set s;
	char err[512];
	uint64_t picked = 0;
	int rc = gt_capture_set_load(&s, path, pick_all, &picked, err, sizeof err);
	if (rc < 0) {
		if (!err[0]) {
			fprintf(stderr, "fuzz: gt_capture_set_load failed (%d) without a reason\n", rc);
			abort();
		}
		if (s.n || s.launch || s.blobs)
			abort(); /* "on failure the set is released" */
		return 0;
	}
	if (rc != 0 || s.n != picked || s.seen != picked) {
		fprintf(stderr, "fuzz: rc %d, %zu kept, %llu seen, %llu picked\n", rc, s.n,
		        (unsigned long long)s.seen, (unsigned long long)picked);
		abort();
	}
	uint64_t sum = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct gt_captured_launch *l = &s.launch[i];
		sum += strlen(l->name) + strlen(l->device_name);
		sum += touch(l->param_bytes, l->c.param_bytes);
		if (l->image)
			sum += touch(l->image, l->image_bytes);
		else if (l->image_bytes)
			abort();
		for (uint32_t j = 0; j < l->c.nparams; j++) {
			const struct gt_captured_param *p = &l->params[j];
			if ((uint64_t)p->p.offset + p->p.size > l->c.param_bytes)
				abort(); /* gt_capture_parse promised the parameter lies in the buffer */
			sum += touch(l->param_bytes + p->p.offset, p->p.size);
			if (p->before)
				sum += touch(p->before, p->p.alloc_bytes);
			if (p->after)
				sum += touch(p->after, p->p.alloc_bytes);
		}
	}
	sink += sum;
	gt_capture_set_release(&s);
	if (s.n || s.launch || s.blobs)
		abort();
	return 0;
}

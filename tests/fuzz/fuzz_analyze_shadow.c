/* fuzz_analyze_shadow.c: the input path of `gpuanalyze shadow` on hostile traces, without --ref:
 * the walk (capture records, blob pieces reassembled, buffers freed after their last capture), the
 * replay on working copies and the comparison (shadow.h), with references given in-process
 * (gt_refs_from_table) instead of a library, so that no code is loaded from anywhere.
 *
 * The references: saxpy and saxpy_nobounds as kernels/refs/saxpy.c computes them, and "tonemap" (the
 * kernel tests/tools/gt_synth --all-types captures) as an identity on its first buffer, with a
 * float, an integer and an exact output between them, so that every comparison rule runs.
 *
 * Seeds: with FUZZ_ANALYZE_SEEDS=DIR set, the target writes its seed traces (saxpy captures:
 * correct, wrong, without a reference, not fully captured, a blob missing) into DIR and exits;
 * tests/fuzz/run_all.sh does that when the seed folder is empty.
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/shadow/shadow.h"

#include <math.h>

/* ---- in-process references ------------------------------------------------------------------ */
static int saxpy_run(struct gt_ref_call *c)
{
	int32_t n;
	float a;
	if (gt_ref_i32(c, 0, &n) || gt_ref_f32(c, 1, &a))
		return gt_ref_fail(c, "n or a is not a 4-byte scalar");
	uint64_t count = n > 0 ? (uint64_t)n : 0;
	const float *x = gt_ref_ptr(c, 2, sizeof(float), count);
	float *y = gt_ref_ptr(c, 3, sizeof(float), count);
	if (!x || !y)
		return gt_ref_fail(c, "x or y holds fewer than n = %d floats", n);
	for (uint64_t i = 0; i < count; i++)
		y[i] = (float)fma((double)a, (double)x[i], (double)y[i]);
	return 0;
}

static int identity_run(struct gt_ref_call *c)
{
	return gt_ref_ptr(c, 0, 1, 1) ? 0 : gt_ref_fail(c, "parameter 0 is not a captured buffer");
}

static const struct gt_ref_output saxpy_out[] = {
	{ .param = 3, .type = GT_REF_F32, .tol = { .ulps = 1 }, .name = "y",
	  .reason = "one fmaf per element: at most 1 ULP from the double reference" },
};
static const struct gt_ref_output tonemap_out[] = {
	{ .param = 0, .type = GT_REF_F64, .tol = { .abs = 1e-6, .rel = 1e-3 }, .name = "img",
	  .reason = "fuzzing: every criterion on" },
	{ .param = 1, .type = GT_REF_U16, .name = "aux" },
};
static const struct gt_ref refs_list[] = {
	{ .kernel = "saxpy", .nparams = 4, .run = saxpy_run, .outputs = saxpy_out, .noutputs = 1 },
	{ .kernel = "saxpy_nobounds", .nparams = 4, .run = saxpy_run, .outputs = saxpy_out, .noutputs = 1 },
	{ .kernel = "tonemap", .nparams = 0, .run = identity_run, .outputs = tonemap_out, .noutputs = 2 },
};
static const struct gt_ref_table table = { GT_REF_ABI, sizeof(struct gt_ref), "fuzz", 3, refs_list };

/* ---- seeds ---------------------------------------------------------------------------------- */
#define N 61
#define ALLOC 64

static int64_t blob(struct gt_writer *w, const float *v)
{
	return gt_writer_blob(w, GT_BLOB_BUFFER, v, ALLOC * sizeof(float));
}

/* One saxpy capture: variant 0 correct, 1 a wrong element, 2 y not captured, 3 y's blob missing. */
static int saxpy_capture(struct gt_writer *w, const char *name, uint64_t id, int variant)
{
	float x[ALLOC], y[ALLOC], y2[ALLOC];
	float a = 1.5f + (float)id;
	for (int i = 0; i < ALLOC; i++) {
		x[i] = (float)(i % 7) - 3.0f;
		y[i] = i < N ? 0.25f * (float)i : 1234.5f;
		y2[i] = i < N ? fmaf(a, x[i], y[i]) : y[i];
	}
	if (variant == 1)
		y2[5] *= 1.01f;
	int64_t bx = blob(w, x), by = blob(w, y), by2 = blob(w, y2);
	if (bx < 0 || by < 0 || by2 < 0)
		return -1;
	int32_t n = N;
	uint8_t args[24];
	uint64_t xp = 0x7f0000100000ull, yp = 0x7f0000200000ull;
	memcpy(args, &n, 4);
	memcpy(args + 4, &a, 4);
	memcpy(args + 8, &xp, 8);
	memcpy(args + 16, &yp, 8);
	struct gt_capture_param p[4] = {
		{ 0, 4, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 },
		{ 4, 4, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 },
		{ 8, 8, GT_PARAM_POINTER, GT_PARAM_OK, xp, sizeof x, (uint64_t)bx, (uint64_t)bx },
		{ 16, 8, GT_PARAM_POINTER, GT_PARAM_OK, yp, sizeof y, (uint64_t)by, (uint64_t)by2 },
	};
	if (variant == 2) {
		p[3].status = GT_PARAM_TOO_LARGE;
		p[3].before_blob = p[3].after_blob = 0;
	}
	if (variant == 3)
		p[3].before_blob = 999;
	struct gt_capture c = { .capture_id = id, .timestamp = 1000 * id, .name_id = gt_writer_intern(w, name),
		.correlation_id = (uint32_t)id, .stream_id = 7, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
		.nparams = 4, .param_bytes = sizeof args, .flags = GT_CAPTURE_STREAM_SYNCED,
		.launch_index = (uint32_t)id - 1 };
	if (variant == 2)
		c.flags |= GT_CAPTURE_INCOMPLETE;
	uint8_t *rec;
	size_t len;
	if (gt_capture_encode(&c, p, args, &rec, &len) != 0)
		return -1;
	int rc = gt_writer_add_var(w, GT_REC_CAPTURE, rec, len);
	free(rec);
	return rc;
}

static void write_seeds(const char *dir)
{
	static const struct { const char *file, *kernel; int variant, flush; } seeds[] = {
		{ "saxpy_ok", "_Z5saxpyifPKfPf", 0, 1 },
		{ "saxpy_wrong", "_Z5saxpyifPKfPf", 1, 0 },
		{ "saxpy_incomplete", "_Z5saxpyifPKfPf", 2, 0 },
		{ "saxpy_missing_blob", "_Z5saxpyifPKfPf", 3, 0 },
		{ "nobounds_noref", "_Z7unknownPf", 0, 1 },
	};
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.gtrace", dir, seeds[i].file);
		struct gt_writer *w;
		struct gt_writer_options o = { .compression_level = 19, .chunk_bytes = 0 };
		if (gt_writer_open(&w, path, 0, &o) != 0)
			fa_die(path);
		gt_writer_meta(w, "trace.synthetic", "tests/fuzz/fuzz_analyze_shadow.c seed");
		int rc = saxpy_capture(w, seeds[i].kernel, 1, seeds[i].variant);
		if (!rc && seeds[i].flush)
			rc = gt_writer_flush(w); /* the second capture in a chunk of its own */
		if (!rc)
			rc = saxpy_capture(w, seeds[i].kernel, 2, seeds[i].variant);
		if (rc || gt_writer_close(w) != 0)
			fa_die(path);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = getenv("FUZZ_ANALYZE_SEEDS");
	if (dir && *dir) {
		write_seeds(dir);
		exit(0);
	}
	return 0;
}

/* ---- the target ----------------------------------------------------------------------------- */
static int visit(void *ctx, const struct gt_shadow_launch *l)
{
	(void)ctx;
	struct gt_shadow_result res;
	memset(&res, 0, sizeof res);
	int rc = gt_shadow_check(l, &res);
	gt_shadow_result_release(&res);
	return rc == GT_ERR_NOMEM ? rc : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gt_refs *refs;
	static struct gt_name_filter filter;
	fa_quiet();
	if (!refs) {
		char err[256];
		if (gt_refs_from_table(&refs, &table, err, sizeof err) != 0) {
			fprintf(stderr, "fuzz: the in-process table is refused: %s\n", err);
			abort();
		}
		if (gt_name_filter_set(&filter, "saxpy", err, sizeof err) != 0)
			abort();
	}
	const char *path = fa_trace(0, data, size);
	/* The whole command's engine. */
	struct gt_shadow_report rep;
	memset(&rep, 0, sizeof rep);
	int rc = gt_shadow_run(path, refs, NULL, &rep);
	if (rc == 0)
		gt_shadow_all_passed(&rep);
	gt_shadow_report_release(&rep);
	/* The walk with a filter and a visitor of its own. */
	struct gt_shadow_walk_info info;
	memset(&info, 0, sizeof info);
	gt_shadow_walk(path, refs, &filter, visit, NULL, &info);
	gt_shadow_walk_info_release(&info);
	return 0;
}

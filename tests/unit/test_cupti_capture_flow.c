/* test_cupti_capture_flow.c: launch capture end to end, without a GPU (cupti/capture*.c).
 *
 * The driver and CUPTI are replaced by fakes installed in the recorder's function tables
 * (cuda_fn, cupti_fn): "device memory" is a handful of host arrays at made-up device addresses,
 * copies are memcpy, the kernels are C functions the test runs between the ENTER and EXIT
 * callbacks, and a synthetic cubin is handed to the MODULE_LOADED hook. Launches are driven
 * through the very hooks capture_setup() gives the session. Everything the writer thread writes is
 * read back through the public reader: each CAPTURE record with gt_capture_parse, its buffers from
 * the BLOB pieces, the cubin, the overhead records, the DROPPED records and the metadata.
 *
 * What this cannot show: the real driver's behaviour (handle kinds, lazy loading, stream
 * semantics, copy engines). tests/gpu/capture_smoke.sh covers that on the GPU machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti/capture.h"
#include "cupti/capture_copy.h"
#include "cupti/capture_item.h"
#include "cupti/libs.h"
#include "cupti/nvinfo.h"
#include "traces/gputrace.h"

/* ---- a synthetic cubin --------------------------------------------------------------------------- */

static void st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void st32(uint8_t *p, uint32_t v) { st16(p, (uint16_t)v); st16(p + 2, (uint16_t)(v >> 16)); }
static void st64(uint8_t *p, uint64_t v) { st32(p, (uint32_t)v); st32(p + 4, (uint32_t)(v >> 32)); }

struct esec {
	const char *name;
	uint8_t data[256];
	size_t len;
};

struct elf {
	uint8_t b[8192];
	size_t n;
};

static void build_elf(struct elf *e, const struct esec *secs, size_t nsec)
{
	memset(e, 0, sizeof *e);
	uint8_t *b = e->b;
	b[0] = 0x7f, b[1] = 'E', b[2] = 'L', b[3] = 'F', b[4] = 2, b[5] = 1, b[6] = 1;
	st16(b + 0x12, 190);
	size_t at = 64;
	uint64_t off[8], nameoff[8];
	for (size_t i = 0; i < nsec; i++) {
		off[i] = at;
		memcpy(b + at, secs[i].data, secs[i].len);
		at += (secs[i].len + 3) & ~(size_t)3;
	}
	uint64_t strtab = at;
	b[at++] = 0;
	for (size_t i = 0; i < nsec; i++) {
		nameoff[i] = at - strtab;
		size_t l = strlen(secs[i].name) + 1;
		memcpy(b + at, secs[i].name, l);
		at += l;
	}
	uint64_t shstr = at - strtab;
	memcpy(b + at, ".shstrtab", 10);
	at += 10;
	uint64_t strlen_ = at - strtab;
	at = (at + 7) & ~(size_t)7;
	uint64_t shoff = at;
	for (size_t i = 0; i < nsec; i++) {
		uint8_t *s = b + shoff + (i + 1) * 64;
		st32(s, (uint32_t)nameoff[i]);
		st32(s + 4, 0x70000000u);
		st64(s + 24, off[i]);
		st64(s + 32, secs[i].len);
	}
	uint8_t *s = b + shoff + (nsec + 1) * 64;
	st32(s, (uint32_t)shstr);
	st32(s + 4, 3);
	st64(s + 24, strtab);
	st64(s + 32, strlen_);
	st64(b + 0x28, shoff);
	st16(b + 0x3a, 64);
	st16(b + 0x3c, (uint16_t)(nsec + 2));
	st16(b + 0x3e, (uint16_t)(nsec + 1));
	e->n = shoff + (nsec + 2) * 64;
}

/* An .nv.info section with KPARAM_INFO records (descending, as nvcc writes them). */
static void nvinfo_section(struct esec *s, const char *kernel, const uint32_t (*p)[2], int n)
{
	static char names[8][128];
	static int next;
	char *nm = names[next++ % 8];
	snprintf(nm, 128, ".nv.info.%s", kernel);
	s->name = nm;
	s->len = 0;
	for (int i = n - 1; i >= 0; i--) {
		uint8_t *r = s->data + s->len;
		r[0] = 4, r[1] = 0x17, r[2] = 12, r[3] = 0;
		st32(r + 4, 0);
		st16(r + 8, (uint16_t)i);
		st16(r + 10, (uint16_t)p[i][0]);
		st32(r + 12, (p[i][1] << 18) | 0x1f000u);
		s->len += 16;
	}
}

/* ---- fake device ----------------------------------------------------------------------------------- */

#define DEV(x) ((CUdeviceptr)(0x7f0000000000ull + (uint64_t)(x) * 0x10000000ull))

struct falloc {
	CUdeviceptr base;
	size_t size;
	uint8_t *host;
	int managed;
	int fail_copy;
};

static struct falloc fallocs[8];
static int nfallocs;

static struct falloc *falloc_of(CUdeviceptr p)
{
	for (int i = 0; i < nfallocs; i++)
		if (p >= fallocs[i].base && p < fallocs[i].base + fallocs[i].size)
			return &fallocs[i];
	return NULL;
}

static uint8_t *dev_alloc(int slot, size_t size, int managed)
{
	struct falloc *a = &fallocs[nfallocs++];
	a->base = DEV(slot);
	a->size = size;
	a->host = calloc(1, size);
	a->managed = managed;
	a->fail_copy = 0;
	assert_non_null(a->host);
	return a->host;
}

/* The fake kernels' handles, names and layouts. */
#define K_SAXPY ((void *)0x1000)
#define K_REDUCE ((void *)0x2000)
#define K_MIXED ((void *)0x3000)
#define K_SKEW ((void *)0x4000)
#define K_NOLAYOUT ((void *)0x5000)
#define F_SAXPY ((void *)0x6000) /* a CUfunction of saxpy (cuModuleGetFunction) */
#define K_LATE ((void *)0x7000)   /* its module arrives only after its first capture */

struct fkernel {
	void *h;
	const char *name;
	int is_kernel;
	int n;
	uint32_t p[6][2];        /* what the driver says: offset, size */
};

static const struct fkernel fkernels[] = {
	{ K_SAXPY, "_Z5saxpyifPKfPf", 1, 4, { { 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 } } },
	{ K_REDUCE, "_Z10reduce_sumPKfPfi", 1, 3, { { 0, 8 }, { 8, 8 }, { 16, 4 } } },
	{ K_MIXED, "_Z5mixedcd3S12sPi", 1, 5, { { 0, 1 }, { 8, 8 }, { 16, 12 }, { 28, 2 }, { 32, 8 } } },
	{ K_SKEW, "_Z4skewPiS_", 1, 2, { { 0, 8 }, { 16, 8 } } }, /* the cubin says 0 and 8 */
	{ F_SAXPY, "_Z5saxpyifPKfPf", 0, 4, { { 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 } } },
	{ K_LATE, "_Z4latePi", 1, 1, { { 0, 8 } } },
};

static const struct fkernel *fk(const void *h)
{
	for (size_t i = 0; i < sizeof fkernels / sizeof fkernels[0]; i++)
		if (fkernels[i].h == h)
			return &fkernels[i];
	return NULL;
}

static struct elf eager_img, lazy_img, late_img;
static struct session_hooks hooks;
static int lazy_loaded;
static uint64_t clock_ns;
static int syncs, per_thread_syncs, copies, host_allocs, nested_calls;
static CUstream capturing_stream = (CUstream)0xcafe;
static int nest_on_sync;

static void load_module(const struct elf *img, uint32_t id)
{
	CUpti_ModuleResourceData m = { .moduleId = id, .cubinSize = img->n, .pCubin = (const char *)img->b };
	CUpti_ResourceData rd = { .context = (CUcontext)0x1, .resourceDescriptor = &m };
	hooks.module_loaded(&rd);
}

static CUresult f_range(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
	struct falloc *a = falloc_of(p);
	if (!a)
		return CUDA_ERROR_NOT_FOUND;
	*base = a->base;
	*size = a->size;
	return CUDA_SUCCESS;
}

static CUresult f_attr(void *data, CUpointer_attribute attr, CUdeviceptr p)
{
	struct falloc *a = falloc_of(p);
	if (!a)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		*(unsigned char *)data = (unsigned char)a->managed; /* a bool: one byte */
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(unsigned int *)data = CU_MEMORYTYPE_DEVICE;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult f_copy(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	(void)s;
	struct falloc *a = falloc_of(src);
	if (!a || src + n > a->base + a->size || a->fail_copy)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(dst, a->host + (src - a->base), n);
	copies++;
	return CUDA_SUCCESS;
}

static void nested_launch(void);

static CUresult f_sync(CUstream s)
{
	syncs++;
	if (s == CU_STREAM_PER_THREAD)
		per_thread_syncs++;
	if (nest_on_sync)
		nested_launch();
	return CUDA_SUCCESS;
}

static int hang; /* the "kernel" never finishes */

static CUresult f_query(CUstream s)
{
	syncs++;
	if (s == CU_STREAM_PER_THREAD)
		per_thread_syncs++;
	if (nest_on_sync)
		nested_launch();
	return hang ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static CUresult f_capturing(CUstream s, CUstreamCaptureStatus *st)
{
	*st = s == capturing_stream ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
	return CUDA_SUCCESS;
}

static CUresult f_kname(const char **name, CUkernel k)
{
	const struct fkernel *f = fk(k);
	if (!f || !f->is_kernel)
		return CUDA_ERROR_INVALID_HANDLE;
	*name = f->name;
	return CUDA_SUCCESS;
}

static CUresult f_fname(const char **name, CUfunction fn)
{
	const struct fkernel *f = fk(fn);
	if (!f || f->is_kernel)
		return CUDA_ERROR_INVALID_HANDLE;
	*name = f->name;
	return CUDA_SUCCESS;
}

static CUresult param_info(const void *h, int want_kernel, size_t i, size_t *off, size_t *size)
{
	const struct fkernel *f = fk(h);
	if (!f || f->is_kernel != want_kernel)
		return CUDA_ERROR_INVALID_HANDLE;
	if ((int)i >= f->n)
		return CUDA_ERROR_INVALID_VALUE;
	*off = f->p[i][0];
	*size = f->p[i][1];
	return CUDA_SUCCESS;
}

static CUresult f_kparam(CUkernel k, size_t i, size_t *off, size_t *size) { return param_info(k, 1, i, off, size); }
static CUresult f_fparam(CUfunction fn, size_t i, size_t *off, size_t *size) { return param_info(fn, 0, i, off, size); }

static CUresult f_kfunc(CUfunction *fn, CUkernel k)
{
	if (!fk(k))
		return CUDA_ERROR_INVALID_HANDLE;
	/* Lazy loading: the module of 'mixed' arrives now, on this thread. */
	if (k == K_MIXED && !lazy_loaded) {
		lazy_loaded = 1;
		load_module(&lazy_img, 2);
	}
	*fn = (CUfunction)k;
	return CUDA_SUCCESS;
}

static CUresult f_hostalloc(void **p, size_t n, unsigned flags)
{
	(void)flags;
	*p = malloc(n);
	host_allocs++;
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUptiResult f_ts(uint64_t *t)
{
	*t = (clock_ns += 1000);
	return CUPTI_SUCCESS;
}

static CUptiResult f_devid(CUcontext c, uint32_t *id)
{
	(void)c;
	*id = 3;
	return CUPTI_SUCCESS;
}

static CUptiResult f_streamid(CUcontext c, CUstream s, uint8_t per_thread, uint32_t *id)
{
	(void)c;
	*id = per_thread ? 99u : (uint32_t)(uintptr_t)s;
	return CUPTI_SUCCESS;
}

static int woken;
static void wake(void) { woken++; }

/* ---- launches ----------------------------------------------------------------------------------------- */

static uint32_t next_corr = 100;

struct launch_opts {
	CUpti_CallbackId cbid;
	CUstream stream;
	CUresult ret;
	const char *sym;         /* symbolName; NULL: CUPTI gave none */
	void **extra;
	void (*kernel)(void);
};

static void drive(void *f, void **kp, const struct launch_opts *o)
{
	cuLaunchKernel_params p = { .f = (CUfunction)f, .gridDimX = 4, .gridDimY = 1, .gridDimZ = 1,
		.blockDimX = 256, .blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = 128,
		.hStream = o->stream, .kernelParams = kp, .extra = o->extra };
	CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION };
	attr.value.clusterDim.x = 2, attr.value.clusterDim.y = 1, attr.value.clusterDim.z = 1;
	CUlaunchConfig cfg = { .gridDimX = 8, .gridDimY = 2, .gridDimZ = 1, .blockDimX = 128,
		.blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = 0, .hStream = o->stream,
		.attrs = &attr, .numAttrs = 1 };
	cuLaunchKernelEx_params px = { .config = &cfg, .f = (CUfunction)f, .kernelParams = kp,
		.extra = o->extra };
	CUpti_CallbackId cbid = o->cbid ? o->cbid : CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	int ex = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
	         cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
	const struct fkernel *k = fk(f);
	CUresult ret = o->ret;
	uint64_t corr_data = 0xdeadbeef; /* not zero: the ENTER callback must clear it */
	CUpti_CallbackData cb = { .callbackSite = CUPTI_API_ENTER, .functionName = "cuLaunchKernel",
		.functionParams = ex ? (const void *)&px : (const void *)&p, .functionReturnValue = &ret,
		.symbolName = o->sym ? o->sym : (k && k->is_kernel ? k->name : NULL),
		.context = (CUcontext)0x1, .correlationId = next_corr++, .correlationData = &corr_data };
	if (o->sym && !*o->sym)
		cb.symbolName = NULL;
	hooks.driver_api(cbid, &cb);
	if (ret == CUDA_SUCCESS && o->kernel)
		o->kernel();
	cb.callbackSite = CUPTI_API_EXIT;
	hooks.driver_api(cbid, &cb);
}

static void launch(void *f, void **kp, void (*kernel)(void))
{
	struct launch_opts o = { .stream = (CUstream)0x10, .kernel = kernel };
	drive(f, kp, &o);
}

static void nested_launch(void)
{
	/* A launch callback arriving while the capture's own driver call runs must be ignored. */
	nested_calls++;
	int n = 1;
	float a = 1;
	CUdeviceptr x = DEV(0), y = DEV(1);
	void *kp[] = { &n, &a, &x, &y };
	nest_on_sync = 0;
	launch(K_SAXPY, kp, NULL);
	nest_on_sync = 1;
}

/* ---- reading the trace back ---------------------------------------------------------------------------- */

struct rblob {
	uint64_t id;
	uint32_t kind;
	uint64_t len;
	uint8_t *data;
};

struct rcap {
	struct gt_capture c;
	struct gt_capture_param p[8];
	uint8_t bytes[64];
	char name[64];
};

struct rtrace {
	struct rcap caps[16];
	int ncaps;
	struct rblob blobs[64];
	int nblobs;
	int overheads;
	uint64_t dropped_capture;
	char meta_launches[32], meta_skipped_stream[32], meta_skipped_bytes[32], meta_skipped_failed[32],
		meta_skipped_layout[32], meta_selected[32], meta_graph[32], meta_kernel[200], meta_rule[300],
		meta_timeouts[32];
};

static void meta_copy(const struct gt_reader *r, const char *key, char *out, size_t n)
{
	const char *v = gt_reader_meta(r, key);
	snprintf(out, n, "%s", v ? v : "(absent)");
}

static struct rblob *blob_by_id(struct rtrace *t, uint64_t id)
{
	for (int i = 0; i < t->nblobs; i++)
		if (t->blobs[i].id == id)
			return &t->blobs[i];
	return NULL;
}

static void read_trace(const char *path, struct rtrace *t, const char *kernel_key)
{
	memset(t, 0, sizeof *t);
	struct gt_reader *r;
	char err[256];
	assert_int_equal(gt_reader_open(&r, path, err, sizeof err), 0);
	struct gt_event ev;
	int rc;
	while ((rc = gt_reader_next(r, &ev)) > 0) {
		if (ev.type == GT_REC_BLOB) {
			struct gt_blob_piece piece;
			const uint8_t *d;
			assert_int_equal(gt_parse_blob(&ev, &piece, &d), 0);
			struct rblob *b = blob_by_id(t, piece.blob_id);
			if (!b) {
				assert_true(t->nblobs < 64);
				b = &t->blobs[t->nblobs++];
				b->id = piece.blob_id;
				b->kind = piece.kind;
				b->len = piece.total_bytes;
				b->data = calloc(1, piece.total_bytes ? piece.total_bytes : 1);
			}
			memcpy(b->data + piece.offset, d, piece.piece_bytes);
		} else if (ev.type == GT_REC_CAPTURE) {
			assert_true(t->ncaps < 16);
			struct rcap *c = &t->caps[t->ncaps++];
			const uint8_t *praw, *pbytes;
			assert_int_equal(gt_capture_parse(&ev, &c->c, &praw, &pbytes), 0);
			assert_true(c->c.nparams <= 8 && c->c.param_bytes <= 64);
			for (uint32_t i = 0; i < c->c.nparams; i++)
				gt_capture_param_get(praw, i, &c->p[i]);
			memcpy(c->bytes, pbytes, c->c.param_bytes);
			snprintf(c->name, sizeof c->name, "%s", gt_reader_string(r, c->c.name_id));
		} else if (ev.type == GT_REC_OVERHEAD) {
			assert_int_equal(ev.u.overhead.kind, GT_OVERHEAD_CAPTURE);
			assert_true(ev.u.overhead.end >= ev.u.overhead.start);
			t->overheads++;
		} else if (ev.type == GT_REC_DROPPED && ev.u.dropped.reason == GT_DROP_CAPTURE) {
			t->dropped_capture += ev.u.dropped.count;
		}
	}
	assert_int_equal(rc, 0);
	meta_copy(r, "capture.launches", t->meta_launches, sizeof t->meta_launches);
	meta_copy(r, "capture.selected_launches", t->meta_selected, sizeof t->meta_selected);
	meta_copy(r, "capture.skipped.stream_capturing", t->meta_skipped_stream, sizeof t->meta_skipped_stream);
	meta_copy(r, "capture.skipped.byte_cap", t->meta_skipped_bytes, sizeof t->meta_skipped_bytes);
	meta_copy(r, "capture.skipped.launch_failed", t->meta_skipped_failed, sizeof t->meta_skipped_failed);
	meta_copy(r, "capture.skipped.no_layout", t->meta_skipped_layout, sizeof t->meta_skipped_layout);
	meta_copy(r, "capture.graph_launches_not_captured", t->meta_graph, sizeof t->meta_graph);
	meta_copy(r, "capture.rule", t->meta_rule, sizeof t->meta_rule);
	meta_copy(r, "capture.wait_timeouts", t->meta_timeouts, sizeof t->meta_timeouts);
	if (kernel_key)
		meta_copy(r, kernel_key, t->meta_kernel, sizeof t->meta_kernel);
	gt_reader_close(r);
}

static void free_trace(struct rtrace *t)
{
	for (int i = 0; i < t->nblobs; i++)
		free(t->blobs[i].data);
}

/* ---- set-up ----------------------------------------------------------------------------------------- */

static char path[64];
static struct gt_writer *w;

static void start(const char *pattern, unsigned max, unsigned long long bytes)
{
	memset(&cuda_fn, 0, sizeof cuda_fn);
	memset(&cupti_fn, 0, sizeof cupti_fn);
	cuda_fn.cuMemGetAddressRange_v2 = f_range;
	cuda_fn.cuPointerGetAttribute = f_attr;
	cuda_fn.cuMemcpyDtoHAsync_v2 = f_copy;
	cuda_fn.cuStreamSynchronize = f_sync;
	cuda_fn.cuStreamQuery = f_query;
	cuda_fn.cuStreamIsCapturing = f_capturing;
	cuda_fn.cuKernelGetName = f_kname;
	cuda_fn.cuFuncGetName = f_fname;
	cuda_fn.cuKernelGetParamInfo = f_kparam;
	cuda_fn.cuFuncGetParamInfo = f_fparam;
	cuda_fn.cuKernelGetFunction = f_kfunc;
	cuda_fn.cuMemHostAlloc = f_hostalloc;
	cupti_fn.cuptiGetTimestamp = f_ts;
	cupti_fn.cuptiGetDeviceId = f_devid;
	cupti_fn.cuptiGetStreamIdEx = f_streamid;
	syncs = per_thread_syncs = copies = host_allocs = nested_calls = lazy_loaded = woken = hang = 0;
	nest_on_sync = 0;
	for (int i = 0; i < nfallocs; i++)
		free(fallocs[i].host);
	nfallocs = 0;

	static const uint32_t saxpy_nv[][2] = { { 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 } };
	static const uint32_t reduce_nv[][2] = { { 0, 8 }, { 8, 8 }, { 16, 4 } };
	static const uint32_t skew_nv[][2] = { { 0, 8 }, { 8, 8 } };
	static const uint32_t mixed_nv[][2] = { { 0, 1 }, { 8, 8 }, { 16, 12 }, { 28, 2 }, { 32, 8 } };
	static const uint32_t late_nv[][2] = { { 0, 8 } };
	struct esec eager[3], lazy[1], late[1];
	nvinfo_section(&late[0], "_Z4latePi", late_nv, 1);
	build_elf(&late_img, late, 1);
	nvinfo_section(&eager[0], "_Z5saxpyifPKfPf", saxpy_nv, 4);
	nvinfo_section(&eager[1], "_Z10reduce_sumPKfPfi", reduce_nv, 3);
	nvinfo_section(&eager[2], "_Z4skewPiS_", skew_nv, 2);
	nvinfo_section(&lazy[0], "_Z5mixedcd3S12sPi", mixed_nv, 5);
	build_elf(&eager_img, eager, 3);
	build_elf(&lazy_img, lazy, 1);

	memset(&hooks, 0, sizeof hooks);
	struct capture_config cfg = { .pattern = pattern, .max_per_kernel = max, .max_bytes = bytes,
		.wake_writer = wake };
	char why[256] = "";
	assert_int_equal(capture_setup(&cfg, &hooks, why, sizeof why), 0);
	assert_non_null(hooks.module_loaded);
	assert_non_null(hooks.driver_api);
	assert_non_null(hooks.launch_cbids);
	load_module(&eager_img, 1);

	snprintf(path, sizeof path, "/tmp/gt-capture-flow-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(gt_writer_open_fd(&w, fd, NULL), 0);
}

static void finish(void)
{
	assert_int_equal(capture_finish(w), 0);
	assert_int_equal(gt_writer_close(w), 0);
	w = NULL;
}

/* ---- saxpy ------------------------------------------------------------------------------------------ */

#define NX 1000
#define NY 70000 /* 280000 bytes: over CAPTURE_PINNED_MIN, so the pinned pool is used */

static float *xs, *ys;
static float saxpy_a = 2.0f;

static void saxpy_kernel(void)
{
	for (int i = 0; i < NX; i++)
		ys[i] = saxpy_a * xs[i] + ys[i];
}

static void test_saxpy_captured_and_read_back(void **state)
{
	(void)state;
	start("_Z5saxpy*", 3, 1ull << 30);
	xs = (float *)dev_alloc(0, NX * sizeof(float) + 256, 0);
	ys = (float *)dev_alloc(1, NY * sizeof(float), 0);
	for (int i = 0; i < NX; i++)
		xs[i] = (float)i;
	for (int i = 0; i < NY; i++)
		ys[i] = 1.0f;
	int n = NX;
	CUdeviceptr x = DEV(0) + 64, y = DEV(1); /* x points into its allocation, not at its base */
	void *kp[] = { &n, &saxpy_a, &x, &y };
	float ys_before[3][8], ys_after[3][8];
	for (int l = 0; l < 5; l++) {
		if (l < 3)
			memcpy(ys_before[l], ys, sizeof ys_before[l]);
		launch(K_SAXPY, kp, saxpy_kernel);
		if (l < 3)
			memcpy(ys_after[l], ys, sizeof ys_after[l]);
		/* a kernel the pattern does not select, in between */
		int m = 5;
		void *kr[] = { &x, &y, &m };
		launch(K_REDUCE, kr, NULL);
	}
	assert_true(woken >= 3);
	assert_true(host_allocs >= 1); /* y went through the pinned pool */
	assert_int_equal(capture_drain(w), 0);
	finish();

	struct rtrace t;
	read_trace(path, &t, "capture.kernel._Z5saxpyifPKfPf");
	unlink(path);
	assert_int_equal(t.ncaps, 3);
	assert_string_equal(t.meta_launches, "3");
	assert_string_equal(t.meta_selected, "5");
	assert_non_null(strstr(t.meta_kernel, "launches=5 captured=3 incomplete=0"));
	assert_non_null(strstr(t.meta_kernel, "layout=nv.info=driver"));
	assert_non_null(strstr(t.meta_rule, "twice"));
	assert_int_equal(t.overheads, 6); /* ENTER and EXIT of each capture */
	assert_int_equal(t.dropped_capture, 0);

	int cubins = 0;
	for (int i = 0; i < t.nblobs; i++)
		cubins += t.blobs[i].kind == GT_BLOB_CUBIN;
	assert_int_equal(cubins, 1); /* once per module, however many captures */

	for (int c = 0; c < 3; c++) {
		struct rcap *r = &t.caps[c];
		assert_string_equal(r->name, "_Z5saxpyifPKfPf");
		assert_int_equal(r->c.capture_id, (uint64_t)c + 1);
		assert_int_equal(r->c.launch_index, (uint32_t)c);
		assert_int_equal(r->c.device_id, 3);
		assert_int_equal(r->c.stream_id, 0x10);
		assert_int_equal(r->c.grid[0], 4);
		assert_int_equal(r->c.block[0], 256);
		assert_int_equal(r->c.dynamic_smem, 128);
		assert_int_equal(r->c.nparams, 4);
		assert_int_equal(r->c.param_bytes, 24);
		assert_int_equal(r->c.flags, GT_CAPTURE_LAYOUT_NVINFO | GT_CAPTURE_LAYOUT_DRIVER |
		                             GT_CAPTURE_STREAM_SYNCED);
		assert_true(r->c.timestamp > 0);
		struct rblob *cub = blob_by_id(&t, r->c.cubin_blob_id);
		assert_non_null(cub);
		assert_int_equal(cub->kind, GT_BLOB_CUBIN);
		assert_int_equal(cub->len, eager_img.n);
		assert_memory_equal(cub->data, eager_img.b, eager_img.n);

		/* the raw parameter bytes, exactly as launched */
		int32_t pn;
		float pa;
		uint64_t px, py;
		memcpy(&pn, r->bytes, 4);
		memcpy(&pa, r->bytes + 4, 4);
		memcpy(&px, r->bytes + 8, 8);
		memcpy(&py, r->bytes + 16, 8);
		assert_int_equal(pn, NX);
		assert_true(pa == 2.0f);
		assert_int_equal(px, DEV(0) + 64);
		assert_int_equal(py, DEV(1));

		assert_int_equal(r->p[0].kind, GT_PARAM_SCALAR);
		assert_int_equal(r->p[1].kind, GT_PARAM_SCALAR);
		assert_int_equal(r->p[2].kind, GT_PARAM_POINTER);
		assert_int_equal(r->p[2].status, GT_PARAM_OK);
		assert_int_equal(r->p[2].alloc_base, DEV(0));
		assert_int_equal(r->p[2].alloc_bytes, NX * sizeof(float) + 256);
		/* x is only read: its after copy is the before blob */
		assert_true(r->p[2].before_blob != 0);
		assert_int_equal(r->p[2].after_blob, r->p[2].before_blob);
		struct rblob *xb = blob_by_id(&t, r->p[2].before_blob);
		assert_non_null(xb);
		assert_int_equal(xb->kind, GT_BLOB_BUFFER);
		assert_memory_equal(xb->data, xs, NX * sizeof(float));

		assert_int_equal(r->p[3].kind, GT_PARAM_POINTER);
		assert_int_equal(r->p[3].status, GT_PARAM_OK);
		assert_int_equal(r->p[3].alloc_bytes, NY * sizeof(float));
		assert_true(r->p[3].after_blob != r->p[3].before_blob);
		struct rblob *yb = blob_by_id(&t, r->p[3].before_blob);
		struct rblob *ya = blob_by_id(&t, r->p[3].after_blob);
		assert_non_null(yb);
		assert_non_null(ya);
		assert_int_equal(ya->len, NY * sizeof(float));
		assert_memory_equal(yb->data, ys_before[c], sizeof ys_before[c]);
		assert_memory_equal(ya->data, ys_after[c], sizeof ys_after[c]);
		/* elements past NX are untouched by the kernel and equal in both */
		assert_memory_equal(yb->data + NX * 4, ya->data + NX * 4, (NY - NX) * 4);
	}
	free_trace(&t);
}

/* ---- skips -------------------------------------------------------------------------------------------- */

static void test_skips_are_counted_and_turns_pass_on(void **state)
{
	(void)state;
	start("*", 3, 1ull << 30);
	dev_alloc(0, 4096, 0);
	dev_alloc(1, 4096, 0);
	int n = 8;
	float a = 1;
	CUdeviceptr x = DEV(0), y = DEV(1);
	void *kp[] = { &n, &a, &x, &y };

	/* launch 0 on a stream being captured into a graph: skipped, launch 1 takes its turn */
	struct launch_opts o = { .stream = capturing_stream };
	drive(K_SAXPY, kp, &o);
	/* launch 1 fails (no kernel ran): skipped, launch 2 takes the turn */
	struct launch_opts f = { .stream = (CUstream)0x10, .ret = CUDA_ERROR_INVALID_VALUE };
	drive(K_SAXPY, kp, &f);
	launch(K_SAXPY, kp, NULL); /* launch 2: captured */
	/* a kernel without any layout: skipped each time it is claimed */
	void *kn[] = { &x };
	struct launch_opts nl = { .stream = (CUstream)0x10, .sym = "_Z8nolayoutPi" };
	drive(K_NOLAYOUT, kn, &nl);
	/* graph launches are counted */
	CUpti_CallbackData g = { .callbackSite = CUPTI_API_ENTER };
	hooks.driver_api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &g);
	hooks.driver_api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, &g);
	g.callbackSite = CUPTI_API_EXIT;
	hooks.driver_api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &g);
	assert_int_equal(capture_drain(w), 0);
	finish();

	struct rtrace t;
	read_trace(path, &t, "capture.kernel._Z5saxpyifPKfPf");
	unlink(path);
	assert_int_equal(t.ncaps, 1);
	assert_int_equal(t.caps[0].c.launch_index, 2);
	assert_string_equal(t.meta_skipped_stream, "1");
	assert_string_equal(t.meta_skipped_failed, "1");
	assert_string_equal(t.meta_skipped_layout, "1");
	assert_string_equal(t.meta_graph, "2");
	assert_int_equal(t.dropped_capture, 3);
	assert_non_null(strstr(t.meta_kernel, "launches=3 captured=1 incomplete=0 skipped=2"));
	free_trace(&t);
}

static void test_byte_cap_skips_launches_that_do_not_fit(void **state)
{
	(void)state;
	/* 3 x 2 x 4096 bytes would be needed; 20000 allow two captures of the big buffers. */
	start("_Z5saxpy*", 10, 20000);
	dev_alloc(0, 4096, 0);
	dev_alloc(1, 1024, 0);
	int n = 8;
	float a = 1;
	CUdeviceptr big = DEV(0), small = DEV(1);
	void *kbig[] = { &n, &a, &big, &small };   /* 2 x (4096 + 1024) = 10240 bytes */
	void *ksmall[] = { &n, &a, &small, &small }; /* one allocation, shared: 2048 bytes */
	launch(K_SAXPY, kbig, NULL);   /* 0: 10240, used 10240 */
	launch(K_SAXPY, kbig, NULL);   /* 1: would be 20480: skipped */
	launch(K_SAXPY, ksmall, NULL); /* 2: the turn passed on; 2048 fits: used 12288 */
	launch(K_SAXPY, kbig, NULL);   /* 3: next is 4 */
	launch(K_SAXPY, kbig, NULL);   /* 4: 22528 > 20000: skipped */
	assert_int_equal(capture_drain(w), 0);
	finish();

	struct rtrace t;
	read_trace(path, &t, NULL);
	unlink(path);
	assert_int_equal(t.ncaps, 2);
	assert_int_equal(t.caps[0].c.launch_index, 0);
	assert_int_equal(t.caps[1].c.launch_index, 2);
	/* the shared allocation: both pointer parameters name the same blobs */
	assert_int_equal(t.caps[1].p[2].before_blob, t.caps[1].p[3].before_blob);
	assert_string_equal(t.meta_skipped_bytes, "2");
	assert_int_equal(t.dropped_capture, 2);
	free_trace(&t);
}

/* ---- what is not copied ---------------------------------------------------------------------------- */

static void test_managed_struct_and_failed_copies_are_reported(void **state)
{
	(void)state;
	start("*", 3, 1ull << 30);
	dev_alloc(0, 4096, 1);    /* managed */
	dev_alloc(1, 4096, 0);
	fallocs[1].fail_copy = 1; /* the copy engine refuses this one */
	dev_alloc(2, 512, 0);
	int n = 8;
	float a = 1;
	CUdeviceptr m = DEV(0), bad = DEV(1);
	void *kp[] = { &n, &a, &m, &bad };
	launch(K_SAXPY, kp, NULL);
	/* mixed(char, double, S12, short, int *): its module arrives lazily, at cuKernelGetFunction */
	char c = 'z';
	double d = 3.25;
	float s12[3] = { 1, 2, 3 };
	short h = 9;
	CUdeviceptr p = DEV(2) + 4;
	void *km[] = { &c, &d, s12, &h, &p };
	launch(K_MIXED, km, NULL);
	assert_int_equal(lazy_loaded, 1);
	/* mixed again, its struct's first 8-aligned word a device address: followed as an inner pointer */
	float s12p[3];
	CUdeviceptr inner = DEV(2) + 8;
	memcpy(s12p, &inner, 8);
	s12p[2] = 7;
	void *km2[] = { &c, &d, s12p, &h, &p };
	launch(K_MIXED, km2, NULL);
	/* skew: the cubin and the driver disagree */
	CUdeviceptr q = DEV(2);
	void *ks[] = { &q, &q };
	launch(K_SKEW, ks, NULL);
	assert_int_equal(capture_drain(w), 0);
	finish();

	struct rtrace t;
	read_trace(path, &t, NULL);
	unlink(path);
	assert_int_equal(t.ncaps, 4);
	struct rcap *s = &t.caps[0];
	assert_true(s->c.flags & GT_CAPTURE_INCOMPLETE);
	assert_int_equal(s->p[2].kind, GT_PARAM_POINTER);
	assert_int_equal(s->p[2].status, GT_PARAM_MANAGED);
	assert_int_equal(s->p[2].alloc_base, DEV(0));
	assert_int_equal(s->p[2].before_blob, 0);
	assert_int_equal(s->p[3].status, GT_PARAM_COPY_FAILED);
	assert_int_equal(s->p[3].before_blob, 0);
	assert_int_equal(s->p[3].after_blob, 0);

	struct rcap *x = &t.caps[1];
	assert_string_equal(x->name, "_Z5mixedcd3S12sPi");
	assert_int_equal(x->c.flags & ~GT_CAPTURE_STREAM_SYNCED,
	                 GT_CAPTURE_LAYOUT_NVINFO | GT_CAPTURE_LAYOUT_DRIVER);
	assert_true(x->c.cubin_blob_id != 0);
	struct rblob *cub = blob_by_id(&t, x->c.cubin_blob_id);
	assert_non_null(cub);
	assert_int_equal(cub->len, lazy_img.n);
	assert_int_equal(x->c.param_bytes, 40);
	assert_int_equal(x->p[0].status, GT_PARAM_OK);          /* char */
	assert_int_equal(x->p[1].status, GT_PARAM_NOT_DEVICE);  /* a double is 8 bytes, not an address */
	assert_int_equal(x->p[1].kind, GT_PARAM_SCALAR);
	assert_int_equal(x->p[2].status, GT_PARAM_STRUCT_SCANNED); /* 12-byte struct: one word, no address */
	assert_int_equal(x->c.nparams, 5);                      /* so no inner pointer follows */
	assert_int_equal(x->p[3].status, GT_PARAM_OK);          /* short */
	assert_int_equal(x->p[4].kind, GT_PARAM_POINTER);
	assert_int_equal(x->p[4].alloc_base, DEV(2));
	assert_true(x->p[4].before_blob != 0);
	double dd;
	memcpy(&dd, x->bytes + 8, 8);
	assert_true(dd == 3.25);
	assert_memory_equal(x->bytes + 16, s12, 12);
	assert_int_equal(x->bytes[1], 0); /* alignment padding is zero */

	struct rcap *y = &t.caps[2];
	assert_string_equal(y->name, "_Z5mixedcd3S12sPi");
	assert_int_equal(y->c.nparams, 6);                      /* the five declared, then one inner */
	assert_int_equal(y->p[2].status, GT_PARAM_STRUCT_SCANNED);
	assert_int_equal(y->p[5].kind, GT_PARAM_INNER_POINTER);
	assert_int_equal(y->p[5].status, GT_PARAM_OK);
	assert_int_equal(y->p[5].offset, 16);
	assert_int_equal(y->p[5].size, 8);
	assert_int_equal(y->p[5].alloc_base, DEV(2));
	/* the same allocation as parameter 4's: copied once, both entries name its blobs */
	assert_int_equal(y->p[5].before_blob, y->p[4].before_blob);
	assert_true(y->p[5].after_blob != 0);

	struct rcap *k = &t.caps[3];
	assert_int_equal(k->c.flags & ~GT_CAPTURE_STREAM_SYNCED,
	                 GT_CAPTURE_LAYOUT_DRIVER | GT_CAPTURE_LAYOUT_MISMATCH);
	assert_int_equal(k->p[1].offset, 16); /* the driver's layout */
	free_trace(&t);
}

/* ---- launch variants ------------------------------------------------------------------------------- */

static void test_launch_variants(void **state)
{
	(void)state;
	start("_Z5saxpy*", 5, 1ull << 30);
	dev_alloc(0, 256, 0);
	dev_alloc(1, 256, 0);
	int n = 4;
	float a = 3;
	CUdeviceptr x = DEV(0), y = DEV(1);
	uint8_t buf[24];
	memcpy(buf, &n, 4);
	memcpy(buf + 4, &a, 4);
	memcpy(buf + 8, &x, 8);
	memcpy(buf + 16, &y, 8);
	size_t size = sizeof buf;
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
		CU_LAUNCH_PARAM_END };
	/* 0: cuLaunchKernelEx_ptsz on the NULL stream, parameters in extra, a cluster */
	struct launch_opts ex = { .cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, .stream = NULL,
		.extra = extra };
	drive(K_SAXPY, NULL, &ex);
	assert_true(per_thread_syncs >= 4); /* the per-thread stream, made explicit */
	/* 1: a CUfunction (cuModuleGetFunction) without symbolName */
	void *kp[] = { &n, &a, &x, &y };
	struct launch_opts fn = { .stream = (CUstream)0x10, .sym = "" };
	drive(F_SAXPY, kp, &fn);
	/* 2: cooperative */
	struct launch_opts co = { .cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
		.stream = (CUstream)0x10 };
	drive(K_SAXPY, kp, &co);
	/* 3 is not taken (4 is next); 4 is, and a launch callback that arrives during the capture's
	 * own synchronisation is ignored (not even counted) */
	nest_on_sync = 1;
	launch(K_SAXPY, kp, NULL);
	launch(K_SAXPY, kp, NULL);
	nest_on_sync = 0;
	assert_true(nested_calls >= 1);
	assert_int_equal(capture_drain(w), 0);
	finish();

	struct rtrace t;
	read_trace(path, &t, NULL);
	unlink(path);
	assert_int_equal(t.ncaps, 4);
	struct rcap *e = &t.caps[0];
	assert_int_equal(e->c.grid[0], 8);
	assert_int_equal(e->c.grid[1], 2);
	assert_int_equal(e->c.block[0], 128);
	assert_int_equal(e->c.cluster[0], 2);
	assert_int_equal(e->c.stream_id, 99);
	assert_memory_equal(e->bytes, buf, 24);
	assert_int_equal(e->p[3].status, GT_PARAM_OK);
	/* the CUfunction: named by the driver, laid out by cuFuncGetParamInfo and the cubin */
	assert_string_equal(t.caps[1].name, "_Z5saxpyifPKfPf");
	assert_int_equal(t.caps[1].c.flags & (GT_CAPTURE_LAYOUT_NVINFO | GT_CAPTURE_LAYOUT_DRIVER),
	                 GT_CAPTURE_LAYOUT_NVINFO | GT_CAPTURE_LAYOUT_DRIVER);
	/* launches are counted per kernel name, whichever handle launched them */
	assert_int_equal(t.caps[1].c.launch_index, 1);
	assert_int_equal(t.caps[2].c.launch_index, 2);
	assert_int_equal(t.caps[3].c.launch_index, 4);
	free_trace(&t);
}

/* ---- setup, fork ----------------------------------------------------------------------------------- */

static void test_setup_refusals(void **state)
{
	(void)state;
	struct session_hooks h;
	memset(&h, 0, sizeof h);
	char why[256] = "";
	struct capture_config off = { .pattern = "", .max_per_kernel = 3, .max_bytes = 1 };
	assert_int_equal(capture_setup(&off, &h, why, sizeof why), 1);
	assert_null(h.driver_api);
	struct capture_config bad = { .pattern = "/a(/", .max_per_kernel = 3, .max_bytes = 1 };
	assert_int_equal(capture_setup(&bad, &h, why, sizeof why), -1);
	assert_non_null(strstr(why, "GPUTRACE_SHADOW='/a(/'"));
	memset(&cuda_fn, 0, sizeof cuda_fn);
	struct capture_config ok = { .pattern = "saxpy", .max_per_kernel = 3, .max_bytes = 1 };
	assert_int_equal(capture_setup(&ok, &h, why, sizeof why), -1);
	assert_non_null(strstr(why, "lack"));
	assert_null(h.driver_api);
}

static void test_fork_child_drops_queued_captures(void **state)
{
	(void)state;
	start("*", 3, 1ull << 30);
	dev_alloc(0, 256, 0);
	int n = 1;
	float a = 1;
	CUdeviceptr x = DEV(0);
	void *kp[] = { &n, &a, &x, &x };
	launch(K_SAXPY, kp, NULL);
	capture_after_fork_child();
	launch(K_SAXPY, kp, NULL); /* capture is off in the child */
	assert_int_equal(capture_drain(w), 0);
	finish();
	struct rtrace t;
	read_trace(path, &t, NULL);
	unlink(path);
	assert_int_equal(t.ncaps, 0);
	free_trace(&t);
}

static void test_module_that_arrives_late(void **state)
{
	(void)state;
	start("*", 3, 1ull << 30);
	dev_alloc(0, 256, 0);
	CUdeviceptr p = DEV(0);
	void *kp[] = { &p };
	launch(K_LATE, kp, NULL);  /* no cubin yet: the driver's layout alone */
	load_module(&late_img, 7);
	launch(K_LATE, kp, NULL);  /* the cubin now: saved, and the layouts cross-checked */
	assert_int_equal(capture_drain(w), 0);
	finish();
	struct rtrace t;
	read_trace(path, &t, NULL);
	unlink(path);
	assert_int_equal(t.ncaps, 2);
	assert_int_equal(t.caps[0].c.flags & ~GT_CAPTURE_STREAM_SYNCED, GT_CAPTURE_LAYOUT_DRIVER);
	assert_int_equal(t.caps[0].c.cubin_blob_id, 0);
	assert_int_equal(t.caps[1].c.flags & ~GT_CAPTURE_STREAM_SYNCED,
	                 GT_CAPTURE_LAYOUT_DRIVER | GT_CAPTURE_LAYOUT_NVINFO);
	struct rblob *cub = blob_by_id(&t, t.caps[1].c.cubin_blob_id);
	assert_non_null(cub);
	assert_int_equal(cub->len, late_img.n);
	free_trace(&t);
}

static void kernel_hangs(void) { hang = 1; }

static void test_kernel_that_never_finishes_does_not_hang_the_program(void **state)
{
	(void)state;
	start("_Z5saxpy*", 3, 1ull << 30);
	capture_set_wait_limit_ns(5000000); /* 5 ms instead of 30 s */
	dev_alloc(0, 256, 0);
	dev_alloc(1, 256, 0);
	int n = 4;
	float a = 1;
	CUdeviceptr x = DEV(0), y = DEV(1);
	void *kp[] = { &n, &a, &x, &y };
	launch(K_SAXPY, kp, kernel_hangs);
	hang = 0;
	/* without cuStreamQuery the capture falls back to cuStreamSynchronize */
	cuda_fn.cuStreamQuery = NULL;
	int before = syncs;
	launch(K_SAXPY, kp, NULL);
	assert_true(syncs >= before + 4);
	capture_set_wait_limit_ns(CAPTURE_WAIT_LIMIT_NS);
	assert_int_equal(capture_drain(w), 0);
	finish();

	struct rtrace t;
	read_trace(path, &t, NULL);
	unlink(path);
	assert_int_equal(t.ncaps, 2);
	struct rcap *c = &t.caps[0];
	assert_false(c->c.flags & GT_CAPTURE_STREAM_SYNCED);
	assert_true(c->c.flags & GT_CAPTURE_INCOMPLETE);
	assert_int_equal(c->p[2].status, GT_PARAM_COPY_FAILED);
	assert_true(c->p[2].before_blob != 0); /* the inputs are there */
	assert_int_equal(c->p[2].after_blob, 0);
	assert_true(t.caps[1].c.flags & GT_CAPTURE_STREAM_SYNCED);
	assert_false(t.caps[1].c.flags & GT_CAPTURE_INCOMPLETE);
	assert_string_equal(t.meta_timeouts, "1");
	free_trace(&t);
}

static int free_device(void **state)
{
	(void)state;
	for (int i = 0; i < nfallocs; i++)
		free(fallocs[i].host);
	nfallocs = 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: the forked child forgets the pool's pinned buffers (in a real child they are
		 * not even mapped), which the leak checker would see as leaks of the fake ones. */
		cmocka_unit_test(test_fork_child_drops_queued_captures),
		cmocka_unit_test(test_saxpy_captured_and_read_back),
		cmocka_unit_test(test_skips_are_counted_and_turns_pass_on),
		cmocka_unit_test(test_byte_cap_skips_launches_that_do_not_fit),
		cmocka_unit_test(test_managed_struct_and_failed_copies_are_reported),
		cmocka_unit_test(test_launch_variants),
		cmocka_unit_test(test_module_that_arrives_late),
		cmocka_unit_test(test_kernel_that_never_finishes_does_not_hang_the_program),
		cmocka_unit_test(test_setup_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, free_device);
}

/* capture.c: launch capture for shadow replay: setup, the launch callbacks, the writer's side and
 * the accounting (capture.h).
 *
 * Per launch of any kernel, the ENTER callback looks the launched handle up in a table (one entry
 * per CUkernel/CUfunction handle: its name, whether the pattern selects it, its layout once known).
 * Unselected kernels cost that lookup and nothing more. For a selected kernel the spread rule
 * decides; a claimed launch is captured in ENTER (inputs) and EXIT (outputs), then queued for the
 * writer thread. Locks are never held across a driver call: a driver call can load a module, whose
 * callback (on this same thread) takes the module store's lock.
 */
#include "cupti/capture.h"
#include "cupti/capture_copy.h"
#include "cupti/capture_item.h"
#include "cupti/capture_layout.h"
#include "cupti/capture_modules.h"
#include "cupti/capture_select.h"
#include "cupti/libs.h"
#include "cupti/nvinfo.h"

#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why a claimed launch was not captured. Counted per reason, written as DROPPED (GT_DROP_CAPTURE)
 * and as metadata capture.skipped.<key>. */
enum skip {
	SKIP_STREAM_CAPTURE,     /* the stream was being captured into a graph (or capture state unknown) */
	SKIP_BYTE_CAP,           /* the copies would pass GPUTRACE_SHADOW_BYTES */
	SKIP_NO_LAYOUT,          /* neither the cubin nor the driver gave a parameter layout */
	SKIP_BAD_PARAMS,         /* the launch passed neither kernelParams nor a usable extra buffer */
	SKIP_LAUNCH_FAILED,      /* the launch call itself returned an error: no kernel ran */
	SKIP_NO_MEMORY,          /* host memory for the capture's own records */
	NSKIP
};
static const char *const skip_key[NSKIP] = { "stream_capturing", "byte_cap", "no_layout", "bad_params",
	"launch_failed", "no_memory" };

/* One kernel name: its spread and counts. Never freed while recording. */
struct kinfo {
	char *name;
	struct capture_spread spread;
	uint64_t incomplete;
	uint64_t skipped;
	uint32_t layout_flags;   /* union of the flags of its captures */
	struct kinfo *next;
};

/* One launched handle. */
struct handle_entry {
	const void *handle;
	char *name;              /* mangled; "" when unknown */
	struct kinfo *k;         /* NULL: not selected */
	int is_kernel;           /* 1 CUkernel, 0 CUfunction, -1 not asked yet */
	int layout_state;        /* 0 not yet, 1 known, -1 none to be had */
	struct capture_layout layout;
	struct capture_module *module;
	uint32_t module_holding; /* kept images holding the name when the module was chosen */
	struct handle_entry *retired_next;
};

static struct {
	pthread_mutex_t mu;      /* the handle table, kernels, spreads, budget */
	atomic_int on;
	int configured;
	struct capture_pattern pat;
	char pattern_text[512];
	capture_demangle_fn demangle;
	unsigned max_per_kernel;
	uint64_t max_bytes;
	uint64_t pinned_limit;
	void (*wake)(void);
	struct capture_budget budget;
	struct handle_entry **tab;
	size_t tab_cap, tab_count;
	struct handle_entry *retired;
	struct kinfo *kernels;
	size_t nkernels;
	atomic_uint_fast64_t selected_launches, captured, incomplete, bytes, total_ns, wait_ns, copy_ns,
		graph_launches, next_id, wait_timeouts, skipped[NSKIP];
	/* writer thread only */
	int settings_written;
	uint64_t drops_written;
} S = { .mu = PTHREAD_MUTEX_INITIALIZER };

static __thread int in_capture;

static const CUpti_CallbackId launch_cbids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	/* the capture's own copies, so that their records can be told from the program's */
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
	0,
};

/* Correlation ids of the copies the capture made, until the translator has seen each one's record.
 * Open addressing; bounded: if records never come (memcpy activity off), it is cleared when full. */
#define OWN_COPIES_CAP 65536u
static struct {
	pthread_mutex_t mu;
	uint32_t ids[OWN_COPIES_CAP];
	uint32_t count;
} own = { .mu = PTHREAD_MUTEX_INITIALIZER };

static uint32_t own_slot(uint32_t id) { return (id * 2654435761u) & (OWN_COPIES_CAP - 1); }

static void own_add(uint32_t id)
{
	if (!id)
		return;
	pthread_mutex_lock(&own.mu);
	if (own.count * 2 >= OWN_COPIES_CAP) {
		memset(own.ids, 0, sizeof own.ids);
		own.count = 0;
	}
	uint32_t j = own_slot(id);
	while (own.ids[j] && own.ids[j] != id)
		j = (j + 1) & (OWN_COPIES_CAP - 1);
	if (!own.ids[j]) {
		own.ids[j] = id;
		own.count++;
	}
	pthread_mutex_unlock(&own.mu);
}

int capture_owns_copy(uint32_t id)
{
	if (!id)
		return 0;
	int found = 0;
	pthread_mutex_lock(&own.mu);
	if (own.count) {
		uint32_t j = own_slot(id);
		while (own.ids[j]) {
			if (own.ids[j] == id) {
				found = 1;
				/* delete, re-inserting the rest of the probe run */
				own.ids[j] = 0;
				own.count--;
				for (uint32_t k = (j + 1) & (OWN_COPIES_CAP - 1); own.ids[k];
				     k = (k + 1) & (OWN_COPIES_CAP - 1)) {
					uint32_t v = own.ids[k];
					own.ids[k] = 0;
					uint32_t h = own_slot(v);
					while (own.ids[h])
						h = (h + 1) & (OWN_COPIES_CAP - 1);
					own.ids[h] = v;
				}
				break;
			}
			j = (j + 1) & (OWN_COPIES_CAP - 1);
		}
	}
	pthread_mutex_unlock(&own.mu);
	return found;
}

static void count_skip(enum skip why) { atomic_fetch_add(&S.skipped[why], 1); }

/* ---- the handle table -------------------------------------------------------------------------- */

static size_t slot_of(const void *h, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)h;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static struct handle_entry **tab_slot(const void *h)
{
	if (!S.tab_cap)
		return NULL;
	for (size_t i = slot_of(h, S.tab_cap);; i = (i + 1) & (S.tab_cap - 1)) {
		if (!S.tab[i] || S.tab[i]->handle == h)
			return &S.tab[i];
	}
}

static int tab_grow(void)
{
	size_t nc = S.tab_cap ? 2 * S.tab_cap : 256;
	struct handle_entry **t = calloc(nc, sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < S.tab_cap; i++) {
		struct handle_entry *e = S.tab[i];
		if (!e)
			continue;
		size_t j = slot_of(e->handle, nc);
		while (t[j])
			j = (j + 1) & (nc - 1);
		t[j] = e;
	}
	free(S.tab);
	S.tab = t;
	S.tab_cap = nc;
	return 0;
}

static struct kinfo *kinfo_get(const char *name)
{
	for (struct kinfo *k = S.kernels; k; k = k->next)
		if (strcmp(k->name, name) == 0)
			return k;
	struct kinfo *k = calloc(1, sizeof *k);
	if (!k || !(k->name = strdup(name))) {
		free(k);
		return NULL;
	}
	k->next = S.kernels;
	S.kernels = k;
	S.nkernels++;
	return k;
}

/* A handle seen for the first time (or reused for another kernel): name it, match it, enter it. */
static struct handle_entry *enter_handle(const void *f, const char *sym)
{
	const char *name = sym;
	int is_kernel = -1;
	if (!name) {
		const char *n = NULL;
		if (cuda_fn.cuKernelGetName && cuda_fn.cuKernelGetName(&n, (CUkernel)f) == CUDA_SUCCESS && n)
			is_kernel = 1;
		else if (cuda_fn.cuFuncGetName && cuda_fn.cuFuncGetName(&n, (CUfunction)f) == CUDA_SUCCESS && n)
			is_kernel = 0;
		name = n ? n : "";
	}
	int selected = capture_pattern_match(&S.pat, name, S.demangle);
	struct handle_entry *e = calloc(1, sizeof *e);
	if (!e || !(e->name = strdup(name))) {
		free(e);
		return NULL;
	}
	e->handle = f;
	e->is_kernel = is_kernel;
	pthread_mutex_lock(&S.mu);
	struct handle_entry **slot = tab_slot(f);
	if (slot && *slot && strcmp((*slot)->name, e->name) == 0) {
		/* Another thread entered it meanwhile. */
		struct handle_entry *have = *slot;
		pthread_mutex_unlock(&S.mu);
		free(e->name);
		free(e);
		return have;
	}
	if (selected && !(e->k = kinfo_get(name))) {
		pthread_mutex_unlock(&S.mu);
		free(e->name);
		free(e);
		count_skip(SKIP_NO_MEMORY);
		return NULL;
	}
	if (slot && *slot) {
		/* The handle now names another kernel (its module was unloaded and the address reused):
		 * the old entry may still be referenced by a capture in flight, so it is retired. */
		(*slot)->retired_next = S.retired;
		S.retired = *slot;
		*slot = e;
	} else {
		if ((S.tab_count + 1) * 2 > S.tab_cap && tab_grow() != 0) {
			pthread_mutex_unlock(&S.mu);
			free(e->name);
			free(e);
			return NULL;
		}
		*tab_slot(f) = e;
		S.tab_count++;
	}
	pthread_mutex_unlock(&S.mu);
	return e;
}

/* ---- layout ------------------------------------------------------------------------------------ */

/* A module that arrived after the kernel's layout was settled (MODULE_LOADED later than the
 * first capture): keep its cubin for the next captures, and cross-check the driver's layout. */
static void attach_late_module(struct handle_entry *e, const uint32_t block[3])
{
	uint32_t holding = 0;
	struct capture_module *m = capture_modules_find(e->name, block, &holding);
	if (!m)
		return;
	struct nvinfo_layout nv = { 0 };
	const uint8_t *sec;
	size_t sl;
	int have_nv = nvinfo_find_section(m->image, m->size, e->name, strlen(e->name), &sec, &sl) == 1 &&
	              nvinfo_parse(sec, sl, &nv) == 0;
	pthread_mutex_lock(&S.mu);
	if (!e->module) {
		e->module = m;
		e->module_holding = holding;
		if (have_nv && e->layout.flags == GT_CAPTURE_LAYOUT_DRIVER)
			e->layout.flags |= nvinfo_layout_equal(&nv, &e->layout.l) ? GT_CAPTURE_LAYOUT_NVINFO
			                                                          : GT_CAPTURE_LAYOUT_MISMATCH;
	}
	pthread_mutex_unlock(&S.mu);
	nvinfo_free(&nv);
}

/* Settles the handle's layout once; 0 with the layout's flags and the module (as they are now,
 * read under the lock), or -1 when there is no layout. */
static int ensure_layout(struct handle_entry *e, const uint32_t block[3], uint32_t *flags,
                         struct capture_module **module)
{
	pthread_mutex_lock(&S.mu);
	int st = e->layout_state;
	int no_module = !e->module;
	pthread_mutex_unlock(&S.mu);
	if (st > 0 && no_module)
		attach_late_module(e, block);
	if (st) {
		pthread_mutex_lock(&S.mu);
		*flags = e->layout.flags | (e->module_holding > 1 ? GT_CAPTURE_MODULE_GUESSED : 0);
		*module = e->module;
		pthread_mutex_unlock(&S.mu);
		return st > 0 ? 0 : -1;
	}
	int is_kernel = e->is_kernel;
	if (is_kernel < 0) {
		/* CUDA 12+ hands runtime launches' CUkernel handles to cuLaunchKernel; a handle from
		 * cuModuleGetFunction is a CUfunction. Each family refuses the other's handles. */
		const char *n = NULL;
		is_kernel = cuda_fn.cuKernelGetName &&
		            cuda_fn.cuKernelGetName(&n, (CUkernel)e->handle) == CUDA_SUCCESS;
	}
	uint32_t holding = 0;
	struct capture_module *m = capture_modules_find(e->name, block, &holding);
	if (!m && is_kernel && cuda_fn.cuKernelGetFunction) {
		/* Lazy loading: the module may not be loaded in this context yet. Loading it here makes
		 * MODULE_LOADED arrive now (on this thread), and the cubin is kept. */
		CUfunction fn = NULL;
		if (cuda_fn.cuKernelGetFunction(&fn, (CUkernel)e->handle) == CUDA_SUCCESS)
			m = capture_modules_find(e->name, block, &holding);
	}
	struct nvinfo_layout nv = { 0 }, drv = { 0 };
	int have_nv = 0, have_drv = 0;
	if (m) {
		const uint8_t *sec;
		size_t sl;
		if (nvinfo_find_section(m->image, m->size, e->name, strlen(e->name), &sec, &sl) == 1 &&
		    nvinfo_parse(sec, sl, &nv) == 0)
			have_nv = 1;
	}
	if (capture_layout_from_driver((void *)e->handle, is_kernel, &drv) == 0)
		have_drv = 1;
	struct capture_layout lay;
	int rc = capture_layout_choose(have_nv ? &nv : NULL, have_drv ? &drv : NULL, &lay);
	nvinfo_free(&nv);
	nvinfo_free(&drv);
	pthread_mutex_lock(&S.mu);
	if (e->layout_state == 0) {
		e->is_kernel = is_kernel;
		e->module = m;
		e->module_holding = holding;
		if (rc == 0)
			e->layout = lay;
		e->layout_state = rc == 0 ? 1 : -1;
	} else if (rc == 0) {
		capture_layout_free(&lay); /* another thread got there first */
	}
	st = e->layout_state;
	*flags = e->layout.flags | (e->module_holding > 1 ? GT_CAPTURE_MODULE_GUESSED : 0);
	*module = e->module;
	pthread_mutex_unlock(&S.mu);
	return st > 0 ? 0 : -1;
}

/* ---- a launch ------------------------------------------------------------------------------------ */

struct launch {
	void *f;
	uint32_t grid[3], block[3], cluster[3], smem;
	CUstream stream;         /* as the program passed it */
	CUstream use;            /* what our calls use: the per-thread stream made explicit */
	int ptsz;
	void **kp, **extra;
};

#define FROM_LAUNCH(a)                                                                            \
	do {                                                                                      \
		L->f = (void *)(a)->f;                                                            \
		L->grid[0] = (a)->gridDimX, L->grid[1] = (a)->gridDimY, L->grid[2] = (a)->gridDimZ; \
		L->block[0] = (a)->blockDimX, L->block[1] = (a)->blockDimY;                       \
		L->block[2] = (a)->blockDimZ;                                                     \
		L->smem = (a)->sharedMemBytes;                                                    \
		L->stream = (a)->hStream;                                                         \
		L->kp = (a)->kernelParams;                                                        \
	} while (0)

static int decode_launch(CUpti_CallbackId cbid, const void *params, struct launch *L)
{
	memset(L, 0, sizeof *L);
	if (!params)
		return -1;
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
		const cuLaunchKernel_params *a = params;
		FROM_LAUNCH(a);
		L->extra = a->extra;
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
		const cuLaunchKernel_ptsz_params *a = params;
		FROM_LAUNCH(a);
		L->extra = a->extra;
		L->ptsz = 1;
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
		const cuLaunchCooperativeKernel_params *a = params;
		FROM_LAUNCH(a);
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
		const cuLaunchCooperativeKernel_ptsz_params *a = params;
		FROM_LAUNCH(a);
		L->ptsz = 1;
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		/* The two parameter structs have the same layout. */
		const cuLaunchKernelEx_params *a = params;
		const CUlaunchConfig *c = a->config;
		if (!c)
			return -1;
		L->f = (void *)a->f;
		L->grid[0] = c->gridDimX, L->grid[1] = c->gridDimY, L->grid[2] = c->gridDimZ;
		L->block[0] = c->blockDimX, L->block[1] = c->blockDimY, L->block[2] = c->blockDimZ;
		L->smem = c->sharedMemBytes;
		L->stream = c->hStream;
		L->kp = a->kernelParams;
		L->extra = a->extra;
		L->ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
		for (unsigned i = 0; c->attrs && i < c->numAttrs; i++) {
			if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
				L->cluster[0] = c->attrs[i].value.clusterDim.x;
				L->cluster[1] = c->attrs[i].value.clusterDim.y;
				L->cluster[2] = c->attrs[i].value.clusterDim.z;
			}
		}
		break;
	}
	default:
		return -1;
	}
	/* In a _ptsz call the NULL stream is the calling thread's default stream; our own calls are
	 * the plain (legacy) entry points, where NULL would mean the legacy stream. */
	L->use = L->ptsz && !L->stream ? CU_STREAM_PER_THREAD : L->stream;
	return L->f ? 0 : -1;
}

static int find_alloc(const struct capture_item *it, uint64_t base)
{
	for (uint32_t i = 0; i < it->nallocs; i++)
		if (it->allocs[i].base == base)
			return (int)i;
	return -1;
}

/* Entry i holds 8 bytes of value v: when v points into device memory, make it a pointer entry
 * (kind stays as the caller set it when it is GT_PARAM_INNER_POINTER) sharing the allocation with
 * any earlier entry into it. Returns 1 a device pointer, 0 not one. */
static int look_up_pointer(struct capture_item *it, uint32_t i, uint64_t v, uint64_t *need, uint32_t *flags)
{
	struct gt_capture_param *p = &it->params[i];
	uint64_t base, bytes;
	int where;
	const uint8_t *host;
	int cls = capture_classify(v, &base, &bytes, &where, &host);
	if (cls == CAPTURE_PTR_NONE)
		return 0;
	if (p->kind != GT_PARAM_INNER_POINTER)
		p->kind = GT_PARAM_POINTER;
	p->alloc_base = base;
	p->alloc_bytes = bytes;
	if (cls == CAPTURE_PTR_MANAGED) {
		p->status = GT_PARAM_MANAGED;
		*flags |= GT_CAPTURE_INCOMPLETE;
		return 1;
	}
	int a = find_alloc(it, base);
	if (a < 0) {
		a = (int)it->nallocs++;
		it->allocs[a].base = base;
		it->allocs[a].bytes = bytes;
		it->allocs[a].where = where;
		it->allocs[a].host = host;
		*need += 2 * bytes;
	}
	it->param_alloc[i] = a;
	return 1;
}

/* A by-value struct: every 8-aligned word of it (aligned in the parameter buffer, as a pointer
 * member is) that points into device memory becomes a GT_PARAM_INNER_POINTER entry after the
 * declared parameters. Returns 0 when every word was looked at, 1 when the entry cap stopped it. */
static int scan_struct(struct capture_item *it, const struct gt_capture_param *s, uint32_t cap, uint32_t *n,
                       uint64_t *need, uint32_t *flags)
{
	for (uint32_t off = (s->offset + 7u) & ~7u; off + 8 <= s->offset + s->size; off += 8) {
		if (*n >= cap)
			return 1;
		uint64_t v;
		memcpy(&v, it->param_bytes + off, 8);
		struct gt_capture_param *q = &it->params[*n];
		memset(q, 0, sizeof *q);
		q->offset = off;
		q->size = 8;
		q->kind = GT_PARAM_INNER_POINTER;
		q->status = GT_PARAM_OK;
		it->param_alloc[*n] = -1;
		if (look_up_pointer(it, *n, v, need, flags))
			(*n)++;
	}
	return 0;
}

/* Is the launch's stream being captured into a graph? A synchronisation would then break the
 * program's graph capture. So would one after an error here (e.g. the legacy stream while another
 * stream captures in global mode): that counts as capturing too. */
static int stream_capturing(const struct launch *L)
{
	if (!cuda_fn.cuStreamIsCapturing)
		return 0;
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	return cuda_fn.cuStreamIsCapturing(L->use, &st) != CUDA_SUCCESS || st != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* Room for the declared parameters and one entry per 8-aligned word of every by-value struct
 * (each may be a pointer: PyTorch's and CuPy's kernels take their tensors' addresses in structs),
 * within the format's cap on entries. */
static uint32_t entry_cap(const struct nvinfo_layout *lay)
{
	uint32_t np = lay->nparams, cap = np;
	for (uint32_t i = 0; i < np; i++)
		if (lay->params[i].size > 8)
			cap += lay->params[i].size / 8 + 1;
	if (cap > NVINFO_MAX_PARAMS)
		cap = NVINFO_MAX_PARAMS;
	return cap < np ? np : cap;
}

/* A new item for kernel e, its arrays sized for cap entries; NULL when out of memory. */
static struct capture_item *item_new(const struct handle_entry *e, const struct nvinfo_layout *lay, uint32_t cap)
{
	struct capture_item *it = calloc(1, sizeof *it);
	if (!it)
		return NULL;
	it->param_bytes = malloc(lay->param_bytes ? lay->param_bytes : 1);
	it->params = calloc(cap ? cap : 1, sizeof *it->params);
	it->param_alloc = calloc(cap ? cap : 1, sizeof *it->param_alloc);
	it->allocs = calloc(cap ? cap : 1, sizeof *it->allocs);
	it->name = strdup(e->name);
	if (!it->param_bytes || !it->params || !it->param_alloc || !it->allocs || !it->name) {
		capture_item_free(it);
		return NULL;
	}
	return it;
}

/* The entries of the packed parameters: the declared ones, then the pointers found inside
 * structs, each pointer sharing its allocation with earlier ones. Adds to *need the host bytes the
 * copies take; returns the number of entries. */
static uint32_t find_pointers(struct capture_item *it, const struct nvinfo_layout *lay, uint32_t cap,
                              uint64_t *need, uint32_t *flags)
{
	uint32_t np = lay->nparams, n = np;
	for (uint32_t i = 0; i < np; i++) {
		struct gt_capture_param *p = &it->params[i];
		p->offset = lay->params[i].offset;
		p->size = lay->params[i].size;
		p->kind = GT_PARAM_SCALAR;
		p->status = GT_PARAM_OK;
		it->param_alloc[i] = -1;
		if (p->size > 8) {
			p->status = scan_struct(it, p, cap, &n, need, flags) ? GT_PARAM_STRUCT : GT_PARAM_STRUCT_SCANNED;
			continue;
		}
		if (p->size != 8)
			continue;
		uint64_t v;
		memcpy(&v, it->param_bytes + p->offset, 8);
		if (look_up_pointer(it, i, v, need, flags) == 0)
			p->status = GT_PARAM_NOT_DEVICE;
	}
	return n;
}

/* Takes need bytes of the capture budget, then both host buffers of every allocation now, so that
 * EXIT only synchronises and copies. 0, or -1 when the budget has no room. */
static int reserve_copies(struct capture_item *it, uint64_t need)
{
	pthread_mutex_lock(&S.mu);
	int fits = capture_budget_reserve(&S.budget, need);
	pthread_mutex_unlock(&S.mu);
	if (!fits)
		return -1;
	it->reserved = need;
	for (uint32_t a = 0; a < it->nallocs; a++) {
		struct capture_alloc *al = &it->allocs[a];
		if (capture_hostbuf_get(&al->before, al->bytes) != 0 ||
		    capture_hostbuf_get(&al->after, al->bytes) != 0) {
			capture_hostbuf_put(&al->before);
			capture_hostbuf_put(&al->after);
		}
	}
	return 0;
}

/* The CAPTURE record's header from the launch, and who the item belongs to. */
static void fill_header(struct capture_item *it, const struct handle_entry *e, const struct launch *L,
                        const CUpti_CallbackData *cb, uint64_t index, uint32_t n)
{
	struct gt_capture *h = &it->hdr;
	h->correlation_id = cb->correlationId;
	if (cupti_fn.cuptiGetDeviceId && cb->context)
		cupti_fn.cuptiGetDeviceId(cb->context, &h->device_id);
	/* The context lets CUPTI resolve the NULL stream to this context's default stream. */
	if (cupti_fn.cuptiGetStreamIdEx &&
	    cupti_fn.cuptiGetStreamIdEx(cb->context, L->stream, (uint8_t)L->ptsz, &h->stream_id) !=
	        CUPTI_SUCCESS &&
	    cupti_fn.cuptiGetStreamIdEx(NULL, L->stream, (uint8_t)L->ptsz, &h->stream_id) != CUPTI_SUCCESS)
		h->stream_id = 0;
	memcpy(h->grid, L->grid, sizeof h->grid);
	memcpy(h->block, L->block, sizeof h->block);
	memcpy(h->cluster, L->cluster, sizeof h->cluster);
	h->dynamic_smem = L->smem;
	h->nparams = n;
	h->param_bytes = e->layout.l.param_bytes;
	h->launch_index = index > UINT32_MAX ? UINT32_MAX : (uint32_t)index;
	it->thread = (uint64_t)pthread_self();
	it->stream = (void *)L->use;
	it->owner = e->k;
	it->launch_index = index;
}

/* Builds the item and takes the "before" copies. Returns -1 when the item is ready (in *out), else
 * the skip reason (nothing left allocated). */
static int capture_enter(struct handle_entry *e, const struct launch *L, const CUpti_CallbackData *cb,
                         uint64_t index, struct capture_item **out)
{
	uint64_t t_start = capture_now();
	uint32_t flags = 0;
	struct capture_module *module = NULL;
	if (ensure_layout(e, L->block, &flags, &module) != 0)
		return SKIP_NO_LAYOUT;
	if (stream_capturing(L))
		return SKIP_STREAM_CAPTURE;
	const struct nvinfo_layout *lay = &e->layout.l;
	uint32_t cap = entry_cap(lay);
	struct capture_item *it = item_new(e, lay, cap);
	if (!it)
		return SKIP_NO_MEMORY;
	int packed = capture_layout_pack(lay, L->kp, L->extra, it->param_bytes);
	if (packed < 0) {
		capture_item_free(it);
		return SKIP_BAD_PARAMS;
	}
	if (packed > 0)
		flags |= GT_CAPTURE_INCOMPLETE; /* extra's buffer was shorter than the layout */
	uint64_t need = 0;
	uint32_t n = find_pointers(it, lay, cap, &need, &flags);
	if (reserve_copies(it, need) != 0) {
		capture_item_free(it);
		return SKIP_BYTE_CAP;
	}
	fill_header(it, e, L, cb, index, n);
	it->hdr.timestamp = t_start;
	it->module = module;

	struct capture_snap_times t = { 0, 0, 0 };
	if (!capture_snapshot(it, L->use, 0, &t))
		flags |= GT_CAPTURE_INCOMPLETE;
	if (t.timed_out)
		atomic_fetch_add(&S.wait_timeouts, 1);
	it->hdr.flags = flags;
	it->enter_start = t_start;
	it->enter_end = capture_now();
	atomic_fetch_add(&S.wait_ns, t.wait_ns);
	atomic_fetch_add(&S.copy_ns, t.copy_ns);
	*out = it;
	return -1;
}

/* Accounting common to a finished and an abandoned capture. */
static void settle(struct capture_item *it)
{
	pthread_mutex_lock(&S.mu);
	capture_budget_release(&S.budget, it->reserved > it->copied ? it->reserved - it->copied : 0);
	pthread_mutex_unlock(&S.mu);
	atomic_fetch_add(&S.bytes, it->copied);
	uint64_t ns = (it->enter_end > it->enter_start ? it->enter_end - it->enter_start : 0) +
	              (it->exit_end > it->exit_start ? it->exit_end - it->exit_start : 0);
	atomic_fetch_add(&S.total_ns, ns);
}

static void capture_exit(struct capture_item *it, const CUpti_CallbackData *cb)
{
	struct kinfo *k = it->owner;
	uint64_t index = it->launch_index;
	CUresult ret = cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue : CUDA_SUCCESS;
	if (ret != CUDA_SUCCESS) {
		settle(it);
		count_skip(SKIP_LAUNCH_FAILED);
		pthread_mutex_lock(&S.mu);
		capture_spread_done(&k->spread, index, 0);
		k->skipped++;
		pthread_mutex_unlock(&S.mu);
		capture_item_free(it);
		return;
	}
	it->exit_start = capture_now();
	struct capture_snap_times t = { 0, 0, 0 };
	if (capture_snapshot(it, (CUstream)it->stream, 1, &t))
		it->hdr.flags |= GT_CAPTURE_STREAM_SYNCED;
	if (t.timed_out)
		atomic_fetch_add(&S.wait_timeouts, 1);
	it->exit_end = capture_now();
	atomic_fetch_add(&S.wait_ns, t.wait_ns);
	atomic_fetch_add(&S.copy_ns, t.copy_ns);
	for (uint32_t i = 0; i < it->hdr.nparams; i++) {
		int32_t a = it->param_alloc[i];
		if (a >= 0 && (!it->allocs[a].before_ok || !it->allocs[a].after_ok)) {
			it->params[i].status = GT_PARAM_COPY_FAILED;
			it->hdr.flags |= GT_CAPTURE_INCOMPLETE;
		}
	}
	settle(it);
	it->hdr.capture_id = atomic_fetch_add(&S.next_id, 1) + 1;
	int incomplete = (it->hdr.flags & GT_CAPTURE_INCOMPLETE) != 0;
	atomic_fetch_add(&S.captured, 1);
	if (incomplete)
		atomic_fetch_add(&S.incomplete, 1);
	pthread_mutex_lock(&S.mu);
	capture_spread_done(&k->spread, index, 1);
	k->incomplete += (uint64_t)incomplete;
	k->layout_flags |= it->hdr.flags & (GT_CAPTURE_LAYOUT_NVINFO | GT_CAPTURE_LAYOUT_DRIVER |
	                                    GT_CAPTURE_LAYOUT_MISMATCH);
	pthread_mutex_unlock(&S.mu);
	it->owner = NULL;
	it->stream = NULL;
	capture_queue_push(it);
	if (S.wake)
		S.wake();
}

/* ---- the hooks -------------------------------------------------------------------------------- */

static int keep_kernel(void *ctx, const char *mangled)
{
	(void)ctx;
	return capture_pattern_match(&S.pat, mangled, S.demangle);
}

static void on_module_loaded(const CUpti_ResourceData *rd)
{
	if (!atomic_load(&S.on) || !rd || !rd->resourceDescriptor)
		return;
	const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
	if (m->pCubin && m->cubinSize)
		capture_modules_add(m->pCubin, m->cubinSize, m->moduleId, keep_kernel, NULL);
}

static void on_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	struct launch L;
	if (decode_launch(cbid, cb->functionParams, &L) != 0)
		return;
	const char *sym = cb->symbolName;
	pthread_mutex_lock(&S.mu);
	struct handle_entry **slot = tab_slot(L.f);
	struct handle_entry *e = slot ? *slot : NULL;
	if (e && sym && strcmp(e->name, sym) != 0)
		e = NULL; /* the handle was reused for another kernel */
	pthread_mutex_unlock(&S.mu);
	if (!e && !(e = enter_handle(L.f, sym)))
		return;
	if (!e->k)
		return;
	uint64_t index = 0;
	pthread_mutex_lock(&S.mu);
	int claimed = capture_spread_claim(&e->k->spread, S.max_per_kernel, &index);
	pthread_mutex_unlock(&S.mu);
	atomic_fetch_add(&S.selected_launches, 1);
	if (!claimed)
		return;
	struct capture_item *it = NULL;
	int why = capture_enter(e, &L, cb, index, &it);
	if (why >= 0) {
		count_skip((enum skip)why);
		pthread_mutex_lock(&S.mu);
		capture_spread_done(&e->k->spread, index, 0);
		e->k->skipped++;
		pthread_mutex_unlock(&S.mu);
		return;
	}
	/* CUPTI hands the same correlationData to this call's EXIT callback. */
	if (cb->correlationData)
		*cb->correlationData = (uint64_t)(uintptr_t)it;
	else {
		settle(it);
		count_skip(SKIP_NO_MEMORY);
		pthread_mutex_lock(&S.mu);
		capture_spread_done(&e->k->spread, index, 0);
		pthread_mutex_unlock(&S.mu);
		capture_item_free(it);
	}
}

static void on_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2 ||
	    cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz) {
		/* Only ours: the program's own copies go on untouched. */
		if (in_capture && cb && cb->callbackSite == CUPTI_API_ENTER)
			own_add(cb->correlationId);
		return;
	}
	if (in_capture || !cb || !atomic_load(&S.on))
		return;
	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
	    cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
		if (cb->callbackSite == CUPTI_API_ENTER)
			atomic_fetch_add(&S.graph_launches, 1);
		return;
	}
	in_capture = 1;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		/* EXIT finds the capture here; a launch not captured must find nothing. */
		if (cb->correlationData)
			*cb->correlationData = 0;
		on_enter(cbid, cb);
	} else if (cb->correlationData && *cb->correlationData) {
		struct capture_item *it = (struct capture_item *)(uintptr_t)*cb->correlationData;
		*cb->correlationData = 0;
		capture_exit(it, cb);
	}
	in_capture = 0;
}

/* ---- setup ------------------------------------------------------------------------------------- */

static void reset_state(void)
{
	atomic_store(&S.on, 0);
	capture_queue_drop();
	for (size_t i = 0; i < S.tab_cap; i++) {
		struct handle_entry *e = S.tab[i];
		if (e) {
			capture_layout_free(&e->layout);
			free(e->name);
			free(e);
		}
	}
	free(S.tab);
	S.tab = NULL;
	S.tab_cap = S.tab_count = 0;
	while (S.retired) {
		struct handle_entry *e = S.retired;
		S.retired = e->retired_next;
		capture_layout_free(&e->layout);
		free(e->name);
		free(e);
	}
	while (S.kernels) {
		struct kinfo *k = S.kernels;
		S.kernels = k->next;
		free(k->name);
		free(k);
	}
	S.nkernels = 0;
	capture_pattern_free(&S.pat);
	capture_modules_reset();
	atomic_store(&S.selected_launches, 0);
	atomic_store(&S.captured, 0);
	atomic_store(&S.incomplete, 0);
	atomic_store(&S.bytes, 0);
	atomic_store(&S.total_ns, 0);
	atomic_store(&S.wait_ns, 0);
	atomic_store(&S.copy_ns, 0);
	atomic_store(&S.graph_launches, 0);
	atomic_store(&S.next_id, 0);
	atomic_store(&S.wait_timeouts, 0);
	for (int i = 0; i < NSKIP; i++)
		atomic_store(&S.skipped[i], 0);
	S.settings_written = 0;
	S.drops_written = 0;
	S.configured = 0;
}

int capture_setup(const struct capture_config *cfg, struct session_hooks *hooks, char *why,
                  size_t n)
{
	if (!cfg || !cfg->pattern || !*cfg->pattern)
		return 1;
	if (S.configured)
		reset_state();
	char msg[256];
	if (capture_pattern_compile(&S.pat, cfg->pattern, msg, sizeof msg) != 0) {
		snprintf(why, n, "GPUTRACE_SHADOW='%s': %s", cfg->pattern, msg);
		return -1;
	}
	const char *missing = !cuda_fn.cuMemGetAddressRange_v2   ? "cuMemGetAddressRange_v2"
	                      : !cuda_fn.cuMemcpyDtoHAsync_v2    ? "cuMemcpyDtoHAsync_v2"
	                      : !cuda_fn.cuStreamSynchronize     ? "cuStreamSynchronize"
	                      : !cupti_fn.cuptiGetTimestamp      ? "cuptiGetTimestamp"
	                      : NULL;
	if (missing) {
		capture_pattern_free(&S.pat);
		snprintf(why, n, "the CUDA libraries loaded lack %s", missing);
		return -1;
	}
	snprintf(S.pattern_text, sizeof S.pattern_text, "%s", cfg->pattern);
	S.demangle = capture_find_demangler();
	S.max_per_kernel = cfg->max_per_kernel ? cfg->max_per_kernel : 3;
	S.max_bytes = cfg->max_bytes;
	S.budget.limit = cfg->max_bytes;
	S.budget.used = 0;
	S.wake = cfg->wake_writer;
	/* Pinned memory is kept for reuse: never more than the budget, nor more than 1 GiB. */
	S.pinned_limit = S.max_bytes < (1ull << 30) ? S.max_bytes : (1ull << 30);
	capture_pool_setup(S.pinned_limit);
	hooks->module_loaded = on_module_loaded;
	hooks->driver_api = on_driver_api;
	hooks->launch_cbids = launch_cbids;
	S.configured = 1;
	atomic_store(&S.on, 1);
	return 0;
}

/* ---- the writer's side ------------------------------------------------------------------------- */

static int meta_u64(struct gt_writer *w, const char *key, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	return gt_writer_meta(w, key, b);
}

static int meta_seconds(struct gt_writer *w, const char *key, uint64_t ns)
{
	char b[48];
	snprintf(b, sizeof b, "%.6f", (double)ns * 1e-9);
	return gt_writer_meta(w, key, b);
}

static int write_settings(struct gt_writer *w)
{
	int rc = gt_writer_meta(w, "capture.pattern", S.pattern_text);
	rc = rc ? rc : meta_u64(w, "capture.max_per_kernel", S.max_per_kernel);
	rc = rc ? rc : meta_u64(w, "capture.max_bytes", S.max_bytes);
	rc = rc ? rc : gt_writer_meta(w, "capture.rule",
	                              "per kernel: launch 0, then the first launch whose index is at least "
	                              "twice the last captured one's (0, 1, 2, 4, 8, ...), up to "
	                              "capture.max_per_kernel; a launch not captured passes its turn on");
	rc = rc ? rc : gt_writer_meta(w, "capture.names", S.demangle ? "mangled, demangled, bare"
	                                                              : "mangled only (no __cxa_demangle)");
	char b[300];
	snprintf(b, sizeof b, "wait for the launch's stream (cuStreamQuery, at most %llu s), then "
	         "cuMemcpyDtoHAsync on it into pinned buffers (pool up to %llu bytes, kept pinned until "
	         "written), malloc'ed memory beyond",
	         (unsigned long long)(CAPTURE_WAIT_LIMIT_NS / 1000000000ull),
	         (unsigned long long)S.pinned_limit);
	rc = rc ? rc : gt_writer_meta(w, "capture.copy_path", b);
	rc = rc ? rc : gt_writer_meta(w, "capture.not_captured",
	                              "kernels launched by CUDA graphs, cuLaunchCooperativeKernelMultiDevice, "
	                              "device-side launches");
	return rc;
}

static uint64_t skipped_total(void)
{
	uint64_t s = 0;
	for (int i = 0; i < NSKIP; i++)
		s += atomic_load(&S.skipped[i]);
	return s;
}

int capture_drain(struct gt_writer *w)
{
	if (!S.configured)
		return 0;
	int rc = 0;
	if (!S.settings_written) {
		rc = write_settings(w);
		if (rc)
			return rc;
		S.settings_written = 1;
	}
	struct capture_item *it = capture_queue_take();
	while (it) {
		struct capture_item *next = it->next;
		if (rc == 0)
			rc = capture_item_write(w, it);
		capture_item_free(it);
		it = next;
	}
	if (rc)
		return rc;
	uint64_t s = skipped_total();
	if (s > S.drops_written) {
		struct gt_dropped d = { .timestamp = capture_now(), .count = s - S.drops_written,
			.reason = GT_DROP_CAPTURE };
		rc = gt_writer_add(w, GT_REC_DROPPED, &d);
		if (rc == 0)
			S.drops_written = s;
	}
	return rc;
}

struct kstat {
	const char *name;
	uint64_t launches, captured, incomplete, skipped;
	uint32_t layout_flags;
};

#define META_KERNELS_MAX 256

static int write_kernels(struct gt_writer *w)
{
	struct kstat *ks = calloc(META_KERNELS_MAX, sizeof *ks);
	if (!ks)
		return GT_ERR_NOMEM;
	size_t n = 0;
	pthread_mutex_lock(&S.mu);
	for (struct kinfo *k = S.kernels; k && n < META_KERNELS_MAX; k = k->next) {
		ks[n] = (struct kstat){ k->name, k->spread.launches, k->spread.captured, k->incomplete,
			k->skipped, k->layout_flags };
		n++;
	}
	size_t total = S.nkernels;
	pthread_mutex_unlock(&S.mu);
	int rc = meta_u64(w, "capture.kernels_selected", total);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct kstat *k = &ks[i];
		uint32_t f = k->layout_flags;
		char v[200], key[64];
		snprintf(v, sizeof v, "launches=%llu captured=%llu incomplete=%llu skipped=%llu layout=%s",
		         (unsigned long long)k->launches, (unsigned long long)k->captured,
		         (unsigned long long)k->incomplete, (unsigned long long)k->skipped,
		         f & GT_CAPTURE_LAYOUT_MISMATCH ? "driver(nv.info disagreed)"
		         : (f & GT_CAPTURE_LAYOUT_NVINFO) && (f & GT_CAPTURE_LAYOUT_DRIVER) ? "nv.info=driver"
		         : f & GT_CAPTURE_LAYOUT_DRIVER ? "driver"
		         : f & GT_CAPTURE_LAYOUT_NVINFO ? "nv.info" : "none");
		/* The key is "capture.kernel.<mangled name>"; names are long, so built on the heap. */
		size_t kl = strlen(k->name) + sizeof "capture.kernel.";
		char *kk = kl <= sizeof key ? key : malloc(kl);
		if (!kk) {
			rc = GT_ERR_NOMEM;
			break;
		}
		snprintf(kk, kl, "capture.kernel.%s", k->name);
		rc = gt_writer_meta(w, kk, v);
		if (kk != key)
			free(kk);
	}
	if (rc == 0 && total > n)
		rc = meta_u64(w, "capture.kernels_not_listed", total - n);
	free(ks);
	return rc;
}

int capture_finish(struct gt_writer *w)
{
	if (!S.configured)
		return 0;
	int rc = capture_drain(w);
	struct capture_pool_stats ps;
	capture_pool_stats(&ps);
	uint64_t mk, mkb, ms;
	capture_modules_stats(&mk, &mkb, &ms);
	rc = rc ? rc : meta_u64(w, "capture.launches", atomic_load(&S.captured));
	rc = rc ? rc : meta_u64(w, "capture.incomplete", atomic_load(&S.incomplete));
	rc = rc ? rc : meta_u64(w, "capture.selected_launches", atomic_load(&S.selected_launches));
	rc = rc ? rc : meta_u64(w, "capture.bytes", atomic_load(&S.bytes));
	rc = rc ? rc : meta_seconds(w, "capture.seconds", atomic_load(&S.total_ns));
	rc = rc ? rc : meta_seconds(w, "capture.wait_seconds", atomic_load(&S.wait_ns));
	rc = rc ? rc : meta_seconds(w, "capture.copy_seconds", atomic_load(&S.copy_ns));
	rc = rc ? rc : meta_seconds(w, "capture.pin_seconds", ps.pin_ns);
	rc = rc ? rc : meta_u64(w, "capture.wait_timeouts", atomic_load(&S.wait_timeouts));
	rc = rc ? rc : meta_u64(w, "capture.pinned_bytes", ps.pinned_bytes);
	rc = rc ? rc : meta_u64(w, "capture.pageable_buffers", ps.pageable_buffers);
	rc = rc ? rc : meta_u64(w, "capture.pin_failures", ps.pinned_failures);
	rc = rc ? rc : meta_u64(w, "capture.cubins_kept", mk);
	rc = rc ? rc : meta_u64(w, "capture.cubin_bytes_kept", mkb);
	rc = rc ? rc : meta_u64(w, "capture.modules_loaded", ms);
	rc = rc ? rc : meta_u64(w, "capture.graph_launches_not_captured", atomic_load(&S.graph_launches));
	rc = rc ? rc : meta_u64(w, "capture.skipped", skipped_total());
	for (int i = 0; i < NSKIP && rc == 0; i++) {
		char key[64];
		snprintf(key, sizeof key, "capture.skipped.%s", skip_key[i]);
		rc = meta_u64(w, key, atomic_load(&S.skipped[i]));
	}
	rc = rc ? rc : write_kernels(w);
	return rc;
}

void capture_after_fork_child(void)
{
	/* The parent's CUDA context is unusable here; the child records nothing of it. A child that
	 * starts its own recording calls capture_setup again. */
	atomic_store(&S.on, 0);
	pthread_mutex_init(&S.mu, NULL);
	capture_queue_after_fork_child();
	capture_pool_after_fork_child();
	capture_modules_after_fork_child();
	in_capture = 0;
}

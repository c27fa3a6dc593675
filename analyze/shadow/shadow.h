/* shadow.h: shadow replay: captured kernel launches run again on CPU references and compared.
 *
 * The engine behind `gpuanalyze shadow` and `gpuanalyze calibrate`, in three layers:
 *
 *   1. Reference libraries (gt_refs_*): a shared object written against gputrace_ref.h, loaded with
 *      dlopen from exactly the path the user names, its table checked (ABI, every entry's fields,
 *      every tolerance's reason) before anything runs.
 *   2. The walk (gt_shadow_walk): streams a trace twice. The first pass reads the capture records
 *      (small) and the blob piece headers, and works out which buffer blobs the selected captures
 *      need and how many times; the second reassembles only those blobs, hands each selected
 *      capture to a visitor with its "before" and "after" copies, and frees a blob as soon as the
 *      last capture that needs it has been visited. Memory bound: at any time, the blobs whose
 *      first piece has been read and whose last capture has not yet been visited (the writer puts
 *      a chunk's blobs before its captures, so with the recorder's order this is the buffers of the
 *      captures of one chunk, usually one capture: its before and after copies), plus the one
 *      working copy of each allocation of the capture being replayed. The walk measures the peak and
 *      reports it (peak_bytes). A blob's buffer is never larger than the bytes its pieces actually
 *      hold in the file (checked in the first pass), so a hostile size cannot make it allocate.
 *   3. The check (gt_shadow_check): runs the reference on working copies of the "before" buffers
 *      and compares each declared output, from the kernel's pointer to the end of its allocation,
 *      with the "after" copy under the output's tolerance (compare.h); every byte of every captured
 *      allocation outside the declared outputs must be unchanged (exact). gt_shadow_run does the
 *      whole command: walk, check every launch, count verdicts.
 *
 * Verdicts: pass, fail (an output or other byte differs), error (the reference refused the launch,
 * or the trace lacks a buffer it promised), incomplete (a parameter's memory was not captured, so
 * the launch cannot be replayed), no reference. Only "pass" is a pass.
 */
#ifndef GT_SHADOW_H
#define GT_SHADOW_H

#include "analyze/shadow/compare.h"
#include "analyze/support/filter.h"
#include "traces/gputrace.h"
#include "analyze/shadow/gputrace_ref.h"
#include "analyze/support/kname.h"

#include <stddef.h>
#include <stdint.h>

/* ---- reference libraries ------------------------------------------------------------------- */
struct gt_refs {
	void *handle;                     /* dlopen handle; NULL for a table given in-process */
	const struct gt_ref_table *table;
	char *path;                       /* as the user gave it; NULL in-process */
};

/* Loads the library at path (made "./path" when it holds no '/', so that dlopen never searches the
 * library path), calls its gputrace_refs() and validates the table. 0, or a negative GT_ERR_* with
 * one line in err: "not a loadable library: ...", "has no gputrace_refs()", "ABI 2, this gpuanalyze
 * reads ABI 1", "reference 'saxpy': output 0 has a tolerance but no reason". */
int gt_refs_load(struct gt_refs **out, const char *path, char *err, size_t errlen);
/* The same checks on a table in this process (tests, and programs that link their references). */
int gt_refs_from_table(struct gt_refs **out, const struct gt_ref_table *t, char *err, size_t errlen);
void gt_refs_free(struct gt_refs *r);
/* The first reference whose kernel is the mangled name, the demangled name, or the demangled name's
 * base (gt_kernel_base_name); NULL when none. */
const struct gt_ref *gt_refs_find(const struct gt_refs *r, const char *mangled, const char *demangled);
/* gt_kernel_base_name (the name refs are matched by, and tables show): kname.h. */

/* ---- the walk ------------------------------------------------------------------------------ */
enum gt_shadow_status {
	GT_SHADOW_PASS = 0,
	GT_SHADOW_FAIL = 1,
	GT_SHADOW_ERROR = 2,
	GT_SHADOW_INCOMPLETE = 3,
	GT_SHADOW_NO_REF = 4,
};
#define GT_SHADOW_NSTATUS 5
const char *gt_shadow_status_name(int status); /* "pass", "fail", "error", "incomplete", "no reference" */

/* One parameter of a captured launch, as the walk resolved it. */
struct gt_shadow_param {
	struct gt_capture_param cp;      /* as captured */
	const uint8_t *value;            /* its cp.size raw bytes in the parameter buffer */
	int pointer;                     /* 1: a pointer whose allocation was captured before and after */
	uint64_t offset;                 /* pointer: kernel pointer - allocation base */
	int group;                       /* pointer: the lowest index of a parameter into the same allocation */
	const uint8_t *before, *after;   /* pointer: the whole allocation (cp.alloc_bytes bytes) */
};

struct gt_shadow_launch {
	struct gt_capture cap;
	const char *kernel;              /* mangled, as the trace names it */
	const char *demangled;
	const struct gt_ref *ref;        /* NULL: no reference */
	int ready;                       /* 1: can be replayed; else status and why say why not */
	int status;                      /* when not ready: GT_SHADOW_ERROR, _INCOMPLETE or _NO_REF */
	char why[256];
	uint32_t nparams;
	const struct gt_shadow_param *params;
};

struct gt_shadow_walk_info {
	uint64_t captures;               /* CAPTURE records in the trace */
	uint64_t selected;               /* of them, selected by the filter */
	uint64_t captures_dropped;       /* DROPPED records, reason "capture skipped": launches the
	                                  * recorder did not capture (caps, uncopyable memory) */
	uint64_t peak_bytes;             /* buffer memory held at once: blobs + one working copy */
	uint64_t blob_bytes_read;        /* bytes of the blobs reassembled */
	char *synthetic;                 /* META trace.synthetic when the trace says so, else NULL */
	char *recorded_on;               /* "NVIDIA H200 (cc 9.0); driver ...; CUDA runtime ...", from
	                                  * the trace's devices and metadata; NULL when it names none */
	int complete;                    /* the trace has its END record */
	uint64_t lost_bytes;
};
void gt_shadow_walk_info_release(struct gt_shadow_walk_info *w);

/* Return 0 to go on, a negative GT_ERR_* to stop the walk. */
typedef int (*gt_shadow_visit_fn)(void *ctx, const struct gt_shadow_launch *l);

/* Walks the trace at path, calling fn for every capture the filter selects (NULL: all), in file
 * order. 0; a negative GT_ERR_* with the failure held in the analyzer's words (failure.h, load.h):
 * a trace it cannot read or memory running out; or the visitor's own negative error, nothing held
 * (the caller says it). */
int gt_shadow_walk(const char *path, const struct gt_refs *refs, const struct gt_name_filter *filter,
                   gt_shadow_visit_fn fn, void *ctx, struct gt_shadow_walk_info *info);

/* ---- running a reference on working copies -------------------------------------------------- */
struct gt_shadow_call {
	struct gt_ref_call call;
	const struct gt_shadow_launch *launch;
	struct gt_ref_param *params;
	uint8_t **base;                  /* per parameter: its allocation's working copy (shared) */
	uint64_t bytes;                  /* bytes of the working copies together */
	int stopped;                     /* the last run was stopped (its cap, or a signal): the
	                                  * message says why */
};

/* A reference runs in a child process on working copies it shares with the analyzer, under a cap
 * on its CPU time: GT_SHADOW_CPU_BASE_S seconds plus one per GT_SHADOW_CPU_PER_BYTES of the
 * launch's working copies (a reference's work may grow faster than its input: the composite of
 * splats that each cover the whole image is pixels x splats), or GPUTRACE_SHADOW_CPU seconds when
 * that holds a whole number from 1 to 86400. A reference past its cap, or one that dies of a
 * signal, is stopped and the launch is an error that says so; the analyzer goes on. */
#define GT_SHADOW_CPU_BASE_S 10u
#define GT_SHADOW_CPU_PER_BYTES (1u << 20)
/* Working copies of every captured allocation from the "before" buffers, and call filled. 0 or
 * GT_ERR_NOMEM. The launch must be ready. */
int gt_shadow_call_init(struct gt_shadow_call *c, const struct gt_shadow_launch *l);
/* Back to the "before" state (for another evaluation order), the call rebuilt. */
void gt_shadow_call_reset(struct gt_shadow_call *c);
/* Runs ref's run function (order < 0) or its evaluation order `order` on c->call, in a child
 * process under the cap above; what it returns, or -1 with c->stopped set and c->call.message
 * saying why when it was stopped. */
int gt_shadow_call_run(struct gt_shadow_call *c, const struct gt_ref *ref, int order);
void gt_shadow_call_release(struct gt_shadow_call *c);

/* ---- the check ----------------------------------------------------------------------------- */
struct gt_shadow_output {
	unsigned param;
	const struct gt_ref_output *decl;
	struct gt_compare_result cmp;
};

/* Bytes of one captured allocation that no declared output covers: they must be unchanged. */
struct gt_shadow_other {
	unsigned param;                  /* the first parameter pointing into the allocation */
	uint64_t bytes;                  /* bytes compared exactly */
	uint64_t differing;
	uint64_t first;                  /* byte offset in the allocation of the first difference */
};

struct gt_shadow_result {
	uint64_t capture_id;
	uint32_t launch_index;
	char *kernel, *demangled;
	const struct gt_ref *ref;
	uint32_t grid[3], block[3], dynamic_smem;
	int status;                      /* enum gt_shadow_status */
	char why[300];                   /* error, incomplete, fail: one line */
	unsigned noutputs;
	struct gt_shadow_output *outputs;
	unsigned nother;
	struct gt_shadow_other *other;
};

/* Runs l's reference and compares, or records why l cannot be replayed. 0 or GT_ERR_NOMEM. */
int gt_shadow_check(const struct gt_shadow_launch *l, struct gt_shadow_result *res);
void gt_shadow_result_release(struct gt_shadow_result *res);

struct gt_shadow_report {
	struct gt_shadow_result *launches;
	size_t n, cap;
	uint64_t count[GT_SHADOW_NSTATUS];
	struct gt_shadow_walk_info info;
};
/* The whole of `gpuanalyze shadow`: 0 (rep filled; the caller releases it), a negative GT_ERR_*
 * with the failure held (failure.h: an unreadable trace), or GT_ERR_NOMEM. */
int gt_shadow_run(const char *path, const struct gt_refs *refs, const struct gt_name_filter *filter,
                  struct gt_shadow_report *rep);
void gt_shadow_report_release(struct gt_shadow_report *rep);
/* 1 when every launch of the report passed and there is at least one. */
int gt_shadow_all_passed(const struct gt_shadow_report *rep);

#endif

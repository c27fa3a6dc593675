/* gputrace_ref.h: the interface through which a user writes CPU references for shadow replay.
 *
 * `gpuanalyze shadow TRACE --ref refs.so` replays every captured kernel launch of a trace on a CPU
 * reference and compares the reference's outputs with what the GPU wrote. A reference library is a
 * shared object, built against this header alone, that exports one function:
 *
 *     GT_REF_EXPORT const struct gt_ref_table *gputrace_refs(void);
 *
 * The table lists references. Each names the kernel it shadows, gives a run function, and declares
 * every output parameter with its element type and tolerance, and the reason for that tolerance.
 * For each captured launch, gpuanalyze builds a struct gt_ref_call: the launch configuration, the
 * scalar parameters as their raw bytes, and every pointer parameter as a host copy of the whole
 * device allocation it pointed into, taken just before the launch ("before" copy), with the pointer
 * at the same offset into the copy as the kernel's pointer into the allocation. The run function
 * computes in those copies what the kernel should have written; gpuanalyze then compares each
 * declared output, from the pointer to the end of its allocation, with the copy taken after the
 * launch, and every other byte of every allocation exactly. A reference leaves what the kernel must
 * not write as it found it, so a write past the end of the data shows up.
 *
 * Rules for references (gputrace-ref(3) has the full text and an example):
 *   - Compute in double where the kernel computes in float, unless the kernel's evaluation order is
 *     part of its contract (then follow that order exactly and declare a tolerance of 0).
 *   - A tolerance is a claim: pass when |g - r| <= abs OR |g - r| <= rel * max(|g|, |r|) OR the ULP
 *     distance <= ulps. A criterion set to 0 is off (equal values always pass). NaN never matches,
 *     not even NaN; +0 equals -0; an infinity matches only the same infinity. Integer outputs are
 *     compared exactly (their tolerance must be all zero). An element the reference leaves
 *     bit-identical to its "before" copy is memory the kernel must not write: it also passes when
 *     the GPU left it bit-identical (so NaN poison passes where the kernel does not write).
 *   - `reason` says where the tolerance comes from: the algorithm's error bound and the measured
 *     spread ("tree of 512 values per block; measured worst 9 ULP x 4"). gpuanalyze prints it.
 *   - Validate every scalar against the buffers before indexing (gt_ref_ptr does the arithmetic):
 *     captures are data, and a trace may come from anywhere.
 *   - A reference may offer alternative legal evaluation orders (a float sum in another order, a
 *     build with or without fused multiply-add): `gpuanalyze calibrate` measures how far correct
 *     results spread from the reference and proposes a tolerance from it.
 *
 * The interface is versioned by GT_REF_ABI: gpuanalyze refuses a table whose abi differs from its own.
 * Structs are only ever extended at the end in a new ABI version. Plain C99; usable from C++.
 */
#ifndef GPUTRACE_REF_H
#define GPUTRACE_REF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GT_REF_ABI 1
#define GT_REF_SYMBOL "gputrace_refs" /* the one symbol gpuanalyze looks up */

/* Marks the entry point visible even when the library is built with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define GT_REF_EXPORT __attribute__((visibility("default")))
#else
#define GT_REF_EXPORT
#endif

/* Element types of outputs. Floats are compared by the tolerance, integers exactly. */
enum gt_ref_type {
	GT_REF_F32 = 1,
	GT_REF_F64 = 2,
	GT_REF_I8 = 3,
	GT_REF_U8 = 4,
	GT_REF_I16 = 5,
	GT_REF_U16 = 6,
	GT_REF_I32 = 7,
	GT_REF_U32 = 8,
	GT_REF_I64 = 9,
	GT_REF_U64 = 10,
};

/* Pass when any criterion that is on (non-zero) holds; with all three 0 only equal values pass. */
struct gt_ref_tol {
	double abs;    /* |g - r| <= abs */
	double rel;    /* |g - r| <= rel * max(|g|, |r|) */
	uint64_t ulps; /* ULP distance of g and r in the element type <= ulps */
};

/* One output: a pointer parameter the kernel writes. */
struct gt_ref_output {
	unsigned param;         /* 0-based index of the parameter */
	enum gt_ref_type type;  /* element type of the data it points to */
	struct gt_ref_tol tol;
	const char *name;       /* the parameter's name in the kernel's source, for reports ("y") */
	const char *reason;     /* where the tolerance comes from; required when any criterion is on */
};

enum gt_ref_param_kind {
	GT_REF_PARAM_SCALAR = 1,  /* value/size only (also an 8-byte value that is no device address,
	                           * and a by-value struct, whose inner pointers are not followed) */
	GT_REF_PARAM_POINTER = 2, /* data/bytes/offset describe the host copy of its allocation */
};

struct gt_ref_param {
	int kind;               /* enum gt_ref_param_kind */
	uint32_t size;          /* bytes of the parameter in the kernel's parameter buffer */
	const void *value;      /* its raw bytes as launched (for a pointer: the device address) */
	void *data;             /* pointer: the host copy at the kernel pointer's offset; else NULL */
	uint64_t bytes;         /* pointer: bytes from data to the end of the allocation */
	uint64_t offset;        /* pointer: bytes from the allocation's start to data; the whole range
	                         * [data - offset, data + bytes) is readable and writable */
};

/* What a run function receives for one captured launch. */
struct gt_ref_call {
	uint32_t abi;           /* the analyzer's GT_REF_ABI */
	const char *kernel;     /* the kernel's name as captured (mangled) */
	uint64_t capture_id;    /* the capture's id in the trace */
	uint32_t launch_index;  /* which launch of this kernel it was (0-based) */
	uint32_t grid[3], block[3], cluster[3];
	uint32_t dynamic_smem;  /* bytes of dynamic shared memory per block */
	unsigned nparams;
	struct gt_ref_param *params;
	char message[256];      /* why the run function refused the launch (see gt_ref_fail) */
};

/* A reference for one kernel. */
struct gt_ref {
	const char *kernel;       /* the mangled name, the demangled name, or the demangled name
	                           * without its parameter list and return type ("saxpy", "ns::f<int>") */
	const char *description;  /* one line: what the reference computes and how */
	unsigned nparams;         /* the parameter count the kernel has; 0: not checked */
	/* Computes the outputs in place from the "before" copies. 0, or non-zero after gt_ref_fail()
	 * when the launch is outside what the reference supports (reported as an error, never a pass). */
	int (*run)(struct gt_ref_call *call);
	const struct gt_ref_output *outputs;
	unsigned noutputs;
	/* Optional, for `gpuanalyze calibrate`: norders alternative evaluations that are as correct as
	 * the GPU's (other summation orders, FMA contraction or not), each computed in the kernel's own
	 * precision, into fresh "before" copies like run. order_names[k] says what order k is. */
	unsigned norders;
	const char *const *order_names;
	int (*order)(struct gt_ref_call *call, unsigned k);
};

/* What gputrace_refs() returns. */
struct gt_ref_table {
	uint32_t abi;             /* GT_REF_ABI as the library was built */
	uint32_t ref_size;        /* sizeof(struct gt_ref) as the library was built */
	const char *name;         /* the library's name, for reports */
	unsigned count;
	const struct gt_ref *refs;
};

typedef const struct gt_ref_table *(*gt_ref_entry_fn)(void);

/* ---- helpers for run functions ---------------------------------------------------------------- */

/* Writes the reason for refusing a launch into call->message; returns -1 for `return gt_ref_fail(...)`. */
#if defined(__GNUC__) || defined(__clang__)
static inline int gt_ref_fail(struct gt_ref_call *call, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#endif
static inline int gt_ref_fail(struct gt_ref_call *call, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(call->message, sizeof call->message, fmt, ap);
	va_end(ap);
	return -1;
}

/* Copies scalar parameter i (exactly size bytes) into out: 0, or -1 when there is no such scalar. */
static inline int gt_ref_scalar(const struct gt_ref_call *call, unsigned i, void *out, size_t size)
{
	if (i >= call->nparams || call->params[i].kind != GT_REF_PARAM_SCALAR ||
	    call->params[i].size != size || !call->params[i].value)
		return -1;
	memcpy(out, call->params[i].value, size);
	return 0;
}
static inline int gt_ref_i32(const struct gt_ref_call *c, unsigned i, int32_t *v) { return gt_ref_scalar(c, i, v, 4); }
static inline int gt_ref_u32(const struct gt_ref_call *c, unsigned i, uint32_t *v) { return gt_ref_scalar(c, i, v, 4); }
static inline int gt_ref_i64(const struct gt_ref_call *c, unsigned i, int64_t *v) { return gt_ref_scalar(c, i, v, 8); }
static inline int gt_ref_u64(const struct gt_ref_call *c, unsigned i, uint64_t *v) { return gt_ref_scalar(c, i, v, 8); }
static inline int gt_ref_f32(const struct gt_ref_call *c, unsigned i, float *v) { return gt_ref_scalar(c, i, v, 4); }
static inline int gt_ref_f64(const struct gt_ref_call *c, unsigned i, double *v) { return gt_ref_scalar(c, i, v, 8); }

/* The host copy behind pointer parameter i when it holds at least count elements of elem bytes from
 * the pointer on (the product is checked for overflow) and is aligned for them (to the largest power
 * of two, at most 16, that divides elem: a pointer the GPU could not have loaded elements through
 * comes only from a damaged or forged trace, and reading through it would be undefined in C); NULL
 * otherwise. */
static inline void *gt_ref_ptr(const struct gt_ref_call *call, unsigned i, size_t elem, uint64_t count)
{
	if (i >= call->nparams || call->params[i].kind != GT_REF_PARAM_POINTER || !call->params[i].data)
		return NULL;
	if (elem && count > call->params[i].bytes / elem)
		return NULL;
	size_t align = elem & (~elem + 1);
	if (align > 16 || !align)
		align = 16;
	if (elem && (uintptr_t)call->params[i].data % align)
		return NULL;
	return call->params[i].data;
}

#ifdef __cplusplus
}
#endif
#endif /* GPUTRACE_REF_H */

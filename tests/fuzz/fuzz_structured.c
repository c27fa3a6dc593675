/* fuzz_structured.c: structure-aware fuzzing of gpuanalyze.
 *
 * The byte-level targets (fuzz_analyze_*.c) mutate compressed, checksummed files, so few of their
 * inputs get past the reader into the analyses. Here the input is a small program instead: each
 * opcode byte and its fixed number of argument bytes become one record (or a few), written through
 * the public writer API into a memfd, so every input is a VALID trace and every mutated byte is a
 * mutated record field. The analyses then run in-process on it, as the fuzz_analyze_* targets run
 * them: one target per execution, chosen by the description's first byte, among the 13 engines
 * (what a subcommand computes, and the capture loader of `gputrace replay`) and 28 subcommands in one of their formats (what they print). One
 * target rather than all of them: an execution costs a tenth, so a campaign runs ten times as many
 * descriptions, and the mutated selector byte lets coverage steer towards the targets still
 * finding something. FUZZ_STRUCTURED_ALL=1 runs every engine and one subcommand on each input
 * instead (run_all.sh --regress, so each known input meets every target). At exit the target
 * prints its executions per target.
 *
 * The description: byte 0 chooses variants (bits 0-3 and 6-7: the target, mod 41; bit 4: rank 0's
 * writer is abandoned after a flush, no END record, as a crashed recorder leaves it; bit 5: small
 * chunks, so a trace spans several), then opcodes until the input ends. An opcode is op % OP_COUNT,
 * then the argument bytes listed in op_args[] (missing bytes at the input's end read as 0). Time is
 * a cursor that only advances by deltas (OP_TIME, and each record's own "after" byte); a record may
 * start before the cursor by a signed delta, so records reach the writer out of time order and the
 * analyses' sorting runs. Names are indices into a table of hostile names compiled in (long and
 * deeply nested mangled names, names that do not demangle, control bytes, invalid UTF-8, Markdown,
 * CSV, HTML and spreadsheet metacharacters) plus up to 8 raw strings taken from the input
 * (OP_STRING). OP_RANK switches between two writers: rank 0 and rank 1, the two traces diff and
 * ranks compare (when rank 1 holds nothing, rank 0 is compared with itself). At most MAX_OPS opcodes
 * per input (a bounded cost per execution); OP_REPEAT may write up to 64 kernels at once.
 *
 * shadow and calibrate run with a hostile reference library, tests/fuzz/hostile_refs.c, loaded as
 * `--ref` loads one (run_all.sh builds it beside the target; FUZZ_REFS names another): its strings
 * reach every report format, and its run functions misbehave in the ways that file lists, chosen by
 * each capture's launch index.
 *
 * LLVMFuzzerCustomMutator: half of the time it inserts, deletes or duplicates whole opcodes (so
 * that a record is never cut in half by a mutation) or, one time in eight, hands the same trace to
 * another target; otherwise it leaves the bytes to libFuzzer's own mutator, which then changes
 * fields.
 *
 * A finding as a trace: with FUZZ_STRUCTURED_WRITE=PATH set, each input given on the command line is
 * turned into PATH (rank 0) and, if rank 1 holds records, PATH-rank1, and nothing is analysed; that
 * is how a crashing description becomes a file of tests/data/bad/.
 *
 * FUZZ_LIBS: libgtanalyze.a libgttrace.a -lsqlite3 -ldl
 */
#include "tests/fuzz/fuzz_analyze.h"

#include "analyze/engines/bandwidth.h"
#include "analyze/blocks/metric_roles.h"
#include "analyze/engines/ceiling.h"
#include "analyze/shadow/calibrate.h"
#include "analyze/engines/diff.h"
#include "analyze/export/export.h"
#include "traces/schema.h"
#include "analyze/engines/findings.h"
#include "analyze/engines/info.h"
#include "analyze/support/load.h"
#include "analyze/engines/ranks.h"
#include "analyze/commands/report_doc.h"
#include "analyze/engines/report.h"
#include "analyze/shadow/shadow.h"
#include "analyze/engines/split.h"
#include "analyze/engines/stats_reports.h"
#include "analyze/engines/stats_nsys.h"
#include "analyze/engines/summary.h"
#include "traces/capture_set.h"

#include <math.h>
#include <fcntl.h>

#define MAX_OPS 2000
#define T0 1000000000ull /* the process starts 1 s into the CUPTI clock */

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* ---- the hostile names ---------------------------------------------------------------------- */
static const char *const fixed_names[] = {
	"_Z6kernelPf",
	"_Z5saxpyifPKfPf",
	"_Z6splat3PK6float4PS_i",
	"_ZN4core6detail7kernels5splatILi16ELb1EEEvPK6float4PS3_i",
	"_ZN3foo3barIN3baz3quxIN4deep4moreIiEEEEEEvv",
	"_ZN1a1b1c1d1e1f1g1h1i1j1k1l1m1n1o1p1q1r1s1t", /* nested components, no E: does not demangle */
	"_ZN", "_Z", "_ZL", "_ZZ", "_ZNK", "_ZSt", "_Z1", "_Z999999999x", "_ZTV", "_Z1fIS_S_S_EvT_",
	"_Z1fIiEvT_S0_S1_S2_", "_ZZ4mainENK3$_0clEv", "_Z3fooILi1EEvv.cold.1", "__nv_static_51__kernel",
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclKernel_AllGather_RING_LL_Sum_int8_t", "step",
	"render_frame", "upload", "forward", "backward", "k1", "k2", "",
	"k\x01\x02\x1b[31mred\x1b[0m", "tab\there", "cr\rret", "name\n## Correctness\n\nall passed",
	"| a | b |\n|---|---|", "\xff\xfe", "\xc3\x28", "\xed\xa0\x80", "\xc0\xaf", "\xe2\x82",
	"ядро_κ", "rocket \xf0\x9f\x9a\x80", "=cmd|' /C calc'!A0", "+SUM(1,2)", "-2+3", "@x",
	"<script>alert(1)</script>", "a,b\"c\"", "\"quoted\"", "'", "&amp;<>&", "```\ncode", "*bold*_x_",
	"[link](javascript:x)", "![img](x)", "\\", "%s%n%x%p", "\"}]}", "\xe2\x80\xa8", "a\x7f\x62",
	"cudaLaunchKernel", "cuLaunchKernel", "cudaMemcpyAsync", "cudaMemcpy", "cudaDeviceSynchronize",
	"cudaStreamSynchronize", "cudaMalloc", "cudaFree", "cudaGraphLaunch", "cudaEventSynchronize",
	"cudaMemsetAsync", "cudaLaunchCooperativeKernel", "cuMemcpyHtoDAsync_v2", "ncclAllReduce",
};
#define NFIXED (sizeof fixed_names / sizeof fixed_names[0])
#define NBUILT 6 /* names made at start-up: too long or too repetitive to write out */
#define NRAW 8   /* raw strings from the input */

static char *built_names[NBUILT];

/* A string of n copies of unit between head and tail. */
static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * n + tl + 1);
	if (!s)
		fa_die("malloc");
	memcpy(s, head, hl);
	for (size_t i = 0; i < n; i++)
		memcpy(s + hl + ul * i, unit, ul);
	memcpy(s + hl + ul * n, tail, tl + 1);
	return s;
}

static void build_names(void)
{
	built_names[0] = repeat("_Z", "A", 5000, "v");                  /* long, not a valid name */
	built_names[1] = repeat("_ZN", "3foo", 400, "Ev");               /* 400 nested components */
	built_names[2] = repeat("_Z1fI", "N1aI", 60, "iEE");             /* deep templates, unclosed */
	built_names[3] = repeat("_Z1f", "S_", 300, "v");                 /* substitutions, many */
	built_names[4] = repeat("", "x", 70000, "");                     /* past most line buffers */
	built_names[5] = repeat("_ZN5outer", "IN5innerIiEE", 40, "Ev"); /* nested templates */
}

/* ---- the description ------------------------------------------------------------------------ */
enum op {
	OP_KERNEL,    /* name, stream, back, dur lo, dur hi, corr mode, misc, after */
	OP_API,       /* name, thread, dur, ret, corr mode, after */
	OP_PUSH,      /* name, thread, color, after */
	OP_POP,       /* thread, after */
	OP_RANGE,     /* kind, name, thread, back, dur, after */
	OP_SYNC,      /* kind, stream, dur, after */
	OP_MEMCPY,    /* kind, bytes exp, bytes mantissa, stream, dur, flags, after */
	OP_MEMSET,    /* bytes exp, stream, dur, kind, after */
	OP_PROCESS,   /* event, status, after */
	OP_CAPTURE,   /* name, nparams, size, flags */
	OP_DEVICE,    /* id, name, sm, clocks, pcie */
	OP_META,      /* key, value */
	OP_TIME,      /* lo, hi, shift */
	OP_RANK,      /* which */
	OP_STRING,    /* slot, len, then len raw bytes */
	OP_DROPPED,   /* reason, count, stream */
	OP_MEMORY,    /* op, kind, bytes exp, after */
	OP_CLOCK,     /* what, a, b */
	OP_GRAPH,     /* graph, nkernels, name, stream, dur */
	OP_FLUSH,     /* (none) */
	OP_OVERHEAD,  /* kind, dur, after */
	OP_REPEAT,    /* count, jitter */
	OP_METRIC,    /* which, name, value lo, value hi, dur, after */
	OP_COUNT
};
static const uint8_t op_args[OP_COUNT] = { 8, 6, 4, 2, 6, 4, 7, 5, 3, 4, 5, 2, 3, 1, 2, 3, 4, 3, 5, 0, 3, 2, 6 };

struct cursor {
	const uint8_t *p, *end;
};

static uint8_t arg(struct cursor *c)
{
	return c->p < c->end ? *c->p++ : 0;
}

struct rank {
	struct gt_writer *w;
	uint64_t t;              /* the time cursor */
	uint32_t corr;           /* the last correlation id handed out */
	uint32_t nrecords;
	int abandon;
	uint64_t stack_start[4][16]; /* open push/pop ranges per thread */
	uint32_t stack_name[4][16];
	uint32_t depth[4];
	struct gt_kernel last;   /* what OP_REPEAT repeats */
	int have_last;
	uint64_t blobs;
};

struct desc {
	struct rank r[2];
	int cur;
	const char *raw[NRAW];   /* raw strings from the input (not NUL-terminated) */
	size_t rawlen[NRAW];
};

/* The name of index i: fixed, built or raw. Raw slots not yet filled give the empty name. */
static uint32_t name_id(struct desc *d, uint8_t i)
{
	struct gt_writer *w = d->r[d->cur].w;
	unsigned n = i % (NFIXED + NBUILT + NRAW);
	if (n < NFIXED)
		return gt_writer_intern(w, fixed_names[n]);
	n -= NFIXED;
	if (n < NBUILT)
		return gt_writer_intern(w, built_names[n]);
	n -= NBUILT;
	return d->raw[n] ? gt_writer_intern_n(w, d->raw[n], d->rawlen[n]) : 0;
}

static const char *name_str(uint8_t i)
{
	unsigned n = i % (NFIXED + NBUILT);
	return n < NFIXED ? fixed_names[n] : built_names[n - NFIXED];
}

/* Streams: a few small ids, the legacy stream 0 and the "not one stream" id. */
static uint32_t stream_of(uint8_t b)
{
	switch (b >> 5) {
	case 6: return 0;
	case 7: return b & 1 ? 0xffffffffu : 0x7fffffffu;
	default: return 7 + (b & 7);
	}
}

/* A start before the cursor: the signed byte times 64 ns (records out of order). */
static uint64_t start_at(struct rank *r, uint8_t back)
{
	int64_t off = (int64_t)(int8_t)back * 64;
	return (off < 0 && (uint64_t)-off > r->t) ? 0 : (uint64_t)((int64_t)r->t + off);
}

/* Correlation: 0..1 a new id (the common case), 2 the last one again (a pair), 3 none, else raw. */
static uint32_t corr_of(struct rank *r, uint8_t mode)
{
	switch (mode & 7) {
	case 2: return r->corr;
	case 3: return 0;
	case 4: return mode; /* an id another record may already hold */
	default: return ++r->corr;
	}
}

static void advance(struct rank *r, uint8_t after)
{
	r->t += (uint64_t)after * 16;
}

static void add(struct rank *r, int type, const void *rec)
{
	if (gt_writer_add(r->w, type, rec) == 0)
		r->nrecords++;
}

static void op_kernel(struct desc *d, struct rank *r, struct cursor *c)
{
	uint8_t name = arg(c), stream = arg(c), back = arg(c), dlo = arg(c), dhi = arg(c), cm = arg(c),
		misc = arg(c), after = arg(c);
	struct gt_kernel k = { .name_id = name_id(d, name), .stream_id = stream_of(stream), .context_id = 1,
		.device_id = misc >> 6, .grid_x = 1u + (misc & 15u) * 97u, .grid_y = 1, .grid_z = 1,
		.block_x = 32u << (misc >> 4 & 3), .block_y = 1, .block_z = 1, .registers = 32 };
	k.start = start_at(r, back);
	uint64_t dur = (uint64_t)dlo | (uint64_t)dhi << 8;
	/* The top bit of dur hi: a long kernel (the low 15 bits shifted to micro- to milliseconds). */
	if (dhi & 0x80)
		dur = (dur & 0x7fff) << 10;
	k.end = k.start + dur;
	k.correlation_id = corr_of(r, cm);
	if (cm & 0x10) { /* measured launch latency */
		k.flags |= GT_KERNEL_HAS_QUEUED;
		k.queued = k.start > 900 ? k.start - 900 : 0;
		k.submitted = k.start > 300 ? k.start - 300 : 0;
	}
	if (cm & 0x20)
		k.flags |= GT_KERNEL_COOPERATIVE;
	if (cm & 0x40) /* end before start, as CUPTI sometimes gives */
		k.end = k.start > dur ? k.start - dur : 0, k.flags |= GT_KERNEL_BAD_TIMES;
	if ((cm & 0x80) && cm & 1) { /* the launch call too, ending before the kernel starts */
		struct gt_api a = { .start = k.start > 2000 ? k.start - 2000 : 0, .end = k.start > 1000 ? k.start - 1000 : 0,
			.thread_id = 77, .name_id = gt_writer_intern(r->w, "cudaLaunchKernel"),
			.correlation_id = k.correlation_id, .cbid = 211, .process_id = 4242, .domain = GT_API_RUNTIME };
		add(r, GT_REC_API, &a);
	}
	add(r, GT_REC_KERNEL, &k);
	r->last = k;
	r->have_last = 1;
	advance(r, after);
}

static void op_api(struct desc *d, struct rank *r, struct cursor *c)
{
	uint8_t name = arg(c), thread = arg(c), dur = arg(c), ret = arg(c), cm = arg(c), after = arg(c);
	struct gt_api a = { .start = r->t, .end = r->t + (uint64_t)dur * 32, .thread_id = 77 + (thread & 3),
		.name_id = name_id(d, name), .correlation_id = corr_of(r, cm), .cbid = ret >> 1,
		.process_id = 4242, .return_value = (ret & 1) ? ret : 0,
		.domain = (thread & 0x80) ? GT_API_DRIVER : GT_API_RUNTIME };
	add(r, GT_REC_API, &a);
	advance(r, after);
}

static void op_push(struct desc *d, struct rank *r, struct cursor *c)
{
	uint8_t name = arg(c), thread = arg(c), color = arg(c), after = arg(c);
	unsigned th = thread & 3;
	(void)color;
	if (r->depth[th] < 16) {
		r->stack_start[th][r->depth[th]] = r->t;
		r->stack_name[th][r->depth[th]] = name_id(d, name);
		r->depth[th]++;
	}
	advance(r, after);
}

/* A push/pop range is written when it closes, innermost first, as the recorder writes them. */
static void pop(struct rank *r, unsigned th, uint32_t color)
{
	if (!r->depth[th])
		return;
	r->depth[th]--;
	struct gt_nvtx n = { .start = r->stack_start[th][r->depth[th]], .end = r->t,
		.name_id = r->stack_name[th][r->depth[th]], .thread_id = 4242 + th, .depth = r->depth[th],
		.color = color, .kind = GT_NVTX_PUSH_POP };
	add(r, GT_REC_NVTX, &n);
}

static void op_pop(struct rank *r, struct cursor *c)
{
	uint8_t thread = arg(c), after = arg(c);
	pop(r, thread & 3, thread & 0x80 ? 0xff00ff00u : 0);
	advance(r, after);
}

static void op_range(struct desc *d, struct rank *r, struct cursor *c)
{
	uint8_t kind = arg(c), name = arg(c), thread = arg(c), back = arg(c), dur = arg(c), after = arg(c);
	struct gt_nvtx n = { .name_id = name_id(d, name), .thread_id = 4242 + (thread & 7),
		.depth = thread >> 5, .kind = (uint8_t)(1 + kind % 3), .range_id = kind };
	n.start = start_at(r, back);
	n.end = n.kind == GT_NVTX_MARK ? n.start : (kind & 0x80) ? 0 : n.start + (uint64_t)dur * 64;
	if (kind & 0x40)
		n.domain_id = name_id(d, (uint8_t)(name + 1));
	add(r, GT_REC_NVTX, &n);
	advance(r, after);
}

static void op_sync(struct rank *r, struct cursor *c)
{
	uint8_t kind = arg(c), stream = arg(c), dur = arg(c), after = arg(c);
	struct gt_sync s = { .start = r->t, .end = r->t + (uint64_t)dur * 128, .correlation_id = corr_of(r, kind >> 3),
		.context_id = 1, .stream_id = stream_of(stream), .event_id = kind >> 4, .kind = kind % 5 };
	add(r, GT_REC_SYNC, &s);
	advance(r, after);
}

static void op_memcpy(struct rank *r, struct cursor *c)
{
	uint8_t kind = arg(c), bexp = arg(c), bman = arg(c), stream = arg(c), dur = arg(c), flags = arg(c),
		after = arg(c);
	static const uint8_t kinds[][2] = { { GT_MEM_PAGEABLE, GT_MEM_DEVICE }, { GT_MEM_PINNED, GT_MEM_DEVICE },
		{ GT_MEM_DEVICE, GT_MEM_PINNED }, { GT_MEM_DEVICE, GT_MEM_DEVICE }, { GT_MEM_MANAGED, GT_MEM_DEVICE },
		{ GT_MEM_UNKNOWN, GT_MEM_ARRAY }, { GT_MEM_DEVICE, GT_MEM_PAGEABLE }, { 9, 200 } };
	struct gt_memcpy m = { .start = r->t, .bytes = (uint64_t)bman << (bexp % 48), .correlation_id = corr_of(r, flags >> 4),
		.device_id = flags >> 6, .dst_device_id = (flags & 8) ? 3 : flags >> 6, .context_id = 1,
		.stream_id = stream_of(stream), .copy_kind = kind % 12, .src_kind = kinds[kind >> 5][0],
		.dst_kind = kinds[kind >> 5][1], .flags = flags & 3 };
	/* dur 0: a zero-length copy (bandwidth divides by it); else up to about 2 s. */
	m.end = m.start + ((uint64_t)dur << (dur & 15));
	add(r, GT_REC_MEMCPY, &m);
	advance(r, after);
}

static void op_memset(struct rank *r, struct cursor *c)
{
	uint8_t bexp = arg(c), stream = arg(c), dur = arg(c), kind = arg(c), after = arg(c);
	struct gt_memset m = { .start = r->t, .end = r->t + (uint64_t)dur * 50, .bytes = 1ull << (bexp % 40),
		.correlation_id = corr_of(r, kind >> 3), .context_id = 1, .stream_id = stream_of(stream),
		.value = kind, .mem_kind = kind % 8, .flags = kind & 1 };
	add(r, GT_REC_MEMSET, &m);
	advance(r, after);
}

static void op_process(struct rank *r, struct cursor *c)
{
	uint8_t event = arg(c), status = arg(c), after = arg(c);
	struct gt_process p = { .timestamp = (event & 0x80) ? 0 : r->t, .host_ns = 1700000000000000000ull + r->t,
		.pid = 4242 + (event >> 4 & 3), .event = 1 + event % 8, .status = (int8_t)status };
	add(r, GT_REC_PROCESS, &p);
	advance(r, after);
}

/* A capture of a kernel launch with nparams parameters, pointer ones with blobs of size bytes. */
static void op_capture(struct desc *d, struct rank *r, struct cursor *c)
{
	uint8_t name = arg(c), nparams = arg(c), size = arg(c), flags = arg(c);
	unsigned np = nparams % 5;
	struct gt_capture_param p[4];
	uint8_t args[32];
	memset(args, 0xa5, sizeof args);
	memset(p, 0, sizeof p);
	/* At most 8 blobs per trace, so that the blob bytes stay small. */
	for (unsigned i = 0; i < np; i++) {
		p[i].offset = 8 * i;
		p[i].size = (nparams & 0x80) && !(size & 0x80) && i == 0 ? 4 : 8; /* a 4-byte "pointer" */
		p[i].kind = (nparams >> (4 + (i & 3)) & 1) ? GT_PARAM_POINTER : GT_PARAM_SCALAR;
		/* The last entry may be a pointer found inside a struct (kind 3, after the declared ones). */
		if (p[i].kind == GT_PARAM_POINTER && i + 1 == np && (size & 0x20))
			p[i].kind = GT_PARAM_INNER_POINTER;
		p[i].status = (flags >> 5) % 7; /* up to GT_PARAM_STRUCT_SCANNED */
		if (GT_PARAM_IS_POINTER(p[i].kind) && r->blobs < 8) {
			uint8_t buf[256];
			memset(buf, size, sizeof buf);
			int64_t b = gt_writer_blob(r->w, GT_BLOB_BUFFER, buf, size);
			r->blobs++;
			p[i].alloc_base = 0x7f0000000000ull + 0x100000ull * i;
			p[i].alloc_bytes = size;
			p[i].before_blob = b > 0 ? (uint64_t)b : 0;
			p[i].after_blob = (flags & 1) ? p[i].before_blob : 999;
			/* The launched value points into the allocation (at 4 * i bytes, past its end when
			 * it is that small), unless size's bit 6 leaves the 0xa5 pattern: a wild pointer. */
			if (!(size & 0x40) && p[i].size == 8) {
				uint64_t ptr = p[i].alloc_base + 4 * i;
				memcpy(args + 8 * i, &ptr, 8);
			}
		}
	}
	struct gt_capture cap = { .capture_id = ++r->blobs, .timestamp = r->t, .name_id = name_id(d, name),
		.correlation_id = r->corr, .stream_id = 7, .grid = { 1, 1, 1 }, .block = { 64, 1, 1 },
		.nparams = np, .param_bytes = 8 * np, .flags = flags & 0x1f,
		.launch_index = (flags >> 5) + (size >> 4) /* apart from the status: it picks hostile_refs.c's behaviour */ };
	uint8_t *rec;
	size_t len;
	if (gt_capture_encode(&cap, p, args, &rec, &len) == 0) {
		if (gt_writer_add_var(r->w, GT_REC_CAPTURE, rec, len) == 0)
			r->nrecords++;
		free(rec);
	}
}

static void op_device(struct rank *r, struct cursor *c)
{
	uint8_t id = arg(c), name = arg(c), sm = arg(c), clocks = arg(c), pcie = arg(c);
	struct gt_device dev = { .device_id = id % 5, .sm_count = sm, .cc_major = 9, .cc_minor = id >> 5,
		.global_mem_bytes = (uint64_t)clocks << 30, .sm_clock_khz = clocks * 8000u,
		.mem_clock_khz = (clocks & 0xf0) * 10000u, .mem_bus_width_bits = (pcie & 0x80) ? 5120 : 0,
		.pcie_gen = pcie & 7, .pcie_width = 1u << (pcie >> 3 & 7), .pcie_gen_current = (pcie >> 6) & 1 ? 4 : 0,
		.pcie_width_current = 16, .l2_bytes = 50u << 20, .max_threads_per_sm = 2048 };
	memset(dev.uuid, id, sizeof dev.uuid);
	if (name == 0)
		gt_writer_device(r->w, &dev, "NVIDIA H200");
	else
		gt_writer_device(r->w, &dev, name_str(name));
	r->nrecords++;
}

static void op_meta(struct rank *r, struct cursor *c)
{
	static const char *const keys[] = { "tracing.buffers_refused", "trace.kernel_filter",
		"tracing.other_clients_refused", "tracing.off", "tracing.collision", "trace.window_ms",
		"trace.synthetic", "process.pid", "process.name", "tool.version", "rank", "process.argv" };
	static const char *const values[] = { "0", "1", "-1", "4242", "18446744073709551616", "1e308", "nan",
		"3,4,5", "100-200", "" };
	uint8_t k = arg(c), v = arg(c);
	const char *key = (k & 0x80) ? name_str(k) : keys[k % (sizeof keys / sizeof keys[0])];
	const char *value = (v & 0x80) ? name_str(v) : values[v % (sizeof values / sizeof values[0])];
	if (gt_writer_meta(r->w, key, value) == 0)
		r->nrecords++;
}

static void op_time(struct rank *r, struct cursor *c)
{
	uint8_t lo = arg(c), hi = arg(c), shift = arg(c);
	uint64_t dt = (uint64_t)lo | (uint64_t)hi << 8;
	/* Up to 2^16 << 40 ns: times past what the sums of a timeline hold, now and then. */
	r->t += dt << (shift % 41);
}

static void op_dropped(struct rank *r, struct cursor *c)
{
	uint8_t reason = arg(c), count = arg(c), stream = arg(c);
	struct gt_dropped x = { .timestamp = (reason & 0x80) ? 0 : r->t, .count = (uint64_t)count << (reason >> 3 & 15),
		.reason = reason % 8, .stream_id = stream_of(stream) };
	add(r, GT_REC_DROPPED, &x);
}

static void op_memory(struct rank *r, struct cursor *c)
{
	uint8_t op = arg(c), kind = arg(c), bexp = arg(c), after = arg(c);
	struct gt_memory m = { .timestamp = r->t, .address = 0x7f0000000000ull + ((uint64_t)(op >> 2) << 20),
		.bytes = 1ull << (bexp % 40), .correlation_id = corr_of(r, kind >> 4), .context_id = 1,
		.stream_id = 7, .process_id = 4242, .op = 1 + (op & 1), .mem_kind = kind % 8 };
	add(r, GT_REC_MEMORY, &m);
	advance(r, after);
}

static void op_clock(struct rank *r, struct cursor *c)
{
	uint8_t what = arg(c), a = arg(c), b = arg(c);
	if (what & 1) {
		struct gt_clock_sync s = { .cupti_ns = r->t, .realtime_ns = 1700000000000000000ull + r->t +
			(uint64_t)a * 1000, .monotonic_ns = (what & 2) ? 0 : r->t + (uint64_t)b * 100000 };
		add(r, GT_REC_CLOCK_SYNC, &s);
	} else {
		struct gt_clock_sample s = { .timestamp = r->t, .throttle_reasons = what >> 1, .device_id = a & 3,
			.sm_clock_mhz = a * 8u, .mem_clock_mhz = b * 10u, .temperature_c = b, .power_mw = a * 3000u,
			.utilization_gpu = b % 101 };
		add(r, GT_REC_CLOCK_SAMPLE, &s);
	}
}

/* A graph launch and its kernels, one after the other on a stream. */
static void op_graph(struct desc *d, struct rank *r, struct cursor *c)
{
	uint8_t graph = arg(c), nk = arg(c), name = arg(c), stream = arg(c), dur = arg(c);
	uint32_t corr = ++r->corr;
	struct gt_graph_launch g = { .start = r->t, .end = r->t + 500, .graph_id = graph % 4 + 1,
		.correlation_id = corr, .stream_id = stream_of(stream) };
	add(r, GT_REC_GRAPH_LAUNCH, &g);
	uint64_t t = r->t + 1000;
	for (unsigned i = 0; i < nk % 9u; i++) {
		struct gt_kernel k = { .start = t, .end = t + (uint64_t)dur * 20, .graph_node_id = i + 1,
			.name_id = name_id(d, (uint8_t)(name + i)), .correlation_id = (graph & 0x80) ? corr : 0,
			.context_id = 1, .stream_id = g.stream_id, .graph_id = g.graph_id, .grid_x = 1, .grid_y = 1,
			.grid_z = 1, .block_x = 128, .block_y = 1, .block_z = 1, .flags = GT_KERNEL_FROM_GRAPH };
		add(r, GT_REC_KERNEL, &k);
		t = k.end + 10;
	}
	r->t = t;
}

/* A counter record: which bit 0 a sample or a launch's value, bits 1-2 its device, bit 3 flags;
 * the value from two bytes: a mantissa and an exponent (and the odd NaN, infinity and negative).
 * which bit 7: the metric is one the role table names (so the ceiling analysis uses it), else
 * a name of the usual set. */
static uint32_t metric_id(struct desc *d, uint8_t which, uint8_t name)
{
	if (!(which & 0x80))
		return name_id(d, name);
	return gt_writer_intern(d->r[d->cur].w, gt_metric_role_rows[name % gt_metric_role_nrows].metric);
}

static void op_metric(struct desc *d, struct rank *r, struct cursor *c)
{
	uint8_t which = arg(c), name = arg(c), vlo = arg(c), vhi = arg(c), dur = arg(c), after = arg(c);
	double v = ldexp((double)vlo + 1.0, (int)(vhi % 64) - 8);
	switch (vhi >> 6) {
	case 1: v = -v; break;
	case 2: v = vlo & 1 ? NAN : vlo & 2 ? INFINITY : 0.0; break;
	default: break;
	}
	uint64_t start = r->t, end = r->t + (uint64_t)dur * 100;
	uint32_t flags = which >> 3 & 3;
	if (which & 1) {
		struct gt_launch_metric m = { .start = start, .end = end, .value = v, .device_id = which >> 1 & 3,
			.metric_id = metric_id(d, which, name), .name_id = name_id(d, (uint8_t)(name + 1)),
			.correlation_id = r->corr, .passes = 1u + (which >> 5), .flags = flags };
		add(r, GT_REC_LAUNCH_METRIC, &m);
	} else {
		struct gt_metric_sample m = { .start = start, .end = end, .value = v, .device_id = which >> 1 & 3,
			.metric_id = metric_id(d, which, name), .flags = flags };
		add(r, GT_REC_METRIC_SAMPLE, &m);
	}
	advance(r, after);
}

static void op_overhead(struct rank *r, struct cursor *c)
{
	uint8_t kind = arg(c), dur = arg(c), after = arg(c);
	struct gt_overhead o = { .start = r->t, .end = r->t + (uint64_t)dur * 100, .object_id = 77,
		.kind = (kind & 0x80) ? GT_OVERHEAD_CAPTURE : kind % 10, .object_kind = kind >> 4 & 3 };
	add(r, GT_REC_OVERHEAD, &o);
	advance(r, after);
}

/* The last kernel count more times, each shifted by its own length plus jitter: samples enough for
 * diff's statistics and findings' rules (bimodal, first launch slow) from a few bytes. */
static void op_repeat(struct rank *r, struct cursor *c)
{
	uint8_t count = arg(c), jitter = arg(c);
	if (!r->have_last)
		return;
	struct gt_kernel k = r->last;
	uint64_t len = k.end >= k.start ? k.end - k.start : 0;
	for (unsigned i = 0; i < count % 65u; i++) {
		uint64_t j = (uint64_t)(((i * 2654435761u) >> 24) % (jitter + 1u));
		k.start = r->t + 50;
		k.end = k.start + len + ((jitter & 0x80) && (i & 1) ? 4 * len : j);
		if (k.correlation_id)
			k.correlation_id = ++r->corr;
		add(r, GT_REC_KERNEL, &k);
		r->t = k.end;
	}
}

/* Writes the description's traces into the two scratch files (fd[0], fd[1]); returns how many
 * ranks hold records (1 or 2). */
static int write_traces(const uint8_t *data, size_t size, const int fd[2])
{
	struct desc d;
	memset(&d, 0, sizeof d);
	uint8_t flags = size ? data[0] : 0;
	struct gt_writer_options o = { .compression_level = 1, .chunk_bytes = (flags & 0x20) ? 2048 : 0 };
	for (int i = 0; i < 2; i++) {
		/* The writer owns the descriptor it is given: a duplicate, at the file's start. */
		if (ftruncate(fd[i], 0) != 0 || lseek(fd[i], 0, SEEK_SET) != 0)
			fa_die("ftruncate");
		int dup_fd = dup(fd[i]);
		if (dup_fd < 0)
			fa_die("dup");
		if (gt_writer_open_fd(&d.r[i].w, dup_fd, &o) != 0)
			fa_die("gt_writer_open_fd");
		d.r[i].t = T0;
		gt_writer_meta(d.r[i].w, "trace.synthetic", "tests/fuzz/fuzz_structured.c");
		struct gt_process p = { .timestamp = T0, .host_ns = 1700000000000000000ull, .pid = 4242,
			.event = GT_PROCESS_START };
		gt_writer_add(d.r[i].w, GT_REC_PROCESS, &p);
	}
	d.r[0].abandon = (flags & 0x10) != 0;
	struct cursor c = { size ? data + 1 : data, data + size };
	for (unsigned n = 0; c.p < c.end && n < MAX_OPS; n++) {
		uint8_t op = *c.p++ % OP_COUNT;
		struct rank *r = &d.r[d.cur];
		switch (op) {
		case OP_KERNEL: op_kernel(&d, r, &c); break;
		case OP_API: op_api(&d, r, &c); break;
		case OP_PUSH: op_push(&d, r, &c); break;
		case OP_POP: op_pop(r, &c); break;
		case OP_RANGE: op_range(&d, r, &c); break;
		case OP_SYNC: op_sync(r, &c); break;
		case OP_MEMCPY: op_memcpy(r, &c); break;
		case OP_MEMSET: op_memset(r, &c); break;
		case OP_PROCESS: op_process(r, &c); break;
		case OP_CAPTURE: op_capture(&d, r, &c); break;
		case OP_DEVICE: op_device(r, &c); break;
		case OP_META: op_meta(r, &c); break;
		case OP_TIME: op_time(r, &c); break;
		case OP_RANK: d.cur = arg(&c) & 1; break;
		case OP_STRING: {
			uint8_t slot = arg(&c) % NRAW, len = arg(&c);
			size_t n = (size_t)(c.end - c.p) < len ? (size_t)(c.end - c.p) : len;
			d.raw[slot] = (const char *)c.p;
			d.rawlen[slot] = n;
			c.p += n;
			break;
		}
		case OP_DROPPED: op_dropped(r, &c); break;
		case OP_MEMORY: op_memory(r, &c); break;
		case OP_CLOCK: op_clock(r, &c); break;
		case OP_GRAPH: op_graph(&d, r, &c); break;
		case OP_FLUSH: gt_writer_flush(r->w); break;
		case OP_OVERHEAD: op_overhead(r, &c); break;
		case OP_REPEAT: op_repeat(r, &c); break;
		case OP_METRIC: op_metric(&d, r, &c); break;
		default: break;
		}
	}
	for (int i = 0; i < 2; i++) {
		struct rank *r = &d.r[i];
		/* Ranges still open close at the end, as the recorder closes them at exit. */
		for (unsigned th = 0; th < 4; th++)
			while (r->depth[th])
				pop(r, th, 0);
		struct gt_process p = { .timestamp = r->t + 1000, .host_ns = 1700000000000000000ull + r->t,
			.pid = 4242, .event = GT_PROCESS_EXIT };
		gt_writer_add(r->w, GT_REC_PROCESS, &p);
		if (r->abandon) {
			gt_writer_flush(r->w);
			gt_writer_abandon(r->w);
		} else if (gt_writer_close(r->w) != 0) {
			fa_die("gt_writer_close");
		}
	}
	return d.r[1].nrecords ? 2 : 1;
}

/* ---- the analyses --------------------------------------------------------------------------- */
/* The hostile reference library: beside the target (run_all.sh builds it there), or $FUZZ_REFS. */
static struct gt_refs *hostile_refs;
static char hostile_refs_path[4096];

static void load_hostile_refs(void)
{
	const char *env = getenv("FUZZ_REFS");
	if (env && *env) {
		snprintf(hostile_refs_path, sizeof hostile_refs_path, "%s", env);
	} else {
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			fa_die("/proc/self/exe");
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(hostile_refs_path, sizeof hostile_refs_path, "%s/hostile_refs.so", exe);
	}
	char err[512];
	if (gt_refs_load(&hostile_refs, hostile_refs_path, err, sizeof err) != 0) {
		fprintf(stderr, "fuzz_structured: %s: %s (run_all.sh builds it from tests/fuzz/hostile_refs.c)\n",
		        hostile_refs_path, err);
		exit(1);
	}
}

/* The engines, each one target: what a subcommand computes before it prints. */
enum engine {
	E_INFO, E_SUMMARY, E_SPLIT, E_BANDWIDTH, E_FINDINGS, E_DIFF, E_EXPORT, E_STATS, E_RANKS,
	E_SHADOW, E_CALIBRATE, E_REPORT, E_CAPTURE_SET, E_CEILING, E_COUNT
};
static const char *const engine_names[E_COUNT] = {
	"info+fields", "summary", "split", "bandwidth", "findings", "diff", "export", "stats", "ranks",
	"shadow", "calibrate", "report", "capture-set", "ceiling",
};

static struct gt_name_filter *kernel_filter(void)
{
	static struct gt_name_filter filter;
	if (!filter.active) {
		char err[256];
		if (gt_name_filter_set(&filter, "k[0-9]|step|^_Z", err, sizeof err) != 0)
			abort();
	}
	return &filter;
}

static void engine(enum engine e, const char *a, const char *b, unsigned v, FILE *null)
{
	struct gt_name_filter *filter = kernel_filter();
	char *paths[2] = { (char *)a, (char *)b };
	size_t sum = 0;
	switch (e) {
	case E_INFO: {
		struct gt_reader *r;
		if (gt_load_open(&r, a) == 0) {
			struct gt_info in;
			gt_info_init(&in);
			gt_load_stream(r, gt_info_record, &in);
			gt_reader_rewind(r);
			gt_load_stream(r, fa_all_fields, &sum);
			gt_reader_close(r);
		}
		break;
	}
	case E_SUMMARY: {
		struct gt_summary s;
		if (gt_summary_init(&s, v & 1) != 0)
			abort();
		if (gt_summary_add_trace(&s, a) == 0 && gt_summary_add_trace(&s, b) == 0 &&
		    gt_summary_finish(&s, (v & 2) ? filter : NULL) == 0) {
			for (int k = GT_SORT_TOTAL; k <= GT_SORT_NAME; k++)
				gt_summary_sort(&s, (enum gt_summary_sort)k);
			for (size_t i = 0; i < s.nkernels; i++)
				sum += strlen(s.kernels[i].display) + strlen(s.kernels[i].files);
		}
		gt_summary_release(&s);
		break;
	}
	case E_SPLIT: {
		struct gt_split sp;
		memset(&sp, 0, sizeof sp);
		struct gt_split_options so = { .range = (v & 4) ? "step" : NULL, .warmup = v & 1 };
		if (gt_split_run(&sp, a, &so) == 0)
			sum += sp.nunits;
		gt_split_release(&sp);
		break;
	}
	case E_BANDWIDTH: {
		struct gt_bandwidth bw;
		memset(&bw, 0, sizeof bw);
		if (gt_bandwidth_run(&bw, a, NULL) == 0)
			sum += bw.ngroups;
		gt_bandwidth_release(&bw);
		break;
	}
	case E_FINDINGS: {
		struct gt_findings F;
		memset(&F, 0, sizeof F);
		struct gt_findings_options fo;
		gt_findings_defaults(&fo);
		if (v & 8) { /* tight thresholds: every rule fires more often */
			fo.gap_ns = 1;
			fo.slices = 1000;
			fo.util_pct = 99;
			fo.first_ratio = 1.01;
			fo.bimodal_min = 3;
			fo.bimodal_ratio = 1.01;
			fo.bimodal_share = 0.01;
			fo.warn_pct = 0.001;
		}
		if (gt_findings_run(&F, a, &fo) == 0) {
			for (size_t i = 0; i < F.n; i++)
				sum += strlen(F.f[i].what);
			gt_findings_max_severity(&F);
		}
		gt_findings_release(&F);
		break;
	}
	case E_DIFF: /* the trace with itself, then rank 0 against rank 1 */
		for (int pass = 0; pass < 2; pass++) {
			struct gt_diff df;
			memset(&df, 0, sizeof df);
			struct gt_diff_options dop;
			gt_diff_options_default(&dop);
			dop.resamples = 20;
			dop.min_samples = 2;
			dop.warmup = v & 1;
			dop.filter = (v & 2) ? filter : NULL;
			if (gt_diff_run(&df, a, pass ? b : a, &dop) == 0) {
				for (size_t i = 0; i < df.nrows; i++)
					sum += strlen(df.rows[i].why);
				gt_diff_failed(&df, 1);
			}
			gt_diff_release(&df);
		}
		break;
	case E_EXPORT:
		for (int fmt = 0; fmt < 2; fmt++) {
			struct gt_export_options eo = { .format = fmt ? GT_EXPORT_CSV : GT_EXPORT_CHROME, .gzip = 0 };
			struct gt_export_result er;
			memset(&er, 0, sizeof er);
			gt_export_run(a, null, &eo, &er);
			/* A window, a range, a kernel filter; both traces on one clock. */
			eo.has_start = 1, eo.start_ns = 1000 * (v & 7), eo.has_end = v & 8, eo.end_ns = 5000000;
			eo.kernels = (v & 2) ? filter : NULL;
			gt_export_run_files(paths, 2, null, &eo, &er);
			struct gt_export_options ro = { .format = eo.format, .range = (v & 4) ? "step#2" : "step" };
			gt_export_run_files(paths, 1 + (v & 1), null, &ro, &er);
		}
		break;
	case E_STATS:
		for (int k = 0; k < GT_STATS_NKINDS; k++) {
			struct gt_stats_report st;
			gt_stats_report_run(&st, k, a);
			gt_stats_report_release(&st);
		}
		for (int k = 0; k < GT_NSYS_NKINDS; k++) { /* every cell too: they are made when asked */
			struct gt_nsys_report nr;
			if (gt_nsys_report_run(&nr, k, a) == 0) {
				size_t ncols;
				gt_nsys_columns(k, &ncols);
				for (size_t r = 0; r < nr.nrows; r++)
					for (size_t c = 0; c < ncols; c++) {
						struct gt_nsys_cell cell;
						gt_nsys_cell(&nr, r, c, &cell);
					}
			}
			gt_nsys_report_release(&nr);
		}
		break;
	case E_RANKS: {
		struct gt_ranks g;
		memset(&g, 0, sizeof g);
		struct gt_ranks_options ro = { .range = (v & 4) ? "step" : NULL, .warmup = v & 1 };
		if (gt_ranks_run(&g, paths, 2, &ro) == 0)
			gt_ranks_release(&g);
		break;
	}
	case E_SHADOW: { /* with the hostile reference library (hostile_refs.c) */
		struct gt_shadow_report sr;
		memset(&sr, 0, sizeof sr);
		if (gt_shadow_run(a, hostile_refs, (v & 2) ? filter : NULL, &sr) == 0)
			sum += (size_t)gt_shadow_all_passed(&sr);
		gt_shadow_report_release(&sr);
		break;
	}
	case E_CALIBRATE: {
		static const char *const calib_kernels[] = { "k1", "saxpy", "_Z6kernelPf", "step", "backward" };
		static struct gt_name_filter calib_filter[5];
		unsigned ck = (v >> 4) % 5;
		char cerr[256];
		if (calib_filter[ck].active ||
		    gt_name_filter_set(&calib_filter[ck], calib_kernels[ck], cerr, sizeof cerr) == 0) {
			struct gt_calib_options co;
			gt_calib_options_default(&co);
			struct gt_calib_report cr;
			memset(&cr, 0, sizeof cr);
			gt_calib_run(a, hostile_refs, &calib_filter[ck], &co, &cr);
			gt_calib_report_release(&cr);
		}
		break;
	}
	case E_REPORT: {
		struct gt_report_options rep;
		gt_report_options_default(&rep);
		rep.baseline = (v & 4) ? b : NULL;
		rep.diff.resamples = 20;
		rep.warmup = v & 1;
		struct gt_report_figure_options fo = { NULL, NULL, NULL };
		struct gt_report_result res;
		memset(&res, 0, sizeof res);
		struct gt_doc *d = gt_doc_open(GT_FMT_MD, null);
		if (d) {
			gt_report_doc(d, a, &rep, &fo, &res);
			gt_doc_close(d);
		}
		fflush(null);
		break;
	}
	case E_CAPTURE_SET: {
		/* What `gputrace replay` and --extract read: every capture with its buffers, every entry
		 * through the one check both make, every byte touched. */
		struct gt_capture_set cs;
		char err[256];
		if (gt_capture_set_load(&cs, a, NULL, NULL, err, sizeof err) == 0) {
			for (size_t i = 0; i < cs.n; i++) {
				const struct gt_captured_launch *l = &cs.launch[i];
				for (uint64_t k = 0; l->image && k < l->image_bytes; k++)
					sum += l->image[k];
				for (uint32_t j = 0; j < l->c.nparams; j++) {
					const char *why = gt_captured_param_problem(l, j);
					sum += why ? strlen(why) : 0;
					for (uint64_t k = 0; l->params[j].before && k < l->params[j].p.alloc_bytes; k++)
						sum += l->params[j].before[k] + (l->params[j].after ? l->params[j].after[k] : 0);
				}
			}
			gt_capture_set_release(&cs);
		}
		break;
	}
	case E_CEILING: {
		struct gt_ceil_analysis ce;
		char *paths[] = { (char *)a, (char *)b };
		if (gt_ceiling_run(&ce, paths, (v & 1) ? 2 : 1, NULL) == 0)
			for (size_t i = 0; i < ce.nkernels; i++)
				sum += (uint64_t)isfinite(ce.kernels[i].dram_gbps) + (uint64_t)isfinite(ce.kernels[i].compute_pct) +
				       (uint64_t)isfinite(ce.kernels[i].compute_pct_theory) + (uint64_t)ce.kernels[i].bound +
				       ce.kernels[i].launches;
		gt_ceiling_release(&ce);
		break;
	}
	case E_COUNT:
		break;
	}
	__asm__ volatile("" : : "r"(sum));
}

/* One subcommand in one of its formats, so that what the printers do with hostile names is
 * fuzzed too. */
#define N_COMMANDS 30
static const char *const command_names[N_COMMANDS] = {
	"summary md", "summary csv", "summary json", "split md", "split csv --range", "findings",
	"findings json", "diff md", "diff junit", "export csv", "report", "ranks", "ranks csv", "dump",
	"info json", "bandwidth md", "shadow", "shadow md", "shadow json", "shadow junit", "calibrate",
	"calibrate json", "stats nvtx_kern_sum", "stats cuda_api_sum csv", "dump jsonl",
	"split --distribution", "diff pooled json", "export sqlite", "ceiling md", "ceiling json",
};

static void command(const char *a, const char *b, unsigned c)
{
	const char *lib = hostile_refs_path;
	static char sqlite_path[64];
	if (!sqlite_path[0])
		snprintf(sqlite_path, sizeof sqlite_path, "/tmp/gt_sfuzz_%d.sqlite", (int)getpid());
	switch (c) {
	case 0: fa_cmd(cmd_summary, (const char *const[]){ "summary", "--format", "md", a, NULL }); break;
	case 1: fa_cmd(cmd_summary, (const char *const[]){ "summary", "--format", "csv", a, b, NULL }); break;
	case 2: fa_cmd(cmd_summary, (const char *const[]){ "summary", "--format", "json", a, NULL }); break;
	case 3: fa_cmd(cmd_split, (const char *const[]){ "split", "--format", "md", a, NULL }); break;
	case 4: fa_cmd(cmd_split, (const char *const[]){ "split", "--format", "csv", "--range", "step", a, NULL }); break;
	case 5: fa_cmd(cmd_findings, (const char *const[]){ "findings", a, NULL }); break;
	case 6: fa_cmd(cmd_findings, (const char *const[]){ "findings", "--format", "json", a, NULL }); break;
	case 7: fa_cmd(cmd_diff, (const char *const[]){ "diff", "--bootstrap", "20", "--format", "md", a, b, NULL }); break;
	case 8: fa_cmd(cmd_diff, (const char *const[]){ "diff", "--bootstrap", "20", "--format", "junit", a, b, NULL }); break;
	case 9: fa_cmd(cmd_export, (const char *const[]){ "export", "--format", "csv", a, NULL }); break;
	case 10: fa_cmd(cmd_report, (const char *const[]){ "report", "--baseline", b, "--seed", "3", a, NULL }); break;
	case 11: fa_cmd(cmd_ranks, (const char *const[]){ "ranks", a, b, NULL }); break;
	case 12: fa_cmd(cmd_ranks, (const char *const[]){ "ranks", "--format", "csv", a, b, NULL }); break;
	case 13: fa_cmd(cmd_dump, (const char *const[]){ "dump", a, NULL }); break;
	case 14: fa_cmd(cmd_info, (const char *const[]){ "info", "--format", "json", a, NULL }); break;
	case 15: fa_cmd(cmd_bandwidth, (const char *const[]){ "bandwidth", "--format", "md", a, NULL }); break;
	case 16: fa_cmd(cmd_shadow, (const char *const[]){ "shadow", "--ref", lib, a, NULL }); break;
	case 17: fa_cmd(cmd_shadow, (const char *const[]){ "shadow", "--ref", lib, "--format", "md", a, NULL }); break;
	case 18: fa_cmd(cmd_shadow, (const char *const[]){ "shadow", "--ref", lib, "--format", "json", a, NULL }); break;
	case 19: fa_cmd(cmd_shadow, (const char *const[]){ "shadow", "--ref", lib, "--format", "junit", a, NULL }); break;
	case 20: fa_cmd(cmd_calibrate, (const char *const[]){ "calibrate", "--ref", lib, "--kernel", "k1", a, NULL }); break;
	case 22: fa_cmd(cmd_stats, (const char *const[]){ "stats", "nvtx_kern_sum", a, NULL }); break;
	case 23: fa_cmd(cmd_stats, (const char *const[]){ "stats", "--format", "csv", "cuda_api_sum", a, NULL }); break;
	case 24: fa_cmd(cmd_dump, (const char *const[]){ "dump", "--format", "jsonl", a, NULL }); break;
	case 25: fa_cmd(cmd_split, (const char *const[]){ "split", "--format", "csv", "--distribution", a, NULL }); break;
	case 26: fa_cmd(cmd_diff, (const char *const[]){ "diff", "--bootstrap", "20", "--format", "json", a, b, "--", b, a, NULL }); break;
	case 27: fa_cmd(cmd_export, (const char *const[]){ "export", "--format", "sqlite", "-o", sqlite_path, a, NULL });
		unlink(sqlite_path);
		break;
	case 28: fa_cmd(cmd_ceiling, (const char *const[]){ "ceiling", "--format", "md", a, NULL }); break;
	case 29: fa_cmd(cmd_ceiling, (const char *const[]){ "ceiling", "--format", "json", a, b, NULL }); break;
	default: fa_cmd(cmd_calibrate, (const char *const[]){ "calibrate", "--ref", lib, "--kernel", "saxpy", "--format", "json", a, NULL }); break;
	}
}

/* ---- libFuzzer ------------------------------------------------------------------------------ */
static int scratch[2] = { -1, -1 };
static char scratch_path[2][64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	build_names();
	for (int i = 0; i < 2; i++) {
		scratch[i] = memfd_create(i ? "gt_sfuzz_b" : "gt_sfuzz_a", MFD_CLOEXEC);
		if (scratch[i] < 0)
			fa_die("memfd_create");
		snprintf(scratch_path[i], sizeof scratch_path[i], "/proc/self/fd/%d", scratch[i]);
	}
	const char *out = getenv("FUZZ_STRUCTURED_WRITE");
	if (!out || !*out) {
		load_hostile_refs();
		return 0;
	}
	/* Turn each description named on the command line into trace files, then stop. */
	for (int i = 1; i < *argc; i++) {
		const char *in = (*argv)[i];
		if (in[0] == '-')
			continue;
		FILE *f = fopen(in, "rb");
		if (!f)
			fa_die(in);
		static uint8_t buf[1 << 20];
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		int fd[2];
		char path[2][4096];
		snprintf(path[0], sizeof path[0], "%s", out);
		snprintf(path[1], sizeof path[1], "%s-rank1", out);
		for (int k = 0; k < 2; k++)
			if ((fd[k] = open(path[k], O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0)
				fa_die(path[k]);
		int ranks = write_traces(buf, n, fd);
		close(fd[0]);
		close(fd[1]);
		if (ranks < 2)
			unlink(path[1]);
		fprintf(stderr, "fuzz_structured: %s -> %s%s\n", in, path[0], ranks < 2 ? "" : " and -rank1");
	}
	exit(0);
}

/* Executions per target, printed at exit as "target_runs KIND NAME... COUNT" lines (campaign.sh sums
 * them over its processes); "all" counts executions that ran every target (FUZZ_STRUCTURED_ALL=1). */
static unsigned long long runs_engine[E_COUNT], runs_command[N_COMMANDS], runs_all;

static void print_target_runs(void)
{
	for (int e = 0; e < E_COUNT; e++)
		fprintf(stderr, "target_runs engine %s %llu\n", engine_names[e], runs_engine[e]);
	for (int c = 0; c < N_COMMANDS; c++)
		fprintf(stderr, "target_runs command %s %llu\n", command_names[c], runs_command[c]);
	fprintf(stderr, "target_runs all all %llu\n", runs_all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	static int every = -1;
	fa_quiet();
	if (!null && !(null = fopen("/dev/null", "w")))
		fa_die("/dev/null");
	if (every < 0) {
		const char *e = getenv("FUZZ_STRUCTURED_ALL");
		every = e && *e == '1';
		atexit(print_target_runs);
	}
	setenv("GPUTRACE_PEAKS", "/nonexistent/gputrace-fuzz-peaks", 1);
	int ranks = write_traces(data, size, scratch);
	const char *a = scratch_path[0], *b = ranks > 1 ? scratch_path[1] : scratch_path[0];
	unsigned v = size ? data[0] : 0;
	unsigned sel = (v & 0x0f) | (v >> 2 & 0x30); /* 0..63: bits 4 and 5 shape the trace */
	unsigned ev = v >> 6 | (v & 0x0c);           /* the engines' variants */
	if (every) {
		for (int e = 0; e < E_COUNT; e++)
			engine((enum engine)e, a, b, ev, null);
		command(a, b, sel % N_COMMANDS);
		runs_all++;
		return 0;
	}
	unsigned t = sel % (E_COUNT + N_COMMANDS);
	if (t < E_COUNT) {
		engine((enum engine)t, a, b, ev, null);
		runs_engine[t]++;
	} else {
		command(a, b, t - E_COUNT);
		runs_command[t - E_COUNT]++;
	}
	return 0;
}

/* Where each opcode of data[0..size) starts (after the flags byte); returns how many (<= max). */
static size_t op_starts(const uint8_t *data, size_t size, size_t *at, size_t max)
{
	size_t n = 0, i = size ? 1 : 0;
	while (i < size && n < max) {
		at[n++] = i;
		uint8_t op = data[i] % OP_COUNT;
		size_t len = 1 + op_args[op];
		if (op == OP_STRING && i + 2 < size)
			len += data[i + 2];
		i += len;
	}
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static size_t at[MAX_OPS + 1];
	uint32_t x = seed * 2654435761u + 1;
	if (size < 2 || (x >> 31))
		return LLVMFuzzerMutate(data, size, max_size);
	if ((x >> 26) % 4 == 0) {
		/* Another target for the same trace: coverage alone would leave the targets that stopped
		 * finding anything early with few executions. */
		unsigned t = (x >> 8) % (E_COUNT + N_COMMANDS);
		data[0] = (uint8_t)((data[0] & 0x30) | (t & 0x0f) | (t >> 4) << 6);
		return size;
	}
	size_t n = op_starts(data, size, at, MAX_OPS);
	if (!n)
		return LLVMFuzzerMutate(data, size, max_size);
	size_t i = (x >> 8) % n;
	size_t from = at[i], to = i + 1 < n ? at[i + 1] : size;
	if (to > size)
		to = size;
	size_t len = to - from;
	switch ((x >> 4) % 3) {
	case 0: /* delete one opcode */
		memmove(data + from, data + to, size - to);
		return size - len;
	case 1: /* duplicate one opcode in place */
		if (size + len > max_size)
			return LLVMFuzzerMutate(data, size, max_size);
		memmove(data + to, data + from, size - from);
		return size + len;
	default: { /* insert a new opcode of fresh bytes before it */
		uint8_t op = (uint8_t)((x >> 12) % OP_COUNT);
		size_t k = 1 + op_args[op];
		if (op == OP_STRING || size + k > max_size)
			return LLVMFuzzerMutate(data, size, max_size);
		memmove(data + from + k, data + from, size - from);
		data[from] = op;
		for (size_t j = 1; j < k; j++)
			data[from + j] = (uint8_t)(x >> (j * 3 % 24));
		return size + k;
	}
	}
}

/* gt_synth.c: writes a synthetic trace shaped like a real recording, through the public writer API.
 *
 * Used by tests, fuzz seeds and benchmarks where no GPU is at hand. The default shape is the demo
 * renderer's loop as the recorder would see it: per frame an NVTX range "render_frame" holding
 * "upload" (a pinned HtoD copy), "composite" (a few kernels) and "download" (a pinned DtoH copy), then
 * a stream synchronisation; every launch, copy and sync also has its runtime API record with the same
 * correlation id, as CUPTI pairs them. Durations are realistic for an H200 with nanosecond jitter, so
 * that the compression figures are not flattered by perfectly regular timestamps. --shape steady
 * writes only kernel records (a steady loop of a few kernels), the benchmark's case.
 *
 * The trace is marked trace.synthetic=1 in its metadata, and its device record says "synthetic" in
 * its name, so nobody mistakes it for a recording. --truncate cuts the finished file inside its last
 * data chunk, as a process killed mid-write would leave it.
 *
 * The renderer shape also carries what a recording of it holds around the loop: device allocations
 * and frees, a memset per frame, a cubin blob, a module-loading overhead record, clock samples.
 * --all-types adds one record of each remaining type (dropped, graph launch, and a capture with
 * its before/after buffers as blobs), so that a small trace covers every record type, as the fuzz
 * seeds want. --kernel-name NAME gives every kernel (and the capture) that one name, for the
 * known-bad traces whose trouble is a name (tests/data/bad/crash-*-name*.gtrace).
 *
 * --metrics samples|launches|both adds hardware-counter records to the renderer shape, with values
 * that follow from the kernels by a known rule, so that an analysis of counters can be checked
 * without a GPU: samples (METRIC_SAMPLE, every --metrics-us microseconds, default 100) sum each
 * kernel's busy time in the interval times its rate in metric_rates below (a percentage metric:
 * the time-weighted mean of its kernels' percentages over the interval, idle time counting 0);
 * launches (LAUNCH_METRIC, after each kernel record, as a replay trace holds them) give each
 * launch its kernel's median duration times that rate, rounded, taken in 2 passes. Copies and
 * memsets add no counts. --metric-names h200 writes the same counts under the names an H200 is
 * planned to write (docs/METRICS.md): the sampler's TPC.TriageCompute pipe activity in place of SM
 * throughput, the replay's sm__ sums in place of smsp__ ones; the figures must come out the same.
 *
 *   gt_synth -o FILE [-n KERNELS] [--seed S] [--shape renderer|steady] [--chunk-bytes N]
 *            [--level L] [--truncate] [--no-end] [--all-types] [--kernel-name NAME] [--stats]
 *            [--metrics samples|launches|both] [--metrics-us N] [--metric-names h200]
 */
#include "traces/gputrace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* gputrace's version where the header has it, so the trace says which writer made it. */
#ifdef GT_TOOL_VERSION
#define TOOL_VERSION GT_TOOL_VERSION
#else
#define TOOL_VERSION "0.1.0"
#endif

struct opts {
	const char *out;
	uint64_t kernels;
	uint64_t seed;
	int steady;
	size_t chunk_bytes;
	int level;
	int truncate;
	int no_end;
	int stats;
	int all_types;
	const char *kernel_name; /* NULL: the renderer's names */
	int metric_samples, launch_metrics;
	uint64_t metrics_us;
	int h200_names; /* --metric-names h200 */
};

/* xorshift64*: deterministic per seed, so a failing test or an odd benchmark can be reproduced. */
static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}
static double unif(void) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }

/* Normal deviate (Box-Muller); kernel durations are close to normal around their median with a
 * thin right tail, which jitter() adds. */
static double gauss(void)
{
	double u = unif(), v = unif();
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
}

/* A duration in ns: median m, relative spread sd, and one launch in 500 slowed by up to 30 %
 * (a clock dip or a neighbour on the bus), as real runs show. */
static uint64_t jitter(double m, double sd)
{
	double d = m * (1.0 + sd * gauss());
	if (rnd() % 500 == 0)
		d *= 1.0 + 0.3 * unif();
	return d < 1.0 ? 1 : (uint64_t)d;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gt_synth -o FILE [-n KERNELS] [--seed S] [--shape renderer|steady]\n"
	        "                [--chunk-bytes N] [--level L] [--truncate] [--no-end] [--all-types]\n"
	        "                [--kernel-name NAME] [--stats] [--metrics samples|launches|both]\n"
	        "                [--metrics-us N] [--metric-names h200]\n"
	        "  -n KERNELS       kernel records to write (default 3000; 10000000 and more are fine)\n"
	        "  --seed S         random seed (default 1)\n"
	        "  --shape renderer the demo renderer's frame loop: NVTX, copies, API, syncs (default)\n"
	        "  --shape steady   kernel records only: a steady loop of a few kernels\n"
	        "  --chunk-bytes N  writer chunk size in raw bytes (default: the writer's, 1 MiB)\n"
	        "  --level L        zstd level (default: the writer's, 3)\n"
	        "  --truncate       cut the file inside its last data chunk (no END record)\n"
	        "  --no-end         leave without the END record (gt_writer_abandon), uncut\n"
	        "  --all-types      add one dropped, graph launch and capture record\n"
	        "  --kernel-name N  every kernel and the capture named N (a hostile name, say)\n"
	        "  --stats          print records, bytes, bytes per kernel record, seconds on stdout\n"
	        "  --metrics WHAT   renderer shape: counter samples, per-launch counters, or both\n"
	        "  --metrics-us N   the samples' interval in microseconds (default 100)\n"
	        "  --metric-names h200  the counters under the names an H200 writes\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->kernels = 3000;
	o->seed = 1;
	o->metrics_us = 100;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t x;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--truncate")) {
			o->truncate = 1;
		} else if (!strcmp(a, "--no-end")) {
			o->no_end = 1;
		} else if (!strcmp(a, "--stats")) {
			o->stats = 1;
		} else if (!strcmp(a, "--all-types")) {
			o->all_types = 1;
		} else if (!v) {
			fprintf(stderr, "gt_synth: %s needs a value (or is unknown)\n", a);
			return -1;
		} else if (!strcmp(a, "-o")) {
			o->out = v;
			i++;
		} else if (!strcmp(a, "--kernel-name")) {
			o->kernel_name = v;
			i++;
		} else if (!strcmp(a, "--metrics")) {
			o->metric_samples = !strcmp(v, "samples") || !strcmp(v, "both");
			o->launch_metrics = !strcmp(v, "launches") || !strcmp(v, "both");
			if (!o->metric_samples && !o->launch_metrics) {
				fprintf(stderr, "gt_synth: --metrics: '%s' is not samples, launches or both\n", v);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--metric-names")) {
			if (strcmp(v, "h200")) {
				fprintf(stderr, "gt_synth: --metric-names: '%s' is not h200\n", v);
				return -1;
			}
			o->h200_names = 1;
			i++;
		} else if (!strcmp(a, "--shape")) {
			if (!strcmp(v, "steady"))
				o->steady = 1;
			else if (strcmp(v, "renderer")) {
				fprintf(stderr, "gt_synth: unknown shape '%s'\n", v);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--seed") || !strcmp(a, "--chunk-bytes") ||
		           !strcmp(a, "--level") || !strcmp(a, "--metrics-us")) {
			if (parse_u64(v, &x)) {
				fprintf(stderr, "gt_synth: %s: '%s' is not a number\n", a, v);
				return -1;
			}
			if (!strcmp(a, "-n"))
				o->kernels = x;
			else if (!strcmp(a, "--seed"))
				o->seed = x;
			else if (!strcmp(a, "--chunk-bytes"))
				o->chunk_bytes = (size_t)x;
			else if (!strcmp(a, "--metrics-us"))
				o->metrics_us = x ? x : 1;
			else
				o->level = x > 22 ? 22 : (int)x;
			i++;
		} else {
			fprintf(stderr, "gt_synth: unknown option '%s'\n", a);
			return -1;
		}
	}
	if (!o->out) {
		fprintf(stderr, "gt_synth: no output file (-o FILE)\n");
		return -1;
	}
	return 0;
}

/* ---- the trace ------------------------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


struct kdef {
	const char *name;
	double median_ns, sd;
	uint32_t grid[3], block[3], regs, static_smem, dynamic_smem;
};

/* The renderer's composite step (names as nvcc mangles them). */
static const struct kdef kernels[] = {
	{ "_Z10bin_splatsPK5SplatiPjS2_", 21500, 0.012, { 1024, 1, 1 }, { 256, 1, 1 }, 32, 0, 0 },
	{ "_Z9compositePK5SplatPKjS3_P6float4ii", 184000, 0.008, { 120, 68, 1 }, { 16, 16, 1 }, 64,
	  8192, 4096 },
	{ "_Z7tonemapPK6float4P6uchar4iif", 14800, 0.015, { 120, 68, 1 }, { 16, 16, 1 }, 24, 0, 0 },
};
#define NKDEF (sizeof kernels / sizeof kernels[0])

/* Each kernel's counter rates: per ns of its run for a count (.sum), its level for a percentage.
 * About an H200's: composite streams at 2.8 TB/s, tonemap at 3.9, bin_splats is half latency. */
static const struct metric_rate {
	const char *name;
	int pct;             /* a percentage: time-weighted, not summed */
	int sampled, launch; /* written as samples, as per-launch values */
	double rate[NKDEF];
} metric_rates[] = {
	{ "dram__bytes_read.sum", 0, 1, 1, { 900.0, 2100.0, 2600.0 } },
	{ "dram__bytes_write.sum", 0, 1, 1, { 300.0, 700.0, 1300.0 } },
	{ "lts__t_bytes.sum", 0, 1, 0, { 2400.0, 5200.0, 4100.0 } },
	{ "sm__throughput.avg.pct_of_peak_sustained_elapsed", 1, 1, 0, { 35.0, 78.0, 22.0 } },
	{ "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 0, 0, 1, { 8000.0, 61000.0, 9000.0 } },
};
#define NMETRIC (sizeof metric_rates / sizeof metric_rates[0])
/* The same, as GH100 names them: what GPUTRACE_METRICS samples there (the TriageCompute group's
 * FMA-pipe activity stands where no one-pass SM throughput exists) and what the replay writes. */
static const char *const h200_names[NMETRIC] = {
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"lts__t_bytes.sum",
	"TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_elapsed",
	"sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
};

struct synth {
	struct gt_writer *w;
	uint64_t now;          /* host clock, ns */
	uint64_t gpu_free;     /* when the stream's previous operation ends */
	uint32_t corr;
	uint32_t names[NKDEF];
	uint32_t api_launch, api_memcpy, api_sync, api_memset, nv_frame, nv_upload, nv_composite,
		nv_download;
	uint64_t frames;
	uint64_t tid;
	uint32_t pid, ostid;
	uint64_t kernels_written;
	int metric_samples, launch_metrics;
	uint32_t metric_ids[NMETRIC];
	uint64_t interval;           /* ns between samples */
	uint64_t window;             /* the open sample's start; 0: none yet */
	double acc[NMETRIC];         /* its sums so far */
};

#define CHECK(expr)                                                                                \
	do {                                                                                       \
		int rc_ = (expr);                                                                  \
		if (rc_ < 0) {                                                                     \
			fprintf(stderr, "gt_synth: %s: %s\n", #expr, gt_strerror(rc_));            \
			return rc_;                                                                \
		}                                                                                  \
	} while (0)

static int api(struct synth *s, uint32_t name, uint32_t cbid, uint64_t start, uint64_t end,
               uint32_t corr)
{
	struct gt_api a = { .start = start, .end = end, .thread_id = s->tid, .name_id = name,
		.correlation_id = corr, .cbid = cbid, .process_id = s->pid, .return_value = 0,
		.domain = GT_API_RUNTIME };
	return gt_writer_add(s->w, GT_REC_API, &a);
}

/* One kernel launch: the API call on the host, the kernel when the stream is free. */
static void make_launch(struct synth *s, unsigned k, struct gt_kernel *out, struct gt_api *call)
{
	const struct kdef *d = &kernels[k];
	uint32_t corr = ++s->corr;
	/* The launch queue is finite: a host that runs 1 ms ahead of the GPU blocks in the launch. */
	if (s->gpu_free > s->now + 1000000)
		s->now = s->gpu_free - 1000000 + jitter(2000, 0.1);
	uint64_t a0 = s->now, a1 = a0 + jitter(2600, 0.05); /* cudaLaunchKernel: ~2.6 us */
	s->now = a1 + jitter(400, 0.2);
	uint64_t queued = a0 + jitter(1800, 0.05);
	uint64_t submitted = queued + jitter(900, 0.1);
	uint64_t start = submitted + jitter(1200, 0.1);
	if (start < s->gpu_free + 900)
		start = s->gpu_free + jitter(1000, 0.05); /* back to back on the stream */
	uint64_t end = start + jitter(d->median_ns, d->sd);
	s->gpu_free = end;
	struct gt_kernel r = { .start = start, .end = end, .queued = queued, .submitted = submitted,
		.name_id = s->names[k], .correlation_id = corr, .device_id = 0, .context_id = 1,
		.stream_id = 13, .grid_x = d->grid[0], .grid_y = d->grid[1], .grid_z = d->grid[2],
		.block_x = d->block[0], .block_y = d->block[1], .block_z = d->block[2],
		.static_smem = d->static_smem, .dynamic_smem = d->dynamic_smem,
		.registers = (uint16_t)d->regs, .flags = GT_KERNEL_HAS_QUEUED };
	*out = r;
	struct gt_api a = { .start = a0, .end = a1, .thread_id = s->tid, .name_id = s->api_launch,
		.correlation_id = corr, .cbid = 211 /* cudaLaunchKernel_v7000 */,
		.process_id = s->pid, .return_value = 0, .domain = GT_API_RUNTIME };
	*call = a;
}

/* Writes the open sample's records and opens the next interval. */
static int sample_flush(struct synth *s)
{
	for (unsigned m = 0; m < NMETRIC; m++) {
		if (!metric_rates[m].sampled)
			continue;
		double v = metric_rates[m].pct ? s->acc[m] / (double)s->interval : s->acc[m];
		struct gt_metric_sample r = { .start = s->window, .end = s->window + s->interval,
			.value = metric_rates[m].pct ? v : round(v), .device_id = 0,
			.metric_id = s->metric_ids[m] };
		CHECK(gt_writer_add(s->w, GT_REC_METRIC_SAMPLE, &r));
		s->acc[m] = 0;
	}
	s->window += s->interval;
	return 0;
}

/* Kernel k ran over [start, end): its counts go to the samples it overlaps, closing those it
 * passes (kernels on the one stream come in time order). */
static int sample_busy(struct synth *s, unsigned k, uint64_t start, uint64_t end)
{
	if (!s->window)
		s->window = start - start % s->interval;
	while (start < end) {
		uint64_t wend = s->window + s->interval;
		if (start >= wend) {
			CHECK(sample_flush(s));
			continue;
		}
		uint64_t seg = end < wend ? end : wend;
		for (unsigned m = 0; m < NMETRIC; m++)
			s->acc[m] += (double)(seg - start) * metric_rates[m].rate[k];
		start = seg;
	}
	return 0;
}

/* A replay's exact values of launch r of kernel k: its median run times the rates. */
static int launch_metrics(struct synth *s, unsigned k, const struct gt_kernel *r)
{
	for (unsigned m = 0; m < NMETRIC; m++) {
		if (!metric_rates[m].launch)
			continue;
		struct gt_launch_metric l = { .start = r->start, .end = r->end,
			.value = round(kernels[k].median_ns * metric_rates[m].rate[k]), .device_id = 0,
			.metric_id = s->metric_ids[m], .name_id = r->name_id,
			.correlation_id = r->correlation_id, .passes = 2 };
		CHECK(gt_writer_add(s->w, GT_REC_LAUNCH_METRIC, &l));
	}
	return 0;
}

static int launch(struct synth *s, unsigned k)
{
	struct gt_kernel r;
	struct gt_api a;
	make_launch(s, k, &r, &a);
	CHECK(gt_writer_add(s->w, GT_REC_API, &a));
	CHECK(gt_writer_add(s->w, GT_REC_KERNEL, &r));
	s->kernels_written++;
	if (s->metric_samples)
		CHECK(sample_busy(s, k, r.start, r.end));
	if (s->launch_metrics)
		CHECK(launch_metrics(s, k, &r));
	return 0;
}

/* The steady loop: kernel records only. A ring of launches is made first and then written over
 * and over, shifted in time and correlation id, so that the writer's cost (add, compress,
 * write) can be timed apart from the synthesis. A ring is longer than a chunk holds (8738
 * kernel records at 1 MiB), so zstd never sees a repeat inside a frame. */
#define RING 65536
static int steady(struct synth *s, uint64_t n, double *write_secs)
{
	uint64_t rn = n < RING ? n : RING;
	struct gt_kernel *ring = malloc((size_t)(rn ? rn : 1) * sizeof *ring);
	if (!ring)
		return GT_ERR_NOMEM;
	struct gt_api unused;
	for (uint64_t i = 0; i < rn; i++)
		make_launch(s, (unsigned)(i % NKDEF), &ring[i], &unused);
	uint64_t span = rn ? ring[rn - 1].end - ring[0].start + 1000 : 0;
	double t0 = now_s();
	int rc = 0;
	for (uint64_t i = 0; i < n && !rc; i++) {
		struct gt_kernel r = ring[i % rn];
		uint64_t cycle = i / rn, shift = cycle * span;
		r.start += shift;
		r.end += shift;
		r.queued += shift;
		r.submitted += shift;
		r.correlation_id += (uint32_t)(cycle * rn);
		rc = gt_writer_add(s->w, GT_REC_KERNEL, &r);
	}
	*write_secs = now_s() - t0;
	s->kernels_written += n;
	s->now = ring[rn ? rn - 1 : 0].end + (n / (rn ? rn : 1)) * span;
	free(ring);
	return rc;
}

/* A pinned async copy of bytes at ~52 GB/s (H2D) or ~55 GB/s (D2H) on PCIe 5 x16. */
static int copy(struct synth *s, int kind, uint64_t bytes)
{
	uint32_t corr = ++s->corr;
	uint64_t a0 = s->now, a1 = a0 + jitter(3100, 0.05);
	s->now = a1 + jitter(300, 0.2);
	uint64_t start = a1 > s->gpu_free ? a1 + jitter(1500, 0.1) : s->gpu_free + jitter(1100, 0.05);
	double gbps = kind == GT_COPY_HTOD ? 52.0 : 55.0;
	uint64_t end = start + jitter((double)bytes / gbps, 0.01);
	s->gpu_free = end;
	struct gt_memcpy m = { .start = start, .end = end, .bytes = bytes, .correlation_id = corr,
		.device_id = 0, .dst_device_id = 0, .context_id = 1, .stream_id = 13,
		.copy_kind = (uint8_t)kind,
		.src_kind = kind == GT_COPY_HTOD ? GT_MEM_PINNED : GT_MEM_DEVICE,
		.dst_kind = kind == GT_COPY_HTOD ? GT_MEM_DEVICE : GT_MEM_PINNED,
		.flags = GT_COPY_ASYNC };
	CHECK(api(s, s->api_memcpy, 41, a0, a1, corr)); /* cudaMemcpyAsync_v3020 */
	return gt_writer_add(s->w, GT_REC_MEMCPY, &m);
}

/* cudaMemsetAsync of the float4 accumulation image before compositing. */
static int clear(struct synth *s)
{
	uint32_t corr = ++s->corr;
	uint64_t a0 = s->now, a1 = a0 + jitter(2900, 0.05);
	s->now = a1 + jitter(300, 0.2);
	uint64_t start = (a1 > s->gpu_free ? a1 : s->gpu_free) + jitter(1200, 0.1);
	uint64_t end = start + jitter(1920.0 * 1080 * 16 / 3000.0, 0.01); /* ~3 TB/s */
	s->gpu_free = end;
	struct gt_memset m = { .start = start, .end = end, .bytes = 1920u * 1080u * 16u,
		.correlation_id = corr, .device_id = 0, .context_id = 1, .stream_id = 13, .value = 0,
		.mem_kind = GT_MEM_DEVICE, .flags = GT_COPY_ASYNC };
	CHECK(api(s, s->api_memset, 53, a0, a1, corr)); /* cudaMemsetAsync_v3020 */
	return gt_writer_add(s->w, GT_REC_MEMSET, &m);
}

/* NVML's view of the device every 1000 frames: clocks at their maximum, a warm GPU. */
static int clock_sample(struct synth *s)
{
	struct gt_clock_sample c = { .timestamp = s->now, .throttle_reasons = 0, .device_id = 0,
		.sm_clock_mhz = 1980, .mem_clock_mhz = 2619,
		.temperature_c = 52 + (uint32_t)(rnd() % 6), .power_mw = 412000 + (uint32_t)(rnd() % 9000),
		.utilization_gpu = 97 };
	return gt_writer_add(s->w, GT_REC_CLOCK_SAMPLE, &c);
}

static const uint64_t buffers[] = { 64u << 20, 1920u * 1080u * 16u, 1920u * 1080u * 4u };

static int memory(struct synth *s, int op)
{
	for (unsigned i = 0; i < sizeof buffers / sizeof buffers[0]; i++) {
		struct gt_memory m = { .timestamp = s->now, .address = 0x7f2a00000000ull + (i << 28),
			.bytes = buffers[i], .correlation_id = ++s->corr, .device_id = 0, .context_id = 1,
			.process_id = s->pid, .op = (uint8_t)op, .mem_kind = GT_MEM_DEVICE };
		s->now += jitter(op == GT_MEMORY_ALLOC ? 90000 : 40000, 0.1);
		CHECK(gt_writer_add(s->w, GT_REC_MEMORY, &m));
	}
	return 0;
}

/* One of each record type the loop does not produce, for small traces that cover the format. */
static int rare(struct synth *s)
{
	struct gt_dropped d = { .timestamp = s->now, .count = 17, .reason = GT_DROP_CUPTI,
		.context_id = 1 };
	CHECK(gt_writer_add(s->w, GT_REC_DROPPED, &d));
	struct gt_graph_launch g = { .start = s->now, .end = s->now + 4200, .graph_id = 7,
		.correlation_id = ++s->corr, .stream_id = 13 };
	CHECK(gt_writer_add(s->w, GT_REC_GRAPH_LAUNCH, &g));
	/* A captured launch of the tonemap kernel: its image buffer before and after as blobs, then
	 * the CAPTURE record naming them (pointer, pointer, two ints, a float). */
	uint8_t before[256], after[256];
	for (int i = 0; i < 256; i++) {
		before[i] = (uint8_t)i;
		after[i] = (uint8_t)(255 - i);
	}
	int64_t b0 = gt_writer_blob(s->w, GT_BLOB_BUFFER, before, sizeof before);
	int64_t b1 = gt_writer_blob(s->w, GT_BLOB_BUFFER, after, sizeof after);
	if (b0 < 0 || b1 < 0)
		return b0 < 0 ? (int)b0 : (int)b1;
	struct gt_capture c = { .capture_id = 1, .timestamp = s->now, .cubin_blob_id = 1,
		.name_id = s->names[2], .correlation_id = ++s->corr, .stream_id = 13,
		.grid = { 120, 68, 1 }, .block = { 16, 16, 1 }, .nparams = 5, .param_bytes = 28,
		.flags = GT_CAPTURE_STREAM_SYNCED | GT_CAPTURE_LAYOUT_NVINFO };
	struct gt_capture_param prm[5] = {
		{ 0, 8, GT_PARAM_POINTER, GT_PARAM_OK, 0x7f2a10000000ull, 256, (uint64_t)b0, (uint64_t)b1 },
		{ 8, 8, GT_PARAM_POINTER, GT_PARAM_TOO_LARGE, 0x7f2a20000000ull, 8294400, 0, 0 },
		{ 16, 4, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 },
		{ 20, 4, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 },
		{ 24, 4, GT_PARAM_SCALAR, GT_PARAM_OK, 0, 0, 0, 0 },
	};
	uint8_t args[28] = { 0 };
	uint8_t *rec;
	size_t len;
	CHECK(gt_capture_encode(&c, prm, args, &rec, &len));
	int rc = gt_writer_add_var(s->w, GT_REC_CAPTURE, rec, len);
	free(rec);
	return rc;
}

static int nvtx(struct synth *s, uint32_t name, uint64_t start, uint64_t end, uint32_t depth)
{
	struct gt_nvtx n = { .start = start, .end = end, .name_id = name, .thread_id = s->ostid,
		.depth = depth, .kind = GT_NVTX_PUSH_POP };
	return gt_writer_add(s->w, GT_REC_NVTX, &n);
}

static int frame(struct synth *s, uint64_t kernels_left)
{
	uint64_t f0 = s->now;
	s->now += jitter(8000, 0.1); /* host work before the upload */
	uint64_t u0 = s->now;
	CHECK(copy(s, GT_COPY_HTOD, 4u << 20)); /* 4 MiB of splats */
	uint64_t u1 = s->now, c0 = u1;
	CHECK(clear(s));
	for (unsigned k = 0; k < NKDEF && kernels_left; k++, kernels_left--)
		CHECK(launch(s, k));
	uint64_t c1 = s->now, d0 = c1;
	CHECK(copy(s, GT_COPY_DTOH, 1920u * 1080u * 4u)); /* the RGBA8 image */
	/* cudaStreamSynchronize: waits for the stream to drain. */
	uint32_t corr = ++s->corr;
	uint64_t s0 = s->now, s1 = (s->gpu_free > s0 ? s->gpu_free : s0) + jitter(2500, 0.1);
	CHECK(api(s, s->api_sync, 131, s0, s1, corr)); /* cudaStreamSynchronize_v3020 */
	struct gt_sync sy = { .start = s0, .end = s1, .correlation_id = corr, .context_id = 1,
		.stream_id = 13, .kind = GT_SYNC_STREAM };
	CHECK(gt_writer_add(s->w, GT_REC_SYNC, &sy));
	s->now = s1 + jitter(1500, 0.1);
	uint64_t d1 = s->now;
	CHECK(nvtx(s, s->nv_upload, u0, u1, 1));
	CHECK(nvtx(s, s->nv_composite, c0, c1, 1));
	CHECK(nvtx(s, s->nv_download, d0, d1, 1));
	s->now += jitter(4000, 0.1); /* present, input, the next frame's CPU work */
	CHECK(nvtx(s, s->nv_frame, f0, s->now, 0));
	return 0;
}

static int header(struct synth *s, const struct opts *o)
{
	char host[256], cmd[64];
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "unknown");
	host[sizeof host - 1] = '\0';
	snprintf(cmd, sizeof cmd, "%" PRIu64, o->seed);
	CHECK(gt_writer_meta(s->w, "trace.synthetic", "1"));
	CHECK(gt_writer_meta(s->w, "trace.generator", "gt_synth " TOOL_VERSION));
	CHECK(gt_writer_meta(s->w, "trace.shape", o->steady ? "steady" : "renderer"));
	CHECK(gt_writer_meta(s->w, "trace.seed", cmd));
	CHECK(gt_writer_meta(s->w, "tool.version", TOOL_VERSION));
	CHECK(gt_writer_meta(s->w, "cuda.driver", "synthetic (no driver)"));
	CHECK(gt_writer_meta(s->w, "cuda.runtime", "synthetic"));
	CHECK(gt_writer_meta(s->w, "cupti.version", "synthetic"));
	CHECK(gt_writer_meta(s->w, "host.name", host));
	CHECK(gt_writer_meta(s->w, "process.command", o->steady ? "gt_synth --shape steady"
	                                                          : "gt_synth (demo renderer shape)"));
	snprintf(cmd, sizeof cmd, "%u", s->pid);
	CHECK(gt_writer_meta(s->w, "process.pid", cmd));
	/* An H200 as CUDA and NVML describe it; the name says it is made up. */
	struct gt_device d = { .device_id = 0, .sm_count = 132, .cc_major = 9, .cc_minor = 0,
		.global_mem_bytes = 150754820096ull, .sm_clock_khz = 1980000, .mem_clock_khz = 2619000,
		.mem_bus_width_bits = 6144, .pcie_gen = 5, .pcie_width = 16, .pcie_gen_current = 5,
		.pcie_width_current = 16, .l2_bytes = 60u << 20, .max_threads_per_sm = 2048 };
	for (int i = 0; i < 16; i++)
		d.uuid[i] = (uint8_t)(0xa0 + i);
	CHECK(gt_writer_device(s->w, &d, "NVIDIA H200 (synthetic)"));
	struct gt_clock_sync cs = { .cupti_ns = s->now, .realtime_ns = 1700000000000000000ull,
		.monotonic_ns = 5000000000ull };
	CHECK(gt_writer_add(s->w, GT_REC_CLOCK_SYNC, &cs));
	struct gt_process p = { .timestamp = s->now, .host_ns = cs.realtime_ns, .pid = s->pid,
		.event = GT_PROCESS_START };
	CHECK(gt_writer_add(s->w, GT_REC_PROCESS, &p));
	/* Before rare(): its capture names the tonemap kernel. */
	for (unsigned k = 0; k < NKDEF; k++)
		if (!(s->names[k] = gt_writer_intern(s->w, o->kernel_name ? o->kernel_name : kernels[k].name)))
			return GT_ERR_NOMEM;
	if (!o->steady) {
		/* Module load: the cubin (a stand-in: an ELF header and filler), lazy loading overhead. */
		uint8_t cubin[2048];
		for (size_t i = 0; i < sizeof cubin; i++)
			cubin[i] = (uint8_t)(i * 7 + (i >> 5));
		memcpy(cubin, "\177ELF\2\1\1\63", 8);
		CHECK(gt_writer_blob(s->w, GT_BLOB_CUBIN, cubin, sizeof cubin));
		struct gt_overhead ov = { .start = s->now, .end = s->now + 153000, .object_id = s->tid,
			.kind = GT_OVERHEAD_LAZY_FUNCTION_LOADING, .object_kind = 2 };
		CHECK(gt_writer_add(s->w, GT_REC_OVERHEAD, &ov));
		s->now += 160000;
		CHECK(memory(s, GT_MEMORY_ALLOC));
		CHECK(clock_sample(s));
		if (o->all_types)
			CHECK(rare(s));
	}
	s->api_launch = gt_writer_intern(s->w, "cudaLaunchKernel");
	s->api_memcpy = gt_writer_intern(s->w, "cudaMemcpyAsync");
	s->api_sync = gt_writer_intern(s->w, "cudaStreamSynchronize");
	s->api_memset = gt_writer_intern(s->w, "cudaMemsetAsync");
	s->nv_frame = gt_writer_intern(s->w, "render_frame");
	s->nv_upload = gt_writer_intern(s->w, "upload");
	s->nv_composite = gt_writer_intern(s->w, "composite");
	s->nv_download = gt_writer_intern(s->w, "download");
	if (!s->nv_download)
		return GT_ERR_NOMEM;
	if (o->metric_samples || o->launch_metrics) {
		CHECK(gt_writer_meta(s->w, "metrics.sets", "synthetic"));
		for (unsigned m = 0; m < NMETRIC; m++)
			if (!(s->metric_ids[m] = gt_writer_intern(s->w, o->h200_names ? h200_names[m] : metric_rates[m].name)))
				return GT_ERR_NOMEM;
	}
	if (o->metric_samples) {
		char us[32];
		snprintf(us, sizeof us, "%" PRIu64, o->metrics_us);
		CHECK(gt_writer_meta(s->w, "metrics.interval_us", us));
	}
	return 0;
}

static int footer(struct synth *s, const struct opts *o)
{
	/* The samples up to the last kernel's end. */
	while (s->metric_samples && s->window && s->window < s->gpu_free)
		CHECK(sample_flush(s));
	if (!o->steady)
		CHECK(memory(s, GT_MEMORY_FREE));
	struct gt_clock_sync cs = { .cupti_ns = s->now, .realtime_ns = 1700000000000000000ull + s->now,
		.monotonic_ns = 5000000000ull + s->now };
	CHECK(gt_writer_add(s->w, GT_REC_CLOCK_SYNC, &cs));
	struct gt_process p = { .timestamp = s->now, .host_ns = cs.realtime_ns, .pid = s->pid,
		.event = GT_PROCESS_EXIT, .status = 0 };
	return gt_writer_add(s->w, GT_REC_PROCESS, &p);
}

/* Cuts the file in the middle of its last data chunk: finds the chunk boundaries from the chunk
 * headers (csize at byte 8 of each) and keeps half of the last data chunk. */
static int truncate_mid_chunk(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	uint64_t off = 32, last = 0, last_len = 0;
	unsigned char h[32];
	while (off + 32 <= (uint64_t)st.st_size && pread(fd, h, 32, (off_t)off) == 32) {
		uint32_t csize = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 |
		                 (uint32_t)h[11] << 24;
		last = off;
		last_len = 32 + (uint64_t)csize;
		off += last_len;
	}
	int rc = last ? ftruncate(fd, (off_t)(last + last_len / 2)) : -1;
	if (close(fd) != 0)
		rc = -1;
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o;
	if (parse_args(argc, argv, &o) != 0) {
		usage(stderr);
		return 2;
	}
	rng = o.seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
	struct synth s;
	memset(&s, 0, sizeof s);
	s.now = 1000000000ull + (rnd() % 1000000);
	s.pid = 4242;
	s.ostid = 4242;
	s.tid = 0x7f0011223344ull;
	s.metric_samples = o.metric_samples && !o.steady;
	s.launch_metrics = o.launch_metrics && !o.steady;
	s.interval = o.metrics_us * 1000;
	struct gt_writer_options wo = { .compression_level = o.level, .chunk_bytes = o.chunk_bytes };
	double t0 = now_s();
	int rc = gt_writer_open(&s.w, o.out, 0, &wo);
	if (rc) {
		fprintf(stderr, "gt_synth: cannot write '%s': %s\n", o.out, gt_strerror(rc));
		return 1;
	}
	rc = header(&s, &o);
	double write_secs = 0, close_secs = 0;
	if (!rc && o.steady)
		rc = steady(&s, o.kernels, &write_secs);
	for (uint64_t left = o.steady ? 0 : o.kernels; !rc && left;) {
		uint64_t before = s.kernels_written;
		if (s.frames++ % 1000 == 999)
			rc = clock_sample(&s);
		if (!rc)
			rc = frame(&s, left);
		left -= s.kernels_written - before;
	}
	if (!rc)
		rc = footer(&s, &o);
	uint64_t records = gt_writer_records(s.w);
	if (!rc && (o.truncate || o.no_end)) {
		/* Write what is buffered as a complete chunk, then leave as a crash would. */
		rc = gt_writer_flush(s.w);
		gt_writer_abandon(s.w);
	} else {
		double c0 = now_s();
		int crc = gt_writer_close(s.w);
		close_secs = now_s() - c0;
		if (!rc)
			rc = crc;
		records++; /* the END record */
	}
	double t1 = now_s();
	if (rc) {
		fprintf(stderr, "gt_synth: writing '%s' failed: %s\n", o.out, gt_strerror(rc));
		return 1;
	}
	if (o.truncate && truncate_mid_chunk(o.out) != 0) {
		fprintf(stderr, "gt_synth: cannot truncate '%s': %s\n", o.out, strerror(errno));
		return 1;
	}
	if (o.stats) {
		struct stat st;
		if (stat(o.out, &st) != 0) {
			fprintf(stderr, "gt_synth: cannot stat '%s': %s\n", o.out, strerror(errno));
			return 1;
		}
		/* seconds: everything, synthesis included. writer_seconds: for the steady shape, the
		 * writing of the kernel records alone (gt_writer_add and close: encode, compress,
		 * write); for the renderer shape synthesis is interleaved, so the same as seconds. */
		double secs = t1 - t0;
		double wsecs = o.steady ? write_secs + close_secs : secs;
		uint64_t wrecs = o.steady ? o.kernels : records;
		printf("records %" PRIu64 " kernels %" PRIu64 " bytes %lld bytes_per_kernel %.3f "
		       "bytes_per_record %.3f seconds %.3f records_per_s %.0f writer_seconds %.3f "
		       "writer_records_per_s %.0f\n",
		       records, s.kernels_written, (long long)st.st_size,
		       s.kernels_written ? (double)st.st_size / (double)s.kernels_written : 0.0,
		       records ? (double)st.st_size / (double)records : 0.0, secs,
		       secs > 0 ? (double)records / secs : 0.0, wsecs,
		       wsecs > 0 ? (double)wrecs / wsecs : 0.0);
	}
	return 0;
}

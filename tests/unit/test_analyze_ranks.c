/* test_analyze_ranks.c: gpuanalyze ranks' engine (ranks.c) on synthetic multi-rank jobs.
 *
 *   test_analyze_ranks write DIR   writes the job's traces into DIR (tests/cli/test_gpuanalyze_ranks.sh
 *                                  and tests/data/ranks/README.md use them)
 *   test_analyze_ranks             (as make check runs it) the tests below
 *
 * The job: three ranks of a data-parallel program, six steps each (NVTX range "step"), every true
 * time a multiple of 100 us so that each rank's CUPTI clock, c = K + t + t * ppm / 1e6 for true time
 * t, is an exact integer and the alignment must give every time back to the nanosecond:
 *
 *   rank 0  host node-a, pid 1000, K = 5 s,         0 ppm, pairings at t = 0 and 70 ms
 *           two devices with NVLink metadata (18 links to NVSwitches at 25 GB/s each); peer copies
 *           0->1: 4 x 64 MiB in 200, 180, 220, 160 us; 1->0: 2 x 32 MiB in 100 us
 *   rank 1  host node-a, pid 1001, K = 123.456789 s, +50 ppm, pairings at t = 0.1 and 70.1 ms;
 *           two devices, no NVLink metadata; one peer copy 0->1 of 64 MiB in 250 us
 *   rank 2  host node-b, pid 2002, K = 7000 s,      -20 ppm, pairings at t = 0.2 and 70.2 ms
 *
 * Step k of rank r starts at S_k + j_r (S_k = 1 ms + k * 10 ms, j_r = r * 100 us) and lasts 8 ms,
 * except rank 2's (9 ms: the straggler) and rank 0's step 3 (9.5 ms). In each step a gemm kernel runs
 * from 100 us after the start for 3, 3.1 or 5 ms (rank 0, 1, 2), then an NCCL all-reduce kernel from
 * the gemm's end to S_k + 6.1 ms, when the last rank (2) has arrived plus 1 ms: rank 2 waits 0.8 ms,
 * the others 3.0 and 2.8 ms. Top-level "data" ranges: 3 on ranks 0 and 1, 8 on rank 2 (so rank 2 alone
 * would pick "data"; over all ranks "step" has 18 instances, "data" 14). A nested "fwd" range
 * (depth 1) covers the gemm.
 *
 * Variants: rank 1 without any clock pairing (not aligned), with only its start pairing (offset
 * only); two "anonymous" traces without META process.rank whose steps are cut by host
 * synchronisations instead of NVTX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/support/diag.h"
#include "analyze/engines/ranks.h"
#include "traces/gputrace.h"
#include "helpers/synth_trace.h"

#define T0 1700000000000000000ull /* true time zero, on CLOCK_REALTIME */
#define STEPS 6
#define GEMM "_Z4gemmPKfS0_Pfi"
#define NCCL "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE"

enum { FL_NOCLOCK = 1, FL_ONEPAIR = 2, FL_NORANK = 4, FL_SYNC = 8 };

static const uint64_t K[3] = { 5000000000ull, 123456789000ull, 7000000000000ull };
static const int64_t PPM[3] = { 0, 50, -20 };
static const uint64_t GEMM_NS[3] = { 3000000, 3100000, 5000000 };
static const char *const HOST[3] = { "node-a", "node-a", "node-b" };
static const char *const PID[3] = { "1000", "1001", "2002" };

/* Rank r's CUPTI clock at true time t (t a multiple of 100 us: exact). */
static uint64_t cupti(int r, uint64_t t) { return K[r] + t + (uint64_t)((int64_t)t * PPM[r] / 1000000); }

/* A duration from true time t0 to t1 as rank r's CUPTI clock measures it (what kernel and step
 * durations are: the drift of a clock changes them by its ppm). */
static double cdur(int r, uint64_t t0, uint64_t t1) { return (double)(cupti(r, t1) - cupti(r, t0)); }

static uint64_t step_start(int k) { return 1000000 + (uint64_t)k * 10000000; }
static uint64_t jitter(int r) { return (uint64_t)r * 100000; }
static uint64_t step_dur(int r, int k) { return r == 2 ? 9000000 : r == 0 && k == 3 ? 9500000 : 8000000; }
static uint64_t nccl_end(int k) { return step_start(k) + 6100000; }

static int meta(struct gt_writer *w, const char *k, const char *v) { return gt_writer_meta(w, k, v); }

static int device(struct gt_writer *w, uint32_t id, uint8_t uuid0)
{
	struct gt_device d;
	memset(&d, 0, sizeof d);
	d.device_id = id;
	d.sm_count = 132;
	d.cc_major = 9;
	d.mem_clock_khz = 2619000;
	d.mem_bus_width_bits = 6144;
	d.pcie_gen = 5;
	d.pcie_width = 16;
	for (int i = 0; i < 16; i++)
		d.uuid[i] = (uint8_t)(uuid0 + i);
	return gt_writer_device(w, &d, "NVIDIA H200");
}

static int clock_sync(struct gt_writer *w, int r, uint64_t t)
{
	struct gt_clock_sync s = { cupti(r, t), T0 + t, 42000000000ull + (uint64_t)r * 1000000000ull + t };
	return gt_writer_add(w, GT_REC_CLOCK_SYNC, &s);
}

static int kernel(struct gt_writer *w, int r, const char *name, uint64_t t0, uint64_t t1)
{
	return synth_kernel(w, name, cupti(r, t0), cupti(r, t1), 0);
}

static int nvtx(struct gt_writer *w, int r, const char *name, uint64_t t0, uint64_t t1, uint32_t depth)
{
	struct gt_nvtx n;
	memset(&n, 0, sizeof n);
	n.start = cupti(r, t0);
	n.end = cupti(r, t1);
	n.name_id = gt_writer_intern(w, name);
	n.thread_id = 77;
	n.depth = depth;
	n.kind = GT_NVTX_PUSH_POP;
	return n.name_id ? gt_writer_add(w, GT_REC_NVTX, &n) : GT_ERR_NOMEM;
}

static int host_sync(struct gt_writer *w, int r, uint64_t t0, uint64_t t1)
{
	struct gt_sync s;
	memset(&s, 0, sizeof s);
	s.start = cupti(r, t0);
	s.end = cupti(r, t1);
	s.stream_id = 0xffffffffu;
	s.kind = GT_SYNC_CONTEXT;
	return gt_writer_add(w, GT_REC_SYNC, &s);
}

static int peer(struct gt_writer *w, int r, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t t0,
                uint64_t ns)
{
	struct gt_memcpy m;
	memset(&m, 0, sizeof m);
	m.start = cupti(r, t0);
	m.end = m.start + ns; /* durations are given on the CUPTI clock */
	m.bytes = bytes;
	m.device_id = src;
	m.dst_device_id = dst;
	m.context_id = 1;
	m.stream_id = 9;
	m.copy_kind = GT_COPY_PTOP;
	m.src_kind = m.dst_kind = GT_MEM_DEVICE;
	m.flags = GT_COPY_ASYNC;
	return gt_writer_add(w, GT_REC_MEMCPY, &m);
}

/* The NVLink keys ranks.h reads, as a recorder that reads NVML's NVLink state would write them. */
static int nvlink_meta(struct gt_writer *w, uint32_t dev, const char *pci)
{
	char key[64], remote[256] = "";
	for (int i = 0; i < 18; i++)
		strcat(remote, i ? ",switch" : "switch");
	int rc = 0;
	snprintf(key, sizeof key, "device.%u.pci_bus_id", dev);
	rc |= meta(w, key, pci);
	snprintf(key, sizeof key, "device.%u.nvlink.link_gbps", dev);
	rc |= meta(w, key, "25");
	snprintf(key, sizeof key, "device.%u.nvlink.remote", dev);
	rc |= meta(w, key, remote);
	return rc;
}

static int write_rank(const char *path, int r, unsigned flags)
{
	struct gt_writer *w;
	struct gt_writer_options opt = { 0 };
	int rc = gt_writer_open(&w, path, 0, &opt);
	if (rc)
		return rc;
	char rank[8];
	snprintf(rank, sizeof rank, "%d", r);
	rc |= meta(w, "tool.version", "0.1.0");
	rc |= meta(w, "trace.synthetic", "1");
	rc |= meta(w, "host.name", HOST[r]);
	rc |= meta(w, "process.pid", PID[r]);
	if (!(flags & FL_NORANK)) {
		rc |= meta(w, "process.rank", rank);
		rc |= meta(w, "process.rank_from", "RANK");
	}
	rc |= device(w, 0, (uint8_t)(0x10 * (r + 1)));
	if (r < 2)
		rc |= device(w, 1, (uint8_t)(0x10 * (r + 1) + 0x80));
	if (r == 0) {
		rc |= nvlink_meta(w, 0, "00000000:19:00.0");
		rc |= nvlink_meta(w, 1, "00000000:3B:00.0");
	}
	uint64_t t_first = jitter(r), t_last = 70000000 + jitter(r);
	if (!(flags & FL_NOCLOCK))
		rc |= clock_sync(w, r, t_first);
	for (int k = 0; k < STEPS && !rc; k++) {
		uint64_t s = step_start(k) + jitter(r), g0 = s + 100000, g1 = g0 + GEMM_NS[r];
		uint64_t e = s + step_dur(r, k);
		if (flags & FL_SYNC) {
			rc |= host_sync(w, r, e - 100000, e);
		} else {
			rc |= nvtx(w, r, "step", s, e, 0);
			rc |= nvtx(w, r, "fwd", g0, g1, 1);
		}
		rc |= kernel(w, r, GEMM, g0, g1);
		rc |= kernel(w, r, NCCL, g1, nccl_end(k));
		unsigned data = r == 2 ? 8 : 3;
		if (!(flags & FL_SYNC) && (unsigned)k < data)
			rc |= nvtx(w, r, "data", step_start(k) + 9600000, step_start(k) + 9800000, 0);
	}
	if (r == 2 && !(flags & FL_SYNC)) /* its last two "data" ranges, after the steps */
		for (int k = STEPS; k < 8 && !rc; k++)
			rc |= nvtx(w, r, "data", step_start(k) + 9600000, step_start(k) + 9800000, 0);
	if (r == 0) {
		static const uint64_t ns[4] = { 200000, 180000, 220000, 160000 };
		for (int i = 0; i < 4; i++)
			rc |= peer(w, r, 0, 1, 64ull << 20, 62000000 + (uint64_t)i * 1000000, ns[i]);
		for (int i = 0; i < 2; i++)
			rc |= peer(w, r, 1, 0, 32ull << 20, 66000000 + (uint64_t)i * 1000000, 100000);
	} else if (r == 1) {
		rc |= peer(w, r, 0, 1, 64ull << 20, 62000000, 250000);
	}
	if (!(flags & (FL_NOCLOCK | FL_ONEPAIR)))
		rc |= clock_sync(w, r, t_last);
	if (rc) {
		gt_writer_abandon(w);
		return rc < 0 ? rc : GT_ERR_IO;
	}
	return synth_close_reproducible(w, 1);
}

/* The job's traces in dir: rank0.gtrace, rank1.gtrace, rank2.gtrace, rank1-noclock.gtrace,
 * rank1-onepair.gtrace, anon-a.gtrace, anon-b.gtrace. */
static int write_job(const char *dir)
{
	static const struct {
		const char *name;
		int rank;
		unsigned flags;
	} files[] = {
		{ "rank0.gtrace", 0, 0 },
		{ "rank1.gtrace", 1, 0 },
		{ "rank2.gtrace", 2, 0 },
		{ "rank1-noclock.gtrace", 1, FL_NOCLOCK },
		{ "rank1-onepair.gtrace", 1, FL_ONEPAIR },
		{ "anon-a.gtrace", 0, FL_NORANK | FL_SYNC },
		{ "anon-b.gtrace", 2, FL_NORANK | FL_SYNC },
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
		int rc = write_rank(path, files[i].rank, files[i].flags);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- fixtures for the tests ----------------------------------------------------------------------- */

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/gt_ranks_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return write_job(dir);
}

static int teardown(void **state)
{
	(void)state;
	static const char *const names[] = { "rank0.gtrace", "rank1.gtrace", "rank2.gtrace",
		"rank1-noclock.gtrace", "rank1-onepair.gtrace", "anon-a.gtrace", "anon-b.gtrace" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}

/* Runs the engine on the named files of the job (NULL-terminated), diagnostics into *diag. */
static int run(struct gt_ranks *g, const struct gt_ranks_options *o, char **diag, ...)
{
	char *paths[8];
	size_t n = 0;
	va_list ap;
	va_start(ap, diag);
	for (const char *f; n < 8 && (f = va_arg(ap, const char *)) != NULL;) {
		paths[n] = malloc(strlen(dir) + strlen(f) + 2);
		sprintf(paths[n++], "%s/%s", dir, f);
	}
	va_end(ap);
	size_t len = 0;
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	gt_diag_set_stream(mem);
	int rc = gt_ranks_run(g, paths, n, o);
	gt_diag_flush(); /* what the engine holds (failure.h), said as the command would */
	gt_diag_set_stream(NULL);
	fclose(mem);
	if (diag)
		*diag = buf;
	else
		free(buf);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	return rc;
}

static const struct gt_ranks_options plain = { NULL, 0 };

/* The rank's index in g->ranks. */
static size_t at(const struct gt_ranks *g, long long rank)
{
	for (size_t i = 0; i < g->nranks; i++)
		if (g->ranks[i].rank == rank)
			return i;
	fail_msg("rank %lld not found", rank);
	return SIZE_MAX;
}

/* ---- tests ------------------------------------------------------------------------------------------ */

/* Files given as 2, 0, 1: ranks come from the metadata and are ordered by rank, with who recorded
 * each and its devices. */
static void test_ranks_from_metadata_in_any_order(void **state)
{
	(void)state;
	struct gt_ranks g;
	char *diag;
	assert_int_equal(run(&g, &plain, &diag, "rank2.gtrace", "rank0.gtrace", "rank1.gtrace", NULL), 0);
	assert_string_equal(diag, "");
	free(diag);
	assert_int_equal(g.nranks, 3);
	assert_int_equal(g.rank_source, GT_RANK_FROM_META);
	static const size_t given[3] = { 1, 2, 0 };
	for (int r = 0; r < 3; r++) {
		const struct gt_rank *x = &g.ranks[r];
		assert_int_equal(x->rank, r);
		assert_int_equal(x->given, given[r]);
		assert_string_equal(x->host, HOST[r]);
		assert_string_equal(x->pid, PID[r]);
		assert_string_equal(x->rank_from, "RANK");
		assert_int_equal(x->ndevices, r < 2 ? 2 : 1);
		assert_int_equal(x->kernels, 2 * STEPS);
		assert_int_equal(x->comm_kernels, STEPS);
		assert_non_null(x->synthetic);
	}
	assert_string_equal(g.ranks[0].devices[0].uuid, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
	assert_int_equal(g.nhosts, 2);
	assert_false(g.one_host);
	gt_ranks_release(&g);
}

/* Each rank's CUPTI times come back as the true realtime, to the nanosecond, and the alignment's
 * quantities are those the clock model implies. */
static void test_alignment_is_exact(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "rank0.gtrace", "rank1.gtrace", "rank2.gtrace", NULL), 0);
	for (int r = 0; r < 3; r++) {
		const struct gt_align *a = &g.ranks[r].align;
		assert_int_equal(a->state, GT_ALIGN_FIT);
		assert_int_equal(a->pairings, 2);
		/* offset(t) = T0 + t - c(t) = T0 - K - t * ppm / 1e6 */
		int64_t t0 = (int64_t)jitter(r), t1 = 70000000 + t0;
		assert_int_equal(a->offset_start_ns, (int64_t)(T0 - K[r]) - t0 * PPM[r] / 1000000);
		assert_int_equal(a->offset_end_ns, (int64_t)(T0 - K[r]) - t1 * PPM[r] / 1000000);
		assert_int_equal(a->offset_change_ns, -70000000 * PPM[r] / 1000000);
		assert_int_equal(a->span_ns, cupti(r, (uint64_t)t1) - cupti(r, (uint64_t)t0));
		double drift = 1e6 * (double)a->offset_change_ns / (double)a->span_ns;
		assert_true(a->drift_ppm == drift);
		assert_true(a->uncertainty_ns == fabs((double)a->offset_change_ns));
		assert_int_equal(a->realtime_adjust_ns, 0);
		for (uint64_t t = 0; t <= 80000000; t += 1300000) { /* inside and outside the pairings */
			int64_t h;
			assert_int_equal(gt_align_to_host(a, cupti(r, t), &h), 0);
			assert_int_equal(h, (int64_t)(T0 + t));
		}
		assert_int_equal(g.ranks[r].origin_host, (int64_t)(T0 + jitter(r)));
	}
	assert_int_equal(g.aligned, 3);
	assert_int_equal(g.start_host, (int64_t)T0);
	assert_true(g.lag_uncertainty_ns == 3500 + 1400); /* the two largest: ranks 1 and 2 */
	gt_ranks_release(&g);
}

/* Steps are the "step" range, chosen over all ranks although rank 2 alone would pick "data"; rank 2
 * is the slowest in every step but step 3 (rank 0), and the one the others waited for in every
 * all-reduce. Every number is the one the fixture's design gives. */
static void test_straggler_per_step(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "rank0.gtrace", "rank1.gtrace", "rank2.gtrace", NULL), 0);
	assert_int_equal(g.steps_mode, GT_SPLIT_NVTX);
	assert_string_equal(g.steps_range, "step");
	assert_false(g.steps_range_given);
	assert_string_equal(g.steps_why, "");
	for (int r = 0; r < 3; r++)
		assert_string_equal(g.ranks[r].split.range, "step");
	assert_int_equal(g.nsteps, STEPS);
	assert_true(g.have_comm);
	for (int k = 0; k < STEPS; k++) {
		const struct gt_rank_step *s = &g.steps[k];
		double d[3];
		for (int r = 0; r < 3; r++) {
			uint64_t t = step_start(k) + jitter(r);
			d[r] = cdur(r, t, t + step_dur(r, k));
		}
		assert_int_equal(s->index, k);
		if (k == 3) {
			assert_int_equal(g.ranks[s->slowest].rank, 0);
			assert_true(s->dur_ns == 9500000);
			assert_true(s->others_ns == (d[1] + d[2]) / 2);
			assert_true(s->ratio == 9500000 / ((d[1] + d[2]) / 2));
			assert_true(s->lag_ns == 850000);          /* 9.5 - median(8.1, 9.2) ms, true time */
		} else {
			assert_int_equal(g.ranks[s->slowest].rank, 2);
			assert_true(s->dur_ns == d[2]);
			assert_true(s->others_ns == (d[0] + d[1]) / 2);
			assert_true(s->ratio == d[2] / ((d[0] + d[1]) / 2));
			assert_true(s->lag_ns == 1150000);         /* 9.2 - median(8.0, 8.1) ms */
		}
		/* all-reduce from the end of each rank's gemm to S_k + 6.1 ms */
		double w[3];
		for (int r = 0; r < 3; r++)
			w[r] = cdur(r, step_start(k) + jitter(r) + 100000 + GEMM_NS[r], nccl_end(k));
		assert_int_equal(g.ranks[s->waited].rank, 2);
		assert_true(s->wait_ns == w[2]);
		assert_true(s->wait_others_ns == (w[0] + w[1]) / 2);
		for (int r = 0; r < 3; r++) {
			size_t i = at(&g, r);
			assert_true(g.step_dur[k * 3 + i] == d[r]);
			assert_true(g.step_end[k * 3 + i] == (double)(step_start(k) + jitter(r) + step_dur(r, k)));
		}
	}
	assert_int_equal(g.ranks[g.most_slowest].rank, 2);
	assert_int_equal(g.ranks[at(&g, 2)].slowest, 5);
	assert_true(g.ranks[at(&g, 2)].slowest_ratio == g.steps[0].ratio); /* the same in every step */
	assert_int_equal(g.ranks[at(&g, 0)].slowest, 1);
	assert_true(g.ranks[at(&g, 0)].slowest_ratio == g.steps[3].ratio);
	assert_int_equal(g.ranks[at(&g, 1)].slowest, 0);
	assert_true(isnan(g.ranks[at(&g, 1)].slowest_ratio));
	assert_int_equal(g.ranks[g.most_waited].rank, 2);
	assert_int_equal(g.ranks[at(&g, 2)].waited_for, STEPS);
	gt_ranks_release(&g);
}

static const struct gt_rank_spread *spread_of(const struct gt_ranks *g, const char *name)
{
	for (size_t i = 0; i < g->nspread; i++)
		if (strcmp(g->spread[i].row->name, name) == 0)
			return &g->spread[i];
	fail_msg("no spread row for %s", name);
	return NULL;
}

/* Per-rank summaries, the merged one (every rank's launches in one sample) and the spread of the
 * per-rank medians. */
static void test_merged_summary_and_spread(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "rank1.gtrace", "rank2.gtrace", "rank0.gtrace", NULL), 0);
	assert_int_equal(g.merged.nkernels, 2);
	assert_int_equal(g.merged.nfiles, 3);
	/* Each rank's durations on its own CUPTI clock: gemm 3.0, 3.1, 5.0 ms; all-reduce 3.0, 2.8,
	 * 0.8 ms, times 1 + ppm / 1e6. */
	double gemm[3], nccl[3];
	for (int r = 0; r < 3; r++) {
		gemm[r] = cdur(r, 0, GEMM_NS[r]);
		nccl[r] = cdur(r, 0, 6000000 - jitter(r) - GEMM_NS[r]);
	}
	for (size_t i = 0; i < g.merged.nkernels; i++) {
		const struct gt_summary_row *k = &g.merged.kernels[i];
		assert_int_equal(k->st.n, 3 * STEPS);
		if (strcmp(k->name, GEMM) == 0) {
			assert_true(k->st.median == gemm[1]); /* 6 x each rank's: the middle two are rank 1's */
			assert_true(k->st.min == gemm[0]);
			assert_true(k->st.max == gemm[2]);
		} else {
			assert_string_equal(k->name, NCCL);
			assert_true(k->st.median == nccl[1]);
		}
	}
	for (int r = 0; r < 3; r++) {
		const struct gt_summary *s = &g.ranks[at(&g, r)].summary;
		assert_int_equal(s->nkernels, 2);
		for (size_t i = 0; i < 2; i++)
			assert_true(s->kernels[i].st.median ==
			            (strcmp(s->kernels[i].name, GEMM) == 0 ? gemm[r] : nccl[r]));
	}
	const struct gt_rank_spread *sp = spread_of(&g, GEMM);
	assert_int_equal(sp->nranks, 3);
	assert_true(sp->min == gemm[0]);
	assert_int_equal(g.ranks[sp->min_rank].rank, 0);
	assert_true(sp->median == gemm[1]);
	assert_true(sp->max == gemm[2]);
	assert_int_equal(g.ranks[sp->max_rank].rank, 2);
	assert_true(sp->ratio == gemm[2] / gemm[0]);
	sp = spread_of(&g, NCCL);
	assert_true(sp->min == nccl[2]);
	assert_int_equal(g.ranks[sp->min_rank].rank, 2);
	assert_true(sp->median == nccl[1]);
	assert_true(sp->max == nccl[0]);
	assert_int_equal(g.ranks[sp->max_rank].rank, 0);
	gt_ranks_release(&g);
}

/* numpy.percentile(x, p) (method 'linear') of a sorted sample, written out independently. */
static double pct(const double *x, size_t n, double p)
{
	double h = (double)(n - 1) * p / 100;
	size_t lo = (size_t)floor(h);
	return lo + 1 < n ? x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]) : x[n - 1];
}

/* Peer copies per rank and device pair, in decimal GB/s, against the NVLink peak where the trace
 * describes the links (rank 0: 18 switch links x 25 GB/s) and "unknown" where it does not. */
static void test_peer_copies_against_link_peak(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "rank2.gtrace", "rank1.gtrace", "rank0.gtrace", NULL), 0);
	assert_int_equal(g.npeers, 3);
	const struct gt_rank_peer *p = &g.peers[0];
	assert_int_equal(g.ranks[p->rank].rank, 0);
	assert_int_equal(p->src, 0);
	assert_int_equal(p->dst, 1);
	assert_int_equal(p->count, 4);
	assert_int_equal(p->bytes, 4 * (64ull << 20));
	assert_true(p->time_ns == 760000);
	double b = (double)(64ull << 20);
	double x[4] = { b / 220000, b / 200000, b / 180000, b / 160000 }; /* sorted */
	assert_true(fabs(p->median - (x[1] + x[2]) / 2) < 1e-9);
	assert_true(fabs(p->p10 - pct(x, 4, 10)) < 1e-9);
	assert_true(fabs(p->p90 - pct(x, 4, 90)) < 1e-9);
	assert_int_equal(p->link, GT_LINK_NVLINK);
	assert_int_equal(p->links, 18);
	assert_true(p->peak == 450);
	assert_true(fabs(p->pct - 100 * p->median / 450) < 1e-9);
	p = &g.peers[1];
	assert_int_equal(g.ranks[p->rank].rank, 0);
	assert_int_equal(p->src, 1);
	assert_int_equal(p->dst, 0);
	assert_int_equal(p->count, 2);
	assert_true(fabs(p->median - (double)(32ull << 20) / 100000) < 1e-9);
	assert_int_equal(p->link, GT_LINK_NVLINK);
	p = &g.peers[2];
	assert_int_equal(g.ranks[p->rank].rank, 1);
	assert_int_equal(p->count, 1);
	assert_int_equal(p->link, GT_LINK_UNKNOWN);
	assert_true(isnan(p->peak));
	assert_true(isnan(p->pct));
	gt_ranks_release(&g);
}

/* A trace without clock pairings is said to be not aligned; lags use the aligned ranks only. */
static void test_missing_clock_pairing_is_not_aligned(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "rank0.gtrace", "rank1-noclock.gtrace", "rank2.gtrace", NULL), 0);
	const struct gt_rank *r1 = &g.ranks[at(&g, 1)];
	assert_int_equal(r1->align.state, GT_ALIGN_NONE);
	assert_string_equal(r1->align.why, "no clock pairing (CLOCK_SYNC record) in the trace");
	int64_t h;
	assert_int_equal(gt_align_to_host(&r1->align, 123, &h), GT_ERR_STATE);
	assert_int_equal(g.aligned, 2);
	assert_true(g.lag_uncertainty_ns == 0 + 1400);
	assert_int_equal(g.nsteps, STEPS);
	for (int k = 0; k < STEPS; k++) {
		assert_true(isnan(g.step_end[k * 3 + at(&g, 1)]));
		/* rank 2: 9.2 - 8.0 ms (rank 0 alone); step 3, rank 0: 9.5 - 9.2 ms (rank 2 alone) */
		assert_true(g.steps[k].lag_ns == (k == 3 ? 300000 : 1200000));
	}
	gt_ranks_release(&g);
}

/* Only the start pairing: aligned by offset, uncertainty unknown, and so is the lags' error. */
static void test_one_pairing_is_offset_only(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "rank0.gtrace", "rank1-onepair.gtrace", "rank2.gtrace", NULL), 0);
	const struct gt_align *a = &g.ranks[at(&g, 1)].align;
	assert_int_equal(a->state, GT_ALIGN_OFFSET);
	assert_true(isnan(a->uncertainty_ns));
	int64_t h;
	assert_int_equal(gt_align_to_host(a, cupti(1, 100000), &h), 0);
	assert_int_equal(h, (int64_t)(T0 + 100000));
	assert_true(isnan(g.lag_uncertainty_ns));
	assert_int_equal(g.aligned, 3);
	gt_ranks_release(&g);
}

/* Without META process.rank, ranks are the order given, said so; steps come from host syncs. */
static void test_order_given_without_metadata(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "anon-b.gtrace", "anon-a.gtrace", NULL), 0);
	assert_int_equal(g.rank_source, GT_RANK_FROM_ORDER);
	assert_non_null(strstr(g.rank_why, "anon-b.gtrace has no META process.rank"));
	assert_int_equal(g.ranks[0].rank, 0);
	assert_non_null(strstr(g.ranks[0].path, "anon-b"));
	assert_int_equal(g.ranks[1].rank, 1);
	assert_int_equal(g.steps_mode, GT_SPLIT_SYNC);
	assert_null(g.steps_range);
	/* anon-a (the job's rank 0 shape) has GPU work (its peer copies) after its last sync: one more
	 * interval than anon-b */
	assert_int_equal(g.nsteps, STEPS);
	assert_string_equal(g.steps_why, "the ranks have different numbers of steps (rank 0: 6, rank 1: 7): "
	                                 "the first 6 compared");
	/* step 3 is anon-a's long one: 11.5 ms from the sync that ended step 2 */
	assert_int_equal(g.ranks[g.steps[3].slowest].rank, 1);
	assert_true(g.steps[3].dur_ns == 11500000);
	gt_ranks_release(&g);
}

/* Two traces that say the same rank: the order given is used, and a trace given twice is named. */
static void test_duplicate_rank_uses_order(void **state)
{
	(void)state;
	struct gt_ranks g;
	char *diag;
	assert_int_equal(run(&g, &plain, &diag, "rank0.gtrace", "rank0.gtrace", NULL), 0);
	assert_int_equal(g.rank_source, GT_RANK_FROM_ORDER);
	assert_non_null(strstr(g.rank_why, "both say rank 0"));
	assert_non_null(strstr(diag, "gpuanalyze: warning: "));
	assert_non_null(strstr(diag, "come from the same process (host node-a, pid 1000)"));
	free(diag);
	/* the same steps twice: every one a tie, in duration and in collective time */
	assert_int_equal(g.nsteps, STEPS);
	assert_int_equal(g.steps_tied, STEPS);
	assert_int_equal(g.waits_tied, STEPS);
	assert_int_equal(g.most_slowest, SIZE_MAX);
	assert_int_equal(g.most_waited, SIZE_MAX);
	for (int k = 0; k < STEPS; k++) {
		assert_int_equal(g.steps[k].slowest, SIZE_MAX);
		assert_true(isnan(g.steps[k].ratio));
		assert_int_equal(g.steps[k].waited, SIZE_MAX);
	}
	gt_ranks_release(&g);
}

/* Steps by a range of different counts: compared up to the shortest, said so. */
static void test_range_given_with_different_counts(void **state)
{
	(void)state;
	struct gt_ranks g;
	struct gt_ranks_options o = { "data", 0 };
	assert_int_equal(run(&g, &o, NULL, "rank0.gtrace", "rank1.gtrace", "rank2.gtrace", NULL), 0);
	assert_string_equal(g.steps_range, "data");
	assert_true(g.steps_range_given);
	assert_int_equal(g.nsteps, 3);
	assert_string_equal(g.steps_why, "the ranks have different numbers of steps (rank 0: 3, rank 1: 3, "
	                                 "rank 2: 8): the first 3 compared");
	gt_ranks_release(&g);
}

/* A --range that a trace lacks is an input error, reported in the analyzer's voice. */
static void test_range_missing_is_an_error(void **state)
{
	(void)state;
	struct gt_ranks g;
	struct gt_ranks_options o = { "nope", 0 };
	char *diag;
	assert_int_equal(run(&g, &o, &diag, "rank0.gtrace", "rank1.gtrace", NULL), GT_ERR_ARG);
	assert_non_null(strstr(diag, "gpuanalyze: no NVTX range named 'nope'"));
	assert_null(strstr(diag, "warning"));
	free(diag);
	gt_ranks_release(&g);
}

/* An unreadable trace stops everything with the loader's message. */
static void test_unreadable_trace(void **state)
{
	(void)state;
	struct gt_ranks g;
	char *diag;
	assert_int_equal(run(&g, &plain, &diag, "rank0.gtrace", "missing.gtrace", NULL), GT_ERR_IO);
	assert_non_null(strstr(diag, "gpuanalyze: cannot open trace '"));
	assert_non_null(strstr(diag, "missing.gtrace"));
	free(diag);
}

/* Warm-up drops the first N launches of each kernel per rank and the first N steps of every rank,
 * which keep their indices. */
static void test_warmup_drops_launches_and_steps(void **state)
{
	(void)state;
	struct gt_ranks g;
	struct gt_ranks_options o = { NULL, 2 };
	assert_int_equal(run(&g, &o, NULL, "rank0.gtrace", "rank1.gtrace", "rank2.gtrace", NULL), 0);
	assert_int_equal(g.nsteps, STEPS - 2);
	assert_int_equal(g.warmup_steps, 2);
	assert_int_equal(g.steps[0].index, 2);
	assert_int_equal(g.ranks[at(&g, 0)].slowest, 1); /* step 3 is still there */
	for (size_t i = 0; i < g.merged.nkernels; i++) {
		assert_int_equal(g.merged.kernels[i].st.n, 3 * (STEPS - 2));
		assert_int_equal(g.merged.kernels[i].warmup_dropped, 3 * 2);
	}
	gt_ranks_release(&g);
}

/* Ranks whose steps are of different kinds are not matched, and the reason names both. */
static void test_mixed_step_kinds_not_matched(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "rank0.gtrace", "anon-b.gtrace", NULL), 0);
	assert_int_equal(g.steps_mode, 0);
	assert_int_equal(g.nsteps, 0);
	assert_int_equal(g.most_slowest, SIZE_MAX);
	assert_non_null(strstr(g.steps_why, "not matched: rank 0's steps are by NVTX range 'step'"));
	assert_non_null(strstr(g.steps_why, "by host synchronisations"));
	gt_ranks_release(&g);
}

/* One trace: its summary and alignment, and nothing to compare steps with. */
static void test_one_rank(void **state)
{
	(void)state;
	struct gt_ranks g;
	assert_int_equal(run(&g, &plain, NULL, "rank1.gtrace", NULL), 0);
	assert_int_equal(g.nranks, 1);
	assert_true(g.one_host);
	assert_int_equal(g.nsteps, 0);
	assert_string_equal(g.steps_why, "one rank: nothing to compare its steps with");
	assert_int_equal(g.ranks[0].align.state, GT_ALIGN_FIT);
	gt_ranks_release(&g);
}

static void test_collective_names(void **state)
{
	(void)state;
	assert_true(gt_ranks_is_collective(NCCL));
	assert_true(gt_ranks_is_collective("ncclKernel_AllReduce_RING_LL_Sum_float"));
	assert_true(gt_ranks_is_collective("_ZN4nccl6kernelEv")); /* in namespace nccl */
	assert_true(gt_ranks_is_collective("_ZL28ncclDevKernel_SendRecv_Argsv"));
	assert_false(gt_ranks_is_collective(GEMM));
	assert_false(gt_ranks_is_collective("_Z"));
	assert_false(gt_ranks_is_collective(""));
	assert_false(gt_ranks_is_collective("_Z12my_nccl_wrapv"));
}

/* The link peak rule of ranks.h, on devices described by hand: direct links, switches on both
 * sides (the smaller count), no NVLink path (PCIe), and missing rates. */
static void test_link_peak_rule(void **state)
{
	(void)state;
	struct gt_rank_device d[3];
	memset(d, 0, sizeof d);
	struct gt_rank r = { .devices = d, .ndevices = 3 };
	char a[] = "gpu:00000000:3b:00.0,gpu:00000000:3B:00.0,switch,switch,switch,other";
	char b[] = "switch, switch";
	char c[] = "";
	d[0] = (struct gt_rank_device){ .id = 0, .nvlink_known = 1, .pci = "00000000:19:00.0",
	                                .link_gbps = 25, .nvlink_remote = a, .peak_pcie = 63 };
	d[1] = (struct gt_rank_device){ .id = 1, .nvlink_known = 1, .pci = "00000000:3B:00.0",
	                                .link_gbps = 20, .nvlink_remote = b, .peak_pcie = 31.5 };
	d[2] = (struct gt_rank_device){ .id = 2, .nvlink_known = 1, .pci = "00000000:5D:00.0",
	                                .link_gbps = 25, .nvlink_remote = c, .peak_pcie = 63 };
	double peak;
	unsigned links;
	assert_int_equal(gt_ranks_link_peak(&r, 0, 1, &peak, &links), GT_LINK_NVLINK);
	assert_int_equal(links, 2 + 2);       /* two direct, min(3, 2) through switches */
	assert_true(peak == 4 * 20.0);        /* the slower side's rate */
	assert_int_equal(gt_ranks_link_peak(&r, 0, 2, &peak, &links), GT_LINK_PCIE);
	assert_int_equal(links, 0);
	assert_true(peak == 63);
	assert_int_equal(gt_ranks_link_peak(&r, 1, 2, &peak, &links), GT_LINK_PCIE);
	assert_true(peak == 31.5);
	assert_int_equal(gt_ranks_link_peak(&r, 0, 7, &peak, &links), GT_LINK_UNKNOWN);
	assert_true(isnan(peak));
	d[1].link_gbps = 0;
	assert_int_equal(gt_ranks_link_peak(&r, 0, 1, &peak, &links), GT_LINK_UNKNOWN);
	d[1].nvlink_known = 0;
	assert_int_equal(gt_ranks_link_peak(&r, 0, 1, &peak, &links), GT_LINK_UNKNOWN);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "write") == 0) {
		if (mkdir(argv[2], 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "test_analyze_ranks: cannot create '%s': %s\n", argv[2], strerror(errno));
			return 1;
		}
		int rc = write_job(argv[2]);
		if (rc) {
			fprintf(stderr, "test_analyze_ranks: cannot write the job's traces in '%s': %s\n", argv[2],
			        gt_strerror(rc));
			return 1;
		}
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks_from_metadata_in_any_order),
		cmocka_unit_test(test_alignment_is_exact),
		cmocka_unit_test(test_straggler_per_step),
		cmocka_unit_test(test_merged_summary_and_spread),
		cmocka_unit_test(test_peer_copies_against_link_peak),
		cmocka_unit_test(test_missing_clock_pairing_is_not_aligned),
		cmocka_unit_test(test_one_pairing_is_offset_only),
		cmocka_unit_test(test_order_given_without_metadata),
		cmocka_unit_test(test_duplicate_rank_uses_order),
		cmocka_unit_test(test_range_given_with_different_counts),
		cmocka_unit_test(test_range_missing_is_an_error),
		cmocka_unit_test(test_unreadable_trace),
		cmocka_unit_test(test_warmup_drops_launches_and_steps),
		cmocka_unit_test(test_mixed_step_kinds_not_matched),
		cmocka_unit_test(test_one_rank),
		cmocka_unit_test(test_collective_names),
		cmocka_unit_test(test_link_peak_rule),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

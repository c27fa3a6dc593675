/* launcher_replay_times.c: after `gputrace replay`, the isolated durations beside the run's.
 *
 * The replay trace holds, in start order, each capture's launches as the worker made them (its
 * results file says how many, per capture, in order): the first is the self-check replay, run
 * right after the module was loaded and the buffers were filled, and is dropped as warm-up; the
 * rest are the timed replays, except the last ones a capture made under the profiler (replay
 * --metrics; the results file counts them), which are slower by design and left out. The original
 * trace holds the same kernel's launches in the run; only those with the captured grid, block and
 * dynamic shared memory are compared, since the same kernel at another size is another workload.
 * Statistics are common/stats.h's, as `gpuanalyze summary` prints them.
 */
#include "preload/launcher/launcher_replay.h"
#include "preload/launcher/launcher_replay_launched.h"
#include "common/text_escape.h"

#include "common/grow.h"
#include "common/stats.h"
#include "traces/gputrace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct kernel_time {
	uint64_t start, dur;
	uint32_t name_id;
	uint32_t correlation_id;
	uint32_t grid[3], block[3], smem;
};

struct capture_times {
	uint64_t id;
	unsigned launches;
	unsigned profiled;               /* the last of them, made under the profiler: not timed */
	int verdict;
	uint32_t correlation_id;
	const struct kernel_time *first; /* its slice of the replay trace, NULL when it launched nothing */
	char *name;                      /* the kernel's mangled name, from the replay trace */
	uint64_t *run;                   /* durations in the run, with the same configuration */
	size_t nrun, caprun;
	uint64_t this_launch;            /* the captured launch's own duration in the run, 0 if not found */
};

struct clocks {
	uint32_t sm_min, sm_max, mem_min, mem_max;
	uint64_t throttle;
	size_t samples;
};

struct times {
	struct capture_times *cap;
	size_t ncap;
	struct kernel_time *rk;          /* the replay trace's kernels */
	size_t nrk;
	struct clocks replay_clocks, run_clocks;
};

static int by_start(const void *a, const void *b)
{
	const struct kernel_time *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

static int read_results(struct times *t, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "gputrace: replay: cannot read the replay's results: %s\n", strerror(errno));
		return -1;
	}
	size_t cap = 0;
	uint64_t id;
	unsigned launches, corr, profiled;
	int verdict;
	while (fscanf(f, "%" SCNu64 " %u %d %u %u", &id, &launches, &verdict, &corr, &profiled) == 5) {
		struct capture_times *c = gt_grow(t->cap, &cap, t->ncap, sizeof *c, 16);
		if (!c) {
			fclose(f);
			return -1;
		}
		t->cap = c;
		memset(&t->cap[t->ncap], 0, sizeof t->cap[0]);
		t->cap[t->ncap].id = id;
		t->cap[t->ncap].launches = launches;
		t->cap[t->ncap].verdict = verdict;
		t->cap[t->ncap].correlation_id = corr;
		t->cap[t->ncap].profiled = profiled < launches ? profiled : launches;
		t->ncap++;
	}
	fclose(f);
	return 0;
}

static void clock_add(struct clocks *c, const struct gt_clock_sample *s)
{
	if (!s->sm_clock_mhz)
		return;
	if (!c->samples || s->sm_clock_mhz < c->sm_min)
		c->sm_min = s->sm_clock_mhz;
	if (s->sm_clock_mhz > c->sm_max)
		c->sm_max = s->sm_clock_mhz;
	if (!c->samples || s->mem_clock_mhz < c->mem_min)
		c->mem_min = s->mem_clock_mhz;
	if (s->mem_clock_mhz > c->mem_max)
		c->mem_max = s->mem_clock_mhz;
	c->throttle |= s->throttle_reasons;
	c->samples++;
}

static void kernel_of(const struct gt_kernel *k, struct kernel_time *out)
{
	out->start = k->start;
	out->dur = k->end - k->start;
	out->name_id = k->name_id;
	out->correlation_id = k->correlation_id;
	out->grid[0] = k->grid_x, out->grid[1] = k->grid_y, out->grid[2] = k->grid_z;
	out->block[0] = k->block_x, out->block[1] = k->block_y, out->block[2] = k->block_z;
	out->smem = k->dynamic_smem;
}

static int open_trace(struct gt_reader **r, const char *path)
{
	char err[512];
	if (gt_reader_open(r, path, err, sizeof err) == 0)
		return 0;
	gt_esc_line(stderr, "gputrace: replay: cannot read '%s': %s", path, err);
	return -1;
}

/* The replay trace: its kernels sorted by start, each capture's slice and name. */
static int read_replay(struct times *t, const char *path, FILE *out)
{
	struct gt_reader *r;
	if (open_trace(&r, path))
		return -1;
	struct replay_launched l;
	if (replay_launched_read(&l, r) || gt_reader_rewind(r)) {
		fprintf(stderr, "gputrace: replay: cannot read the replay trace: %s\n", gt_reader_error(r));
		replay_launched_free(&l);
		gt_reader_close(r);
		return -1;
	}
	size_t cap = 0;
	struct gt_event ev;
	int more;
	while ((more = gt_reader_next(r, &ev)) > 0) {
		if (ev.type == GT_REC_CLOCK_SAMPLE) {
			clock_add(&t->replay_clocks, &ev.u.clock_sample);
			continue;
		}
		if (ev.type != GT_REC_KERNEL || (ev.u.kernel.flags & GT_KERNEL_BAD_TIMES) ||
		    !replay_launched_by_worker(&l, ev.u.kernel.correlation_id))
			continue; /* the profiler's own kernels are no replay's (launcher_replay_launched.h) */
		struct kernel_time *k = gt_grow(t->rk, &cap, t->nrk, sizeof *k, 256);
		if (!k) {
			replay_launched_free(&l);
			gt_reader_close(r);
			return -1;
		}
		t->rk = k;
		kernel_of(&ev.u.kernel, &t->rk[t->nrk++]);
	}
	replay_launched_free(&l);
	int rc = 0;
	if (more < 0) {
		fprintf(stderr, "gputrace: replay: cannot read the replay trace: %s\n", gt_reader_error(r));
		rc = -1;
	}
	if (t->nrk) /* qsort wants a non-NULL array even for none */
		qsort(t->rk, t->nrk, sizeof *t->rk, by_start);
	size_t want = 0;
	for (size_t i = 0; i < t->ncap; i++)
		want += t->cap[i].launches;
	if (!rc && want != t->nrk) {
		fprintf(out, "timing: the replay trace holds %zu kernels, the replay made %zu launches: not cut into "
		        "captures (records lost? see gpuanalyze info)\n", t->nrk, want);
		rc = 1;
	}
	size_t at = 0;
	for (size_t i = 0; !rc && i < t->ncap; i++) {
		struct capture_times *c = &t->cap[i];
		if (c->launches) {
			c->first = &t->rk[at];
			c->name = strdup(gt_reader_string(r, c->first->name_id));
			if (!c->name)
				rc = -1;
		}
		at += c->launches;
	}
	gt_reader_close(r);
	return rc;
}

static int same_config(const struct kernel_time *a, const struct kernel_time *b)
{
	return !memcmp(a->grid, b->grid, sizeof a->grid) && !memcmp(a->block, b->block, sizeof a->block) &&
	       a->smem == b->smem;
}

static int add_run(struct capture_times *c, uint64_t dur)
{
	uint64_t *d = gt_grow(c->run, &c->caprun, c->nrun, sizeof *d, 256);
	if (!d)
		return -1;
	c->run = d;
	c->run[c->nrun++] = dur;
	return 0;
}

/* The run's launches of each replayed kernel. Names are matched once per string id: classes[id] is
 * 0 unknown, 1 no capture's kernel, 2 + i the first capture (in order) of that name. */
static int read_run(struct times *t, const char *path)
{
	struct gt_reader *r;
	if (open_trace(&r, path))
		return -1;
	uint32_t *classes = NULL;
	size_t nclasses = 0;
	struct gt_event ev;
	int more, rc = 0;
	while (!rc && (more = gt_reader_next(r, &ev)) > 0) {
		if (ev.type == GT_REC_CLOCK_SAMPLE)
			clock_add(&t->run_clocks, &ev.u.clock_sample);
		if (ev.type != GT_REC_KERNEL || (ev.u.kernel.flags & GT_KERNEL_BAD_TIMES))
			continue;
		uint32_t id = ev.u.kernel.name_id;
		/* A trace is untrusted: an id past the strings it defined names no kernel of ours, and
		 * must not size the table (a name id of 2^32 - 1 would ask for 16 GiB). */
		if (id == 0 || id > gt_reader_string_count(r)) /* ids are 1..count */
			continue;
		if (id >= nclasses) {
			size_t n = (size_t)id + 1 > nclasses * 2 ? (size_t)id + 1 : nclasses * 2;
			uint32_t *c = realloc(classes, n * sizeof *c);
			if (!c) {
				rc = -1;
				break;
			}
			memset(c + nclasses, 0, (n - nclasses) * sizeof *c);
			classes = c;
			nclasses = n;
		}
		if (!classes[id]) {
			const char *name = gt_reader_string(r, id);
			classes[id] = 1;
			for (size_t i = 0; i < t->ncap; i++)
				if (t->cap[i].name && strcmp(t->cap[i].name, name) == 0) {
					classes[id] = 2 + (uint32_t)i;
					break;
				}
		}
		if (classes[id] < 2)
			continue;
		struct kernel_time k;
		kernel_of(&ev.u.kernel, &k);
		for (size_t i = classes[id] - 2; i < t->ncap; i++) {
			struct capture_times *c = &t->cap[i];
			if (!c->first || strcmp(c->name, t->cap[classes[id] - 2].name) != 0 || !same_config(&k, c->first))
				continue;
			if (add_run(c, k.dur)) {
				rc = -1;
				break;
			}
			if (k.correlation_id == c->correlation_id)
				c->this_launch = k.dur;
		}
	}
	if (!rc && more < 0) {
		gt_esc_line(stderr, "gputrace: replay: cannot read '%s' again: %s", path, gt_reader_error(r));
		rc = -1;
	}
	free(classes);
	gt_reader_close(r);
	return rc;
}

static void print_stats(FILE *out, const char *label, const struct gt_stats *s)
{
	fprintf(out, "    %-12s n %-6zu median %9.3f us  MAD %8.3f us  p90 %9.3f us  p99 %9.3f us  min %9.3f us\n",
	        label, s->n, s->median / 1e3, s->mad / 1e3, s->p90 / 1e3, s->p99 / 1e3, s->min / 1e3);
}

static void print_capture(FILE *out, struct capture_times *c)
{
	fprintf(out, "  capture %" PRIu64 ":", c->id);
	unsigned timed = c->launches - c->profiled; /* the profiler's passes are slower: not timings */
	if (!c->first || timed < 2) {
		fprintf(out, " no timed replays%s\n", timed ? " (only the self-check ran)" : "");
		return;
	}
	uint64_t *iso = malloc((timed - 1) * sizeof *iso);
	if (!iso) {
		fprintf(out, " out of memory\n");
		return;
	}
	for (unsigned i = 1; i < timed; i++)
		iso[i - 1] = c->first[i].dur;
	struct gt_stats si, sr;
	gt_stats_compute_u64(&si, iso, timed - 1);
	free(iso);
	fprintf(out, " grid %ux%ux%u, block %ux%ux%u, %u B dynamic shared memory\n", c->first->grid[0],
	        c->first->grid[1], c->first->grid[2], c->first->block[0], c->first->block[1], c->first->block[2],
	        c->first->smem);
	print_stats(out, "in isolation", &si);
	if (!c->nrun) {
		fprintf(out, "    in the run   no launch of this kernel with this configuration in the trace\n");
		return;
	}
	gt_stats_compute_u64(&sr, c->run, c->nrun);
	print_stats(out, "in the run", &sr);
	if (c->this_launch)
		fprintf(out, "    the captured launch itself took %.3f us in the run (the capture synchronised "
		        "around it)\n", (double)c->this_launch / 1e3);
	double ratio = sr.median / si.median;
	fprintf(out, "    in the run %.3f us, in isolation %.3f us median: %.2fx, %s\n", sr.median / 1e3,
	        si.median / 1e3, ratio,
	        ratio > 1.05   ? "the run's launches took longer than the kernel alone (what the run added: "
	                         "concurrent work, cold caches, clocks)"
	        : ratio < 0.95 ? "the run's launches were faster than the kernel alone (warmer caches or "
	                         "higher clocks in the run?)"
	                       : "about the same (within 5%)");
}

static void print_clocks(FILE *out, const char *what, const struct clocks *c)
{
	if (!c->samples) {
		fprintf(out, "  clocks %s: not sampled\n", what);
		return;
	}
	fprintf(out, "  clocks %s: SM %u..%u MHz, memory %u..%u MHz over %zu samples; throttle reasons %s",
	        what, c->sm_min, c->sm_max, c->mem_min, c->mem_max, c->samples, c->throttle ? "" : "none");
	if (c->throttle)
		fprintf(out, "0x%" PRIx64 " (NVML's clocks-event reasons)", c->throttle);
	fputc('\n', out);
}

int launcher_replay_times(const char *original, const char *replay, const char *results, FILE *out)
{
	struct times t;
	memset(&t, 0, sizeof t);
	int rc = read_results(&t, results);
	if (!rc)
		rc = read_replay(&t, replay, out);
	if (!rc)
		rc = read_run(&t, original);
	if (!rc) {
		fprintf(out, "timing: kernel durations measured by CUPTI, in the replay and in the run; the first "
		        "replay of each capture (the self-check) is dropped as warm-up; MAD is raw\n");
		for (size_t i = 0; i < t.ncap; i++)
			print_capture(out, &t.cap[i]);
		print_clocks(out, "during the replay", &t.replay_clocks);
		print_clocks(out, "during the run", &t.run_clocks);
		gt_esc_line(out, "replay trace: %s (gpuanalyze summary, diff and report read it)", replay);
	}
	for (size_t i = 0; i < t.ncap; i++) {
		free(t.cap[i].name);
		free(t.cap[i].run);
	}
	free(t.cap);
	free(t.rk);
	return rc < 0 ? -1 : 0;
}

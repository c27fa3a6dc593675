/* launcher_replay_metrics.c: after `gputrace replay --metrics`, the values the worker measured
 * written into the replay trace as LAUNCH_METRIC records.
 *
 * The recorder that wrote the replay trace ran inside the worker and knows nothing of the
 * profiler, so the trace is completed here: copied record by record (traces/copy.h) into a
 * temporary file beside it, with one LAUNCH_METRIC per value after them and META saying how they
 * were measured (or why counters could not be had), then renamed over it. The kernels the profiler
 * ran between passes are left out of the copy (META metrics.profiler_kernels counts them).
 *
 * Each value belongs to the KERNEL record of its launch's first profiled pass: the worker's file
 * gives that launch's ordinal among the worker's launches, which are the replay trace's kernels in
 * start order (the worker launches one at a time and synchronises; the profiler's own kernels are
 * told apart by launcher_replay_launched.h). When the trace holds another number of kernels than
 * the worker's results file says it launched (records lost), no ordinal can be trusted: every
 * value is then written off the timeline (GT_METRIC_BAD_TIMES, no kernel), and a line says so.
 */
#include "preload/launcher/launcher_replay.h"
#include "preload/launcher/launcher_replay_launched.h"

#include "common/grow.h"
#include "common/text_escape.h"
#include "traces/copy.h"
#include "traces/gputrace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct mkernel {
	uint64_t start, end;
	uint32_t device_id, correlation_id, name_id;
};

struct mvalue {
	uint64_t capture, ordinal;
	unsigned passes;
	char metric[128];
	double value;
};

struct mctx {
	struct mvalue *v;
	size_t nv;
	char unavailable[1024], dropped[2048];
	struct mkernel *k;
	size_t nk;
	struct gt_writer *w;
	struct gt_copy *copy;    /* the replay trace's records into w */
	struct replay_launched launched;
	uint64_t profiler_kernels; /* the profiler's own, left out of the copy */
	char profiler_name[128];   /* the first of them */
};

static int by_start(const void *a, const void *b)
{
	const struct mkernel *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

static void chomp(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

static int read_values(struct mctx *c, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "gputrace: replay: cannot read the measured metrics: %s\n", strerror(errno));
		return -1;
	}
	char line[4096];
	size_t cap = 0;
	while (fgets(line, sizeof line, f)) {
		chomp(line);
		if (line[0] == 'U' && line[1] == ' ') {
			snprintf(c->unavailable, sizeof c->unavailable, "%.1000s", line + 2);
		} else if (line[0] == 'D' && line[1] == ' ') {
			snprintf(c->dropped, sizeof c->dropped, "%.2000s", line + 2);
		} else if (line[0] == 'V') {
			struct mvalue m;
			if (sscanf(line, "V %" SCNu64 " %" SCNu64 " %u %127s %lf", &m.capture, &m.ordinal, &m.passes, m.metric,
			           &m.value) != 5)
				continue;
			struct mvalue *v = gt_grow(c->v, &cap, c->nv, sizeof *v, 64);
			if (!v) {
				fclose(f);
				return -1;
			}
			c->v = v;
			c->v[c->nv++] = m;
		}
	}
	fclose(f);
	return 0;
}

/* The launches the worker made, from its results file ("ID LAUNCHES VERDICT CORRELATION PROFILED"
 * per capture). -1 when it cannot be read. */
static long long launches_made(const char *results)
{
	FILE *f = fopen(results, "r");
	if (!f)
		return -1;
	long long sum = 0;
	uint64_t id;
	unsigned launches, corr, profiled;
	int verdict;
	while (fscanf(f, "%" SCNu64 " %u %d %u %u", &id, &launches, &verdict, &corr, &profiled) == 5)
		sum += launches;
	fclose(f);
	return sum;
}

/* The worker's kernels, in start order (the profiler's own left out: launcher_replay_launched.h). */
static int read_kernels(struct mctx *c, struct gt_reader *r)
{
	if (replay_launched_read(&c->launched, r) || gt_reader_rewind(r))
		return -1;
	size_t cap = 0;
	struct gt_event ev;
	int more;
	while ((more = gt_reader_next(r, &ev)) > 0) {
		if (ev.type != GT_REC_KERNEL || (ev.u.kernel.flags & GT_KERNEL_BAD_TIMES) ||
		    !replay_launched_by_worker(&c->launched, ev.u.kernel.correlation_id))
			continue;
		struct mkernel *k = gt_grow(c->k, &cap, c->nk, sizeof *k, 256);
		if (!k)
			return -1;
		c->k = k;
		c->k[c->nk++] = (struct mkernel){ .start = ev.u.kernel.start, .end = ev.u.kernel.end,
			.device_id = ev.u.kernel.device_id, .correlation_id = ev.u.kernel.correlation_id,
			.name_id = ev.u.kernel.name_id };
	}
	if (more < 0)
		return -1;
	if (c->nk) /* qsort wants a non-NULL array even for none */
		qsort(c->k, c->nk, sizeof *c->k, by_start);
	return 0;
}

/* Copies one record of the replay trace, leaving out the kernels the profiler ran between passes
 * (WaitNs on the H100 and H200): no launch call of the replay made them, and every analysis of the
 * replay trace would otherwise show them as the program's. META counts them. */
static int copy_record(struct mctx *c, struct gt_reader *r, const struct gt_event *ev)
{
	if (ev->type == GT_REC_KERNEL && !replay_launched_by_worker(&c->launched, ev->u.kernel.correlation_id)) {
		if (!c->profiler_kernels++)
			snprintf(c->profiler_name, sizeof c->profiler_name, "%s", gt_reader_string(r, ev->u.kernel.name_id));
		return 0;
	}
	return gt_copy_record(c->copy, r, ev);
}

static int add_metrics(struct mctx *c, struct gt_reader *r, int placed)
{
	int rc = gt_writer_meta(c->w, "metrics.method",
	                        "gputrace replay --metrics: CUPTI Range Profiler, user range and user replay, one "
	                        "replay of the launch per pass, its inputs restored before each (and a 4 x L2 buffer read "
	                        "back, which on the H200 left inputs smaller than L2 in it); "
	                        "each value is of the launch's first profiled pass's KERNEL record");
	if (!rc && c->unavailable[0])
		rc = gt_writer_meta(c->w, "metrics.unavailable", c->unavailable);
	if (!rc && c->dropped[0])
		rc = gt_writer_meta(c->w, "metrics.dropped", c->dropped);
	if (!rc && c->profiler_kernels) {
		char v[384];
		snprintf(v, sizeof v, "%" PRIu64 " kernels the Range Profiler ran between passes (%s), left out of this trace: no "
		         "launch call of the replay made them", c->profiler_kernels, c->profiler_name);
		rc = gt_writer_meta(c->w, "metrics.profiler_kernels", v);
	}
	for (size_t i = 0; !rc && i < c->nv; i++) {
		const struct mvalue *m = &c->v[i];
		struct gt_launch_metric rec = { .value = m->value, .passes = m->passes };
		if (placed && m->ordinal < c->nk) {
			const struct mkernel *k = &c->k[m->ordinal];
			rec.start = k->start, rec.end = k->end, rec.device_id = k->device_id;
			rec.correlation_id = k->correlation_id;
			rec.name_id = gt_writer_intern(c->w, gt_reader_string(r, k->name_id));
		} else {
			rec.flags = GT_METRIC_BAD_TIMES; /* its kernel record is missing: kept off the timeline */
		}
		rec.metric_id = gt_writer_intern(c->w, m->metric);
		if (!rec.metric_id)
			return GT_ERR_NOMEM;
		rc = gt_writer_add(c->w, GT_REC_LAUNCH_METRIC, &rec);
	}
	return rc;
}

int launcher_replay_metrics(const char *replay, const char *values, const char *results, FILE *out)
{
	struct mctx c;
	memset(&c, 0, sizeof c);
	if (read_values(&c, values))
		return -1;
	if (!c.nv && !c.unavailable[0]) {
		free(c.v);
		return 0; /* the worker measured nothing and said nothing: it stopped before */
	}
	char err[512], tmp[4200];
	struct gt_reader *r;
	if (gt_reader_open(&r, replay, err, sizeof err) != 0) {
		gt_esc_line(stderr, "gputrace: replay: cannot read '%s' to add the metrics: %s", replay, err);
		free(c.v);
		return -1;
	}
	int rc = read_kernels(&c, r) ? GT_ERR_NOMEM : gt_reader_rewind(r);
	snprintf(tmp, sizeof tmp, "%s.metrics-XXXXXX", replay);
	int fd = rc ? -1 : mkstemp(tmp);
	if (!rc && fd < 0)
		rc = GT_ERR_IO;
	if (!rc) { /* mkstemp's 0600 would narrow what the recorder wrote under the user's umask */
		mode_t mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask) != 0)
			rc = GT_ERR_IO;
	}
	if (!rc && (rc = gt_writer_open_fd(&c.w, fd, NULL)) != 0)
		close(fd);
	if (!rc)
		rc = gt_copy_new(&c.copy, c.w);
	struct gt_event ev;
	int more = 1;
	while (!rc && (more = gt_reader_next(r, &ev)) > 0)
		rc = copy_record(&c, r, &ev);
	if (!rc && more < 0)
		rc = GT_ERR_CORRUPT;
	long long made = launches_made(results);
	int placed = made >= 0 && (size_t)made == c.nk;
	if (!rc && !placed && c.nv)
		fprintf(out, "metrics: the replay trace holds %zu kernels, the replay made %lld launches: the values are "
		        "written without their kernel records (flags 0x1)\n", c.nk, made);
	if (!rc)
		rc = add_metrics(&c, r, placed);
	if (c.w) {
		int crc = gt_writer_close(c.w);
		rc = rc ? rc : crc;
	}
	if (!rc && rename(tmp, replay) != 0)
		rc = GT_ERR_IO;
	if (rc) {
		if (fd >= 0)
			unlink(tmp);
		gt_esc_line(stderr, "gputrace: replay: the metrics could not be added to '%s' (%s): it is left without them",
		            replay, more < 0 ? gt_reader_error(r) : gt_strerror(rc));
	} else {
		fprintf(out, "metrics: %zu values written into the replay trace as LAUNCH_METRIC records%s\n", c.nv,
		        c.unavailable[0] ? " (counters were unavailable: META metrics.unavailable says why)" : "");
	}
	gt_reader_close(r);
	free(c.v);
	free(c.k);
	replay_launched_free(&c.launched);
	gt_copy_free(c.copy);
	return rc ? -1 : 0;
}

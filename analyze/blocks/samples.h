/* samples.h: every kernel's durations from one trace, kept, sorted, with their statistics.
 *
 * summary keeps durations only long enough to compute statistics; diff needs them afterwards (the
 * bootstrap and the rank test read the samples themselves) and so does report (its figures draw
 * every launch). This collector reads one trace and keeps, per kernel name, the GPU durations end -
 * start of the launches counted, sorted ascending, with struct gt_stats (stats.h) over them, and on
 * request the launch configurations seen (grid, block, shared memory, registers) with their counts.
 *
 * The rules are summary's (gpuanalyze(1)): a kernel flagged GT_KERNEL_BAD_TIMES or with end < start
 * is excluded first and counted; warm-up drops the first `warmup` launches of each kernel by start
 * time (ties: file order), never by value. The code that applies them is kernel_ids.h's, which
 * summary uses too, so the two cannot drift apart.
 *
 * Use:  gt_samples_init; gt_samples_load (or gt_samples_record as the loader's callback, then
 * gt_samples_file_end); gt_samples_finish; read s->kernels (sorted by name); gt_samples_release.
 * Several files may be read into one collector before gt_samples_finish, each ended by its own
 * gt_samples_file_end: a kernel's durations are then the union of its launches over the files
 * (matched by name, since string ids are per file), each file's warm-up dropped on its own.
 */
#ifndef GT_SAMPLES_H
#define GT_SAMPLES_H

#include "analyze/support/filter.h"
#include "analyze/support/growbuf.h"
#include "traces/gputrace.h"
#include "common/stats.h"

#include <stddef.h>
#include <stdint.h>

#define GT_SAMPLES_CONFIGS 4 /* distinct launch configurations kept per kernel; more are counted */

struct gt_launch_config {
	uint32_t grid[3], block[3];
	uint32_t static_smem, dynamic_smem;
	uint16_t registers;
	uint64_t launches;
};

struct gt_kernel_sample {
	char *name;              /* as the trace holds it (mangled) */
	char *display;           /* demangled (the name when it does not demangle; "(unnamed)" for "") */
	uint64_t launches;       /* launches with good timestamps, before warm-up */
	uint64_t dropped;        /* warm-up launches dropped */
	uint64_t first_start;    /* start of the earliest launch counted or dropped (ns) */
	uint64_t *dur;           /* n durations (ns), ascending */
	size_t n;
	struct gt_stats st;      /* of dur */
	struct gt_launch_config *cfg; /* ncfg, at most GT_SAMPLES_CONFIGS (with GT_SAMPLES_WANT_CONFIGS) */
	size_t ncfg;
	uint64_t cfg_other;      /* launches whose configuration did not fit in cfg */
	struct gt_growbuf buf;   /* private: the memory behind dur */
};

#define GT_SAMPLES_WANT_CONFIGS 0x1u

struct samples_state;

struct gt_samples {
	uint64_t warmup;
	unsigned flags;
	/* after gt_samples_file_end; counts add up over the files read, path is the first one's */
	size_t files;             /* files ended */
	char *path;
	uint64_t kernel_records;  /* KERNEL records read */
	uint64_t nvtx_ranges;     /* NVTX push/pop and start/end records (diff's split units need them) */
	uint64_t metric_records;  /* hardware-counter records: diff reads counters only where they are */
	uint64_t bad;             /* excluded: bad timestamps */
	uint64_t warmup_dropped;
	int complete;             /* every trace has its END record */
	uint64_t lost_bytes;
	char *synthetic;          /* META trace.synthetic of the first file that says synthetic, else NULL */
	/* after gt_samples_finish */
	struct gt_kernel_sample *kernels; /* ascending by name (strcmp) */
	size_t nkernels;
	size_t hidden;            /* kernels the filter left out */
	struct samples_state *state;
};

int gt_samples_init(struct gt_samples *s, uint64_t warmup, unsigned flags);
void gt_samples_release(struct gt_samples *s);
/* gt_record_fn: one record of the trace. */
int gt_samples_record(void *s, const struct gt_reader *r, const struct gt_event *ev);
/* After the last record: drops warm-up, notes how the trace ended. 0 or GT_ERR_NOMEM. */
int gt_samples_file_end(struct gt_samples *s, const struct gt_reader *r);
/* Opens, streams and closes path: 0, or a negative GT_ERR_* with why not held (failure.h). */
int gt_samples_load(struct gt_samples *s, const char *path);
/* Sorts each kernel's durations, computes their statistics, demangles, keeps the kernels filter
 * selects (NULL: all) in name order. 0 or GT_ERR_NOMEM. */
int gt_samples_finish(struct gt_samples *s, const struct gt_name_filter *filter);
/* The kernel of that (mangled) name after finish, or NULL. */
const struct gt_kernel_sample *gt_samples_find(const struct gt_samples *s, const char *name);

#endif

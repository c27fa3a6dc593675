/* export_window.h: which records `gpuanalyze export` keeps, and on which clock it shows them.
 *
 * Three things export needs to know before it places a single slice:
 *
 *   the clock      every trace is timed on its own process's CUPTI clock. One trace is shown from its
 *                  own origin (the earliest event time, timeline.h). Several traces (ranks) are put
 *                  on one clock through each one's clock pairings (align.h, as `ranks` does): a time
 *                  is shown as its CLOCK_REALTIME value minus the earliest aligned origin of them
 *                  all. A trace that cannot be aligned is shown from its own origin, with a warning.
 *   the window     --start/--end (times on that shown clock) or --range NAME[#N] (the interval of the
 *                  N-th instance, 1 first, by start time, of the closed NVTX ranges named NAME; over
 *                  several traces, from the earliest start to the latest end of their N-th
 *                  instances). A record is kept when its interval [start, end] overlaps the window
 *                  (a point record when its time lies in it); a record without a time is kept.
 *   the kernels    --kernel REGEX (filter.h): kernels whose names do not match are left out; other
 *                  records stay.
 *
 * Finding origins, pairings and range instances takes a pass over each trace of its own (the
 * prescan), which export makes only when there are several traces or a window.
 */
#ifndef GT_EXPORT_WINDOW_H
#define GT_EXPORT_WINDOW_H

#include "analyze/blocks/align.h"
#include "analyze/support/filter.h"
#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

/* A trace's clock as export shows it: ns from the shown origin. */
struct gt_xclock {
	int mapped;              /* through align (several traces, this one aligned) */
	const struct gt_align *align;
	uint64_t origin;         /* not mapped: the trace's own origin (CUPTI ns) */
	int64_t origin_host;     /* mapped: the shared origin (CLOCK_REALTIME ns) */
};

/* ns of CUPTI time t since the shown origin (0 for a time before it, or one the clock cannot map). */
static inline uint64_t gt_xclock_rel(const struct gt_xclock *c, uint64_t t)
{
	if (!c->mapped)
		return t > c->origin ? t - c->origin : 0;
	int64_t h;
	if (gt_align_to_host(c->align, t, &h) != 0 || h <= c->origin_host)
		return 0;
	return (uint64_t)h - (uint64_t)c->origin_host;
}

/* One trace, as the prescan found it. */
struct gt_xfile {
	const char *path;
	uint64_t origin;         /* earliest CUPTI time of any event (0: none) */
	struct gt_align align;
	struct gt_xclock clock;
	char label[64];          /* "rank 3" (META process.rank) or "file 2" (its position, 0 first) */
	uint64_t range_instances;/* closed instances of --range */
	uint64_t range_start, range_end; /* the chosen instance, CUPTI ns; valid when range_found */
	int range_found;
	/* filled by export as it goes */
	uint32_t pid;            /* the process id the trace names */
	int complete;            /* its END record was read */
};

struct gt_xwin {
	int active;              /* a window was asked for */
	uint64_t start, end;     /* shown ns, inclusive; end UINT64_MAX: to the end */
	const struct gt_name_filter *kernels; /* NULL or inactive: every kernel */
	uint64_t left_out;       /* records the window or the filter left out (pass 1 counts) */
	/* per trace: whether each kernel name id is kept (0 unknown, 1 kept, 2 left out) */
	uint8_t *name_keep;
	size_t nname_keep;
};

/* The request, as the options gave it. */
struct gt_xwin_request {
	uint64_t start, end;     /* shown ns */
	int has_start, has_end;
	const char *range;       /* NVTX range NAME or NAME#N; NULL: none */
	const struct gt_name_filter *kernels;
};

/* 1 when the request needs the prescan for one trace (a window); several traces always do. */
int gt_xwin_needs_prescan(const struct gt_xwin_request *q);

/* Prescans the n traces into files[0..n) (their clocks set as above) and resolves the window into
 * w. 0; a negative GT_ERR_* with the failure held (failure.h: an unreadable trace, a range no
 * trace has, a window that ends before it starts); GT_ERR_NOMEM, perhaps unheld. gt_xfiles_release()
 * in every case. */
int gt_xwin_prescan(struct gt_xfile *files, size_t n, const struct gt_xwin_request *q, struct gt_xwin *w);
void gt_xfiles_release(struct gt_xfile *files, size_t n);

/* A window that keeps everything but the kernels q names (one trace, no prescan). */
void gt_xwin_init(struct gt_xwin *w, const struct gt_xwin_request *q);
/* Forgets the per-trace name cache (before the next trace). */
void gt_xwin_next_file(struct gt_xwin *w);
void gt_xwin_release(struct gt_xwin *w);

/* Whether ev is kept: 1, 0 (left out), or GT_ERR_NOMEM. */
int gt_xwin_keep(struct gt_xwin *w, const struct gt_xclock *c, const struct gt_reader *r,
                 const struct gt_event *ev);

/* The raw CUPTI interval of an event whose kind has one (an end in its schema row; even with bad
 * times; not an NVTX mark): 1, else 0 with both 0. */
int gt_xwin_raw_times(const struct gt_event *ev, uint64_t *start, uint64_t *end);

#endif

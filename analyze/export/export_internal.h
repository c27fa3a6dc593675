/* export_internal.h: what the parts of gpuanalyze export share (not a public header).
 *
 * export.c, the driver, runs the two passes; export_tracks.c collects the slices into tracks in
 * pass 1 and counts correlation ids; export_lanes.c places each track's slices on lanes between the
 * passes; export_chrome.c and export_csv.c write pass 2; export_names.c caches the escaped names;
 * export_out.h is the output buffer. They share struct ex, the state of one export, and the
 * structures below. The small helpers that the per-event loops call are static inline here, so
 * that they are inlined as they were when export was one file; the gt_ex_ functions are the ones
 * called from another part (hidden: the build uses -fvisibility=hidden).
 */
#ifndef GT_EXPORT_INTERNAL_H
#define GT_EXPORT_INTERNAL_H

#include "analyze/output/escape.h"
#include "analyze/export/export.h"
#include "analyze/export/export_out.h"
#include "analyze/export/export_window.h"
#include "analyze/blocks/timeline.h"
#include "common/slots.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEVICE_PID_BASE 1000000u
#define FLOW_CAP 127u          /* flows per correlation id; the count shares a byte with a flag */
#define API_SEEN 0x80u
#define LONG_DUR UINT32_MAX    /* a slice of 4.29 s or more: its end is in the long-ends table */

enum tk { TK_STREAM = 0, TK_THREAD, TK_SYNC, TK_NVTX, TK_OVERHEAD, TK_COUNT };

/* A track's slices are kept apart by record type: the writer stores a chunk's records type by type,
 * so one type's records are nearly in time order while two types interleaved are not. Each vector
 * is sorted cheaply, and placement merges them. */
#define NSRC 3
static inline int src_of(int type)
{
	return type == GT_REC_MEMCPY || type == GT_REC_NVTX ? 1 : type == GT_REC_MEMSET ? 2 : 0;
}

struct slice {
	uint64_t start;
	uint32_t dur;            /* LONG_DUR: see longs */
	uint32_t seq;
};

struct longend {
	uint64_t seq, end;
};

struct moved {
	uint64_t seq, lane;
};

struct cname {
	char *s;
	size_t n;
};

struct memrec {
	uint64_t ts, bytes;
	uint32_t device;
	uint8_t op, kind;
	uint16_t pad;
};

struct track {
	int kind;                /* enum tk */
	uint32_t device;
	uint64_t key;            /* stream id or thread id */
	struct gt_tl_vec sl[NSRC]; /* struct slice, one vector per source record type (see src_of) */
	uint64_t first;          /* earliest start, orders the host threads */
	uint32_t nlanes, tid0, pid;
	char ids[48];            /* "pid":P,"tid":T of lane 0, for the writers */
	size_t nids;
};

/* One byte per correlation id, in 64 KiB pages made on first use. CUPTI hands out ids in order
 * (one per API call, recorded or not), so a real trace fills its pages densely; a hostile one may
 * spread a few records over all 2^32 ids, a page for each. Pages are therefore budgeted: at most
 * PAGES_FREE plus one per PAGE_RECORDS records read, so memory stays under 256 bytes a record; an
 * id on a page over budget gets no arrow, and is counted (flows_unmapped). */
#define PAGES_FREE 64u
#define PAGE_RECORDS 256u
struct pages {
	uint8_t *p[65536];
	size_t n;                /* pages made */
};

struct ex {
	const struct gt_export_options *opt;
	struct gt_export_result *res;
	const char *path;
	uint64_t origin;
	struct gt_xclock clock;  /* how this trace's times are shown (export_window.h) */
	struct gt_xwin *win;     /* what is kept */
	const struct gt_xfile *file; /* several traces: this one (NULL: one trace) */
	uint32_t pid_base;       /* several traces: this one's host pid; its devices' follow */
	uint32_t file_pid;       /* several traces: the process id the trace names */
	uint64_t flow_base;      /* several traces: the trace's position << 39, above every corr * 128 + k */
	char prefix[72];         /* several traces: "rank 0 " before CSV process names */
	const struct gt_xfile *files; /* several traces: all of them */
	size_t nfiles;
	char *synthetic;         /* the first trace's META trace.synthetic that says so */
	int complete;            /* every trace was complete */
	int header_done;
	struct track *t;
	size_t nt, capt;
	struct gt_slots slots;   /* (kind, device, key) to index in t */
	uint32_t last[TK_COUNT]; /* index + 1 of the last track of each kind, and its identity */
	uint64_t last_key[TK_COUNT];
	uint32_t last_dev[TK_COUNT];
	uint64_t nslices, seq;
	struct gt_tl_vec longs;  /* struct longend, in seq order */
	struct gt_tl_vec moved;  /* struct moved: the slices not on lane 0, by seq */
	size_t moved_pos;        /* pass 2: the next entry of moved */
	struct pages *cnt, *next;
	struct gt_tl_vec mem;    /* struct memrec */
	uint32_t devs[64];       /* devices seen (more are folded into the last) */
	size_t ndevs;
	uint32_t host_pid;
	struct cname *names;     /* per string id: escaped (JSON or CSV) name, raw then demangled */
	size_t nnames;
	struct out o;
	int first_event;
	uint32_t op_key;         /* the copy or memset kind op_name was made for (0: none) */
	char op_name[96];
};

/* export_names.c: the name of string id `id`, escaped, demangled or not; cached per id. */
const char *gt_ex_name_of(struct ex *x, const struct gt_reader *r, uint32_t id, int demangle, size_t *len);

/* export_tracks.c: tracks, slices, correlation pages, pass 1. */
struct track *gt_ex_track_of(struct ex *x, int kind, uint32_t device, uint64_t key, int make);
int gt_ex_slice_of(const struct gt_event *ev, int *kind, uint32_t *device, uint64_t *key, uint64_t *start,
                   uint64_t *end);
int gt_ex_corr_make(struct pages *p, uint32_t corr, uint64_t max_pages, uint8_t **b);
void gt_ex_pages_free(struct pages *p);
int gt_ex_collect(void *ctx, const struct gt_reader *r, const struct gt_event *ev);
void gt_ex_track_label(const struct track *t, uint32_t lane, char *buf, size_t len);

/* export_lanes.c: every track's slices on lanes, and the tracks' process and thread ids. */
int gt_ex_place(struct ex *x);

/* export_chrome.c: pass 2 as Chrome Trace Event JSON; the header opens the document. */
void gt_ex_chrome_header(struct ex *x, const struct gt_reader *r);
void gt_ex_metadata(struct ex *x, const struct gt_reader *r);
int gt_ex_emit_chrome(struct ex *x, const struct gt_reader *r, const struct gt_event *ev);
int gt_ex_memory_counters(struct ex *x);
void gt_ex_other_data(struct ex *x);

/* export_csv.c: pass 2 as CSV rows. */
int gt_ex_emit_csv(struct ex *x, const struct gt_reader *r, const struct gt_event *ev);

/* s escaped for JSON (with quotes) or CSV (quoted when needed, formulas neutralised) by escape.h's
 * rules, as a malloc'd string. */
static inline char *escape(const char *s, int json)
{
	return gt_esc_dup(json ? gt_esc_json : gt_esc_csv, s);
}

/* The byte of corr; NULL when its page was never made. */
static inline uint8_t *corr_find(const struct pages *p, uint32_t corr)
{
	uint8_t *page = p->p[corr >> 16];
	return page ? &page[corr & 0xffff] : NULL;
}

/* Several traces: every trace's host and devices are processes of their own, numbered from the
 * trace's pid_base (its host), devices after it by the order they were seen (at most 64: more share
 * the last). One trace: the device's own number over DEVICE_PID_BASE. */
static inline uint32_t pid_base_of(size_t index) { return (uint32_t)(index + 1) * 1000u; }

static inline uint32_t dev_pid(const struct ex *x, uint32_t d)
{
	if (!x->file)
		return DEVICE_PID_BASE + d;
	size_t i = 0;
	while (i + 1 < x->ndevs && x->devs[i] != d)
		i++;
	return x->pid_base + 1 + (uint32_t)i;
}

/* Pass 2: the lane of the next slice (slices come in seq order, and so does the moved list). */
static inline uint32_t lane_of(struct ex *x)
{
	uint64_t seq = x->seq++;
	if (x->moved_pos < x->moved.n) {
		const struct moved *m = gt_tl_vec_at(&x->moved, x->moved_pos);
		if (m->seq == seq) {
			x->moved_pos++;
			return (uint32_t)m->lane;
		}
	}
	return 0;
}

static inline uint64_t rel(const struct ex *x, uint64_t ns) { return gt_xclock_rel(&x->clock, ns); }

#endif

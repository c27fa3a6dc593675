/* stats_nsys_internal.h: what the files of stats_nsys.h share: the state of a report, the copy of
 * the trace's names by string id, the loading of a trace, and each family's run and cell.
 *
 * A report keeps compact records per event (the family's struct, in a gt_tl_vec) and makes each
 * cell when asked, so that the cells of a million-row trace are never held at once.
 */
#ifndef GT_STATS_NSYS_INTERNAL_H
#define GT_STATS_NSYS_INTERNAL_H

#include "analyze/engines/stats_nsys.h"
#include "analyze/engines/stats_reports.h"
#include "analyze/blocks/timeline.h"
#include "traces/gputrace.h"

/* The trace's strings by id, copied when first used (the reader is closed before the cells are
 * made); kernel names also demangled. */
struct nsys_names {
	char **text, **dem;
	size_t n;
};

struct proj_state;

struct nsys_state {
	struct nsys_names names;
	struct proj_state *proj; /* nvtx_gpu_proj_*: its own state (stats_nsys_proj.c) */
	struct gt_tl_vec recs;   /* the family's records, sorted for output */
	void *groups;            /* cuda_kern_exec_sum: its groups */
	struct gt_stats_row *rows; /* merged summaries: rows pointing into parts */
	const char **category;   /* cuda_api_gpu_sum: per row */
	char **labels;           /* nvtx_pushpop_sum: "DOMAIN:NAME" per row, when not the default domain */
	struct gt_stats_report parts[3];
	uint32_t pid;            /* the trace's process, from its PROCESS record; 0: none */
	char buf[GT_NSYS_STACK_MAX * 24 + 64]; /* a cell's text made on demand */
	char *tmp;               /* the same, when it holds a name */
	size_t tmpcap;
};

/* The id's text ("" for an unknown id), or NULL when out of memory; demangled when dem. */
const char *nsys_name(struct nsys_state *st, const struct gt_reader *r, uint32_t id, int dem);

/* Cell setters. */
void nsys_u64(struct gt_nsys_cell *c, uint64_t v);
void nsys_i64(struct gt_nsys_cell *c, int64_t v);
void nsys_num(struct gt_nsys_cell *c, double v, double scale, int decimals);
void nsys_str(struct gt_nsys_cell *c, const char *s);
void nsys_u64_as(struct gt_nsys_cell *c, uint64_t v, double scale, int decimals);

/* A closed push/pop range in its thread's tree (nvtx_pushpop_trace, nvtx_gpu_proj_*). */
struct nsys_pp {                 /* 56 bytes */
	uint64_t key, start, end;
	const char *name;
	uint64_t dur_child;
	uint32_t thread, parent; /* parent: its row + 1; 0: none */
	uint32_t level, nchild;
};
/* Sorts the ranges of v (struct nsys_pp) by (thread, start, end descending) and links each to its
 * parent, the innermost earlier range of its thread still open at its start. 0 or GT_ERR_NOMEM. */
int nsys_pp_tree(struct gt_tl_vec *v);
/* ":ID:ID...": the ids (rows + 1) from the top to row, the innermost GT_NSYS_STACK_MAX, after "..."
 * when cut; made in st->buf. */
void nsys_range_stack(struct nsys_state *st, const struct nsys_pp *p, size_t row, struct gt_nsys_cell *c);

/* The families: run reads rep->trace.path and fills rep (rep->state allocated, kind set); cell as
 * gt_nsys_cell. */
int nsys_trace_run(struct gt_nsys_report *rep);    /* cuda_gpu_trace, cuda_api_trace */
void nsys_trace_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c);
int nsys_kexec_run(struct gt_nsys_report *rep);    /* cuda_kern_exec_trace, _sum */
void nsys_kexec_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c);
int nsys_merge_run(struct gt_nsys_report *rep);    /* cuda_api_gpu_sum, nvtx_pushpop_sum */
void nsys_merge_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c);
int nsys_proj_run(struct gt_nsys_report *rep);     /* nvtx_gpu_proj_trace, _sum */
void nsys_proj_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c);
void nsys_proj_release(struct proj_state *ps);
int nsys_pushpop_run(struct gt_nsys_report *rep);  /* nvtx_pushpop_trace */
void nsys_pushpop_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c);

#endif

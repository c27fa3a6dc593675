/* stats_nsys.c: the reports of stats_nsys.h: their names and columns, and what every family
 * shares (the names copied by id, loading a trace, the cells); each family computes in its own
 * file (stats_nsys_trace.c, _kexec.c, _merge.c, _pushpop.c, _proj.c).
 */
#include "analyze/engines/stats_nsys_internal.h"

#include "analyze/support/demangle.h"
#include "analyze/support/load.h"

#include <stdlib.h>
#include <string.h>

const char *const gt_nsys_report_names[] = {
	"cuda_gpu_trace", "cuda_api_trace", "cuda_kern_exec_trace", "cuda_kern_exec_sum", "cuda_api_gpu_sum",
	"nvtx_pushpop_sum", "nvtx_pushpop_trace", "nvtx_gpu_proj_trace", "nvtx_gpu_proj_sum", NULL,
};

#define L GT_NSYS_LEFT
#define H GT_NSYS_HUMAN
#define M GT_NSYS_MACHINE
#define C GT_NSYS_CODE
#define STATS(p, k)                                                                                \
	{ k "avg_ns", p "Avg (ns)", 0 }, { k "med_ns", p "Med (ns)", 0 }, { k "min_ns", p "Min (ns)", 0 }, \
	{ k "max_ns", p "Max (ns)", 0 }, { k "stddev_ns", p "StdDev (ns)", 0 }
#define SUM_HEAD(count_key, count_title)                                                           \
	{ "time_pct", "Time (%)", 0 }, { "total_time_ns", "Total Time (ns)", 0 }, { count_key, count_title, 0 }, \
	STATS("", "")

/* The order of each list is the order of the family's cell switch. */
static const struct gt_nsys_column cols_gpu_trace[] = {
	{ "start_ns", "Start (ns)", 0 }, { "duration_ns", "Duration (ns)", 0 }, { "corr_id", "CorrId", 0 },
	{ "grid_x", "GrdX", 0 }, { "grid_y", "GrdY", 0 }, { "grid_z", "GrdZ", 0 },
	{ "block_x", "BlkX", 0 }, { "block_y", "BlkY", 0 }, { "block_z", "BlkZ", 0 },
	{ "registers_per_thread", "Reg/Trd", 0 }, { "static_smem_bytes", "StcSMem (MB)", 0 },
	{ "dynamic_smem_bytes", "DymSMem (MB)", 0 }, { "bytes", "Bytes (MB)", 0 },
	{ "throughput_mbps", "Throughput (MBps)", 0 }, { "src_mem_kind", "SrcMemKd", L }, { "dst_mem_kind", "DstMemKd", L },
	{ "device", "Device", 0 }, { "context", "Ctx", 0 }, { "stream", "Strm", 0 },
	{ "name", "Name", M | L }, { "demangled", "Name", L | C },
};
static const struct gt_nsys_column cols_api_trace[] = {
	{ "start_ns", "Start (ns)", 0 }, { "duration_ns", "Duration (ns)", 0 }, { "name", "Name", L | C },
	{ "result", "Result", 0 }, { "corr_id", "CorrID", 0 }, { "pid", "Pid", 0 }, { "tid", "Tid", 0 },
	{ "thread_priority", "T-Pri", 0 }, { "thread_name", "Thread Name", L },
};
static const struct gt_nsys_column cols_kexec_trace[] = {
	{ "api_start_ns", "API Start (ns)", 0 }, { "api_dur_ns", "API Dur (ns)", 0 },
	{ "queue_start_ns", "Queue Start (ns)", 0 }, { "queue_dur_ns", "Queue Dur (ns)", 0 },
	{ "kernel_start_ns", "Kernel Start (ns)", 0 }, { "kernel_dur_ns", "Kernel Dur (ns)", 0 },
	{ "total_dur_ns", "Total Dur (ns)", 0 }, { "pid", "PID", 0 }, { "tid", "TID", 0 }, { "device", "DevId", 0 },
	{ "api_function", "API Function", L | C }, { "grid", "GridXYZ", L }, { "block", "BlockXYZ", L },
	{ "kernel_name", "Kernel Name", M | L }, { "kernel_demangled", "Kernel Name", L | C },
};
static const struct gt_nsys_column cols_kexec_sum[] = {
	{ "pid", "PID", 0 }, { "tid", "TID", 0 }, { "device", "DevId", 0 }, { "count", "Count", 0 },
	{ "queue_count", "QCount", 0 }, STATS("T", "total_"), STATS("A", "api_"), STATS("Q", "queue_"),
	STATS("K", "kernel_"), { "api_name", "API Name", L | C },
	{ "kernel_name", "Kernel Name", M | L }, { "kernel_demangled", "Kernel Name", L | C },
};
static const struct gt_nsys_column cols_api_gpu_sum[] = {
	SUM_HEAD("instances", "Instances"), { "category", "Category", L },
	{ "operation", "Operation", M | L }, { "operation_demangled", "Operation", L | C },
};
static const struct gt_nsys_column cols_pushpop_sum[] = {
	SUM_HEAD("instances", "Instances"), { "range", "Range", L | C },
};
static const struct gt_nsys_column cols_pushpop_trace[] = {
	{ "start_ns", "Start (ns)", 0 }, { "end_ns", "End (ns)", 0 }, { "duration_ns", "Duration (ns)", 0 },
	{ "dur_child_ns", "DurChild (ns)", 0 }, { "dur_non_child_ns", "DurNonChild (ns)", 0 },
	{ "name", "Name", L | C }, { "pid", "PID", 0 }, { "tid", "TID", 0 }, { "level", "Lvl", 0 },
	{ "num_child", "NumChild", 0 }, { "range_id", "RangeId", 0 }, { "parent_id", "ParentId", 0 },
	{ "range_stack", "RangeStack", L }, { "name_tree", "NameTree", L | C },
};

static const struct gt_nsys_column cols_proj_trace[] = {
	{ "name", "Name", L | C }, { "projected_start_ns", "Projected Start (ns)", 0 },
	{ "projected_duration_ns", "Projected Duration (ns)", 0 }, { "orig_start_ns", "Orig Start (ns)", 0 },
	{ "orig_duration_ns", "Orig Duration (ns)", 0 }, { "style", "Style", L }, { "pid", "PID", 0 },
	{ "tid", "TID", 0 }, { "num_gpu_ops", "NumGPUOps", 0 }, { "level", "Lvl", 0 }, { "num_child", "NumChild", 0 },
	{ "range_id", "RangeId", 0 }, { "parent_id", "ParentId", 0 }, { "range_stack", "RangeStack", L },
};
static const struct gt_nsys_column cols_proj_sum[] = {
	{ "range", "Range", L | C }, { "style", "Style", L }, { "total_proj_time_ns", "Total Proj Time (ns)", 0 },
	{ "total_range_time_ns", "Total Range Time (ns)", 0 }, { "range_instances", "Range Instances", 0 },
	STATS("Proj ", "proj_"), { "total_gpu_ops", "Total GPU Ops", 0 }, { "avg_gpu_ops", "Avg GPU Ops", 0 },
	{ "avg_range_level", "Avg Range Lvl", 0 }, { "avg_num_child", "Avg Num Child", 0 },
};

#define COLS(a) { a, sizeof a / sizeof a[0] }
static const struct {
	const struct gt_nsys_column *cols;
	size_t n;
} columns[GT_NSYS_NKINDS] = {
	COLS(cols_gpu_trace), COLS(cols_api_trace), COLS(cols_kexec_trace), COLS(cols_kexec_sum),
	COLS(cols_api_gpu_sum), COLS(cols_pushpop_sum), COLS(cols_pushpop_trace), COLS(cols_proj_trace),
	COLS(cols_proj_sum),
};

const struct gt_nsys_column *gt_nsys_columns(int kind, size_t *n)
{
	*n = columns[kind].n;
	return columns[kind].cols;
}

/* ---- shared ---------------------------------------------------------------------------------- */

const char *nsys_name(struct nsys_state *st, const struct gt_reader *r, uint32_t id, int dem)
{
	struct nsys_names *nm = &st->names;
	if (id > gt_reader_string_count(r))
		id = 0;
	if (id >= nm->n) {
		size_t n = nm->n ? nm->n : 256;
		while (n <= id)
			n *= 2;
		char **t = realloc(nm->text, n * sizeof *t);
		if (!t)
			return NULL;
		nm->text = t;
		char **d = realloc(nm->dem, n * sizeof *d);
		if (!d)
			return NULL;
		nm->dem = d;
		memset(nm->text + nm->n, 0, (n - nm->n) * sizeof *t);
		memset(nm->dem + nm->n, 0, (n - nm->n) * sizeof *d);
		nm->n = n;
	}
	if (!nm->text[id] && !(nm->text[id] = strdup(gt_reader_string(r, id))))
		return NULL;
	if (!dem)
		return nm->text[id];
	if (!nm->dem[id] && !(nm->dem[id] = gt_demangle(nm->text[id])))
		return NULL;
	return nm->dem[id];
}

void nsys_u64(struct gt_nsys_cell *c, uint64_t v) { c->type = GT_NSYS_U64, c->u = v; }
void nsys_i64(struct gt_nsys_cell *c, int64_t v) { c->type = GT_NSYS_I64, c->i = v; }
void nsys_str(struct gt_nsys_cell *c, const char *s) { c->type = GT_NSYS_STR, c->s = s; }
void nsys_u64_as(struct gt_nsys_cell *c, uint64_t v, double scale, int decimals)
{
	c->type = GT_NSYS_U64_AS;
	c->u = v;
	c->scale = scale;
	c->decimals = decimals;
}

void nsys_num(struct gt_nsys_cell *c, double v, double scale, int decimals)
{
	c->type = GT_NSYS_NUM;
	c->d = v;
	c->scale = scale;
	c->decimals = decimals;
}

/* ---- the interface --------------------------------------------------------------------------- */

int gt_nsys_report_run(struct gt_nsys_report *rep, int kind, const char *path)
{
	memset(rep, 0, sizeof *rep);
	rep->kind = kind;
	if (!(rep->trace.path = strdup(path)) || !(rep->state = calloc(1, sizeof *rep->state)))
		return GT_ERR_NOMEM;
	switch (kind) {
	case GT_NSYS_CUDA_GPU_TRACE:
	case GT_NSYS_CUDA_API_TRACE: return nsys_trace_run(rep);
	case GT_NSYS_KERN_EXEC_TRACE:
	case GT_NSYS_KERN_EXEC_SUM: return nsys_kexec_run(rep);
	case GT_NSYS_API_GPU_SUM:
	case GT_NSYS_PUSHPOP_SUM: return nsys_merge_run(rep);
	case GT_NSYS_GPU_PROJ_TRACE:
	case GT_NSYS_GPU_PROJ_SUM: return nsys_proj_run(rep);
	default: return nsys_pushpop_run(rep);
	}
}

void gt_nsys_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c)
{
	memset(c, 0, sizeof *c);
	switch (rep->kind) {
	case GT_NSYS_CUDA_GPU_TRACE:
	case GT_NSYS_CUDA_API_TRACE: nsys_trace_cell(rep, row, col, c); break;
	case GT_NSYS_KERN_EXEC_TRACE:
	case GT_NSYS_KERN_EXEC_SUM: nsys_kexec_cell(rep, row, col, c); break;
	case GT_NSYS_API_GPU_SUM:
	case GT_NSYS_PUSHPOP_SUM: nsys_merge_cell(rep, row, col, c); break;
	case GT_NSYS_GPU_PROJ_TRACE:
	case GT_NSYS_GPU_PROJ_SUM: nsys_proj_cell(rep, row, col, c); break;
	default: nsys_pushpop_cell(rep, row, col, c); break;
	}
}

void gt_nsys_report_release(struct gt_nsys_report *rep)
{
	if (!rep)
		return;
	struct nsys_state *st = rep->state;
	if (st) {
		for (size_t i = 0; i < st->names.n; i++) {
			free(st->names.text[i]);
			free(st->names.dem[i]);
		}
		free(st->names.text);
		free(st->names.dem);
		gt_tl_vec_release(&st->recs);
		nsys_proj_release(st->proj);
		free(st->groups);
		free(st->rows);
		free(st->category);
		free(st->tmp);
		if (st->labels)
			for (size_t i = 0; i < rep->nrows; i++)
				free(st->labels[i]);
		free(st->labels);
		for (size_t i = 0; i < 3; i++)
			gt_stats_report_release(&st->parts[i]);
		free(st);
	}
	gt_stats_trace_release(&rep->trace);
	memset(rep, 0, sizeof *rep);
}

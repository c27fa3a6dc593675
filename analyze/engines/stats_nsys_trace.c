/* stats_nsys_trace.c: cuda_gpu_trace and cuda_api_trace (stats_nsys.h): one row per kernel, copy
 * and memset, or per API call, kept compact while the trace streams and sorted once by start.
 */
#include "analyze/engines/stats_nsys_internal.h"

#include <string.h>

enum { GPU_KERNEL = 0, GPU_MEMCPY, GPU_MEMSET };

struct gpu_rec {                 /* 96 bytes */
	uint64_t start, dur, bytes;
	const char *name, *dem;  /* kernels: mangled and demangled; else the operation, both */
	uint32_t corr, device, context, stream;
	uint32_t grid[3], block[3];
	uint32_t regs, ssmem, dsmem;
	uint8_t what, src, dst, pad;
};

struct api_rec {                 /* 48 bytes */
	uint64_t start, dur;
	const char *name;
	uint64_t tid;
	uint32_t corr, pid;
	int32_t result, pad;
};

static int on_gpu(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_nsys_report *rep = ctx;
	struct nsys_state *st = rep->state;
	struct gpu_rec g;
	memset(&g, 0, sizeof g);
	if (ev->type == GT_REC_KERNEL) {
		const struct gt_kernel *k = &ev->u.kernel;
		rep->trace.records++;
		if ((k->flags & GT_KERNEL_BAD_TIMES) || k->end < k->start) {
			rep->trace.bad_times++;
			return 0;
		}
		if (!(g.name = nsys_name(st, r, k->name_id, 0)) || !(g.dem = nsys_name(st, r, k->name_id, 1)))
			return GT_ERR_NOMEM;
		g.start = k->start, g.dur = k->end - k->start, g.what = GPU_KERNEL;
		g.corr = k->correlation_id, g.device = k->device_id, g.context = k->context_id, g.stream = k->stream_id;
		g.grid[0] = k->grid_x, g.grid[1] = k->grid_y, g.grid[2] = k->grid_z;
		g.block[0] = k->block_x, g.block[1] = k->block_y, g.block[2] = k->block_z;
		g.regs = k->registers, g.ssmem = k->static_smem, g.dsmem = k->dynamic_smem;
	} else if (ev->type == GT_REC_MEMCPY) {
		const struct gt_memcpy *m = &ev->u.memcpy;
		rep->trace.records++;
		if (m->flags & GT_COPY_TOOL) {
			rep->trace.tool_copies++;
			return 0;
		}
		if (m->end < m->start) {
			rep->trace.bad_times++;
			return 0;
		}
		g.name = g.dem = gt_stats_operation_name(m->copy_kind);
		g.start = m->start, g.dur = m->end - m->start, g.bytes = m->bytes, g.what = GPU_MEMCPY;
		g.corr = m->correlation_id, g.device = m->device_id, g.context = m->context_id, g.stream = m->stream_id;
		g.src = m->src_kind, g.dst = m->dst_kind;
	} else if (ev->type == GT_REC_MEMSET) {
		const struct gt_memset *m = &ev->u.memset;
		rep->trace.records++;
		if (m->end < m->start) {
			rep->trace.bad_times++;
			return 0;
		}
		g.name = g.dem = "[CUDA memset]";
		g.start = m->start, g.dur = m->end - m->start, g.bytes = m->bytes, g.what = GPU_MEMSET;
		g.corr = m->correlation_id, g.device = m->device_id, g.context = m->context_id, g.stream = m->stream_id;
		g.src = m->mem_kind;
	} else {
		return 0;
	}
	struct gpu_rec *p = gt_tl_vec_push(&st->recs);
	if (!p)
		return GT_ERR_NOMEM;
	*p = g;
	return 0;
}

static int on_api(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct gt_nsys_report *rep = ctx;
	struct nsys_state *st = rep->state;
	if (ev->type != GT_REC_API)
		return 0;
	const struct gt_api *a = &ev->u.api;
	rep->trace.records++;
	if (a->end < a->start) {
		rep->trace.bad_times++;
		return 0;
	}
	struct api_rec x = { a->start, a->end - a->start, nsys_name(st, r, a->name_id, 0), a->thread_id,
		             a->correlation_id, a->process_id, a->return_value, 0 };
	if (!x.name)
		return GT_ERR_NOMEM;
	struct api_rec *p = gt_tl_vec_push(&st->recs);
	if (!p)
		return GT_ERR_NOMEM;
	*p = x;
	return 0;
}

int nsys_trace_run(struct gt_nsys_report *rep)
{
	struct nsys_state *st = rep->state;
	int gpu = rep->kind == GT_NSYS_CUDA_GPU_TRACE;
	gt_tl_vec_init(&st->recs, gpu ? sizeof(struct gpu_rec) : sizeof(struct api_rec));
	int rc = gt_stats_trace_read(&rep->trace, gpu ? on_gpu : on_api, rep);
	if (!rc && gt_tl_vec_sort(&st->recs)) /* by start, stably: ties keep file order */
		rc = GT_ERR_NOMEM;
	rep->nrows = rc ? 0 : st->recs.n;
	return rc;
}

/* Nsight Systems' names of the memory kinds. */
static const char *mem_kind(int k)
{
	static const char *const names[] = { "Unknown", "Pageable", "Pinned", "Device", "Array", "Managed",
		                             "Device Static", "Managed Static" };
	return k >= 0 && k < (int)(sizeof names / sizeof names[0]) ? names[k] : names[0];
}

static void gpu_cell(const struct gpu_rec *g, size_t col, struct gt_nsys_cell *c)
{
	int kern = g->what == GPU_KERNEL;
	switch (col) {
	case 0: nsys_u64(c, g->start); break;
	case 1: nsys_u64(c, g->dur); break;
	case 2: nsys_u64(c, g->corr); break;
	case 3: case 4: case 5: if (kern) nsys_u64(c, g->grid[col - 3]); break;
	case 6: case 7: case 8: if (kern) nsys_u64(c, g->block[col - 6]); break;
	case 9: if (kern) nsys_u64(c, g->regs); break;
	case 10: if (kern) nsys_u64_as(c, g->ssmem, 1e6, 3); break;
	case 11: if (kern) nsys_u64_as(c, g->dsmem, 1e6, 3); break;
	case 12: if (!kern) nsys_u64_as(c, g->bytes, 1e6, 3); break;
	case 13: /* MB/s: bytes / 10^6 over ns / 10^9 */
		if (!kern && g->dur)
			nsys_num(c, (double)g->bytes * 1e3 / (double)g->dur, 1, 3);
		break;
	case 14: if (!kern) nsys_str(c, mem_kind(g->src)); break;
	case 15: if (g->what == GPU_MEMCPY) nsys_str(c, mem_kind(g->dst)); break;
	case 16: nsys_u64(c, g->device); break;
	case 17: nsys_u64(c, g->context); break;
	case 18: nsys_u64(c, g->stream); break;
	case 19: nsys_str(c, g->name); break;
	default: nsys_str(c, g->dem); break;
	}
}

static void api_cell(const struct api_rec *a, size_t col, struct gt_nsys_cell *c)
{
	switch (col) {
	case 0: nsys_u64(c, a->start); break;
	case 1: nsys_u64(c, a->dur); break;
	case 2: nsys_str(c, a->name); break;
	case 3: nsys_i64(c, a->result); break;
	case 4: nsys_u64(c, a->corr); break;
	case 5: nsys_u64(c, a->pid); break;
	case 6: nsys_u64(c, a->tid); break;
	default: break; /* T-Pri, Thread Name: not recorded */
	}
}

void nsys_trace_cell(const struct gt_nsys_report *rep, size_t row, size_t col, struct gt_nsys_cell *c)
{
	const void *p = gt_tl_vec_at(&rep->state->recs, row);
	if (rep->kind == GT_NSYS_CUDA_GPU_TRACE)
		gpu_cell(p, col, c);
	else
		api_cell(p, col, c);
}

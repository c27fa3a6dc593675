/* findings_rules_copies.c: the copies family: transfers and memsets that made the host wait
 * (issued synchronously, or asynchronously from pageable memory, which the driver stages), and
 * copies too small to reach bandwidth. Which copy is synchronous or small is bandwidth.c's word,
 * fed from the same pass, so that this and `gpuanalyze bandwidth` never disagree.
 */
#include "analyze/engines/findings_rules.h"
#include "analyze/engines/findings_text.h"

#include <stdio.h>

/* Copies flagged async whose host end is pageable: the driver staged them, so they ran synchronously. */
int gt_fd_pageable_async(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	(void)r;
	char t[64], pc[64];
	const struct flagacc *a = &p->pageable_async;
	if (a->count) {
		if (gt_fd_add(F, rule, gt_fd_sev_by_cost(F, a->time_ns),
		              gt_fd_fmt("%llu %s issued as asynchronous but with a pageable host end, so %s ran "
		                        "synchronously (%.3f MB, %.3f ms)",
		                        (unsigned long long)a->count, gt_fd_pl(a->count, "copy", "copies"),
		                        gt_fd_pl(a->count, "it", "they"),
		                        (double)a->bytes / 1e6, a->time_ns / 1e6),
		              gt_fd_fmt("first %s, %s, stream %u", gt_fd_at(a->first, F->origin, t, sizeof t),
		                        gt_copy_kind_name(a->first_kind),
		                        a->first_stream),
		              a->time_ns,
		              gt_fd_fmt("their summed GPU duration (%s): the host waited at least that long and could "
		                        "not queue other work meanwhile",
		                        gt_fd_pct_of_span(F, a->time_ns, pc, sizeof pc)),
		              gt_fd_fmt("Allocate these host buffers with cudaMallocHost (or pin them with "
		                        "cudaHostRegister) so that cudaMemcpyAsync is asynchronous")))
			return GT_ERR_NOMEM;
		gt_fd_set_where(gt_fd_last(F), a->first, F->origin, a->first_stream);
		gt_fd_last(F)->count = a->count;
	}
	return 0;
}

/* Copies without the async flag, with the share bandwidth.c found on the critical path. */
int gt_fd_sync_copies(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	(void)r;
	char t[64], pc[64];
	const struct gt_bw_flag *s = &p->bw->sync, *c = &p->bw->sync_critical;
	if (s->count) {
		if (gt_fd_add(F, rule, gt_fd_sev_by_cost(F, s->time_ns),
		              gt_fd_fmt("%llu %s without the async flag (cudaMemcpy and the like; %.3f MB, %.3f ms); %llu "
		                        "of them (%.3f ms) ran while the device did nothing else",
		                        (unsigned long long)s->count, gt_fd_pl(s->count, "copy", "copies"), (double)s->bytes / 1e6,
		                        s->time_ns / 1e6, (unsigned long long)c->count, c->time_ns / 1e6),
		              gt_fd_fmt("first %s, %s, stream %u", gt_fd_at(s->first_start, F->origin, t, sizeof t),
		                        gt_copy_kind_name(s->first_copy_kind), s->first_stream),
		              s->time_ns,
		              gt_fd_fmt("their summed GPU duration (%s): the host waited at least that long; the "
		                        "critical-path part is time the GPU was idle too",
		                        gt_fd_pct_of_span(F, s->time_ns, pc, sizeof pc)),
		              gt_fd_fmt("Use cudaMemcpyAsync on a stream from pinned memory, and synchronise once where "
		                        "the result is needed")))
			return GT_ERR_NOMEM;
		gt_fd_set_where(gt_fd_last(F), s->first_start, F->origin, s->first_stream);
		gt_fd_last(F)->count = s->count;
	}
	return 0;
}

/* Memsets without the async flag. */
int gt_fd_sync_memsets(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	(void)r;
	char t[64], pc[64];
	const struct flagacc *a = &p->sync_memsets;
	if (a->count) {
		if (gt_fd_add(F, rule, gt_fd_sev_by_cost(F, a->time_ns),
		              gt_fd_fmt("%llu %s without the async flag (cudaMemset; %.3f MB, %.3f ms)",
		                        (unsigned long long)a->count, gt_fd_pl(a->count, "memset", "memsets"), (double)a->bytes / 1e6,
		                        a->time_ns / 1e6),
		              gt_fd_fmt("first %s, stream %u", gt_fd_at(a->first, F->origin, t, sizeof t), a->first_stream),
		              a->time_ns,
		              gt_fd_fmt("their summed GPU duration (%s): the host waited at least that long",
		                        gt_fd_pct_of_span(F, a->time_ns, pc, sizeof pc)),
		              gt_fd_fmt("Use cudaMemsetAsync on the stream that uses the memory")))
			return GT_ERR_NOMEM;
		gt_fd_set_where(gt_fd_last(F), a->first, F->origin, a->first_stream);
		gt_fd_last(F)->count = a->count;
	}
	return 0;
}

/* Copies bandwidth.c found too small to reach 80% of the ceiling, with each device's thresholds. */
int gt_fd_small_copies(struct findings_pass *p, const struct gt_reader *r, const struct findings_rule *rule)
{
	struct gt_findings *F = p->F;
	(void)r;
	char pc[64];
	const struct gt_bw_flag *sm = &p->bw->small;
	if (sm->count) {
		char thr[256] = "";
		size_t n = 0;
		for (size_t i = 0; i < p->bw->ndevices; i++) {
			const struct gt_bw_device *d = &p->bw->devices[i];
			n += (size_t)snprintf(thr + n, sizeof thr - n, "%sdevice %u: %.0f bytes for host copies, %.0f for DtoD",
			                      n ? "; " : "", d->device_id, d->small_host, d->small_dtod);
			if (n >= sizeof thr)
				break;
		}
		if (gt_fd_add(F, rule, gt_fd_sev_by_cost(F, sm->time_ns),
		              gt_fd_fmt("%llu %s too small to reach 80%% of the bandwidth ceiling (%.3f MB, %.3f ms); "
		                        "thresholds: %s",
		                        (unsigned long long)sm->count, gt_fd_pl(sm->count, "copy", "copies"), (double)sm->bytes / 1e6,
		                        sm->time_ns / 1e6, thr),
		              gt_fd_fmt("see 'gpuanalyze bandwidth' for the groups"), sm->time_ns,
		              gt_fd_fmt("their summed GPU duration (%s); with a fixed cost of about %.0f us per copy, "
		                        "most of it is overhead",
		                        gt_fd_pct_of_span(F, sm->time_ns, pc, sizeof pc), GT_BW_FIXED_COST_NS / 1e3),
		              gt_fd_fmt("Batch small copies into fewer large ones, or keep the data on the device")))
			return GT_ERR_NOMEM;
		gt_fd_last(F)->count = sm->count;
	}
	return 0;
}

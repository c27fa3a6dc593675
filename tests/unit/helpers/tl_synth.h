/* tl_synth.h: records with timelines (API calls, syncs, NVTX ranges, clocks, process events) for
 * the tests of split, bandwidth and findings; header-only, so that it adds nothing to the other
 * test binaries. It complements synth_trace.h (kernels, copies, memsets, drops with fixed fields)
 * with records whose every field the test chooses: stream, device, correlation id, flags.
 *
 * Every writer goes through synth_open (synth_trace.h), so each trace says it is synthetic.
 */
#ifndef TL_SYNTH_H
#define TL_SYNTH_H

#include "traces/gputrace.h"
#include "helpers/synth_trace.h"

#include <string.h>

#define TL_UNUSED __attribute__((unused))

static TL_UNUSED int tl_kernel(struct gt_writer *w, const char *name, uint64_t start, uint64_t end,
                               uint32_t stream, uint32_t corr, uint64_t queued)
{
	struct gt_kernel k;
	memset(&k, 0, sizeof k);
	k.start = start;
	k.end = end;
	if (queued) {
		k.queued = queued;
		k.submitted = queued + (start - queued) / 2;
		k.flags = GT_KERNEL_HAS_QUEUED;
	}
	if (!(k.name_id = gt_writer_intern(w, name)))
		return GT_ERR_NOMEM;
	k.correlation_id = corr;
	k.context_id = 1;
	k.stream_id = stream;
	k.grid_x = k.grid_y = k.grid_z = 1;
	k.block_x = 32;
	k.block_y = k.block_z = 1;
	return gt_writer_add(w, GT_REC_KERNEL, &k);
}

static TL_UNUSED int tl_kernel_dev(struct gt_writer *w, const char *name, uint64_t start, uint64_t end,
                                   uint32_t device, uint32_t stream)
{
	struct gt_kernel k;
	memset(&k, 0, sizeof k);
	k.start = start;
	k.end = end;
	if (!(k.name_id = gt_writer_intern(w, name)))
		return GT_ERR_NOMEM;
	k.device_id = device;
	k.context_id = 1;
	k.stream_id = stream;
	return gt_writer_add(w, GT_REC_KERNEL, &k);
}

static TL_UNUSED int tl_copy(struct gt_writer *w, int kind, int src, int dst, uint64_t bytes, uint64_t start,
                             uint64_t end, uint32_t stream, int async)
{
	struct gt_memcpy m;
	memset(&m, 0, sizeof m);
	m.start = start;
	m.end = end;
	m.bytes = bytes;
	m.context_id = 1;
	m.stream_id = stream;
	m.copy_kind = (uint8_t)kind;
	m.src_kind = (uint8_t)src;
	m.dst_kind = (uint8_t)dst;
	m.flags = async ? GT_COPY_ASYNC : 0;
	return gt_writer_add(w, GT_REC_MEMCPY, &m);
}

static TL_UNUSED int tl_copy_dev(struct gt_writer *w, int kind, uint64_t bytes, uint64_t start, uint64_t end,
                                 uint32_t device, uint32_t stream, int async)
{
	struct gt_memcpy m;
	memset(&m, 0, sizeof m);
	m.start = start;
	m.end = end;
	m.bytes = bytes;
	m.device_id = m.dst_device_id = device;
	m.stream_id = stream;
	m.copy_kind = (uint8_t)kind;
	m.src_kind = kind == GT_COPY_HTOD ? GT_MEM_PINNED : GT_MEM_DEVICE;
	m.dst_kind = kind == GT_COPY_DTOH ? GT_MEM_PINNED : GT_MEM_DEVICE;
	m.flags = async ? GT_COPY_ASYNC : 0;
	return gt_writer_add(w, GT_REC_MEMCPY, &m);
}

static TL_UNUSED int tl_memset(struct gt_writer *w, uint64_t bytes, uint64_t start, uint64_t end,
                               uint32_t stream, int async)
{
	struct gt_memset m;
	memset(&m, 0, sizeof m);
	m.start = start;
	m.end = end;
	m.bytes = bytes;
	m.context_id = 1;
	m.stream_id = stream;
	m.mem_kind = GT_MEM_DEVICE;
	m.flags = async ? GT_COPY_ASYNC : 0;
	return gt_writer_add(w, GT_REC_MEMSET, &m);
}

static TL_UNUSED int tl_api(struct gt_writer *w, const char *name, uint64_t start, uint64_t end,
                            uint64_t thread, uint32_t corr)
{
	struct gt_api a;
	memset(&a, 0, sizeof a);
	a.start = start;
	a.end = end;
	a.thread_id = thread;
	if (!(a.name_id = gt_writer_intern(w, name)))
		return GT_ERR_NOMEM;
	a.correlation_id = corr;
	a.process_id = 42;
	a.domain = GT_API_RUNTIME;
	return gt_writer_add(w, GT_REC_API, &a);
}

static TL_UNUSED int tl_sync(struct gt_writer *w, int kind, uint64_t start, uint64_t end, uint32_t corr)
{
	struct gt_sync s;
	memset(&s, 0, sizeof s);
	s.start = start;
	s.end = end;
	s.correlation_id = corr;
	s.context_id = 1;
	s.stream_id = kind == GT_SYNC_STREAM ? 7 : 0xffffffffu;
	s.kind = (uint8_t)kind;
	return gt_writer_add(w, GT_REC_SYNC, &s);
}

static TL_UNUSED int tl_nvtx(struct gt_writer *w, const char *name, uint64_t start, uint64_t end,
                             uint32_t depth, uint32_t thread)
{
	struct gt_nvtx n;
	memset(&n, 0, sizeof n);
	n.start = start;
	n.end = end;
	if (!(n.name_id = gt_writer_intern(w, name)))
		return GT_ERR_NOMEM;
	n.thread_id = thread;
	n.depth = depth;
	n.kind = start == end ? GT_NVTX_MARK : GT_NVTX_PUSH_POP;
	return gt_writer_add(w, GT_REC_NVTX, &n);
}

/* A range in a named domain (a library's: "NCCL"); end 0 leaves it unclosed, as a range whose pop
 * never came is recorded. */
static TL_UNUSED int tl_nvtx_domain(struct gt_writer *w, const char *domain, const char *name, uint64_t start,
                                    uint64_t end, uint32_t depth, uint32_t thread)
{
	struct gt_nvtx n;
	memset(&n, 0, sizeof n);
	n.start = start;
	n.end = end;
	if (!(n.name_id = gt_writer_intern(w, name)) || !(n.domain_id = gt_writer_intern(w, domain)))
		return GT_ERR_NOMEM;
	n.thread_id = thread;
	n.depth = depth;
	n.kind = GT_NVTX_PUSH_POP;
	return gt_writer_add(w, GT_REC_NVTX, &n);
}

static TL_UNUSED int tl_process(struct gt_writer *w, int event, uint64_t ts)
{
	struct gt_process p;
	memset(&p, 0, sizeof p);
	p.timestamp = ts;
	p.host_ns = ts;
	p.pid = 42;
	p.event = (uint32_t)event;
	return gt_writer_add(w, GT_REC_PROCESS, &p);
}

static TL_UNUSED int tl_clock(struct gt_writer *w, uint64_t ts, uint32_t sm_mhz, uint64_t reasons)
{
	struct gt_clock_sample c;
	memset(&c, 0, sizeof c);
	c.timestamp = ts;
	c.throttle_reasons = reasons;
	c.sm_clock_mhz = sm_mhz;
	c.mem_clock_mhz = 2619;
	c.temperature_c = 50;
	c.power_mw = 300000;
	c.utilization_gpu = 90;
	return gt_writer_add(w, GT_REC_CLOCK_SAMPLE, &c);
}

static TL_UNUSED int tl_dropped(struct gt_writer *w, int reason, uint64_t count, uint64_t ts)
{
	struct gt_dropped d;
	memset(&d, 0, sizeof d);
	d.timestamp = ts;
	d.count = count;
	d.reason = (uint32_t)reason;
	return gt_writer_add(w, GT_REC_DROPPED, &d);
}

#endif

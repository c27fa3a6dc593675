/* fields.c: the field tables of every event record type in gputrace.h, and how a field is read. */
#include "fields.h"

#include <stdio.h>
#include <string.h>

static const char *api_domain_name(int v)
{
	return v == GT_API_RUNTIME ? "runtime" : v == GT_API_DRIVER ? "driver" : "unknown";
}

static const char *nvtx_kind_name(int v)
{
	switch (v) {
	case GT_NVTX_MARK: return "mark";
	case GT_NVTX_PUSH_POP: return "push-pop";
	case GT_NVTX_START_END: return "start-end";
	}
	return "unknown";
}

static const char *memory_op_name(int v)
{
	return v == GT_MEMORY_ALLOC ? "alloc" : v == GT_MEMORY_FREE ? "free" : "unknown";
}

static const char *process_event_name(int v)
{
	switch (v) {
	case GT_PROCESS_START: return "start";
	case GT_PROCESS_EXIT: return "exit";
	case GT_PROCESS_SIGNAL: return "signal";
	case GT_PROCESS_FORKED: return "forked";
	case GT_PROCESS_EXEC: return "exec";
	case GT_PROCESS_TRACING_OFF: return "tracing-off";
	case GT_PROCESS_WINDOW_OPEN: return "window-open";
	case GT_PROCESS_WINDOW_CLOSE: return "window-close";
	}
	return "unknown";
}

/* By name like every other enumeration, so that dump's kind column (sync, nvtx and overhead
 * records share it) holds names only. */
static const char *overhead_kind_name(int v)
{
	switch (v) {
	case GT_OVERHEAD_DRIVER_COMPILER: return "driver-compiler";
	case GT_OVERHEAD_CUPTI_BUFFER_FLUSH: return "cupti-buffer-flush";
	case GT_OVERHEAD_CUPTI_INSTRUMENTATION: return "cupti-instrumentation";
	case GT_OVERHEAD_CUPTI_RESOURCE: return "cupti-resource";
	case GT_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "runtime-triggered-module-loading";
	case GT_OVERHEAD_LAZY_FUNCTION_LOADING: return "lazy-function-loading";
	case GT_OVERHEAD_COMMAND_BUFFER_FULL: return "command-buffer-full";
	case GT_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "activity-buffer-request";
	case GT_OVERHEAD_UVM_ACTIVITY_INIT: return "uvm-activity-init";
	case GT_OVERHEAD_CAPTURE: return "capture";
	}
	return "unknown";
}

static const char *copy_kind_name(int v) { return gt_copy_kind_name(v); }
static const char *mem_kind_name(int v) { return gt_mem_kind_name(v); }
static const char *sync_kind_name(int v) { return gt_sync_kind_name(v); }
static const char *drop_reason_name(int v) { return gt_drop_reason_name(v); }

#define F(S, m, k) { #m, offsetof(struct S, m), sizeof(((struct S *)0)->m), k, NULL }
#define FN(S, m, name, k) { name, offsetof(struct S, m), sizeof(((struct S *)0)->m), k, NULL }
#define FE(S, m, fn) { #m, offsetof(struct S, m), sizeof(((struct S *)0)->m), GT_FIELD_ENUM, fn }
#define U GT_FIELD_UINT

static const struct gt_field kernel_fields[] = {
	F(gt_kernel, start, U), F(gt_kernel, end, U), F(gt_kernel, queued, U),
	F(gt_kernel, submitted, U), F(gt_kernel, graph_node_id, U),
	FN(gt_kernel, name_id, "name", GT_FIELD_STRING), F(gt_kernel, correlation_id, U),
	F(gt_kernel, device_id, U), F(gt_kernel, context_id, U), F(gt_kernel, stream_id, U),
	F(gt_kernel, graph_id, U), F(gt_kernel, grid_x, U), F(gt_kernel, grid_y, U),
	F(gt_kernel, grid_z, U), F(gt_kernel, block_x, U), F(gt_kernel, block_y, U),
	F(gt_kernel, block_z, U), F(gt_kernel, cluster_x, U), F(gt_kernel, cluster_y, U),
	F(gt_kernel, cluster_z, U), F(gt_kernel, static_smem, U), F(gt_kernel, dynamic_smem, U),
	F(gt_kernel, local_mem, U), F(gt_kernel, registers, U), F(gt_kernel, flags, U),
};

static const struct gt_field memcpy_fields[] = {
	F(gt_memcpy, start, U), F(gt_memcpy, end, U), F(gt_memcpy, bytes, U),
	F(gt_memcpy, graph_node_id, U), F(gt_memcpy, correlation_id, U), F(gt_memcpy, device_id, U),
	F(gt_memcpy, dst_device_id, U), F(gt_memcpy, context_id, U), F(gt_memcpy, stream_id, U),
	F(gt_memcpy, graph_id, U), FE(gt_memcpy, copy_kind, copy_kind_name),
	FE(gt_memcpy, src_kind, mem_kind_name), FE(gt_memcpy, dst_kind, mem_kind_name),
	F(gt_memcpy, flags, U),
};

static const struct gt_field memset_fields[] = {
	F(gt_memset, start, U), F(gt_memset, end, U), F(gt_memset, bytes, U),
	F(gt_memset, graph_node_id, U), F(gt_memset, correlation_id, U), F(gt_memset, device_id, U),
	F(gt_memset, context_id, U), F(gt_memset, stream_id, U), F(gt_memset, value, U),
	F(gt_memset, graph_id, U), FE(gt_memset, mem_kind, mem_kind_name), F(gt_memset, flags, U),
};

static const struct gt_field api_fields[] = {
	F(gt_api, start, U), F(gt_api, end, U), F(gt_api, thread_id, U),
	FN(gt_api, name_id, "name", GT_FIELD_STRING), F(gt_api, correlation_id, U), F(gt_api, cbid, U),
	F(gt_api, process_id, U), F(gt_api, return_value, GT_FIELD_INT),
	FE(gt_api, domain, api_domain_name),
};

static const struct gt_field sync_fields[] = {
	F(gt_sync, start, U), F(gt_sync, end, U), F(gt_sync, correlation_id, U),
	F(gt_sync, context_id, U), F(gt_sync, stream_id, U), F(gt_sync, event_id, U),
	FE(gt_sync, kind, sync_kind_name),
};

static const struct gt_field nvtx_fields[] = {
	F(gt_nvtx, start, U), F(gt_nvtx, end, U), F(gt_nvtx, range_id, U),
	FN(gt_nvtx, name_id, "name", GT_FIELD_STRING), FN(gt_nvtx, domain_id, "domain", GT_FIELD_STRING),
	F(gt_nvtx, thread_id, U), F(gt_nvtx, depth, U), F(gt_nvtx, color, GT_FIELD_HEX),
	FE(gt_nvtx, kind, nvtx_kind_name),
};

static const struct gt_field memory_fields[] = {
	F(gt_memory, timestamp, U), F(gt_memory, address, GT_FIELD_HEX), F(gt_memory, bytes, U),
	F(gt_memory, correlation_id, U), F(gt_memory, device_id, U), F(gt_memory, context_id, U),
	F(gt_memory, stream_id, U), F(gt_memory, process_id, U), FE(gt_memory, op, memory_op_name),
	FE(gt_memory, mem_kind, mem_kind_name),
};

static const struct gt_field dropped_fields[] = {
	F(gt_dropped, timestamp, U), F(gt_dropped, count, U), FE(gt_dropped, reason, drop_reason_name),
	F(gt_dropped, context_id, U), F(gt_dropped, stream_id, U),
};

static const struct gt_field process_fields[] = {
	F(gt_process, timestamp, U), F(gt_process, host_ns, U), F(gt_process, pid, U),
	FE(gt_process, event, process_event_name), F(gt_process, status, GT_FIELD_INT),
};

static const struct gt_field overhead_fields[] = {
	F(gt_overhead, start, U), F(gt_overhead, end, U), F(gt_overhead, object_id, U),
	FE(gt_overhead, kind, overhead_kind_name), F(gt_overhead, object_kind, U),
};

static const struct gt_field clock_sync_fields[] = {
	F(gt_clock_sync, cupti_ns, U), F(gt_clock_sync, realtime_ns, U),
	F(gt_clock_sync, monotonic_ns, U),
};

static const struct gt_field clock_sample_fields[] = {
	F(gt_clock_sample, timestamp, U), F(gt_clock_sample, throttle_reasons, GT_FIELD_HEX),
	F(gt_clock_sample, device_id, U), F(gt_clock_sample, sm_clock_mhz, U),
	F(gt_clock_sample, mem_clock_mhz, U), F(gt_clock_sample, temperature_c, U),
	F(gt_clock_sample, power_mw, U), F(gt_clock_sample, utilization_gpu, U),
};

static const struct gt_field graph_launch_fields[] = {
	F(gt_graph_launch, start, U), F(gt_graph_launch, end, U), F(gt_graph_launch, graph_id, U),
	F(gt_graph_launch, correlation_id, U), F(gt_graph_launch, stream_id, U),
};

#define TABLE(t, a) case t: *n = sizeof a / sizeof a[0]; return a

const struct gt_field *gt_fields_of(int type, size_t *n)
{
	switch (type) {
	TABLE(GT_REC_KERNEL, kernel_fields);
	TABLE(GT_REC_MEMCPY, memcpy_fields);
	TABLE(GT_REC_MEMSET, memset_fields);
	TABLE(GT_REC_API, api_fields);
	TABLE(GT_REC_SYNC, sync_fields);
	TABLE(GT_REC_NVTX, nvtx_fields);
	TABLE(GT_REC_MEMORY, memory_fields);
	TABLE(GT_REC_DROPPED, dropped_fields);
	TABLE(GT_REC_PROCESS, process_fields);
	TABLE(GT_REC_OVERHEAD, overhead_fields);
	TABLE(GT_REC_CLOCK_SYNC, clock_sync_fields);
	TABLE(GT_REC_CLOCK_SAMPLE, clock_sample_fields);
	TABLE(GT_REC_GRAPH_LAUNCH, graph_launch_fields);
	}
	*n = 0;
	return NULL;
}

const int gt_event_types[] = { GT_REC_KERNEL, GT_REC_MEMCPY, GT_REC_MEMSET, GT_REC_API,
	GT_REC_SYNC, GT_REC_NVTX, GT_REC_MEMORY, GT_REC_DROPPED, GT_REC_PROCESS, GT_REC_OVERHEAD,
	GT_REC_CLOCK_SYNC, GT_REC_CLOCK_SAMPLE, GT_REC_GRAPH_LAUNCH };
const size_t gt_event_type_count = sizeof gt_event_types / sizeof gt_event_types[0];

uint64_t gt_field_u64(const struct gt_field *f, const void *rec)
{
	const unsigned char *p = (const unsigned char *)rec + f->offset;
	switch (f->size) {
	case 1: return *p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

int64_t gt_field_i64(const struct gt_field *f, const void *rec)
{
	const unsigned char *p = (const unsigned char *)rec + f->offset;
	switch (f->size) {
	case 1: return (int8_t)*p;
	case 2: { int16_t v; memcpy(&v, p, 2); return v; }
	case 4: { int32_t v; memcpy(&v, p, 4); return v; }
	default: { int64_t v; memcpy(&v, p, 8); return v; }
	}
}

const char *gt_field_text(const struct gt_field *f, const void *rec, const struct gt_reader *r,
                          char *buf, size_t len)
{
	uint64_t v = gt_field_u64(f, rec);
	switch (f->kind) {
	case GT_FIELD_STRING:
		return gt_reader_string(r, (uint32_t)v);
	case GT_FIELD_ENUM: {
		const char *name = f->enum_name((int)v);
		if (strcmp(name, "unknown") != 0 || v == 0)
			return name;
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	case GT_FIELD_HEX:
		snprintf(buf, len, "0x%llx", (unsigned long long)v);
		return buf;
	case GT_FIELD_INT:
		snprintf(buf, len, "%lld", (long long)gt_field_i64(f, rec));
		return buf;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
}

/* schema.c: the field table of every record struct in gputrace.h (see schema.h), what generic code
 * knows of each event kind (its name, time, interval, device), and the names of the enumerations
 * that only the table shows. */
#include "traces/schema.h"

#include <pthread.h>

/* names[v], or "unknown" for a value the table does not name. */
static const char *name_in(const char *const *names, size_t n, int v)
{
	return v >= 0 && (size_t)v < n && names[v] ? names[v] : "unknown";
}

/* A name function over a table indexed by the enum's values (designated initializers). */
#define NAMES(fn, ...)                                                                             \
	static const char *fn(int v)                                                                   \
	{                                                                                              \
		static const char *const names[] = { __VA_ARGS__ };                                        \
		return name_in(names, sizeof names / sizeof names[0], v);                                  \
	}

NAMES(api_domain_name, [GT_API_RUNTIME] = "runtime", [GT_API_DRIVER] = "driver")
NAMES(nvtx_kind_name, [GT_NVTX_MARK] = "mark", [GT_NVTX_PUSH_POP] = "push-pop",
      [GT_NVTX_START_END] = "start-end")
NAMES(memory_op_name, [GT_MEMORY_ALLOC] = "alloc", [GT_MEMORY_FREE] = "free")
NAMES(process_event_name, [GT_PROCESS_START] = "start", [GT_PROCESS_EXIT] = "exit",
      [GT_PROCESS_SIGNAL] = "signal", [GT_PROCESS_FORKED] = "forked", [GT_PROCESS_EXEC] = "exec",
      [GT_PROCESS_TRACING_OFF] = "tracing-off", [GT_PROCESS_WINDOW_OPEN] = "window-open",
      [GT_PROCESS_WINDOW_CLOSE] = "window-close")
/* By name like every other enumeration, so that dump's kind column (sync, nvtx and overhead
 * records share it) holds names only. */
NAMES(overhead_kind_name, [GT_OVERHEAD_DRIVER_COMPILER] = "driver-compiler",
      [GT_OVERHEAD_CUPTI_BUFFER_FLUSH] = "cupti-buffer-flush",
      [GT_OVERHEAD_CUPTI_INSTRUMENTATION] = "cupti-instrumentation",
      [GT_OVERHEAD_CUPTI_RESOURCE] = "cupti-resource",
      [GT_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING] = "runtime-triggered-module-loading",
      [GT_OVERHEAD_LAZY_FUNCTION_LOADING] = "lazy-function-loading",
      [GT_OVERHEAD_COMMAND_BUFFER_FULL] = "command-buffer-full",
      [GT_OVERHEAD_ACTIVITY_BUFFER_REQUEST] = "activity-buffer-request",
      [GT_OVERHEAD_UVM_ACTIVITY_INIT] = "uvm-activity-init", [GT_OVERHEAD_CAPTURE] = "capture")

/* One row: struct s's member m, of page type t, shown as `show` with kind k, coded as c. */
#define ROW(s, m, t, show, k, c, e)                                                              \
	{ #m, show, (uint16_t)offsetof(struct s, m), (uint16_t)sizeof(((struct s *)0)->m), k, c, t, e }
#define U(s, m, t) ROW(s, m, t, #m, GT_FIELD_UINT, GT_CODEC_PLAIN, NULL)
#define I32(s, m) ROW(s, m, "i32", #m, GT_FIELD_INT, GT_CODEC_PLAIN, NULL)
#define HEX(s, m, t) ROW(s, m, t, #m, GT_FIELD_HEX, GT_CODEC_PLAIN, NULL)
#define BASE(s, m) ROW(s, m, "u64", #m, GT_FIELD_UINT, GT_CODEC_BASE, NULL)
#define REL(s, m) ROW(s, m, "u64", #m, GT_FIELD_UINT, GT_CODEC_REL, NULL)
#define D32(s, m) ROW(s, m, "u32", #m, GT_FIELD_UINT, GT_CODEC_DELTA32, NULL)
#define STR(s, m, show) ROW(s, m, "u32", show, GT_FIELD_STRING, GT_CODEC_PLAIN, NULL)
#define F64(s, m) ROW(s, m, "f64", #m, GT_FIELD_F64, GT_CODEC_PLAIN, NULL)
#define EN(s, m, t, fn) ROW(s, m, t, #m, GT_FIELD_ENUM, GT_CODEC_PLAIN, fn)
#define RES(s, m, t) ROW(s, m, t, NULL, GT_FIELD_RESERVED, GT_CODEC_PLAIN, NULL)
#define END { NULL, NULL, 0, 0, 0, 0, NULL, NULL }

static const struct gt_field kernel[] = {
	BASE(gt_kernel, start), REL(gt_kernel, end), REL(gt_kernel, queued), REL(gt_kernel, submitted),
	U(gt_kernel, graph_node_id, "u64"), STR(gt_kernel, name_id, "name"),
	D32(gt_kernel, correlation_id), U(gt_kernel, device_id, "u32"),
	U(gt_kernel, context_id, "u32"), U(gt_kernel, stream_id, "u32"), U(gt_kernel, graph_id, "u32"),
	U(gt_kernel, grid_x, "u32"), U(gt_kernel, grid_y, "u32"), U(gt_kernel, grid_z, "u32"),
	U(gt_kernel, block_x, "u32"), U(gt_kernel, block_y, "u32"), U(gt_kernel, block_z, "u32"),
	U(gt_kernel, cluster_x, "u32"), U(gt_kernel, cluster_y, "u32"),
	U(gt_kernel, cluster_z, "u32"), U(gt_kernel, static_smem, "u32"),
	U(gt_kernel, dynamic_smem, "u32"), U(gt_kernel, local_mem, "u32"),
	U(gt_kernel, registers, "u16"), U(gt_kernel, flags, "u16"), RES(gt_kernel, reserved, "u32"),
	END,
};

static const struct gt_field memcpy_[] = {
	BASE(gt_memcpy, start), REL(gt_memcpy, end), U(gt_memcpy, bytes, "u64"),
	U(gt_memcpy, graph_node_id, "u64"), D32(gt_memcpy, correlation_id),
	U(gt_memcpy, device_id, "u32"), U(gt_memcpy, dst_device_id, "u32"),
	U(gt_memcpy, context_id, "u32"), U(gt_memcpy, stream_id, "u32"), U(gt_memcpy, graph_id, "u32"),
	EN(gt_memcpy, copy_kind, "u8", gt_copy_kind_name), EN(gt_memcpy, src_kind, "u8", gt_mem_kind_name),
	EN(gt_memcpy, dst_kind, "u8", gt_mem_kind_name), U(gt_memcpy, flags, "u8"),
	RES(gt_memcpy, reserved, "u32"), END,
};

static const struct gt_field memset_[] = {
	BASE(gt_memset, start), REL(gt_memset, end), U(gt_memset, bytes, "u64"),
	U(gt_memset, graph_node_id, "u64"), D32(gt_memset, correlation_id),
	U(gt_memset, device_id, "u32"), U(gt_memset, context_id, "u32"),
	U(gt_memset, stream_id, "u32"), U(gt_memset, value, "u32"), U(gt_memset, graph_id, "u32"),
	EN(gt_memset, mem_kind, "u8", gt_mem_kind_name), U(gt_memset, flags, "u8"),
	RES(gt_memset, reserved16, "u16"), RES(gt_memset, reserved, "u32"), END,
};

static const struct gt_field api[] = {
	BASE(gt_api, start), REL(gt_api, end), U(gt_api, thread_id, "u64"),
	STR(gt_api, name_id, "name"), D32(gt_api, correlation_id), U(gt_api, cbid, "u32"),
	U(gt_api, process_id, "u32"), I32(gt_api, return_value),
	EN(gt_api, domain, "u8", api_domain_name), RES(gt_api, reserved8, "u8[3]"), END,
};

static const struct gt_field sync[] = {
	BASE(gt_sync, start), REL(gt_sync, end), D32(gt_sync, correlation_id),
	U(gt_sync, context_id, "u32"), U(gt_sync, stream_id, "u32"), U(gt_sync, event_id, "u32"),
	EN(gt_sync, kind, "u8", gt_sync_kind_name), RES(gt_sync, reserved8, "u8[7]"), END,
};

static const struct gt_field nvtx[] = {
	BASE(gt_nvtx, start), REL(gt_nvtx, end), U(gt_nvtx, range_id, "u64"),
	STR(gt_nvtx, name_id, "name"), STR(gt_nvtx, domain_id, "domain"),
	U(gt_nvtx, thread_id, "u32"), U(gt_nvtx, depth, "u32"), HEX(gt_nvtx, color, "u32"),
	EN(gt_nvtx, kind, "u8", nvtx_kind_name), RES(gt_nvtx, reserved8, "u8[3]"), END,
};

static const struct gt_field memory[] = {
	BASE(gt_memory, timestamp), HEX(gt_memory, address, "u64"), U(gt_memory, bytes, "u64"),
	D32(gt_memory, correlation_id), U(gt_memory, device_id, "u32"),
	U(gt_memory, context_id, "u32"), U(gt_memory, stream_id, "u32"),
	U(gt_memory, process_id, "u32"), EN(gt_memory, op, "u8", memory_op_name),
	EN(gt_memory, mem_kind, "u8", gt_mem_kind_name), RES(gt_memory, reserved16, "u16"), END,
};

static const struct gt_field dropped[] = {
	BASE(gt_dropped, timestamp), U(gt_dropped, count, "u64"),
	EN(gt_dropped, reason, "u32", gt_drop_reason_name), U(gt_dropped, context_id, "u32"),
	U(gt_dropped, stream_id, "u32"), RES(gt_dropped, reserved, "u32"), END,
};

static const struct gt_field process[] = {
	BASE(gt_process, timestamp), U(gt_process, host_ns, "u64"), U(gt_process, pid, "u32"),
	EN(gt_process, event, "u32", process_event_name), I32(gt_process, status),
	RES(gt_process, reserved, "u32"), END,
};

static const struct gt_field overhead[] = {
	BASE(gt_overhead, start), REL(gt_overhead, end), U(gt_overhead, object_id, "u64"),
	EN(gt_overhead, kind, "u32", overhead_kind_name), U(gt_overhead, object_kind, "u32"), END,
};

static const struct gt_field clock_sync[] = {
	BASE(gt_clock_sync, cupti_ns), U(gt_clock_sync, realtime_ns, "u64"),
	U(gt_clock_sync, monotonic_ns, "u64"), END,
};

static const struct gt_field clock_sample[] = {
	BASE(gt_clock_sample, timestamp), HEX(gt_clock_sample, throttle_reasons, "u64"),
	U(gt_clock_sample, device_id, "u32"), U(gt_clock_sample, sm_clock_mhz, "u32"),
	U(gt_clock_sample, mem_clock_mhz, "u32"), U(gt_clock_sample, temperature_c, "u32"),
	U(gt_clock_sample, power_mw, "u32"), U(gt_clock_sample, utilization_gpu, "u32"), END,
};

static const struct gt_field graph_launch[] = {
	BASE(gt_graph_launch, start), REL(gt_graph_launch, end), U(gt_graph_launch, graph_id, "u32"),
	D32(gt_graph_launch, correlation_id), U(gt_graph_launch, stream_id, "u32"),
	RES(gt_graph_launch, reserved, "u32"), END,
};

static const struct gt_field metric_sample[] = {
	BASE(gt_metric_sample, start), REL(gt_metric_sample, end), F64(gt_metric_sample, value),
	U(gt_metric_sample, device_id, "u32"), STR(gt_metric_sample, metric_id, "metric"),
	U(gt_metric_sample, flags, "u32"), RES(gt_metric_sample, reserved, "u32"), END,
};

static const struct gt_field launch_metric[] = {
	BASE(gt_launch_metric, start), REL(gt_launch_metric, end), F64(gt_launch_metric, value),
	U(gt_launch_metric, device_id, "u32"), STR(gt_launch_metric, metric_id, "metric"),
	STR(gt_launch_metric, name_id, "name"), D32(gt_launch_metric, correlation_id),
	U(gt_launch_metric, passes, "u32"), U(gt_launch_metric, flags, "u32"), END,
};

/* Variable records' leading structs. */
static const struct gt_field device[] = {
	U(gt_device, device_id, "u32"), U(gt_device, sm_count, "u32"), U(gt_device, cc_major, "u32"),
	U(gt_device, cc_minor, "u32"), U(gt_device, global_mem_bytes, "u64"),
	U(gt_device, sm_clock_khz, "u32"), U(gt_device, mem_clock_khz, "u32"),
	U(gt_device, mem_bus_width_bits, "u32"), U(gt_device, pcie_gen, "u32"),
	U(gt_device, pcie_width, "u32"), U(gt_device, pcie_gen_current, "u32"),
	U(gt_device, pcie_width_current, "u32"), U(gt_device, l2_bytes, "u32"),
	U(gt_device, max_threads_per_sm, "u32"), U(gt_device, name_len, "u32"),
	RES(gt_device, reserved, "u32"), U(gt_device, uuid, "u8[16]"), END,
};

static const struct gt_field blob_piece[] = {
	U(gt_blob_piece, blob_id, "u64"), U(gt_blob_piece, total_bytes, "u64"),
	U(gt_blob_piece, offset, "u64"), U(gt_blob_piece, kind, "u32"),
	U(gt_blob_piece, piece_bytes, "u32"), END,
};

static const struct gt_field capture[] = {
	U(gt_capture, capture_id, "u64"), U(gt_capture, timestamp, "u64"),
	U(gt_capture, cubin_blob_id, "u64"), U(gt_capture, name_id, "u32"),
	U(gt_capture, correlation_id, "u32"), U(gt_capture, device_id, "u32"),
	U(gt_capture, stream_id, "u32"), U(gt_capture, grid, "u32[3]"),
	U(gt_capture, block, "u32[3]"), U(gt_capture, cluster, "u32[3]"),
	U(gt_capture, dynamic_smem, "u32"), U(gt_capture, nparams, "u32"),
	U(gt_capture, param_bytes, "u32"), U(gt_capture, flags, "u32"),
	U(gt_capture, launch_index, "u32"), END,
};

static const struct gt_field capture_param[] = {
	U(gt_capture_param, offset, "u32"), U(gt_capture_param, size, "u32"),
	U(gt_capture_param, kind, "u32"), U(gt_capture_param, status, "u32"),
	U(gt_capture_param, alloc_base, "u64"), U(gt_capture_param, alloc_bytes, "u64"),
	U(gt_capture_param, before_blob, "u64"), U(gt_capture_param, after_blob, "u64"), END,
};

static const struct gt_field end[] = {
	U(gt_end, records, "u64"), U(gt_end, chunks, "u64"), U(gt_end, host_ns, "u64"), END,
};

/* A variable record's leading struct (or a sub-structure): fields only. */
#define VAR(t, name, s, f) { t, name, (uint16_t)sizeof(struct s), f, -1, -1, -1, 0, 0, 0 }
/* An event kind: its fields, then its end (SPAN or INSTANT), its device (DEV or NO_DEV) and the
 * flags that can mark its times bad (BAD or NO_BAD). offsetof: a member that is not there does
 * not compile. */
#define KIND(t, name, s, f, end, dev, bad) { t, name, (uint16_t)sizeof(struct s), f, end, dev, bad, 0 }
/* A kind that measures its device over its interval (counters) rather than being work on it. */
#define MEASURE(t, name, s, f, end, dev, bad) { t, name, (uint16_t)sizeof(struct s), f, end, dev, bad, 1 }
#define SPAN(s) (int16_t)offsetof(struct s, end)
#define INSTANT -1
#define DEV(s, m) (int16_t)offsetof(struct s, m)
#define NO_DEV -1
#define BAD(s, m, bits) (int16_t)offsetof(struct s, m), (uint8_t)sizeof(((struct s *)0)->m), bits
#define NO_BAD -1, 0, 0

const struct gt_record_schema gt_schema[] = {
	VAR(GT_REC_DEVICE, "device", gt_device, device),
	VAR(GT_REC_BLOB, "blob", gt_blob_piece, blob_piece),
	VAR(GT_REC_CAPTURE, "capture", gt_capture, capture),
	/* Not a record of its own: the CAPTURE record's parameter table entries. */
	VAR(GT_REC_CAPTURE, "capture_param", gt_capture_param, capture_param),
	VAR(GT_REC_END, "end", gt_end, end),
	KIND(GT_REC_KERNEL, "kernel", gt_kernel, kernel, SPAN(gt_kernel), DEV(gt_kernel, device_id),
	     BAD(gt_kernel, flags, GT_KERNEL_BAD_TIMES)),
	KIND(GT_REC_MEMCPY, "memcpy", gt_memcpy, memcpy_, SPAN(gt_memcpy), DEV(gt_memcpy, device_id), NO_BAD),
	KIND(GT_REC_MEMSET, "memset", gt_memset, memset_, SPAN(gt_memset), DEV(gt_memset, device_id), NO_BAD),
	KIND(GT_REC_API, "api", gt_api, api, SPAN(gt_api), NO_DEV, NO_BAD),
	KIND(GT_REC_SYNC, "sync", gt_sync, sync, SPAN(gt_sync), NO_DEV, NO_BAD),
	KIND(GT_REC_NVTX, "nvtx", gt_nvtx, nvtx, SPAN(gt_nvtx), NO_DEV, NO_BAD),
	KIND(GT_REC_MEMORY, "memory", gt_memory, memory, INSTANT, DEV(gt_memory, device_id), NO_BAD),
	KIND(GT_REC_DROPPED, "dropped", gt_dropped, dropped, INSTANT, NO_DEV, NO_BAD),
	KIND(GT_REC_PROCESS, "process", gt_process, process, INSTANT, NO_DEV, NO_BAD),
	KIND(GT_REC_OVERHEAD, "overhead", gt_overhead, overhead, SPAN(gt_overhead), NO_DEV, NO_BAD),
	KIND(GT_REC_CLOCK_SYNC, "clock_sync", gt_clock_sync, clock_sync, INSTANT, NO_DEV, NO_BAD),
	KIND(GT_REC_CLOCK_SAMPLE, "clock_sample", gt_clock_sample, clock_sample, INSTANT,
	     DEV(gt_clock_sample, device_id), NO_BAD),
	KIND(GT_REC_GRAPH_LAUNCH, "graph_launch", gt_graph_launch, graph_launch, SPAN(gt_graph_launch),
	     NO_DEV, NO_BAD),
	MEASURE(GT_REC_METRIC_SAMPLE, "metric_sample", gt_metric_sample, metric_sample,
	        SPAN(gt_metric_sample), DEV(gt_metric_sample, device_id),
	        BAD(gt_metric_sample, flags, GT_METRIC_BAD_TIMES)),
	MEASURE(GT_REC_LAUNCH_METRIC, "launch_metric", gt_launch_metric, launch_metric,
	        SPAN(gt_launch_metric), DEV(gt_launch_metric, device_id),
	        BAD(gt_launch_metric, flags, GT_METRIC_BAD_TIMES)),
};
const size_t gt_schema_count = sizeof gt_schema / sizeof gt_schema[0];

const struct gt_record_schema *gt_schema_of(int type)
{
	for (size_t i = 0; i < gt_schema_count; i++)
		if (gt_schema[i].type == type)
			return &gt_schema[i];
	return NULL;
}

/* gt_kind's table: each event kind's row by type, made once (readers may run on several threads). */
static const struct gt_record_schema *kinds[GT_REC_TYPE_MAX + 1 - GT_REC_FIRST_FIXED];
static pthread_once_t kinds_once = PTHREAD_ONCE_INIT;

static void kinds_build(void)
{
	for (size_t i = 0; i < gt_schema_count; i++) {
		int t = gt_schema[i].type;
		if (t >= GT_REC_FIRST_FIXED && t <= GT_REC_TYPE_MAX && !kinds[t - GT_REC_FIRST_FIXED])
			kinds[t - GT_REC_FIRST_FIXED] = &gt_schema[i];
	}
}

const struct gt_record_schema *gt_kind(int type)
{
	if (type < GT_REC_FIRST_FIXED || type > GT_REC_TYPE_MAX || pthread_once(&kinds_once, kinds_build))
		return NULL;
	return kinds[type - GT_REC_FIRST_FIXED];
}

/* The records with no struct of their own are named here; every other by its row. */
const char *gt_rec_type_name(int type)
{
	if (type == GT_REC_STRING)
		return "string";
	if (type == GT_REC_META)
		return "meta";
	const struct gt_record_schema *s = gt_kind(type);
	if (!s && type >= 0)
		s = gt_schema_of(type);
	return s ? s->name : "unknown";
}

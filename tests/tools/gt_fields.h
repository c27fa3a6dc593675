/* gt_fields.h: every field of every record struct in gputrace.h, by name, offset, size and type.
 *
 * Built from offsetof and sizeof, so it cannot disagree with the header about where a field is;
 * tests/unit/test_trace_spec.c checks that the fields tile each struct exactly (so a field added to
 * the header without a row here fails) and that gputrace-format(5) documents the same rows, and
 * gt_codec_compare uses it to lay records out as columns or varints for the spec's size argument.
 * Header-only (static tables) so a test and a tool can share it without a library.
 */
#ifndef GT_FIELDS_H
#define GT_FIELDS_H

#include "gputrace.h"

#include <stddef.h>

struct gt_field {
	const char *name;   /* as in the struct (an array's name without its bound) */
	unsigned offset;
	unsigned size;
	const char *type;   /* u8 u16 u32 u64 i32, or u8[n] */
};

#define GT_F(s, f, t) { #f, (unsigned)offsetof(struct s, f), (unsigned)sizeof(((struct s *)0)->f), t }
#define GT_FA(s, f, n) { #f, (unsigned)offsetof(struct s, f), (unsigned)sizeof(((struct s *)0)->f), "u8[" #n "]" }

static const struct gt_field gt_fields_kernel[] = {
	GT_F(gt_kernel, start, "u64"), GT_F(gt_kernel, end, "u64"), GT_F(gt_kernel, queued, "u64"),
	GT_F(gt_kernel, submitted, "u64"), GT_F(gt_kernel, graph_node_id, "u64"),
	GT_F(gt_kernel, name_id, "u32"), GT_F(gt_kernel, correlation_id, "u32"),
	GT_F(gt_kernel, device_id, "u32"), GT_F(gt_kernel, context_id, "u32"),
	GT_F(gt_kernel, stream_id, "u32"), GT_F(gt_kernel, graph_id, "u32"),
	GT_F(gt_kernel, grid_x, "u32"), GT_F(gt_kernel, grid_y, "u32"), GT_F(gt_kernel, grid_z, "u32"),
	GT_F(gt_kernel, block_x, "u32"), GT_F(gt_kernel, block_y, "u32"),
	GT_F(gt_kernel, block_z, "u32"), GT_F(gt_kernel, cluster_x, "u32"),
	GT_F(gt_kernel, cluster_y, "u32"), GT_F(gt_kernel, cluster_z, "u32"),
	GT_F(gt_kernel, static_smem, "u32"), GT_F(gt_kernel, dynamic_smem, "u32"),
	GT_F(gt_kernel, local_mem, "u32"), GT_F(gt_kernel, registers, "u16"),
	GT_F(gt_kernel, flags, "u16"), GT_F(gt_kernel, reserved, "u32"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_memcpy[] = {
	GT_F(gt_memcpy, start, "u64"), GT_F(gt_memcpy, end, "u64"), GT_F(gt_memcpy, bytes, "u64"),
	GT_F(gt_memcpy, graph_node_id, "u64"), GT_F(gt_memcpy, correlation_id, "u32"),
	GT_F(gt_memcpy, device_id, "u32"), GT_F(gt_memcpy, dst_device_id, "u32"),
	GT_F(gt_memcpy, context_id, "u32"), GT_F(gt_memcpy, stream_id, "u32"),
	GT_F(gt_memcpy, graph_id, "u32"), GT_F(gt_memcpy, copy_kind, "u8"),
	GT_F(gt_memcpy, src_kind, "u8"), GT_F(gt_memcpy, dst_kind, "u8"), GT_F(gt_memcpy, flags, "u8"),
	GT_F(gt_memcpy, reserved, "u32"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_memset[] = {
	GT_F(gt_memset, start, "u64"), GT_F(gt_memset, end, "u64"), GT_F(gt_memset, bytes, "u64"),
	GT_F(gt_memset, graph_node_id, "u64"), GT_F(gt_memset, correlation_id, "u32"),
	GT_F(gt_memset, device_id, "u32"), GT_F(gt_memset, context_id, "u32"),
	GT_F(gt_memset, stream_id, "u32"), GT_F(gt_memset, value, "u32"),
	GT_F(gt_memset, graph_id, "u32"), GT_F(gt_memset, mem_kind, "u8"),
	GT_F(gt_memset, flags, "u8"), GT_F(gt_memset, reserved16, "u16"),
	GT_F(gt_memset, reserved, "u32"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_api[] = {
	GT_F(gt_api, start, "u64"), GT_F(gt_api, end, "u64"), GT_F(gt_api, thread_id, "u64"),
	GT_F(gt_api, name_id, "u32"), GT_F(gt_api, correlation_id, "u32"), GT_F(gt_api, cbid, "u32"),
	GT_F(gt_api, process_id, "u32"), GT_F(gt_api, return_value, "i32"),
	GT_F(gt_api, domain, "u8"), GT_FA(gt_api, reserved8, 3), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_sync[] = {
	GT_F(gt_sync, start, "u64"), GT_F(gt_sync, end, "u64"), GT_F(gt_sync, correlation_id, "u32"),
	GT_F(gt_sync, context_id, "u32"), GT_F(gt_sync, stream_id, "u32"),
	GT_F(gt_sync, event_id, "u32"), GT_F(gt_sync, kind, "u8"), GT_FA(gt_sync, reserved8, 7),
	{ NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_nvtx[] = {
	GT_F(gt_nvtx, start, "u64"), GT_F(gt_nvtx, end, "u64"), GT_F(gt_nvtx, range_id, "u64"),
	GT_F(gt_nvtx, name_id, "u32"), GT_F(gt_nvtx, domain_id, "u32"), GT_F(gt_nvtx, thread_id, "u32"),
	GT_F(gt_nvtx, depth, "u32"), GT_F(gt_nvtx, color, "u32"), GT_F(gt_nvtx, kind, "u8"),
	GT_FA(gt_nvtx, reserved8, 3), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_memory[] = {
	GT_F(gt_memory, timestamp, "u64"), GT_F(gt_memory, address, "u64"),
	GT_F(gt_memory, bytes, "u64"), GT_F(gt_memory, correlation_id, "u32"),
	GT_F(gt_memory, device_id, "u32"), GT_F(gt_memory, context_id, "u32"),
	GT_F(gt_memory, stream_id, "u32"), GT_F(gt_memory, process_id, "u32"),
	GT_F(gt_memory, op, "u8"), GT_F(gt_memory, mem_kind, "u8"),
	GT_F(gt_memory, reserved16, "u16"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_dropped[] = {
	GT_F(gt_dropped, timestamp, "u64"), GT_F(gt_dropped, count, "u64"),
	GT_F(gt_dropped, reason, "u32"), GT_F(gt_dropped, context_id, "u32"),
	GT_F(gt_dropped, stream_id, "u32"), GT_F(gt_dropped, reserved, "u32"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_process[] = {
	GT_F(gt_process, timestamp, "u64"), GT_F(gt_process, host_ns, "u64"),
	GT_F(gt_process, pid, "u32"), GT_F(gt_process, event, "u32"), GT_F(gt_process, status, "i32"),
	GT_F(gt_process, reserved, "u32"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_overhead[] = {
	GT_F(gt_overhead, start, "u64"), GT_F(gt_overhead, end, "u64"),
	GT_F(gt_overhead, object_id, "u64"), GT_F(gt_overhead, kind, "u32"),
	GT_F(gt_overhead, object_kind, "u32"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_clock_sync[] = {
	GT_F(gt_clock_sync, cupti_ns, "u64"), GT_F(gt_clock_sync, realtime_ns, "u64"),
	GT_F(gt_clock_sync, monotonic_ns, "u64"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_clock_sample[] = {
	GT_F(gt_clock_sample, timestamp, "u64"), GT_F(gt_clock_sample, throttle_reasons, "u64"),
	GT_F(gt_clock_sample, device_id, "u32"), GT_F(gt_clock_sample, sm_clock_mhz, "u32"),
	GT_F(gt_clock_sample, mem_clock_mhz, "u32"), GT_F(gt_clock_sample, temperature_c, "u32"),
	GT_F(gt_clock_sample, power_mw, "u32"), GT_F(gt_clock_sample, utilization_gpu, "u32"),
	{ NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_graph_launch[] = {
	GT_F(gt_graph_launch, start, "u64"), GT_F(gt_graph_launch, end, "u64"),
	GT_F(gt_graph_launch, graph_id, "u32"), GT_F(gt_graph_launch, correlation_id, "u32"),
	GT_F(gt_graph_launch, stream_id, "u32"), GT_F(gt_graph_launch, reserved, "u32"),
	{ NULL, 0, 0, NULL },
};

/* Variable records' leading structs. */
static const struct gt_field gt_fields_device[] = {
	GT_F(gt_device, device_id, "u32"), GT_F(gt_device, sm_count, "u32"),
	GT_F(gt_device, cc_major, "u32"), GT_F(gt_device, cc_minor, "u32"),
	GT_F(gt_device, global_mem_bytes, "u64"), GT_F(gt_device, sm_clock_khz, "u32"),
	GT_F(gt_device, mem_clock_khz, "u32"), GT_F(gt_device, mem_bus_width_bits, "u32"),
	GT_F(gt_device, pcie_gen, "u32"), GT_F(gt_device, pcie_width, "u32"),
	GT_F(gt_device, pcie_gen_current, "u32"), GT_F(gt_device, pcie_width_current, "u32"),
	GT_F(gt_device, l2_bytes, "u32"), GT_F(gt_device, max_threads_per_sm, "u32"),
	GT_F(gt_device, name_len, "u32"), GT_F(gt_device, reserved, "u32"),
	GT_FA(gt_device, uuid, 16), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_blob_piece[] = {
	GT_F(gt_blob_piece, blob_id, "u64"), GT_F(gt_blob_piece, total_bytes, "u64"),
	GT_F(gt_blob_piece, offset, "u64"), GT_F(gt_blob_piece, kind, "u32"),
	GT_F(gt_blob_piece, piece_bytes, "u32"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_capture[] = {
	GT_F(gt_capture, capture_id, "u64"), GT_F(gt_capture, timestamp, "u64"),
	GT_F(gt_capture, cubin_blob_id, "u64"), GT_F(gt_capture, name_id, "u32"),
	GT_F(gt_capture, correlation_id, "u32"), GT_F(gt_capture, device_id, "u32"),
	GT_F(gt_capture, stream_id, "u32"), GT_F(gt_capture, grid, "u32[3]"),
	GT_F(gt_capture, block, "u32[3]"), GT_F(gt_capture, cluster, "u32[3]"),
	GT_F(gt_capture, dynamic_smem, "u32"), GT_F(gt_capture, nparams, "u32"),
	GT_F(gt_capture, param_bytes, "u32"), GT_F(gt_capture, flags, "u32"),
	GT_F(gt_capture, launch_index, "u32"), { NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_capture_param[] = {
	GT_F(gt_capture_param, offset, "u32"), GT_F(gt_capture_param, size, "u32"),
	GT_F(gt_capture_param, kind, "u32"), GT_F(gt_capture_param, status, "u32"),
	GT_F(gt_capture_param, alloc_base, "u64"), GT_F(gt_capture_param, alloc_bytes, "u64"),
	GT_F(gt_capture_param, before_blob, "u64"), GT_F(gt_capture_param, after_blob, "u64"),
	{ NULL, 0, 0, NULL },
};

static const struct gt_field gt_fields_end[] = {
	GT_F(gt_end, records, "u64"), GT_F(gt_end, chunks, "u64"), GT_F(gt_end, host_ns, "u64"),
	{ NULL, 0, 0, NULL },
};

struct gt_record_fields {
	int type;                      /* enum gt_rec_type (a sub-structure: its record's type) */
	const char *name;              /* gt_rec_type_name(), or the sub-structure's name */
	unsigned size;                 /* sizeof the struct */
	const struct gt_field *fields; /* ends with a NULL name */
};

static const struct gt_record_fields gt_record_fields[] = {
	{ GT_REC_DEVICE, "device", sizeof(struct gt_device), gt_fields_device },
	{ GT_REC_BLOB, "blob", sizeof(struct gt_blob_piece), gt_fields_blob_piece },
	{ GT_REC_CAPTURE, "capture", sizeof(struct gt_capture), gt_fields_capture },
	/* Not a record of its own: the CAPTURE record's parameter table entries. */
	{ GT_REC_CAPTURE, "capture_param", sizeof(struct gt_capture_param), gt_fields_capture_param },
	{ GT_REC_END, "end", sizeof(struct gt_end), gt_fields_end },
	{ GT_REC_KERNEL, "kernel", sizeof(struct gt_kernel), gt_fields_kernel },
	{ GT_REC_MEMCPY, "memcpy", sizeof(struct gt_memcpy), gt_fields_memcpy },
	{ GT_REC_MEMSET, "memset", sizeof(struct gt_memset), gt_fields_memset },
	{ GT_REC_API, "api", sizeof(struct gt_api), gt_fields_api },
	{ GT_REC_SYNC, "sync", sizeof(struct gt_sync), gt_fields_sync },
	{ GT_REC_NVTX, "nvtx", sizeof(struct gt_nvtx), gt_fields_nvtx },
	{ GT_REC_MEMORY, "memory", sizeof(struct gt_memory), gt_fields_memory },
	{ GT_REC_DROPPED, "dropped", sizeof(struct gt_dropped), gt_fields_dropped },
	{ GT_REC_PROCESS, "process", sizeof(struct gt_process), gt_fields_process },
	{ GT_REC_OVERHEAD, "overhead", sizeof(struct gt_overhead), gt_fields_overhead },
	{ GT_REC_CLOCK_SYNC, "clock_sync", sizeof(struct gt_clock_sync), gt_fields_clock_sync },
	{ GT_REC_CLOCK_SAMPLE, "clock_sample", sizeof(struct gt_clock_sample), gt_fields_clock_sample },
	{ GT_REC_GRAPH_LAUNCH, "graph_launch", sizeof(struct gt_graph_launch), gt_fields_graph_launch },
};
#define GT_RECORD_FIELDS_N (sizeof gt_record_fields / sizeof gt_record_fields[0])

static inline const struct gt_record_fields *gt_record_fields_of(int type)
{
	for (size_t i = 0; i < GT_RECORD_FIELDS_N; i++)
		if (gt_record_fields[i].type == type)
			return &gt_record_fields[i];
	return NULL;
}

#endif

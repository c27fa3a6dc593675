/* export_sqlite_nsys.c: the database under Nsight Systems' names, so that SQL written for
 * `nsys export --type sqlite` runs unchanged on gputrace's export (gputrace-sqlite(5), NSIGHT
 * SYSTEMS NAMES).
 *
 * Views with nsys's table and column names and its integer codes, over the compact tables:
 * CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _RUNTIME, NVTX_EVENTS, StringIds,
 * TARGET_INFO_GPU; and the enumeration tables those codes refer to (ENUM_CUDA_MEMCPY_OPER,
 * ENUM_CUDA_MEM_KIND, ENUM_NSYS_EVENT_TYPE, ENUM_CUDA_KERNEL_LAUNCH_TYPE), with nsys's ids, names and
 * labels. A column whose fact a gputrace trace does not hold is NULL. Names are string ids into
 * StringIds, as nsys has them: a kernel's mangled, demangled and short names are three ids (the
 * same id where two forms are the same text). Process and thread ids are serialised as nsys does:
 * globalPid = pid * 2^24, globalTid = globalPid + (tid mod 2^24). The copies gputrace's shadow
 * capture made itself are left out, as nsys never saw them.
 */
#include "analyze/export/export_sqlite_internal.h"

#include "analyze/support/failure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct enum_row {
	int id;
	const char *name, *label;
};

static const struct enum_row memcpy_oper[] = {
	{ 0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown" }, { 1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device" },
	{ 2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host" }, { 3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array" },
	{ 4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host" }, { 5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array" },
	{ 6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device" }, { 7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array" },
	{ 8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device" }, { 9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host" },
	{ 10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer" },
	{ 11, "CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device" },
	{ 12, "CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host" },
	{ 13, "CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device" }, { -1, NULL, NULL },
};
/* nsys numbers the memory kinds from pageable = 0 and puts unknown last; the trace format (and
 * CUPTI) from unknown = 0: the views map one to the other. */
static const struct enum_row mem_kind[] = {
	{ 0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable" }, { 1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned" },
	{ 2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device" }, { 3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array" },
	{ 4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed" },
	{ 5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static" },
	{ 6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static" },
	{ 7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown" }, { -1, NULL, NULL },
};
static const struct enum_row event_type[] = {
	{ 33, "NvtxCategory", "NVTX Category" }, { 34, "NvtxMark", "NVTX Mark" },
	{ 39, "NvtxThread", "NVTX Thread" }, { 59, "NvtxPushPopRange", "NVTX PushPop Range" },
	{ 60, "NvtxStartEndRange", "NVTX StartEnd Range" }, { 75, "NvtxDomainCreate", "NVTX Domain Create" },
	{ 76, "NvtxDomainDestroy", "NVTX Domain Destroy" }, { -1, NULL, NULL },
};
static const struct enum_row launch_type[] = {
	{ 0, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR", "Regular" },
	{ 1, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Cooperative single device" },
	{ 2, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE", "Cooperative multi device" },
	{ -1, NULL, NULL },
};
static const struct {
	const char *table;
	const struct enum_row *rows;
} enums[] = {
	{ "ENUM_CUDA_MEMCPY_OPER", memcpy_oper }, { "ENUM_CUDA_MEM_KIND", mem_kind },
	{ "ENUM_NSYS_EVENT_TYPE", event_type }, { "ENUM_CUDA_KERNEL_LAUNCH_TYPE", launch_type },
};

static int enum_tables(struct sq *s)
{
	for (size_t e = 0; e < sizeof enums / sizeof enums[0]; e++) {
		char sql[512];
		sqlite3_stmt *st = NULL;
		snprintf(sql, sizeof sql, "CREATE TABLE %s (id INTEGER PRIMARY KEY, name TEXT, label TEXT)",
		         enums[e].table);
		int rc = gt_sq_exec(s, sql, "create table");
		snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?, ?, ?)", enums[e].table);
		if (!rc && sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
			rc = gt_sq_fail(s, "prepare");
		for (const struct enum_row *r = enums[e].rows; !rc && r->name; r++) {
			int b = sqlite3_bind_int(st, 1, r->id);
			b |= sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
			b |= sqlite3_bind_text(st, 3, r->label, -1, SQLITE_STATIC);
			if (b != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
				rc = gt_sq_fail(s, enums[e].table);
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
		if (rc)
			return rc;
	}
	return 0;
}

/* The traced process's id from the trace's metadata; 0 when it names none. */
static long long trace_pid(const struct gt_reader *r)
{
	const char *v = gt_reader_meta(r, "process.pid");
	char *end;
	long long pid = v ? strtoll(v, &end, 10) : 0;
	return v && end != v && !*end && pid > 0 && pid < (1ll << 24) ? pid : 0;
}

/* A memory kind of the trace as nsys numbers it. */
#define MEM_KIND(c) "CASE WHEN " c " BETWEEN 1 AND 7 THEN " c " - 1 ELSE 7 END"

int gt_sq_nsys_views(struct sq *s, const struct gt_reader *r)
{
	long long b = s->has_base ? (long long)s->base : 0;
	long long gpid = trace_pid(r) << 24;
	char *sql = NULL;
	int n = asprintf(&sql,
		"CREATE VIEW StringIds AS SELECT id, value FROM strings;"
		"CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT k.start_off_ns + %lld AS start, "
		"k.start_off_ns + %lld + k.length_ns AS \"end\", c.device_id AS deviceId, "
		"c.context_id AS contextId, NULL AS greenContextId, c.stream_id AS streamId, "
		"k.correlation_id AS correlationId, %lld AS globalPid, c.demangled_id AS demangledName, "
		"c.short_name_id AS shortName, c.name_id AS mangledName, "
		"CASE WHEN k.flags & %u THEN 1 ELSE 0 END AS launchType, NULL AS cacheConfig, "
		"c.registers_per_thread AS registersPerThread, c.grid_x AS gridX, c.grid_y AS gridY, "
		"c.grid_z AS gridZ, c.block_x AS blockX, c.block_y AS blockY, c.block_z AS blockZ, "
		"c.static_smem_bytes AS staticSharedMemory, c.dynamic_smem_bytes AS dynamicSharedMemory, "
		"c.local_mem_bytes_per_thread AS localMemoryPerThread, NULL AS localMemoryTotal, "
		"NULL AS gridId, NULL AS sharedMemoryExecuted, nullif(k.graph_node_id, 0) AS graphNodeId, "
		"NULL AS sharedMemoryLimitConfig, NULL AS qmdBulkReleaseDone, NULL AS qmdPreexitDone, "
		"NULL AS qmdLastCtaDone, nullif(c.graph_id, 0) AS graphId, c.cluster_x AS clusterX, "
		"c.cluster_y AS clusterY, c.cluster_z AS clusterZ, NULL AS clusterSchedulingPolicy, "
		"NULL AS maxPotentialClusterSize, NULL AS maxActiveClusters "
		"FROM kernel_rows k JOIN kernel_configs c ON c.id = k.config_id;"
		"CREATE VIEW CUPTI_ACTIVITY_KIND_MEMCPY AS SELECT start_off_ns + %lld AS start, "
		"start_off_ns + %lld + length_ns AS \"end\", device_id AS deviceId, context_id AS contextId, "
		"NULL AS greenContextId, stream_id AS streamId, correlation_id AS correlationId, "
		"%lld AS globalPid, bytes, copy_kind AS copyKind, NULL AS deprecatedSrcId, "
		MEM_KIND("src_kind") " AS srcKind, " MEM_KIND("dst_kind") " AS dstKind, "
		"device_id AS srcDeviceId, context_id AS srcContextId, dst_device_id AS dstDeviceId, "
		"CASE WHEN dst_device_id = device_id THEN context_id END AS dstContextId, "
		"NULL AS migrationCause, nullif(graph_node_id, 0) AS graphNodeId, NULL AS virtualAddress "
		"FROM copy_rows WHERE flags & %u = 0;"
		"CREATE VIEW CUPTI_ACTIVITY_KIND_MEMSET AS SELECT start_off_ns + %lld AS start, "
		"start_off_ns + %lld + length_ns AS \"end\", device_id AS deviceId, context_id AS contextId, "
		"NULL AS greenContextId, stream_id AS streamId, correlation_id AS correlationId, "
		"%lld AS globalPid, value, bytes, nullif(graph_node_id, 0) AS graphNodeId, "
		MEM_KIND("mem_kind") " AS memKind FROM memset_rows;"
		"CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT start_off_ns + %lld AS start, "
		"start_off_ns + %lld + length_ns AS \"end\", CASE domain WHEN %d THEN 1 ELSE 0 END AS eventClass, "
		"(process_id %% 16777216) * 16777216 + thread_id %% 16777216 AS globalTid, "
		"correlation_id AS correlationId, name_id AS nameId, return_value AS returnValue, "
		"NULL AS callchainId FROM api_rows;"
		"CREATE VIEW NVTX_EVENTS AS SELECT start_ns AS start, "
		"CASE kind WHEN 'mark' THEN NULL ELSE end_ns END AS \"end\", "
		"CASE kind WHEN 'mark' THEN 34 WHEN 'push-pop' THEN 59 WHEN 'start-end' THEN 60 END AS eventType, "
		"CASE kind WHEN 'start-end' THEN range_id END AS rangeId, NULL AS category, "
		"nullif(color, 0) AS color, name AS text, %lld + thread_id %% 16777216 AS globalTid, "
		"NULL AS endGlobalTid, name_id AS textId, domain_id AS domainId, NULL AS uint64Value, "
		"NULL AS int64Value, NULL AS doubleValue, NULL AS uint32Value, NULL AS int32Value, "
		"NULL AS floatValue, NULL AS jsonTextId, NULL AS jsonText FROM nvtx_ranges "
		"UNION ALL SELECT min(start_ns), NULL, 75, NULL, NULL, NULL, domain, NULL, NULL, domain_id, "
		"domain_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM nvtx_ranges "
		"WHERE domain_id != 0 GROUP BY domain_id;"
		"CREATE VIEW TARGET_INFO_GPU AS SELECT device_id AS id, name, NULL AS busLocation, "
		"NULL AS isDiscrete, l2_bytes AS l2CacheSize, global_mem_bytes AS totalMemory, "
		"CAST(peak_mem_bytes_per_s AS INTEGER) AS memoryBandwidth, sm_clock_khz * 1000 AS clockRate, "
		"sm_count AS smCount, NULL AS pwGpuId, uuid, NULL AS luid, NULL AS chipName, "
		"device_id AS cuDevice FROM devices;",
		b, b, gpid, GT_KERNEL_COOPERATIVE, b, b, gpid, GT_COPY_TOOL, b, b, gpid, b, b, GT_API_DRIVER,
		gpid);
	if (n < 0)
		return GT_ERR_NOMEM;
	int rc = gt_sq_exec(s, sql, "create view");
	free(sql);
	return rc ? rc : enum_tables(s);
}

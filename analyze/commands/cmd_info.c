/* cmd_info.c: `gpuanalyze info`: what a trace holds, and what it lost.
 *
 * Format version, every metadata key, the devices with their theoretical peaks (and the ceilings
 * `gputrace peak` measured on them, when the peaks file has lines for their UUID), records by type,
 * dropped records by reason (always said, "0 dropped" included), chunks, whether the trace ends
 * cleanly, records of unknown types skipped, and, first and loudly, whether the trace is synthetic.
 * Each file is reported on its own; a file that cannot be read is reported and the others still
 * are (exit status 2 at the end). The command fills a document (doc.h): the text's block of lines
 * and JSON's facts, each dropped by the other format. Metadata and device names are the trace's:
 * the text writes them by the text rule (gt_doc_printf_plain), JSON as its strings.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/engines/info.h"
#include "analyze/blocks/peaks.h"
#include "analyze/support/load.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The measured-peaks file to look in: --peaks, else the default place; NULL: none. */
static const char *peaks_file;
static char peaks_default[4096];

static const struct {
	int reason;
	const char *key;
} reasons[] = {
	{ GT_DROP_CUPTI, "cupti" },          { GT_DROP_BUFFER_LOST, "buffer_lost" },
	{ GT_DROP_FILTERED, "filtered" },    { GT_DROP_BAD_RECORD, "bad_record" },
	{ GT_DROP_CAPTURE, "capture" },      { GT_DROP_UNKNOWN_KIND, "unknown_kind" },
};
#define NREASONS (sizeof reasons / sizeof reasons[0])

static void uuid_text(const uint8_t *u, char *buf, size_t len)
{
	snprintf(buf, len,
	         "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
	         u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
	         u[15]);
}

static const char *type_name(int t, char *buf, size_t len)
{
	const char *n = gt_rec_type_name(t);
	if (strcmp(n, "unknown") != 0)
		return n;
	snprintf(buf, len, "type %d", t);
	return buf;
}

static void peak_text(double bw, char *buf, size_t len)
{
	if (bw > 0)
		snprintf(buf, len, "%.1f GB/s", bw / 1e9);
	else
		snprintf(buf, len, "unknown (inputs missing)");
}

/* The text's "dropped:" line and, when the trace lost records it could not count, its "LOST:" line. */
static void lines_losses(struct gt_doc *d, const struct gt_reader *r, const struct gt_info *in)
{
	if (in->dropped_total == 0) {
		gt_doc_words(d, "  dropped:  0 dropped\n");
	} else {
		gt_doc_words(d, "  dropped:  %llu dropped:", (unsigned long long)in->dropped_total);
		const char *sep = " ";
		for (int i = 0; i < GT_INFO_REASONS; i++) {
			if (!in->dropped[i])
				continue;
			gt_doc_words(d, "%s%llu %s", sep, (unsigned long long)in->dropped[i],
			             i ? gt_drop_reason_name(i) : "reason 0");
			sep = ", ";
		}
		if (in->dropped_other)
			gt_doc_words(d, "%s%llu for reasons this analyzer does not know", sep,
			             (unsigned long long)in->dropped_other);
		gt_doc_words(d, "\n");
	}
	if (in->uncounted_total) {
		/* Said apart from the counts, on its own line, so that "0 dropped" is never the last word
		 * on a trace that lost records. */
		gt_doc_words(d, "  LOST:     records lost in %llu place(s), how many unknown:",
		             (unsigned long long)in->uncounted_total);
		const char *sep = " ";
		for (int i = 0; i < GT_INFO_REASONS; i++) {
			if (!in->uncounted[i])
				continue;
			gt_doc_words(d, "%s%s", sep, i ? gt_drop_reason_name(i) : "reason 0");
			sep = ", ";
		}
		int refused = in->uncounted[GT_DROP_BUFFER_LOST] && gt_reader_meta(r, "tracing.buffers_refused");
		gt_doc_words(d, "%s\n", refused ? " (CUPTI's buffer requests refused: see tracing.buffers_refused)" : "");
	}
}

/* The ceilings measured on this device, from the peaks file; 0 (pk released, nothing to say) when
 * the device's UUID is unknown, there is no file, it cannot be read or has no ceiling for it. */
static int load_ceilings(const struct gt_device *dev, struct gt_peaks *pk)
{
	char uuid[48], err[256];
	memset(pk, 0, sizeof *pk);
	gt_device_uuid_string(dev, uuid, sizeof uuid);
	if (!peaks_file || !uuid[0] || gt_peaks_load(pk, peaks_file, uuid, err, sizeof err) != 0)
		return 0;
	for (int k = 0; k < GT_CEIL_NKINDS; k++)
		if (pk->have_ceiling[k])
			return 1;
	gt_peaks_release(pk);
	return 0;
}

/* A ceiling's value for people: GB/s for memory, TFLOP/s for compute. */
static void ceiling_text(int flops, double v, char *buf, size_t len)
{
	if (flops)
		snprintf(buf, len, "%.2f TFLOP/s", v / 1e3);
	else
		snprintf(buf, len, "%.1f GB/s", v);
}

/* The text's block of measured ceilings under a device; nothing when it has none. */
static void lines_ceilings(struct gt_doc *d, const struct gt_device *dev)
{
	struct gt_peaks pk;
	if (!load_ceilings(dev, &pk))
		return;
	gt_doc_printf_plain(d, "      measured ceilings (gputrace peak, %s):\n", pk.path);
	for (int k = 0; k < GT_CEIL_NKINDS; k++) {
		if (!pk.have_ceiling[k])
			continue;
		const struct gt_ceiling *c = &pk.c[k];
		int flops = gt_ceiling_is_flops((enum gt_ceiling_kind)k);
		char val[64], th[64], theory[128], clocks[128];
		ceiling_text(flops, c->value, val, sizeof val);
		if (c->theory > 0) {
			ceiling_text(flops, c->theory, th, sizeof th);
			snprintf(theory, sizeof theory, "%.1f%% of theoretical %s", 100 * c->value / c->theory, th);
		} else {
			snprintf(theory, sizeof theory, "theoretical unknown");
		}
		if (c->sm_mhz || c->mem_mhz)
			snprintf(clocks, sizeof clocks, "SM %u MHz, memory %u MHz (%s)", c->sm_mhz, c->mem_mhz,
			         !strcmp(c->clocks, "nvml") ? "read by NVML during the run"
			         : !strcmp(c->clocks, "attribute") ? "the device's maximum clocks, not read" : "source not given");
		else
			snprintf(clocks, sizeof clocks, "clocks not given");
		gt_doc_words(d, "        %-10s %15s  %s; %s; %llu reps; line %zu\n",
		             gt_ceiling_kind_name((enum gt_ceiling_kind)k), val, theory, clocks,
		             (unsigned long long)c->reps, c->line);
		if (c->method[0])
			gt_doc_printf_plain(d, "          method: %s\n", c->method);
	}
	gt_peaks_release(&pk);
}

/* The text's metadata and devices, whose keys, values and names are the trace's. */
static void lines_defs(struct gt_doc *d, const struct gt_reader *r)
{
	size_t nmeta = gt_reader_meta_count(r);
	gt_doc_words(d, "  metadata: %zu keys\n", nmeta);
	for (size_t i = 0; i < nmeta; i++) {
		const char *k, *v;
		if (gt_reader_meta_at(r, i, &k, &v) == 0)
			gt_doc_printf_plain(d, "    %s = %s\n", k, v);
	}
	size_t ndev = gt_reader_device_count(r);
	gt_doc_words(d, "  devices:  %zu\n", ndev);
	for (size_t i = 0; i < ndev; i++) {
		const char *name;
		const struct gt_device *dev = gt_reader_device_at(r, i, &name);
		char uuid[64], mem[64], pcie[64];
		uuid_text(dev->uuid, uuid, sizeof uuid);
		peak_text(gt_device_peak_mem_bw(dev), mem, sizeof mem);
		peak_text(gt_device_peak_pcie_bw(dev), pcie, sizeof pcie);
		gt_doc_printf_plain(d, "    device %u: %s (%s)\n", dev->device_id, name, uuid);
		gt_doc_words(d, "      compute %u.%u, %u SMs, SM clock %u MHz, %.2f GiB, L2 %u KiB, %u threads/SM\n",
		             dev->cc_major, dev->cc_minor, dev->sm_count, dev->sm_clock_khz / 1000,
		             (double)dev->global_mem_bytes / (1024.0 * 1024 * 1024), dev->l2_bytes / 1024,
		             dev->max_threads_per_sm);
		gt_doc_words(d, "      memory: %u MHz x %u bits, theoretical peak %s\n", dev->mem_clock_khz / 1000,
		             dev->mem_bus_width_bits, mem);
		gt_doc_words(d, "      PCIe: gen %u x%u (at start: gen %u x%u), theoretical peak %s per direction\n",
		             dev->pcie_gen, dev->pcie_width, dev->pcie_gen_current, dev->pcie_width_current, pcie);
		double f32 = gt_ceiling_theory(dev, GT_CEIL_FP32_FMA), f64 = gt_ceiling_theory(dev, GT_CEIL_FP64_FMA),
		       tc = gt_ceiling_theory(dev, GT_CEIL_FP16_MMA);
		if (f32 > 0)
			gt_doc_words(d, "      arithmetic: theoretical peaks FP32 %.1f, FP64 %.1f, FP16/BF16 tensor (dense) "
			                "%.1f TFLOP/s at the maximum SM clock\n", f32 / 1e3, f64 / 1e3, tc / 1e3);
		else
			gt_doc_words(d, "      arithmetic: theoretical peaks unknown (per-SM rates known for "
			                "compute 8.0 and 9.0 only)\n");
		lines_ceilings(d, dev);
	}
}

/* The text: one hand-laid-out block of lines per trace (nothing in JSON, which says it as facts). */
static void lines(struct gt_doc *d, const struct gt_reader *r, const struct gt_info *in)
{
	const char *path = gt_reader_path(r);
	const char *syn = gt_load_synthetic(r);
	struct gt_tail t;
	gt_reader_tail(r, &t);
	int major, minor;
	gt_reader_version(r, &major, &minor);
	gt_doc_printf_plain(d, "trace: %s\n", path);
	if (syn)
		gt_doc_printf_plain(d, "  *** SYNTHETIC TRACE (META trace.synthetic = \"%s\"): written by "
		                    "a program, not recorded on a GPU; its numbers are made up ***\n",
		                    syn);
	gt_doc_words(d, "  format:   gputrace %d.%d\n", major, minor);
	if (t.complete)
		gt_doc_words(d, "  end:      complete (END record read)\n");
	else if (t.lost_bytes)
		gt_doc_words(d, "  end:      INCOMPLETE: %llu bytes of an incomplete chunk lost; the recording "
		                "process did not close the trace, so what it had not written yet is lost "
		                "too: an unknown number of records\n",
		             (unsigned long long)t.lost_bytes);
	else
		gt_doc_words(d, "  end:      INCOMPLETE: no END record after the last complete chunk; the "
		                "recording process did not close the trace, so what it had not written yet "
		                "is lost: an unknown number of records\n");
	gt_doc_words(d, "  file:     %llu bytes, %llu chunks\n", (unsigned long long)t.file_bytes,
	             (unsigned long long)t.chunks);
	gt_doc_words(d, "  records:  %llu, %llu of unknown types skipped\n", (unsigned long long)t.records,
	             (unsigned long long)t.skipped_records);
	lines_losses(d, r, in);
	if (in->last_ns >= in->first_ns && in->first_ns != UINT64_MAX)
		gt_doc_words(d, "  gpu span: %.6f s from the first GPU operation's start to the last's end\n",
		             (double)(in->last_ns - in->first_ns) / 1e9);
	lines_defs(d, r);
	gt_doc_words(d, "  records by type:\n");
	for (int ty = 0; ty <= GT_REC_TYPE_MAX; ty++) {
		char b[32];
		if (in->by_type[ty])
			gt_doc_words(d, "    %-14s %llu\n", type_name(ty, b, sizeof b),
			             (unsigned long long)in->by_type[ty]);
	}
}

/* JSON's "dropped" object: the known reasons by key, the rest as "other". */
static void facts_dropped(struct gt_doc *d, const struct gt_info *in)
{
	gt_doc_object(d, "dropped");
	gt_doc_u64(d, "total", in->dropped_total);
	for (size_t i = 0; i < NREASONS; i++)
		gt_doc_u64(d, reasons[i].key, in->dropped[reasons[i].reason]);
	uint64_t other = in->dropped_other + in->dropped[0];
	for (int i = 0; i < GT_INFO_REASONS; i++) {
		int known = 0;
		for (size_t k = 0; k < NREASONS; k++)
			known |= reasons[k].reason == i;
		if (!known && i)
			other += in->dropped[i];
	}
	gt_doc_u64(d, "other", other);
	/* DROPPED records of count 0: records lost, how many unknown */
	gt_doc_u64(d, "uncounted_losses", in->uncounted_total);
	gt_doc_end(d);
}

/* A theoretical peak in bytes or flops per second; null when its inputs are missing. */
static void facts_peak(struct gt_doc *d, const char *key, double bw)
{
	if (bw > 0)
		gt_doc_num(d, key, bw);
	else
		gt_doc_null(d, key);
}

/* JSON's "peaks_file" and "ceilings" of a device, only when the file has ceilings for it: per
 * second in bytes (read plus written) or flops, as measured and in theory (null: unknown). */
static void facts_ceilings(struct gt_doc *d, const struct gt_device *dev)
{
	struct gt_peaks pk;
	if (!load_ceilings(dev, &pk))
		return;
	gt_doc_str(d, "peaks_file", pk.path);
	gt_doc_array(d, "ceilings");
	for (int k = 0; k < GT_CEIL_NKINDS; k++) {
		if (!pk.have_ceiling[k])
			continue;
		const struct gt_ceiling *c = &pk.c[k];
		int flops = gt_ceiling_is_flops((enum gt_ceiling_kind)k);
		gt_doc_object(d, NULL);
		gt_doc_str(d, "kind", gt_ceiling_kind_name((enum gt_ceiling_kind)k));
		gt_doc_str(d, "unit", flops ? "flops/s" : "bytes/s");
		gt_doc_num(d, "measured", c->value * 1e9);
		gt_doc_num(d, "theoretical", c->theory > 0 ? c->theory * 1e9 : NAN);
		gt_doc_num(d, "measured_pct_of_theoretical", c->theory > 0 ? 100 * c->value / c->theory : NAN);
		gt_doc_num(d, flops ? "flops_per_launch" : "bytes_per_launch", c->amount > 0 ? c->amount : NAN);
		gt_doc_u64_if(d, "reps", c->reps != 0, c->reps);
		gt_doc_u64_if(d, "sm_clock_mhz", c->sm_mhz != 0, c->sm_mhz);
		gt_doc_u64_if(d, "mem_clock_mhz", c->mem_mhz != 0, c->mem_mhz);
		gt_doc_str(d, "clocks", c->clocks[0] ? c->clocks : NULL);
		gt_doc_str(d, "method", c->method[0] ? c->method : NULL);
		gt_doc_u64(d, "line", c->line);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_peaks_release(&pk);
}

/* One element of JSON's "devices". */
static void facts_device(struct gt_doc *d, const struct gt_device *dev, const char *name)
{
	char uuid[64], buf[64];
	uuid_text(dev->uuid, uuid, sizeof uuid);
	gt_doc_object(d, NULL);
	gt_doc_u64(d, "device_id", dev->device_id);
	gt_doc_str(d, "name", name);
	gt_doc_str(d, "uuid", uuid);
	snprintf(buf, sizeof buf, "%u.%u", dev->cc_major, dev->cc_minor);
	gt_doc_str(d, "compute_capability", buf);
	static const struct {
		const char *key;
		size_t off;
	} u32s[] = {
		{ "sm_count", offsetof(struct gt_device, sm_count) },
		{ "sm_clock_khz", offsetof(struct gt_device, sm_clock_khz) },
		{ "mem_clock_khz", offsetof(struct gt_device, mem_clock_khz) },
		{ "mem_bus_width_bits", offsetof(struct gt_device, mem_bus_width_bits) },
		{ "pcie_gen", offsetof(struct gt_device, pcie_gen) },
		{ "pcie_width", offsetof(struct gt_device, pcie_width) },
		{ "pcie_gen_current", offsetof(struct gt_device, pcie_gen_current) },
		{ "pcie_width_current", offsetof(struct gt_device, pcie_width_current) },
		{ "l2_bytes", offsetof(struct gt_device, l2_bytes) },
		{ "max_threads_per_sm", offsetof(struct gt_device, max_threads_per_sm) },
	};
	for (size_t k = 0; k < sizeof u32s / sizeof u32s[0]; k++) {
		uint32_t v;
		memcpy(&v, (const char *)dev + u32s[k].off, sizeof v);
		gt_doc_u64(d, u32s[k].key, v);
	}
	gt_doc_u64(d, "global_mem_bytes", dev->global_mem_bytes);
	facts_peak(d, "peak_mem_bw_bytes_per_s", gt_device_peak_mem_bw(dev));
	facts_peak(d, "peak_pcie_bw_bytes_per_s", gt_device_peak_pcie_bw(dev));
	facts_peak(d, "peak_fp32_flops_per_s", gt_ceiling_theory(dev, GT_CEIL_FP32_FMA) * 1e9);
	facts_peak(d, "peak_fp64_flops_per_s", gt_ceiling_theory(dev, GT_CEIL_FP64_FMA) * 1e9);
	facts_peak(d, "peak_tensor_fp16_flops_per_s", gt_ceiling_theory(dev, GT_CEIL_FP16_MMA) * 1e9);
	facts_ceilings(d, dev);
	gt_doc_end(d);
}

/* The facts: one element of JSON's "traces" (nothing in text, which says it in lines). */
static void facts(struct gt_doc *d, const struct gt_reader *r, const struct gt_info *in)
{
	const char *syn = gt_load_synthetic(r);
	struct gt_tail t;
	gt_reader_tail(r, &t);
	int major, minor;
	gt_reader_version(r, &major, &minor);
	char buf[64];
	gt_doc_object(d, NULL);
	gt_doc_str(d, "path", gt_reader_path(r));
	gt_doc_bool(d, "synthetic", syn != NULL);
	gt_doc_str(d, "synthetic_value", syn);
	snprintf(buf, sizeof buf, "%d.%d", major, minor);
	gt_doc_str(d, "format", buf);
	gt_doc_bool(d, "complete", t.complete);
	gt_doc_u64(d, "file_bytes", t.file_bytes);
	gt_doc_u64(d, "good_bytes", t.good_bytes);
	gt_doc_u64(d, "lost_bytes", t.lost_bytes);
	gt_doc_u64(d, "chunks", t.chunks);
	gt_doc_u64(d, "records", t.records);
	gt_doc_u64(d, "skipped_records", t.skipped_records);
	facts_dropped(d, in);
	gt_doc_u64_if(d, "gpu_first_ns", in->first_ns != UINT64_MAX, in->first_ns);
	gt_doc_u64_if(d, "gpu_last_ns", in->first_ns != UINT64_MAX, in->last_ns);
	gt_doc_array(d, "metadata");
	for (size_t i = 0; i < gt_reader_meta_count(r); i++) {
		const char *k, *v;
		if (gt_reader_meta_at(r, i, &k, &v) != 0)
			continue;
		gt_doc_object(d, NULL);
		gt_doc_str(d, "key", k);
		gt_doc_str(d, "value", v);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_array(d, "devices");
	for (size_t i = 0; i < gt_reader_device_count(r); i++) {
		const char *name;
		const struct gt_device *dev = gt_reader_device_at(r, i, &name);
		facts_device(d, dev, name);
	}
	gt_doc_end(d);
	gt_doc_object(d, "records_by_type");
	for (int ty = 0; ty <= GT_REC_TYPE_MAX; ty++) {
		char b[32];
		if (in->by_type[ty])
			gt_doc_u64(d, type_name(ty, b, sizeof b), in->by_type[ty]);
	}
	gt_doc_end(d);
	gt_doc_end(d);
}

static enum gt_format fmt;
static const char *peaks;

static const struct gt_option options[] = {
	GT_OPT_PEAKS(&peaks),
	GT_OPT_FORMAT(&fmt, GT_FMT_TEXT | GT_FMT_JSON),
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	fmt = GT_FMT_TEXT;
	peaks = NULL;
}

/* gt_cmd_filler: each trace in turn, as lines in text and as an element of "traces" in JSON; one
 * that cannot be read is reported (by load.h) and skipped, and makes the status GT_EXIT_USAGE. */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct gt_cmd_call *x = ctx;
	gt_doc_set_inline_depth(d, 5);
	gt_doc_object(d, NULL);
	gt_doc_array(d, "traces");
	int rc = 0, shown = 0;
	for (int i = 0; i < x->nfiles; i++) {
		struct gt_reader *r;
		struct gt_info in;
		gt_info_init(&in);
		if (gt_load_open(&r, x->files[i]) != 0) {
			rc = GT_EXIT_USAGE;
			continue;
		}
		if (gt_load_stream(r, gt_info_record, &in) != 0) {
			rc = GT_EXIT_USAGE;
		} else {
			if (shown++)
				gt_doc_words(d, "\n"); /* a blank line between two traces' blocks */
			lines(d, r, &in);
			facts(d, r, &in);
		}
		gt_reader_close(r);
	}
	gt_doc_end(d);
	gt_doc_end(d); /* the JSON document */
	return rc;
}

/* A --peaks file that cannot be read is an input error; the default one, missing or unreadable,
 * only means no ceilings to show. */
static int run(const struct gt_cmd_call *call)
{
	peaks_file = peaks ? peaks : gt_peaks_default_path(peaks_default, sizeof peaks_default, NULL);
	if (peaks) {
		struct gt_peaks pk;
		char err[256];
		if (gt_peaks_load(&pk, peaks, "", err, sizeof err) != 0)
			return gt_error("cannot read peaks file '%s': %s", peaks, err);
		gt_peaks_release(&pk);
	}
	return gt_cmd_render(call, fmt, fill, (void *)call);
}

const struct gt_command gt_cmd_info = {
	.name = "info",
	.help = "what a trace holds: metadata, devices, record counts, losses",
	.operands = "FILE...",
	.min_operands = 1,
	.max_operands = -1,
	.description =
	"What each trace holds: format version, metadata, devices with their theoretical peaks and\n"
	"the ceilings `gputrace peak` measured on them (memory and L2 bandwidth, FP32, FP64 and\n"
	"tensor throughput, each with its method and clocks, matched by UUID), records by type,\n"
	"dropped records by reason, chunks, whether the trace ends cleanly, and whether it is\n"
	"synthetic.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(info)

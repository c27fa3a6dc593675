/* cmd_info.c: `gpuanalyze info`: what a trace holds, and what it lost.
 *
 * Format version, every metadata key, the devices with their theoretical peaks, records by type,
 * dropped records by reason (always said, "0 dropped" included), chunks, whether the trace ends
 * cleanly, records of unknown types skipped, and, first and loudly, whether the trace is synthetic.
 * Each file is reported on its own; a file that cannot be read is reported and the others still
 * are (exit status 2 at the end). Metadata and device names are the trace's: text goes through
 * escape.h's text rule (gt_esc_printf), JSON through the JSON writer.
 */
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "analyze/output/escape.h"
#include "analyze/engines/info.h"
#include "analyze/output/json_member.h"
#include "analyze/support/load.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

static void print_text(FILE *out, const struct gt_reader *r, const struct gt_info *in)
{
	const char *path = gt_reader_path(r);
	const char *syn = gt_load_synthetic(r);
	struct gt_tail t;
	gt_reader_tail(r, &t);
	int major, minor;
	gt_reader_version(r, &major, &minor);
	gt_esc_printf(out, gt_esc_text, "trace: %s\n", path);
	if (syn)
		gt_esc_printf(out, gt_esc_text, "  *** SYNTHETIC TRACE (META trace.synthetic = \"%s\"): written by "
		              "a program, not recorded on a GPU; its numbers are made up ***\n",
		              syn);
	fprintf(out, "  format:   gputrace %d.%d\n", major, minor);
	if (t.complete)
		fprintf(out, "  end:      complete (END record read)\n");
	else if (t.lost_bytes)
		fprintf(out, "  end:      INCOMPLETE: %llu bytes of an incomplete chunk lost; the recording "
		             "process did not close the trace, so what it had not written yet is lost "
		             "too: an unknown number of records\n",
		        (unsigned long long)t.lost_bytes);
	else
		fprintf(out, "  end:      INCOMPLETE: no END record after the last complete chunk; the "
		             "recording process did not close the trace, so what it had not written yet "
		             "is lost: an unknown number of records\n");
	fprintf(out, "  file:     %llu bytes, %llu chunks\n", (unsigned long long)t.file_bytes,
	        (unsigned long long)t.chunks);
	fprintf(out, "  records:  %llu, %llu of unknown types skipped\n", (unsigned long long)t.records,
	        (unsigned long long)t.skipped_records);
	if (in->dropped_total == 0) {
		fprintf(out, "  dropped:  0 dropped\n");
	} else {
		fprintf(out, "  dropped:  %llu dropped:", (unsigned long long)in->dropped_total);
		const char *sep = " ";
		for (int i = 0; i < GT_INFO_REASONS; i++) {
			if (!in->dropped[i])
				continue;
			fprintf(out, "%s%llu %s", sep, (unsigned long long)in->dropped[i],
			        i ? gt_drop_reason_name(i) : "reason 0");
			sep = ", ";
		}
		if (in->dropped_other)
			fprintf(out, "%s%llu for reasons this analyzer does not know", sep,
			        (unsigned long long)in->dropped_other);
		fputc('\n', out);
	}
	if (in->uncounted_total) {
		/* Said apart from the counts, on its own line, so that "0 dropped" is never the last word
		 * on a trace that lost records. */
		fprintf(out, "  LOST:     records lost in %llu place(s), how many unknown:",
		        (unsigned long long)in->uncounted_total);
		const char *sep = " ";
		for (int i = 0; i < GT_INFO_REASONS; i++) {
			if (!in->uncounted[i])
				continue;
			fprintf(out, "%s%s", sep, i ? gt_drop_reason_name(i) : "reason 0");
			sep = ", ";
		}
		fprintf(out, "%s\n", in->uncounted[GT_DROP_BUFFER_LOST] && gt_reader_meta(r, "tracing.buffers_refused")
		                         ? " (CUPTI's buffer requests refused: see tracing.buffers_refused)" : "");
	}
	if (in->last_ns >= in->first_ns && in->first_ns != UINT64_MAX)
		fprintf(out, "  gpu span: %.6f s from the first GPU operation's start to the last's end\n",
		        (double)(in->last_ns - in->first_ns) / 1e9);
	size_t nmeta = gt_reader_meta_count(r);
	fprintf(out, "  metadata: %zu keys\n", nmeta);
	for (size_t i = 0; i < nmeta; i++) {
		const char *k, *v;
		if (gt_reader_meta_at(r, i, &k, &v) == 0)
			gt_esc_printf(out, gt_esc_text, "    %s = %s\n", k, v);
	}
	size_t ndev = gt_reader_device_count(r);
	fprintf(out, "  devices:  %zu\n", ndev);
	for (size_t i = 0; i < ndev; i++) {
		const char *name;
		const struct gt_device *d = gt_reader_device_at(r, i, &name);
		char uuid[64], mem[64], pcie[64];
		uuid_text(d->uuid, uuid, sizeof uuid);
		peak_text(gt_device_peak_mem_bw(d), mem, sizeof mem);
		peak_text(gt_device_peak_pcie_bw(d), pcie, sizeof pcie);
		gt_esc_printf(out, gt_esc_text, "    device %u: %s (%s)\n", d->device_id, name, uuid);
		fprintf(out, "      compute %u.%u, %u SMs, SM clock %u MHz, %.2f GiB, L2 %u KiB, %u threads/SM\n",
		        d->cc_major, d->cc_minor, d->sm_count, d->sm_clock_khz / 1000,
		        (double)d->global_mem_bytes / (1024.0 * 1024 * 1024), d->l2_bytes / 1024,
		        d->max_threads_per_sm);
		fprintf(out, "      memory: %u MHz x %u bits, theoretical peak %s\n", d->mem_clock_khz / 1000,
		        d->mem_bus_width_bits, mem);
		fprintf(out, "      PCIe: gen %u x%u (at start: gen %u x%u), theoretical peak %s per direction\n",
		        d->pcie_gen, d->pcie_width, d->pcie_gen_current, d->pcie_width_current, pcie);
	}
	fprintf(out, "  records by type:\n");
	for (int ty = 0; ty <= GT_REC_TYPE_MAX; ty++) {
		char b[32];
		if (in->by_type[ty])
			fprintf(out, "    %-14s %llu\n", type_name(ty, b, sizeof b),
			        (unsigned long long)in->by_type[ty]);
	}
}

static void print_json(struct gt_json *j, const struct gt_reader *r, const struct gt_info *in)
{
	const char *syn = gt_load_synthetic(r);
	struct gt_tail t;
	gt_reader_tail(r, &t);
	int major, minor;
	gt_reader_version(r, &major, &minor);
	char buf[64];
	gt_json_object_begin(j);
	gt_json_key_str(j, "path", gt_reader_path(r));
	gt_json_key_bool(j, "synthetic", syn != NULL);
	gt_json_key_str(j, "synthetic_value", syn);
	snprintf(buf, sizeof buf, "%d.%d", major, minor);
	gt_json_key_str(j, "format", buf);
	gt_json_key_bool(j, "complete", t.complete);
	gt_json_key_u64(j, "file_bytes", t.file_bytes);
	gt_json_key_u64(j, "good_bytes", t.good_bytes);
	gt_json_key_u64(j, "lost_bytes", t.lost_bytes);
	gt_json_key_u64(j, "chunks", t.chunks);
	gt_json_key_u64(j, "records", t.records);
	gt_json_key_u64(j, "skipped_records", t.skipped_records);
	gt_json_key_object(j, "dropped");
	gt_json_key_u64(j, "total", in->dropped_total);
	for (size_t i = 0; i < NREASONS; i++)
		gt_json_key_u64(j, reasons[i].key, in->dropped[reasons[i].reason]);
	uint64_t other = in->dropped_other + in->dropped[0];
	for (int i = 0; i < GT_INFO_REASONS; i++) {
		int known = 0;
		for (size_t k = 0; k < NREASONS; k++)
			known |= reasons[k].reason == i;
		if (!known && i)
			other += in->dropped[i];
	}
	gt_json_key_u64(j, "other", other);
	gt_json_key(j, "uncounted_losses"); /* DROPPED records of count 0: records lost, how many unknown */
	gt_json_u64(j, in->uncounted_total);
	gt_json_object_end(j);
	gt_json_key_u64_if(j, "gpu_first_ns", in->first_ns != UINT64_MAX, in->first_ns);
	gt_json_key_u64_if(j, "gpu_last_ns", in->first_ns != UINT64_MAX, in->last_ns);
	gt_json_key_array(j, "metadata");
	for (size_t i = 0; i < gt_reader_meta_count(r); i++) {
		const char *k, *v;
		if (gt_reader_meta_at(r, i, &k, &v) != 0)
			continue;
		gt_json_object_begin(j);
		gt_json_key_str(j, "key", k);
		gt_json_key_str(j, "value", v);
		gt_json_object_end(j);
	}
	gt_json_array_end(j);
	gt_json_key_array(j, "devices");
	for (size_t i = 0; i < gt_reader_device_count(r); i++) {
		const char *name;
		const struct gt_device *d = gt_reader_device_at(r, i, &name);
		char uuid[64];
		uuid_text(d->uuid, uuid, sizeof uuid);
		gt_json_object_begin(j);
		gt_json_key_u64(j, "device_id", d->device_id);
		gt_json_key_str(j, "name", name);
		gt_json_key_str(j, "uuid", uuid);
		snprintf(buf, sizeof buf, "%u.%u", d->cc_major, d->cc_minor);
		gt_json_key_str(j, "compute_capability", buf);
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
			memcpy(&v, (const char *)d + u32s[k].off, sizeof v);
			gt_json_key_u64(j, u32s[k].key, v);
		}
		gt_json_key_u64(j, "global_mem_bytes", d->global_mem_bytes);
		double mem = gt_device_peak_mem_bw(d), pcie = gt_device_peak_pcie_bw(d);
		gt_json_key(j, "peak_mem_bw_bytes_per_s");
		if (mem > 0)
			gt_json_num(j, mem);
		else
			gt_json_null(j);
		gt_json_key(j, "peak_pcie_bw_bytes_per_s");
		if (pcie > 0)
			gt_json_num(j, pcie);
		else
			gt_json_null(j);
		gt_json_object_end(j);
	}
	gt_json_array_end(j);
	gt_json_key_object(j, "records_by_type");
	for (int ty = 0; ty <= GT_REC_TYPE_MAX; ty++) {
		char b[32];
		if (!in->by_type[ty])
			continue;
		gt_json_key_u64(j, type_name(ty, b, sizeof b), in->by_type[ty]);
	}
	gt_json_object_end(j);
	gt_json_object_end(j);
}

static enum gt_format fmt;

static const struct gt_option options[] = {
	GT_OPT_FORMAT(&fmt, GT_FMT_TEXT | GT_FMT_JSON),
	GT_OPT_END_OF_LIST,
};

static void reset(void) { fmt = GT_FMT_TEXT; }

/* gt_cmd_printer: each trace in turn; one that cannot be read is reported (by load.h) and skipped,
 * and makes the status GT_EXIT_USAGE. */
static int print(FILE *out, struct gt_json *j, void *ctx)
{
	const struct gt_cmd_call *x = ctx;
	j->inline_depth = 5;
	if (fmt == GT_FMT_JSON) {
		gt_json_object_begin(j);
		gt_json_key_array(j, "traces");
	}
	int rc = 0, printed = 0;
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
		} else if (fmt == GT_FMT_JSON) {
			print_json(j, r, &in);
		} else {
			if (printed++)
				fputc('\n', out);
			print_text(out, r, &in);
		}
		gt_reader_close(r);
	}
	if (fmt == GT_FMT_JSON) {
		gt_json_array_end(j);
		gt_json_object_end(j);
		if (gt_json_finish(j) != 0 && !rc)
			rc = gt_error("info: internal error: malformed JSON");
	}
	return rc;
}

static int run(const struct gt_cmd_call *call) { return gt_cmd_print(call, print, (void *)call); }

const struct gt_command gt_cmd_info = {
	"info", "what a trace holds: metadata, devices, record counts, losses", "FILE...", 1, -1,
	"What each trace holds: format version, metadata, devices with their theoretical peaks,\n"
	"records by type, dropped records by reason, chunks, whether the trace ends cleanly, and\n"
	"whether it is synthetic.",
	options, reset, run,
};
GT_COMMAND_ENTRY(info)

/* cmd_bandwidth.c: `gpuanalyze bandwidth`: achieved copy bandwidth per device, copy kind, memory
 * and size bucket, against the device's theoretical peaks and the measured ones of `gputrace peak`;
 * then the copies worth fixing (pageable, too small, synchronous on the critical path).
 *
 * Options and printing only; bandwidth.c computes and bandwidth.h defines every column and flag.
 */
#include "analyze/engines/bandwidth.h"
#include "analyze/commands/cmd_output.h"
#include "analyze/commands/commands.h"
#include "analyze/support/diag.h"
#include "traces/gputrace.h"
#include "analyze/output/json_member.h"
#include "analyze/support/options.h"
#include "analyze/output/output.h"
#include "analyze/support/units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define MEASURED                                                                                   \
	"per copy, two rates in decimal GB/s (10^9 bytes/s), bytes counted once (a DtoD copy of B "    \
	"bytes counts B, though it reads and writes each byte): DMA = bytes / (end - start) of the "  \
	"copy record (CUPTI activity timestamps: the transfer as the copy engine timed it); call = "  \
	"bytes / the duration of the synchronous call that made it (cudaMemcpy*, cuMemcpy* without "  \
	"Async, paired by correlation id): what the program waited for, staging of pageable memory "  \
	"included"
#define GROUPS_TEXT                                                                                \
	"device, copy kind, memory (the host end's kind where the copy has one: pageable, "          \
	"pinned, managed; else source->destination) and size (powers of 4, lower bound included); "  \
	"median, p10 and p90 of the copies' DMA GB/s (and call GB/s) by NumPy's default 'linear' "    \
	"rule"
/* The text's note carries the label; in JSON the key is the label and the value the rest. */
#define GROUPS "groups: " GROUPS_TEXT
#define PERCENT                                                                                    \
	"% of peak = DMA median / theoretical peak x 100, bytes counted once throughout: host copies " \
	"against the PCIe peak per direction, DtoD against the device memory peak (a DtoD copy crosses " \
	"memory twice, so it can reach at most 50% of it); % of measured = a median / the `gputrace "   \
	"peak` probe's rate (also bytes once: 100% is the probe's rate): pageable copies by their "   \
	"call median against the pageable peak (the probe times a whole cudaMemcpy), or, without "    \
	"paired calls or a pageable figure, by their DMA median against the pinned peak; other kinds " \
	"by their DMA median against the same kind's peak; the 'vs measured' column names the peak "  \
	"and the rate"

static const char *pl(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }


/* "504.0 kB" style, decimal. */
static const char *bytes_text(double v, char *buf, size_t len) { return gt_bytes_text(v, 1e3, buf, len); }

static void measured_text(const struct gt_bandwidth *b, const struct gt_bw_device *d, char *buf, size_t len)
{
	if (!b->peaks_file) {
		snprintf(buf, len, "no measured peaks: no place to look ($GPUTRACE_PEAKS, $XDG_CACHE_HOME and $HOME unset)");
		return;
	}
	if (b->peaks_missing) {
		snprintf(buf, len, "no measured peaks: %s does not exist (`gputrace peak` writes it)", b->peaks_file);
		return;
	}
	if (b->peaks_error[0]) {
		snprintf(buf, len, "no measured peaks: cannot read %s: %s", b->peaks_file, b->peaks_error);
		return;
	}
	if (!d->uuid[0]) {
		snprintf(buf, len, "no measured peak for this device: its UUID is unknown, and peaks are "
		                   "matched by UUID only");
		return;
	}
	char list[1024] = "";
	size_t n = 0;
	int any = 0;
	for (int k = 0; k < GT_PEAK_NKINDS && n < sizeof list; k++) {
		if (!d->peaks.have[k])
			continue;
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s %.2f GB/s (line %zu)", any ? ", " : "",
		                      gt_peak_kind_name((enum gt_peak_kind)k), d->peaks.p[k].gbps, d->peaks.p[k].line);
		any = 1;
	}
	int ceilings = 0;
	for (int k = 0; k < GT_CEIL_NKINDS; k++)
		ceilings |= d->peaks.have_ceiling[k];
	if (any)
		snprintf(buf, len, "measured peaks from %s: %s", b->peaks_file, list);
	else if (ceilings)
		snprintf(buf, len, "no measured copy peak for this device: its lines in %s are ceilings only "
		         "(gpuanalyze info shows them)", b->peaks_file);
	else
		snprintf(buf, len,
		         "no measured peak for this device: no line of %s is for its UUID (%zu for other "
		         "devices, %zu without a UUID)",
		         b->peaks_file, d->peaks.other_devices, d->peaks.no_uuid);
}

/* The human formats' notes on the trace, the rates and the devices (JSON says them as facts). */
static void preamble(struct gt_doc *d, const struct gt_bandwidth *b)
{
	gt_doc_title(d, "gpuanalyze bandwidth");
	gt_doc_note(d, "trace: %s (%llu memcpy records)", b->path, (unsigned long long)b->copies);
	gt_cmd_doc_synthetic(d, b->path, b->synthetic);
	gt_cmd_doc_incomplete(d, b->path, b->complete, b->lost_bytes);
	if (b->copies_bad || b->copies_no_rate)
		gt_doc_note(d, "excluded: %llu %s with end < start, %llu of zero duration or zero bytes (no rate)",
		     (unsigned long long)b->copies_bad, pl(b->copies_bad, "copy", "copies"),
		     (unsigned long long)b->copies_no_rate);
	gt_doc_note(d, "measured: %s", MEASURED);
	if (b->sync.count)
		gt_doc_note(d, "call rates: %llu of %llu %s without the async flag paired with a synchronous "
		            "copy call; %llu left out because their call made several copy records, %llu because "
		            "the call's end is not after its start",
		            (unsigned long long)b->sync.calls, (unsigned long long)b->sync.count,
		            pl(b->sync.count, "copy", "copies"), (unsigned long long)b->calls_shared,
		            (unsigned long long)b->calls_bad);
	gt_doc_note(d, "%s", GROUPS);
	for (size_t i = 0; i < b->ndevices; i++) {
		const struct gt_bw_device *dev = &b->devices[i];
		if (!dev->known) {
			gt_doc_note(d, "device %u: no DEVICE record in the trace: no theoretical peak", dev->device_id);
		} else {
			char pcie[64], mem[64];
			if (dev->peak_pcie > 0)
				snprintf(pcie, sizeof pcie, "%.1f GB/s per direction", dev->peak_pcie);
			else
				snprintf(pcie, sizeof pcie, "unknown");
			if (dev->peak_mem > 0)
				snprintf(mem, sizeof mem, "%.1f GB/s", dev->peak_mem);
			else
				snprintf(mem, sizeof mem, "unknown");
			gt_doc_note(d, "device %u: %s (%s): theoretical peaks: PCIe %s, memory %s", dev->device_id, dev->name,
			     dev->uuid[0] ? dev->uuid : "UUID unknown", pcie, mem);
		}
		char buf[2048];
		measured_text(b, dev, buf, sizeof buf);
		gt_doc_note(d, "  %s", buf);
	}
	gt_doc_note(d, "%s", PERCENT);
}

static int groups_table(struct gt_doc *d, const struct gt_bandwidth *b)
{
	int multi = b->ndevices > 1;
	const struct gt_column cols[] = {
		{ "device_id", "device", multi ? 0 : GT_COL_MACHINE },
		{ "copy_kind", "kind", GT_COL_LEFT }, { "memory", "memory", GT_COL_LEFT },
		{ "size", "size", GT_COL_LEFT }, { "count", "count", 0 }, { "bytes", "MB", 0 },
		{ "time_ns", "DMA ms", 0 }, { "median_gbps", "DMA median GB/s", 0 },
		{ "p10_gbps", "p10 GB/s", 0 }, { "p90_gbps", "p90 GB/s", 0 },
		{ "peak_theory_gbps", "peak GB/s", GT_COL_MACHINE }, { "theory_pct", "% of peak", 0 },
		{ "calls", "calls", 0 }, { "call_time_ns", "call ms", 0 },
		{ "call_median_gbps", "call median GB/s", 0 },
		{ "call_p10_gbps", "call p10 GB/s", GT_COL_MACHINE },
		{ "call_p90_gbps", "call p90 GB/s", GT_COL_MACHINE },
		{ "measured_kind", "measured kind", GT_COL_MACHINE },
		{ "measured_rate", "measured rate", GT_COL_MACHINE },
		{ "vs_measured", "vs measured", GT_COL_HUMAN | GT_COL_LEFT },
		{ "peak_measured_gbps", "measured GB/s", GT_COL_MACHINE },
		{ "measured_pct", "% of measured", 0 }, { "small", "small", 0 },
	};
	struct gt_table *t = gt_doc_table(d, "groups", GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	gt_table_when_empty(t, "no copies with a rate");
	for (size_t i = 0; i < b->ngroups; i++) {
		const struct gt_bw_group *g = &b->groups[i];
		gt_table_u64(t, g->device_id);
		gt_table_str(t, gt_copy_kind_name(g->copy_kind));
		gt_table_str(t, g->memory);
		gt_table_str(t, gt_bw_bucket_name(g->bucket));
		gt_table_u64(t, g->count);
		gt_table_u64_as(t, g->bytes, (double)g->bytes / 1e6, 3);
		gt_table_num_as(t, g->time_ns, g->time_ns / 1e6, 3);
		gt_table_num(t, g->median, 2);
		gt_table_num(t, g->p10, 2);
		gt_table_num(t, g->p90, 2);
		gt_table_num(t, g->peak_theory, 1);
		gt_table_num(t, g->pct_theory, 1);
		gt_table_u64(t, g->calls);
		gt_table_num_as(t, g->call_time_ns, g->call_time_ns / 1e6, 3);
		gt_table_num(t, g->call_median, 2);
		gt_table_num(t, g->call_p10, 2);
		gt_table_num(t, g->call_p90, 2);
		const char *mk = g->measured_kind >= 0 ? gt_peak_kind_name((enum gt_peak_kind)g->measured_kind) : NULL;
		const char *mr = g->measured_rate >= 0 ? gt_bw_rate_name(g->measured_rate) : NULL;
		char vs[64];
		snprintf(vs, sizeof vs, "%s by %s", mk ? mk : "", mr ? mr : "");
		gt_table_str(t, mk);
		gt_table_str(t, mr);
		gt_table_str(t, mk ? vs : NULL);
		gt_table_num(t, g->peak_measured, 2);
		gt_table_num(t, g->pct_measured, 1);
		gt_table_u64(t, g->small);
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

static void thresholds_text(const struct gt_bandwidth *b, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < b->ndevices && n < len; i++) {
		const struct gt_bw_device *d = &b->devices[i];
		char h[32], dd[32];
		if (d->small_host > 0 || d->small_dtod > 0)
			n += (size_t)snprintf(buf + n, len - n, "%sdevice %u: %s for host copies, %s for DtoD", n ? "; " : "",
			                      d->device_id, d->small_host > 0 ? bytes_text(d->small_host, h, sizeof h) : "none",
			                      d->small_dtod > 0 ? bytes_text(d->small_dtod, dd, sizeof dd) : "none");
		else
			n += (size_t)snprintf(buf + n, len - n, "%sdevice %u: none (peaks unknown)", n ? "; " : "",
			                      d->device_id);
	}
}

static void flags_text(struct gt_doc *d, const struct gt_bandwidth *b)
{
	char mb[32], thr[512];
	const struct gt_bw_flag *f = &b->pageable;
	char calls[128] = "";
	if (f->calls)
		snprintf(calls, sizeof calls, "; the synchronous calls of %llu of them took %.3f ms", (unsigned long long)f->calls,
		         f->call_time_ns / 1e6);
	if (f->count)
		gt_doc_note(d, "pageable: %llu %s (%s, %.3f ms of DMA%s) with a pageable host end: the driver "
		        "stages them through a pinned buffer, so they do not overlap other work and stay below the "
		        "pinned rate. Allocate the host buffers that are copied with cudaMallocHost, or pin them with "
		        "cudaHostRegister.",
		     (unsigned long long)f->count, pl(f->count, "copy", "copies"), bytes_text((double)f->bytes, mb, sizeof mb),
		     f->time_ns / 1e6, calls);
	else
		gt_doc_note(d, "pageable: none");
	thresholds_text(b, thr, sizeof thr);
	f = &b->small;
	if (f->count)
		gt_doc_note(d, "small: %llu %s (%s, %.3f ms) under the size at which a copy can reach 80%% "
		        "of its ceiling (%s): a copy takes about t0 + bytes / peak with a fixed cost t0 of "
		        "about %.0f us, so reaching 80%% needs bytes >= 4 x t0 x peak. Batch small copies into "
		        "larger ones, or keep the data on the device.",
		     (unsigned long long)f->count, pl(f->count, "copy", "copies"), bytes_text((double)f->bytes, mb, sizeof mb),
		     f->time_ns / 1e6, thr, GT_BW_FIXED_COST_NS / 1e3);
	else
		gt_doc_note(d, "small: none (threshold: %s)", thr);
	f = &b->sync_critical;
	if (f->count)
		gt_doc_note(d, "synchronous on the critical path: %llu of %llu %s without the async flag (%s, "
		        "%.3f ms) ran while the device did nothing else: the host waited, and so did the GPU. "
		        "Use cudaMemcpyAsync from pinned memory on a stream, and give the GPU work to overlap.",
		     (unsigned long long)f->count, (unsigned long long)b->sync.count, pl(b->sync.count, "copy", "copies"),
		     bytes_text((double)f->bytes, mb, sizeof mb), f->time_ns / 1e6);
	else if (b->sync.count)
		gt_doc_note(d, "synchronous on the critical path: none (%llu %s without the async flag, each "
		        "overlapped by other GPU work)",
		     (unsigned long long)b->sync.count, pl(b->sync.count, "copy", "copies"));
	else
		gt_doc_note(d, "synchronous on the critical path: none (no copies without the async flag)");
}

static void json_flag(struct gt_doc *d, const char *key, const struct gt_bw_flag *f, uint64_t origin)
{
	gt_doc_object(d, key);
	gt_doc_u64(d, "count", f->count);
	gt_doc_u64(d, "bytes", f->bytes);
	gt_doc_num(d, "time_ns", f->time_ns);
	gt_doc_u64_if(d, "first_offset_ns", f->count && f->first_start >= origin, f->first_start - origin);
	gt_doc_u64(d, "calls", f->calls);
	gt_doc_num(d, "call_time_ns", f->call_time_ns);
	gt_doc_end(d);
}

/* The facts: JSON's head, before its groups. */
static void facts(struct gt_doc *d, const struct gt_bandwidth *b)
{
	gt_cmd_doc_head(d, "bandwidth");
	gt_cmd_doc_trace(d, b->path, b->complete, b->lost_bytes, b->synthetic != NULL);
	gt_doc_u64(d, "memcpys", b->copies);
	gt_doc_u64(d, "excluded_bad_times", b->copies_bad);
	gt_doc_u64(d, "excluded_no_rate", b->copies_no_rate);
	gt_doc_u64(d, "no_call_rate_shared_call", b->calls_shared);
	gt_doc_u64(d, "no_call_rate_bad_call", b->calls_bad);
	gt_doc_end(d);
	gt_doc_str(d, "measured", MEASURED);
	gt_doc_str(d, "groups_are", GROUPS_TEXT);
	gt_doc_str(d, "percent_of_peak", PERCENT);
	gt_doc_str(d, "peaks_file", b->peaks_file);
	gt_doc_str(d, "peaks_file_status", !b->peaks_file ? "none" : b->peaks_missing ? "missing"
	                                       : b->peaks_error[0] ? b->peaks_error : "read");
	gt_doc_array(d, "devices");
	for (size_t i = 0; i < b->ndevices; i++) {
		const struct gt_bw_device *dev = &b->devices[i];
		gt_doc_object(d, NULL);
		gt_doc_u64(d, "device_id", dev->device_id);
		gt_doc_str(d, "name", dev->known ? dev->name : NULL);
		gt_doc_str(d, "uuid", dev->uuid[0] ? dev->uuid : NULL);
		gt_doc_num(d, "peak_pcie_gbps", dev->peak_pcie > 0 ? dev->peak_pcie : NAN);
		gt_doc_num(d, "peak_mem_gbps", dev->peak_mem > 0 ? dev->peak_mem : NAN);
		gt_doc_num(d, "small_host_bytes", dev->small_host > 0 ? dev->small_host : NAN);
		gt_doc_num(d, "small_dtod_bytes", dev->small_dtod > 0 ? dev->small_dtod : NAN);
		gt_doc_object(d, "measured");
		for (int k = 0; k < GT_PEAK_NKINDS; k++) {
			if (!dev->peaks.have[k])
				continue;
			gt_doc_object(d, gt_peak_kind_name((enum gt_peak_kind)k));
			gt_doc_num(d, "gbps", dev->peaks.p[k].gbps);
			gt_doc_u64(d, "bytes", dev->peaks.p[k].bytes);
			gt_doc_u64(d, "reps", dev->peaks.p[k].reps);
			gt_doc_u64(d, "line", dev->peaks.p[k].line);
			gt_doc_end(d);
		}
		gt_doc_end(d);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_num(d, "small_fixed_cost_ns", GT_BW_FIXED_COST_NS);
	gt_doc_object(d, "flags");
	json_flag(d, "pageable", &b->pageable, b->origin);
	json_flag(d, "small", &b->small, b->origin);
	json_flag(d, "synchronous", &b->sync, b->origin);
	json_flag(d, "synchronous_critical", &b->sync_critical, b->origin);
	gt_doc_end(d);
}

/* gt_cmd_filler: the facts, the notes and the groups, each format taking what it carries (CSV
 * the groups alone). */
static int fill(struct gt_doc *d, void *ctx)
{
	const struct gt_bandwidth *b = ctx;
	facts(d, b);
	preamble(d, b);
	gt_doc_heading(d, 2, "copies");
	int rc = groups_table(d, b);
	gt_doc_end(d); /* the JSON document */
	gt_doc_heading(d, 2, "flags");
	flags_text(d, b);
	return rc;
}

static const char *peaks;
static enum gt_format fmt;

static const struct gt_option options[] = {
	GT_OPT_PEAKS(&peaks),
	GT_OPT_FORMAT(&fmt, GT_FMT_ALL),
	GT_OPT_END_OF_LIST,
};

static void reset(void)
{
	peaks = NULL;
	fmt = GT_FMT_TEXT;
}

static int run(const struct gt_cmd_call *call)
{
	struct gt_bandwidth b;
	int rc = gt_bandwidth_run(&b, call->files[0], peaks);
	if (!rc) {
		rc = gt_cmd_render(call, fmt, fill, &b);
	}
	gt_bandwidth_release(&b);
	return rc;
}

const struct gt_command gt_cmd_bandwidth = {
	.name = "bandwidth",
	.help = "copy bandwidth by direction, memory kind and size, against peaks",
	.operands = "FILE",
	.min_operands = 1,
	.max_operands = 1,
	.description =
	"Copy bandwidth per device, copy kind, host memory kind and size bucket: count, bytes,\n"
	"median GB/s (decimal, bytes counted once) over the copy's DMA time, p10 and p90, and for\n"
	"copies made by a synchronous call (cudaMemcpy*, cuMemcpy* without Async) the median over\n"
	"the whole call; percent of the device's theoretical peak and of the measured peak that\n"
	"`gputrace peak` stored for it (pageable copies: the call rate vs the pageable peak). Flags\n"
	"pageable copies, copies too small to reach bandwidth and synchronous copies on the\n"
	"critical path. gpuanalyze(1) defines every column.",
	.options = options,
	.reset = reset,
	.run = run,
};
GT_COMMAND_ENTRY(bandwidth)

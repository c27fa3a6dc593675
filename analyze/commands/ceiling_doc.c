/* ceiling_doc.c: the ceiling analysis written into a document (ceiling_doc.h). */
#include "analyze/commands/ceiling_doc.h"
#include "analyze/support/kname.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ABSENT "not measured"

static const char *peaks_state(const struct gt_ceil_analysis *c, char *buf, size_t len)
{
	if (!c->peaks_file)
		snprintf(buf, len, "no measured ceilings: no place to look ($GPUTRACE_PEAKS, $XDG_CACHE_HOME "
		                   "and $HOME unset)");
	else if (c->peaks_missing)
		snprintf(buf, len, "no measured ceilings: %s does not exist (`gputrace peak` writes it)", c->peaks_file);
	else if (c->peaks_error[0])
		snprintf(buf, len, "no measured ceilings: cannot read %s: %s", c->peaks_file, c->peaks_error);
	else
		snprintf(buf, len, "measured ceilings from %s", c->peaks_file);
	return buf;
}

static void device_note(struct gt_doc *d, const struct gt_ceil_device *dev)
{
	char th[64] = "unknown", mem[256] = "none measured for its UUID";
	if (dev->theory[GT_CEIL_DRAM_READ] > 0)
		snprintf(th, sizeof th, "%.1f GB/s", dev->theory[GT_CEIL_DRAM_READ]);
	if (dev->mem_kind >= 0) {
		const struct gt_ceiling *m = &dev->peaks.c[dev->mem_kind];
		snprintf(mem, sizeof mem, "%s %.2f GB/s (line %zu; SM %u MHz, memory %u MHz, clocks %s)",
		         gt_ceiling_kind_name((enum gt_ceiling_kind)dev->mem_kind), m->value, m->line, m->sm_mhz,
		         m->mem_mhz, m->clocks[0] ? m->clocks : "not given");
	}
	char comp[512] = "", comp_th[512] = "";
	size_t n = 0, nt = 0;
	for (int k = GT_CEIL_FP32_FMA; k < GT_CEIL_NKINDS && n < sizeof comp; k++)
		if (dev->peaks.c && dev->peaks.have_ceiling[k])
			n += (size_t)snprintf(comp + n, sizeof comp - n, "%s%s %.1f GFLOP/s", n ? ", " : "",
			                      gt_ceiling_kind_name((enum gt_ceiling_kind)k), dev->peaks.c[k].value);
	static const enum gt_ceiling_kind ck[] = { GT_CEIL_FP32_FMA, GT_CEIL_FP64_FMA, GT_CEIL_FP16_MMA };
	for (size_t i = 0; i < 3; i++) {
		if (nt < sizeof comp_th && dev->theory[ck[i]] > 0)
			nt += (size_t)snprintf(comp_th + nt, sizeof comp_th - nt, "%s%s %.1f GFLOP/s", nt ? ", " : "",
			                       gt_ceiling_kind_name(ck[i]), dev->theory[ck[i]]);
	}
	char l2[64] = "none measured";
	if (isfinite(dev->l2_gbps))
		snprintf(l2, sizeof l2, "l2_read %.2f GB/s", dev->l2_gbps);
	gt_doc_note(d, "device %u: %s (%s): memory ceiling %s; theoretical memory peak %s; L2 ceiling %s; compute "
	            "ceilings: %s; theoretical compute peaks: %s",
	            dev->device_id, dev->known ? dev->name : "no DEVICE record", dev->uuid[0] ? dev->uuid : "UUID unknown",
	            mem, th, l2, n ? comp : "none measured", nt ? comp_th : "unknown for this device");
}

void gt_ceiling_doc_notes(struct gt_doc *d, const struct gt_ceil_analysis *c)
{
	char buf[4500];
	gt_doc_note(d, "counters: %llu metric samples (GPUTRACE_METRICS), %llu per-launch values (gputrace "
	            "replay --metrics); left out: %llu samples and %llu launch values with bad times or a "
	            "value not finite or negative, %llu records of metrics without a role",
	            (unsigned long long)c->metric_samples, (unsigned long long)c->launch_metrics,
	            (unsigned long long)c->samples_left_out, (unsigned long long)c->launches_left_out,
	            (unsigned long long)c->unknown_metric);
	gt_doc_note(d, "sources: replay = exact per launch (its values' sum / its launches); %s", GT_CEILING_RULE_SAMPLES);
	for (size_t k = 0; k < gt_metric_role_nrows; k++) {
		if (!(c->row_seen[k] & 1) || !(c->sampled[k] > 0))
			continue;
		gt_doc_note(d, "  %s: %.1f%% of its sampled count fell in time shared by concurrent kernels "
		            "and %.1f%% in samples with no kernel running: both left out",
		            gt_metric_role_rows[k].metric, 100 * c->concurrent[k] / c->sampled[k],
		            100 * c->idle[k] / c->sampled[k]);
	}
	gt_doc_note(d, "%s", peaks_state(c, buf, sizeof buf));
	for (size_t i = 0; i < c->ndevices; i++)
		device_note(d, &c->devices[i]);
	gt_doc_note(d, "rates in decimal units (GB/s = 10^9 bytes/s); DRAM bytes = read + written; "
	            "FLOPs: an FMA counts 2; %% of compute = the sum over FP32, FP64 and tensor FLOP/s "
	            "of each over its measured ceiling (tensor: the highest of the mma and library GEMM "
	            "ones); %% compute theory = the same over the theoretical peaks (SMs x per-SM rate per "
	            "clock x maximum SM clock; sm_80 and sm_90 only); %% L2 ceiling = L2 GB/s (reads and "
	            "writes) over the measured l2_read ceiling");
	gt_doc_note(d, "%s", GT_CEILING_RULE_BOUND);
}

void gt_ceiling_doc_facts(struct gt_doc *d, const struct gt_ceil_analysis *c)
{
	gt_doc_u64(d, "metric_samples", c->metric_samples);
	gt_doc_u64(d, "launch_metrics", c->launch_metrics);
	gt_doc_u64(d, "samples_left_out", c->samples_left_out);
	gt_doc_u64(d, "launch_metrics_left_out", c->launches_left_out);
	gt_doc_u64(d, "unknown_metric_records", c->unknown_metric);
	gt_doc_str(d, "sample_rule", GT_CEILING_RULE_SAMPLES);
	gt_doc_str(d, "bound_rule", GT_CEILING_RULE_BOUND);
	gt_doc_num(d, "bound_threshold_pct", GT_CEIL_BOUND_PCT);
	gt_doc_array(d, "sampled_metrics");
	for (size_t k = 0; k < gt_metric_role_nrows; k++) {
		if (!(c->row_seen[k] & 1))
			continue;
		gt_doc_object(d, NULL);
		gt_doc_str(d, "metric", gt_metric_role_rows[k].metric);
		gt_doc_str(d, "role", gt_metric_role_name(gt_metric_role_rows[k].role));
		gt_doc_num(d, "sampled", c->sampled[k]);
		gt_doc_num(d, "left_out_concurrent", c->concurrent[k]);
		gt_doc_num(d, "left_out_idle", c->idle[k]);
		gt_doc_end(d);
	}
	gt_doc_end(d);
	gt_doc_str(d, "peaks_file", c->peaks_file);
	gt_doc_str(d, "peaks_file_status", !c->peaks_file ? "none" : c->peaks_missing ? "missing"
	                                   : c->peaks_error[0] ? c->peaks_error : "read");
	gt_doc_array(d, "devices");
	for (size_t i = 0; i < c->ndevices; i++) {
		const struct gt_ceil_device *dev = &c->devices[i];
		gt_doc_object(d, NULL);
		gt_doc_u64(d, "device_id", dev->device_id);
		gt_doc_str(d, "name", dev->known ? dev->name : NULL);
		gt_doc_str(d, "uuid", dev->uuid[0] ? dev->uuid : NULL);
		const double theory_mem = dev->theory[GT_CEIL_DRAM_READ];
		gt_doc_num(d, "theory_mem_gbps", theory_mem > 0 ? theory_mem : NAN);
		gt_doc_object(d, "theory_gflops");
		for (int k = GT_CEIL_FP32_FMA; k <= GT_CEIL_FP16_MMA; k++)
			gt_doc_num(d, gt_ceiling_kind_name((enum gt_ceiling_kind)k), dev->theory[k] > 0 ? dev->theory[k] : NAN);
		gt_doc_end(d);
		gt_doc_str(d, "memory_ceiling", dev->mem_kind >= 0 ? gt_ceiling_kind_name((enum gt_ceiling_kind)dev->mem_kind) : NULL);
		gt_doc_num(d, "l2_ceiling_gbps", dev->l2_gbps);
		gt_doc_object(d, "ceilings");
		for (int k = 0; dev->peaks.c && k < GT_CEIL_NKINDS; k++) {
			if (!dev->peaks.have_ceiling[k])
				continue;
			const struct gt_ceiling *m = &dev->peaks.c[k];
			gt_doc_object(d, gt_ceiling_kind_name((enum gt_ceiling_kind)k));
			gt_doc_num(d, gt_ceiling_is_flops((enum gt_ceiling_kind)k) ? "gflops" : "gbps", m->value);
			gt_doc_num(d, "theory", m->theory > 0 ? m->theory : NAN);
			gt_doc_u64(d, "sm_mhz", m->sm_mhz);
			gt_doc_u64(d, "mem_mhz", m->mem_mhz);
			gt_doc_str(d, "clocks", m->clocks[0] ? m->clocks : NULL);
			gt_doc_str(d, "method", m->method[0] ? m->method : NULL);
			gt_doc_u64(d, "line", m->line);
			gt_doc_end(d);
		}
		gt_doc_end(d);
		gt_doc_end(d);
	}
	gt_doc_end(d);
}

int gt_ceiling_doc_table(struct gt_doc *d, const struct gt_ceil_analysis *c, const char *key, size_t limit)
{
	const struct gt_column cols[] = {
		{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE }, { "name", "name", GT_COL_MACHINE },
		{ "device_id", "device", GT_COL_MACHINE },
		{ "launches", "launches", 0 }, { "time_ns", "GPU ms", 0 },
		{ "source", "source", GT_COL_LEFT }, { "coverage_pct", "covered %", 0 },
		{ "alone_pct", "alone %", GT_COL_MACHINE },
		{ "dram_bytes_per_launch", "DRAM MB/launch", 0 }, { "dram_gbps", "DRAM GB/s", 0 },
		{ "mem_pct", "% mem ceiling", 0 }, { "mem_pct_theory", "% mem theory", 0 },
		{ "l2_bytes_per_launch", "L2 MB/launch", GT_COL_MACHINE }, { "l2_gbps", "L2 GB/s", GT_COL_MACHINE },
		{ "l2_pct", "% L2 ceiling", 0 },
		{ "flops_per_launch", "GFLOP/launch", 0 }, { "gflops", "GFLOP/s", 0 },
		{ "compute_pct", "% compute", 0 }, { "compute_vs", "compute of", GT_COL_LEFT },
		{ "compute_pct_theory", "% compute theory", 0 },
		{ "intensity", "FLOP/byte", 0 }, { "bound", "bound", GT_COL_LEFT },
	};
	size_t rows = limit && limit < c->nkernels ? limit : c->nkernels;
	/* Labels told apart: chain<float> and chain<double> would both be "chain<...>". */
	const char **names = rows ? malloc(rows * sizeof *names) : NULL;
	char **labels = rows ? calloc(rows, sizeof *labels) : NULL;
	for (size_t i = 0; names && i < rows; i++)
		names[i] = c->kernels[i].name;
	struct gt_table *t = NULL;
	if ((rows && (!names || !labels || gt_kernel_labels(names, rows, labels))) ||
	    !(t = gt_doc_table(d, key, GT_COLUMNS(cols)))) {
		for (size_t i = 0; labels && i < rows; i++)
			free(labels[i]);
		free(labels);
		free(names);
		return GT_ERR_NOMEM;
	}
	gt_table_when_empty(t, "no kernels");
	for (size_t i = 0; i < rows; i++) {
		const struct gt_ceil_kernel *k = &c->kernels[i];
		gt_table_str(t, labels[i]);
		gt_table_str(t, k->name);
		if (k->device < c->ndevices)
			gt_table_u64(t, c->devices[k->device].device_id);
		else
			gt_table_null(t);
		gt_table_u64(t, k->launches);
		gt_table_num_as(t, k->time_ns, k->time_ns / 1e6, 3);
		gt_table_str(t, gt_ceil_source_name(k->source));
		gt_table_num_or(t, 100 * k->coverage, 100 * k->coverage, 1, "-");
		gt_table_num_or(t, 100 * k->solo_share, 100 * k->solo_share, 1, "-");
		gt_table_num_or(t, k->dram_bytes, k->dram_bytes / 1e6, 3, ABSENT);
		gt_table_num_or(t, k->dram_gbps, k->dram_gbps, 1, ABSENT);
		gt_table_num_or(t, k->mem_pct, k->mem_pct, 1, isfinite(k->dram_gbps) ? "no ceiling" : ABSENT);
		gt_table_num_or(t, k->mem_pct_theory, k->mem_pct_theory, 1, isfinite(k->dram_gbps) ? "unknown" : ABSENT);
		gt_table_num_or(t, k->l2_bytes, k->l2_bytes / 1e6, 3, ABSENT);
		gt_table_num_or(t, k->l2_gbps, k->l2_gbps, 1, ABSENT);
		gt_table_num_or(t, k->l2_pct, k->l2_pct, 1, isfinite(k->l2_gbps) ? "no ceiling" : ABSENT);
		gt_table_num_or(t, k->flops, k->flops / 1e9, 3, ABSENT);
		gt_table_num_or(t, k->gflops, k->gflops, 1, ABSENT);
		gt_table_num_or(t, k->compute_pct, k->compute_pct, 1, k->compute_vs[0] ? "no ceiling" : ABSENT);
		gt_table_str(t, k->compute_vs[0] ? k->compute_vs : NULL);
		gt_table_num_or(t, k->compute_pct_theory, k->compute_pct_theory, 1,
		                isfinite(k->gflops) && k->gflops > 0 ? "unknown" : ABSENT);
		gt_table_num_or(t, k->intensity, k->intensity, 2, ABSENT);
		gt_table_str(t, gt_ceil_bound_name(k->bound));
		gt_table_end_row(t);
	}
	for (size_t i = 0; i < rows; i++)
		free(labels[i]);
	free(labels);
	free(names);
	return gt_table_close(t);
}

/* report_doc.c: the benchmark report as a Markdown document (report_doc.h): its sections from the
 * title to Correctness, and the run that computes, draws the figures and fills the whole.
 *
 * Our own words and numbers are gt_doc_words, written as they are (they are Markdown); anything
 * from the trace (names, metadata, an NVTX range's name) goes through gt_doc_prose (the Markdown
 * prose rule) or gt_report_doc_code (a code span), never through a %s of gt_doc_words.
 */
#include "analyze/commands/report_doc.h"

#include "analyze/blocks/peaks.h"
#include "analyze/output/output.h"
#include "analyze/support/load.h"
#include "analyze/support/units.h"
#include "common/stats.h"
#include "traces/gputrace.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A META value of the trace; NULL when absent or empty. */
static const char *meta(const struct gt_report *x, const char *key)
{
	const char *v = gt_reader_meta(x->r, key);
	return v && *v ? v : NULL;
}

/* ---- shared with report_result.c and report_figures.c ------------------------------------------ */

void gt_report_doc_code(struct gt_doc *d, const char *s) { gt_doc_name(d, s && *s ? s : "(none)"); }

const char *gt_report_dur(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "n/a");
	else if (fabs(ns) >= 1e9)
		snprintf(buf, len, "%.3f s", ns / 1e9);
	else if (fabs(ns) >= 1e6)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else if (fabs(ns) >= 1e3)
		snprintf(buf, len, "%.3f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

void gt_report_unit_words(const struct gt_split *s, char *buf, size_t len)
{
	switch (s->mode) {
	case GT_SPLIT_NVTX: snprintf(buf, len, "instance of the NVTX range '%.100s'", s->range ? s->range : ""); break;
	case GT_SPLIT_SYNC: snprintf(buf, len, "interval between host synchronisations"); break;
	case GT_SPLIT_WINDOW: snprintf(buf, len, "recording window (GPUTRACE_WINDOW)"); break;
	default: snprintf(buf, len, "the whole process"); break;
	}
}

void gt_report_doc_units(struct gt_doc *d, const struct gt_split *s)
{
	char w[160];
	if (s->mode != GT_SPLIT_NVTX) {
		gt_report_unit_words(s, w, sizeof w);
		gt_doc_words(d, "%s", w);
		return;
	}
	gt_doc_words(d, "instance of the NVTX range '");
	gt_doc_prose(d, s->range ? s->range : "");
	gt_doc_words(d, "'");
}

/* "6.82 MB", "5242 B": bytes, decimal (kB from 10 kB). */
static const char *bytes(double b, char *buf, size_t len) { return gt_bytes_text(b, 1e4, buf, len); }

/* ---- the sections up to Correctness ---------------------------------------------------------- */

/* A piece of the trace's text after our words, both only when the trace has it (s not NULL). */
static void prose_after(struct gt_doc *d, const char *words, const char *s)
{
	if (!s)
		return;
	gt_doc_words(d, "%s", words);
	gt_doc_prose(d, s);
}

static void title(struct gt_doc *d, const struct gt_report *x)
{
	const char *prog = meta(x, "process.name");
	const char *base = strrchr(x->path, '/') ? strrchr(x->path, '/') + 1 : x->path;
	gt_doc_words(d, "# GPU benchmark report: ");
	gt_doc_prose(d, prog ? prog : base);
	gt_doc_words(d, "\n\n");
	gt_doc_words(d, "Trace ");
	gt_report_doc_code(d, x->path);
	const char *when = meta(x, "process.start_utc"), *host = meta(x, "host.name");
	prose_after(d, ", recorded ", when);
	if (host) {
		gt_doc_words(d, " on host ");
		gt_report_doc_code(d, host);
	}
	gt_doc_words(d, "; report by gpuanalyze %s.\n", GT_TOOL_VERSION);
	const char *syn = gt_load_synthetic(x->r);
	if (syn) {
		gt_doc_words(d, "\n> **SYNTHETIC trace** (META trace.synthetic = ");
		gt_report_doc_code(d, syn);
		gt_doc_words(d, "): written by a program, not recorded on a GPU. Its numbers describe no hardware.\n");
	}
	struct gt_tail t;
	gt_reader_tail(x->r, &t);
	if (!t.complete)
		gt_doc_words(d, "\n> **Incomplete trace**: it ends early (%llu bytes of an incomplete chunk lost); the "
		                "records after its last complete chunk are missing, an unknown number.\n",
		    (unsigned long long)t.lost_bytes);
}

static void hardware(struct gt_doc *d, const struct gt_report *x)
{
	gt_doc_heading(d, 2, "Hardware");
	size_t nd = gt_reader_device_count(x->r);
	if (!nd)
		gt_doc_words(d, "- GPU: not described in the trace (no DEVICE record)\n");
	for (size_t i = 0; i < nd; i++) {
		const char *name;
		const struct gt_device *dev = gt_reader_device_at(x->r, i, &name);
		char uuid[64];
		gt_device_uuid_string(dev, uuid, sizeof uuid);
		gt_doc_words(d, "- GPU %u: ", dev->device_id);
		gt_doc_prose(d, name && *name ? name : "(unnamed)");
		gt_doc_words(d, " (");
		if (*uuid) {
			gt_report_doc_code(d, uuid);
			gt_doc_words(d, ", ");
		}
		gt_doc_words(d, "compute %u.%u, %u SMs, %.1f GiB, max SM clock %u MHz, L2 %u KiB)", dev->cc_major,
		    dev->cc_minor, dev->sm_count, (double)dev->global_mem_bytes / (1024.0 * 1024 * 1024),
		    dev->sm_clock_khz / 1000, dev->l2_bytes / 1024);
		double mem = gt_device_peak_mem_bw(dev), pcie = gt_device_peak_pcie_bw(dev);
		gt_doc_words(d, "; memory %u MHz x %u bits", dev->mem_clock_khz / 1000, dev->mem_bus_width_bits);
		if (mem > 0)
			gt_doc_words(d, ", theoretical peak %.1f GB/s", mem / 1e9);
		if (dev->pcie_gen)
			gt_doc_words(d, "; PCIe gen %u x%u (gen %u x%u at start)", dev->pcie_gen, dev->pcie_width,
			    dev->pcie_gen_current, dev->pcie_width_current);
		if (pcie > 0)
			gt_doc_words(d, ", theoretical peak %.1f GB/s per direction", pcie / 1e9);
		gt_doc_words(d, "\n");
	}
	const char *cpu = meta(x, "host.cpu"), *cpus = meta(x, "host.cpus"), *os = meta(x, "host.os"),
	           *kern = meta(x, "host.kernel");
	gt_doc_words(d, "- Host: ");
	gt_doc_prose(d, cpu ? cpu : "CPU not recorded");
	if (cpus) {
		gt_doc_words(d, ", ");
		gt_doc_prose(d, cpus);
		gt_doc_words(d, " CPUs");
	}
	prose_after(d, "; ", os);
	prose_after(d, "; ", kern);
	gt_doc_words(d, "\n");
}

static void toolkit(struct gt_doc *d, const struct gt_report *x)
{
	gt_doc_heading(d, 2, "Toolkit");
	const char *drv = meta(x, "cuda.driver"), *api = meta(x, "cuda.driver_api"), *rt = meta(x, "cuda.runtime"),
	           *cupti = meta(x, "cupti.api_version");
	gt_doc_words(d, "- NVIDIA driver ");
	gt_doc_prose(d, drv ? drv : "not recorded");
	gt_doc_words(d, " (CUDA driver API ");
	gt_doc_prose(d, api ? api : "not recorded");
	gt_doc_words(d, "); CUDA runtime ");
	gt_doc_prose(d, rt ? rt : "not recorded");
	gt_doc_words(d, "; CUPTI API ");
	gt_doc_prose(d, cupti ? cupti : "not recorded");
	gt_doc_words(d, "\n- Recorder: gputrace ");
	gt_doc_prose(d, meta(x, "tool.version") ? meta(x, "tool.version") : "?");
	prose_after(d, ", injected by ", meta(x, "tool.injected_by"));
	prose_after(d, "; activities ", meta(x, "trace.activities"));
	const char *lat = meta(x, "trace.latency_timestamps");
	if (lat)
		gt_doc_words(d, "; latency timestamps %s", strcmp(lat, "0") ? "on" : "off");
	gt_doc_words(d, "\n- Compiler and flags: not recorded in a trace; state them beside this report\n");
}

static void clocks(struct gt_doc *d, const struct gt_report *x)
{
	const struct gt_report_pass *p = &x->p;
	gt_doc_heading(d, 2, "Clock state");
	if (!p->nclock) {
		gt_doc_words(d, "- Not sampled: the trace holds no NVML clock samples, so whether clocks moved during the "
		                "run is unknown\n");
		return;
	}
	char reasons[256];
	gt_doc_words(d, "- %llu %s over %.3f s (%llu while the GPU was busy): SM clock %u to %u MHz, memory clock %u "
	                "to %u MHz, %u to %u C, %.1f to %.1f W\n",
	    (unsigned long long)p->nclock, p->nclock == 1 ? "sample" : "samples",
	    (double)(p->clock_last - p->clock_first) / 1e9, (unsigned long long)p->busy,
	    p->sm_min, p->sm_max, p->mem_min, p->mem_max, p->t_min, p->t_max, p->p_min / 1000.0, p->p_max / 1000.0);
	if (p->throttled)
		gt_doc_words(d, "- Throttling in %llu of %llu samples: %s\n", (unsigned long long)p->throttled,
		    (unsigned long long)p->nclock, gt_clock_reasons_text(p->reasons & GT_CLK_THROTTLING, reasons, sizeof reasons));
	else if (p->reasons)
		gt_doc_words(d, "- No throttling reason in any sample (reasons seen: %s)\n",
		    gt_clock_reasons_text(p->reasons, reasons, sizeof reasons));
	else
		gt_doc_words(d, "- No throttling reason in any sample\n");
	gt_doc_words(d, "- Clocks locked: not recorded (nvidia-smi -lgc leaves no mark in a trace)\n");
}

static void sizes(struct gt_doc *d, const struct gt_report *x)
{
	gt_doc_heading(d, 2, "Sizes");
	gt_doc_words(d, "- Program: ");
	gt_report_doc_code(d, meta(x, "process.cmdline") ? meta(x, "process.cmdline") : "(not recorded)");
	gt_doc_words(d, "\n");
	char b1[32], b2[32], b3[32], b4[32];
	if (x->ntop) {
		gt_doc_words(d, "\nLaunch configurations of the top kernels:\n\n");
		const struct gt_column cols[] = {
			{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE },
			{ "launches", "launches", 0 }, { "grid", "grid", GT_COL_LEFT },
			{ "block", "block", GT_COL_LEFT },
			{ "smem", "shared memory (static + dynamic)", GT_COL_LEFT },
			{ "regs", "registers", 0 },
		};
		struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
		if (!t)
			return;
		for (size_t i = 0; i < x->ntop; i++) {
			const struct gt_kernel_sample *k = x->top[i];
			for (size_t c = 0; c < k->ncfg; c++) {
				const struct gt_launch_config *g = &k->cfg[c];
				char grid[64], block[64], smem[64];
				snprintf(grid, sizeof grid, "%u x %u x %u", g->grid[0], g->grid[1], g->grid[2]);
				snprintf(block, sizeof block, "%u x %u x %u", g->block[0], g->block[1], g->block[2]);
				snprintf(smem, sizeof smem, "%u + %u B", g->static_smem, g->dynamic_smem);
				gt_table_str(t, x->names[i]);
				gt_table_u64(t, g->launches);
				gt_table_str(t, grid);
				gt_table_str(t, block);
				gt_table_str(t, smem);
				gt_table_u64(t, g->registers);
				gt_table_end_row(t);
			}
			if (k->cfg_other) {
				char other[64];
				snprintf(other, sizeof other, "(%llu more in other configurations)",
				         (unsigned long long)k->cfg_other);
				gt_table_str(t, x->names[i]);
				gt_table_u64(t, k->cfg_other);
				gt_table_str(t, other);
				gt_table_str(t, "");
				gt_table_str(t, "");
				gt_table_null(t);
				gt_table_end_row(t);
			}
		}
		gt_table_close(t);
	}
	const struct gt_report_pass *p = &x->p;
	if (p->ncg) {
		gt_doc_words(d, "\nCopies (bytes per copy; decimal units):\n\n");
		const struct gt_column cols[] = {
			{ "copy", "copy", GT_COL_LEFT }, { "count", "count", 0 }, { "min", "min", 0 },
			{ "median", "median", 0 }, { "max", "max", 0 }, { "total", "total", 0 },
		};
		struct gt_table *t = gt_doc_table(d, NULL, GT_COLUMNS(cols));
		if (!t)
			return;
		for (size_t i = 0; i < p->ncg; i++) {
			const struct gt_report_copies *g = &p->cg[i];
			struct gt_stats st;
			gt_stats_compute_u64(&st, g->bytes.p, g->count);
			char name[96];
			snprintf(name, sizeof name, "%s %s->%s", gt_copy_kind_name(g->copy_kind), gt_mem_kind_name(g->src_kind),
			         gt_mem_kind_name(g->dst_kind));
			gt_table_str(t, name);
			gt_table_u64(t, g->count);
			gt_table_str(t, bytes(st.min, b1, sizeof b1));
			gt_table_str(t, bytes(st.median, b2, sizeof b2));
			gt_table_str(t, bytes(st.max, b3, sizeof b3));
			gt_table_str(t, bytes((double)g->total, b4, sizeof b4));
			gt_table_end_row(t);
		}
		gt_table_close(t);
		if (p->copies_other)
			gt_doc_words(d, "\n(%llu more copies of other kinds)\n", (unsigned long long)p->copies_other);
	} else {
		gt_doc_words(d, "- Copies: none\n");
	}
	if (p->memsets)
		gt_doc_words(d, "%s- Memsets: %llu, %s in all\n", p->ncg ? "\n" : "", (unsigned long long)p->memsets,
		    bytes((double)p->memset_bytes, b1, sizeof b1));
}

static void method(struct gt_doc *d, const struct gt_report *x)
{
	const struct gt_samples *ks = &x->p.ks;
	gt_doc_heading(d, 2, "Method");
	gt_doc_words(d, "- Timed: each kernel's GPU execution, end - start of its CUPTI activity record (the GPU's own "
	                "timestamps, ns); copies and memsets likewise; no host timer is involved\n");
	if (x->o->warmup)
		gt_doc_words(d, "- Warm-up: the first %llu launches of each kernel dropped, by start time, never by value "
		                "(%llu launches in all)%s\n",
		    (unsigned long long)x->o->warmup, (unsigned long long)ks->warmup_dropped,
		    x->have_split ? "; the first units of work likewise" : "");
	else
		gt_doc_words(d, "- Warm-up: none dropped (--warmup 0): first launches are in the statistics\n");
	gt_doc_words(d, "- Samples: %llu kernel launches counted of %llu recorded",
	             (unsigned long long)(ks->kernel_records - ks->bad - ks->warmup_dropped),
	             (unsigned long long)ks->kernel_records);
	if (ks->bad)
		gt_doc_words(d, " (%llu with bad timestamps excluded)", (unsigned long long)ks->bad);
	gt_doc_words(d, "; n per kernel in the tables\n");
	gt_doc_words(d, "- Statistics: median; spread as MAD (median |x - median|; x1.4826 estimates a standard deviation); "
	                "tail as p90 and p99 (NumPy's 'linear' percentiles); gpuanalyze(1) defines each\n");
	if (x->have_split) {
		gt_doc_words(d, "- Units of work (end to end): each ");
		gt_report_doc_units(d, &x->split);
		gt_doc_words(d, ", %zu of them", x->split.nunits);
		if (x->split.warmup_dropped)
			gt_doc_words(d, " after %llu dropped as warm-up", (unsigned long long)x->split.warmup_dropped);
		gt_doc_words(d, "\n");
		if (x->split.windows)
			gt_doc_words(d, "- Recorded in windows: %llu, %.3f s of a %.3f s run (%.1f%%); nothing outside them "
			                "was recorded, and every figure here speaks for the windows only\n",
			    (unsigned long long)x->split.windows, (double)x->split.window_ns / 1e9,
			    (double)x->split.run_ns / 1e9,
			    x->split.run_ns ? 100.0 * (double)x->split.window_ns / (double)x->split.run_ns : 0.0);
	}
	struct gt_tail t;
	gt_reader_tail(x->r, &t);
	if (x->p.dropped || x->p.uncounted || !t.complete)
		gt_doc_words(d, "- Records lost: %llu dropped%s%s; see Findings\n", (unsigned long long)x->p.dropped,
		    x->p.uncounted ? ", and more of unknown number" : "", t.complete ? "" : ", and the trace ends early");
	else
		gt_doc_words(d, "- Records lost: none (no DROPPED record, the trace ends with its END record)\n");
}

static const struct gt_ref_output *first_output(const struct gt_shadow_result *l)
{
	return l->noutputs ? l->outputs[0].decl : NULL;
}

/* Why correctness was not checked: shadow replay needs both captures and a reference library. */
static void not_checked(struct gt_doc *d, const struct gt_report *x)
{
	if (!x->p.captures && !x->o->refs)
		gt_doc_words(d, "- Not checked: the trace holds no shadow captures (record with "
		                "GPUTRACE_SHADOW=kernel-pattern) and no reference library was given (--shadow)\n");
	else if (!x->p.captures)
		gt_doc_words(d, "- Not checked: the trace holds no shadow captures to replay (record with "
		                "GPUTRACE_SHADOW=kernel-pattern)\n");
	else
		gt_doc_words(d, "- Not checked: the trace holds %llu captured launches, but no reference library was "
		                "given (--shadow refs.so)\n",
		             (unsigned long long)x->p.captures);
}

static void correctness(struct gt_doc *d, const struct gt_report *x)
{
	gt_doc_heading(d, 2, "Correctness");
	if (x->correctness < 0) {
		not_checked(d, x);
		return;
	}
	const struct gt_shadow_report *s = &x->sh;
	char tol[96];
	if (x->correctness > 0) {
		gt_doc_words(d, "- PASS: all %zu captured launches match their CPU reference (shadow replay, references "
		                "from ", s->n);
		gt_report_doc_code(d, x->o->refs);
		gt_doc_words(d, ")\n");
	} else {
		gt_doc_words(d, "- FAIL: %llu of %zu captured launches fail (%llu errors, %llu incomplete, %llu without a "
		                "reference); shadow replay with references from ",
		    (unsigned long long)s->count[GT_SHADOW_FAIL], s->n, (unsigned long long)s->count[GT_SHADOW_ERROR],
		    (unsigned long long)s->count[GT_SHADOW_INCOMPLETE], (unsigned long long)s->count[GT_SHADOW_NO_REF]);
		gt_report_doc_code(d, x->o->refs);
		gt_doc_words(d, "\n");
	}
	/* Per kernel, in order of first capture: its first launch that did not pass, else its first. */
	size_t shown = 0;
	const char *seen[12];
	for (size_t i = 0; i < s->n && shown < 12; i++) {
		/* a kernel seen before is one of those shown (each first launch is, up to 12): checked
		 * against them, not against every launch before (a million launches of two kernels) */
		int done = 0;
		for (size_t j = 0; j < shown && !done; j++)
			done = strcmp(seen[j], s->launches[i].kernel) == 0;
		if (done)
			continue;
		seen[shown] = s->launches[i].kernel;
		const struct gt_shadow_result *l = &s->launches[i];
		for (size_t j = i; j < s->n; j++) {
			if (strcmp(s->launches[j].kernel, l->kernel) == 0 && s->launches[j].status != GT_SHADOW_PASS) {
				l = &s->launches[j];
				break;
			}
		}
		shown++;
		gt_doc_words(d, "  - ");
		gt_report_doc_code(d, l->demangled ? l->demangled : l->kernel);
		gt_doc_words(d, " launch %u: %s", l->launch_index, gt_shadow_status_name(l->status));
		if (l->status == GT_SHADOW_PASS) {
			const struct gt_ref_output *o = first_output(l);
			if (o) {
				gt_doc_words(d, " (output ");
				gt_doc_prose(d, o->name ? o->name : "0");
				gt_doc_words(d, " within %s)", gt_tol_describe(&o->tol, tol, sizeof tol));
			}
		} else {
			gt_doc_words(d, ": ");
			gt_doc_prose(d, l->why);
			for (unsigned k = 0; k < l->noutputs; k++) {
				const struct gt_compare_result *c = &l->outputs[k].cmp;
				if (!c->has_worst || gt_compare_passed(c))
					continue;
				gt_doc_words(d, "; worst element of ");
				gt_doc_prose(d, l->outputs[k].decl && l->outputs[k].decl->name ? l->outputs[k].decl->name : "output");
				gt_doc_words(d, ": index %llu, GPU %.9g, reference %.9g, |error| %.3g, ",
				    (unsigned long long)c->worst.index, c->worst.gpu, c->worst.ref, c->worst.abs_err);
				if (c->worst.ulps == GT_ULP_INFINITE)
					gt_doc_words(d, "NaN or infinity");
				else
					gt_doc_words(d, "%llu ULP", (unsigned long long)c->worst.ulps);
				break;
			}
		}
		gt_doc_words(d, "\n");
	}
	if (x->sh.info.captures_dropped)
		gt_doc_words(d, "- %llu launches were not captured (caps, memory not copyable): they are not checked\n",
		    (unsigned long long)x->sh.info.captures_dropped);
}

/* ---- the whole ------------------------------------------------------------------------------ */

static void fill(struct gt_doc *d, const struct gt_report *x, const struct gt_report_figures *f)
{
	title(d, x);
	hardware(d, x);
	toolkit(d, x);
	clocks(d, x);
	sizes(d, x);
	method(d, x);
	correctness(d, x);
	gt_report_doc_result(d, x, f);
	gt_report_doc_compared(d, x);
	gt_report_doc_limitations(d, x);
}

int gt_report_doc(struct gt_doc *d, const char *path, const struct gt_report_options *o,
                  const struct gt_report_figure_options *fo, struct gt_report_result *res)
{
	struct gt_report x;
	struct gt_report_figures f;
	memset(res, 0, sizeof *res);
	memset(&f, 0, sizeof f);
	/* The figures before the report: a figure that cannot be written fails it whole. */
	int rc = gt_report_run(&x, path, o);
	res->correctness = x.correctness;
	res->compared = x.compared;
	res->slower = x.slower;
	if (!rc && (rc = gt_report_figures_write(&x, fo, &f)) == 0) {
		res->figures = f.kernels[0] || f.split[0];
		fill(d, &x, &f);
	}
	gt_report_release(&x);
	return rc;
}

/* report.c: the Markdown benchmark report and its figures (report.h).
 *
 * One pass collects what no other engine keeps (every kernel's durations with their launch
 * configurations, the clock samples' ranges, copy sizes, capture and drop counts) and feeds every
 * record to split.c and findings.c (which feeds bandwidth.c and hands its results over) through
 * their per-record interfaces, so the trace is read once; shadow.c and diff.c, when asked for,
 * read their own inputs. Everything from the trace that goes into the Markdown (names, metadata,
 * the NVTX range's name) is escaped by escape.h's Markdown rules, through md() and code() and the
 * tables; our own words are written as they are.
 */
#include "analyze/engines/report.h"

#include "analyze/engines/bandwidth.h"
#include "analyze/support/failure.h"
#include "analyze/output/escape.h"
#include "analyze/engines/findings.h"
#include "analyze/support/load.h"
#include "analyze/output/output.h"
#include "analyze/engines/samples.h"
#include "analyze/shadow/shadow.h"
#include "analyze/engines/split.h"
#include "common/stats.h"
#include "analyze/output/svg.h"
#include "analyze/support/units.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_COPY_GROUPS 32
#define FIGURE_KERNELS 8

void gt_report_options_default(struct gt_report_options *o)
{
	memset(o, 0, sizeof *o);
	o->top = 10;
	gt_diff_options_default(&o->diff);
}

/* ---- the report's own pass ------------------------------------------------------------------- */

struct copy_group {
	int copy_kind, src_kind, dst_kind;
	uint64_t count, total;
	struct gt_growbuf bytes; /* uint64_t per copy */
};

struct pass {
	struct gt_samples ks;
	struct gt_split *split;  /* fed the same records: no engine reads the trace again */
	struct gt_findings *fd;  /* (and through it the bandwidth engine, which it feeds) */
	uint64_t nclock, clock_first, clock_last, throttled, busy;
	uint32_t sm_min, sm_max, mem_min, mem_max, t_min, t_max, p_min, p_max;
	uint64_t reasons;        /* union of the throttle reason bits seen */
	struct copy_group cg[MAX_COPY_GROUPS];
	size_t ncg;
	uint64_t copies, copies_other, memsets, memset_bytes;
	uint64_t captures, dropped, apis, nvtx;
	uint64_t uncounted;      /* DROPPED records of count 0: losses of unknown size */
};

static int pass_record(void *ctx, const struct gt_reader *r, const struct gt_event *ev)
{
	struct pass *p = ctx;
	int rc = gt_split_record(p->split, r, ev);
	if (rc || (rc = gt_findings_record(p->fd, r, ev)) != 0)
		return rc;
	switch (ev->type) {
	case GT_REC_KERNEL: return gt_samples_record(&p->ks, r, ev);
	case GT_REC_MEMCPY: {
		const struct gt_memcpy *m = &ev->u.memcpy;
		p->copies++;
		size_t i = 0;
		while (i < p->ncg && !(p->cg[i].copy_kind == m->copy_kind && p->cg[i].src_kind == m->src_kind &&
		                       p->cg[i].dst_kind == m->dst_kind))
			i++;
		if (i == p->ncg) {
			if (p->ncg == MAX_COPY_GROUPS) {
				p->copies_other++;
				return 0;
			}
			memset(&p->cg[i], 0, sizeof p->cg[i]);
			p->cg[i].copy_kind = m->copy_kind;
			p->cg[i].src_kind = m->src_kind;
			p->cg[i].dst_kind = m->dst_kind;
			p->ncg++;
		}
		struct copy_group *g = &p->cg[i];
		if (gt_growbuf_reserve(&g->bytes, (g->count + 1) * sizeof(uint64_t)))
			return GT_ERR_NOMEM;
		((uint64_t *)g->bytes.p)[g->count++] = m->bytes;
		g->total += m->bytes;
		return 0;
	}
	case GT_REC_MEMSET:
		p->memsets++;
		p->memset_bytes += ev->u.memset.bytes;
		return 0;
	case GT_REC_CLOCK_SAMPLE: {
		const struct gt_clock_sample *c = &ev->u.clock_sample;
		if (!p->nclock++) {
			p->sm_min = p->sm_max = c->sm_clock_mhz;
			p->mem_min = p->mem_max = c->mem_clock_mhz;
			p->t_min = p->t_max = c->temperature_c;
			p->p_min = p->p_max = c->power_mw;
			p->clock_first = p->clock_last = c->timestamp;
		}
#define RANGE(lo, hi, v) do { if ((v) < (lo)) (lo) = (v); if ((v) > (hi)) (hi) = (v); } while (0)
		RANGE(p->sm_min, p->sm_max, c->sm_clock_mhz);
		RANGE(p->mem_min, p->mem_max, c->mem_clock_mhz);
		RANGE(p->t_min, p->t_max, c->temperature_c);
		RANGE(p->p_min, p->p_max, c->power_mw);
		RANGE(p->clock_first, p->clock_last, c->timestamp);
#undef RANGE
		p->reasons |= c->throttle_reasons;
		if (c->throttle_reasons & GT_CLK_THROTTLING)
			p->throttled++;
		if (!(c->throttle_reasons & GT_CLK_GPU_IDLE))
			p->busy++;
		return 0;
	}
	case GT_REC_CAPTURE: p->captures++; return 0;
	case GT_REC_DROPPED:
		p->dropped += ev->u.dropped.count;
		p->uncounted += ev->u.dropped.count == 0;
		return 0;
	case GT_REC_API: p->apis++; return 0;
	case GT_REC_NVTX: p->nvtx++; return 0;
	default: return 0;
	}
}

static void pass_release(struct pass *p)
{
	gt_samples_release(&p->ks);
	for (size_t i = 0; i < p->ncg; i++)
		gt_growbuf_release(&p->cg[i].bytes);
}

/* ---- writing ---------------------------------------------------------------------------------- */

struct rep {
	FILE *f;
	const char *path;
	const struct gt_report_options *o;
	struct gt_report_result *res;
	struct gt_reader *r;     /* the trace's definitions (metadata, devices), read by the pass */
	struct pass p;
	struct gt_split split;
	int have_split;
	struct gt_bandwidth bw;
	int have_bw;
	struct gt_findings fd;
	int have_fd;
	struct gt_shadow_report sh;
	struct gt_refs *refs;
	int shadow_state;        /* -1 not checked, 0 failed, 1 passed */
	char shadow_why[200];    /* why not checked */
	struct gt_diff diff;
	int have_diff;
	const struct gt_kernel_sample **top; /* kernels by total time, descending */
	char **names;            /* their names as the report shows them (label()) */
	size_t ntop, nkernels;
	char fig_kernels[1024], fig_split[1024]; /* link targets, "" when not written */
	char fig_note[256];
};

static void say(struct rep *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Our own words and numbers, written as they are (they are Markdown); anything from the trace
 * (names, metadata, an NVTX range's name) goes through md() or code(), never through a %s here. */
static void say(struct rep *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(x->f, fmt, ap);
	va_end(ap);
}

static void md(struct rep *x, const char *s) { gt_esc_md(x->f, s ? s : ""); }
static void code(struct rep *x, const char *s) { gt_esc_md_code(x->f, s && *s ? s : "(none)"); }

static const char *meta(const struct rep *x, const char *key)
{
	const char *v = gt_reader_meta(x->r, key);
	return v && *v ? v : NULL;
}

/* "1.234 ms", "532.704 us", "832 ns": a duration given in ns, with three decimals. */
static const char *dur(double ns, char *buf, size_t len)
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

/* "6.82 MB", "5242 B": bytes, decimal (kB from 10 kB). */
static const char *bytes(double b, char *buf, size_t len) { return gt_bytes_text(b, 1e4, buf, len); }

/* A kernel's name for tables and figures: demangled, or without its parameter list and return
 * type when that is long (PyTorch's run to thousands of characters). Malloc'd; NULL: no memory. */
static char *label(const char *mangled, const char *display)
{
	if (strlen(display) <= 80)
		return strdup(display);
	return gt_kernel_base_name(mangled, display);
}

static int cmp_total(const void *a, const void *b)
{
	const struct gt_kernel_sample *x = *(const struct gt_kernel_sample *const *)a;
	const struct gt_kernel_sample *y = *(const struct gt_kernel_sample *const *)b;
	if (x->st.total != y->st.total)
		return x->st.total < y->st.total ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* ---- sections -------------------------------------------------------------------------------- */

static void title(struct rep *x)
{
	const char *prog = meta(x, "process.name");
	const char *base = strrchr(x->path, '/') ? strrchr(x->path, '/') + 1 : x->path;
	say(x, "# GPU benchmark report: ");
	md(x, prog ? prog : base);
	say(x, "\n\n");
	say(x, "Trace ");
	code(x, x->path);
	const char *when = meta(x, "process.start_utc"), *host = meta(x, "host.name");
	if (when) {
		say(x, ", recorded ");
		md(x, when);
	}
	if (host) {
		say(x, " on host ");
		code(x, host);
	}
	say(x, "; report by gpuanalyze %s.\n", GT_TOOL_VERSION);
	const char *syn = gt_load_synthetic(x->r);
	if (syn) {
		say(x, "\n> **SYNTHETIC trace** (META trace.synthetic = ");
		code(x, syn);
		say(x, "): written by a program, not recorded on a GPU. Its numbers describe no hardware.\n");
	}
	struct gt_tail t;
	gt_reader_tail(x->r, &t);
	if (!t.complete)
		say(x, "\n> **Incomplete trace**: it ends early (%llu bytes of an incomplete chunk lost); the "
		       "records after its last complete chunk are missing, an unknown number.\n",
		    (unsigned long long)t.lost_bytes);
}

static void hardware(struct rep *x)
{
	say(x, "\n## Hardware\n\n");
	size_t nd = gt_reader_device_count(x->r);
	if (!nd)
		say(x, "- GPU: not described in the trace (no DEVICE record)\n");
	for (size_t i = 0; i < nd; i++) {
		const char *name;
		const struct gt_device *d = gt_reader_device_at(x->r, i, &name);
		char uuid[64];
		gt_device_uuid_string(d, uuid, sizeof uuid);
		say(x, "- GPU %u: ", d->device_id);
		md(x, name && *name ? name : "(unnamed)");
		say(x, " (");
		if (*uuid) {
			code(x, uuid);
			say(x, ", ");
		}
		say(x, "compute %u.%u, %u SMs, %.1f GiB, max SM clock %u MHz, L2 %u KiB)", d->cc_major, d->cc_minor,
		    d->sm_count, (double)d->global_mem_bytes / (1024.0 * 1024 * 1024), d->sm_clock_khz / 1000,
		    d->l2_bytes / 1024);
		double mem = gt_device_peak_mem_bw(d), pcie = gt_device_peak_pcie_bw(d);
		say(x, "; memory %u MHz x %u bits", d->mem_clock_khz / 1000, d->mem_bus_width_bits);
		if (mem > 0)
			say(x, ", theoretical peak %.1f GB/s", mem / 1e9);
		if (d->pcie_gen)
			say(x, "; PCIe gen %u x%u (gen %u x%u at start)", d->pcie_gen, d->pcie_width, d->pcie_gen_current,
			    d->pcie_width_current);
		if (pcie > 0)
			say(x, ", theoretical peak %.1f GB/s per direction", pcie / 1e9);
		say(x, "\n");
	}
	const char *cpu = meta(x, "host.cpu"), *cpus = meta(x, "host.cpus"), *os = meta(x, "host.os"),
	           *kern = meta(x, "host.kernel");
	say(x, "- Host: ");
	md(x, cpu ? cpu : "CPU not recorded");
	if (cpus) {
		say(x, ", ");
		md(x, cpus);
		say(x, " CPUs");
	}
	if (os) {
		say(x, "; ");
		md(x, os);
	}
	if (kern) {
		say(x, "; ");
		md(x, kern);
	}
	say(x, "\n");
}

static void toolkit(struct rep *x)
{
	say(x, "\n## Toolkit\n\n");
	const char *drv = meta(x, "cuda.driver"), *api = meta(x, "cuda.driver_api"), *rt = meta(x, "cuda.runtime"),
	           *cupti = meta(x, "cupti.api_version");
	say(x, "- NVIDIA driver ");
	md(x, drv ? drv : "not recorded");
	say(x, " (CUDA driver API ");
	md(x, api ? api : "not recorded");
	say(x, "); CUDA runtime ");
	md(x, rt ? rt : "not recorded");
	say(x, "; CUPTI API ");
	md(x, cupti ? cupti : "not recorded");
	say(x, "\n- Recorder: gputrace ");
	md(x, meta(x, "tool.version") ? meta(x, "tool.version") : "?");
	if (meta(x, "tool.injected_by")) {
		say(x, ", injected by ");
		md(x, meta(x, "tool.injected_by"));
	}
	if (meta(x, "trace.activities")) {
		say(x, "; activities ");
		md(x, meta(x, "trace.activities"));
	}
	const char *lat = meta(x, "trace.latency_timestamps");
	if (lat)
		say(x, "; latency timestamps %s", strcmp(lat, "0") ? "on" : "off");
	say(x, "\n- Compiler and flags: not recorded in a trace; state them beside this report\n");
}

static void clocks(struct rep *x)
{
	const struct pass *p = &x->p;
	say(x, "\n## Clock state\n\n");
	if (!p->nclock) {
		say(x, "- Not sampled: the trace holds no NVML clock samples, so whether clocks moved during the "
		       "run is unknown\n");
		return;
	}
	char reasons[256];
	say(x, "- %llu %s over %.3f s (%llu while the GPU was busy): SM clock %u to %u MHz, memory clock %u "
	       "to %u MHz, %u to %u C, %.1f to %.1f W\n",
	    (unsigned long long)p->nclock, p->nclock == 1 ? "sample" : "samples",
	    (double)(p->clock_last - p->clock_first) / 1e9, (unsigned long long)p->busy,
	    p->sm_min, p->sm_max, p->mem_min, p->mem_max, p->t_min, p->t_max, p->p_min / 1000.0, p->p_max / 1000.0);
	if (p->throttled)
		say(x, "- Throttling in %llu of %llu samples: %s\n", (unsigned long long)p->throttled,
		    (unsigned long long)p->nclock, gt_clock_reasons_text(p->reasons & GT_CLK_THROTTLING, reasons, sizeof reasons));
	else if (p->reasons)
		say(x, "- No throttling reason in any sample (reasons seen: %s)\n",
		    gt_clock_reasons_text(p->reasons, reasons, sizeof reasons));
	else
		say(x, "- No throttling reason in any sample\n");
	say(x, "- Clocks locked: not recorded (nvidia-smi -lgc leaves no mark in a trace)\n");
}

static void sizes(struct rep *x)
{
	say(x, "\n## Sizes\n\n- Program: ");
	code(x, meta(x, "process.cmdline") ? meta(x, "process.cmdline") : "(not recorded)");
	say(x, "\n");
	char b1[32], b2[32], b3[32], b4[32];
	if (x->ntop) {
		say(x, "\nLaunch configurations of the top kernels:\n\n");
		const struct gt_column cols[] = {
			{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE },
			{ "launches", "launches", 0 }, { "grid", "grid", GT_COL_LEFT },
			{ "block", "block", GT_COL_LEFT },
			{ "smem", "shared memory (static + dynamic)", GT_COL_LEFT },
			{ "regs", "registers", 0 },
		};
		struct gt_table *t = gt_table_open(GT_FMT_MD, x->f, NULL, GT_COLUMNS(cols));
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
	const struct pass *p = &x->p;
	if (p->ncg) {
		say(x, "\nCopies (bytes per copy; decimal units):\n\n");
		const struct gt_column cols[] = {
			{ "copy", "copy", GT_COL_LEFT }, { "count", "count", 0 }, { "min", "min", 0 },
			{ "median", "median", 0 }, { "max", "max", 0 }, { "total", "total", 0 },
		};
		struct gt_table *t = gt_table_open(GT_FMT_MD, x->f, NULL, GT_COLUMNS(cols));
		if (!t)
			return;
		for (size_t i = 0; i < p->ncg; i++) {
			const struct copy_group *g = &p->cg[i];
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
			say(x, "\n(%llu more copies of other kinds)\n", (unsigned long long)p->copies_other);
	} else {
		say(x, "- Copies: none\n");
	}
	if (p->memsets)
		say(x, "%s- Memsets: %llu, %s in all\n", p->ncg ? "\n" : "", (unsigned long long)p->memsets,
		    bytes((double)p->memset_bytes, b1, sizeof b1));
}

static void split_mode_words(const struct gt_split *s, char *buf, size_t len)
{
	switch (s->mode) {
	case GT_SPLIT_NVTX: snprintf(buf, len, "instance of the NVTX range '%.100s'", s->range ? s->range : ""); break;
	case GT_SPLIT_SYNC: snprintf(buf, len, "interval between host synchronisations"); break;
	case GT_SPLIT_WINDOW: snprintf(buf, len, "recording window (GPUTRACE_WINDOW)"); break;
	default: snprintf(buf, len, "the whole process"); break;
	}
}

/* What a unit of work is, into the report: split_mode_words' words, with the range's name (the
 * trace's) escaped. */
static void say_units(struct rep *x, const struct gt_split *s)
{
	char w[160];
	if (s->mode != GT_SPLIT_NVTX) {
		split_mode_words(s, w, sizeof w);
		say(x, "%s", w);
		return;
	}
	say(x, "instance of the NVTX range '");
	md(x, s->range ? s->range : "");
	say(x, "'");
}

static void method(struct rep *x)
{
	const struct gt_samples *ks = &x->p.ks;
	say(x, "\n## Method\n\n");
	say(x, "- Timed: each kernel's GPU execution, end - start of its CUPTI activity record (the GPU's own "
	       "timestamps, ns); copies and memsets likewise; no host timer is involved\n");
	if (x->o->warmup)
		say(x, "- Warm-up: the first %llu launches of each kernel dropped, by start time, never by value "
		       "(%llu launches in all)%s\n",
		    (unsigned long long)x->o->warmup, (unsigned long long)ks->warmup_dropped,
		    x->have_split ? "; the first units of work likewise" : "");
	else
		say(x, "- Warm-up: none dropped (--warmup 0): first launches are in the statistics\n");
	say(x, "- Samples: %llu kernel launches counted of %llu recorded", (unsigned long long)(ks->kernel_records - ks->bad - ks->warmup_dropped),
	    (unsigned long long)ks->kernel_records);
	if (ks->bad)
		say(x, " (%llu with bad timestamps excluded)", (unsigned long long)ks->bad);
	say(x, "; n per kernel in the tables\n");
	say(x, "- Statistics: median; spread as MAD (median |x - median|; x1.4826 estimates a standard deviation); "
	       "tail as p90 and p99 (NumPy's 'linear' percentiles); gpuanalyze(1) defines each\n");
	if (x->have_split) {
		say(x, "- Units of work (end to end): each ");
		say_units(x, &x->split);
		say(x, ", %zu of them", x->split.nunits);
		if (x->split.warmup_dropped)
			say(x, " after %llu dropped as warm-up", (unsigned long long)x->split.warmup_dropped);
		say(x, "\n");
		if (x->split.windows)
			say(x, "- Recorded in windows: %llu, %.3f s of a %.3f s run (%.1f%%); nothing outside them "
			       "was recorded, and every figure here speaks for the windows only\n",
			    (unsigned long long)x->split.windows, (double)x->split.window_ns / 1e9,
			    (double)x->split.run_ns / 1e9,
			    x->split.run_ns ? 100.0 * (double)x->split.window_ns / (double)x->split.run_ns : 0.0);
	}
	struct gt_tail t;
	gt_reader_tail(x->r, &t);
	if (x->p.dropped || x->p.uncounted || !t.complete)
		say(x, "- Records lost: %llu dropped%s%s; see Findings\n", (unsigned long long)x->p.dropped,
		    x->p.uncounted ? ", and more of unknown number" : "", t.complete ? "" : ", and the trace ends early");
	else
		say(x, "- Records lost: none (no DROPPED record, the trace ends with its END record)\n");
}

static const struct gt_ref_output *first_output(const struct gt_shadow_result *l)
{
	return l->noutputs ? l->outputs[0].decl : NULL;
}

static void correctness(struct rep *x)
{
	say(x, "\n## Correctness\n\n");
	if (x->shadow_state < 0) {
		say(x, "- Not checked: %s\n", x->shadow_why);
		return;
	}
	const struct gt_shadow_report *s = &x->sh;
	char tol[96];
	if (x->shadow_state > 0) {
		say(x, "- PASS: all %zu captured launches match their CPU reference (shadow replay, references from ", s->n);
		code(x, x->o->refs);
		say(x, ")\n");
	} else {
		say(x, "- FAIL: %llu of %zu captured launches fail (%llu errors, %llu incomplete, %llu without a "
		       "reference); shadow replay with references from ",
		    (unsigned long long)s->count[GT_SHADOW_FAIL], s->n, (unsigned long long)s->count[GT_SHADOW_ERROR],
		    (unsigned long long)s->count[GT_SHADOW_INCOMPLETE], (unsigned long long)s->count[GT_SHADOW_NO_REF]);
		code(x, x->o->refs);
		say(x, "\n");
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
		say(x, "  - ");
		code(x, l->demangled ? l->demangled : l->kernel);
		say(x, " launch %u: %s", l->launch_index, gt_shadow_status_name(l->status));
		if (l->status == GT_SHADOW_PASS) {
			const struct gt_ref_output *o = first_output(l);
			if (o) {
				say(x, " (output ");
				md(x, o->name ? o->name : "0");
				say(x, " within %s)", gt_tol_describe(&o->tol, tol, sizeof tol));
			}
		} else {
			say(x, ": ");
			md(x, l->why);
			for (unsigned k = 0; k < l->noutputs; k++) {
				const struct gt_compare_result *c = &l->outputs[k].cmp;
				if (!c->has_worst || gt_compare_passed(c))
					continue;
				say(x, "; worst element of ");
				md(x, l->outputs[k].decl && l->outputs[k].decl->name ? l->outputs[k].decl->name : "output");
				say(x, ": index %llu, GPU %.9g, reference %.9g, |error| %.3g, ",
				    (unsigned long long)c->worst.index, c->worst.gpu, c->worst.ref, c->worst.abs_err);
				if (c->worst.ulps == GT_ULP_INFINITE)
					say(x, "NaN or infinity");
				else
					say(x, "%llu ULP", (unsigned long long)c->worst.ulps);
				break;
			}
		}
		say(x, "\n");
	}
	if (x->sh.info.captures_dropped)
		say(x, "- %llu launches were not captured (caps, memory not copyable): they are not checked\n",
		    (unsigned long long)x->sh.info.captures_dropped);
}

static int kernels_table(struct rep *x)
{
	const struct gt_column cols[] = {
		{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE }, { "n", "n", 0 },
		{ "median", "median us", 0 }, { "mad", "MAD us", 0 }, { "p90", "p90 us", 0 },
		{ "p99", "p99 us", 0 }, { "total", "total ms", 0 }, { "share", "share %", 0 },
	};
	struct gt_table *t = gt_table_open(GT_FMT_MD, x->f, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	double all = 0;
	for (size_t i = 0; i < x->p.ks.nkernels; i++)
		all += x->p.ks.kernels[i].st.total;
	for (size_t i = 0; i < x->ntop; i++) {
		const struct gt_kernel_sample *k = x->top[i];
		gt_table_str(t, x->names[i]);
		gt_table_u64(t, k->n);
		gt_table_num(t, k->st.median / 1e3, 3);
		gt_table_num(t, k->st.mad / 1e3, 3);
		gt_table_num(t, k->st.p90 / 1e3, 3);
		gt_table_num(t, k->st.p99 / 1e3, 3);
		gt_table_num(t, k->st.total / 1e6, 3);
		gt_table_num(t, all > 0 ? 100 * k->st.total / all : NAN, 1);
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

static int split_table(struct rep *x)
{
	const struct gt_split *s = &x->split;
	const struct gt_column cols[] = {
		{ "what", "per unit", GT_COL_LEFT }, { "median", "median", 0 }, { "mad", "MAD", 0 },
		{ "p90", "p90", 0 }, { "p99", "p99", 0 },
	};
	struct gt_table *t = gt_table_open(GT_FMT_MD, x->f, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	char b[4][32];
	for (int m = 0; m < GT_M_COUNT; m++) {
		const struct gt_stats *st = &s->st[m];
		if (!st->n || (m != GT_M_WALL && m != GT_M_KERNEL && m != GT_M_IDLE && !(st->total > 0)))
			continue;
		gt_table_str(t, gt_split_metric_title((enum gt_split_metric)m));
		gt_table_str(t, dur(st->median, b[0], sizeof b[0]));
		gt_table_str(t, dur(st->mad, b[1], sizeof b[1]));
		gt_table_str(t, dur(st->p90, b[2], sizeof b[2]));
		gt_table_str(t, dur(st->p99, b[3], sizeof b[3]));
		gt_table_end_row(t);
	}
	return gt_table_close(t);
}

static int bandwidth_table(struct rep *x)
{
	const struct gt_bandwidth *b = &x->bw;
	const struct gt_column cols[] = {
		{ "copy", "copy", GT_COL_LEFT }, { "memory", "memory", GT_COL_LEFT },
		{ "size", "size", GT_COL_LEFT }, { "count", "count", 0 },
		{ "median", "median GB/s", 0 }, { "theory", "% of theoretical peak", 0 },
		{ "measured", "% of measured peak", 0 },
	};
	struct gt_table *t = gt_table_open(GT_FMT_MD, x->f, NULL, GT_COLUMNS(cols));
	if (!t)
		return GT_ERR_NOMEM;
	/* The groups that took the most time first, at most ten. */
	size_t n = b->ngroups, *ord = malloc((n ? n : 1) * sizeof *ord);
	if (!ord) {
		gt_table_free(t);
		return GT_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && b->groups[ord[j]].time_ns > b->groups[ord[j - 1]].time_ns; j--) {
			size_t tmp = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = tmp;
		}
	for (size_t i = 0; i < n && i < 10; i++) {
		const struct gt_bw_group *g = &b->groups[ord[i]];
		gt_table_str(t, gt_copy_kind_name(g->copy_kind));
		gt_table_str(t, g->memory);
		gt_table_str(t, gt_bw_bucket_name(g->bucket));
		gt_table_u64(t, g->count);
		gt_table_num(t, g->median, 2);
		gt_table_num(t, g->pct_theory, 1);
		gt_table_num(t, g->pct_measured, 1);
		gt_table_end_row(t);
	}
	free(ord);
	int rc = gt_table_close(t);
	if (n > 10)
		say(x, "\n(%zu more groups: gpuanalyze bandwidth lists them all)\n", n - 10);
	return rc;
}

static void findings(struct rep *x)
{
	const struct gt_findings *F = &x->fd;
	char c[32];
	size_t infos = 0;
	for (size_t i = 0; i < F->n; i++) {
		const struct gt_finding *f = &F->f[i];
		if (f->severity == GT_SEV_INFO) {
			infos++;
			continue;
		}
		say(x, "- **%s** %s: ", gt_severity_name(f->severity), f->id);
		md(x, f->what);
		size_t wl = f->what ? strlen(f->what) : 0;
		if (wl && f->what[wl - 1] != '.')
			say(x, ".");
		if (f->where) {
			say(x, " Where: ");
			md(x, f->where);
			say(x, ".");
		}
		if (!isnan(f->cost_ns)) {
			say(x, " Cost: %s (", dur(f->cost_ns, c, sizeof c));
			md(x, f->cost_how);
			say(x, ").");
		}
		if (f->todo) {
			say(x, " To do: ");
			md(x, f->todo);
		}
		say(x, "\n");
	}
	if (!F->n)
		say(x, "- None: no rule of gpuanalyze findings fired\n");
	else if (infos == F->n)
		say(x, "- No warning or error; %zu %s of severity info (gpuanalyze findings lists them)\n", infos,
		    infos == 1 ? "finding" : "findings");
	else if (infos)
		say(x, "- %zu more of severity info: gpuanalyze findings lists them\n", infos);
}

static void result(struct rep *x)
{
	char b1[32], b2[32], b3[32], b4[32];
	say(x, "\n## Result\n\n");
	if (x->ntop) {
		const struct gt_kernel_sample *k = x->top[0];
		say(x, "- Kernel with the most GPU time: ");
		code(x, x->names[0]);
		say(x, ", median %s (MAD %s, p90 %s, p99 %s; n = %zu)\n", dur(k->st.median, b1, sizeof b1),
		    dur(k->st.mad, b2, sizeof b2), dur(k->st.p90, b3, sizeof b3), dur(k->st.p99, b4, sizeof b4), k->n);
	} else {
		say(x, "- No kernel launch counted\n");
	}
	if (x->have_split && x->split.nunits) {
		const struct gt_split *s = &x->split;
		say(x, "- End to end per ");
		say_units(x, s);
		say(x, ": median %s, of which GPU kernels %s, GPU idle %s (medians over %zu units)\n",
		    dur(s->st[GT_M_WALL].median, b1, sizeof b1), dur(s->st[GT_M_KERNEL].median, b2, sizeof b2),
		    dur(s->st[GT_M_IDLE].median, b3, sizeof b3), s->nunits);
	}
	say(x, "\n### Kernels\n\n");
	if (x->ntop) {
		say(x, "Top %zu of %zu %s by total GPU time (long names without their parameter lists):\n\n", x->ntop, x->nkernels, x->nkernels == 1 ? "kernel" : "kernels");
		kernels_table(x);
		if (x->fig_kernels[0])
			say(x, "\n![GPU durations per launch of the top kernels](%s)\n", x->fig_kernels);
	} else {
		say(x, "- None\n");
	}
	say(x, "\n### End to end\n\n");
	if (x->have_split && x->split.nunits) {
		say(x, "Per ");
		say_units(x, &x->split);
		say(x, " (gpuanalyze split defines each quantity; kernel and copy times are unions, so "
		       "concurrent work counts once):\n\n");
		split_table(x);
		if (x->fig_split[0])
			say(x, "\n![Each unit's wall time: GPU kernels, other GPU work, GPU idle](%s)\n\nIn the figure each "
			       "bar is one unit's wall time: GPU kernels (the union of kernel intervals), other GPU work (copies "
			       "and memsets while no kernel ran) and GPU idle.\n",
			    x->fig_split);
	} else {
		say(x, "- Not available: the trace has no unit of work to split\n");
	}
	say(x, "\n### Copy bandwidth\n\n");
	if (x->have_bw && x->bw.ngroups) {
		say(x, "Bytes / duration per copy, decimal GB/s, bytes counted once; median per group against the "
		       "device's theoretical peak%s:\n\n",
		    x->bw.peaks_file && !x->bw.peaks_missing ? " and the measured one (gputrace peak)" : " (no measured peak was found: gputrace peak stores one)");
		bandwidth_table(x);
	} else {
		say(x, "- No copies with a rate\n");
	}
	say(x, "\n### Findings\n\n");
	if (x->have_fd)
		findings(x);
	if (x->fig_note[0])
		say(x, "\n%s\n", x->fig_note);
}

static void compared(struct rep *x)
{
	if (!x->o->baseline)
		return;
	char b1[32], b2[32], ch[64];
	say(x, "\n## Compared with the baseline\n\n- Baseline: ");
	code(x, x->o->baseline);
	say(x, "\n");
	if (x->shadow_state == 0) {
		say(x, "- Not compared: correctness FAILED (see Correctness). A fast wrong answer is not a speedup, "
		       "so none is stated.\n");
		return;
	}
	const struct gt_diff *d = &x->diff;
	if (x->shadow_state < 0)
		say(x, "- Correctness not checked: what follows compares speed only\n");
	say(x, "- %zu kernels on both sides: %zu SLOWER, %zu UNCLEAR, %zu FASTER, %zu SAME; %zu only in the "
	       "baseline, %zu only in this trace\n",
	    d->nboth, d->count[GT_VERDICT_SLOWER], d->count[GT_VERDICT_UNCLEAR], d->count[GT_VERDICT_FASTER],
	    d->count[GT_VERDICT_SAME], d->nbase_only, d->nnew_only);
	if (d->geo_k)
		say(x, "- Geometric mean over %zu kernels: %s (speedup old/new %.4f, 95%% CI [%.3f, %.3f]): %s\n", d->geo_k,
		    gt_diff_change(d->geo_speedup, ch, sizeof ch), d->geo_speedup, d->geo_lo, d->geo_hi,
		    gt_verdict_name(d->geo_verdict));
	say(x, "- Rule: speedup = median baseline / median this trace; SLOWER when the whole 95%% bootstrap CI of "
	       "new/old is above %.4g and Mann-Whitney p < %g, FASTER likewise for old/new, SAME when the CI "
	       "lies within [%.4f, %.4g]; UNCLEAR otherwise or with fewer than %zu launches (gpuanalyze diff)\n",
	    1 + d->opt.threshold, d->opt.alpha, 1 / (1 + d->opt.threshold), 1 + d->opt.threshold, d->opt.min_samples);
	say(x, "\n");
	const struct gt_column cols[] = {
		{ "verdict", "verdict", GT_COL_LEFT },
		{ "kernel", "kernel", GT_COL_LEFT | GT_COL_CODE }, { "nb", "n base", 0 },
		{ "nn", "n new", 0 }, { "mb", "base median", 0 }, { "mn", "new median", 0 },
		{ "change", "change", GT_COL_LEFT }, { "ci", "old/new 95% CI", GT_COL_LEFT },
	};
	struct gt_table *t = gt_table_open(GT_FMT_MD, x->f, NULL, GT_COLUMNS(cols));
	if (!t)
		return;
	size_t shown = 0;
	for (size_t i = 0; i < d->nrows && shown < x->o->top + 6; i++) {
		const struct gt_diff_row *r = &d->rows[i];
		if (r->side != GT_DIFF_BOTH)
			continue;
		char ci[64];
		if (isnan(r->ci.lo))
			snprintf(ci, sizeof ci, "n/a");
		else
			snprintf(ci, sizeof ci, "[%.3f, %.3f]", r->ci.lo, r->ci.hi);
		char *nm = label(r->name, r->display);
		gt_table_str(t, gt_verdict_name(r->verdict));
		gt_table_str(t, nm ? nm : r->display);
		free(nm);
		gt_table_u64(t, r->base->n);
		gt_table_u64(t, r->new->n);
		gt_table_str(t, dur(r->base->st.median, b1, sizeof b1));
		gt_table_str(t, dur(r->new->st.median, b2, sizeof b2));
		gt_table_str(t, gt_diff_change(r->speedup, ch, sizeof ch));
		gt_table_str(t, ci);
		gt_table_end_row(t);
		shown++;
	}
	gt_table_close(t);
	size_t both = d->nboth + d->nunit_rows;
	if (shown < both)
		say(x, "\n(%zu more rows: gpuanalyze diff lists them all)\n", both - shown);
}

static void limitations(struct rep *x)
{
	say(x, "\n## Limitations\n\n");
	say(x, "- One recording: the run-to-run spread between separate runs is not measured here (record "
	       "several runs and compare them with gpuanalyze diff)\n");
	if (gt_load_synthetic(x->r))
		say(x, "- The trace is synthetic: no number in it was measured on a GPU\n");
	struct gt_tail t;
	gt_reader_tail(x->r, &t);
	if (x->p.dropped || x->p.uncounted || !t.complete)
		say(x, "- Records are missing (%llu dropped%s%s): counts and totals are lower bounds\n",
		    (unsigned long long)x->p.dropped, x->p.uncounted ? ", more of unknown number" : "",
		    t.complete ? "" : ", the trace ends early");
	if (!x->p.nclock)
		say(x, "- Clock state unknown (not sampled): a clock that moved during the run would move these "
		       "numbers unseen\n");
	else if (x->p.throttled || x->p.sm_max > x->p.sm_min)
		say(x, "- Clocks moved during the run (SM %u to %u MHz%s): durations measured at different clocks are "
		       "mixed\n",
		    x->p.sm_min, x->p.sm_max, x->p.throttled ? ", with throttling" : "");
	if (x->shadow_state < 0)
		say(x, "- Correctness not checked: the timings say nothing about whether the results are right\n");
	size_t few = 0;
	for (size_t i = 0; i < x->ntop; i++)
		few += x->top[i]->n < 10;
	if (few)
		say(x, "- %zu of the top kernels have fewer than 10 launches counted: their medians and "
		       "percentiles are rough\n",
		    few);
	if (!x->o->warmup)
		say(x, "- No warm-up dropped: first launches (module load, cold caches, clock ramp) are in the "
		       "statistics\n");
	say(x, "- Timed under tracing: GPU durations are the GPU's own timestamps, but host-side API times and "
	       "gaps include the recorder's cost per call\n");
	if (x->have_bw && x->bw.ngroups)
		say(x, "- Bandwidth percentages are of theoretical peaks%s\n",
		    x->bw.peaks_file && !x->bw.peaks_missing ? " and of the stored measured peak" : " only");
	say(x, "- Compiler, flags and problem sizes inside the program are not in the trace beyond the launch "
	       "configurations and copy sizes above\n");
}

/* ---- figures --------------------------------------------------------------------------------- */

/* Opens a figure for writing, replacing only a regular file: a symbolic link, a FIFO or a device
 * node at the name is left alone (NULL, one line held saying why). O_NONBLOCK keeps a FIFO from
 * blocking the open; the file is emptied only once it is known to be a regular one. */
static FILE *open_figure(const char *file)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno == ELOOP)
			gt_fail(GT_ERR_IO, "cannot write '%s': it is a symbolic link, which a figure never replaces",
			        file);
		else if (errno == ENXIO)
			gt_fail(GT_ERR_IO, "cannot write '%s': it is a FIFO, which a figure never replaces", file);
		else
			gt_fail(GT_ERR_IO, "cannot write '%s': %s", file, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		gt_fail(GT_ERR_IO, "cannot write '%s': it exists and is not a regular file, which a figure "
		        "never replaces", file);
		close(fd);
		return NULL;
	}
	FILE *f = NULL;
	if (ftruncate(fd, 0) != 0 || !(f = fdopen(fd, "w"))) {
		gt_fail(GT_ERR_IO, "cannot write '%s': %s", file, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

static int write_figure_kernels(struct rep *x, const char *file)
{
	size_t n = x->ntop < FIGURE_KERNELS ? x->ntop : FIGURE_KERNELS;
	if (!n)
		return 0;
	struct gt_svg_series s[FIGURE_KERNELS];
	double *vals[FIGURE_KERNELS] = { 0 };
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct gt_kernel_sample *k = x->top[i];
		if (!(vals[i] = malloc((k->n ? k->n : 1) * sizeof **vals)))
			rc = GT_ERR_NOMEM;
		for (size_t j = 0; j < k->n && !rc; j++)
			vals[i][j] = (double)k->dur[j] / 1e3;
		s[i] = (struct gt_svg_series){ x->names[i], vals[i], k->n };
	}
	if (!rc) {
		FILE *f = open_figure(file);
		if (!f) {
			rc = GT_ERR_IO;
		} else {
			rc = gt_svg_durations(f, "GPU duration per launch, top kernels", "us", s, n);
			if (fclose(f) != 0 && !rc)
				rc = GT_ERR_IO;
			if (rc == GT_ERR_IO)
				rc = gt_fail(rc, "cannot write '%s': %s", file, strerror(errno));
		}
	}
	for (size_t i = 0; i < n; i++)
		free(vals[i]);
	return rc;
}

static int write_figure_split(struct rep *x, const char *file)
{
	const struct gt_split *s = &x->split;
	if (s->nunits < 2)
		return 0;
	static const struct gt_svg_part parts[3] = {
		{ "GPU kernels", "#4477aa" },
		{ "other GPU work", "#ee9944" },
		{ "GPU idle", "#cccccc" },
	};
	double *v = malloc(s->nunits * 3 * sizeof *v);
	uint64_t *idx = malloc(s->nunits * sizeof *idx);
	int rc = 0;
	if (!v || !idx) {
		rc = GT_ERR_NOMEM;
		goto out;
	}
	double scale = s->st[GT_M_WALL].median >= 1e6 ? 1e6 : 1e3;
	for (size_t i = 0; i < s->nunits; i++) {
		const double *m = s->units[i].v;
		double wall = m[GT_M_WALL], idle = isnan(m[GT_M_IDLE]) ? 0 : m[GT_M_IDLE];
		double kern = isnan(m[GT_M_KERNEL]) ? 0 : m[GT_M_KERNEL];
		double busy = fmax(wall - idle, 0);
		v[3 * i] = kern / scale;
		v[3 * i + 1] = fmax(busy - kern, 0) / scale;
		v[3 * i + 2] = idle / scale;
		idx[i] = s->units[i].index;
	}
	char xl[160], w[160];
	split_mode_words(s, w, sizeof w);
	snprintf(xl, sizeof xl, "unit (%.140s), by start", w);
	FILE *f = open_figure(file);
	if (!f) {
		rc = GT_ERR_IO;
		goto out;
	}
	rc = gt_svg_stacked(f, "Where each unit's wall time goes", xl, scale == 1e6 ? "ms" : "us", parts, 3, v,
	                    s->nunits, idx);
	if (fclose(f) != 0 && !rc)
		rc = GT_ERR_IO;
	if (rc == GT_ERR_IO)
		rc = gt_fail(rc, "cannot write '%s': %s", file, strerror(errno));
out:
	free(v);
	free(idx);
	return rc;
}

static int figures(struct rep *x)
{
	const struct gt_report_options *o = x->o;
	if (!o->figures) {
		if (o->no_figures)
			snprintf(x->fig_note, sizeof x->fig_note, "Figures: not written (%s)", o->no_figures);
		else
			snprintf(x->fig_note, sizeof x->fig_note,
			         "Figures: not written (the report went to standard output; with -o REPORT.md they "
			         "are written as REPORT-kernels.svg and REPORT-split.svg beside it)");
		return 0;
	}
	char file[1024];
	const char *link = o->link_prefix ? o->link_prefix : o->figures;
	snprintf(file, sizeof file, "%s-kernels.svg", o->figures);
	int rc = write_figure_kernels(x, file);
	if (rc)
		return rc;
	if (x->ntop)
		snprintf(x->fig_kernels, sizeof x->fig_kernels, "%s-kernels.svg", link);
	if (x->have_split && x->split.nunits >= 2) {
		snprintf(file, sizeof file, "%s-split.svg", o->figures);
		if ((rc = write_figure_split(x, file)) != 0)
			return rc;
		snprintf(x->fig_split, sizeof x->fig_split, "%s-split.svg", link);
	}
	x->res->figures = x->fig_kernels[0] || x->fig_split[0];
	return 0;
}

/* ---- the run ------------------------------------------------------------------------------ */

static int engines(struct rep *x)
{
	const struct gt_report_options *o = x->o;
	int rc;
	/* Correctness: only from captures and a reference library; never assumed. */
	x->shadow_state = -1;
	if (!x->p.captures && !o->refs)
		snprintf(x->shadow_why, sizeof x->shadow_why,
		         "the trace holds no shadow captures (record with GPUTRACE_SHADOW=kernel-pattern) and no "
		         "reference library was given (--shadow)");
	else if (!x->p.captures)
		snprintf(x->shadow_why, sizeof x->shadow_why,
		         "the trace holds no shadow captures to replay (record with GPUTRACE_SHADOW=kernel-pattern)");
	else if (!o->refs)
		snprintf(x->shadow_why, sizeof x->shadow_why,
		         "the trace holds %llu captured launches, but no reference library was given (--shadow refs.so)",
		         (unsigned long long)x->p.captures);
	else {
		char err[512];
		if ((rc = gt_refs_load(&x->refs, o->refs, err, sizeof err)) != 0)
			return gt_fail(rc, "cannot load references '%s': %s", o->refs, err);
		if ((rc = gt_shadow_run(x->path, x->refs, NULL, &x->sh)) != 0)
			return rc;
		x->shadow_state = gt_shadow_all_passed(&x->sh) ? 1 : 0;
	}
	x->res->correctness = x->shadow_state;
	if (o->baseline && x->shadow_state != 0) {
		struct gt_diff_options d = o->diff;
		d.warmup = o->warmup;
		d.filter = NULL;
		x->have_diff = 1;
		if ((rc = gt_diff_run(&x->diff, o->baseline, x->path, &d)) != 0)
			return rc;
		x->res->compared = 1;
		x->res->slower = x->diff.count[GT_VERDICT_SLOWER] + x->diff.ucount[GT_VERDICT_SLOWER];
	}
	return 0;
}

static int report_write(FILE *out, const char *path, const struct gt_report_options *o,
                        struct gt_report_result *res)
{
	struct rep x;
	memset(&x, 0, sizeof x);
	memset(res, 0, sizeof *res);
	res->correctness = -1;
	x.f = out;
	x.path = path;
	x.o = o;
	x.res = res;
	x.shadow_state = -1;
	int rc = gt_samples_init(&x.p.ks, o->warmup, GT_SAMPLES_WANT_CONFIGS);
	if (rc)
		return rc;
	/* Split, findings and bandwidth are fed the report's own pass: the trace is read once. Each
	 * engine's result is released whether or not its pass finished. */
	struct gt_split_options so = { .range = NULL, .warmup = o->warmup };
	x.have_split = x.have_bw = x.have_fd = 1;
	x.p.split = &x.split;
	x.p.fd = &x.fd;
	if ((rc = gt_bw_init(&x.bw, path, NULL)) != 0 || (rc = gt_split_begin(&x.split, path, &so)) != 0 ||
	    (rc = gt_findings_begin(&x.fd, path, NULL, &x.bw)) != 0)
		goto done;
	if ((rc = gt_load_open(&x.r, path)) != 0)
		goto done;
	/* Findings first: it frees its working arrays before split builds its units (a lower peak). */
	if ((rc = gt_load_stream(x.r, pass_record, &x.p)) != 0 || (rc = gt_findings_finish(&x.fd, x.r)) != 0 ||
	    (rc = gt_split_finish(&x.split, x.r)) != 0)
		goto done;
	if ((rc = gt_samples_file_end(&x.p.ks, x.r)) != 0 || (rc = gt_samples_finish(&x.p.ks, NULL)) != 0)
		goto done;
	x.nkernels = x.p.ks.nkernels;
	if (!(x.top = malloc((x.nkernels ? x.nkernels : 1) * sizeof *x.top))) {
		rc = GT_ERR_NOMEM;
		goto done;
	}
	for (size_t i = 0; i < x.nkernels; i++)
		x.top[i] = &x.p.ks.kernels[i];
	qsort(x.top, x.nkernels, sizeof *x.top, cmp_total);
	x.ntop = x.nkernels < o->top ? x.nkernels : o->top;
	if (!(x.names = calloc(x.ntop ? x.ntop : 1, sizeof *x.names))) {
		rc = GT_ERR_NOMEM;
		goto done;
	}
	for (size_t i = 0; i < x.ntop; i++) {
		if (!(x.names[i] = label(x.top[i]->name, x.top[i]->display))) {
			rc = GT_ERR_NOMEM;
			goto done;
		}
	}
	if ((rc = engines(&x)) != 0 || (rc = figures(&x)) != 0)
		goto done;
	title(&x);
	hardware(&x);
	toolkit(&x);
	clocks(&x);
	sizes(&x);
	method(&x);
	correctness(&x);
	result(&x);
	compared(&x);
	limitations(&x);
	rc = ferror(out) ? GT_ERR_IO : 0;
done:
	for (size_t i = 0; x.names && i < x.ntop; i++)
		free(x.names[i]);
	free(x.names);
	free(x.top);
	if (x.have_split)
		gt_split_release(&x.split);
	if (x.have_bw)
		gt_bandwidth_release(&x.bw);
	if (x.have_fd)
		gt_findings_release(&x.fd);
	if (x.refs) {
		gt_shadow_report_release(&x.sh);
		gt_refs_free(x.refs);
	}
	if (x.have_diff)
		gt_diff_release(&x.diff);
	pass_release(&x.p);
	gt_reader_close(x.r);
	return rc;
}

/* A failure whose words are held (failure.h) comes back as GT_ERR_IO, the code that a write error
 * on out has too: the caller has nothing to add to either (report's printer leaves GT_ERR_IO to the
 * output's close, and the runner says the held words). */
int gt_report_write(FILE *out, const char *path, const struct gt_report_options *o, struct gt_report_result *res)
{
	int rc = report_write(out, path, o, res);
	return rc < 0 && gt_failed() ? GT_ERR_IO : rc;
}

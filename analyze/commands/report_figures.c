/* report_figures.c: the report's two SVG figures (report_doc.h), written beside the report
 * through svg.h: REPORT-kernels.svg, each top kernel's GPU duration per launch; REPORT-split.svg,
 * each unit's wall time as GPU kernels, other GPU work and GPU idle. Each figure replaces only a
 * regular file, and only when the report succeeds (open_figure). Where there is no place for them, a note for the report says why.
 */
#include "analyze/commands/report_doc.h"

#include "analyze/output/svg.h"
#include "analyze/support/kname.h"
#include "analyze/support/diag.h"
#include "analyze/support/outfile.h"
#include "traces/gputrace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FIGURE_KERNELS 8

/* Opens a figure for writing, replacing only a regular file: a symbolic link, a FIFO or a device
 * node at the name is left alone (one line, the report's input-error status). The figure is
 * written to a temporary file that replaces the old one only when the report succeeds (outfile.h). */
static FILE *open_figure(const char *file)
{
	struct stat st;
	if (lstat(file, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISLNK(st.st_mode))
			gt_error("cannot write '%s': it is a symbolic link, which a figure never replaces", file);
		else if (S_ISFIFO(st.st_mode))
			gt_error("cannot write '%s': it is a FIFO, which a figure never replaces", file);
		else
			gt_error("cannot write '%s': it exists and is not a regular file, which a figure never "
			         "replaces", file);
		return NULL;
	}
	return gt_output_open(file);
}

/* Closes a figure that its writer left with rc; a write error, the writer's or the close's, is
 * reported with its cause. */
static int close_figure(FILE *f, int rc, const char *file)
{
	int crc = gt_output_close(f, file);
	if (rc == GT_ERR_IO)
		rc = crc ? crc : gt_error("cannot write '%s': %s", file, strerror(EIO));
	return rc ? rc : crc;
}

/* The top kernels' durations per launch, in us (at most FIGURE_KERNELS of them). */
static int write_figure_kernels(const struct gt_report *x, const char *file)
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
			rc = GT_EXIT_USAGE;
		} else {
			rc = gt_svg_durations(f, "GPU duration per launch, top kernels", "us", s, n);
			rc = close_figure(f, rc, file);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(vals[i]);
	return rc;
}

/* Each unit's wall time as three stacked parts, in ms or us; none for fewer than two units. */
static int write_figure_split(const struct gt_report *x, const char *file)
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
	gt_report_unit_words(s, w, sizeof w);
	snprintf(xl, sizeof xl, "unit (%.140s), by start", w);
	FILE *f = open_figure(file);
	if (!f) {
		rc = GT_EXIT_USAGE;
		goto out;
	}
	rc = gt_svg_stacked(f, "Where each unit's wall time goes", xl, scale == 1e6 ? "ms" : "us", parts, 3, v,
	                    s->nunits, idx);
	rc = close_figure(f, rc, file);
out:
	free(v);
	free(idx);
	return rc;
}

/* The roofline of the ceiling analysis: the first device's memory ceiling and its compute ceilings
 * (each measured, else theoretical), the kernels that have both DRAM bytes and FLOPs (at most
 * FIGURE_ROOF_POINTS, by total time). Nothing without a memory figure or without such a kernel;
 * why is said in *why. */
#define FIGURE_ROOF_POINTS 40
static int write_figure_roofline(const struct gt_report *x, const char *file, const char **why)
{
	const struct gt_ceil_analysis *c = &x->ceil;
	const struct gt_ceil_device *dev = NULL;
	for (size_t i = 0; !dev && i < c->nkernels; i++)
		if (c->kernels[i].device < c->ndevices)
			dev = &c->devices[c->kernels[i].device];
	double mem = dev ? dev->mem_gbps : NAN;
	const char *mem_label = dev && dev->mem_kind >= 0 ? gt_ceiling_kind_name((enum gt_ceiling_kind)dev->mem_kind) : "";
	int theoretical = 0; /* a line drawn from device attributes, not measured */
	if (dev && !(mem > 0) && dev->theory[GT_CEIL_DRAM_READ] > 0) {
		mem = dev->theory[GT_CEIL_DRAM_READ];
		mem_label = "theoretical";
		theoretical = 1;
	}
	if (!(mem > 0)) {
		*why = "no memory ceiling, measured or theoretical, for the kernels' device";
		return 0;
	}
	struct gt_svg_roof roofs[3];
	size_t nr = 0;
	int tensor = gt_peaks_tensor_kind(&dev->peaks); /* the highest tensor ceiling measured */
	const enum gt_ceiling_kind ck[] = { GT_CEIL_FP32_FMA, GT_CEIL_FP64_FMA,
		                            tensor >= 0 ? (enum gt_ceiling_kind)tensor : GT_CEIL_FP16_MMA };
	static const char *const theory_label[] = { "fp32_fma theoretical", "fp64_fma theoretical",
		                                     "fp16_mma theoretical" };
	for (size_t i = 0; i < 3; i++)
		if (dev->peaks.c && dev->peaks.have_ceiling[ck[i]])
			roofs[nr++] = (struct gt_svg_roof){ gt_ceiling_kind_name(ck[i]), dev->peaks.c[ck[i]].value };
		else if (dev->theory[ck[i]] > 0) {
			roofs[nr++] = (struct gt_svg_roof){ theory_label[i], dev->theory[ck[i]] };
			theoretical = 1;
		}
	struct gt_svg_point pts[FIGURE_ROOF_POINTS];
	const char *names[FIGURE_ROOF_POINTS];
	char *labels[FIGURE_ROOF_POINTS] = { 0 };
	const struct gt_ceil_kernel *shown[FIGURE_ROOF_POINTS];
	size_t np = 0;
	for (size_t i = 0; i < c->nkernels && np < FIGURE_ROOF_POINTS; i++) {
		const struct gt_ceil_kernel *k = &c->kernels[i];
		if (!(k->intensity > 0) || !(k->gflops > 0) || !isfinite(k->intensity) || !isfinite(k->gflops))
			continue;
		shown[np] = k;
		names[np++] = k->name;
	}
	/* Labels told apart (kname.h): two template instances would both read "chain<...>". */
	int rc = np && gt_kernel_labels(names, np, labels) ? GT_ERR_NOMEM : 0;
	for (size_t i = 0; !rc && i < np; i++)
		pts[i] = (struct gt_svg_point){ labels[i], shown[i]->intensity, shown[i]->gflops, shown[i]->time_ns };
	if (!rc && !np)
		*why = "no kernel has both DRAM bytes and FLOPs measured";
	if (!rc && np) {
		FILE *f = open_figure(file);
		if (!f) {
			rc = GT_EXIT_USAGE;
		} else {
			const char *title = theoretical ? "Kernels against the ceilings, measured else theoretical (roofline)"
			                                : "Kernels against the measured ceilings (roofline)";
			rc = gt_svg_roofline(f, title, mem, mem_label, roofs, nr, pts, np);
			rc = close_figure(f, rc, file);
		}
	}
	for (size_t i = 0; i < np; i++)
		free(labels[i]);
	return rc;
}

int gt_report_figures_write(const struct gt_report *x, const struct gt_report_figure_options *o,
                            struct gt_report_figures *f)
{
	if (!o->prefix) {
		if (o->no_figures)
			snprintf(f->note, sizeof f->note, "Figures: not written (%s)", o->no_figures);
		else if (x->have_ceil && gt_ceiling_has_metrics(&x->ceil))
			snprintf(f->note, sizeof f->note,
			         "Figures: not written (the report went to standard output; with -o REPORT.md they "
			         "are written as REPORT-kernels.svg, REPORT-split.svg and REPORT-roofline.svg beside it)");
		else
			snprintf(f->note, sizeof f->note,
			         "Figures: not written (the report went to standard output; with -o REPORT.md they "
			         "are written as REPORT-kernels.svg and REPORT-split.svg beside it)");
		return 0;
	}
	char file[1024];
	const char *link = o->link_prefix ? o->link_prefix : o->prefix;
	snprintf(file, sizeof file, "%s-kernels.svg", o->prefix);
	int rc = write_figure_kernels(x, file);
	if (rc)
		return rc;
	if (x->ntop)
		snprintf(f->kernels, sizeof f->kernels, "%s-kernels.svg", link);
	if (x->have_split && x->split.nunits >= 2) {
		snprintf(file, sizeof file, "%s-split.svg", o->prefix);
		if ((rc = write_figure_split(x, file)) != 0)
			return rc;
		snprintf(f->split, sizeof f->split, "%s-split.svg", link);
	}
	if (x->have_ceil && gt_ceiling_has_metrics(&x->ceil)) {
		const char *why = NULL;
		snprintf(file, sizeof file, "%s-roofline.svg", o->prefix);
		if ((rc = write_figure_roofline(x, file, &why)) != 0)
			return rc;
		if (!why)
			snprintf(f->roofline, sizeof f->roofline, "%s-roofline.svg", link);
		else
			snprintf(f->roofline_note, sizeof f->roofline_note, "No roofline figure: %s.", why);
	}
	return 0;
}

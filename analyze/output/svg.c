/* svg.c: the report's two figures (svg.h), written element by element with fprintf.
 *
 * Coordinates are printed with one decimal; every string from a trace (kernel names) goes through
 * escape.h's XML rule (gt_esc_xml), so the document is well-formed whatever the names hold. The
 * plot area and the scales are computed first, then the elements are written in drawing order:
 * grid and axes, data, labels, legend.
 */
#include "analyze/output/svg.h"

#include "analyze/output/escape.h"
#include "traces/gputrace.h"
#include "common/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT "font-family=\"DejaVu Sans, Arial, sans-serif\""

static void head(FILE *f, double w, double h, const char *title, const char *desc)
{
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
	        "viewBox=\"0 0 %.0f %.0f\">\n<title>",
	        w, h, w, h);
	gt_esc_xml(f, title);
	fputs("</title>\n<desc>", f);
	gt_esc_xml(f, desc);
	fprintf(f, "</desc>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", w, h);
	fprintf(f, "<text x=\"%.1f\" y=\"22\" " FONT " font-size=\"15\" font-weight=\"bold\" text-anchor=\"middle\">",
	        w / 2);
	gt_esc_xml(f, title);
	fputs("</text>\n", f);
}

static int tail(FILE *f)
{
	fputs("</svg>\n", f);
	return ferror(f) ? GT_ERR_IO : 0;
}

/* "2 us", "500 us", "1 ms", "20 s": a tick label for v in unit us (the durations figure) or any
 * other unit (printed as is). */
static void tick_label(char *buf, size_t len, double v, const char *unit)
{
	if (strcmp(unit, "us") == 0) {
		if (v >= 1e6)
			snprintf(buf, len, "%g s", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, len, "%g ms", v / 1e3);
		else if (v >= 1)
			snprintf(buf, len, "%g us", v);
		else
			snprintf(buf, len, "%g ns", v * 1e3);
	} else {
		snprintf(buf, len, "%g %s", v, unit);
	}
}

/* A round step (1, 2 or 5 x 10^k) for about n ticks up to max. */
static double nice_step(double max, int n)
{
	double raw = max / n, p = pow(10, floor(log10(raw))), r = raw / p;
	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * p;
}

/* ---- durations -------------------------------------------------------------------------------- */

/* Up to cap ticks of a family in [a, b] (a > 0), ascending: 1, 2, 5 x 10^k (0), 1 to 9 x 10^k (1),
 * positive multiples of step (2). A tick equal to an end up to rounding is in. */
static size_t ticks_in(int family, double step, double a, double b, double *t, size_t cap)
{
	static const int m125[] = { 1, 2, 5 }, m19[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	double lo = a * (1 - 1e-12), hi = b * (1 + 1e-12);
	size_t n = 0;
	if (family == 2) {
		for (double k = ceil(lo / step); k * step <= hi && n < cap; k++)
			if (k > 0)
				t[n++] = k * step;
		return n;
	}
	const int *ms = family ? m19 : m125;
	size_t nm = family ? 9 : 3;
	for (double dec = floor(log10(a)); dec <= ceil(log10(b)) && n < cap; dec++)
		for (size_t k = 0; k < nm && n < cap; k++) {
			double v = ms[k] * pow(10, dec);
			if (v >= lo && v <= hi)
				t[n++] = v;
		}
	return n;
}

#define LABEL_MAX 44 /* characters of a row's label */

static size_t common_prefix(const char *a, const char *b)
{
	size_t k = 0;
	while (a[k] && a[k] == b[k])
		k++;
	return k;
}

/* The rows' labels, each different from the others. A long name loses its middle (kernels of one
 * template differ at the end); where two names cut that way would read the same, each keeps the
 * part around where it first differs from the other instead ("sm80_xmma_ge...4x1_ffma_aligna4..."
 * style); names that are the same, or still read the same, get " [2]", " [3]" in row order. */
static void row_labels(const struct gt_svg_series *s, size_t n, char (*lab)[64], char (*cut)[64])
{
	for (size_t i = 0; i < n; i++) {
		const char *name = s[i].label ? s[i].label : "";
		size_t ln = strlen(name);
		if (ln > LABEL_MAX)
			snprintf(cut[i], 64, "%.20s...%s", name, name + ln - 21);
		else
			snprintf(cut[i], 64, "%s", name);
		memcpy(lab[i], cut[i], 64);
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = s[i].label ? s[i].label : "";
		size_t ln = strlen(name), at = 0;
		int clash = 0;
		for (size_t j = 0; j < n; j++) {
			const char *other = s[j].label ? s[j].label : "";
			if (j == i || strcmp(cut[i], cut[j]) != 0 || strcmp(name, other) == 0)
				continue;
			clash = 1;
			size_t c = common_prefix(name, other);
			at = c > at ? c : at;
		}
		if (!clash || ln <= LABEL_MAX)
			continue;
		/* head 12, the 16 characters from 8 before the difference, tail 10 */
		size_t from = at >= 8 ? at - 8 : 0;
		if (from + 16 > ln - 10)
			from = ln - 26;
		if (from < 12)
			from = 12;
		snprintf(lab[i], 64, "%.12s...%.16s...%s", name, name + from, name + ln - 10);
	}
	/* Numbered from the last row up, so that each row is compared with labels not numbered yet. */
	for (size_t i = n; i-- > 0;) {
		unsigned k = 1;
		int dup = 0;
		for (size_t j = 0; j < i; j++)
			if (strcmp(lab[i], lab[j]) == 0)
				dup = 1, k++;
		for (size_t j = i + 1; j < n && !dup; j++)
			dup = strncmp(lab[i], lab[j], strlen(lab[i])) == 0 && strncmp(lab[j] + strlen(lab[i]), " [", 2) == 0;
		if (dup) {
			size_t l = strlen(lab[i]);
			snprintf(lab[i] + l, 64 - l, " [%u]", k);
		}
	}
}

/* The durations plot's frame: where its log10 axis [d0, d1] is drawn. */
struct plot {
	FILE *f;
	const char *unit;
	double d0, d1;
	double left, pw, top, row;
};

/* The x position of v on the plot's log axis; 0 or less sits on the left edge. */
static double xpos(const struct plot *p, double v)
{
	return p->left + (v > 0 ? (log10(v) - p->d0) / (p->d1 - p->d0) * p->pw : 0);
}

/* The smallest and largest positive value of all series (both 1 without one), how many are 0 or less,
 * and how many there are. */
static void data_range(const struct gt_svg_series *s, size_t n, double *lo, double *hi, size_t *nonpos,
                       size_t *total)
{
	*lo = INFINITY, *hi = 0;
	*nonpos = 0, *total = 0;
	for (size_t i = 0; i < n; i++) {
		*total += s[i].n;
		for (size_t k = 0; k < s[i].n; k++) {
			double v = s[i].x[k];
			if (v > 0) {
				*lo = fmin(*lo, v);
				*hi = fmax(*hi, v);
			} else {
				(*nonpos)++;
			}
		}
	}
	if (!(*hi > 0))
		*lo = *hi = 1;
}

/* Ticks: 1, 2, 5 x 10^k where the axis spans enough of them; else every m x 10^k; else round
 * linear steps (a narrow axis), all placed on the log scale. Then the axis is widened to the
 * ticks on both sides of the data, so that no value lies beyond the last tick. Returns how many. */
static size_t fit_ticks(struct plot *p, double lo, double hi, double ticks[64])
{
	double a = pow(10, p->d0), b = pow(10, p->d1), step = 0, edge[64];
	size_t nt = 0;
	int family = 0;
	for (; family < 3; family++) {
		if (family == 2)
			step = nice_step(b - a, 5);
		if ((nt = ticks_in(family, step, a, b, ticks, 64)) >= 3)
			break;
	}
	if (family == 3)
		family = 2;
	if (hi > 0 && ticks_in(family, step, hi, hi * 10, edge, 1) == 1 && log10(edge[0]) > p->d1)
		p->d1 = log10(edge[0]);
	size_t ne = lo > 0 ? ticks_in(family, step, lo / 10, lo, edge, 64) : 0;
	if (ne && ne < 64 && log10(edge[ne - 1]) < p->d0)
		p->d0 = log10(edge[ne - 1]);
	return ticks_in(family, step, pow(10, p->d0), pow(10, p->d1), ticks, 64);
}

/* The tick lines and labels from y0 to y1 (the axis), and the axis's title. */
static void draw_ticks(const struct plot *p, const double *ticks, size_t nt, double y0, double y1)
{
	FILE *f = p->f;
	for (size_t i = 0; i < nt; i++) {
		double v = ticks[i], x = xpos(p, v), mant = v / pow(10, floor(log10(v) + 1e-9));
		int major = fabs(mant - 1) < 1e-6;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n", x,
		        y0, x, y1, major ? "#bbbbbb" : "#e4e4e4");
		char lab[32];
		tick_label(lab, sizeof lab, v, p->unit);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n",
		        x, y1 + 16, major ? "#333333" : "#666666", lab);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"12\" text-anchor=\"middle\">duration per launch "
	           "(log scale)</text>\n",
	        p->left + p->pw / 2, y1 + 40);
}

/* Row i: its label, then (if it has values, sorted) its dots, whiskers, box, median and count. */
static void draw_row(const struct plot *p, size_t i, const char *label, const struct gt_svg_series *s)
{
	FILE *f = p->f;
	const double *x = s->x;
	size_t m = s->n;
	double yc = p->top + p->row * ((double)i + 0.5);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" text-anchor=\"end\">", p->left - 8, yc + 4);
	gt_esc_xml(f, label);
	fputs("</text>\n", f);
	if (!m)
		return;
	/* Dots: deterministic vertical spread by the golden ratio, so rows are reproducible. */
	size_t dots = m > GT_SVG_MAX_DOTS ? GT_SVG_MAX_DOTS : m;
	fprintf(f, "<g fill=\"#4477aa\" fill-opacity=\"0.35\">\n");
	for (size_t k = 0; k < dots; k++) {
		size_t idx = dots == m ? k : (size_t)llround((double)k * (double)(m - 1) / (double)(dots - 1));
		double jitter = fmod((double)k * 0.6180339887498949, 1.0) - 0.5;
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\"/>\n", xpos(p, x[idx]), yc + jitter * 18);
	}
	fputs("</g>\n", f);
	double p25 = gt_stats_percentile_double(x, m, 25), p75 = gt_stats_percentile_double(x, m, 75);
	double med = gt_stats_percentile_double(x, m, 50);
	double xmin = xpos(p, x[0]), xmax = xpos(p, x[m - 1]), b0 = xpos(p, p25), b1 = xpos(p, p75), xm = xpos(p, med);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222222\" stroke-width=\"1\"/>\n",
	        xmin, yc, xmax, yc);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222222\" stroke-width=\"1\"/>\n",
	        xmin, yc - 5, xmin, yc + 5);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222222\" stroke-width=\"1\"/>\n",
	        xmax, yc - 5, xmax, yc + 5);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\" fill-opacity=\"0.5\" "
	           "stroke=\"#222222\" stroke-width=\"1.2\"/>\n",
	        b0, yc - 8, fmax(b1 - b0, 0.5), 16.0);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cc3311\" stroke-width=\"3\"/>\n",
	        xm, yc - 9, xm, yc + 9);
	char ml[32];
	tick_label(ml, sizeof ml, med, p->unit);
	/* The median's value at the right, with more digits than a tick. */
	if (strcmp(p->unit, "us") == 0)
		snprintf(ml, sizeof ml, med >= 1e3 ? "%.3f ms" : "%.3f us", med >= 1e3 ? med / 1e3 : med);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" fill=\"#cc3311\">median %s</text>\n",
	        p->left + p->pw + 8, yc, ml);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"10\" fill=\"#555555\">n = %zu</text>\n",
	        p->left + p->pw + 8, yc + 12, m);
}

int gt_svg_durations(FILE *f, const char *title, const char *unit, const struct gt_svg_series *s, size_t n)
{
	if (!n)
		return GT_ERR_ARG;
	char (*lab)[64] = malloc(2 * n * sizeof *lab);
	if (!lab)
		return GT_ERR_NOMEM;
	row_labels(s, n, lab, lab + n);
	/* The axis: whole decades around the positive values. */
	double lo, hi;
	size_t nonpos, total;
	data_range(s, n, &lo, &hi, &nonpos, &total);
	/* The axis, in log10 units: the data with 4% of the span on each side, and at least a factor of
	 * 1.5 wide, so that a narrow distribution fills the plot rather than a tenth of a decade. */
	double l0 = log10(lo), l1 = log10(hi), pad = fmax((l1 - l0) * 0.04, 0);
	if (l1 - l0 + 2 * pad < log10(1.5))
		pad = (log10(1.5) - (l1 - l0)) / 2;
	const double W = 960, left = 330, right = 130, top = 44, row = 34, bottom = 58;
	double H = top + row * (double)n + bottom;
	struct plot p = { f, unit, l0 - pad, l1 + pad, left, W - left - right, top, row };

	char desc[512];
	snprintf(desc, sizeof desc,
	         "GPU durations per launch of %zu kernels (%zu launches), logarithmic axis in %s. Dots: every "
	         "launch (at most %d per kernel, at evenly spaced ranks); box: p25 to p75; thick line: median; "
	         "whiskers: minimum and maximum.%s",
	         n, total, unit, GT_SVG_MAX_DOTS, nonpos ? " Durations of 0 or less sit on the left edge." : "");
	head(f, W, H, title, desc);
	double ticks[64];
	size_t nt = fit_ticks(&p, lo, hi, ticks);
	draw_ticks(&p, ticks, nt, top - 6, top + row * (double)n);
	for (size_t i = 0; i < n; i++)
		draw_row(&p, i, lab[i], &s[i]);
	free(lab);
	return tail(f);
}

/* ---- stacked bars ------------------------------------------------------------------------------ */

int gt_svg_stacked(FILE *f, const char *title, const char *xlabel, const char *unit,
                   const struct gt_svg_part *parts, size_t nparts, const double *v, size_t nbars,
                   const uint64_t *index)
{
	if (!nparts || !nbars)
		return GT_ERR_ARG;
	size_t shown = nbars > GT_SVG_MAX_BARS ? GT_SVG_MAX_BARS : nbars;
	double *totals = malloc(nbars * sizeof *totals);
	if (!totals)
		return GT_ERR_NOMEM;
	double max = 0;
	for (size_t b = 0; b < nbars; b++) {
		double t = 0;
		for (size_t k = 0; k < nparts; k++)
			t += fmax(v[b * nparts + k], 0);
		totals[b] = t;
		max = fmax(max, t);
	}
	/* One warm-up frame 400 times longer than the others would flatten them all: beyond 1.5 x p90
	 * the axis stops, and the bars above it are cut and labelled with their height. */
	gt_stats_sort_double(totals, nbars);
	double p90 = gt_stats_percentile_double(totals, nbars, 90), cap = max;
	free(totals);
	size_t clipped = 0;
	if (nbars >= 5 && p90 > 0 && max > 2 * p90) {
		cap = 1.5 * p90;
		for (size_t b = 0; b < nbars; b++) {
			double t = 0;
			for (size_t k = 0; k < nparts; k++)
				t += fmax(v[b * nparts + k], 0);
			clipped += t > cap;
		}
	}
	if (!(cap > 0))
		cap = 1;
	double step = nice_step(cap, 5), top_v = ceil(cap / step) * step;
	const double W = 960, H = 400, left = 80, right = 190, top = 44, bottom = 58;
	double pw = W - left - right, ph = H - top - bottom, y1 = top + ph;
	char desc[512];
	int k0 = snprintf(desc, sizeof desc, "One bar per %s, its parts stacked from the axis in %s:", xlabel, unit);
	for (size_t k = 0; k < nparts && k0 > 0 && (size_t)k0 < sizeof desc; k++)
		k0 += snprintf(desc + k0, sizeof desc - (size_t)k0, "%s %s", k ? "," : "", parts[k].label);
	if (k0 > 0 && (size_t)k0 < sizeof desc)
		k0 += snprintf(desc + k0, sizeof desc - (size_t)k0, ". %zu bars%s.%s", nbars,
		               shown < nbars ? "; the figure draws an evenly spaced selection of them" : "",
		               clipped ? " Bars taller than 1.5 x the 90th percentile are cut at the top and labelled "
		                         "with their height." : "");
	head(f, W, H, title, desc);
	for (double t = 0; t <= top_v * (1 + 1e-9); t += step) {
		double y = y1 - t / top_v * ph;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n", left,
		        y, left + pw, y, t == 0 ? "#333333" : "#e4e4e4");
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" text-anchor=\"end\">%g</text>\n",
		        left - 6, y + 4, t);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"12\" text-anchor=\"middle\" "
	           "transform=\"rotate(-90 %.1f %.1f)\">",
	        left - 52, top + ph / 2, left - 52, top + ph / 2);
	gt_esc_xml(f, unit);
	fputs("</text>\n", f);
	double bw = pw / (double)shown, gap = bw > 4 ? bw * 0.15 : 0;
	for (size_t i = 0; i < shown; i++) {
		size_t b = shown == nbars ? i : (size_t)llround((double)i * (double)(nbars - 1) / (double)(shown - 1));
		double x = left + bw * (double)i + gap / 2, acc = 0, total = 0;
		for (size_t k = 0; k < nparts; k++) {
			double h = fmax(v[b * nparts + k], 0);
			total += h;
			h = fmin(h / top_v * ph, ph - acc);
			if (h <= 0)
				continue;
			fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n", x, y1 - acc - h,
			        fmax(bw - gap, 0.5), h, parts[k].color);
			acc += h;
		}
		if (total > top_v)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"10\" fill=\"#cc3311\">%.4g %s (cut)</text>\n",
			        x + 2, top + 10, total, unit);
	}
	/* x ticks: about eight labels. */
	size_t every = shown > 8 ? (shown + 7) / 8 : 1;
	for (size_t i = 0; i < shown; i += every) {
		size_t b = shown == nbars ? i : (size_t)llround((double)i * (double)(nbars - 1) / (double)(shown - 1));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" text-anchor=\"middle\">%llu</text>\n",
		        left + bw * ((double)i + 0.5), y1 + 16, (unsigned long long)(index ? index[b] : b));
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"12\" text-anchor=\"middle\">", left + pw / 2, y1 + 40);
	gt_esc_xml(f, xlabel);
	fputs("</text>\n", f);
	for (size_t k = 0; k < nparts; k++) {
		double y = top + 10 + 22 * (double)k;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\"/>\n", left + pw + 16, y,
		        parts[k].color);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"12\">", left + pw + 36, y + 12);
		gt_esc_xml(f, parts[k].label);
		fputs("</text>\n", f);
	}
	return tail(f);
}

/* ---- roofline --------------------------------------------------------------------------------- */

struct loglog {
	double left, top, pw, ph;
	double x0, x1, y0, y1;   /* decades: log10 of the axes' ends */
};

static double lx(const struct loglog *p, double v) { return p->left + (log10(v) - p->x0) / (p->x1 - p->x0) * p->pw; }
static double ly(const struct loglog *p, double v) { return p->top + p->ph - (log10(v) - p->y0) / (p->y1 - p->y0) * p->ph; }

static int finite_pos(double v) { return isfinite(v) && v > 0; }

/* "1e-2", "0.1", "1", "10", "1e4": a decade's tick label. */
static void decade_label(char *buf, size_t len, int k)
{
	if (k >= -1 && k <= 3)
		snprintf(buf, len, "%g", pow(10, k));
	else
		snprintf(buf, len, "1e%d", k);
}

int gt_svg_roofline(FILE *f, const char *title, double mem_gbps, const char *mem_label,
                    const struct gt_svg_roof *roofs, size_t nroofs, const struct gt_svg_point *pts, size_t npts)
{
	if (!finite_pos(mem_gbps))
		return GT_ERR_ARG;
	/* The data's extent: points, and each roof's ridge (where it meets the memory line). */
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY, wmax = 0;
	size_t shown = 0;
	for (size_t i = 0; i < npts; i++) {
		if (!finite_pos(pts[i].intensity) || !finite_pos(pts[i].gflops))
			continue;
		shown++;
		xlo = fmin(xlo, pts[i].intensity);
		xhi = fmax(xhi, pts[i].intensity);
		ylo = fmin(ylo, pts[i].gflops);
		yhi = fmax(yhi, pts[i].gflops);
		if (isfinite(pts[i].weight))
			wmax = fmax(wmax, pts[i].weight);
	}
	for (size_t r = 0; r < nroofs; r++) {
		if (!finite_pos(roofs[r].gflops))
			continue;
		double ridge = roofs[r].gflops / mem_gbps;
		xlo = fmin(xlo, ridge);
		xhi = fmax(xhi, ridge);
		yhi = fmax(yhi, roofs[r].gflops);
		ylo = fmin(ylo, roofs[r].gflops);
	}
	if (!isfinite(xlo)) { /* nothing but the memory line: a span around intensity 1 */
		xlo = 0.1;
		xhi = 10;
	}
	ylo = fmin(ylo, mem_gbps * xlo);
	yhi = fmax(yhi, mem_gbps * xlo);
	if (!isfinite(ylo) || !isfinite(yhi)) {
		ylo = mem_gbps * xlo;
		yhi = mem_gbps * xhi;
	}
	const double W = 960, H = 560;
	struct loglog p = { 90, 44, W - 90 - 40, H - 44 - 70, floor(log10(xlo)) - 1, ceil(log10(xhi)) + 1,
		            floor(log10(ylo)) - 1, ceil(log10(yhi)) + 1 };
	if (p.x1 - p.x0 > 24) /* names can hold any value: keep the grid finite */
		p.x0 = p.x1 - 24;
	if (p.y1 - p.y0 > 24)
		p.y0 = p.y1 - 24;
	char desc[600];
	snprintf(desc, sizeof desc,
	         "Roofline, log-log: arithmetic intensity (FLOP per DRAM byte) across, GFLOP/s up. The memory "
	         "ceiling (%.1f GB/s, %s) is the sloped line, each compute ceiling a flat roof. %zu kernels as "
	         "points, area proportional to total GPU time; %zu without both DRAM bytes and FLOPs left out.",
	         mem_gbps, mem_label, shown, npts - shown);
	head(f, W, H, title, desc);
	char lab[32];
	for (int k = (int)p.x0; k <= (int)p.x1; k++) {
		double x = lx(&p, pow(10, k));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\" stroke-width=\"1\"/>\n",
		        x, p.top, x, p.top + p.ph);
		decade_label(lab, sizeof lab, k);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" text-anchor=\"middle\">%s</text>\n", x,
		        p.top + p.ph + 16, lab);
	}
	for (int k = (int)p.y0; k <= (int)p.y1; k++) {
		double y = ly(&p, pow(10, k));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\" stroke-width=\"1\"/>\n",
		        p.left, y, p.left + p.pw, y);
		decade_label(lab, sizeof lab, k);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" text-anchor=\"end\">%s</text>\n",
		        p.left - 6, y + 4, lab);
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333333\"/>\n",
	        p.left, p.top, p.pw, p.ph);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"12\" text-anchor=\"middle\">arithmetic intensity "
	           "(FLOP/byte of DRAM traffic)</text>\n", p.left + p.pw / 2, p.top + p.ph + 40);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"12\" text-anchor=\"middle\" "
	           "transform=\"rotate(-90 %.1f %.1f)\">GFLOP/s</text>\n",
	        p.left - 60, p.top + p.ph / 2, p.left - 60, p.top + p.ph / 2);
	/* The memory line up to the highest roof (or across), then each roof from its ridge. */
	double xa = pow(10, p.x0), xb = pow(10, p.x1), top_roof = 0;
	for (size_t r = 0; r < nroofs; r++)
		if (finite_pos(roofs[r].gflops))
			top_roof = fmax(top_roof, roofs[r].gflops);
	double xm = top_roof > 0 ? fmin(top_roof / mem_gbps, xb) : xb;
	double ya = fmax(mem_gbps * xa, pow(10, p.y0)), xa2 = ya / mem_gbps;
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cc3311\" stroke-width=\"2\"/>\n",
	        lx(&p, xa2), ly(&p, ya), lx(&p, xm), ly(&p, fmin(mem_gbps * xm, pow(10, p.y1))));
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" fill=\"#cc3311\">", lx(&p, xa2) + 6,
	        ly(&p, ya) - 6);
	fprintf(f, "memory %.0f GB/s (", mem_gbps);
	gt_esc_xml(f, mem_label);
	fputs(")</text>\n", f);
	for (size_t r = 0; r < nroofs; r++) {
		if (!finite_pos(roofs[r].gflops))
			continue;
		double y = ly(&p, roofs[r].gflops), x = lx(&p, fmax(roofs[r].gflops / mem_gbps, xa));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#4477aa\" stroke-width=\"2\"/>\n",
		        x, y, p.left + p.pw, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" fill=\"#4477aa\" text-anchor=\"end\">",
		        p.left + p.pw - 4, y - 5);
		gt_esc_xml(f, roofs[r].label);
		fprintf(f, " %.0f GFLOP/s</text>\n", roofs[r].gflops);
	}
	for (size_t i = 0; i < npts; i++) {
		if (!finite_pos(pts[i].intensity) || !finite_pos(pts[i].gflops))
			continue;
		double w = isfinite(pts[i].weight) && wmax > 0 ? fmax(pts[i].weight, 0) / wmax : 0;
		double x = lx(&p, pts[i].intensity), y = ly(&p, pts[i].gflops), rad = 3 + 12 * sqrt(w);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#228833\" fill-opacity=\"0.5\" "
		           "stroke=\"#116622\"/>\n", x, y, rad);
		char name[33];
		snprintf(name, sizeof name, "%s", pts[i].label ? pts[i].label : "");
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\">", x + rad + 3, y + 4);
		gt_esc_xml(f, name);
		fputs("</text>\n", f);
	}
	return tail(f);
}

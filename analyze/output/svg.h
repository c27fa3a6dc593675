/* svg.h: the report's figures, as hand-written SVG: no plotting library, no dependency.
 *
 * Two kinds of figure, each a complete SVG 1.1 document (valid XML: every text is escaped by
 * junit.h's XML escaping; a
 * figure has a <title> and a <desc> that say what it shows, for screen readers and for a reader who
 * opens the file alone):
 *
 *   durations   one row per series (a kernel): every value as a dot (or, beyond GT_SVG_MAX_DOTS,
 *               that many values at evenly spaced ranks: a deterministic thinning that keeps the
 *               shape), a box from p25 to p75, a line at the median, whiskers to the minimum and the
 *               maximum; percentiles by stats.h's 'linear' rule. The axis is logarithmic (kernels
 *               differ by orders of magnitude) with a tick at every 1, 2 and 5 x 10^k (finer on a
 *               narrow axis), and reaches a tick on either side of the data, so that no value lies
 *               beyond the last tick; values <= 0 sit on the axis's left edge and the figure's
 *               description counts them. Row labels are unique: a long name loses its middle, and
 *               where two would then read the same, each shows where it differs instead; names
 *               that are still the same get " [2]", " [3]".
 *   stacked     one bar per unit (a frame), its parts stacked from the axis: for the report's split
 *               figure kernel time, other GPU work and GPU idle, which add up to the unit's wall time.
 *               Beyond GT_SVG_MAX_BARS units, that many are drawn at evenly spaced positions and the
 *               description says which.
 *   roofline    log-log: arithmetic intensity (FLOP/byte) across, GFLOP/s up; the memory ceiling as
 *               the line GFLOP/s = GB/s x intensity, each compute ceiling as a flat roof from where
 *               it meets that line, each labelled with its value; one point per kernel, its area
 *               proportional to its weight (total GPU time), labelled with its name (cut to 32
 *               characters). Points without a finite positive position are left out and counted in
 *               the description. Decades carry ticks; the axes reach a decade past the data.
 */
#ifndef GT_SVG_H
#define GT_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GT_SVG_MAX_DOTS 400
#define GT_SVG_MAX_BARS 300

struct gt_svg_series {
	const char *label;       /* shown left of the row (cut to 44 characters, then made unique) */
	const double *x;         /* n values, sorted ascending */
	size_t n;
};

/* Writes the durations figure; unit: the values' unit as the axis names it ("us"). 0, GT_ERR_ARG
 * (no series), GT_ERR_NOMEM, or GT_ERR_IO (f reports a write error). */
int gt_svg_durations(FILE *f, const char *title, const char *unit, const struct gt_svg_series *s, size_t n);

struct gt_svg_part {
	const char *label;
	const char *color;       /* an SVG colour: "#4477aa" */
};

/* Writes the stacked bars: nbars bars of nparts parts, part k of bar b being v[b * nparts + k] (>= 0),
 * bar b labelled with index[b] on the x axis (NULL: 0, 1, ...). 0, GT_ERR_ARG, or GT_ERR_IO. */
int gt_svg_stacked(FILE *f, const char *title, const char *xlabel, const char *unit,
                   const struct gt_svg_part *parts, size_t nparts, const double *v, size_t nbars,
                   const uint64_t *index);

struct gt_svg_roof {
	const char *label;       /* "fp32_fma" */
	double gflops;
};

struct gt_svg_point {
	const char *label;
	double intensity, gflops; /* FLOP/byte, GFLOP/s */
	double weight;           /* >= 0 */
};

/* Writes the roofline: the memory ceiling mem_gbps (labelled mem_label), nroofs compute ceilings and
 * npts points. 0, GT_ERR_ARG (mem_gbps not positive), GT_ERR_NOMEM, or GT_ERR_IO. */
int gt_svg_roofline(FILE *f, const char *title, double mem_gbps, const char *mem_label,
                    const struct gt_svg_roof *roofs, size_t nroofs, const struct gt_svg_point *pts, size_t npts);

#endif

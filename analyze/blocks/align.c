/* align.c: the linear map from a trace's CUPTI clock to CLOCK_REALTIME, and its error (see align.h).
 *
 * Everything is integer arithmetic on nanoseconds: CUPTI and realtime values are near 2^60, where a
 * double keeps only 128 ns steps, and a test must be able to check a mapped time to the nanosecond.
 */
#include "analyze/blocks/align.h"

#include "common/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *gt_align_state_name(int state)
{
	switch (state) {
	case GT_ALIGN_FIT: return "fit";
	case GT_ALIGN_OFFSET: return "offset";
	default: return "none";
	}
}

void gt_align_init(struct gt_align *a)
{
	memset(a, 0, sizeof *a);
	a->drift_ppm = NAN;
	a->uncertainty_ns = NAN;
	a->why = "no clock pairing (CLOCK_SYNC record) in the trace";
}

void gt_align_release(struct gt_align *a)
{
	if (!a)
		return;
	free(a->pairs);
	a->pairs = NULL;
	a->npairs = a->cap = 0;
}

int gt_align_add(struct gt_align *a, const struct gt_clock_sync *s)
{
	/* A clock past 2^62 ns (the year 2116 on CLOCK_REALTIME) is a damaged record, not a time: kept
	 * out, so that every difference below fits in int64 and every product in __int128. */
	const uint64_t max = (uint64_t)1 << 62;
	if (!s->cupti_ns || !s->realtime_ns || s->cupti_ns >= max || s->realtime_ns >= max || s->monotonic_ns >= max) {
		a->unusable++;
		return 0;
	}
	struct gt_clock_sync *p = gt_grow(a->pairs, &a->cap, a->npairs, sizeof *p, 4);
	if (!p)
		return GT_ERR_NOMEM;
	a->pairs = p;
	a->pairs[a->npairs++] = *s;
	a->pairings = a->npairs;
	return 0;
}

/* n / d rounded to the nearest integer, halves away from zero; d > 0. */
static __int128 div_round(__int128 n, __int128 d)
{
	return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d);
}

static int cmp_pair(const void *pa, const void *pb)
{
	const struct gt_clock_sync *a = pa, *b = pb;
	if (a->cupti_ns != b->cupti_ns)
		return a->cupti_ns < b->cupti_ns ? -1 : 1;
	return a->realtime_ns < b->realtime_ns ? -1 : a->realtime_ns > b->realtime_ns;
}

/* The fit through first and last at c, exactly. */
static __int128 fit_at(const struct gt_align *a, uint64_t c)
{
	__int128 dc = (__int128)c - (__int128)a->first.cupti_ns;
	__int128 dr = (__int128)a->last.realtime_ns - (__int128)a->first.realtime_ns;
	__int128 span = (__int128)a->last.cupti_ns - (__int128)a->first.cupti_ns;
	return (__int128)a->first.realtime_ns + div_round(dc * dr, span);
}

int gt_align_finish(struct gt_align *a)
{
	a->state = GT_ALIGN_NONE;
	a->drift_ppm = NAN;
	a->uncertainty_ns = NAN;
	a->offset_change_ns = 0;
	a->span_ns = 0;
	a->max_residual_ns = 0;
	a->realtime_adjust_ns = 0;
	a->realtime_adjust_known = 0;
	if (a->npairs == 0) {
		a->why = a->unusable ? "no usable clock pairing (the recorder could not read a clock)"
		                     : "no clock pairing (CLOCK_SYNC record) in the trace";
		return a->state;
	}
	qsort(a->pairs, a->npairs, sizeof *a->pairs, cmp_pair);
	a->first = a->pairs[0];
	a->last = a->pairs[a->npairs - 1];
	a->offset_start_ns = (int64_t)a->first.realtime_ns - (int64_t)a->first.cupti_ns;
	a->offset_end_ns = a->offset_start_ns;
	a->state = GT_ALIGN_OFFSET;
	if (a->npairs == 1) {
		a->why = "one clock pairing only (the recording did not end cleanly): offset only, drift and "
		         "uncertainty unknown";
		return a->state;
	}
	if (a->first.monotonic_ns && a->last.monotonic_ns) {
		a->realtime_adjust_ns = ((int64_t)a->last.realtime_ns - (int64_t)a->last.monotonic_ns) -
		                        ((int64_t)a->first.realtime_ns - (int64_t)a->first.monotonic_ns);
		a->realtime_adjust_known = 1;
	}
	if (a->last.cupti_ns == a->first.cupti_ns) {
		a->why = "the clock pairings share one CUPTI time: offset only, drift and uncertainty unknown";
		return a->state;
	}
	if (a->last.realtime_ns < a->first.realtime_ns) {
		a->why = "the realtime clock went backwards between the clock pairings (it was stepped): "
		         "start offset only, uncertainty unknown";
		return a->state;
	}
	int64_t end = (int64_t)a->last.realtime_ns - (int64_t)a->last.cupti_ns;
	uint64_t span = a->last.cupti_ns - a->first.cupti_ns;
	double drift = 1e6 * (double)(end - a->offset_start_ns) / (double)span;
	if (fabs(drift) > GT_ALIGN_MAX_DRIFT_PPM) {
		a->why = "the clocks drift apart faster than 1000 ppm between the pairings (a clock was "
		         "stepped): start offset only, uncertainty unknown";
		return a->state;
	}
	a->state = GT_ALIGN_FIT;
	a->why = "";
	a->offset_end_ns = end;
	a->offset_change_ns = end - a->offset_start_ns;
	a->span_ns = span;
	a->drift_ppm = drift;
	for (size_t i = 1; i + 1 < a->npairs; i++) {
		__int128 d = fit_at(a, a->pairs[i].cupti_ns) - (__int128)a->pairs[i].realtime_ns;
		int64_t r = (int64_t)(d < 0 ? -d : d);
		if (r > a->max_residual_ns)
			a->max_residual_ns = r;
	}
	int64_t change = a->offset_change_ns < 0 ? -a->offset_change_ns : a->offset_change_ns;
	a->uncertainty_ns = (double)(change > a->max_residual_ns ? change : a->max_residual_ns);
	return a->state;
}

/* A host time that a hostile trace may push past int64: held at the ends of the range (times
 * 292 years from 1970 are not real; the comparison stays ordered and nothing overflows). */
static int64_t saturate(__int128 v)
{
	return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

int gt_align_to_host(const struct gt_align *a, uint64_t cupti_ns, int64_t *host_ns)
{
	switch (a->state) {
	case GT_ALIGN_FIT:
		*host_ns = saturate(fit_at(a, cupti_ns));
		return 0;
	case GT_ALIGN_OFFSET:
		*host_ns = saturate((__int128)cupti_ns + a->offset_start_ns);
		return 0;
	default:
		return GT_ERR_STATE;
	}
}

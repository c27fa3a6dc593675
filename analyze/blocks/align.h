/* align.h: a trace's CUPTI timestamps placed on the host's wall clock, through its clock pairings.
 *
 * Every event of a trace is timed on CUPTI's clock, which is private to the process that recorded
 * it: two processes' CUPTI timestamps cannot be compared. The recorder therefore pairs CUPTI's clock
 * with CLOCK_REALTIME and CLOCK_MONOTONIC (a CLOCK_SYNC record) when recording starts and again when
 * it ends. `gpuanalyze ranks` puts the traces of several processes on one time line by mapping each
 * trace's CUPTI time to CLOCK_REALTIME, which every process of a host shares and which NTP keeps
 * close across hosts. This module is that mapping and the statement of how good it is.
 *
 * The mapping is the straight line through the first and the last pairing (by CUPTI time):
 *
 *     host(c) = r0 + round((c - c0) * (r1 - r0) / (c1 - c0))
 *
 * with (c0, r0) and (c1, r1) the two pairings, computed exactly in 128-bit integers and rounded to
 * the nearest nanosecond, halves away from zero. It corrects both the offset between the clocks and
 * their drift (rate difference) over the recording. Its quantities, as gpuanalyze(1) states them:
 *
 *   offset at start / end   r0 - c0, r1 - c1 (ns): where the host clock stood against CUPTI's
 *   offset change           (r1 - c1) - (r0 - c0): how far the two clocks moved apart during the
 *                           recording; the fit corrects it, but it is also the error a single
 *                           offset would have made, which is why it bounds the fit's own error
 *                           (the clocks could have wandered anywhere in between)
 *   drift                   1e6 * offset change / (c1 - c0), in ppm
 *   residual                with more than two pairings, the largest |host(c_i) - r_i| of the
 *                           pairings between the first and the last: how far from straight the
 *                           clocks really went
 *   uncertainty             max(|offset change|, largest residual): the stated error bound of an
 *                           aligned time within this trace. It does not include the few hundred
 *                           nanoseconds between the two clock reads of one pairing, nor (across
 *                           hosts) the disagreement of the hosts' realtime clocks, which is only as
 *                           good as their NTP synchronisation
 *   realtime adjustment     (r1 - m1) - (r0 - m0), with m the CLOCK_MONOTONIC reads: how much NTP
 *                           stepped or slewed the host's realtime clock during the recording
 *                           (monotonic is never stepped); 0 on an undisturbed host
 *
 * States: FIT with two usable pairings at different CUPTI times and a plausible drift; OFFSET with
 * one usable pairing (the process died before its end pairing), or when the fit is refused (the
 * realtime clock went backwards between the pairings, or the drift exceeds GT_ALIGN_MAX_DRIFT_PPM,
 * which no pair of crystal clocks does: a clock was stepped): host(c) = c + (r0 - c0), uncertainty
 * unknown; NONE without a usable pairing: the trace cannot be aligned and says so. A pairing whose
 * CUPTI or realtime value is 0 (the recorder could not read that clock) is not usable and is counted.
 */
#ifndef GT_ALIGN_H
#define GT_ALIGN_H

#include "traces/gputrace.h"

#include <stddef.h>
#include <stdint.h>

#define GT_ALIGN_MAX_DRIFT_PPM 1000.0

enum gt_align_state { GT_ALIGN_NONE = 0, GT_ALIGN_OFFSET = 1, GT_ALIGN_FIT = 2 };
const char *gt_align_state_name(int state); /* "none", "offset", "fit" */

struct gt_align {
	int state;                   /* enum gt_align_state, after gt_align_finish */
	size_t pairings;             /* usable CLOCK_SYNC records offered */
	size_t unusable;             /* CLOCK_SYNC records with a zero clock value, left out */
	struct gt_clock_sync first, last; /* the earliest and latest usable pairings by CUPTI time */
	int64_t offset_start_ns;     /* r0 - c0 (OFFSET, FIT) */
	int64_t offset_end_ns;       /* r1 - c1 (FIT; else the start offset) */
	int64_t offset_change_ns;    /* FIT: end - start; else 0 */
	uint64_t span_ns;            /* FIT: c1 - c0; else 0 */
	double drift_ppm;            /* FIT: 1e6 * offset_change / span; NaN otherwise */
	int64_t max_residual_ns;     /* FIT with more than two pairings; else 0 */
	double uncertainty_ns;       /* FIT: max(|offset change|, residual); NaN otherwise */
	int64_t realtime_adjust_ns;  /* two or more pairings with monotonic values: see above; else 0 */
	int realtime_adjust_known;   /* realtime_adjust_ns was measured */
	const char *why;             /* static text: why the state is not FIT ("" when it is) */
	/* private: the pairings offered */
	struct gt_clock_sync *pairs;
	size_t npairs, cap;
};

void gt_align_init(struct gt_align *a);
void gt_align_release(struct gt_align *a);
/* Offers one CLOCK_SYNC record. 0, or GT_ERR_NOMEM. */
int gt_align_add(struct gt_align *a, const struct gt_clock_sync *s);
/* Computes the mapping and its quantities from the pairings offered. Returns the state. */
int gt_align_finish(struct gt_align *a);
/* CUPTI ns -> CLOCK_REALTIME ns (signed: a time before 1970 cannot be read, but differences can).
 * 0, or GT_ERR_STATE when the trace is not aligned (state NONE, or before gt_align_finish). */
int gt_align_to_host(const struct gt_align *a, uint64_t cupti_ns, int64_t *host_ns);

#endif

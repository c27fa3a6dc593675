/* info.h: what a trace holds, counted in one pass: records by type and records lost by reason.
 *
 * The engine behind `gpuanalyze info`; the metadata, devices and the state of the file's end come
 * from the reader itself (gt_reader_meta_at, gt_reader_device_at, gt_reader_tail) once the pass is
 * done. Every loss the trace knows of is reported: GT_REC_DROPPED counts summed by reason, and the
 * bytes of an incomplete last chunk.
 */
#ifndef GT_INFO_H
#define GT_INFO_H

#include "traces/gputrace.h"

#include <stdint.h>

#define GT_INFO_REASONS 16 /* reasons 1..15 counted apiece; others go to dropped_other */

struct gt_info {
	uint64_t by_type[GT_REC_TYPE_MAX + 1];
	uint64_t dropped[GT_INFO_REASONS]; /* index: enum gt_drop_reason */
	uint64_t dropped_other;            /* reasons this analyzer does not know */
	uint64_t dropped_total;
	/* DROPPED records of count 0: records were lost, their number unknown (the recorder writes one
	 * when CUPTI's buffer requests were refused: CUPTI then discards records without saying how
	 * many). Never "0 lost". Per reason, as dropped. */
	uint64_t uncounted[GT_INFO_REASONS];
	uint64_t uncounted_total;
	uint64_t first_ns, last_ns;        /* earliest start, latest end of GPU operations:
	                                    * kinds with an interval on a device (schema.h) */
};

void gt_info_init(struct gt_info *in);
int gt_info_record(void *in, const struct gt_reader *r, const struct gt_event *ev); /* gt_record_fn */

#endif

/* event_origin.h: an engine's origin, the earliest time of any record it reads.
 *
 * The engines that show times relative to the trace's start (bandwidth, findings, ranks, split, the
 * SQLite export, export's prescan) keep the same origin: the least nonzero time of any record
 * (timeline.h's gt_tl_event_time; 0 is a record without a time). Inline: it is taken per record.
 */
#ifndef GT_EVENT_ORIGIN_H
#define GT_EVENT_ORIGIN_H

#include "analyze/blocks/timeline.h"

#include <stdint.h>

/* *origin lowered to ev's time when ev has one and it is earlier (or *origin is still 0). */
static inline void gt_event_origin(uint64_t *origin, const struct gt_event *ev)
{
	uint64_t t = gt_tl_event_time(ev);
	if (t && (!*origin || t < *origin))
		*origin = t;
}

#endif

/* translate_kinds.h: CUPTI's copy, memory, synchronisation, overhead and object kinds -> the trace
 * format's own enums.
 *
 * The format's numbers (gputrace.h) coincide with CUPTI's today (but for the overhead kinds, which
 * the format numbers 1..9 where CUPTI uses bits), but they are the format's: each
 * value is mapped explicitly, and a value this table does not know (a CUPTI newer than the recorder)
 * becomes the format's UNKNOWN rather than an unchecked integer in the file.
 */
#ifndef GT_CUPTI_TRANSLATE_KINDS_H
#define GT_CUPTI_TRANSLATE_KINDS_H

#include "traces/gputrace.h"

#include <cupti.h>
#include <stdint.h>

uint8_t translate_copy_kind(CUpti_ActivityMemcpyKind k); /* enum gt_copy_kind */
uint8_t translate_mem_kind(CUpti_ActivityMemoryKind k);  /* enum gt_mem_kind */
uint8_t translate_sync_kind(CUpti_ActivitySynchronizationType t); /* enum gt_sync_kind */
uint32_t translate_overhead_kind(CUpti_ActivityOverheadKind k);   /* enum gt_overhead_kind */
uint32_t translate_object_kind(CUpti_ActivityObjectKind k);       /* enum gt_object_kind */

#endif

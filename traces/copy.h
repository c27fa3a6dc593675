/* copy.h: a trace copied into a writer record by record, for tools that write a trace from another
 * with a few records changed or added (the launcher's replay --metrics, tests/tools/gt_retime).
 *
 * The writer interns strings anew, so a string's id in the copy may differ from its id in the
 * input: each STRING record read is re-interned and its new id remembered, and every record that
 * holds a string id (each string field of its kind in schema.h, a CAPTURE's kernel name) is
 * written with the new one. DEVICE, BLOB and META records are written as they were; END is not
 * (the writer writes its own), nor is a record of a kind this build does not know, which cannot be
 * copied faithfully. A caller that changes a record copies its changed event instead.
 */
#ifndef GT_COPY_H
#define GT_COPY_H

#include "traces/gputrace.h"

#include <stdint.h>

struct gt_copy;

/* A copy into w (which the caller opens and closes). 0, or GT_ERR_NOMEM. */
int gt_copy_new(struct gt_copy **out, struct gt_writer *w);
/* Writes ev, the record just read from r, into the copy. 0, or a negative GT_ERR_*. */
int gt_copy_record(struct gt_copy *c, struct gt_reader *r, const struct gt_event *ev);
/* The copy's id of the input's string id (0 for 0, or an id no STRING record defined yet). */
uint32_t gt_copy_string_id(const struct gt_copy *c, uint32_t id);
/* Frees c (not its writer). Safe with NULL. */
void gt_copy_free(struct gt_copy *c);

#endif

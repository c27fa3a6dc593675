/* trace_end.c: the end-of-trace facts an engine reports (trace_end.h). */
#include "analyze/support/trace_end.h"

#include "analyze/support/load.h"

#include <stdlib.h>
#include <string.h>

int gt_trace_end(const struct gt_reader *r, int *complete, uint64_t *lost_bytes, char **synthetic)
{
	struct gt_tail t;
	gt_reader_tail(r, &t);
	*complete = t.complete;
	*lost_bytes = t.lost_bytes;
	const char *syn = gt_load_synthetic(r);
	if (syn && !*synthetic && !(*synthetic = strdup(syn)))
		return GT_ERR_NOMEM;
	return 0;
}

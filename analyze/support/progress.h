/* progress.h: a progress line on stderr while a long command reads its traces.
 *
 *     gpuanalyze: export: run.gtrace: writing 45%
 *
 * Only where a person watches: stderr is a terminal and the command was not given --quiet; and only
 * for work that takes long enough to wonder about (nothing in the first second). The percentage is of
 * the current pass over the trace: its records read of the records the caller said it holds (a pass
 * after the first), else its bytes read of the file's. The line is rewritten in place (\r) at most ten times a second and
 * cleared when the command is done, or before any message (diag.c), so nothing else is garbled.
 * Ticking costs a counter increment per record.
 */
#ifndef GT_PROGRESS_H
#define GT_PROGRESS_H

#include "traces/gputrace.h"

/* Turns the line on for this command when stderr is a terminal and quiet is 0. */
void gt_progress_start(const char *command, int quiet);
/* What the passes from now on do ("writing"; NULL: nothing said) and how many records each reads
 * (0: unknown, the bytes read tell). */
void gt_progress_stage(const char *stage, uint64_t records);
/* One record of r read. */
void gt_progress_tick_slow(const struct gt_reader *r);
extern unsigned gt_progress_count; /* ticks since the last look at the clock; private */
extern int gt_progress_on;
static inline void gt_progress_tick(const struct gt_reader *r)
{
	if (gt_progress_on && ++gt_progress_count >= 65536)
		gt_progress_tick_slow(r);
}
/* Clears the line if one is shown (the command goes on, quiet, unless ticked again). */
void gt_progress_clear(void);
/* Clears the line and turns it off. */
void gt_progress_done(void);

#endif

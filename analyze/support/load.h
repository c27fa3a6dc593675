/* load.h: how every subcommand reads a trace: open, stream each record to a callback, say what failed.
 *
 * A failure comes back as the reader's error code with one line held in the analyzer's words
 * (failure.h), which the command says and exits 2 for:
 *     gpuanalyze: cannot open trace 'x.gtrace': not a gputrace file (bad file magic at byte 0)
 *     gpuanalyze: cannot read trace 'x.gtrace': bad chunk checksum (... at byte 4096)
 * A trace whose recording process died (no END record) is read up to its last complete chunk, and
 * a warning is held saying so; the subcommand goes on:
 *     gpuanalyze: warning: x.gtrace ends early: 812 bytes of an incomplete chunk lost; the
 *     recording process did not close the trace
 */
#ifndef GT_LOAD_H
#define GT_LOAD_H

#include "traces/gputrace.h"

/* Called for every record in file order. Return 0 to go on, or a negative GT_ERR_* to stop (the
 * loader holds "cannot read trace" with it). r is there for lookups (gt_reader_string, ...). */
typedef int (*gt_record_fn)(void *ctx, const struct gt_reader *r, const struct gt_event *ev);

/* 0, or the reader's negative GT_ERR_* with why path cannot be opened held. */
int gt_load_open(struct gt_reader **r, const char *path);
/* Streams from the reader's position to the end: 0, or a negative GT_ERR_* with the failure held.
 * Holds a warning when the trace ends early. The reader stays open for lookups; the caller closes
 * it. */
int gt_load_stream(struct gt_reader *r, gt_record_fn fn, void *ctx);
/* The same without the warning about the trace's end, for a pass that another will repeat. */
int gt_load_stream_nowarn(struct gt_reader *r, gt_record_fn fn, void *ctx);
/* Open, stream and close in one call. */
int gt_load_trace(const char *path, gt_record_fn fn, void *ctx);
/* An engine's finishing step, called with the reader still open (its strings, metadata, tail). */
typedef int (*gt_finish_fn)(void *ctx, const struct gt_reader *r);
/* One pass of an engine over a trace: open, stream every record to fn, then finish (when the
 * stream succeeded), close. 0, or the first failure's code: the loader's with its words held, or
 * finish's as it returned it. */
int gt_load_pass(const char *path, gt_record_fn fn, gt_finish_fn finish, void *ctx);

/* The reader's one-line message without its leading "path: " (the analyzer names the file itself). */
const char *gt_load_reason(const char *msg, const char *path);
/* META "trace.synthetic" when it says the trace is synthetic (any value but "", "0", "false", "no"),
 * else NULL. A synthetic trace was written by a program, not recorded from a GPU. */
const char *gt_load_synthetic(const struct gt_reader *r);

#endif

/* peaks_path.h: where the measured-peaks file lives (internal to gputrace; not installed).
 *
 * `gputrace peak` (preload/launcher/launcher_peak.c) appends to this file and gpuanalyze (analyze/blocks/peaks.c)
 * reads it, so the rule that picks it must be one rule. It lives in traces/ because the trace
 * library is the one piece both stages link; it reads the environment and nothing else.
 */
#ifndef GT_PEAKS_PATH_H
#define GT_PEAKS_PATH_H

#include <stddef.h>

/* The peaks file: $GPUTRACE_PEAKS when set and not empty; else $XDG_CACHE_HOME/gputrace/peaks
 * when XDG_CACHE_HOME is an absolute path (the XDG Base Directory specification says a relative
 * one is to be ignored); else $HOME/.cache/gputrace/peaks. Written into buf; returns buf, or NULL
 * when none can be formed (no variable set) or it does not fit. *in_cache (when not NULL) is 1 for
 * the two cache places, whose folders the writer creates, and 0 for $GPUTRACE_PEAKS. */
const char *gt_peaks_default_path(char *buf, size_t len, int *in_cache);

#endif

/* stdin_trace.h: `-` as a trace operand: the trace comes on standard input.
 *
 * Commands open their trace by path, and the reader takes only a regular file, which it may rewind
 * and read again, so standard input is given to them as the path of a regular file: /dev/stdin
 * where standard input is one (`< run.gtrace`), else a memory file (memfd) holding a copy of
 * everything read from the pipe, /proc/self/fd/N. The copy
 * costs memory equal to the input's size and nothing more; the reader's limits apply to it as to
 * any file. Messages and outputs name the trace by that path.
 */
#ifndef GT_STDIN_TRACE_H
#define GT_STDIN_TRACE_H

/* The path to open for `-`, made on the first call (a second call returns the same). NULL with one
 * line held saying why (failure.h: standard input is a terminal or closed, out of memory, a read
 * error). */
const char *gt_stdin_trace_path(void);

#endif

/* signals.h: finishing the trace when the program dies of a signal.
 *
 * For SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP and SIGQUIT whose disposition is the default
 * when recording starts, a handler asks the writer thread to flush and close the trace (bounded wait),
 * then restores the default action and lets the signal take its course: the exit status the program's
 * parent sees is unchanged. A program that installs its own handlers replaces ours, and its own exit
 * path then finishes the trace. SIGKILL cannot be caught: the trace then ends at its last periodic
 * flush (GPUTRACE_FLUSH_MS).
 */
#ifndef GT_PRELOAD_SIGNALS_H
#define GT_PRELOAD_SIGNALS_H

void signals_install(void);

#endif

/* recorder.h: the recorder's life: start (when CUDA initialises), the writer thread, the end.
 *
 * recorder_start() runs once, on whichever entry comes first (CUDA's injection callback at cuInit,
 * NVTX's injection at the first NVTX call, or the constructor when another tool owns the CUDA
 * injection variable). From then on the program's threads only hand CUPTI buffers over; the writer
 * thread translates, compresses and writes them. recorder_finish() ends the trace from an exit path
 * or a fatal signal, bounded by GPUTRACE_EXIT_TIMEOUT_MS so that a stuck flush never hangs the exit.
 */
#ifndef GT_PRELOAD_RECORDER_H
#define GT_PRELOAD_RECORDER_H

#include "preload/config.h"

enum recorder_end {
	RECORDER_END_EXIT = 1,     /* exit(status) or return from main */
	RECORDER_END_SIGNAL = 2,   /* a fatal signal */
	RECORDER_END_UNLOAD = 3,   /* the library's destructor ran without an exit hook */
};

/* Reads the configuration (once); returns it. */
const struct gtp_config *recorder_config(void);
/* Starts recording; via names the entry point for the trace header. Safe to call many times. */
void recorder_start(const char *via);
/* Ends the trace: status is the exit status or the signal number. From a signal handler pass
 * in_signal = 1: no locks, no allocation, only a flag and a bounded wait. */
void recorder_finish(int how, int status, int in_signal);
/* Whether recording is running (for the entry points). */
int recorder_running(void);
/* Whether NVTX may hand its calls to CUPTI (NVTX's injection). CUPTI's NVTX handlers crash once
 * CUPTI is detached (measured: a windowed NVTX program died with SIGSEGV), so from then on windows
 * switch kinds off instead of detaching; while CUPTI is detached, NVTX is refused (its ranges are
 * not recorded, the program runs on). */
int recorder_nvtx_may_attach(void);
/* Another CUPTI client was refused while we record: noted in the trace at the end. */
void recorder_note_collision(void);
/* Installs the fork handlers (constructor). */
void recorder_install_fork_handlers(void);

#endif

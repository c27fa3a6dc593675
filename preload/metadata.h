/* metadata.h: what the trace header says about the host, the process and the toolchain.
 *
 * Written as META records at the start of every trace: tool version, host name, CPU, kernel, OS,
 * glibc, command line, pid, rank, start time, CUDA driver / runtime / CUPTI versions. Device records
 * are written separately (devices.h) when the program's CUDA contexts appear.
 */
#ifndef GT_PRELOAD_METADATA_H
#define GT_PRELOAD_METADATA_H

#include "traces/gputrace.h"

/* via: "LD_PRELOAD" or "CUDA_INJECTION64_PATH". */
int metadata_write(struct gt_writer *w, const char *via);

#endif

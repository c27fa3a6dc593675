/* devices.h: one DEVICE record per GPU the program uses, and NVML clock samples for each.
 *
 * The recorder learns of a device when CUPTI reports a new context on it; the writer thread then
 * asks the driver (name, UUID, SMs, clocks, memory bus) and NVML (PCIe generation and width) and
 * writes the record that bandwidth peaks are computed from. Runs on the writer thread only.
 */
#ifndef GT_PRELOAD_DEVICES_H
#define GT_PRELOAD_DEVICES_H

#include "traces/gputrace.h"

#include <stdint.h>

/* Writes the DEVICE record for CUDA ordinal `ordinal` unless it was written already. */
int devices_describe(struct gt_writer *w, uint32_t ordinal);
/* Writes one CLOCK_SAMPLE per described device. */
int devices_sample(struct gt_writer *w, uint64_t cupti_now);
int devices_count(void);
/* Forget everything (after fork in a child). */
void devices_reset(void);

#endif

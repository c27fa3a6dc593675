/* nvml.h: the few NVML calls the recorder makes, through dlopen (no NVML header or -lnvidia-ml).
 *
 * NVML answers what CUDA does not: PCIe generation and width (for the transfer peak), the driver's
 * version string, and the clocks, throttle reasons, temperature and power sampled during the run so
 * that a report can say whether clocks moved. Everything here is optional: a missing NVML leaves
 * those fields 0 and the trace says "unknown".
 */
#ifndef GT_PRELOAD_NVML_H
#define GT_PRELOAD_NVML_H

#include <stddef.h>
#include <stdint.h>

struct nvml_pcie {
	unsigned gen_max, width_max, gen_cur, width_cur;
	unsigned mem_clock_max_mhz, sm_clock_max_mhz, bus_width_bits;
};

struct nvml_sample {
	unsigned sm_mhz, mem_mhz, temp_c, power_mw, util_gpu;
	uint64_t reasons;
};

int nvml_open(void);                  /* 0 when NVML loaded and initialised */
void nvml_close(void);
/* The driver's version ("580.159.04"); "" if unknown. */
const char *nvml_driver_version(void);
/* Device by PCI bus id ("0000:18:00.0", as cuDeviceGetPCIBusId gives it). Returns a handle or NULL. */
void *nvml_device_by_bus_id(const char *bus_id);
int nvml_pcie_info(void *dev, struct nvml_pcie *out);
int nvml_sample_device(void *dev, struct nvml_sample *out);
/* The device's active NVLinks: "switch", "gpu:<pci bus id>" or "other" per link, comma-separated,
 * into remote; the per-direction rate of one link in GB/s from the NVLink version (0 if unknown).
 * Returns the number of active links, 0 when none or NVML cannot say. */
int nvml_nvlinks(void *dev, char *remote, size_t n, double *link_gbps);

#endif

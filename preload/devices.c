/* devices.c: device records and clock samples (see devices.h). */
#include "preload/devices.h"
#include "cupti/libs.h"
#include "preload/nvml.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEVICES 64

static struct {
	uint32_t ordinal;
	void *nvml;
} known[MAX_DEVICES];
static int nknown;

int devices_count(void) { return nknown; }
void devices_reset(void) { nknown = 0; }

static int attr(CUdevice d, CUdevice_attribute a)
{
	int v = 0;
	if (cuda_fn.cuDeviceGetAttribute(&v, a, d) != CUDA_SUCCESS)
		return 0;
	return v;
}

int devices_describe(struct gt_writer *w, uint32_t ordinal)
{
	for (int i = 0; i < nknown; i++)
		if (known[i].ordinal == ordinal)
			return 0;
	if (nknown == MAX_DEVICES || !cuda_fn.handle)
		return 0;
	CUdevice d;
	if (cuda_fn.cuDeviceGet(&d, (int)ordinal) != CUDA_SUCCESS)
		return 0;
	struct gt_device g = { .device_id = ordinal };
	char name[256] = "";
	if (cuda_fn.cuDeviceGetName(name, sizeof name, d) != CUDA_SUCCESS)
		name[0] = '\0';
	CUuuid uuid;
	if (cuda_fn.cuDeviceGetUuid_v2 && cuda_fn.cuDeviceGetUuid_v2(&uuid, d) == CUDA_SUCCESS)
		memcpy(g.uuid, uuid.bytes, 16);
	size_t mem = 0;
	if (cuda_fn.cuDeviceTotalMem_v2 && cuda_fn.cuDeviceTotalMem_v2(&mem, d) == CUDA_SUCCESS)
		g.global_mem_bytes = mem;
	g.sm_count = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	g.cc_major = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	g.cc_minor = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	g.sm_clock_khz = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
	g.mem_clock_khz = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
	g.mem_bus_width_bits = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
	g.l2_bytes = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
	g.max_threads_per_sm = (uint32_t)attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	void *nv = NULL;
	char bus[64];
	if (cuda_fn.cuDeviceGetPCIBusId && cuda_fn.cuDeviceGetPCIBusId(bus, sizeof bus, d) == CUDA_SUCCESS)
		nv = nvml_device_by_bus_id(bus);
	struct nvml_pcie p;
	if (nv && nvml_pcie_info(nv, &p) == 0) {
		g.pcie_gen = p.gen_max;
		g.pcie_width = p.width_max;
		g.pcie_gen_current = p.gen_cur;
		g.pcie_width_current = p.width_cur;
		/* The driver attribute is the authority for the memory clock; NVML fills a gap. */
		if (!g.mem_clock_khz)
			g.mem_clock_khz = p.mem_clock_max_mhz * 1000u;
		if (!g.mem_bus_width_bits)
			g.mem_bus_width_bits = p.bus_width_bits;
		if (!g.sm_clock_khz)
			g.sm_clock_khz = p.sm_clock_max_mhz * 1000u;
	}
	known[nknown].ordinal = ordinal;
	known[nknown].nvml = nv;
	nknown++;
	int rc = gt_writer_device(w, &g, name);
	/* NVLink: where a peer copy between two GPUs can go faster than PCIe. Per device, as META
	 * device.D.pci_bus_id, device.D.nvlink.link_gbps and device.D.nvlink.remote (gpuanalyze ranks). */
	char key[96], val[1024];
	double gbps = 0;
	if (!rc && nv) {
		snprintf(key, sizeof key, "device.%u.pci_bus_id", ordinal);
		rc = gt_writer_meta(w, key, bus);
		int links = nvml_nvlinks(nv, val, sizeof val, &gbps);
		if (!rc && links > 0) {
			snprintf(key, sizeof key, "device.%u.nvlink.remote", ordinal);
			rc = gt_writer_meta(w, key, val);
			snprintf(key, sizeof key, "device.%u.nvlink.link_gbps", ordinal);
			snprintf(val, sizeof val, "%g", gbps);
			rc = rc ? rc : gt_writer_meta(w, key, val);
		}
	}
	return rc;
}

int devices_sample(struct gt_writer *w, uint64_t cupti_now)
{
	for (int i = 0; i < nknown; i++) {
		struct nvml_sample s;
		if (!known[i].nvml || nvml_sample_device(known[i].nvml, &s) != 0)
			continue;
		struct gt_clock_sample r = { .timestamp = cupti_now, .throttle_reasons = s.reasons,
			.device_id = known[i].ordinal, .sm_clock_mhz = s.sm_mhz, .mem_clock_mhz = s.mem_mhz,
			.temperature_c = s.temp_c, .power_mw = s.power_mw, .utilization_gpu = s.util_gpu };
		int rc = gt_writer_add(w, GT_REC_CLOCK_SAMPLE, &r);
		if (rc)
			return rc;
	}
	return 0;
}

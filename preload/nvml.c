/* nvml.c: NVML through dlopen (see nvml.h). Declarations mirror nvml.h's stable ABI. */
#include "preload/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;              /* NVML_SUCCESS == 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
struct nvml_util { unsigned gpu, memory; };
/* nvmlPciInfo_t */
struct nvml_pci {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};
enum { NVML_NVLINK_MAX_LINKS = 18, NVML_NVLINK_DEVICE_TYPE_GPU = 0, NVML_NVLINK_DEVICE_TYPE_SWITCH = 2 };
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

static struct {
	void *h;
	int ok;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	nvmlReturn_t (*driver_version)(char *, unsigned);
	nvmlReturn_t (*by_bus)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*gen_max)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*width_max)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*gen_cur)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*width_cur)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);
	nvmlReturn_t (*temp)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*power)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*util)(nvmlDevice_t, struct nvml_util *);
	nvmlReturn_t (*bus_width)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned, int *);
	nvmlReturn_t (*link_version)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*link_remote_pci)(nvmlDevice_t, unsigned, struct nvml_pci *);
	nvmlReturn_t (*link_remote_type)(nvmlDevice_t, unsigned, int *);
	char version[96];
} nv;

static void *sym(const char *a, const char *b)
{
	void *p = dlsym(nv.h, a);
	if (!p && b)
		p = dlsym(nv.h, b);
	return p;
}

int nvml_open(void)
{
	if (nv.ok)
		return 0;
	nv.h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nv.h)
		return -1;
	*(void **)&nv.init = sym("nvmlInit_v2", "nvmlInit");
	*(void **)&nv.shutdown = sym("nvmlShutdown", NULL);
	*(void **)&nv.driver_version = sym("nvmlSystemGetDriverVersion", NULL);
	*(void **)&nv.by_bus = sym("nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId");
	*(void **)&nv.gen_max = sym("nvmlDeviceGetMaxPcieLinkGeneration", NULL);
	*(void **)&nv.width_max = sym("nvmlDeviceGetMaxPcieLinkWidth", NULL);
	*(void **)&nv.gen_cur = sym("nvmlDeviceGetCurrPcieLinkGeneration", NULL);
	*(void **)&nv.width_cur = sym("nvmlDeviceGetCurrPcieLinkWidth", NULL);
	*(void **)&nv.clock = sym("nvmlDeviceGetClockInfo", NULL);
	*(void **)&nv.max_clock = sym("nvmlDeviceGetMaxClockInfo", NULL);
	*(void **)&nv.reasons = sym("nvmlDeviceGetCurrentClocksEventReasons",
	                            "nvmlDeviceGetCurrentClocksThrottleReasons");
	*(void **)&nv.temp = sym("nvmlDeviceGetTemperature", NULL);
	*(void **)&nv.power = sym("nvmlDeviceGetPowerUsage", NULL);
	*(void **)&nv.util = sym("nvmlDeviceGetUtilizationRates", NULL);
	*(void **)&nv.bus_width = sym("nvmlDeviceGetMemoryBusWidth", NULL);
	*(void **)&nv.link_state = sym("nvmlDeviceGetNvLinkState", NULL);
	*(void **)&nv.link_version = sym("nvmlDeviceGetNvLinkVersion", NULL);
	*(void **)&nv.link_remote_pci = sym("nvmlDeviceGetNvLinkRemotePciInfo_v2", NULL);
	*(void **)&nv.link_remote_type = sym("nvmlDeviceGetNvLinkRemoteDeviceType", NULL);
	if (!nv.init || !nv.by_bus || nv.init() != 0) {
		dlclose(nv.h);
		memset(&nv, 0, sizeof nv);
		return -1;
	}
	if (nv.driver_version && nv.driver_version(nv.version, sizeof nv.version) != 0)
		nv.version[0] = '\0';
	nv.ok = 1;
	return 0;
}

void nvml_close(void)
{
	if (nv.ok && nv.shutdown)
		nv.shutdown();
	nv.ok = 0;
}

const char *nvml_driver_version(void) { return nv.ok ? nv.version : ""; }

void *nvml_device_by_bus_id(const char *bus_id)
{
	nvmlDevice_t d = NULL;
	if (!nv.ok || nv.by_bus(bus_id, &d) != 0)
		return NULL;
	return d;
}

int nvml_pcie_info(void *dev, struct nvml_pcie *o)
{
	memset(o, 0, sizeof *o);
	if (!nv.ok || !dev)
		return -1;
	nvmlDevice_t d = dev;
	if (nv.gen_max && nv.gen_max(d, &o->gen_max) != 0)
		o->gen_max = 0;
	if (nv.width_max && nv.width_max(d, &o->width_max) != 0)
		o->width_max = 0;
	if (nv.gen_cur && nv.gen_cur(d, &o->gen_cur) != 0)
		o->gen_cur = 0;
	if (nv.width_cur && nv.width_cur(d, &o->width_cur) != 0)
		o->width_cur = 0;
	if (nv.max_clock && nv.max_clock(d, NVML_CLOCK_MEM, &o->mem_clock_max_mhz) != 0)
		o->mem_clock_max_mhz = 0;
	if (nv.max_clock && nv.max_clock(d, NVML_CLOCK_SM, &o->sm_clock_max_mhz) != 0)
		o->sm_clock_max_mhz = 0;
	if (nv.bus_width && nv.bus_width(d, &o->bus_width_bits) != 0)
		o->bus_width_bits = 0;
	return 0;
}

int nvml_sample_device(void *dev, struct nvml_sample *o)
{
	memset(o, 0, sizeof *o);
	if (!nv.ok || !dev)
		return -1;
	nvmlDevice_t d = dev;
	unsigned long long r = 0;
	struct nvml_util u = { 0, 0 };
	if (nv.clock && nv.clock(d, NVML_CLOCK_SM, &o->sm_mhz) != 0)
		o->sm_mhz = 0;
	if (nv.clock && nv.clock(d, NVML_CLOCK_MEM, &o->mem_mhz) != 0)
		o->mem_mhz = 0;
	if (nv.reasons && nv.reasons(d, &r) == 0)
		o->reasons = r;
	if (nv.temp && nv.temp(d, NVML_TEMPERATURE_GPU, &o->temp_c) != 0)
		o->temp_c = 0;
	if (nv.power && nv.power(d, &o->power_mw) != 0)
		o->power_mw = 0;
	if (nv.util && nv.util(d, &u) == 0)
		o->util_gpu = u.gpu;
	return 0;
}

int nvml_nvlinks(void *dev, char *remote, size_t n, double *link_gbps)
{
	if (n)
		remote[0] = '\0';
	*link_gbps = 0;
	if (!nv.ok || !dev || !nv.link_state)
		return 0;
	/* Per-direction data rate of one link, indexed by NVML's nvmlNvlinkVersion_t (1: 1.0, 2: 2.0,
	 * 3: 2.2, 4: 3.0, 5: 3.1, 6: 4.0 (Hopper: H200 reports 6), 7: 5.0), from NVIDIA's published
	 * figures: NVLink 1: 20 GB/s; 2, 3 and 4: 25 GB/s; 5: 50 GB/s. */
	static const double rate[] = { 0, 20, 25, 25, 25, 25, 25, 50 };
	nvmlDevice_t d = dev;
	size_t pos = 0;
	int active = 0;
	for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
		int on = 0;
		if (nv.link_state(d, link, &on) != 0 || !on)
			continue;
		unsigned ver = 0;
		if (!*link_gbps && nv.link_version && nv.link_version(d, link, &ver) == 0 &&
		    ver < sizeof rate / sizeof rate[0])
			*link_gbps = rate[ver];
		int type = -1;
		struct nvml_pci pci;
		memset(&pci, 0, sizeof pci);
		char what[48] = "other";
		if (nv.link_remote_type && nv.link_remote_type(d, link, &type) == 0 &&
		    type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
			snprintf(what, sizeof what, "switch");
		else if (nv.link_remote_pci && nv.link_remote_pci(d, link, &pci) == 0 &&
		         (type == NVML_NVLINK_DEVICE_TYPE_GPU || type < 0))
			snprintf(what, sizeof what, "gpu:%.31s", pci.bus_id);
		int k = snprintf(remote + pos, n > pos ? n - pos : 0, "%s%s", active ? "," : "", what);
		if (k > 0 && (size_t)k < n - pos)
			pos += (size_t)k;
		active++;
	}
	return active;
}

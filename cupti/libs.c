/* libs.c: opens libcupti and libcuda with dlopen and resolves the functions the recorder calls. */
#include "cupti/libs.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cupti_fns cupti_fn;
struct cuda_fns cuda_fn;

struct sym {
	const char *name;
	void **slot;
	int required;
};

/* dlopen(path), or NULL with dlerror()'s reason (fallback when it gives none) in why. */
static void *open_lib(const char *path, const char *fallback, char *why, size_t wn)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, wn, "%s", e ? e : fallback);
	}
	return h;
}

/* Fills the slots of tbl (tbl_size bytes); when a required symbol is missing, clears tbl again so
 * that no half-resolved table is used, and says which. */
static int resolve(void *h, const struct sym *syms, size_t n, void *tbl, size_t tbl_size, char *why,
                   size_t wn)
{
	for (size_t i = 0; i < n; i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot && syms[i].required) {
			snprintf(why, wn, "symbol %s missing", syms[i].name);
			memset(tbl, 0, tbl_size);
			return -1;
		}
	}
	return 0;
}

#define REQ(tbl, f) { #f, (void **)&tbl.f, 1 }
#define OPT(tbl, f) { #f, (void **)&tbl.f, 0 }

int libs_load_cupti(const char *override_path, char *why, size_t n)
{
	if (cupti_fn.handle)
		return 0;
	/* By soname first: a program that brought its own libcupti (PyTorch's wheel does) has it
	 * loaded already, and two copies of CUPTI in one process would fight over the driver. */
	const char *candidates[6];
	size_t nc = 0;
	char home_path[512];
	if (override_path && *override_path)
		candidates[nc++] = override_path;
	candidates[nc++] = "libcupti.so.13";
	candidates[nc++] = "libcupti.so";
	const char *home = getenv("CUDA_HOME");
	snprintf(home_path, sizeof home_path, "%s/lib64/libcupti.so.13",
	         home && *home ? home : "/usr/local/cuda");
	candidates[nc++] = home_path;
	candidates[nc++] = "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so";
	char last[256] = "";
	void *h = NULL;
	for (size_t i = 0; i < nc && !h; i++)
		h = open_lib(candidates[i], candidates[i], last, sizeof last);
	if (!h) {
		snprintf(why, n, "cannot load libcupti (%s)", last);
		return -1;
	}
	const struct sym syms[] = {
		REQ(cupti_fn, cuptiGetVersion), OPT(cupti_fn, cuptiGetResultString),
		REQ(cupti_fn, cuptiSubscribe), OPT(cupti_fn, cuptiSubscribe_v2),
		REQ(cupti_fn, cuptiUnsubscribe), REQ(cupti_fn, cuptiEnableDomain),
		REQ(cupti_fn, cuptiEnableCallback), OPT(cupti_fn, cuptiGetCallbackName),
		REQ(cupti_fn, cuptiActivityEnable), REQ(cupti_fn, cuptiActivityDisable),
		REQ(cupti_fn, cuptiActivityRegisterCallbacks), REQ(cupti_fn, cuptiActivityFlushAll),
		REQ(cupti_fn, cuptiActivityGetNextRecord),
		OPT(cupti_fn, cuptiActivityGetNumDroppedRecords),
		OPT(cupti_fn, cuptiActivityEnableLatencyTimestamps), REQ(cupti_fn, cuptiGetTimestamp),
		OPT(cupti_fn, cuptiActivityEnableRuntimeApi), OPT(cupti_fn, cuptiActivityEnableDriverApi),
		OPT(cupti_fn, cuptiGetDeviceId), OPT(cupti_fn, cuptiGetContextId),
		OPT(cupti_fn, cuptiGetStreamIdEx), OPT(cupti_fn, cuptiSetThreadIdType),
		OPT(cupti_fn, cuptiFinalize), OPT(cupti_fn, InitializeInjectionNvtx2),
	};
	if (resolve(h, syms, sizeof syms / sizeof syms[0], &cupti_fn, sizeof cupti_fn, why, n) != 0)
		return -1;
	Dl_info info;
	if (dladdr((void *)cupti_fn.cuptiGetVersion, &info) && info.dli_fname)
		snprintf(cupti_fn.path, sizeof cupti_fn.path, "%s", info.dli_fname);
	cupti_fn.handle = h;
	return 0;
}

int libs_load_cuda(char *why, size_t n)
{
	if (cuda_fn.handle)
		return 0;
	void *h = open_lib("libcuda.so.1", "cannot load libcuda.so.1", why, n);
	if (!h)
		return -1;
	const struct sym syms[] = {
		REQ(cuda_fn, cuDriverGetVersion), REQ(cuda_fn, cuDeviceGet),
		REQ(cuda_fn, cuDeviceGetCount), REQ(cuda_fn, cuDeviceGetName),
		OPT(cuda_fn, cuDeviceGetUuid_v2), REQ(cuda_fn, cuDeviceGetAttribute),
		OPT(cuda_fn, cuDeviceTotalMem_v2), OPT(cuda_fn, cuDeviceGetPCIBusId),
		OPT(cuda_fn, cuCtxGetDevice), OPT(cuda_fn, cuKernelGetParamInfo),
		OPT(cuda_fn, cuFuncGetParamInfo), OPT(cuda_fn, cuKernelGetName),
		OPT(cuda_fn, cuFuncGetName), OPT(cuda_fn, cuMemGetAddressRange_v2),
		OPT(cuda_fn, cuPointerGetAttribute), OPT(cuda_fn, cuMemcpyDtoH_v2),
		OPT(cuda_fn, cuStreamSynchronize), OPT(cuda_fn, cuStreamIsCapturing),
		OPT(cuda_fn, cuCtxSynchronize), OPT(cuda_fn, cuMemHostAlloc),
		OPT(cuda_fn, cuMemFreeHost), OPT(cuda_fn, cuGetErrorString),
		OPT(cuda_fn, cuMemcpyDtoHAsync_v2), OPT(cuda_fn, cuKernelGetFunction),
		OPT(cuda_fn, cuStreamQuery), OPT(cuda_fn, cuCtxPushCurrent_v2),
		OPT(cuda_fn, cuCtxPopCurrent_v2),
	};
	if (resolve(h, syms, sizeof syms / sizeof syms[0], &cuda_fn, sizeof cuda_fn, why, n) != 0)
		return -1;
	cuda_fn.handle = h;
	return 0;
}

const char *libs_cupti_error(CUptiResult r)
{
	static __thread char buf[48];
	const char *s = NULL;
	if (cupti_fn.cuptiGetResultString && cupti_fn.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	snprintf(buf, sizeof buf, "CUptiResult %d", (int)r);
	return buf;
}

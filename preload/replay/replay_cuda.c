/* replay_cuda.c: opens libcuda with dlopen and resolves the driver calls of replay_cuda.h. */
#include "preload/replay/replay_cuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct sym {
	const char *name;
	size_t offset;
	int required;
};

#define SYM(field, symbol, req) { symbol, offsetof(struct replay_cuda, field), req }
static const struct sym syms[] = {
	SYM(cuInit, "cuInit", 1),
	SYM(cuGetErrorName, "cuGetErrorName", 1),
	SYM(cuDeviceGetCount, "cuDeviceGetCount", 1),
	SYM(cuDeviceGet, "cuDeviceGet", 1),
	SYM(cuDeviceGetName, "cuDeviceGetName", 1),
	SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute", 1),
	SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 1),
	SYM(cuCtxSetCurrent, "cuCtxSetCurrent", 1),
	SYM(cuCtxSynchronize, "cuCtxSynchronize", 1),
	SYM(cuModuleLoadData, "cuModuleLoadData", 1),
	SYM(cuModuleUnload, "cuModuleUnload", 1),
	SYM(cuModuleGetFunction, "cuModuleGetFunction", 1),
	SYM(cuFuncSetAttribute, "cuFuncSetAttribute", 1),
	SYM(cuLaunchKernel, "cuLaunchKernel", 1),
	SYM(cuLaunchKernelEx, "cuLaunchKernelEx", 0),
	SYM(cuMemAlloc, "cuMemAlloc_v2", 1),
	SYM(cuMemFree, "cuMemFree_v2", 1),
	SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2", 1),
	SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2", 1),
};

const char *replay_cuda_strerror(const struct replay_cuda *cu, CUresult r, char *buf, size_t n)
{
	const char *name = NULL;
	if (!cu->cuGetErrorName || cu->cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
		name = "CUDA error";
	snprintf(buf, n, "%s (%d)", name, (int)r);
	return buf;
}

int replay_cuda_open(struct replay_cuda *cu, int ordinal, char *why, size_t n)
{
	memset(cu, 0, sizeof *cu);
	cu->handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu->handle) {
		const char *e = dlerror();
		snprintf(why, n, "no CUDA driver (%s)", e ? e : "libcuda.so.1 not found");
		return -1;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(cu->handle, syms[i].name);
		if (!f && syms[i].required) {
			snprintf(why, n, "the CUDA driver lacks %s (too old?)", syms[i].name);
			return -1;
		}
		/* A data pointer to a function pointer: POSIX guarantees dlsym's result converts. */
		memcpy((char *)cu + syms[i].offset, &f, sizeof f);
	}
	char e[96];
	CUresult r = cu->cuInit(0);
	if (r != CUDA_SUCCESS) {
		snprintf(why, n, "the CUDA driver did not initialise: %s", replay_cuda_strerror(cu, r, e, sizeof e));
		return -1;
	}
	int count = 0;
	if ((r = cu->cuDeviceGetCount(&count)) != CUDA_SUCCESS || count == 0) {
		snprintf(why, n, "no CUDA device%s%s", r ? ": " : "", r ? replay_cuda_strerror(cu, r, e, sizeof e) : "");
		return -1;
	}
	if (ordinal < 0 || ordinal >= count) {
		snprintf(why, n, "no CUDA device %d (this machine has %d)", ordinal, count);
		return -1;
	}
	if ((r = cu->cuDeviceGet(&cu->dev, ordinal)) != CUDA_SUCCESS ||
	    (r = cu->cuDeviceGetAttribute(&cu->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cu->dev)) ||
	    (r = cu->cuDeviceGetAttribute(&cu->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cu->dev)) ||
	    (r = cu->cuDeviceGetName(cu->name, (int)sizeof cu->name, cu->dev)) ||
	    (r = cu->cuDevicePrimaryCtxRetain(&cu->ctx, cu->dev)) || (r = cu->cuCtxSetCurrent(cu->ctx))) {
		snprintf(why, n, "cannot use CUDA device %d: %s", ordinal, replay_cuda_strerror(cu, r, e, sizeof e));
		return -1;
	}
	return 0;
}

/* replay_cuda.h: the CUDA driver calls `gputrace replay` makes, resolved with dlopen at run time.
 *
 * The replay worker (gputrace-replay) is a plain driver-API program: like the recorder it never
 * links libcuda, so on a machine without a driver it starts, says "unavailable" in one line and
 * exits 77 instead of failing in the dynamic loader. Versioned entry points are looked up by the
 * names cuda.h's macros expand to (cuMemAlloc -> cuMemAlloc_v2).
 */
#ifndef GT_REPLAY_CUDA_H
#define GT_REPLAY_CUDA_H

#include <cuda.h>
#include <stddef.h>

#define RC_FN(name) __typeof__(name) *name
struct replay_cuda {
	void *handle;
	RC_FN(cuInit);
	RC_FN(cuGetErrorName);
	RC_FN(cuDeviceGetCount);
	RC_FN(cuDeviceGet);
	RC_FN(cuDeviceGetName);
	RC_FN(cuDeviceGetAttribute);
	RC_FN(cuDevicePrimaryCtxRetain);
	RC_FN(cuCtxSetCurrent);
	RC_FN(cuCtxSynchronize);
	RC_FN(cuModuleLoadData);
	RC_FN(cuModuleUnload);
	RC_FN(cuModuleGetFunction);
	RC_FN(cuFuncSetAttribute);
	RC_FN(cuLaunchKernel);
	RC_FN(cuLaunchKernelEx);     /* NULL before CUDA 12: clusters then cannot be replayed */
	RC_FN(cuMemAlloc);
	RC_FN(cuMemFree);
	RC_FN(cuMemcpyHtoD);
	RC_FN(cuMemcpyDtoH);
	CUdevice dev;
	CUcontext ctx;
	int cc_major, cc_minor;
	char name[256];
};
#undef RC_FN

/* Loads the driver, initialises it and makes device `ordinal`'s primary context current. 0, or -1
 * with the reason in why ("no CUDA driver (libcuda.so.1: cannot open ...)", "no CUDA device"). */
int replay_cuda_open(struct replay_cuda *cu, int ordinal, char *why, size_t n);

/* "CUDA_ERROR_ILLEGAL_ADDRESS (700)" for a result. */
const char *replay_cuda_strerror(const struct replay_cuda *cu, CUresult r, char *buf, size_t n);

#endif

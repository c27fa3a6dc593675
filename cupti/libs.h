/* libs.h: libcupti and libcuda, loaded at run time with dlopen.
 *
 * The recorder is preloaded into programs that may run where there is no driver; linking -lcuda or
 * -lcupti would stop such a program from even starting. So both libraries are opened by soname (which
 * also picks up the copy a program such as PyTorch already loaded, rather than a second one) and every
 * function we call goes through these tables. A NULL pointer means the symbol is missing; callers check.
 */
#ifndef GT_CUPTI_LIBS_H
#define GT_CUPTI_LIBS_H

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>

#define LIBS_FN(name) __typeof__(name) *name

struct cupti_fns {
	void *handle;
	char path[512];
	LIBS_FN(cuptiGetVersion);
	LIBS_FN(cuptiGetResultString);
	LIBS_FN(cuptiSubscribe);
	LIBS_FN(cuptiSubscribe_v2);
	LIBS_FN(cuptiUnsubscribe);
	LIBS_FN(cuptiEnableDomain);
	LIBS_FN(cuptiEnableCallback);
	LIBS_FN(cuptiGetCallbackName);
	LIBS_FN(cuptiActivityEnable);
	LIBS_FN(cuptiActivityDisable);
	LIBS_FN(cuptiActivityRegisterCallbacks);
	LIBS_FN(cuptiActivityFlushAll);
	LIBS_FN(cuptiActivityGetNextRecord);
	LIBS_FN(cuptiActivityGetNumDroppedRecords);
	LIBS_FN(cuptiActivityEnableLatencyTimestamps);
	LIBS_FN(cuptiActivityEnableRuntimeApi); /* per-call selection, CUPTI 12+ */
	LIBS_FN(cuptiActivityEnableDriverApi);
	LIBS_FN(cuptiGetTimestamp);
	LIBS_FN(cuptiGetDeviceId);
	LIBS_FN(cuptiGetContextId);
	LIBS_FN(cuptiGetStreamIdEx);
	LIBS_FN(cuptiSetThreadIdType); /* OS thread ids in records, where CUPTI offers them */
	LIBS_FN(cuptiFinalize);
	int (*InitializeInjectionNvtx2)(const void *(*get_export_table)(uint32_t));
};

struct cuda_fns {
	void *handle;
	LIBS_FN(cuDriverGetVersion);
	LIBS_FN(cuDeviceGet);
	LIBS_FN(cuDeviceGetCount);
	LIBS_FN(cuDeviceGetName);
	CUresult (*cuDeviceGetUuid_v2)(CUuuid *uuid, CUdevice dev);
	LIBS_FN(cuDeviceGetAttribute);
	CUresult (*cuDeviceTotalMem_v2)(size_t *bytes, CUdevice dev);
	LIBS_FN(cuDeviceGetPCIBusId);
	LIBS_FN(cuCtxGetDevice);
	/* for shadow capture */
	LIBS_FN(cuKernelGetParamInfo);
	LIBS_FN(cuFuncGetParamInfo);
	LIBS_FN(cuKernelGetName);
	LIBS_FN(cuFuncGetName);
	CUresult (*cuMemGetAddressRange_v2)(CUdeviceptr *base, size_t *size, CUdeviceptr dptr);
	LIBS_FN(cuPointerGetAttribute);
	CUresult (*cuMemcpyDtoH_v2)(void *dst, CUdeviceptr src, size_t bytes);
	LIBS_FN(cuStreamSynchronize);
	LIBS_FN(cuStreamIsCapturing);
	LIBS_FN(cuCtxSynchronize);
	CUresult (*cuMemHostAlloc)(void **pp, size_t bytes, unsigned int flags);
	LIBS_FN(cuMemFreeHost);
	LIBS_FN(cuGetErrorString);
	CUresult (*cuMemcpyDtoHAsync_v2)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
	LIBS_FN(cuKernelGetFunction);
	LIBS_FN(cuStreamQuery);
	/* for the PM sampler: started and stopped in its context (preload/metrics.c) */
	CUresult (*cuCtxPushCurrent_v2)(CUcontext ctx);
	CUresult (*cuCtxPopCurrent_v2)(CUcontext *ctx);
};

extern struct cupti_fns cupti_fn;
extern struct cuda_fns cuda_fn;

/* Loads libcupti (GPUTRACE_CUPTI_PATH, else by soname, else CUDA_HOME's copy). 0 or -1 with a reason. */
int libs_load_cupti(const char *override_path, char *why, size_t n);
/* Loads libcuda.so.1. 0 or -1 with the loader's reason in why. */
int libs_load_cuda(char *why, size_t n);
/* "CUPTI_ERROR_NOT_INITIALIZED" or "CUptiResult 123" when the string is not available. */
const char *libs_cupti_error(CUptiResult r);

#endif

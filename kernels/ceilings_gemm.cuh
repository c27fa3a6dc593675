/*
 * kernels/ceilings_gemm.cuh: the tensor-core rate a library GEMM reaches, the last of the ceilings
 * `gputrace peak` measures (ceilings.cuh includes this after its own): cuBLAS's cublasGemmEx on
 * square FP16 and on BF16 matrices (8192 on a side, 4096 where memory is short), FP32
 * accumulation, the types and the kind of shape of a training step's GEMMs.
 *
 * Why beside the mma.sync ceilings: on sm_90 only wgmma (warpgroup MMA from shared memory) reaches
 * the tensor cores' full rate, and mma.sync on register fragments stops near 60% of it (the H100
 * and H200 measured 636 of 1070 TFLOP/s). A library GEMM uses wgmma there, so its rate is the
 * ceiling a model's GEMMs are held to; gpuanalyze takes the higher of the two measured tensor
 * ceilings.
 *
 * cuBLAS is opened with dlopen (libcublas.so.13, .12, then the toolkit's lib64), so the probe links
 * nothing beyond the CUDA runtime and still runs where there is none: each kind is then a "skip"
 * line saying why, never a figure, and the probe goes on. A cuBLAS call that fails is the same.
 * Built without cuBLAS's header, the kinds are skipped the same way.
 */
#ifndef GPUTRACE_KERNELS_CEILINGS_GEMM_CUH
#define GPUTRACE_KERNELS_CEILINGS_GEMM_CUH

#if __has_include(<cublas_v2.h>)
#include <cublas_v2.h>
#define CEIL_HAVE_CUBLAS_HEADER 1
#else
#define CEIL_HAVE_CUBLAS_HEADER 0
#endif

#include <cstdlib>
#include <string>

/* Fills n 16-bit values with small values of both signs (sin of the index / 64): zeros would let
 * the chip run cooler, and faster, than on real data. */
template <typename T>
__global__ void ceil_gemm_fill(T *p, size_t n)
{
	const size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		p[i] = T(__sinf((float)(i % 4096)) / 64.0f);
}

#if CEIL_HAVE_CUBLAS_HEADER
/* The few cuBLAS functions the measurement calls, looked up in the library dlopen found. */
struct CublasLib {
	void *handle = nullptr;
	decltype(&cublasCreate_v2) create = nullptr;
	decltype(&cublasDestroy_v2) destroy = nullptr;
	decltype(&cublasSetStream_v2) set_stream = nullptr;
	/* The C symbol's signature (C++ sees overloads of the name). */
	typedef cublasStatus_t (*gemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
					  const void *, const void *, cudaDataType, int, const void *, cudaDataType,
					  int, const void *, void *, cudaDataType, int, cublasComputeType_t,
					  cublasGemmAlgo_t);
	gemm_fn gemm = nullptr;
	std::string path;

	/* Opens cuBLAS; "" or the reason it could not be had. */
	std::string open()
	{
		std::string tried;
		std::vector<std::string> names = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
		const char *home = getenv("CUDA_HOME");
		if (home && *home)
			names.push_back(std::string(home) + "/lib64/libcublas.so");
		names.push_back("/usr/local/cuda/lib64/libcublas.so");
		for (const std::string &n : names) {
			if ((handle = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) {
				path = n;
				break;
			}
			tried += (tried.empty() ? "" : ", ") + n;
		}
		if (!handle)
			return "no cuBLAS (tried " + tried + ")";
		create = (decltype(create))dlsym(handle, "cublasCreate_v2");
		destroy = (decltype(destroy))dlsym(handle, "cublasDestroy_v2");
		set_stream = (decltype(set_stream))dlsym(handle, "cublasSetStream_v2");
		gemm = (decltype(gemm))dlsym(handle, "cublasGemmEx");
		if (!create || !destroy || !set_stream || !gemm)
			return path + " lacks cublasCreate_v2, cublasDestroy_v2, cublasSetStream_v2 or cublasGemmEx";
		return "";
	}
};
#endif

/* Prints the line of a kind that was not measured, and why. */
inline void ceil_gemm_skip(const char *kind, const std::string &why)
{
	printf("skip kind=%s why=\"%s\"\n", kind, why.c_str());
	fflush(stdout);
}

/* Measures fp16_gemm and bf16_gemm on c's device and stream, with c's reps, warm-up and clocks
 * (Ceilings::report), or prints why not. Runs last: nothing it does can stop the figures before it. */
template <class CeilingsT>
inline void measure_library_gemm(CeilingsT &c, double tensor_theory_flops)
{
#if !CEIL_HAVE_CUBLAS_HEADER
	(void)c;
	(void)tensor_theory_flops;
	ceil_gemm_skip("fp16_gemm", "the probe was built without cuBLAS's header");
	ceil_gemm_skip("bf16_gemm", "the probe was built without cuBLAS's header");
#else
	CublasLib lib;
	std::string why = lib.open();
	cublasHandle_t h = nullptr;
	if (why.empty() && lib.create(&h) != CUBLAS_STATUS_SUCCESS)
		why = "cublasCreate failed in " + lib.path;
	if (why.empty() && lib.set_stream(h, c.stream) != CUBLAS_STATUS_SUCCESS)
		why = "cublasSetStream failed in " + lib.path;
	/* Three n x n matrices of 2 bytes: 384 MiB at 8192, kept under half of what is free. */
	int n = 8192;
	size_t free_b = 0, total_b = 0;
	CK(cudaMemGetInfo(&free_b, &total_b));
	while (n > 1024 && 3.0 * n * n * 2 > free_b / 2.0)
		n /= 2;
	void *a = nullptr, *b = nullptr, *d = nullptr;
	if (why.empty()) {
		const size_t bytes = (size_t)n * n * 2;
		CK(cudaMalloc(&a, bytes));
		CK(cudaMalloc(&b, bytes));
		CK(cudaMalloc(&d, bytes));
	}
	for (int bf = 0; bf < 2; bf++) {
		const char *kind = bf ? "bf16_gemm" : "fp16_gemm";
		if (!why.empty()) {
			ceil_gemm_skip(kind, why);
			continue;
		}
		const size_t elems = (size_t)n * n;
		if (bf) {
			ceil_gemm_fill<__nv_bfloat16><<<1024, 256, 0, c.stream>>>((__nv_bfloat16 *)a, elems);
			tally_launch("ceil_gemm_fill");
			ceil_gemm_fill<__nv_bfloat16><<<1024, 256, 0, c.stream>>>((__nv_bfloat16 *)b, elems);
			tally_launch("ceil_gemm_fill");
		} else {
			ceil_gemm_fill<__half><<<1024, 256, 0, c.stream>>>((__half *)a, elems);
			tally_launch("ceil_gemm_fill");
			ceil_gemm_fill<__half><<<1024, 256, 0, c.stream>>>((__half *)b, elems);
			tally_launch("ceil_gemm_fill");
		}
		const cudaDataType ty = bf ? CUDA_R_16BF : CUDA_R_16F;
		const float one = 1.0f, zero = 0.0f;
		cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
		auto gemm = [&] {
			cublasStatus_t s = lib.gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, ty, n, b, ty, n, &zero,
						    d, ty, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
			if (s != CUBLAS_STATUS_SUCCESS)
				st = s;
		};
		/* One call first, checked, so that a failing one is a skip line and not a figure. */
		gemm();
		CK(cudaStreamSynchronize(c.stream));
		if (st != CUBLAS_STATUS_SUCCESS) {
			ceil_gemm_skip(kind, "cublasGemmEx failed with status " + std::to_string((int)st) + " in " + lib.path);
			continue;
		}
		char method[640];
		snprintf(method, sizeof method,
			 "cuBLAS cublasGemmEx (%s, dlopened), %d x %d x %d, %s A, B and C, FP32 compute "
			 "(CUBLAS_COMPUTE_32F), CUBLAS_GEMM_DEFAULT, column-major, no transposes, inputs sin(i)/64; "
			 "2 x %d^3 flops per call; theory SMs x %d x max SM clock (dense); median of %d calls "
			 "after %d",
			 lib.path.c_str(), n, n, n, bf ? "BF16" : "FP16", n,
			 sm_rates(c.prop.major, c.prop.minor).f16_mma_flops, c.reps, c.warmup);
		unsigned sm = 0, mem = 0;
		bool nvml = false;
		std::vector<double> ms = c.time_launches(gemm, kind, &sm, &mem, &nvml);
		if (st != CUBLAS_STATUS_SUCCESS) /* a failed call takes no time: no figure from it */
			ceil_gemm_skip(kind, "a timed cublasGemmEx failed with status " + std::to_string((int)st));
		else
			c.print_figure(kind, "gflops", 2.0 * n * n * (double)n, "flops", tensor_theory_flops, ms, sm, mem,
				       nvml, method);
	}
	if (a) {
		CK(cudaFree(a));
		CK(cudaFree(b));
		CK(cudaFree(d));
	}
	if (h)
		lib.destroy(h);
#endif
}

#endif /* GPUTRACE_KERNELS_CEILINGS_GEMM_CUH */
